-- Finality is an interval: payrecon cannot see when an order became final at the provider, only
-- that it lies after the last check that saw it open and at or before the first check that saw it
-- final (finalized_at). open_seen_at is the start of the last check that saw the order open.
ALTER TABLE payment_orders ADD COLUMN open_seen_at timestamptz;
ALTER TABLE payout_orders ADD COLUMN open_seen_at timestamptz;

-- A balance is read between the request (requested_at) and the answer (taken_at); an order
-- whose finality interval overlaps that reading is a timing item of the snapshot.
ALTER TABLE balance_snapshots ADD COLUMN requested_at timestamptz;

-- The roll-forward's timing items (orders that may fall on either side of a snapshot), the side
-- each was assigned to, and the movement they account for in this window.
ALTER TABLE balance_checks
  ADD COLUMN timing_items jsonb NOT NULL DEFAULT '[]'::jsonb,
  ADD COLUMN timing_movement numeric NOT NULL DEFAULT 0;
