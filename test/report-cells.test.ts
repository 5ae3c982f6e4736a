import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { neutralizeCell, textCell } from '../src/tabular/neutralize.ts';
import { amountCell, padDecimals, timeFormatter, fixedDecimalCell } from '../src/tabular/format.ts';
import { businessDay, defaultReportDate } from '../src/report/date.ts';
import { UsageError } from '../src/domain/errors.ts';
import { Decimal, formatAmount } from '../src/money/decimal.ts';
import { csvCells } from '../src/report/csv-cells.ts';
import { tableHtml } from '../src/report/html/table-html.ts';
import type { Table } from '../src/tabular/table.ts';
import { tableText } from '../src/report/text-table.ts';

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
    { name: 'a whole amount gets the currency decimals', value: '100', currency: 'INR', out: '100.00' },
    { name: 'one decimal is padded', value: '250.5', currency: 'INR', out: '250.50' },
    { name: 'a negative is padded and stays a number', value: '-12.5', currency: 'INR', out: '-12.50' },
    { name: 'text already in form is kept', value: '250.50', currency: 'INR', out: '250.50' },
    { name: 'trailing zeros beyond the decimals go', value: '1000.000000', currency: 'INR', out: '1000.00' },
    { name: 'leading zeros go', value: '007.5', currency: 'NGN', out: '7.50' },
    { name: 'negative zero is zero', value: '-0.000', currency: 'INR', out: '0.00' },
    { name: 'a long amount keeps every digit', value: '12345678901234.56', currency: 'NGN', out: '12345678901234.56' },
    { name: 'half a minor unit is not rounded up', value: '0.005', currency: 'INR', out: '0.005' },
    { name: 'less than half a minor unit is not rounded away', value: '-0.004', currency: 'INR', out: '-0.004' },
    { name: 'extra decimals are kept, not rounded', value: '-1.995', currency: 'IDR', out: '-1.995' },
    { name: 'extra decimals keep their zeros inside, lose them at the end', value: '12.30450', currency: 'INR', out: '12.3045' },
    {
      name: 'a long amount with extra decimals keeps every digit',
      value: '99999999999999999999.999',
      currency: 'INR',
      out: '99999999999999999999.999',
    },
    { name: 'text in another shape is read exactly', value: '5e-3', currency: 'INR', out: '0.005' },
    { name: 'a currency payrecon does not know keeps its digits', value: '1.23456', currency: 'USDT', out: '1.23456' },
  ])('$name: $value $currency -> $out', ({ value, currency, out }) => {
    expect(amountCell(value, currency)).toBe(out);
  });

  it.each([
    { name: 'a Decimal is padded', value: new Decimal('3'), out: '3.00' },
    { name: 'a Decimal finer than the minor unit is kept', value: new Decimal('-0.0040'), out: '-0.004' },
    { name: 'a negative zero Decimal is zero', value: new Decimal('-0'), out: '0.00' },
  ])('$name', ({ value, out }) => {
    expect(amountCell(value, 'INR')).toBe(out);
  });

  it('is the same value as written, with at least the currency decimals, by the string fast path or not', () => {
    const values = ['0', '-0', '-0.00', '1', '10', '250.5', '1.250', '0.1', '0.01', '0.001', '0.005', '-0.004', '12.345', '-1.995'];
    for (const v of values) {
      const out = amountCell(v, 'INR');
      expect(new Decimal(out).eq(v), v).toBe(true);
      expect(out.split('.')[1]?.length ?? 0, v).toBeGreaterThanOrEqual(2);
      expect(amountCell(new Decimal(v), 'INR'), v).toBe(out);
      const rounded = padDecimals(v, 2);
      if (rounded !== null) expect(rounded, v).toBe(formatAmount(v, 'INR'));
    }
    expect(padDecimals('12.345', 2)).toBeNull();
    expect(padDecimals('12.345', 2, true)).toBe('12.345');
    expect(padDecimals('1.250', 2)).toBe('1.25');
  });

  it('leaves a missing amount empty and rounds USDT to 6 decimals', () => {
    expect(amountCell(null, 'INR')).toBe('');
    expect(fixedDecimalCell(new Decimal('-1005.5').dividedBy('83.6').toFixed(), 6)).toBe('-12.027512');
    expect(fixedDecimalCell('0', 6)).toBe('0.000000');
  });
});

describe('amounts in every file a person reads', () => {
  const table: Table = {
    name: 'mismatches',
    title: 'Mismatches',
    columns: [
      { name: 'currency', kind: 'text' },
      { name: 'amount', kind: 'amount' },
    ],
    rows: [
      ['INR', '0.005'],
      ['INR', '-0.004'],
      ['NGN', '1234567.5'],
      ['IDR', '1234.56789'],
    ],
  };
  const shown = ['0.005', '-0.004', '1,234,567.50', '1,234.56789'];
  const utc = timeFormatter('UTC');
  it.each([
    {
      name: 'CSV cells',
      out: () => table.rows.map((r) => csvCells(table.columns, r, utc)[1]),
      expected: ['0.005', '-0.004', '1234567.50', '1234.56789'],
    },
    {
      name: 'html and e-mail html table',
      out: () => [...tableHtml(table, utc).text.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]).filter((_, i) => i % 2 === 1),
      expected: shown,
    },
    {
      name: 'e-mail plain-text table',
      out: () =>
        tableText(table, utc)
          .split('\n')
          .slice(2)
          .map((l) => l.split(/\s+/)[1]),
      expected: shown,
    },
  ])('$name keep exact amounts', ({ out, expected }) => {
    expect(out()).toEqual(expected);
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
      expect(() => businessDay(date, 'UTC')).toThrow(UsageError);
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
