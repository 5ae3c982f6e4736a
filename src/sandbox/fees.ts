import { Decimal, type Currency } from '../money/decimal.ts';

/** A percentage plus a fixed part, in the currency's units; the sandbox's published fee schedule. */
export interface FeeRule {
  rate: string;
  fixed: string;
}

/** Pay-in fees are charged on what was actually paid; payout fees on the amount sent. */
export const FEE_SCHEDULE: Readonly<Record<'payment' | 'payout', Readonly<Record<Currency, FeeRule>>>> = Object.freeze({
  payment: Object.freeze({
    INR: { rate: '0.02', fixed: '0' },
    NGN: { rate: '0.014', fixed: '20' },
    IDR: { rate: '0.018', fixed: '500' },
  }),
  payout: Object.freeze({
    INR: { rate: '0.005', fixed: '5' },
    NGN: { rate: '0', fixed: '50' },
    IDR: { rate: '0', fixed: '4500' },
  }),
});

/** Fee with 2 decimals, half-up; a pay-in fee never exceeds what was paid (tiny payments). */
export function computeFee(direction: 'payment' | 'payout', currency: Currency, base: string): string {
  const rule = FEE_SCHEDULE[direction][currency];
  const amount = new Decimal(base);
  if (amount.lte(0)) return '0.00';
  let fee = amount.mul(rule.rate).plus(rule.fixed).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  if (direction === 'payment' && fee.gt(amount)) fee = amount;
  return fee.toFixed(2);
}
