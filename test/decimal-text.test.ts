import { describe, expect, it } from 'vitest';
import { scaledDigits, scanDecimal, smallScaledValue } from '../src/money/decimal-text.ts';
import { Decimal, digitsOf, normalizeDecimal } from '../src/money/decimal.ts';

describe('scanDecimal', () => {
  it.each([
    ['0', { negative: false, intStart: 0, point: 1, fractionDigits: 0, significantFractionDigits: 0 }],
    ['-12.50', { negative: true, intStart: 1, point: 3, fractionDigits: 2, significantFractionDigits: 1 }],
    ['12.', { negative: false, intStart: 0, point: 2, fractionDigits: 0, significantFractionDigits: 0 }],
    ['007.000', { negative: false, intStart: 0, point: 3, fractionDigits: 3, significantFractionDigits: 0 }],
    ['0.005', { negative: false, intStart: 0, point: 1, fractionDigits: 3, significantFractionDigits: 3 }],
  ])('%s', (text, parts) => expect(scanDecimal(text)).toEqual(parts));

  it.each(['', '-', '.5', '+1', '1e5', '1.2.3', '12 ', ' 12', '1,000.00', '١٢', '-.5', '0x10'])('refuses %j', (text) =>
    expect(scanDecimal(text)).toBeNull(),
  );
});

describe('smallScaledValue and scaledDigits', () => {
  const at = (text: string, scale: number) => smallScaledValue(text, scanDecimal(text)!, scale);
  it.each([
    ['250.5', 2, 25050],
    ['-0.01', 2, -1],
    ['1000', 0, 1000],
    ['12.300', 2, 1230],
    ['0', 3, 0],
    ['9999999999999.99', 2, 999999999999999],
  ])('%s at %i decimals is %i', (text, scale, value) => expect(at(text, scale)).toBe(value));

  it('leaves values of more than 15 scaled digits to BigInt, with the same digits', () => {
    expect(at('99999999999999.99', 2)).toBeNull();
    expect(scaledDigits('-123456789012345.6', scanDecimal('-123456789012345.6')!, 2)).toBe('12345678901234560');
  });
});

describe('normalizeDecimal and digitsOf read plain decimal text without a Decimal', () => {
  it.each([
    ['250.50', '250.5'],
    ['100', '100'],
    ['1.000', '1'],
    ['-12.340', '-12.34'],
    ['-0', '0'],
    ['-0.00', '0'],
    ['0.00', '0'],
    ['0.005', '0.005'],
    ['12345678901234567890123456789012345678901234.5', '12345678901234567890123456789012345678901234.5'],
    // Not plain: Decimal reads them.
    ['007.50', '7.5'],
    ['1e3', '1000'],
    ['-1.5E-2', '-0.015'],
  ])('normalizeDecimal(%j) is %j', (text, canonical) => expect(normalizeDecimal(text)).toBe(canonical));

  it('agrees with Decimal on random texts: signs, zeros, long digits, trailing zeros', () => {
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const digits = (n: number) => Array.from({ length: n }, () => String(next(10))).join('');
    for (let i = 0; i < 20_000; i++) {
      const int = next(4) === 0 ? '0' : String(1 + next(9)) + digits(next(18));
      const frac = next(3) === 0 ? '' : `.${digits(1 + next(8))}${'0'.repeat(next(3))}`;
      const text = `${next(2) === 0 ? '-' : ''}${int}${frac}`;
      expect(normalizeDecimal(text), text).toBe(new Decimal(text).toFixed());
      const [i0, f0 = ''] = text.replace(/^-/, '').split('.');
      expect(digitsOf(text), text).toEqual({ integerDigits: i0.length, scale: f0.length });
    }
  });
});
