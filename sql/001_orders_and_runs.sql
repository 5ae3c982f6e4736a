-- The merchant's orders (the contract its systems write to) and payrecon's run bookkeeping.
-- Runs inside the configured schema (search_path is set by the migrator).

CREATE TABLE payment_orders (
  id               bigserial PRIMARY KEY,
  merchant_ref     text        NOT NULL UNIQUE,
  transaction_ref  text        NOT NULL UNIQUE,
  currency         text        NOT NULL CHECK (currency IN ('INR', 'NGN', 'IDR')),
  method           text        NOT NULL,
  amount           numeric     NOT NULL CHECK (amount >= 0),
  paid_amount      numeric     CHECK (paid_amount >= 0),
  fee              numeric     CHECK (fee >= 0),
  status           text        NOT NULL DEFAULT 'Initiated',
  status_category  text        NOT NULL DEFAULT 'pending' CHECK (status_category IN ('pending', 'success', 'failed', 'unknown')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  finalized_at     timestamptz,
  last_checked_at  timestamptz,
  check_count      integer     NOT NULL DEFAULT 0,
  next_check_at    timestamptz
);
-- The default run: non-final orders whose next check is due.
CREATE INDEX payment_orders_due ON payment_orders (next_check_at, id) WHERE status_category IN ('pending', 'unknown');
CREATE INDEX payment_orders_created ON payment_orders (created_at, id);
CREATE INDEX payment_orders_finalized ON payment_orders (finalized_at) WHERE finalized_at IS NOT NULL;

CREATE TABLE payout_orders (
  id               bigserial PRIMARY KEY,
  merchant_ref     text        NOT NULL UNIQUE,
  transaction_ref  text        NOT NULL UNIQUE,
  currency         text        NOT NULL CHECK (currency IN ('INR', 'NGN', 'IDR')),
  method           text        NOT NULL,
  amount           numeric     NOT NULL CHECK (amount >= 0),
  fee              numeric     CHECK (fee >= 0),
  bank_code        text,
  utr              text,
  status           text        NOT NULL DEFAULT 'Initiated',
  status_category  text        NOT NULL DEFAULT 'pending' CHECK (status_category IN ('pending', 'success', 'failed', 'unknown')),
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  finalized_at     timestamptz,
  last_checked_at  timestamptz,
  check_count      integer     NOT NULL DEFAULT 0,
  next_check_at    timestamptz
);
CREATE INDEX payout_orders_due ON payout_orders (next_check_at, id) WHERE status_category IN ('pending', 'unknown');
CREATE INDEX payout_orders_created ON payout_orders (created_at, id);
CREATE INDEX payout_orders_finalized ON payout_orders (finalized_at) WHERE finalized_at IS NOT NULL;

-- One row per job run: parameters, progress checkpoint, counts and outcome.
CREATE TABLE recon_runs (
  id           bigserial PRIMARY KEY,
  job          text        NOT NULL,
  params       jsonb       NOT NULL DEFAULT '{}',
  status       text        NOT NULL DEFAULT 'running'
               CHECK (status IN ('running', 'completed', 'failed', 'credentials', 'provider_unavailable', 'interrupted')),
  dry_run      boolean     NOT NULL DEFAULT false,
  started_at   timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz,
  -- Where a killed run resumes: the last order id fully written, per direction.
  checkpoint   jsonb       NOT NULL DEFAULT '{}',
  selected     integer     NOT NULL DEFAULT 0,
  checked      integer     NOT NULL DEFAULT 0,
  counts       jsonb       NOT NULL DEFAULT '{}',
  error        text
);
CREATE INDEX recon_runs_job ON recon_runs (job, started_at DESC);

-- One row per order checked per run: what the provider said, and the verdict.
CREATE TABLE recon_items (
  id                    bigserial PRIMARY KEY,
  run_id                bigint      NOT NULL REFERENCES recon_runs (id),
  direction             text        NOT NULL CHECK (direction IN ('payment', 'payout')),
  order_id              bigint      NOT NULL,
  merchant_ref          text        NOT NULL,
  transaction_ref       text        NOT NULL,
  currency              text        NOT NULL,
  method                text        NOT NULL,
  checked_at            timestamptz NOT NULL,
  local_status          text        NOT NULL,
  local_category        text        NOT NULL,
  local_amount          numeric     NOT NULL,
  local_paid_amount     numeric,
  local_fee             numeric,
  local_utr             text,
  provider_status       text,
  provider_category     text,
  provider_amount       numeric,
  provider_paid_amount  numeric,
  provider_fee          numeric,
  provider_utr          text,
  verdict               text        NOT NULL CHECK (verdict IN ('matched', 'resolved', 'pending', 'mismatch', 'error')),
  codes                 text[]      NOT NULL DEFAULT '{}',
  details               jsonb       NOT NULL DEFAULT '[]',
  reason                text        NOT NULL DEFAULT '',
  UNIQUE (run_id, direction, order_id)
);
CREATE INDEX recon_items_checked ON recon_items (checked_at, direction, order_id);
CREATE INDEX recon_items_order ON recon_items (direction, order_id, checked_at DESC);
