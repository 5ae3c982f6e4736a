-- A check no longer copies the provider's fee or paidAmount over the one the merchant recorded (the
-- next check would find them equal and clear the finding). What the provider says it collected and
-- charged is kept beside the merchant's record instead: the settlement roll-forward explains the
-- balance with it, since the balance moved by the provider's figures, not the merchant's. NULL: no
-- check or confirmed notification has seen the order yet (the roll-forward then uses fee/paid_amount,
-- which before this migration already held the provider's values of every order a check finalized).
ALTER TABLE payment_orders ADD COLUMN provider_fee numeric, ADD COLUMN provider_paid_amount numeric;
ALTER TABLE payout_orders ADD COLUMN provider_fee numeric;
