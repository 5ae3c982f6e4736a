import type { JournalRole } from '../domain/journal-roles.ts';

export interface Account {
  code: string;
  name: string;
}

/** Defaults until JOURNAL_ACCOUNTS_FILE names the merchant's own accounts (docs/guides/for-accounting.md). */
export const DEFAULT_ACCOUNTS: Readonly<Record<JournalRole, Account>> = {
  wallet: { code: '1210', name: 'Provider wallet' },
  payments_clearing: { code: '1220', name: 'Payments clearing' },
  payouts_clearing: { code: '2210', name: 'Payouts clearing' },
  fees: { code: '6110', name: 'Provider fees' },
  timing: { code: '1230', name: 'Provider timing items' },
  reversal: { code: '1240', name: 'Provider reversals' },
  fee_correction: { code: '6120', name: 'Provider fee corrections' },
  fee_difference: { code: '1250', name: 'Provider fees above contract' },
  treasury_clearing: { code: '1260', name: 'Treasury clearing (top-ups and withdrawals)' },
  provider_adjustment: { code: '1270', name: 'Provider adjustments' },
  fx_difference: { code: '7910', name: 'Realised FX difference' },
  suspense: { code: '9990', name: 'Provider suspense' },
  rounding: { code: '6990', name: 'Currency rounding' },
};

/** The account of a role in a currency: "role:CUR" in the setting, else "role", else the default. */
export function accountFor(accounts: Readonly<Record<string, Account>>, role: JournalRole, currency: string): Account {
  return accounts[`${role}:${currency}`] ?? accounts[role] ?? DEFAULT_ACCOUNTS[role];
}
