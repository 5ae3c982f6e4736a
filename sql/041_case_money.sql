-- The money a case puts at stake (issue 39). sql/029's generated at_risk never matched on Postgres:
-- knex read the question marks of its regular expression as bindings ($1, $2), so every case had
-- none, and the queue's "largest at risk first" was the newest cases. This file writes no question
-- mark (the migrator now passes them through; older deployments ran 029 as it was stored).
--
-- A case of a money code (AMOUNT, PAID_AMOUNT, FEE, BALANCE_DRIFT) with both values as decimals has:
--   difference    provider - local, signed, in the case's currency (a drift: closing - expected);
--   at_risk       its magnitude;
--   at_risk_usdt  at_risk in USDT at the rate in force when the order was created (the latest rate
--                 snapshot of the currency at or before occurred_at, else the first after it; deposit
--                 side, withdraw for a payout), 6 decimals half-up as the journal's: so the queue
--                 sorts money across currencies.
-- Other codes (a status, a missing order, a UTR that looks like a number) put no amount at stake.
-- Kept by triggers, so every writer (batch, console, a rerun) and every later rate agree.

ALTER TABLE cases ALTER COLUMN at_risk DROP EXPRESSION;
ALTER TABLE cases ADD COLUMN difference numeric;
ALTER TABLE cases ADD COLUMN at_risk_usdt numeric;

-- A finding's value as a number when it is plain decimal text; null otherwise.
CREATE FUNCTION case_amount(v text) RETURNS numeric LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE WHEN v ~ '^-{0,1}[0-9]{1,30}([.][0-9]{1,18}){0,1}$' THEN v::numeric END
$fn$;

-- Currency units per USDT for a case: the rate in force at `at`, else the first one taken after it.
CREATE FUNCTION case_usdt_rate(cur text, dir text, at timestamptz) RETURNS numeric LANGUAGE sql STABLE AS $fn$
  SELECT nullif(coalesce(
    (SELECT CASE WHEN dir = 'payout' THEN withdraw ELSE deposit END FROM rate_snapshots
      WHERE currency = cur AND taken_at <= at ORDER BY taken_at DESC, id DESC LIMIT 1),
    (SELECT CASE WHEN dir = 'payout' THEN withdraw ELSE deposit END FROM rate_snapshots
      WHERE currency = cur AND taken_at > at ORDER BY taken_at, id LIMIT 1)
  ), 0)
$fn$;

CREATE FUNCTION cases_money() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  rate numeric;
BEGIN
  NEW.difference := CASE WHEN NEW.code IN ('AMOUNT', 'PAID_AMOUNT', 'FEE', 'BALANCE_DRIFT')
                         THEN case_amount(NEW.finding ->> 'provider') - case_amount(NEW.finding ->> 'local') END;
  NEW.at_risk := abs(NEW.difference);
  NEW.at_risk_usdt := NULL;
  IF NEW.at_risk IS NOT NULL AND NEW.currency IS NOT NULL THEN
    rate := case_usdt_rate(NEW.currency, NEW.direction, NEW.occurred_at);
    IF rate > 0 THEN
      NEW.at_risk_usdt := round(NEW.at_risk / rate, 6);
    END IF;
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER cases_money BEFORE INSERT OR UPDATE OF finding, code, currency, direction, occurred_at ON cases
  FOR EACH ROW EXECUTE FUNCTION cases_money();

-- Cases whose currency had no rate yet are priced when its first rate arrives.
CREATE INDEX cases_unpriced ON cases (currency) WHERE at_risk IS NOT NULL AND at_risk_usdt IS NULL;
CREATE FUNCTION rate_snapshots_price_cases() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  UPDATE cases SET finding = finding
   WHERE at_risk IS NOT NULL AND at_risk_usdt IS NULL AND currency IN (SELECT DISTINCT currency FROM rate_new);
  RETURN NULL;
END
$fn$;
CREATE TRIGGER rate_snapshots_price_cases AFTER INSERT ON rate_snapshots
  REFERENCING NEW TABLE AS rate_new FOR EACH STATEMENT EXECUTE FUNCTION rate_snapshots_price_cases();

-- Backfill: the trigger computes every existing case's figures (and clears 029's on non-money codes).
UPDATE cases SET finding = finding;

-- Largest in USDT first, ties oldest first; none at stake last. Replaces 029's order by at_risk alone.
DROP INDEX cases_queue_risk;
CREATE INDEX cases_queue_risk ON cases ((coalesce(at_risk_usdt, -1)) DESC, opened_at, id) WHERE state IN ('open', 'acknowledged');
