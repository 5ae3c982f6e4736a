-- Money moved into or out of the provider wallet that no order explains (issue 38): top-ups,
-- withdrawals, the provider's adjustments and charges. Recorded by one person (or an import run as
-- one), approved by another before the roll-forward counts it (maker-checker); every step audited.
CREATE TABLE movements (
  id             bigserial   PRIMARY KEY,
  -- One provider account today; the reference is unique per account.
  account        text        NOT NULL DEFAULT 'default',
  reference      text        NOT NULL,
  currency       text        NOT NULL,
  direction      text        NOT NULL CHECK (direction IN ('in', 'out')),
  amount         numeric     NOT NULL CHECK (amount > 0),
  -- The best-known interval of the moment it moved the balance (equal bounds: a known instant).
  occurred_from  timestamptz NOT NULL,
  occurred_to    timestamptz NOT NULL,
  kind           text        NOT NULL CHECK (kind IN ('top_up', 'withdrawal', 'adjustment', 'charge')),
  -- The USDT leg: what was sent or received in USDT, and the rate applied (local units per USDT).
  usdt_amount    numeric     CHECK (usdt_amount > 0),
  usdt_rate      numeric     CHECK (usdt_rate > 0),
  note           text        NOT NULL DEFAULT '',
  recorded_by    text        NOT NULL,
  recorded_at    timestamptz NOT NULL,
  -- Where it came from: 'console', 'import:<file name>', ...
  source         text        NOT NULL,
  approved_by    text,
  approved_at    timestamptz,
  UNIQUE (account, reference),
  CHECK (occurred_to >= occurred_from),
  CHECK ((approved_by IS NULL) = (approved_at IS NULL)),
  -- The maker never approves their own.
  CHECK (approved_by IS NULL OR approved_by <> recorded_by)
);
-- The roll-forward asks for the approved movements of a currency near a window.
CREATE INDEX movements_window ON movements (currency, occurred_to) WHERE approved_at IS NOT NULL;

-- Append-only: who did what to a movement, when.
CREATE TABLE movement_events (
  id           bigserial   PRIMARY KEY,
  movement_id  bigint      NOT NULL REFERENCES movements (id),
  action       text        NOT NULL CHECK (action IN ('recorded', 'approved')),
  actor        text        NOT NULL,
  at           timestamptz NOT NULL,
  detail       jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX movement_events_movement ON movement_events (movement_id, id);
-- Append-only in the database itself, as case_events: an audit trail that can be edited proves nothing.
CREATE FUNCTION movement_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'movement_events is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$fn$;
CREATE TRIGGER movement_events_no_update_delete BEFORE UPDATE OR DELETE ON movement_events
  FOR EACH ROW EXECUTE FUNCTION movement_events_append_only();
CREATE TRIGGER movement_events_no_truncate BEFORE TRUNCATE ON movement_events
  FOR EACH STATEMENT EXECUTE FUNCTION movement_events_append_only();

-- The roll-forward's figures gain what approved movements explained (0 for checks made before).
ALTER TABLE balance_checks ADD COLUMN movements_movement numeric NOT NULL DEFAULT 0;
ALTER TABLE balance_checks ADD COLUMN movements_count integer NOT NULL DEFAULT 0;
