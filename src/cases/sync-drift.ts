import type { Knex } from '../db/knex-types.ts';
import { driftSubject } from '../db/cases.ts';

/** A roll-forward between two snapshots of a currency, as the snapshot job computed it. */
export interface DriftCheck {
  currency: string;
  opening: { id: string; takenAt: Date } | null;
  closing: { id: string; takenAt: Date } | null;
  withinTolerance: boolean | null;
  expectedClosing: string | null;
  closingTotal: string | null;
  drift: string | null;
  tolerance: string;
  finding: { note?: string } | null;
  /** The window's account, set only when several are configured: its cases are that account's. */
  account?: string;
}
import { observeCase, type ObserveResult } from './observe.ts';

/**
 * The BALANCE_DRIFT case of one currency and snapshot window, in the caller's transaction: drift
 * beyond tolerance opens (or reopens) it; the same window checked again within tolerance (the drift
 * explained, e.g. by orders that became final late) clears it. Null when the check could not be made.
 */
export async function syncDriftCase(trx: Knex.Transaction, rf: DriftCheck, at: Date): Promise<ObserveResult | null> {
  if (!rf.opening || !rf.closing || rf.withinTolerance === null) return null;
  const subject = {
    subject: driftSubject(rf.currency, rf.opening.takenAt, rf.closing.takenAt, rf.account),
    code: 'BALANCE_DRIFT',
    ...(rf.account !== undefined ? { accountId: rf.account } : {}),
    currency: rf.currency,
    windowStart: rf.opening.takenAt,
    windowEnd: rf.closing.takenAt,
    occurredAt: rf.closing.takenAt,
  };
  if (rf.withinTolerance) return observeCase(trx, subject, { kind: 'consistent' }, at);
  return observeCase(trx, subject, { kind: 'finding' }, at, {
    local: rf.expectedClosing,
    provider: rf.closingTotal,
    note: rf.finding?.note ?? `drift ${rf.drift}`,
    drift: rf.drift,
    tolerance: rf.tolerance,
    openingSnapshotId: rf.opening.id,
    closingSnapshotId: rf.closing.id,
  });
}
