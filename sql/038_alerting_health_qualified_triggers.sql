-- Alerting that fails must be seen where an operator looks (issue 35 #1): one row per alerting step,
-- a running total of its failures (the Prometheus counter payrecon_alerting_failures_total, read at
-- scrape so it survives a restart), the last failure and the last success after it.
CREATE TABLE alerting_health (
  step text PRIMARY KEY CHECK (step IN ('raise', 'resolve', 'no_channel', 'summarise', 'deliver')),
  failures bigint NOT NULL DEFAULT 0,
  last_failed_at timestamptz NOT NULL,
  last_job text NOT NULL,
  last_error text NOT NULL,
  last_ok_at timestamptz
);

-- The merchant's own writes run with their own search_path (issue 35 #5): a trigger function must not
-- resolve names through it. The row trigger of the order tables calls the ref function by its schema;
-- the statement triggers pin their search_path to this schema (read at migration, it is configurable).
DO $do$
DECLARE
  s text := current_schema();
BEGIN
  EXECUTE format($fn$
CREATE OR REPLACE FUNCTION %1$I.payrecon_canonical_order_refs() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  -- Only the refs being written: an update of one must not rewrite the other.
  IF TG_OP = 'INSERT' OR NEW.merchant_ref IS DISTINCT FROM OLD.merchant_ref THEN
    NEW.merchant_ref := %1$I.payrecon_canonical_ref(NEW.merchant_ref);
  END IF;
  IF TG_OP = 'INSERT' OR NEW.transaction_ref IS DISTINCT FROM OLD.transaction_ref THEN
    NEW.transaction_ref := %1$I.payrecon_canonical_ref(NEW.transaction_ref);
  END IF;
  RETURN NEW;
END
$body$$fn$, s);
  EXECUTE format('ALTER FUNCTION %1$I.recon_open_maintain() SET search_path = %1$I, pg_catalog', s);
  EXECUTE format('ALTER FUNCTION %1$I.report_version_orders_check_versions() SET search_path = %1$I, pg_catalog', s);
  EXECUTE format('ALTER FUNCTION %1$I.report_versions_keep_referenced() SET search_path = %1$I, pg_catalog', s);
END
$do$;
