import { describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNTS, accountFor } from '../src/report/journal-accounts.ts';
import { JOURNAL_ROLES } from '../src/domain/journal-roles.ts';
import { CURRENCIES } from '../src/money/decimal.ts';

// Two roles on one default account would merge in the ledger what the journal keeps apart (treasury
// clearing and payouts clearing once both defaulted to 1260).
describe('default chart of accounts', () => {
  it('gives every role and currency an account code of its own', () => {
    const owners = new Map<string, string>();
    for (const role of JOURNAL_ROLES) {
      for (const currency of CURRENCIES) {
        const { code } = accountFor(DEFAULT_ACCOUNTS, role, currency);
        const owner = owners.get(code);
        if (owner !== undefined) expect(owner.split(':')[0], `${role}:${currency} shares ${code} with ${owner}`).toBe(role);
        owners.set(code, `${role}:${currency}`);
      }
    }
  });
});
