import { CURRENCY_DECIMALS, Decimal, type Currency } from '../money/decimal.ts';
import type { FeeRule, FeeRules } from './types.ts';

/**
 * Scheduled fee for an amount: base × percent / 100 + fixed, held within [min, max], rounded half-up
 * to the currency's decimals.
 */
export function scheduledFee(base: Decimal, rule: FeeRule, currency: Currency): Decimal {
  let fee = base.times(rule.percent).dividedBy(100).plus(rule.fixed);
  if (rule.min !== undefined && fee.lessThan(rule.min)) fee = new Decimal(rule.min);
  if (rule.max !== undefined && fee.greaterThan(rule.max)) fee = new Decimal(rule.max);
  return fee.toDecimalPlaces(CURRENCY_DECIMALS[currency], Decimal.ROUND_HALF_UP);
}

/** The rule for a method: a single rule applies to every method; a per-method table falls back to "*". */
export function feeRuleFor(rules: FeeRules | undefined, method: string): FeeRule | null {
  if (!rules) return null;
  if (isRule(rules)) return rules;
  return rules[method] ?? rules['*'] ?? null;
}

const isRule = (r: FeeRules): r is FeeRule => typeof (r as FeeRule).percent === 'string' && typeof (r as FeeRule).fixed === 'string';

/** Describes a rule for a finding's note: "1.5% + NGN 0.00, min 10, max 500". */
export function describeRule(rule: FeeRule, show: (v: string) => string): string {
  const bounds = [rule.min !== undefined && `min ${show(rule.min)}`, rule.max !== undefined && `max ${show(rule.max)}`].filter(Boolean);
  return [`${rule.percent}% + ${show(rule.fixed)}`, ...bounds].join(', ');
}
