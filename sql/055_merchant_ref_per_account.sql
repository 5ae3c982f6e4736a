-- merchantRef unique per account, as an opt-in (issue 41). Two accounts of one deployment may each have
-- an order "ORD-1": their merchants' systems never agreed on refs. Until now merchant_ref alone was
-- unique (052 left it so), because the merchant's own writers say `ON CONFLICT (merchant_ref)`, which
-- needs a unique index on merchant_ref alone (docs/reference/database-contract.md).
--
-- This migration only adds the per-account unique index beside it. While merchant_ref alone is unique the
-- new index refuses nothing more, and `ON CONFLICT (merchant_ref)` keeps working; `ON CONFLICT
-- (account_id, merchant_ref)` works from now on, whichever scope is in force, so payrecon's own writes
-- use that. Dropping the database-wide index is a decision of the merchant's (their writers must change
-- first): `payrecon accounts refs-per-account` does it, and records it below.
--
-- merchant_ref leads the index, with text_pattern_ops like 035's: once the database-wide index is dropped
-- this one serves the lookups by ref and the console's search by a leading piece of it (LIKE 'piece%').
-- Plain CREATE INDEX: migrations run in one transaction, where CONCURRENTLY cannot; the tables' writes wait
-- while it is built (one pass over each order table), like every index migration before it. Its running cost:
-- a check's update is not HOT, so it writes one more index entry per order checked (at 200k orders, 680 ->
-- 1,060 WAL bytes per checked order between checkpoints), paid in either scope.
CREATE UNIQUE INDEX payment_orders_account_merchant_ref_key ON payment_orders (merchant_ref text_pattern_ops, account_id);
CREATE UNIQUE INDEX payout_orders_account_merchant_ref_key ON payout_orders (merchant_ref text_pattern_ops, account_id);

-- Which scope is in force, as decided: 'database' (merchant_ref unique across accounts, the default) or
-- 'account' (unique per account; forward-only). `payrecon doctor` compares it with the indexes there are.
ALTER TABLE installation ADD COLUMN merchant_ref_scope text NOT NULL DEFAULT 'database' CHECK (merchant_ref_scope IN ('database', 'account'));
ALTER TABLE installation ADD COLUMN merchant_ref_scope_changed_at timestamptz;
