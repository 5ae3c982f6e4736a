import type { Knex } from '../db/knex-types.ts';
import { Decimal } from '../money/decimal.ts';
import { driftSubject } from '../db/cases.ts';
import { pendingMovementsEqualTo } from '../db/movements.ts';
import { unmatchedLinesEqualTo } from '../db/statements.ts';
import type { DriftCheck } from './sync-drift.ts';
import { observeCase, type ObserveResult } from './observe.ts';

const DAY_MS = 86_400_000;
const day = (t: Date) => t.toISOString().slice(0, 10);

/**
 * DRIFT_MATCHES_PENDING beside a window's BALANCE_DRIFT (issue 38): the drift equals a movement
 * recorded but not yet approved, or a bank statement line no movement explains. The case names
 * which, and what to do: approve the movement, or record the movement the bank line was. A window
 * checked again without drift, or with no such match any more, clears it.
 */
export async function syncDriftHint(trx: Knex.Transaction, rf: DriftCheck, at: Date, lagMs: number): Promise<ObserveResult | null> {
  if (!rf.opening || !rf.closing || rf.withinTolerance === null) return null;
  const subject = {
    subject: driftSubject(rf.currency, rf.opening.takenAt, rf.closing.takenAt, rf.account),
    code: 'DRIFT_MATCHES_PENDING',
    ...(rf.account !== undefined ? { accountId: rf.account } : {}),
    currency: rf.currency,
    windowStart: rf.opening.takenAt,
    windowEnd: rf.closing.takenAt,
    occurredAt: rf.closing.takenAt,
  };
  const pending =
    rf.withinTolerance || rf.drift === null
      ? []
      : await pendingMovementsEqualTo(trx, {
          currency: rf.currency,
          effect: rf.drift,
          from: rf.opening.takenAt,
          to: rf.closing.takenAt,
          lagMs,
          ...(rf.account !== undefined ? { account: rf.account } : {}),
        });
  const lines =
    rf.withinTolerance || rf.drift === null
      ? []
      : await unmatchedLinesEqualTo(trx, {
          currency: rf.currency,
          effect: rf.drift,
          fromDay: day(new Date(rf.opening.takenAt.getTime() - DAY_MS)),
          toDay: day(new Date(rf.closing.takenAt.getTime() + DAY_MS)),
        });
  if (pending.length === 0 && lines.length === 0) return observeCase(trx, subject, { kind: 'consistent' }, at);
  const says = [
    ...pending.map(
      (p) => `pending movement ${p.reference} (recorded by ${p.recordedBy}; approve it: payrecon movements approve ${p.reference})`,
    ),
    ...lines.map((l) => `bank statement line ${l.bankAccount} ${l.lineId} (record the movement it was: payrecon movements import)`),
  ];
  return observeCase(trx, subject, { kind: 'finding' }, at, {
    provider: rf.drift,
    note: `${rf.currency} drift ${rf.drift} equals ${says.join('; and ')}`,
    drift: rf.drift,
    movements: pending.map((p) => p.reference),
    statementLines: lines.map((l) => `${l.bankAccount}/${l.lineId}`),
  });
}

/**
 * MOVEMENT_UNSEEN (issue 38): an approved movement the window counted (inside it, or a timing item taken
 * in) while the window drifts by exactly its opposite: recorded, but the balance never moved by it
 * within MOVEMENT_LAG_MIN of its moment. One case per movement; a person resolves it (a movement that
 * lands later shows as the opposite drift in a later window, which says so).
 */
export async function syncUnseenMovements(
  trx: Knex.Transaction,
  rf: DriftCheck & { movements: ReadonlyArray<{ reference: string; effect: string }> },
  at: Date,
): Promise<string[]> {
  if (!rf.closing || rf.withinTolerance !== false || rf.drift === null) return [];
  const unseen = rf.movements.filter((m) => new Decimal(m.effect).negated().equals(rf.drift!));
  for (const m of unseen) {
    await observeCase(
      trx,
      {
        // A reference is unique per account: with several, the subject names the account too.
        subject: rf.account !== undefined ? `movement:${rf.account}/${m.reference}` : `movement:${m.reference}`,
        code: 'MOVEMENT_UNSEEN',
        currency: rf.currency,
        occurredAt: rf.closing.takenAt,
        ...(rf.account !== undefined ? { accountId: rf.account } : {}),
      },
      { kind: 'finding' },
      at,
      {
        local: m.effect,
        provider: '0',
        note: `movement ${m.reference} (${m.effect}) is recorded in this window but the balance did not move by it (drift ${rf.drift}): check it was sent, or its moment`,
      },
    );
  }
  return unseen.map((m) => m.reference);
}
