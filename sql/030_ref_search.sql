-- The console's ref search: a merchant or transaction ref, whole or a leading piece, in any case.
-- lower(ref) LIKE 'piece%' uses these (text_pattern_ops: prefix matching whatever the collation).

CREATE INDEX payment_orders_merchant_ref_prefix ON payment_orders (lower(merchant_ref) text_pattern_ops);
CREATE INDEX payment_orders_transaction_ref_prefix ON payment_orders (lower(transaction_ref) text_pattern_ops);
CREATE INDEX payout_orders_merchant_ref_prefix ON payout_orders (lower(merchant_ref) text_pattern_ops);
CREATE INDEX payout_orders_transaction_ref_prefix ON payout_orders (lower(transaction_ref) text_pattern_ops);
