/**
 * The finding codes whose two values are amounts of the case's currency: their difference is money
 * at stake. sql/041_case_money.sql computes the stored difference from the same list.
 */
export const MONEY_CODES: readonly string[] = ['AMOUNT', 'PAID_AMOUNT', 'FEE', 'BALANCE_DRIFT'];

const DECIMAL = /^-?\d{1,30}(\.\d{1,18})?$/;

/** A finding's value as an amount when the code is about money and the value is decimal text; else null. */
export function moneyValue(code: string, value: unknown): string | null {
  return MONEY_CODES.includes(code) && typeof value === 'string' && DECIMAL.test(value) ? value : null;
}
