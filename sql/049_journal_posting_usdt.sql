-- The USDT value each posted line was posted at (issue 37): an adjusting entry takes back what was
-- posted at the value it was posted at, so an account cleared in its currency is cleared in USDT
-- too, and the difference from today's rate goes on an fx_difference line. Null on lines posted
-- before this column (and on lines with no rate snapshot): those are taken back at today's rate.
ALTER TABLE journal_posting_lines ADD COLUMN usdt numeric;
-- The rate the line was valued at (currency units per 1 USDT), so a take-back names it.
ALTER TABLE journal_posting_lines ADD COLUMN usdt_rate numeric;
