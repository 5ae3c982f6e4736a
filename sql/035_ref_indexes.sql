-- The 1M-order day (issue 30): every check is a non-HOT update, so it writes an entry into every index
-- of the order row again. Each ref had two indexes holding the same keys in random order (the unique
-- one and 030's lower() copy for the ref search; UUID refs are stored lower case, 010), and at 1M
-- orders those random pages were most of what an update read from outside shared_buffers.
--
-- Now one index per ref serves both: the unique index compares with text_pattern_ops, so a lower-case
-- piece is found by `ref LIKE 'piece%'` whatever the database's collation (equality is the same
-- operator, so lookups and ON CONFLICT work as before). The lower() index keeps only the refs that are
-- not already lower case: the search's other half. The uniqueness is now a unique index of the same
-- name instead of a constraint (a constraint cannot use a non-default operator class).

CREATE UNIQUE INDEX payment_orders_merchant_ref_unique ON payment_orders (merchant_ref text_pattern_ops);
ALTER TABLE payment_orders DROP CONSTRAINT payment_orders_merchant_ref_key;
ALTER INDEX payment_orders_merchant_ref_unique RENAME TO payment_orders_merchant_ref_key;
CREATE UNIQUE INDEX payment_orders_transaction_ref_unique ON payment_orders (transaction_ref text_pattern_ops);
ALTER TABLE payment_orders DROP CONSTRAINT payment_orders_transaction_ref_key;
ALTER INDEX payment_orders_transaction_ref_unique RENAME TO payment_orders_transaction_ref_key;

CREATE UNIQUE INDEX payout_orders_merchant_ref_unique ON payout_orders (merchant_ref text_pattern_ops);
ALTER TABLE payout_orders DROP CONSTRAINT payout_orders_merchant_ref_key;
ALTER INDEX payout_orders_merchant_ref_unique RENAME TO payout_orders_merchant_ref_key;
CREATE UNIQUE INDEX payout_orders_transaction_ref_unique ON payout_orders (transaction_ref text_pattern_ops);
ALTER TABLE payout_orders DROP CONSTRAINT payout_orders_transaction_ref_key;
ALTER INDEX payout_orders_transaction_ref_unique RENAME TO payout_orders_transaction_ref_key;

DROP INDEX payment_orders_merchant_ref_prefix;
DROP INDEX payment_orders_transaction_ref_prefix;
DROP INDEX payout_orders_merchant_ref_prefix;
DROP INDEX payout_orders_transaction_ref_prefix;
CREATE INDEX payment_orders_merchant_ref_prefix ON payment_orders (lower(merchant_ref) text_pattern_ops) WHERE merchant_ref <> lower(merchant_ref);
CREATE INDEX payment_orders_transaction_ref_prefix ON payment_orders (lower(transaction_ref) text_pattern_ops) WHERE transaction_ref <> lower(transaction_ref);
CREATE INDEX payout_orders_merchant_ref_prefix ON payout_orders (lower(merchant_ref) text_pattern_ops) WHERE merchant_ref <> lower(merchant_ref);
CREATE INDEX payout_orders_transaction_ref_prefix ON payout_orders (lower(transaction_ref) text_pattern_ops) WHERE transaction_ref <> lower(transaction_ref);
