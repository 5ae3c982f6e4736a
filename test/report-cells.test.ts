import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { neutralizeCell, textCell } from '../src/report/neutralize.ts';
import { amountCell, padDecimals, timeFormatter, fixedDecimalCell } from '../src/report/format.ts';
import { businessDay, defaultReportDate, ReportInputError } from '../src/report/date.ts';
import { Decimal, formatAmount } from '../src/money/decimal.ts';

describe('neutralizeCell', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+44 20 7946 0000', "'+44 20 7946 0000"],
    ['-12.50', "'-12.50"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['\nx', "'\nx"],
    ['＝1+1', "'＝1+1"],
    ['＋1', "'＋1"],
    ['－1', "'－1"],
    ['＠x', "'＠x"],
    ['a=1', 'a=1'],
    ["'already", "'already"],
    ['', ''],
    ['UTR-21', 'UTR-21'],
  ])('%j -> %j', (input, output) => {
    expect(neutralizeCell(input)).toBe(output);
  });

  it('writes null as an empty cell', () => {
    expect(textCell(null)).toBe('');
    expect(textCell(undefined)).toBe('');
  });
});

describe('amountCell', () => {
  it.each([
    ['100', 'INR', '100.00'],
    ['-12.5', 'INR', '-12.50'],
    ['12345678901234.56', 'NGN', '12345678901234.56'],
    ['0.005', 'IDR', '0.01'],
    ['1.23456', 'USDT', '1.23456'],
  ])('%s %s -> %s', (value, currency, out) => {
    expect(amountCell(value, currency)).toBe(out);
  });
  it('pads by string exactly as Decimal would round, and defers to Decimal when rounding is needed', () => {
    const values = [
      '0',
      '-0',
      '-0.00',
      '1',
      '10',
      '250.5',
      '250.50',
      '1.250',
      '-12.5',
      '0.1',
      '0.01',
      '0.001',
      '0.005',
      '-0.004',
      '99999999999999999999.99',
      '12.345',
      '-1.995',
      '1000.000000',
    ];
    for (const v of values) {
      const fast = padDecimals(v, 2);
      if (fast !== null) expect(fast, v).toBe(formatAmount(v, 'INR'));
      expect(amountCell(v, 'INR'), v).toBe(formatAmount(v, 'INR'));
    }
    expect(padDecimals('12.345', 2)).toBeNull();
    expect(padDecimals('1.250', 2)).toBe('1.25');
  });

  it('leaves a missing amount empty and rounds USDT to 6 decimals', () => {
    expect(amountCell(null, 'INR')).toBe('');
    expect(fixedDecimalCell(new Decimal('-1005.5').dividedBy('83.6').toFixed(), 6)).toBe('-12.027512');
    expect(fixedDecimalCell('0', 6)).toBe('0.000000');
  });
});

describe('timeFormatter', () => {
  it('agrees with luxon (numeric offset) every 7 minutes across both 2024 DST changes in New York', () => {
    const f = timeFormatter('America/New_York');
    for (const [from, to] of [
      ['2024-03-09T00:00:00Z', '2024-03-12T00:00:00Z'],
      ['2024-11-02T00:00:00Z', '2024-11-05T00:00:00Z'],
    ]) {
      for (let ms = Date.parse(from); ms < Date.parse(to); ms += 7 * 60_000 + 123) {
        expect(f(ms)).toBe(DateTime.fromMillis(ms, { zone: 'America/New_York' }).toISO({ includeOffset: true }));
      }
    }
  });
  it('writes UTC as +00:00 and half-hour zones exactly', () => {
    expect(timeFormatter('UTC')(Date.parse('2024-05-01T00:00:00.5Z'))).toBe('2024-05-01T00:00:00.500+00:00');
    expect(timeFormatter('Asia/Kolkata')(Date.parse('2024-04-30T18:29:59.999Z'))).toBe('2024-04-30T23:59:59.999+05:30');
  });
});

describe('businessDay', () => {
  it('is local midnight to local midnight as UTC instants', () => {
    const d = businessDay('2024-05-01', 'Asia/Kolkata');
    expect([d.start.toUTC().toISO(), d.end.toUTC().toISO()]).toEqual(['2024-04-30T18:30:00.000Z', '2024-05-01T18:30:00.000Z']);
  });
  it('has 23 hours on the spring-forward day', () => {
    const d = businessDay('2024-03-10', 'America/New_York');
    expect(d.end.diff(d.start, 'hours').hours).toBe(23);
  });
  it.each(['../../etc', '2024-02-30', '2023-02-29', '2024-13-01', '2024-5-01', ' 2024-05-01', '2024-05-01\n', '20240501', ''])(
    'rejects %j',
    (date) => {
      expect(() => businessDay(date, 'UTC')).toThrow(ReportInputError);
    },
  );
  it('accepts a leap day and rejects an unknown zone', () => {
    expect(businessDay('2024-02-29', 'UTC').date).toBe('2024-02-29');
    expect(() => businessDay('2024-02-29', 'Mars/Olympus')).toThrow(/time zone/);
  });
  it('defaults to yesterday in the zone', () => {
    // 2024-05-01T20:00Z is already May 2nd in Kolkata.
    expect(defaultReportDate('Asia/Kolkata', new Date('2024-05-01T20:00:00Z'))).toBe('2024-05-01');
    expect(defaultReportDate('UTC', new Date('2024-05-01T20:00:00Z'))).toBe('2024-04-30');
  });
});
