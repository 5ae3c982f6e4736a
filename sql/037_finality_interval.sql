-- A year of history (issue 30): the roll-forward asks for the success orders whose finality interval
-- (last seen open or created, first seen final] overlaps the window between two readings. The btree on
-- finalized_at answered "finalized after the window began" by reading every order finalized since: for a
-- day in the middle of a year that is half the history (a report of such a day read 180,000 orders per
-- query at 2,000 a day, to keep 300). A GiST index on the interval answers the overlap itself.
-- least() keeps the range valid for a row whose last-seen-open time is after its final one.
CREATE INDEX payment_orders_finality ON payment_orders
  USING gist (tstzrange(least(coalesce(open_seen_at, created_at), finalized_at), finalized_at, '[]'))
  WHERE status_category = 'success' AND finalized_at IS NOT NULL;
CREATE INDEX payout_orders_finality ON payout_orders
  USING gist (tstzrange(least(coalesce(open_seen_at, created_at), finalized_at), finalized_at, '[]'))
  WHERE status_category = 'success' AND finalized_at IS NOT NULL;
