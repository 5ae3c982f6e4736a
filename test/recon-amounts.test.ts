import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { differsBeyond } from '../src/recon/amounts.ts';

describe('differsBeyond', () => {
  it.each<[string, string | null | undefined, string | null | undefined, string, boolean]>([
    ['same text', '250.50', '250.50', '0', false],
    ['trailing zeros', '250.50', '250.5', '0', false],
    ['whole amount with and without decimals', '1000', '1000.00', '0', false],
    ['zero and negative zero', '0.00', '-0', '0', false],
    ['one minor unit apart, exact tolerance', '250.50', '250.51', '0', true],
    ['one minor unit apart, within tolerance', '250.50', '250.51', '0.01', false],
    ['at the tolerance is equal', '100', '100.05', '0.05', false],
    ['beyond the tolerance', '100', '100.051', '0.05', true],
    ['finer than the minor unit', '0.005', '0', '0', true],
    ['sign matters', '5', '-5', '0', true],
    ['padded text is still read', ' 250.5', '250.50', '0', false],
    ['unreadable is different, even when the texts are equal', 'abc', 'abc', '0', true],
    ['an exponent is not plain text', '1e3', '1000', '0', true],
    ['missing is different', '250.50', undefined, '0', true],
    ['null is different', null, '0', '0', true],
    ['a negative tolerance makes equal amounts differ', '250.50', '250.5', '-0.01', true],
  ])('%s: %j vs %j at tolerance %s', (_name, a, b, tolerance, differs) =>
    expect(differsBeyond(a, b, new Decimal(tolerance))).toBe(differs),
  );
});
