import { describe, expect, it } from 'vitest';
import { planImport } from '../src/cases/import-plan.ts';
import type { ImportRow } from '../src/cases/import-file.ts';
import type { StoredCase } from '../src/db/cases.ts';

/** The round trip's decision per uploaded row, without a database: a table of named cases. */
const at = new Date('2026-11-22T10:00:00Z');
const stored = (id: string, over: Partial<StoredCase> = {}): StoredCase => ({
  id,
  subject: `payment:${id}`,
  code: 'FEE',
  direction: 'payment',
  orderId: id,
  merchantRef: `ORD-${id}`,
  transactionRef: `TX${id}`,
  currency: 'INR',
  windowStart: null,
  windowEnd: null,
  occurredAt: at,
  state: 'open',
  resolution: null,
  createdAt: at,
  openedAt: at,
  stateChangedAt: at,
  lastSeenAt: at,
  seenCount: 1,
  finding: { local: '10.00', provider: '11.00' },
  version: 3,
  accountId: 'default',
  assignee: null,
  difference: '1.00',
  atRisk: '1.00',
  atRiskUsdt: '0.012000',
  ...over,
});
const cases = new Map(
  [
    stored('1'),
    stored('2', { state: 'acknowledged', version: 4 }),
    stored('3', { state: 'resolved', resolution: 'adjusted', version: 5 }),
    stored('4', { assignee: 'fred', version: 6 }),
  ].map((c) => [c.id, c]),
);
const row = (caseId: string, version: string, reason: string, note: string, n = 2): ImportRow => ({
  row: n,
  caseId,
  version,
  reason,
  note,
});

const TABLE: Array<{ name: string; row: ImportRow; resolves?: string; refused?: RegExp }> = [
  { name: 'an open case as exported', row: row('1', '3', 'adjusted', 'booked'), resolves: 'adjusted' },
  { name: 'an acknowledged case as exported', row: row('2', '4', 'duplicate', 'same as 1'), resolves: 'duplicate' },
  { name: 'a reason spelt as a person would', row: row('1', '3', ' Written off ', 'small'), resolves: 'written-off' },
  { name: 'an unknown case', row: row('99', '0', 'adjusted', 'x'), refused: /^unknown case "99"/ },
  { name: 'a case id that is not a number', row: row('=1+1', '0', 'adjusted', 'x'), refused: /^unknown case "=1\+1"/ },
  { name: 'an unknown reason', row: row('1', '3', 'fixed', 'x'), refused: /^unknown reason "fixed": choose one of provider-corrected/ },
  { name: "payrecon's own reason", row: row('1', '3', 'cleared-by-recheck', 'x'), refused: /^not permitted: cleared-by-recheck/ },
  { name: 'a note without a reason', row: row('1', '3', '', 'x'), refused: /^no resolution reason/ },
  { name: 'a reason without a note', row: row('1', '3', 'adjusted', ''), refused: /^no resolution note/ },
  {
    name: 'a case changed since the export',
    row: row('4', '5', 'adjusted', 'x'),
    refused: /^changed since the export \(now open, assigned to fred\)/,
  },
  { name: 'a version cell edited away', row: row('1', 'three', 'adjusted', 'x'), refused: /^changed since the export/ },
  { name: 'a case already resolved', row: row('3', '5', 'adjusted', 'x'), refused: /^already resolved \(adjusted\)/ },
];

describe('planImport', () => {
  for (const c of TABLE) {
    it(c.name, () => {
      const plan = planImport([c.row], cases, 'console:fiona');
      if (c.resolves) {
        expect(plan.refused).toEqual([]);
        expect(plan.resolve).toMatchObject([{ id: c.row.caseId, reason: c.resolves, note: c.row.note, row: c.row.row }]);
      } else {
        expect(plan.resolve).toEqual([]);
        expect(plan.refused).toHaveLength(1);
        expect(plan.refused[0].why).toMatch(c.refused!);
      }
    });
  }

  it('leaves rows with neither reason nor note out, and resolves a case named twice by its first row only', () => {
    const plan = planImport(
      [row('1', '3', '', '', 2), row('2', '4', 'adjusted', 'first', 3), row('2', '4', 'duplicate', 'second', 4)],
      cases,
      'console:fiona',
    );
    expect(plan.blank).toBe(1);
    expect(plan.resolve.map((p) => [p.id, p.note])).toEqual([['2', 'first']]);
    expect(plan.refused).toEqual([{ row: 4, caseId: '2', known: true, why: 'case 2 is listed again: row 3 already resolves it' }]);
  });
});
