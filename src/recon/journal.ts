import { Decimal, normalizeDecimal, type Currency } from '../money/decimal.ts';
import type { Amount, Direction } from '../domain/types.ts';
import { readAmount } from './amounts.ts';
import { usdtValues, type DayRate } from './journal-usdt.ts';
import type { JournalEntry, JournalKind, JournalLine } from './journal-types.ts';
import type { JournalRole } from '../domain/journal-roles.ts';
import type { TimingSource } from './timing-items.ts';
import { movementEntries, type JournalMovement } from './journal-movements.ts';

/**
 * The double-entry journal of one business day's provider activity (see docs/guides/for-accounting.md).
 * Lines carry a role, mapped to the merchant's chart of accounts when rendered. Entries: one per
 * currency and kind; a late change (a reversal, a fee correction) is an entry of its own naming
 * the original day and order. Every entry balances per currency; the wallet lines of a currency
 * sum to the roll-forward's closing − opening.
 */
/** A change to an order of an earlier day, observed in this day's window. */
export interface LateChange {
  kind: 'reversal' | 'fee_correction';
  direction: Direction;
  merchantRef: string;
  orderId: string;
  /** The business day the order's success was counted in (its finality). */
  countedOn: string;
  /** When a check first saw the change (ISO). */
  observedAt: string;
  /** The business day the order was first reported final on. */
  originalDate: string;
  /** The change of the balance: a reversed payment −(paid − fee); a fee raised by x, −x. */
  walletEffect: Amount;
}

export interface JournalDayInput {
  date: string;
  currency: Currency;
  /** The day's roll-forward (provider values); null drift means balances not checked: no journal. */
  rollForward: {
    opening: Amount | null;
    closing: Amount | null;
    /** short: Σ (amount − paid) over the payments paid below the merchant's amount, and how many. */
    payments: { paidAmount: Amount | null; fee: Amount | null; count: number; short?: { total: Amount; count: number } };
    payouts: { amount: Amount | null; fee: Amount | null; count: number };
    /** Movement timing items are posted with the movements, not here. */
    timingItems: ReadonlyArray<{ direction: TimingSource; merchantRef: string; effect: Amount; assignedIn: boolean }>;
    /** Recorded, approved movements the roll-forward counted in the window (timing items among them). */
    movements?: readonly JournalMovement[];
    drift: Amount | null;
  };
  late?: readonly LateChange[];
  /** Provider fee − contracted fee, summed over the day's orders off the fee schedule. */
  feeDifference?: { total: Amount; count: number } | null;
  /** The day's closing rate snapshot; null gives no USDT figures. */
  rate: DayRate | null;
}

export interface JournalDay {
  date: string;
  currency: Currency;
  entries: JournalEntry[];
  /** Why there are no entries (balances not checked), or null. */
  note: string | null;
}

type Draft = Omit<JournalLine, 'usdtRate' | 'usdt'>;

const D = (v: Amount | null, what: string): Decimal => {
  if (v === null) return new Decimal(0);
  const d = readAmount(v);
  if (d === null) throw new RangeError(`journal ${what}: expected decimal text (got ${JSON.stringify(v)})`);
  return d;
};
const line = (role: JournalRole, amount: Decimal, description: string, sourceRef: string): Draft => ({
  role,
  amount: normalizeDecimal(amount),
  description,
  sourceRef,
});
const count = (n: number) => `${n} order${n === 1 ? '' : 's'}`;

/** The day's journal for one currency. Pure: every figure comes in; bad numbers throw (RangeError). */
export function buildJournal(input: JournalDayInput): JournalDay {
  const { date, currency, rollForward: rf } = input;
  if (rf.drift === null || rf.opening === null || rf.closing === null) {
    // Days tile, so what moved here is posted on the next day with two snapshots.
    return { date, currency, entries: [], note: `${currency}: balances not checked; no journal (posted with the next checked day)` };
  }
  const entries: JournalEntry[] = [];
  const add = (kind: JournalKind, suffix: string, description: string, drafts: Draft[], inflow: boolean) => {
    const lines = drafts.filter((l) => !new Decimal(l.amount).isZero());
    if (lines.length === 0) return;
    const id = `${date}-${currency}-${suffix}`;
    const key = `day:${date}:${currency}:${suffix}`;
    entries.push({ key, id, date, currency, kind, description, lines: usdtValues(lines, input.rate, inflow, description) });
  };

  const p = rf.payments;
  const paid = D(p.paidAmount, 'payments.paidAmount');
  const pFee = D(p.fee, 'payments.fee');
  add(
    'payments',
    'payments',
    `${currency} payments final ${date}`,
    [
      line('wallet', paid.minus(pFee), 'collected less the provider fee', count(p.count)),
      line('fees', pFee, 'provider fees on payments', count(p.count)),
      line('payments_clearing', paid.negated(), 'paid by payers', count(p.count)),
    ],
    true,
  );

  const q = rf.payouts;
  const sent = D(q.amount, 'payouts.amount');
  const qFee = D(q.fee, 'payouts.fee');
  add(
    'payouts',
    'payouts',
    `${currency} payouts final ${date}`,
    [
      line('payouts_clearing', sent, 'sent to beneficiaries', count(q.count)),
      line('fees', qFee, 'provider fees on payouts', count(q.count)),
      line('wallet', sent.plus(qFee).negated(), 'paid out plus the provider fee', count(q.count)),
    ],
    false,
  );

  // Orders final around a snapshot that the roll-forward counted in this window: the balance moved
  // by them here, so the wallet does too; their clearing side is the timing role until the merchant's
  // books meet them.
  const timing = rf.timingItems.filter((t) => t.assignedIn && t.direction !== 'movement');
  const timingLines = timing.flatMap((t) => {
    const e = D(t.effect, `timing item ${t.merchantRef}`);
    return [
      line('wallet', e, `${t.direction} final at a snapshot, counted in this day`, t.merchantRef),
      line('timing', e.negated(), `${t.direction} final at a snapshot, counted in this day`, t.merchantRef),
    ];
  });
  const timingNet = timing.reduce((acc, t) => acc.plus(D(t.effect, 'timing')), new Decimal(0));
  add('timing', 'timing', `${currency} timing items counted ${date}`, timingLines, !timingNet.isNegative());

  // Top-ups, withdrawals, ... that moved the balance in this window: their own entries, never suspense.
  entries.push(...movementEntries(date, currency, rf.movements ?? [], input.rate));

  let lateNet = new Decimal(0);
  for (const c of input.late ?? []) {
    lateNet = lateNet.plus(D(c.walletEffect, `late change ${c.merchantRef}`));
    const e = lateEntry(c, currency, date, input.rate);
    if (e) entries.push(e);
  }

  if (input.feeDifference) {
    // The fees lines post what the provider charged; this moves the part off the contract out of
    // fees expense into a claim on the provider (or back, when it charged less).
    const diff = D(input.feeDifference.total, 'feeDifference.total');
    add(
      'fee_difference',
      'fee-difference',
      `${currency} provider fees off the contract ${date}`,
      [
        line('fee_difference', diff, 'charged above the contracted fee', count(input.feeDifference.count)),
        line('fees', diff.negated(), 'charged above the contracted fee', count(input.feeDifference.count)),
      ],
      true,
    );
  }

  const shortPayment = rf.payments.short;
  if (shortPayment) {
    // The payments entry credits clearing with what was paid; the merchant's order system clears it
    // against the receivable of the whole amount. This credits the rest, so clearing meets the
    // receivable order by order, and carries the shortfall as owed by payers (or to write off).
    const short = D(shortPayment.total, 'payments.short.total');
    add(
      'short_payment',
      'short-payment',
      `${currency} short payments ${date}`,
      [
        line('short_payment', short, 'owed by payers', count(shortPayment.count)),
        line('payments_clearing', short.negated(), 'rest of receivables', count(shortPayment.count)),
      ],
      true,
    );
  }

  // The roll-forward does not count late changes in its explained movement, so its drift holds them;
  // what a known late change explains is posted there, the rest (and only that) to suspense.
  const drift = D(rf.drift, 'drift').minus(lateNet);
  add(
    'drift',
    'drift',
    `${currency} balance drift ${date}: movement no order explains`,
    [line('wallet', drift, 'balance drift', 'roll-forward'), line('suspense', drift.negated(), 'balance drift', 'roll-forward')],
    !drift.isNegative(),
  );

  return { date, currency, entries, note: null };
}

/**
 * A late change's own entry, dated `date` (the day whose window observed it), keyed by its order so
 * the ledger posts it once whichever report carries it first; null when it moves nothing.
 */
export function lateEntry(c: LateChange, currency: Currency, date: string, rate: DayRate | null): JournalEntry | null {
  const e = D(c.walletEffect, `late change ${c.merchantRef}`);
  if (e.isZero()) return null;
  const what =
    c.kind === 'reversal'
      ? `reversal of ${c.direction} ${c.merchantRef} of ${c.originalDate}`
      : `fee correction of ${c.direction} ${c.merchantRef} of ${c.originalDate}`;
  const description = `${currency} ${what}, seen ${date}`;
  return {
    key: `late:${c.kind}:${c.direction}:${c.orderId}`,
    id: `${date}-${currency}-${c.kind}-${c.merchantRef}`,
    date,
    currency,
    kind: 'late',
    description,
    lines: usdtValues(
      [line('wallet', e, what, c.merchantRef), line(c.kind, e.negated(), what, c.merchantRef)],
      rate,
      !e.isNegative(),
      description,
    ),
    late: { direction: c.direction, orderId: c.orderId, countedOn: c.countedOn, observedAt: c.observedAt },
  };
}

/** Σ of one role's lines of a day's entries, as canonical decimal text. */
export function roleTotal(entries: readonly JournalEntry[], role: JournalRole): string {
  let sum = new Decimal(0);
  for (const e of entries) for (const l of e.lines) if (l.role === role) sum = sum.plus(l.amount);
  return normalizeDecimal(sum);
}
