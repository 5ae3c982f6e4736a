import { describe, expect, it } from 'vitest';
import type { ReportItemRow } from '../src/db/reports.ts';
import { settledMoney, settledNet } from '../src/report/order-totals.ts';

const row = (over: Partial<ReportItemRow>): ReportItemRow =>
  ({
    direction: 'payment',
    currency: 'INR',
    provider_category: 'success',
    mismatch_codes: '',
    local_amount: '100.00',
    provider_amount: '100.00',
    provider_paid_amount: null,
    provider_fee: '2.00',
    ...over,
  }) as ReportItemRow;

/** What one order adds to the Summary's money, as the Items sheet shows it per order. */
describe('settledMoney and settledNet', () => {
  it.each([
    { name: 'a payment: paid less the fee', r: row({}), out: { gross: '100.00', paid: '100.00', fee: '2.00' }, net: '98.00' },
    {
      name: 'an underpaid payment: its paid amount',
      r: row({ provider_paid_amount: '60.50' }),
      out: { gross: '100.00', paid: '60.50', fee: '2.00' },
      net: '58.50',
    },
    {
      name: 'a payout: −(amount + fee)',
      r: row({ direction: 'payout', provider_amount: '7939.05', provider_fee: '44.70' }),
      out: { gross: '7939.05', paid: '7939.05', fee: '44.70' },
      net: '-7983.75',
    },
    { name: 'no fee given', r: row({ provider_fee: null }), out: { gross: '100.00', paid: '100.00', fee: null }, net: '100.00' },
    {
      name: 'a fee finer than the minor unit keeps its decimals',
      r: row({ provider_fee: '0.005' }),
      out: { gross: '100.00', paid: '100.00', fee: '0.005' },
      net: '99.995',
    },
    {
      name: 'more digits than a double holds',
      r: row({ provider_amount: '123456789012345.67', provider_fee: '0.01' }),
      out: { gross: '123456789012345.67', paid: '123456789012345.67', fee: '0.01' },
      net: '123456789012345.66',
    },
    {
      name: 'no provider amount: the merchant’s',
      r: row({ provider_amount: null, local_amount: '50.00' }),
      out: { gross: '50.00', paid: '50.00', fee: '2.00' },
      net: '48.00',
    },
  ])('$name', ({ r, out, net }) => {
    const m = settledMoney(r)!;
    expect(m).toEqual(out);
    expect(settledNet(r.direction, m)).toBe(net);
  });

  it.each([
    { name: 'not a provider success', r: row({ provider_category: 'failed' }) },
    { name: 'pending', r: row({ provider_category: 'pending' }) },
    { name: 'another order’s money (identity mismatch)', r: row({ mismatch_codes: 'MERCHANT_REF' }) },
  ])('no share of the Summary: $name', ({ r }) => expect(settledMoney(r)).toBeNull());
});
