import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/money/decimal.ts';
import { buildJournal, roleTotal, type JournalDayInput } from '../src/recon/journal.ts';
import type { JournalEntry } from '../src/recon/journal-types.ts';

const sum = (values: ReadonlyArray<string | null>) => values.reduce((a, v) => a.plus(v ?? '0'), new Decimal(0)).toFixed();

const DAY: JournalDayInput = {
  date: '2026-03-10',
  currency: 'NGN',
  rollForward: {
    opening: '1000000',
    // 1,000,000 + (25,000.50 − 375.01) − (10,000.25 + 50) + 3,000 (timing) + 1,250 (drift)
    closing: '1018825.24',
    payments: { paidAmount: '25000.50', fee: '375.01', count: 1 },
    payouts: { amount: '10000.25', fee: '50', count: 1 },
    timingItems: [
      { direction: 'payment', merchantRef: 'T-IN', effect: '3000', assignedIn: true },
      { direction: 'payout', merchantRef: 'T-OUT', effect: '-999', assignedIn: false },
    ],
    drift: '1250',
  },
  rate: { deposit: '1530.5', withdraw: '1545.25' },
};

function expectBalanced(entries: readonly JournalEntry[]) {
  for (const e of entries) {
    expect(sum(e.lines.map((l) => l.amount)), `${e.id} in ${e.currency}`).toBe('0');
    if (e.lines.some((l) => l.usdt !== null)) expect(sum(e.lines.map((l) => l.usdt)), `${e.id} in USDT`).toBe('0');
  }
}

describe('the day journal (pure)', () => {
  it('every entry balances per currency, in its currency and in USDT', () => {
    const j = buildJournal(DAY);
    expect(j.entries.map((e) => e.kind)).toEqual(['payments', 'payouts', 'timing', 'drift']);
    expectBalanced(j.entries);
  });

  it('the wallet lines sum to closing − opening: orders, timing items counted in the day, and the drift', () => {
    const j = buildJournal(DAY);
    expect(roleTotal(j.entries, 'wallet')).toBe(new Decimal(DAY.rollForward.closing!).minus(DAY.rollForward.opening!).toFixed());
    expect(roleTotal(j.entries, 'suspense')).toBe('-1250'); // the drift, and only the drift, credited to suspense
    expect(roleTotal(j.entries, 'fees')).toBe('425.01');
    expect(roleTotal(j.entries, 'timing')).toBe('-3000'); // T-OUT was assigned to the other window
  });

  it('a payment posts wallet P − F and fees F against payments clearing P; a payout the mirror', () => {
    const [pay, out] = buildJournal(DAY).entries;
    expect(pay.lines.map((l) => [l.role, l.amount])).toEqual([
      ['wallet', '24625.49'],
      ['fees', '375.01'],
      ['payments_clearing', '-25000.5'],
    ]);
    expect(out.lines.map((l) => [l.role, l.amount])).toEqual([
      ['payouts_clearing', '10000.25'],
      ['fees', '50'],
      ['wallet', '-10050.25'],
    ]);
  });

  it('USDT at the day’s closing rate: deposit side for inflows, withdraw side for outflows, 6 decimals, a rounding line when lines do not sum', () => {
    const [pay, out] = buildJournal(DAY).entries;
    expect(pay.lines[0]).toMatchObject({ usdtRate: '1530.5', usdt: '16.089833' });
    expect(out.lines[0]).toMatchObject({ usdtRate: '1545.25', usdt: '6.471607' });
    const rounding = [...pay.lines, ...out.lines].filter((l) => l.role === 'rounding');
    for (const r of rounding) expect(r.amount).toBe('0');
    expectBalanced([pay, out]);
  });

  it('a late reversal and a fee correction post on the day observed, naming the original day and order; suspense keeps only the rest', () => {
    // The provider reversed a payment of 03-07 (−24,625.49) and raised a fee of 03-08 by 10: both moved
    // today's balance, so the roll-forward's drift holds them besides the 1,250 nobody explains.
    const closing = new Decimal(DAY.rollForward.closing!).minus('24625.49').minus('10').toFixed();
    const j = buildJournal({
      ...DAY,
      rollForward: { ...DAY.rollForward, closing, drift: new Decimal('1250').minus('24635.49').toFixed() },
      late: [
        {
          kind: 'reversal',
          direction: 'payment',
          merchantRef: 'ORD-7',
          orderId: '7',
          originalDate: '2026-03-07',
          countedOn: '2026-03-07',
          observedAt: '2026-03-10T12:00:00.000Z',
          walletEffect: '-24625.49',
        },
        {
          kind: 'fee_correction',
          direction: 'payout',
          merchantRef: 'ORD-8',
          orderId: '8',
          originalDate: '2026-03-08',
          countedOn: '2026-03-08',
          observedAt: '2026-03-10T12:00:00.000Z',
          walletEffect: '-10',
        },
      ],
    });
    const late = j.entries.filter((e) => e.kind === 'late');
    expect(late.map((e) => [e.id, e.date, e.description])).toEqual([
      ['2026-03-10-NGN-reversal-ORD-7', '2026-03-10', 'NGN reversal of payment ORD-7 of 2026-03-07, seen 2026-03-10'],
      ['2026-03-10-NGN-fee_correction-ORD-8', '2026-03-10', 'NGN fee correction of payout ORD-8 of 2026-03-08, seen 2026-03-10'],
    ]);
    expect(roleTotal(j.entries, 'reversal')).toBe('24625.49');
    expect(roleTotal(j.entries, 'fee_correction')).toBe('10');
    expect(roleTotal(j.entries, 'suspense')).toBe('-1250');
    expect(roleTotal(j.entries, 'wallet')).toBe(new Decimal(closing).minus(DAY.rollForward.opening!).toFixed());
    expectBalanced(j.entries);
  });

  it('a reversal the provider made on one day and a check saw the next: suspense holds it one day, cleared the next', () => {
    // Day 1: the provider reversed ORD-7 (−500 on the balance); no check has seen it, so it is drift.
    const quiet = {
      ...DAY.rollForward,
      payments: { paidAmount: null, fee: null, count: 0 },
      payouts: { amount: null, fee: null, count: 0 },
    };
    const base = { ...DAY, rollForward: { ...quiet, timingItems: [] } };
    const day1 = buildJournal({ ...base, rollForward: { ...base.rollForward, opening: '1000000', closing: '999500', drift: '-500' } });
    // Day 2: nothing moves; the check sees the reversal and posts it here.
    const day2 = buildJournal({
      ...base,
      date: '2026-03-11',
      rollForward: { ...base.rollForward, opening: '999500', closing: '999500', drift: '0' },
      late: [
        {
          kind: 'reversal',
          direction: 'payment',
          merchantRef: 'ORD-7',
          orderId: '7',
          originalDate: '2026-03-05',
          countedOn: '2026-03-05',
          observedAt: '2026-03-10T12:00:00.000Z',
          walletEffect: '-500',
        },
      ],
    });
    expect(roleTotal(day1.entries, 'suspense')).toBe('500');
    expect(roleTotal(day2.entries, 'suspense')).toBe('-500');
    expect(roleTotal([...day1.entries, ...day2.entries], 'suspense')).toBe('0');
    expect(roleTotal(day2.entries, 'reversal')).toBe('500');
    // Each day's wallet still ties to its own balance.
    expect(roleTotal(day1.entries, 'wallet')).toBe('-500');
    expect(roleTotal(day2.entries, 'wallet')).toBe('0');
    [day1, day2].forEach((d) => expectBalanced(d.entries));
  });

  it('a late change that explains the whole drift leaves no suspense entry', () => {
    // No unexplained 1,250 this time: the balance moved by the orders, the timing item and a fee raised by 80.
    const closing = new Decimal(DAY.rollForward.closing!).minus('1250').minus('80').toFixed();
    const j = buildJournal({
      ...DAY,
      rollForward: { ...DAY.rollForward, closing, drift: '-80' },
      late: [
        {
          kind: 'fee_correction',
          direction: 'payout',
          merchantRef: 'ORD-9',
          orderId: '9',
          originalDate: '2026-03-09',
          countedOn: '2026-03-09',
          observedAt: '2026-03-10T12:00:00.000Z',
          walletEffect: '-80',
        },
      ],
    });
    expect(j.entries.some((e) => e.kind === 'drift')).toBe(false);
    expect(roleTotal(j.entries, 'suspense')).toBe('0');
    expect(roleTotal(j.entries, 'wallet')).toBe(new Decimal(closing).minus(DAY.rollForward.opening!).toFixed());
    expect(roleTotal(j.entries, 'fee_correction')).toBe('80');
    expectBalanced(j.entries);
  });

  it('fees off the contract: their difference moves from fees to fee_difference, the wallet untouched', () => {
    const j = buildJournal({ ...DAY, feeDifference: { total: '12.5', count: 3 } });
    const e = j.entries.find((x) => x.kind === 'fee_difference')!;
    expect(e.lines.map((l) => [l.role, l.amount])).toEqual([
      ['fee_difference', '12.5'],
      ['fees', '-12.5'],
    ]);
    expect(roleTotal(j.entries, 'wallet')).toBe(roleTotal(buildJournal(DAY).entries, 'wallet'));
    expectBalanced(j.entries);
  });

  it('short payments: the rest of the receivable on short_payment, so payments clearing holds the whole amount; the wallet untouched', () => {
    const payments = { ...DAY.rollForward.payments, short: { total: '6290350.97', count: 2 } };
    const j = buildJournal({ ...DAY, rollForward: { ...DAY.rollForward, payments } });
    const e = j.entries.find((x) => x.kind === 'short_payment')!;
    expect(e.lines.map((l) => [l.role, l.amount, l.sourceRef])).toEqual([
      ['short_payment', '6290350.97', '2 orders'],
      ['payments_clearing', '-6290350.97', '2 orders'],
    ]);
    expect(e.description).toBe('NGN short payments 2026-03-10');
    const paid = roleTotal(buildJournal(DAY).entries, 'payments_clearing');
    expect(roleTotal(j.entries, 'payments_clearing')).toBe(new Decimal(paid).minus('6290350.97').toFixed());
    expect(roleTotal(j.entries, 'wallet')).toBe(roleTotal(buildJournal(DAY).entries, 'wallet'));
    expectBalanced(j.entries);
  });

  it('a negative drift debits suspense and credits the wallet', () => {
    const j = buildJournal({ ...DAY, rollForward: { ...DAY.rollForward, closing: '1015575.24', drift: '-2000' } });
    expect(j.entries.at(-1)!.lines.map((l) => [l.role, l.amount])).toEqual([
      ['wallet', '-2000'],
      ['suspense', '2000'],
    ]);
  });

  it('a day whose balances were not checked has no journal and says so; no rate gives no USDT', () => {
    const j = buildJournal({ ...DAY, rollForward: { ...DAY.rollForward, closing: null, drift: null } });
    expect(j.entries).toEqual([]);
    expect(j.note).toContain('balances not checked');
    const unrated = buildJournal({ ...DAY, rate: null });
    expect(unrated.entries.flatMap((e) => e.lines).every((l) => l.usdt === null && l.usdtRate === null)).toBe(true);
  });

  it('unreadable money throws naming the field', () => {
    expect(() =>
      buildJournal({ ...DAY, rollForward: { ...DAY.rollForward, payments: { paidAmount: '1e3', fee: '0', count: 1 } } }),
    ).toThrow(/payments.paidAmount/);
  });
});
