-- What each report version said about each order of its business day, so a later report can list
-- the orders of earlier days whose verdict or codes changed since (late_changes.csv), and
-- whether a rerun changed the business content at all (business_hash: run ids and check times aside).

ALTER TABLE report_versions ADD COLUMN business_hash text;
-- Versions written before this migration recorded no orders: never compared against.
ALTER TABLE report_versions ADD COLUMN orders_recorded boolean NOT NULL DEFAULT false;
-- Written while its business day was not over yet (today in REPORT_TIMEZONE).
ALTER TABLE report_versions ADD COLUMN partial boolean NOT NULL DEFAULT false;

CREATE TABLE report_version_orders (
  version_id  bigint  NOT NULL REFERENCES report_versions (id),
  direction   text    NOT NULL CHECK (direction IN ('payment', 'payout')),
  order_id    bigint  NOT NULL,
  -- matched, resolved, pending, mismatch, error, or unchecked (never checked when the version was written).
  verdict     text    NOT NULL,
  codes       text[]  NOT NULL DEFAULT '{}',
  PRIMARY KEY (version_id, direction, order_id)
);
-- The latest recorded version of each day, found by date.
CREATE INDEX report_versions_recorded ON report_versions (business_date, version DESC) WHERE orders_recorded;

-- The few rows open items and late changes start from, so a report does not walk every order of
-- the lookback days: checks that left an order open, orders not final or never checked, and what a
-- version recorded as not consistent.
CREATE INDEX recon_items_open ON recon_items (checked_at) WHERE verdict IN ('pending', 'mismatch', 'error');
CREATE INDEX payment_orders_open ON payment_orders (created_at)
  WHERE status_category IN ('pending', 'unknown') OR last_checked_at IS NULL;
CREATE INDEX payout_orders_open ON payout_orders (created_at)
  WHERE status_category IN ('pending', 'unknown') OR last_checked_at IS NULL;
CREATE INDEX report_version_orders_open ON report_version_orders (version_id) WHERE verdict NOT IN ('matched', 'resolved');
