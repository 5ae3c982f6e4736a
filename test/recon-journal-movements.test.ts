// Issue 38: top-ups and withdrawals in the day journal: wallet against treasury clearing, the USDT
// leg at the rate applied, fx_difference where the USDT sent or received differs from the quote.
import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { buildJournal, roleTotal, type JournalDayInput } from '../src/recon/journal.ts';
import { movementEntries, type JournalMovement } from '../src/recon/journal-movements.ts';
import type { JournalEntry } from '../src/recon/journal-types.ts';

const sum = (values: ReadonlyArray<string | null>) => values.reduce((a, v) => a.plus(v ?? '0'), new Decimal(0)).toFixed();
const RATE = { deposit: '1500', withdraw: '1520' };

function expectBalanced(entries: readonly JournalEntry[]) {
  for (const e of entries) {
    expect(sum(e.lines.map((l) => l.amount)), `${e.id} in ${e.currency}`).toBe('0');
    expect(sum(e.lines.map((l) => l.usdt)), `${e.id} in USDT`).toBe('0');
  }
}

const topUp: JournalMovement = { reference: 'TOPUP-1', kind: 'top_up', effect: '1500000', usdtAmount: '1000', usdtRate: null };
const lines = (e: JournalEntry) => e.lines.map((l) => [l.role, l.amount, l.usdt]);

interface Case {
  name: string;
  movement: JournalMovement;
  lines: Array<[string, string, string | null]>;
}

const cases: Case[] = [
  {
    name: 'a top-up at exactly the quoted deposit rate: wallet Dr, treasury clearing Cr, no fx line',
    movement: topUp,
    lines: [
      ['wallet', '1500000', '1000.000000'],
      ['treasury_clearing', '-1500000', '-1000.000000'],
    ],
  },
  {
    name: 'a top-up that cost more USDT than the quote: the difference is an fx_difference debit (a loss)',
    movement: { ...topUp, usdtAmount: '1001.5' },
    lines: [
      ['wallet', '1500000', '1000.000000'],
      ['treasury_clearing', '-1500000', '-1001.500000'],
      ['fx_difference', '0', '1.500000'],
    ],
  },
  {
    name: 'a withdrawal at the withdraw side of the day rate, received less USDT: fx_difference debit',
    movement: { reference: 'WD-1', kind: 'withdrawal', effect: '-1520000', usdtAmount: '999.25', usdtRate: null },
    lines: [
      ['wallet', '-1520000', '-1000.000000'],
      ['treasury_clearing', '1520000', '999.250000'],
      ['fx_difference', '0', '0.750000'],
    ],
  },
  {
    name: 'a withdrawal with its own quoted rate, received more USDT: fx_difference credit (a gain)',
    movement: { reference: 'WD-2', kind: 'withdrawal', effect: '-150000', usdtAmount: '101', usdtRate: '1500' },
    lines: [
      ['wallet', '-150000', '-100.000000'],
      ['treasury_clearing', '150000', '101.000000'],
      ['fx_difference', '0', '-1.000000'],
    ],
  },
  {
    name: 'a bank withdrawal with no USDT leg: both sides at the quoted rate',
    movement: { reference: 'WD-3', kind: 'withdrawal', effect: '-3040', usdtAmount: null, usdtRate: null },
    lines: [
      ['wallet', '-3040', '-2.000000'],
      ['treasury_clearing', '3040', '2.000000'],
    ],
  },
  {
    name: 'a provider charge meets fees',
    movement: { reference: 'CHG-1', kind: 'charge', effect: '-1520', usdtAmount: null, usdtRate: null },
    lines: [
      ['wallet', '-1520', '-1.000000'],
      ['fees', '1520', '1.000000'],
    ],
  },
];

describe('movement entries (pure)', () => {
  it.each(cases)('$name', (c) => {
    const entries = movementEntries('2026-03-10', 'NGN', [c.movement], RATE);
    expect(entries).toHaveLength(1);
    expect(entries[0].kind).toBe('movement');
    expect(lines(entries[0])).toEqual(c.lines);
    expectBalanced(entries);
  });

  it('without any rate the lines carry no USDT and still balance', () => {
    const [e] = movementEntries('2026-03-10', 'NGN', [topUp], null);
    expect(lines(e)).toEqual([
      ['wallet', '1500000', null],
      ['treasury_clearing', '-1500000', null],
    ]);
  });
});

describe('a day with movements', () => {
  const DAY: JournalDayInput = {
    date: '2026-03-10',
    currency: 'NGN',
    rollForward: {
      opening: '1000000',
      // 1,000,000 + 1,500,000 (top-up) − 152,000 (withdrawal, a timing item counted in the day) + 7 (drift)
      closing: '2348007',
      payments: { paidAmount: null, fee: null, count: 0 },
      payouts: { amount: null, fee: null, count: 0 },
      timingItems: [{ direction: 'movement', merchantRef: 'WD-1', effect: '-152000', assignedIn: true }],
      movements: [topUp, { reference: 'WD-1', kind: 'withdrawal', effect: '-152000', usdtAmount: '100', usdtRate: null }],
      drift: '7',
    },
    rate: RATE,
  };

  it('posts each movement once, no suspense for them, and the wallet lines still equal closing − opening', () => {
    const j = buildJournal(DAY);
    expect(j.entries.map((e) => [e.kind, e.id])).toEqual([
      ['movement', '2026-03-10-NGN-movement-TOPUP-1'],
      ['movement', '2026-03-10-NGN-movement-WD-1'],
      ['drift', '2026-03-10-NGN-drift'],
    ]);
    expectBalanced(j.entries);
    expect(roleTotal(j.entries, 'wallet')).toBe('1348007');
    expect(roleTotal(j.entries, 'suspense')).toBe('-7');
    expect(roleTotal(j.entries, 'treasury_clearing')).toBe('-1348000');
    expect(roleTotal(j.entries, 'timing')).toBe('0');
  });
});
