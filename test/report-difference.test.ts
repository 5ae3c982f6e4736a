import { describe, expect, it } from 'vitest';
import { moneyDifference, type DifferenceInput } from '../src/report/difference.ts';

// The rule docs/reference/report-files.md states (the `difference` column), case by case.
const row = (over: Partial<DifferenceInput>): DifferenceInput => ({
  mismatch_codes: '',
  local_amount: '100.00',
  provider_amount: '100.00',
  local_paid_amount: null,
  provider_paid_amount: null,
  local_fee: '1.00',
  provider_fee: '1.00',
  ...over,
});

describe('moneyDifference', () => {
  it.each([
    { name: 'AMOUNT: provider amount − amount', input: row({ mismatch_codes: 'AMOUNT', provider_amount: '100.50' }), out: '0.5' },
    {
      name: 'PAID_AMOUNT: provider paid amount − amount, an underpayment negative',
      input: row({ mismatch_codes: 'PAID_AMOUNT', provider_paid_amount: '90.00' }),
      out: '-10',
    },
    { name: 'FEE: provider fee − recorded fee', input: row({ mismatch_codes: 'FEE', provider_fee: '0.005' }), out: '-0.995' },
    {
      name: 'AMOUNT before PAID_AMOUNT and FEE, whatever the order of the codes',
      input: row({
        mismatch_codes: 'FEE PAID_AMOUNT AMOUNT',
        provider_amount: '99.00',
        provider_paid_amount: '50.00',
        provider_fee: '3.00',
      }),
      out: '-1',
    },
    {
      name: 'PAID_AMOUNT before FEE',
      input: row({ mismatch_codes: 'FEE PAID_AMOUNT', provider_paid_amount: '50.00', provider_fee: '3.00' }),
      out: '-50',
    },
    { name: 'none of the three codes: empty', input: row({ mismatch_codes: 'STATUS UTR_MISSING', provider_amount: '1.00' }), out: null },
    {
      name: 'a side of the chosen figure missing: empty, no fall back to the next code',
      input: row({ mismatch_codes: 'AMOUNT FEE', provider_amount: null, provider_fee: '3.00' }),
      out: null,
    },
    { name: 'no fee recorded: empty', input: row({ mismatch_codes: 'FEE', local_fee: null, provider_fee: '3.00' }), out: null },
  ])('$name', ({ input, out }) => {
    expect(moneyDifference(input)).toBe(out);
  });
});
