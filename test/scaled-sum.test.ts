import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { ScaledSum } from '../src/money/scaled-sum.ts';

const sum = (values: readonly (readonly [string, 1 | -1])[]) => {
  const s = new ScaledSum();
  for (const [v, sign] of values) s.add(v, sign);
  return s.toDecimal().toFixed();
};

describe('ScaledSum', () => {
  it.each([
    ['nothing', [], '0'],
    [
      'cents',
      [
        ['0.1', 1],
        ['0.2', 1],
      ],
      '0.3',
    ],
    [
      'more decimals later',
      [
        ['100', 1],
        ['0.005', 1],
        ['2.5', -1],
      ],
      '97.505',
    ],
    [
      'negatives and subtraction',
      [
        ['-1.25', 1],
        ['-1.25', -1],
      ],
      '0',
    ],
    [
      'past 15 digits',
      [
        ['123456789012345.67', 1],
        ['0.33', 1],
      ],
      '123456789012346',
    ],
    [
      'past 2^53 in the running part',
      [
        ['9999999999999.99', 1],
        ['9999999999999.99', 1],
        ['9999999999999.99', 1],
      ],
      '29999999999999.97',
    ],
  ] as const)('%s', (_name, values, expected) => {
    expect(sum(values)).toBe(expected);
  });

  it('equals Decimal arithmetic on many values', () => {
    const s = new ScaledSum();
    let d = new Decimal(0);
    for (let i = 0; i < 20_000; i++) {
      const v = `${i % 7 === 0 ? '-' : ''}${(i * 7919) % 100000000}.${String(i % 100).padStart(2, '0')}`;
      s.add(v, i % 3 === 0 ? -1 : 1);
      d = i % 3 === 0 ? d.minus(v) : d.plus(v);
    }
    expect(s.toDecimal().equals(d)).toBe(true);
    expect(s.toString()).toBe(d.toFixed(2));
  });

  it.each([
    { name: 'at least the scale asked for', scale: 2, values: [['1.5', 1]], out: '1.50' },
    {
      name: 'a subtraction below zero',
      scale: 2,
      values: [
        ['1.5', 1],
        ['2.25', -1],
      ],
      out: '-0.75',
    },
    {
      name: 'a finer value widens it, never rounds',
      scale: 2,
      values: [
        ['1.5', 1],
        ['0.001', -1],
      ],
      out: '1.499',
    },
    { name: 'a long value subtracted', scale: 0, values: [['123456789012345.67', -1]], out: '-123456789012345.67' },
  ] as const)('toString: $name', ({ scale, values, out }) => {
    const s = new ScaledSum(scale);
    for (const [v, sign] of values) s.add(v, sign);
    expect(s.toString()).toBe(out);
  });
});
