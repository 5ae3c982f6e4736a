-- What the provider's own fetch said, where a report needs it and nothing stored it.

-- A notification may carry only some fields ({"transactionRef", "status"}); the confirming fetch
-- carries them all. Stored when the event is settled, so an UNKNOWN_ORDER row shows the money the
-- provider confirmed, not the notification's blanks. Null for events settled before this migration.
ALTER TABLE webhook_events ADD COLUMN fetched_merchant_ref text;
ALTER TABLE webhook_events ADD COLUMN fetched_currency text;
ALTER TABLE webhook_events ADD COLUMN fetched_method text;
ALTER TABLE webhook_events ADD COLUMN fetched_amount numeric;
ALTER TABLE webhook_events ADD COLUMN fetched_paid_amount numeric;
ALTER TABLE webhook_events ADD COLUMN fetched_fee numeric;
ALTER TABLE webhook_events ADD COLUMN fetched_status text;

-- The currency the provider holds the order in: with a CURRENCY finding its amounts are in this
-- currency, not the order's. Null when the provider gave no answer, and for checks written before.
ALTER TABLE recon_items ADD COLUMN provider_currency text;
