-- Final orders asked to be checked again (a confirmed notification contradicting their final status, see
-- requestRecheck in src/db/orders.ts) are due by next_check_at like open ones; these indexes let the due run
-- find the few of them without visiting every final order.
CREATE INDEX payment_orders_recheck ON payment_orders (id) WHERE status_category IN ('success', 'failed') AND next_check_at IS NOT NULL;
CREATE INDEX payout_orders_recheck ON payout_orders (id) WHERE status_category IN ('success', 'failed') AND next_check_at IS NOT NULL;
