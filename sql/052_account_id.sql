-- Several provider accounts in one database (issue 41): every order, run, check, snapshot,
-- roll-forward window, report version, journal posting, case and alert belongs to one account,
-- named by its id from ACCOUNTS_FILE. Rows written before belong to the one account there was,
-- "default" (the id of the account today's PROVIDER_* variables define), so an existing database
-- migrates with its data assigned to it. A constant default is recorded in the catalogue, not
-- written into each row: the column costs no table rewrite on a large database.

ALTER TABLE payment_orders    ADD COLUMN account_id text NOT NULL DEFAULT 'default';
ALTER TABLE payout_orders     ADD COLUMN account_id text NOT NULL DEFAULT 'default';
ALTER TABLE job_runs          ADD COLUMN account_id text NOT NULL DEFAULT 'default';
ALTER TABLE recon_items       ADD COLUMN account_id text NOT NULL DEFAULT 'default';
ALTER TABLE balance_snapshots ADD COLUMN account_id text NOT NULL DEFAULT 'default';
ALTER TABLE rate_snapshots    ADD COLUMN account_id text NOT NULL DEFAULT 'default';
ALTER TABLE balance_checks    ADD COLUMN account_id text NOT NULL DEFAULT 'default';
ALTER TABLE report_versions   ADD COLUMN account_id text NOT NULL DEFAULT 'default';
ALTER TABLE journal_postings  ADD COLUMN account_id text NOT NULL DEFAULT 'default';
ALTER TABLE cases             ADD COLUMN account_id text NOT NULL DEFAULT 'default';
ALTER TABLE alerts            ADD COLUMN account_id text NOT NULL DEFAULT 'default';

-- merchant_ref stays unique across accounts here: the merchant's own systems write these tables
-- with `ON CONFLICT (merchant_ref)` (docs/reference/database-contract.md), which needs a unique index
-- on merchant_ref alone. Making it unique per account changes that contract, so it is left to a
-- migration of its own, once the merchant's writers say `ON CONFLICT (merchant_ref, account_id)`.
-- transaction_ref, the provider's, stays unique across accounts: an import naming another account's
-- is refused, naming the account.

-- A day's report versions and posting files are numbered per account.
ALTER TABLE report_versions ADD CONSTRAINT report_versions_account_date_version_key UNIQUE (account_id, business_date, version);
ALTER TABLE report_versions DROP CONSTRAINT report_versions_business_date_version_key;
ALTER TABLE journal_postings ADD CONSTRAINT journal_postings_account_date_version_key UNIQUE (account_id, business_date, version);
ALTER TABLE journal_postings DROP CONSTRAINT journal_postings_business_date_version_key;
