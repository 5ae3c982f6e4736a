import { describe, expect, it } from 'vitest';
import { groupedAmount } from '../src/recon/format.ts';

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
