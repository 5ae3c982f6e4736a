import type { JournalRole } from '../domain/journal-roles.ts';

export interface Account {
  code: string;
  name: string;
}

/** Defaults until JOURNAL_ACCOUNTS_FILE names the merchant's own accounts (docs/guides/for-accounting.md). */
export const DEFAULT_ACCOUNTS: Readonly<Record<JournalRole, Account>> = {
  wallet: { code: '1210', name: 'Provider wallet' },
  // Credited with what payers paid, debited by the merchant's order system when it settles the sale
  // or receivable against it: a credit balance between the two, so in the liability range.
  payments_clearing: { code: '2220', name: 'Payments clearing' },
  // Debited with what was sent, credited by the merchant's system against the supplier payable or
  // refund it settles: a debit balance between the two, so in the asset range.
  payouts_clearing: { code: '1260', name: 'Payouts clearing' },
  fees: { code: '6110', name: 'Provider fees' },
  // The clearing side of orders counted at a snapshot's edge: credited like payments clearing.
  timing: { code: '2230', name: 'Provider timing items' },
  reversal: { code: '1240', name: 'Provider reversals' },
  fee_correction: { code: '6120', name: 'Provider fee corrections' },
  fee_difference: { code: '1250', name: 'Provider fees above contract' },
  // What payers owe on payments paid below the amount: a debit balance until the merchant collects or
  // writes it off, so in the asset range beside receivables.
  short_payment: { code: '1230', name: 'Short payments (paid below the amount)' },
  treasury_clearing: { code: '1280', name: 'Treasury clearing (top-ups and withdrawals)' },
  provider_adjustment: { code: '1270', name: 'Provider adjustments' },
  fx_difference: { code: '7910', name: 'Realised FX difference' },
  fx_revaluation: { code: '7920', name: 'Unrealised FX revaluation' },
  suspense: { code: '9990', name: 'Provider suspense' },
  rounding: { code: '6990', name: 'Currency rounding' },
};

/** The wallet is an account per currency by default (a bank account holds one currency): 1211 INR, 1212 NGN, 1213 IDR. */
const WALLET_CODES: Readonly<Record<string, string>> = { INR: '1211', NGN: '1212', IDR: '1213' };

/** The account of a role in a currency: "role:CUR" in the setting, else "role", else the default. */
export function accountFor(accounts: Readonly<Record<string, Account>>, role: JournalRole, currency: string): Account {
  const set = accounts[`${role}:${currency}`] ?? accounts[role];
  if (set) return set;
  if (role === 'wallet') return { code: WALLET_CODES[currency] ?? DEFAULT_ACCOUNTS.wallet.code, name: `Provider wallet ${currency}` };
  return DEFAULT_ACCOUNTS[role];
}
