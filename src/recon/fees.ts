import { CURRENCY_DECIMALS, Decimal, type Currency } from '../money/decimal.ts';
import type { FeeRule } from './types.ts';

/** Scheduled fee for an amount: base × percent / 100 + fixed, rounded half-up to the currency's decimals. */
export function scheduledFee(base: Decimal, rule: FeeRule, currency: Currency): Decimal {
  return base.times(rule.percent).dividedBy(100).plus(rule.fixed).toDecimalPlaces(CURRENCY_DECIMALS[currency], Decimal.ROUND_HALF_UP);
}
