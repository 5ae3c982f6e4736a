-- The provider's word moves the wallet (issue 43). status_category is the merchant's record: an order the
-- merchant recorded Success that the provider keeps Pending or fails moved no money, and one recorded
-- Failed that the provider settled did. The settlement roll-forward now counts an order by what the
-- provider's answers said, kept here beside the merchant's columns:
--   provider_category   the provider's status category as last seen (NULL: no answer about this order yet);
--   provider_amount     the provider's amount as last seen (the payout's debit; a payment's when no paidAmount);
--   provider_success_at the first check (or confirmed notification) that saw the provider's success: the end
--                       of the order's finality interval. Never cleared: a later reversal is an event of its
--                       own day (the journal's reversal line), not a rewrite of the window that counted it.
ALTER TABLE payment_orders
  ADD COLUMN provider_category text CHECK (provider_category IN ('pending', 'success', 'failed', 'unknown')),
  ADD COLUMN provider_amount numeric,
  ADD COLUMN provider_success_at timestamptz;
ALTER TABLE payout_orders
  ADD COLUMN provider_category text CHECK (provider_category IN ('pending', 'success', 'failed', 'unknown')),
  ADD COLUMN provider_amount numeric,
  ADD COLUMN provider_success_at timestamptz;

-- Backfill from the latest check that had the provider's answer.
UPDATE payment_orders o SET provider_category = i.provider_category, provider_amount = i.provider_amount
  FROM (SELECT DISTINCT ON (order_id) order_id, provider_category, provider_amount
          FROM recon_items WHERE direction = 'payment' AND provider_category IS NOT NULL
         ORDER BY order_id, checked_at DESC, id DESC) i
 WHERE o.id = i.order_id;
UPDATE payout_orders o SET provider_category = i.provider_category, provider_amount = i.provider_amount
  FROM (SELECT DISTINCT ON (order_id) order_id, provider_category, provider_amount
          FROM recon_items WHERE direction = 'payout' AND provider_category IS NOT NULL
         ORDER BY order_id, checked_at DESC, id DESC) i
 WHERE o.id = i.order_id;

-- An order payrecon itself moved from open to success learnt it from the provider at finalized_at (a check
-- or a confirmed notification, which writes no check): keep that moment, so past windows judge as before.
-- Which ones: a check saw it open in the merchant's books, or a confirmed notification exists for it.
UPDATE payment_orders o SET provider_success_at = o.finalized_at, provider_category = coalesce(o.provider_category, 'success')
 WHERE o.status_category = 'success' AND o.finalized_at IS NOT NULL
   AND (o.open_seen_at IS NOT NULL
        OR EXISTS (SELECT 1 FROM recon_items i WHERE i.direction = 'payment' AND i.order_id = o.id AND i.local_category IN ('pending', 'unknown'))
        OR EXISTS (SELECT 1 FROM webhook_events w WHERE w.direction = 'payment' AND w.transaction_ref = o.transaction_ref AND w.confirmation = 'confirmed'));
UPDATE payout_orders o SET provider_success_at = o.finalized_at, provider_category = coalesce(o.provider_category, 'success')
 WHERE o.status_category = 'success' AND o.finalized_at IS NOT NULL
   AND (o.open_seen_at IS NOT NULL
        OR EXISTS (SELECT 1 FROM recon_items i WHERE i.direction = 'payout' AND i.order_id = o.id AND i.local_category IN ('pending', 'unknown'))
        OR EXISTS (SELECT 1 FROM webhook_events w WHERE w.direction = 'payout' AND w.transaction_ref = o.transaction_ref AND w.confirmation = 'confirmed'));

-- Any other order (recorded final by the merchant): the first check whose answer said success.
UPDATE payment_orders o SET provider_success_at = i.at
  FROM (SELECT order_id, min(checked_at) AS at FROM recon_items
         WHERE direction = 'payment' AND provider_category = 'success' GROUP BY order_id) i
 WHERE o.id = i.order_id AND o.provider_success_at IS NULL;
UPDATE payout_orders o SET provider_success_at = i.at
  FROM (SELECT order_id, min(checked_at) AS at FROM recon_items
         WHERE direction = 'payout' AND provider_category = 'success' GROUP BY order_id) i
 WHERE o.id = i.order_id AND o.provider_success_at IS NULL;

-- The roll-forward's overlap test (as sql/037's, on the provider's interval).
CREATE INDEX payment_orders_provider_finality ON payment_orders
  USING gist (tstzrange(least(coalesce(open_seen_at, created_at), provider_success_at), provider_success_at, '[]'))
  WHERE provider_success_at IS NOT NULL;
CREATE INDEX payout_orders_provider_finality ON payout_orders
  USING gist (tstzrange(least(coalesce(open_seen_at, created_at), provider_success_at), provider_success_at, '[]'))
  WHERE provider_success_at IS NOT NULL;

-- The snapshot's check before reading: orders never checked, and orders final in the merchant's books that
-- the provider still reports open (the other open ones are on *_open already).
CREATE INDEX payment_orders_provider_open ON payment_orders (created_at)
  WHERE last_checked_at IS NULL OR provider_category IN ('pending', 'unknown');
CREATE INDEX payout_orders_provider_open ON payout_orders (created_at)
  WHERE last_checked_at IS NULL OR provider_category IN ('pending', 'unknown');

-- sql/037's indexes served the merchant-status overlap test, which nothing runs any more.
DROP INDEX payment_orders_finality;
DROP INDEX payout_orders_finality;

-- A window judged again (an order recorded, or first answered for by the provider, after the snapshot that
-- closed the window of its finality) keeps its one row, updated: when, and the drift it was first judged with.
ALTER TABLE balance_checks ADD COLUMN rejudged_at timestamptz, ADD COLUMN first_drift numeric;
