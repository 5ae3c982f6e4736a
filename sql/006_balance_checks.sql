-- Settlement roll-forward between two consecutive balance snapshots of a currency, one row per
-- pair checked by the snapshot job: the figures behind a BALANCE_DRIFT, kept for finance and alerts.

CREATE TABLE balance_checks (
  id                   bigserial PRIMARY KEY,
  run_id               bigint      REFERENCES recon_runs (id),
  currency             text        NOT NULL,
  opening_snapshot_id  bigint      NOT NULL REFERENCES balance_snapshots (id),
  closing_snapshot_id  bigint      NOT NULL REFERENCES balance_snapshots (id),
  opening_total        numeric     NOT NULL,
  explained_movement   numeric     NOT NULL,
  expected_closing     numeric     NOT NULL,
  closing_total        numeric     NOT NULL,
  -- closing - expected: positive means more money than the orders explain.
  drift                numeric     NOT NULL,
  tolerance            numeric     NOT NULL,
  within_tolerance     boolean     NOT NULL,
  payments_count       integer     NOT NULL,
  payouts_count        integer     NOT NULL,
  checked_at           timestamptz NOT NULL,
  UNIQUE (opening_snapshot_id, closing_snapshot_id)
);
CREATE INDEX balance_checks_currency ON balance_checks (currency, checked_at);
