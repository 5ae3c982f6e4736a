/**
 * A batch's columns travel as array literals built by hand (src/db/unnest.ts): every value must read
 * back from Postgres exactly as it went in, NULLs as NULL, whatever the provider put in its text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrayLiteral, timestampOrNull, timestampText, unnestRows, type UnnestValue } from '../src/db/unnest.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

const HOSTILE_TEXT: readonly (string | null)[] = [
  'Success',
  '',
  ' ',
  'NULL',
  'null',
  null,
  'a,b',
  '{x}',
  '{"A","B"}',
  'say "hi"',
  'back\\slash',
  '\\"',
  'trailing\\',
  '"',
  'line\nbreak\ttab',
  'ünïcødé ₹ ₦ 🙂',
  '\u202Ebidi',
  "it's",
  '  padded  ',
];

describe('arrayLiteral', () => {
  it.each<[string, UnnestValue[], string]>([
    ['empty', [], '{}'],
    ['NULL bare, text quoted', [null, 'a', ''], '{NULL,"a",""}'],
    ['integers as text', [0, 7, -3], '{"0","7","-3"}'],
    ['quote and backslash escaped', ['say "hi"', 'a\\b'], '{"say \\"hi\\"","a\\\\b"}'],
    ['the word NULL stays text', ['NULL'], '{"NULL"}'],
  ])('%s', (_name, values, literal) => expect(arrayLiteral(values, (v) => v)).toBe(literal));

  it('refuses a row without the value (undefined) or with another kind of value, naming the column and row', () => {
    const rows: Array<{ fee?: unknown }> = [{ fee: '1.00' }, {}];
    expect(() => arrayLiteral(rows, (r) => r.fee as UnnestValue, 'fee')).toThrow(
      'fee of row 1: expected text, a number or null, got undefined',
    );
    expect(() => arrayLiteral([new Date(0)], (d) => d as unknown as UnnestValue, 'checked_at')).toThrow(
      /checked_at of row 0: .* got object/,
    );
  });
});

describe('timestampText', () => {
  it('is toISOString, also for a second instant after the first and a Date changed in place', () => {
    const d = new Date('2026-11-25T10:00:00.123Z');
    expect(timestampText(d)).toBe('2026-11-25T10:00:00.123Z');
    expect(timestampText(new Date('2026-11-25T10:00:00.124Z'))).toBe('2026-11-25T10:00:00.124Z');
    d.setTime(d.getTime() + 1000);
    expect(timestampText(d)).toBe('2026-11-25T10:00:01.123Z');
    expect(timestampOrNull(null)).toBeNull();
    expect(() => timestampText(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe.each(availableEngines)('unnestRows on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('unnest', { engine, migrate: false });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('every text, number, NULL and instant reads back as itself', async () => {
    type Row = { i: number; text: string | null; amount: string | null; at: Date | null };
    const rows: Row[] = HOSTILE_TEXT.map((text, i) => ({
      i,
      text,
      amount: i % 3 === 0 ? null : `${i}.${String(i).padStart(2, '0')}`,
      at: i % 4 === 0 ? null : new Date(Date.UTC(2026, 10, 25, 0, 0, i, i)),
    }));
    const v = unnestRows(rows, [
      { name: 'i', type: 'int', value: (r) => r.i },
      { name: 'text', type: 'text', value: (r) => r.text },
      { name: 'amount', type: 'numeric', value: (r) => r.amount },
      { name: 'at', type: 'timestamptz', value: (r) => timestampOrNull(r.at) },
    ]);
    const res = await t.db.knex.raw(`SELECT i, text, amount::text AS amount, at FROM ${v.sql} ORDER BY i`, v.bindings);
    const back = (res as { rows: Array<{ i: number; text: string | null; amount: string | null; at: Date | null }> }).rows;
    expect(back.map((r) => r.text)).toEqual(rows.map((r) => r.text));
    expect(back.map((r) => r.amount)).toEqual(rows.map((r) => r.amount));
    expect(back.map((r) => r.at?.getTime() ?? null)).toEqual(rows.map((r) => r.at?.getTime() ?? null));
    expect(back.map((r) => r.i)).toEqual(rows.map((r) => r.i));
  });
});
