-- The provider account's request schedule, shared by every payrecon process on this database
-- (src/db/provider-budget.ts, src/provider/rate-limit.ts). PROVIDER_RATE_LIMIT is the whole account's
-- limit: each process reserves a few evenly spaced send slots at a time by moving next_free_ms forward
-- in one UPDATE, so together they never send faster than the limit. Times are milliseconds since the
-- epoch on the database server's clock, the one clock all processes share. One row per account.
CREATE TABLE provider_budget (
  account text PRIMARY KEY,
  next_free_ms double precision NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
