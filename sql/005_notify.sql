-- Delivery bookkeeping for src/notify.

-- The finding's content hash: a raise with the same fingerprint and digest inside the repeat
-- interval is recorded as suppressed instead of sent again.
ALTER TABLE alerts ADD COLUMN payload_digest text NOT NULL DEFAULT '';
-- Channels (webhook, email) that already took the alert, so a retry after a partial failure
-- does not post it twice to the channel that worked.
ALTER TABLE alerts ADD COLUMN delivered_channels text[] NOT NULL DEFAULT '{}';
