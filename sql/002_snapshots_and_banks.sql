-- Balance and USDT rate snapshots, and the provider's bank code lists.

CREATE TABLE balance_snapshots (
  id         bigserial PRIMARY KEY,
  run_id     bigint      REFERENCES recon_runs (id),
  currency   text        NOT NULL,
  available  numeric     NOT NULL,
  pending    numeric     NOT NULL,
  held       numeric     NOT NULL,
  credit     numeric     NOT NULL,
  taken_at   timestamptz NOT NULL
);
CREATE INDEX balance_snapshots_currency ON balance_snapshots (currency, taken_at);

CREATE TABLE rate_snapshots (
  id         bigserial PRIMARY KEY,
  run_id     bigint      REFERENCES recon_runs (id),
  currency   text        NOT NULL,
  deposit    numeric     NOT NULL,
  withdraw   numeric     NOT NULL,
  taken_at   timestamptz NOT NULL,
  -- RATE_STALE, RATE_JUMP
  flags      text[]      NOT NULL DEFAULT '{}'
);
CREATE INDEX rate_snapshots_currency ON rate_snapshots (currency, taken_at);

CREATE TABLE bank_codes (
  currency       text        NOT NULL,
  bank_code      text        NOT NULL,
  bank_name      text        NOT NULL,
  active         boolean     NOT NULL DEFAULT true,
  first_seen_at  timestamptz NOT NULL,
  last_seen_at   timestamptz NOT NULL,
  PRIMARY KEY (currency, bank_code)
);
