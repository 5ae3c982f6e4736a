-- What a report version recorded per order gains its money (issue 39): a rerun's outcome leads with
-- what changed in amounts per currency, which verdicts and codes alone cannot say.
--   currency    the order's currency;
--   difference  provider - local summed over the order's money codes (AMOUNT, PAID_AMOUNT, FEE), signed;
--   at_risk     the magnitudes of those differences summed: what the order puts at stake.
-- Null difference and at_risk: no money code. Rows recorded before this file have no currency: the
-- console says the version's amounts were not recorded rather than showing zero.
ALTER TABLE report_version_orders ADD COLUMN currency text;
ALTER TABLE report_version_orders ADD COLUMN difference numeric;
ALTER TABLE report_version_orders ADD COLUMN at_risk numeric;
