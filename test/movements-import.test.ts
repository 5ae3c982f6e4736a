// Issue 38: `payrecon movements import`: all or nothing, idempotent by reference, every bad row named.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { importMovements } from '../src/import/import-movements.ts';
import { listMovements } from '../src/db/movements.ts';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('h38_movements_import');
});
afterAll(() => t?.drop());
// The audit trail is append-only, so each test records under references of its own.
let n = 0;
let p = '';
beforeEach(() => {
  p = `t${++n}-`;
});
const mine = async () => (await listMovements(t.db.knex)).filter((m) => m.reference.startsWith(p));

const HEADER = 'reference,currency,direction,amount,occurred_at,kind,usdt_amount,note';
const GOOD = [
  'TOPUP-1,NGN,in,1500000.00,2026-11-27T10:15:00+01:00,top_up,1000.000000,prefund payouts',
  'WD-1,INR,out,84000.00,2026-11-27T12:00:00+05:30,withdrawal,,to HDFC',
];
// Every row's reference gets the test's prefix (a row starting with a comma keeps an empty one).
const prefixed = (lines: string[]) => lines.map((l) => (l.startsWith(',') ? l : p + l));
const run = (lines: string[]) =>
  importMovements(t.db.knex, Readable.from([[HEADER, ...prefixed(lines)].join('\n')]), {
    recordedBy: 'asha',
    source: 'import:test.csv',
    at: new Date(),
  });

describe('movements import', () => {
  it('records every row, each pending approval; the same file again adds nothing and says so', async () => {
    expect(await run(GOOD)).toEqual({ rows: 2, inserted: 2, unchanged: 0, rejected: [] });
    expect(await run(GOOD)).toEqual({ rows: 2, inserted: 0, unchanged: 2, rejected: [] });
    const stored = await mine();
    expect(stored.map((m) => [m.reference, m.amount, m.usdtAmount, m.recordedBy, m.approvedBy, m.source])).toEqual([
      [`${p}TOPUP-1`, '1500000', '1000', 'asha', null, 'import:test.csv'],
      [`${p}WD-1`, '84000', null, 'asha', null, 'import:test.csv'],
    ]);
  });

  it('a changed row for a known reference is refused, naming the row and what differs; nothing of the file is recorded', async () => {
    await run(GOOD);
    const r = await run(['NEW-1,IDR,in,10.00,2026-11-27T10:15:00+07:00,adjustment,,', GOOD[0].replace('1500000.00', '1500001.00')]);
    expect(r.inserted).toBe(0);
    expect(r.rejected).toHaveLength(1);
    expect(r.rejected[0].line).toBe(3);
    expect(r.rejected[0].reason).toContain(
      `${p}TOPUP-1 is already recorded with other values (amount 1500000 recorded, 1500001 in the file)`,
    );
    expect((await mine()).map((m) => m.reference).sort()).toEqual([`${p}TOPUP-1`, `${p}WD-1`]);
  });

  it('every malformed row is named with its fix, and one bad row refuses the whole file', async () => {
    const r = await run([
      GOOD[0],
      'X,EUR,sideways,-3,yesterday,gift,abc,=cmd',
      'Y,NGN,out,10,2026-11-27T10:15:00+01:00,top_up,,',
      'Z,NGN,in,0,2026-11-27T10:15:00,adjustment,0,',
      'W,NGN,in,5',
      'TOPUP-1,NGN,in,1500000.00,2026-11-27T10:15:00+01:00,top_up,1000.000000,prefund payouts',
    ]);
    expect(r.inserted).toBe(0);
    expect(r.rejected.map((x) => x.line)).toEqual([3, 4, 5, 6, 7]);
    const reasons = r.rejected.map((x) => x.reason);
    expect(reasons[0]).toMatch(
      /currency: "EUR".*direction: "sideways".*kind: "gift".*amount: "-3" is negative.*occurred_at: "yesterday".*usdt_amount: "abc".*note: starts with "="/,
    );
    expect(reasons[1]).toBe('direction: a top_up is always "in"; fix the direction or the kind');
    expect(reasons[2]).toMatch(
      /amount: must be above zero.*occurred_at: "2026-11-27T10:15:00" is not an ISO-8601 date-time with an offset.*usdt_amount: must be above zero/,
    );
    expect(reasons[3]).toBe("expected 8 fields, got 4; give every row the header's columns");
    expect(reasons[4]).toBe(`reference ${p}TOPUP-1 repeats line 2; each movement once, under its own reference`);
    expect(await mine()).toEqual([]);
  });

  it('a bad header is refused before any row, naming the columns expected', async () => {
    await expect(
      importMovements(t.db.knex, Readable.from(['reference,currency,amount\nA,NGN,1']), {
        recordedBy: 'asha',
        source: 'x',
        at: new Date(),
      }),
    ).rejects.toThrow(/missing column\(s\): direction, occurred_at, kind, usdt_amount, note/);
  });

  it('an interval (occurred_until) and a quoted rate are kept', async () => {
    const header = `${HEADER},occurred_until,usdt_rate`;
    const r = await importMovements(
      t.db.knex,
      Readable.from([`${header}\n${p}I-1,NGN,out,3000.00,2026-11-27T10:00:00Z,withdrawal,2.000000,,2026-11-27T11:00:00Z,1500`]),
      { recordedBy: 'asha', source: 'x', at: new Date() },
    );
    expect(r.rejected).toEqual([]);
    const [m] = await mine();
    expect([m.occurredFrom.toISOString(), m.occurredTo.toISOString(), m.usdtRate]).toEqual([
      '2026-11-27T10:00:00.000Z',
      '2026-11-27T11:00:00.000Z',
      '1500',
    ]);
  });
});
