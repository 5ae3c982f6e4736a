import { describe, expect, it } from 'vitest';
import { scaledDigits, scanDecimal, smallScaledValue } from '../src/money/decimal-text.ts';

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
