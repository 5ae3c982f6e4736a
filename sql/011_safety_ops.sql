-- Alerts raised while no channel is configured are 'undeliverable' instead of pending forever;
-- once a channel exists, stale ones are folded into one summary alert and become 'summarised'.
ALTER TABLE alerts DROP CONSTRAINT alerts_status_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_status_check
  CHECK (status IN ('pending', 'sent', 'suppressed', 'undeliverable', 'summarised'));
