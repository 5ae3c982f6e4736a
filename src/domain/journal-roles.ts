/** The roles a journal line can carry (the core posts them, the chart of accounts maps them); docs/guides/for-accounting.md explains each. */
export const JOURNAL_ROLES = [
  'wallet',
  'payments_clearing',
  'payouts_clearing',
  'fees',
  'timing',
  'reversal',
  'fee_correction',
  'fee_difference',
  'short_payment',
  'treasury_clearing',
  'provider_adjustment',
  'fx_difference',
  'fx_revaluation',
  'suspense',
  'rounding',
] as const;
export type JournalRole = (typeof JOURNAL_ROLES)[number];
