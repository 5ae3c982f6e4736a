import { Decimal, isCurrency } from '../money/decimal.ts';
import { COLUMN } from './columns.ts';
import type { SnapshotRollForward } from '../snapshot/rollforward.ts';
import type { Table, TableRow, TableSpec } from '../tabular/table.ts';

/**
 * The day's settlement roll-forward (design: Settlement roll-forward), per currency, from the
 * day's first to its last balance snapshot, in every output: summary_rollforward.csv and
 * timing_items.csv, the workbook's Roll-forward sheet, report.html and the e-mail.
 *
 * The row adds up on its face: opening + movement by orders + timing movement = expected closing;
 * drift = closing − expected closing. Movement by orders counts only orders certainly final between
 * the two balance readings; the timing items (orders whose finality interval overlaps a reading, so
 * they may lie on either side) are counted apart, and listed one by one in the timing items table
 * with the side the roll-forward counted them on.
 */
export const ROLLFORWARD_SUMMARY: TableSpec = {
  name: 'summary_rollforward',
  title: 'Roll-forward per currency',
  columns: [
    COLUMN.currency,
    { name: 'opening_at', kind: 'datetime', label: 'opening snapshot' },
    { name: 'opening', kind: 'amount' },
    { name: 'payments_in', kind: 'amount', label: 'payments in' },
    { name: 'payouts_out', kind: 'amount', label: 'payouts out' },
    { name: 'explained_movement', kind: 'amount', label: 'movement by orders' },
    { name: 'movements', kind: 'amount', label: 'explained by movements' },
    { name: 'timing_items', kind: 'count', label: 'timing items' },
    { name: 'timing_movement', kind: 'amount', label: 'timing movement' },
    { name: 'expected_closing', kind: 'amount', label: 'expected closing' },
    { name: 'closing_at', kind: 'datetime', label: 'closing snapshot' },
    { name: 'closing', kind: 'amount' },
    { name: 'drift', kind: 'amount' },
    { name: 'tolerance', kind: 'amount' },
    { name: 'within_tolerance', kind: 'text', label: 'within tolerance' },
    { name: 'note', kind: 'text' },
  ],
  notes: [
    'Balances are available + pending + held (credit is a facility, not funds). payments in = Σ(paid − fee), payouts out = Σ(amount + fee) of orders certainly final between the two snapshots; movement by orders = payments in − payouts out.',
    'explained by movements: recorded, approved top-ups (+), withdrawals (−) and provider adjustments certainly between the two snapshots.',
    'Timing items: orders that may have become final, or movements that may have landed, on either side of a snapshot. timing movement sums those counted in the day (listed under timing items). expected closing = opening + movement by orders + explained by movements + timing movement; drift = closing − expected closing.',
  ],
};

export const TIMING_ITEMS: TableSpec = {
  name: 'timing_items',
  title: 'Timing items of the roll-forward',
  columns: [
    COLUMN.currency,
    COLUMN.direction,
    COLUMN.merchant_ref,
    { name: 'effect', kind: 'amount', label: 'balance effect' },
    { name: 'last_seen_open_at', kind: 'datetime', label: 'last seen open' },
    { name: 'first_seen_final_at', kind: 'datetime', label: 'first seen final' },
    { name: 'straddles', kind: 'text', label: 'straddles snapshot' },
    { name: 'counted_in_day', kind: 'text', label: "counted in the day's movement" },
  ],
  notes: [
    "An order's finality lies between the last check that saw it open and the first that saw it final; when that interval overlaps a balance snapshot the order may be on either side. The roll-forward counts each where the drift is smallest.",
    'balance effect: payments paid − fee, payouts −(amount + fee).',
  ],
};

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const sumOf = (v: string | null | undefined) => (v === null || v === undefined ? new Decimal(0) : new Decimal(v));

export function rollForwardTable(currencies: readonly string[], results: ReadonlyMap<string, SnapshotRollForward | null>): Table {
  const width = ROLLFORWARD_SUMMARY.columns.length;
  const rows: TableRow[] = currencies.map((c) => {
    const r = results.get(c) ?? null;
    if (r === null || !isCurrency(c)) return [c, ...new Array<null>(width - 2).fill(null), 'currency not reconciled by payrecon'];
    // Without both snapshots nothing moved between them: the movement columns stay empty, the note says why.
    const checked = r.sums !== null;
    const paymentsIn = sumOf(r.sums?.payments.paidAmount).minus(sumOf(r.sums?.payments.fee));
    const payoutsOut = sumOf(r.sums?.payouts.amount).plus(sumOf(r.sums?.payouts.fee));
    return [
      c,
      r.openingAt ? r.openingAt.getTime() : null,
      r.openingTotal,
      checked ? paymentsIn.toFixed() : null,
      checked ? payoutsOut.toFixed() : null,
      checked ? r.explainedMovement : null,
      checked ? r.movementsMovement : null,
      checked ? r.timingItems.length : null,
      checked ? r.timingMovement : null,
      r.expectedClosing,
      r.closingAt ? r.closingAt.getTime() : null,
      r.closingTotal,
      r.drift,
      r.tolerance,
      r.withinTolerance === null ? null : r.withinTolerance ? 'yes' : 'NO',
      r.note ?? null,
    ];
  });
  return {
    ...ROLLFORWARD_SUMMARY,
    rows,
  };
}

/** Every timing item of the day's roll-forwards, by currency, then finality interval, then ref. */
export function timingItemsTable(currencies: readonly string[], results: ReadonlyMap<string, SnapshotRollForward | null>): Table {
  const rows: TableRow[] = [];
  for (const c of currencies) {
    const items = [...(results.get(c)?.timingItems ?? [])].sort(
      (a, b) =>
        a.from.getTime() - b.from.getTime() ||
        a.to.getTime() - b.to.getTime() ||
        byText(a.merchantRef, b.merchantRef) ||
        byText(a.direction, b.direction) ||
        Number(BigInt(a.orderId) - BigInt(b.orderId)),
    );
    for (const i of items)
      rows.push([c, i.direction, i.merchantRef, i.effect, i.from.getTime(), i.to.getTime(), i.straddles, i.assignedIn ? 'yes' : 'no']);
  }
  return {
    ...TIMING_ITEMS,
    rows,
    ...(rows.length === 0 ? { notes: ['No timing items: every order final between the snapshots is certainly on one side of each.'] } : {}),
  };
}
