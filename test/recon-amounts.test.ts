import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { amountPlaces, differsBeyond, isAmountText, readAmount, show, toleranceFor } from '../src/recon/amounts.ts';
import { resolvePolicy } from '../src/recon/policy.ts';
import { CURRENCY_DECIMALS, type Currency } from '../src/money/decimal.ts';

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

describe('show', () => {
  // What a sentence printed before the plain-text shortcut: the Decimal's fixed form, all digits past the minor unit.
  const viaDecimal = (text: string, currency: Currency) => {
    const d = new Decimal(text);
    return d.decimalPlaces() > CURRENCY_DECIMALS[currency] ? d.toFixed() : d.toFixed(CURRENCY_DECIMALS[currency]);
  };
  it.each<[string, string, string]>([
    ['whole', '1000', '1000.00'],
    ['one decimal', '250.5', '250.50'],
    ['two decimals', '250.50', '250.50'],
    ['zero', '0', '0.00'],
    ['below one', '0.5', '0.50'],
    ['finer than the minor unit keeps its digits', '0.005', '0.005'],
    ['trailing zeros past the minor unit', '12.500', '12.50'],
    ['negative', '-3.5', '-3.50'],
    ['negative zero', '-0', '0.00'],
    ['large', '12345678901234567890123.45', '12345678901234567890123.45'],
    ['padded text', ' 7.1', '7.10'],
  ])('%s: %s -> %s, as the Decimal prints it', (_name, text, shown) => {
    expect(show(text, 'INR')).toBe(shown);
    expect(show(text, 'INR')).toBe(viaDecimal(text.trim(), 'INR'));
  });
  it.each<[string, string | null | undefined, string]>([
    ['not a number', 'abc', '"abc"'],
    ['an exponent', '1e3', '"1e3"'],
    ['none', null, 'none'],
    ['undefined', undefined, 'none'],
  ])('%s is shown as it came', (_name, value, shown) => expect(show(value, 'INR')).toBe(shown));
});

describe('toleranceFor', () => {
  it('reads each currency of a policy once, and follows a tolerance changed on the same policy', () => {
    const policy = resolvePolicy({ tolerances: { INR: '0.01' } });
    const first = toleranceFor(policy, 'INR');
    expect(first.toFixed()).toBe('0.01');
    expect(toleranceFor(policy, 'INR')).toBe(first);
    expect(toleranceFor(policy, 'NGN').toFixed()).toBe(new Decimal(policy.tolerances.NGN ?? '0').toFixed());
    policy.tolerances.INR = '0.05';
    expect(toleranceFor(policy, 'INR').toFixed()).toBe('0.05');
  });
});

describe('isAmountText and amountPlaces', () => {
  // The checks ask these of every found order instead of building a Decimal: they must say what readAmount would.
  it.each<string | null | undefined>([
    '250.50',
    '250.5',
    '1000',
    '0.005',
    '-0.50',
    '-0',
    '0.000',
    ' 12.340 ',
    '12345678901234.5678',
    '1e3',
    '12.',
    '.5',
    '007',
    'abc',
    '',
    null,
    undefined,
  ])('%j', (text) => {
    const d = readAmount(text);
    expect(isAmountText(text)).toBe(d !== null);
    expect(amountPlaces(text)).toBe(d === null ? null : d.decimalPlaces());
  });
});
