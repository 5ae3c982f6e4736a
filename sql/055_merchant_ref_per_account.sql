-- merchantRef unique per account, as an opt-in (issue 41). Two accounts of one deployment may each have
-- an order "ORD-1": their merchants' systems never agreed on refs. By default merchant_ref alone stays
-- unique (052 left it so), because the merchant's own writers say `ON CONFLICT (merchant_ref)`, which
-- needs a unique index on merchant_ref alone (docs/reference/database-contract.md).
--
-- This migration only records which scope is in force. It adds no index: a per-account unique index costs
-- every check one more index entry (a check's update is not HOT; at 200k orders, 680 -> 1,060 WAL bytes per
-- checked order between checkpoints), which a deployment that never switches should not pay. Switching is
-- the merchant's decision, in two steps of `payrecon accounts refs-per-account`:
--   --prepare  builds <table>_account_merchant_ref_key on (merchant_ref, account_id) with CREATE UNIQUE INDEX
--              CONCURRENTLY (writes go on; impossible here, as migrations run in one transaction). Both
--              `ON CONFLICT (merchant_ref)` and `ON CONFLICT (account_id, merchant_ref)` then work, and the
--              merchant's writers move to the latter at leisure;
--   --yes      drops the database-wide <table>_merchant_ref_key and records 'account' below.
ALTER TABLE installation ADD COLUMN merchant_ref_scope text NOT NULL DEFAULT 'database' CHECK (merchant_ref_scope IN ('database', 'account'));
ALTER TABLE installation ADD COLUMN merchant_ref_scope_changed_at timestamptz;
