import { describe, expect, it } from 'vitest';
import { ShortPayments } from '../src/report/journal-day.ts';
import type { ReportItemRow } from '../src/db/reports.ts';

const row = (over: Partial<ReportItemRow>): ReportItemRow =>
  ({
    direction: 'payment',
    currency: 'IDR',
    provider_category: 'success',
    local_amount: '1000000',
    provider_paid_amount: '1000000',
    mismatch_codes: '',
    ...over,
  }) as ReportItemRow;

describe('short payments per currency (the short_payment entry)', () => {
  it('sums amount − paid over successful payments paid below the amount, and only those', () => {
    const s = new ShortPayments();
    s.add(row({ provider_paid_amount: '700000.5', mismatch_codes: 'PAID_AMOUNT' }));
    s.add(row({ local_amount: '50000', provider_paid_amount: '49999.51', mismatch_codes: 'FEE PAID_AMOUNT' }));
    // Overpaid, failed, a payout, no finding, another currency: not short payments of IDR.
    s.add(row({ provider_paid_amount: '1200000', mismatch_codes: 'PAID_AMOUNT' }));
    s.add(row({ provider_category: 'failed', provider_paid_amount: '1', mismatch_codes: 'PAID_AMOUNT' }));
    s.add(row({ direction: 'payout', provider_paid_amount: '1', mismatch_codes: 'PAID_AMOUNT' }));
    s.add(row({ provider_paid_amount: '1' }));
    s.add(row({ currency: 'INR', provider_paid_amount: '1', mismatch_codes: 'PAID_AMOUNT' }));
    expect(s.of('IDR')).toEqual({ total: '299999.99', count: 2 });
    expect(s.of('INR')).toEqual({ total: '999999', count: 1 });
    expect(s.of('NGN')).toBeNull();
  });
});
