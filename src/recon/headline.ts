import type { Currency } from '../money/decimal.ts';
import type { Amount } from '../domain/types.ts';
import { groupedAmount } from './format.ts';
import type { ReportVerdict } from '../domain/verdicts.ts';

/**
 * The one line a report is known by: the summary's headline row and the e-mail subject.
 * Choices, for accounting:
 * - It says what holds, never more. "all matched" only when the day has orders, every one was
 *   checked and is matched or resolved, and no currency drifted beyond tolerance.
 * - A day with no orders says "no orders"; a day nobody checked says "K orders not yet reconciled".
 * - Mismatches are always stated once anything was checked (0 is news too); errors, pending and
 *   unchecked orders only when there are some.
 * - Open items and late changes of earlier days follow after a semicolon: they are not this day's.
 * - A day not over yet (today) says so first, since every figure may still move.
 * - Orders the provider confirmed and the merchant has no record of (UNKNOWN_ORDER) are mismatches
 *   of the day they were notified: they count among the mismatches and are named, since no order
 *   count includes them, and a day with any is never "all matched".
 * - A day whose balances were not checked (fewer than two snapshots in its window) is never "all
 *   matched" either: the orders may agree while money went missing, so it says "balances not checked"
 *   where it would have said "all matched" (any other headline already says what is wrong).
 */
/** A currency's roll-forward drift beyond tolerance, as the headline names it. */
export interface Drift {
  currency: Currency;
  drift: Amount;
}

export interface HeadlineFacts {
  orders: number;
  verdicts: Record<ReportVerdict, number>;
  /** Currencies whose roll-forward drift is beyond tolerance. */
  drifts: readonly Drift[];
  partial: boolean;
  openItems: number;
  lateChanges: number;
  /** UNKNOWN_ORDER findings of the day (none when left out). */
  unknownOrders?: number;
  /**
   * Currencies whose roll-forward was not checked (fewer than two snapshots in the window): 'all'
   * when none was, else the list (empty or left out: every balance was checked).
   */
  balancesNotChecked?: 'all' | readonly Currency[];
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

export function reportHeadline(f: HeadlineFacts): string {
  const v = f.verdicts;
  const unknown = f.unknownOrders ?? 0;
  const mismatches = () =>
    plural(v.mismatch + unknown, 'mismatch', 'mismatches') +
    (unknown > 0 ? ` (${plural(unknown, 'unknown order', 'unknown orders')})` : '');
  const nc = f.balancesNotChecked ?? [];
  const unchecked = nc === 'all' || nc.length > 0;
  const parts: string[] = [];
  if (f.orders === 0 || v.unchecked === f.orders) {
    parts.push(f.orders === 0 ? 'no orders' : `${plural(f.orders, 'order', 'orders')} not yet reconciled`);
    if (unknown > 0) parts.push(mismatches());
  } else {
    parts.push(plural(f.orders, 'order', 'orders'));
    const clean = v.mismatch === 0 && unknown === 0 && v.error === 0 && v.pending === 0 && v.unchecked === 0 && f.drifts.length === 0;
    if (clean && !unchecked) parts.push('all matched');
    else if (clean) parts.push('0 mismatches', nc === 'all' ? 'balances not checked' : `${nc.join(', ')} balances not checked`);
    else {
      parts.push(mismatches());
      if (v.error > 0) parts.push(plural(v.error, 'error', 'errors'));
      if (v.pending > 0) parts.push(`${v.pending} pending`);
      if (v.unchecked > 0) parts.push(`${v.unchecked} not yet reconciled`);
    }
  }
  for (const d of f.drifts) parts.push(`${d.currency} drift ${groupedAmount(d.drift, d.currency)}`);
  const earlier: string[] = [];
  if (f.openItems > 0) earlier.push(`${plural(f.openItems, 'open item', 'open items')} from earlier days`);
  if (f.lateChanges > 0) earlier.push(plural(f.lateChanges, 'late change', 'late changes'));
  const line = parts.join(', ') + (earlier.length ? `; ${earlier.join(', ')}` : '');
  return f.partial ? `day not over, so far: ${line}` : line;
}
