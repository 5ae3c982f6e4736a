-- UUID refs are stored in one canonical case, lower (the form RFC 4122 says to output), so every comparison
-- of refs (import, reconcile --ref, webhooks, the provider's answers) is an exact one. Refs that are not UUIDs
-- are kept as written. Written so that running it again changes nothing.

CREATE OR REPLACE FUNCTION payrecon_canonical_ref(ref text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE WHEN ref ~ '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$' THEN lower(ref) ELSE ref END
$fn$;

-- Existing rows: each upper- or mixed-case ref becomes lower case, unless another row already holds that form
-- (or holds it in another case and has a smaller id): such a pair is one order imported twice under the old
-- rule; both are left as they are for a person to merge (README: "Ref case").
WITH c AS (
  SELECT id, merchant_ref AS ref, payrecon_canonical_ref(merchant_ref) AS canon,
         row_number() OVER (PARTITION BY payrecon_canonical_ref(merchant_ref) ORDER BY (merchant_ref = payrecon_canonical_ref(merchant_ref)) DESC, id) AS n
    FROM payment_orders
)
UPDATE payment_orders o SET merchant_ref = c.canon FROM c WHERE o.id = c.id AND c.ref <> c.canon AND c.n = 1;
WITH c AS (
  SELECT id, transaction_ref AS ref, payrecon_canonical_ref(transaction_ref) AS canon,
         row_number() OVER (PARTITION BY payrecon_canonical_ref(transaction_ref) ORDER BY (transaction_ref = payrecon_canonical_ref(transaction_ref)) DESC, id) AS n
    FROM payment_orders
)
UPDATE payment_orders o SET transaction_ref = c.canon FROM c WHERE o.id = c.id AND c.ref <> c.canon AND c.n = 1;
WITH c AS (
  SELECT id, merchant_ref AS ref, payrecon_canonical_ref(merchant_ref) AS canon,
         row_number() OVER (PARTITION BY payrecon_canonical_ref(merchant_ref) ORDER BY (merchant_ref = payrecon_canonical_ref(merchant_ref)) DESC, id) AS n
    FROM payout_orders
)
UPDATE payout_orders o SET merchant_ref = c.canon FROM c WHERE o.id = c.id AND c.ref <> c.canon AND c.n = 1;
WITH c AS (
  SELECT id, transaction_ref AS ref, payrecon_canonical_ref(transaction_ref) AS canon,
         row_number() OVER (PARTITION BY payrecon_canonical_ref(transaction_ref) ORDER BY (transaction_ref = payrecon_canonical_ref(transaction_ref)) DESC, id) AS n
    FROM payout_orders
)
UPDATE payout_orders o SET transaction_ref = c.canon FROM c WHERE o.id = c.id AND c.ref <> c.canon AND c.n = 1;
UPDATE webhook_events SET transaction_ref = payrecon_canonical_ref(transaction_ref)
 WHERE transaction_ref IS DISTINCT FROM payrecon_canonical_ref(transaction_ref);

-- From now on, whoever writes an order (payrecon's import, the merchant's own systems) stores the canonical form.
CREATE OR REPLACE FUNCTION payrecon_canonical_order_refs() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- Only the refs being written: an update of one must not rewrite the other (a pair left for a person above).
  IF TG_OP = 'INSERT' OR NEW.merchant_ref IS DISTINCT FROM OLD.merchant_ref THEN
    NEW.merchant_ref := payrecon_canonical_ref(NEW.merchant_ref);
  END IF;
  IF TG_OP = 'INSERT' OR NEW.transaction_ref IS DISTINCT FROM OLD.transaction_ref THEN
    NEW.transaction_ref := payrecon_canonical_ref(NEW.transaction_ref);
  END IF;
  RETURN NEW;
END
$fn$;
DROP TRIGGER IF EXISTS payment_orders_canonical_refs ON payment_orders;
CREATE TRIGGER payment_orders_canonical_refs BEFORE INSERT OR UPDATE OF merchant_ref, transaction_ref ON payment_orders
  FOR EACH ROW EXECUTE FUNCTION payrecon_canonical_order_refs();
DROP TRIGGER IF EXISTS payout_orders_canonical_refs ON payout_orders;
CREATE TRIGGER payout_orders_canonical_refs BEFORE INSERT OR UPDATE OF merchant_ref, transaction_ref ON payout_orders
  FOR EACH ROW EXECUTE FUNCTION payrecon_canonical_order_refs();
