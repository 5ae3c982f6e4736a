import { describe, expect, it } from 'vitest';
import { groupedAmount } from '../src/recon/format.ts';
import { headline, summarize, type Drift } from '../src/recon/summary.ts';
import type { MismatchCode, Verdict } from '../src/recon/types.ts';

const item = (verdict: Verdict, ...codes: MismatchCode[]) => ({ verdict, codes });

describe('summarize', () => {
  it('counts every verdict (zeros included) and each code once per order, in code order', () => {
    const counts = summarize([
      item('matched'),
      item('mismatch', 'STALE', 'AMOUNT'),
      item('mismatch', 'AMOUNT'),
      item('mismatch', 'PAID_AMOUNT', 'PAID_AMOUNT'),
      item('error'),
      item('resolved'),
    ]);
    expect(counts).toEqual({
      total: 6,
      verdicts: { matched: 1, resolved: 1, pending: 0, mismatch: 3, error: 1 },
      codes: { AMOUNT: 2, PAID_AMOUNT: 1, STALE: 1 },
    });
    expect(Object.keys(counts.codes)).toEqual(['AMOUNT', 'PAID_AMOUNT', 'STALE']);
  });

  it('accepts any iterable, including an empty one', () => {
    function* none() {}
    expect(summarize(none())).toEqual({ total: 0, verdicts: { matched: 0, resolved: 0, pending: 0, mismatch: 0, error: 0 }, codes: {} });
  });
});

describe('groupedAmount', () => {
  it.each([
    { value: '0', want: '0.00' },
    { value: '999.5', want: '999.50' },
    { value: '1000', want: '1,000.00' },
    { value: '1250', want: '1,250.00' },
    { value: '-1250.005', want: '-1,250.01' },
    { value: '-999.99', want: '-999.99' },
    { value: '12345678901234.56', want: '12,345,678,901,234.56' },
    { value: '123456789012345678901234.56', want: '123,456,789,012,345,678,901,234.56' },
  ])('$value → $want', ({ value, want }) => {
    expect(groupedAmount(value, 'NGN')).toBe(want);
  });
});

describe('headline', () => {
  const counts = (mismatch: number, error = 0) => ({
    total: 100,
    verdicts: { matched: 0, resolved: 0, pending: 0, mismatch, error },
    codes: {},
  });
  const cases: { name: string; mismatch: number; error?: number; drifts?: Drift[]; want: string }[] = [
    { name: 'clean run', mismatch: 0, want: '0 mismatches' },
    { name: 'singular', mismatch: 1, want: '1 mismatch' },
    {
      name: 'mismatches and one drift',
      mismatch: 3,
      drifts: [{ currency: 'NGN', drift: '1250' }],
      want: '3 mismatches, NGN drift 1,250.00',
    },
    { name: 'errors named when present', mismatch: 2, error: 1, want: '2 mismatches, 1 error' },
    {
      name: 'big and negative drifts, in given order',
      mismatch: 0,
      error: 4,
      drifts: [
        { currency: 'INR', drift: '12345678901234.56' },
        { currency: 'IDR', drift: '-0.5' },
      ],
      want: '0 mismatches, 4 errors, INR drift 12,345,678,901,234.56, IDR drift -0.50',
    },
  ];
  it.each(cases)('$name', ({ mismatch, error, drifts, want }) => {
    expect(headline(counts(mismatch, error), drifts)).toBe(want);
  });
});
