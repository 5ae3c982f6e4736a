// Issue 38: `payrecon statements import`: lines stored once, matched to bank movements, cases for what
// does not match (STATEMENT_UNMATCHED, MOVEMENT_UNSETTLED), cleared when a later statement settles them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { insertMovements, type MovementInput } from '../src/db/movements.ts';
import { importStatement, type StatementImportOptions } from '../src/statements/import-statement.ts';

const FIXTURE = new URL('./fixtures/statements/camt053.xml', import.meta.url).pathname;
const NOW = new Date('2026-11-28T06:00:00Z');
let t: TestDatabase;
let dir: string;

const OPTS: StatementImportOptions = {
  source: 'test',
  at: NOW,
  maxBytes: 1_000_000,
  tolerance: (c) => (c === 'INR' ? '50' : '0'),
  settleAfterMs: 72 * 3_600_000,
};

const withdrawal = (reference: string, amount: string, at: string): MovementInput => ({
  reference,
  currency: 'INR',
  direction: 'out',
  amount,
  occurredFrom: new Date(at),
  occurredTo: new Date(at),
  kind: 'withdrawal',
  usdtAmount: null,
  usdtRate: null,
  note: '',
});

beforeAll(async () => {
  t = await createTestDatabase('h38_statements');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'h38-statements-'));
  await t.db.knex.transaction((trx) =>
    insertMovements(
      trx,
      [
        withdrawal('WD-1', '84000.00', '2026-11-27T05:00:00Z'),
        withdrawal('WD-2', '10000.00', '2026-11-27T05:10:00Z'),
        withdrawal('WD-3', '20000.00', '2026-11-27T05:20:00Z'),
        withdrawal('WD-4', '7000.00', '2026-11-20T05:00:00Z'),
      ],
      { recordedBy: 'asha', source: 'test', at: NOW },
    ),
  );
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await t?.drop();
});

const cases = async () =>
  (await t.db.knex('cases').whereIn('code', ['STATEMENT_UNMATCHED', 'MOVEMENT_UNSETTLED']).orderBy('id')).map((c) => [
    c.code,
    c.subject,
    c.state,
  ]);

describe('statements import', () => {
  it('CAMT.053: matches one-to-one with the bank charge as a difference, many-to-one on the exact sum; opens cases for the rest', async () => {
    const r = await importStatement(t.db.knex, FIXTURE, OPTS);
    expect([r.format, r.lines, r.inserted, r.unchanged, r.refused]).toEqual(['camt.053', 3, 3, 0, []]);
    expect(r.matches.map((m) => [m.reference, m.bankLineId, m.kind, m.difference])).toEqual([
      ['WD-1', 'HDFC-N-0001', 'one_to_one', '-25'],
      ['WD-2', 'HDFC-N-0002', 'many_to_one', '0'],
      ['WD-3', 'HDFC-N-0002', 'many_to_one', '0'],
    ]);
    expect(r.unmatchedLines.map((l) => l.lineId)).toEqual(['HDFC-N-0003']);
    expect(r.unsettled.map((m) => m.reference)).toEqual(['WD-4']);
    expect(await cases()).toEqual([
      ['STATEMENT_UNMATCHED', 'statement:50200012345678/HDFC-N-0003', 'open'],
      ['MOVEMENT_UNSETTLED', 'movement:WD-4', 'open'],
    ]);
  });

  it('the same statement again adds nothing and matches nothing twice', async () => {
    const r = await importStatement(t.db.knex, FIXTURE, OPTS);
    expect([r.inserted, r.unchanged, r.matches.length]).toEqual([0, 3, 3]);
    expect((await t.db.knex('statement_matches')).length).toBe(3);
  });

  it('a line imported before with other figures refuses the file; nothing of it is imported', async () => {
    const file = path.join(dir, 'changed.csv');
    fs.writeFileSync(
      file,
      'bank_account,line_id,booked_on,currency,direction,amount,reference\n50200012345678,NEW-1,2026-11-28,INR,credit,7000.00,WD-4\n50200012345678,HDFC-N-0001,2026-11-27,INR,credit,83000.00,WD-1\n',
    );
    const r = await importStatement(t.db.knex, file, OPTS);
    expect(r.refused).toEqual([
      {
        line: null,
        reason:
          "line HDFC-N-0001 was imported before with other figures (amount 83975.00 stored, 83000.00 in the file); a booked line never changes: check the file is the bank's",
      },
    ]);
    expect((await t.db.knex('statement_lines').where({ line_id: 'NEW-1' })).length).toBe(0);
  });

  it('a later CSV statement settles the late withdrawal: its case clears', async () => {
    const file = path.join(dir, 'late.csv');
    fs.writeFileSync(
      file,
      'bank_account,line_id,booked_on,currency,direction,amount,reference\n50200012345678,NEW-1,2026-11-28,INR,credit,7000.00,WD-4\n',
    );
    const r = await importStatement(t.db.knex, file, OPTS);
    expect([r.format, r.inserted]).toEqual(['csv', 1]);
    expect(r.matches.map((m) => m.reference)).toContain('WD-4');
    expect(r.unsettled).toEqual([]);
    expect(await cases()).toEqual([
      ['STATEMENT_UNMATCHED', 'statement:50200012345678/HDFC-N-0003', 'open'],
      ['MOVEMENT_UNSETTLED', 'movement:WD-4', 'resolved'],
    ]);
  });

  it('a hostile XML file is refused with nothing imported', async () => {
    const file = path.join(dir, 'lol.xml');
    fs.writeFileSync(file, '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaa">]><Document><BkToCstmrStmt>&a;</BkToCstmrStmt></Document>');
    const r = await importStatement(t.db.knex, file, OPTS);
    expect(r.refused[0].reason).toMatch(/DOCTYPE is not accepted/);
  });
});
