-- Cases: one record per problem that people acknowledge and resolve, with an append-only audit trail.

-- One case per (subject, code). The subject names what the problem is about:
--   payment:<order id> / payout:<order id>         an order of the merchant's (STATUS, AMOUNT, FEE, ...)
--   unknown-payment:<transactionRef> (or payout)   an order the provider confirmed and the merchant has no record of
--   <currency>:<opening>/<closing>                 BALANCE_DRIFT: a currency and the window between two snapshots
CREATE TABLE cases (
  id               bigserial   PRIMARY KEY,
  subject          text        NOT NULL,
  code             text        NOT NULL,
  direction        text        CHECK (direction IN ('payment', 'payout')),
  order_id         bigint,
  merchant_ref     text,
  transaction_ref  text,
  currency         text,
  window_start     timestamptz,
  window_end       timestamptz,
  -- When what the case is about happened: the order's creation, the drift window's end, the
  -- notification's receipt. `cases list --day D` selects on it, as a report of D selects orders.
  occurred_at      timestamptz NOT NULL,
  state            text        NOT NULL CHECK (state IN ('open', 'acknowledged', 'resolved')),
  -- Why it is resolved (a person's reason or cleared-by-recheck); null unless resolved.
  resolution       text,
  -- First opened, and opened last (a reopened case's age counts from its reopening).
  created_at       timestamptz NOT NULL,
  opened_at        timestamptz NOT NULL,
  -- When the state last changed, and when a check last found the problem.
  state_changed_at timestamptz NOT NULL,
  last_seen_at     timestamptz NOT NULL,
  -- Checks that found it, the first included.
  seen_count       integer     NOT NULL DEFAULT 1,
  -- The latest finding: local and provider values and the sentence for people.
  finding          jsonb       NOT NULL DEFAULT '{}',
  -- Bumped by every transition: a write computed from an older version changes nothing.
  version          integer     NOT NULL DEFAULT 1,
  UNIQUE (subject, code),
  CHECK ((state = 'resolved') = (resolution IS NOT NULL))
);
CREATE INDEX cases_order ON cases (direction, order_id) WHERE order_id IS NOT NULL;
CREATE INDEX cases_transaction_ref ON cases (transaction_ref);
CREATE INDEX cases_state ON cases (state, opened_at);
CREATE INDEX cases_occurred ON cases (occurred_at);

-- Every transition of a case, never changed once written: who moved it, from what, to what, why, when.
CREATE TABLE case_events (
  id          bigserial   PRIMARY KEY,
  case_id     bigint      NOT NULL REFERENCES cases (id),
  from_state  text        CHECK (from_state IN ('open', 'acknowledged', 'resolved')),
  to_state    text        NOT NULL CHECK (to_state IN ('open', 'acknowledged', 'resolved')),
  reason      text,
  note        text        NOT NULL DEFAULT '',
  actor       text        NOT NULL,
  at          timestamptz NOT NULL
);
CREATE INDEX case_events_case ON case_events (case_id, id);

-- Append-only in the database itself, whatever the code or the role (superusers included): an audit
-- trail that can be edited proves nothing.
CREATE FUNCTION case_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'case_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$fn$;
CREATE TRIGGER case_events_no_update_delete BEFORE UPDATE OR DELETE ON case_events
  FOR EACH ROW EXECUTE FUNCTION case_events_append_only();
CREATE TRIGGER case_events_no_truncate BEFORE TRUNCATE ON case_events
  FOR EACH STATEMENT EXECUTE FUNCTION case_events_append_only();

-- Alerts belong to their cause: the cases behind an alert, and the one "resolved" message sent when
-- they have all cleared (unique: never two resolved messages for one alert).
ALTER TABLE alerts ADD COLUMN case_ids bigint[] NOT NULL DEFAULT '{}';
ALTER TABLE alerts ADD COLUMN resolves_alert_id bigint UNIQUE REFERENCES alerts (id);
CREATE INDEX alerts_unresolved ON alerts (kind) WHERE resolved_at IS NULL;
