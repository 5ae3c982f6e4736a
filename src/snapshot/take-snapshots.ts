import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { accountLockName, withJobLock } from '../db/locks.ts';
import { createRun, finishRun, type RunStatus } from '../db/runs.ts';
import {
  insertBalanceSnapshot,
  insertRateSnapshot,
  previousBalanceSnapshot,
  previousRate,
  unexplainedWindows,
  type BalanceSnapshot,
  type RateSnapshot,
} from '../db/snapshots.ts';
import { insertBalanceCheck, rejudgeBalanceCheck } from '../db/settlement.ts';
import { Decimal, type Currency } from '../money/decimal.ts';
import { CredentialsError } from '../provider/errors.ts';
import type { Balance, UsdtRate } from '../provider/types.ts';
import { flagRate, type RateFlag } from '../recon/rates.ts';
import type { Finding } from '../recon/types.ts';
import { describeFailures, runStatusOf, unitFailure, type UnitFailure } from './outcome.ts';
import { toleranceFor, type SnapshotPolicy } from './policy.ts';
import { snapshotRollForward, type SnapshotRollForward } from './rollforward.ts';
import { syncDriftCase } from '../cases/sync-drift.ts';
import { syncDriftHint, syncUnseenMovements } from '../cases/sync-drift-hint.ts';
import { countCode } from '../recon/run-counts.ts';
import { messageOf } from '../domain/errors.ts';

export const SNAPSHOT_JOB = 'snapshot';

export interface SnapshotDeps {
  db: Db;
  client: { balance(currency: Currency): Promise<Balance>; usdtRate(currency: Currency): Promise<UsdtRate> };
  policy: SnapshotPolicy;
  /** requested_at and taken_at of each snapshot: read right before the balance request and right after its answer. */
  clock: () => Date;
  logger: Logger;
  /**
   * Checks the open orders just before the balances are read and again right after, so that few
   * orders' finality intervals straddle the readings (those few become timing items). Optional: without
   * it the intervals are whatever the reconcile runs left, and more orders become timing items.
   */
  checkOpenOrders?: (phase: 'before' | 'after') => Promise<void>;
  /**
   * Set when several accounts are configured: the snapshots, rates and windows are this account's own
   * history, and only its orders explain its balance. Undefined (one account): nothing filtered, as before.
   */
  account?: string;
}

export interface RateResult extends RateSnapshot {
  flags: RateFlag[];
  notes: string[];
  unchangedSince: Date;
}

export interface CurrencySnapshot {
  currency: Currency;
  balance: BalanceSnapshot | null;
  rate: RateResult | null;
  /** Against the previous snapshot of the currency; null when this one was not stored. */
  rollForward: SnapshotRollForward | null;
  /** The BALANCE_DRIFT case of the window, when the roll-forward found drift. */
  driftCase: { id: string; state: string } | null;
}

/** What a later alert step raises: one entry per flagged rate, one per drift beyond tolerance. */
export interface RateFlagFinding {
  currency: Currency;
  flags: RateFlag[];
  notes: string[];
  rateSnapshotId: string;
}

export interface DriftFinding {
  currency: Currency;
  finding: Finding;
  drift: string;
  tolerance: string;
  openingSnapshotId: string;
  closingSnapshotId: string;
  openingTakenAt: Date;
  closingTakenAt: Date;
  /** The window's case; an alert is raised only while it is open (nobody acknowledged it). */
  caseId: string | null;
  caseState: string | null;
}

export interface SnapshotResult {
  status: Exclude<RunStatus, 'running'> | 'skipped';
  runId: string | null;
  currencies: CurrencySnapshot[];
  rateFlags: RateFlagFinding[];
  drift: DriftFinding[];
  failures: UnitFailure[];
  error: string | null;
}

/**
 * `payrecon snapshot`: under the job lock, one run that stores each currency's balance and USDT
 * rate exactly as sent, flags the rate, and rolls the balance forward from the previous snapshot.
 * A currency that fails is recorded and the others go on; refused credentials stop the run.
 */
export async function takeSnapshots(deps: SnapshotDeps, currencies: readonly Currency[]): Promise<SnapshotResult> {
  // Accounts' snapshots are separate histories, so each account has its own lock (one account: the job's).
  const locked = await withJobLock(deps.db, accountLockName(SNAPSHOT_JOB, deps.account), () => runSnapshots(deps, currencies));
  if (locked.acquired) return locked.result!;
  deps.logger.info('another snapshot run holds the lock; skipping');
  return { status: 'skipped', runId: null, currencies: [], rateFlags: [], drift: [], failures: [], error: null };
}

async function runSnapshots(deps: SnapshotDeps, currencies: readonly Currency[]): Promise<SnapshotResult> {
  const { db, logger } = deps;
  const params = { currencies, policy: deps.policy, ...(deps.account !== undefined ? { account: deps.account } : {}) };
  const run = await createRun(db.knex, SNAPSHOT_JOB, params, { dryRun: false, now: deps.clock(), accountId: deps.account });
  const failures: UnitFailure[] = [];
  const done: CurrencySnapshot[] = [];
  const result = (status: SnapshotResult['status'], error: string | null): SnapshotResult => ({
    status,
    runId: run.id,
    currencies: done,
    rateFlags: done.flatMap((c) =>
      c.rate && c.rate.flags.length > 0
        ? [{ currency: c.currency, flags: c.rate.flags, notes: c.rate.notes, rateSnapshotId: c.rate.id }]
        : [],
    ),
    drift: done.flatMap((c) => (c.rollForward?.finding ? [driftOf(c.rollForward, c.driftCase)] : [])),
    failures,
    error,
  });
  try {
    await checkOpen(deps, 'before');
    for (const currency of currencies) done.push(await snapshotCurrency(deps, run.id, currency, failures));
    await checkOpen(deps, 'after');
    for (const c of done) {
      if (!c.balance) continue;
      // Earlier windows first: the new window is judged with every order known by now.
      await rejudgeWindows(deps, run.id, c.currency);
      await rollForwardCurrency(deps, run.id, c);
    }
  } catch (err) {
    const credentials = err instanceof CredentialsError;
    const error = messageOf(err);
    await finishRun(db.knex, run.id, credentials ? 'credentials' : 'failed', countsOf(result('failed', null)), error, deps.clock());
    if (credentials) return result('credentials', error);
    throw err;
  }
  const status = runStatusOf(failures, currencies.length);
  const out = result(status, describeFailures(failures));
  await finishRun(db.knex, run.id, status, countsOf(out), out.error, deps.clock());
  logger.info({ runId: run.id, status, counts: countsOf(out) }, 'snapshots taken');
  return out;
}

/** One currency: its balance and its rate, each stored on its own if the other fails. */
async function snapshotCurrency(deps: SnapshotDeps, runId: string, currency: Currency, failures: UnitFailure[]): Promise<CurrencySnapshot> {
  const out: CurrencySnapshot = { currency, balance: null, rate: null, rollForward: null, driftCase: null };
  const requestedAt = deps.clock();
  const balance = await attempt(() => deps.client.balance(currency), currency, 'balance', failures, deps.logger);
  if (balance) {
    out.balance = await insertBalanceSnapshot(deps.db.knex, {
      runId,
      currency,
      available: balance.available,
      pending: balance.pending,
      held: balance.held,
      credit: balance.credit,
      takenAt: deps.clock(),
      requestedAt,
      accountId: deps.account,
    });
  }
  const rate = await attempt(() => deps.client.usdtRate(currency), currency, 'usdtRate', failures, deps.logger);
  if (rate) {
    const takenAt = deps.clock();
    const previous = await previousRate(deps.db.knex, currency, takenAt, deps.account);
    const check = flagRate(previous, { deposit: rate.deposit, withdraw: rate.withdraw, takenAt }, deps.policy.rates);
    const stored = await insertRateSnapshot(deps.db.knex, {
      runId,
      currency,
      deposit: rate.deposit,
      withdraw: rate.withdraw,
      takenAt,
      flags: check.flags,
      accountId: deps.account,
    });
    out.rate = { ...stored, flags: check.flags, notes: check.notes, unchangedSince: check.unchangedSince };
  }
  return out;
}

/**
 * Rolls the balance forward from the previous snapshot, once the open orders were re-checked after
 * the reading; the figures are stored in balance_checks.
 */
async function rollForwardCurrency(deps: SnapshotDeps, runId: string, out: CurrencySnapshot): Promise<void> {
  const closing = out.balance!;
  // The roll-forward, its stored check and its drift case commit together.
  await deps.db.knex.transaction(async (trx) => {
    const opening = await previousBalanceSnapshot(trx, closing, deps.account);
    if (!opening) return;
    const checkedAt = deps.clock();
    out.rollForward = await snapshotRollForward(trx, {
      currency: closing.currency,
      opening,
      closing,
      tolerance: toleranceFor(deps.policy, closing.currency),
      movementLagMs: deps.policy.movementLagMs,
      account: deps.account,
    });
    await storeCheck(trx, runId, out.rollForward, checkedAt, insertBalanceCheck, deps.account);
    // The window's cases are its account's (several configured; one: deps.account unset, as before).
    const window = { ...out.rollForward, account: deps.account };
    const drift = await syncDriftCase(trx, window, checkedAt);
    await syncDriftHint(trx, window, checkedAt, deps.policy.movementLagMs);
    await syncUnseenMovements(trx, window, checkedAt);
    if (drift?.case && out.rollForward.finding) {
      out.driftCase = { id: drift.case.id, state: drift.outcome === 'opened' || drift.outcome === 'moved' ? 'open' : drift.case.state };
    }
  });
}

/** How far back an unexplained window is judged again: the reconcile lookback's default. */
export const REJUDGE_DAYS = 30;

/**
 * Judges again each earlier window of the currency still standing as drift, with the orders as they are
 * now: an order recorded after the snapshot that closed the window of its finality, or whose provider
 * status no check had seen then, explains it once a check says (issue 43). A changed judgement updates the
 * window's balance_checks row (keeping the drift first judged) and moves its case (cleared when explained); it raises no new alert.
 */
async function rejudgeWindows(deps: SnapshotDeps, runId: string, currency: Currency): Promise<void> {
  const since = new Date(deps.clock().getTime() - REJUDGE_DAYS * 86_400_000);
  for (const w of await unexplainedWindows(deps.db.knex, currency, since, deps.account)) {
    await deps.db.knex.transaction(async (trx) => {
      const checkedAt = deps.clock();
      const rf = await snapshotRollForward(trx, {
        currency,
        opening: w.opening,
        closing: w.closing,
        tolerance: toleranceFor(deps.policy, currency),
        movementLagMs: deps.policy.movementLagMs,
        account: deps.account,
      });
      if (rf.withinTolerance === false && new Decimal(rf.drift!).equals(w.drift)) return;
      await storeCheck(trx, runId, rf, checkedAt, rejudgeBalanceCheck);
      const window = { ...rf, account: deps.account };
      await syncDriftCase(trx, window, checkedAt);
      // A movement recorded (or approved) since explains the window now: its companion case clears too.
      await syncDriftHint(trx, window, checkedAt, deps.policy.movementLagMs);
      deps.logger.info({ currency, opening: w.opening.id, closing: w.closing.id, was: w.drift, drift: rf.drift }, 'window judged again');
    });
  }
}

/** The open-order check around the readings: a failure leaves wider intervals (more timing items), not a failed run. */
async function checkOpen(deps: SnapshotDeps, phase: 'before' | 'after'): Promise<void> {
  if (!deps.checkOpenOrders) return;
  try {
    await deps.checkOpenOrders(phase);
  } catch (err) {
    if (err instanceof CredentialsError) throw err;
    deps.logger.warn({ phase, err: messageOf(err) }, 'checking the open orders around the balance readings failed');
  }
}

/** A provider call whose failure is this currency's alone; credentials refused is everyone's, so it propagates. */
async function attempt<T>(
  fn: () => Promise<T>,
  currency: Currency,
  step: string,
  failures: UnitFailure[],
  logger: Logger,
): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof CredentialsError) throw err;
    failures.push(unitFailure(currency, step, err));
    logger.warn({ currency, step, err: messageOf(err) }, 'snapshot step failed');
    return null;
  }
}

async function storeCheck(
  trx: Parameters<typeof insertBalanceCheck>[0],
  runId: string,
  rf: SnapshotRollForward,
  checkedAt: Date,
  write: typeof insertBalanceCheck = insertBalanceCheck,
  accountId?: string,
): Promise<void> {
  // Only called with both snapshots present, so every figure below is set.
  await write(trx, {
    runId,
    ...(accountId !== undefined ? { accountId } : {}),
    currency: rf.currency,
    openingSnapshotId: rf.opening!.id,
    closingSnapshotId: rf.closing!.id,
    openingTotal: rf.openingTotal!,
    explainedMovement: rf.explainedMovement,
    expectedClosing: rf.expectedClosing!,
    closingTotal: rf.closingTotal!,
    drift: rf.drift!,
    tolerance: rf.tolerance,
    withinTolerance: rf.withinTolerance!,
    paymentsCount: rf.sums!.payments.count,
    payoutsCount: rf.sums!.payouts.count,
    timingItems: rf.timingItems,
    timingMovement: rf.timingMovement,
    movementsMovement: rf.movementsMovement,
    movementsCount: rf.movements.filter((m) => !m.timing).length,
    checkedAt,
  });
}

function driftOf(rf: SnapshotRollForward, driftCase: CurrencySnapshot['driftCase']): DriftFinding {
  return {
    caseId: driftCase?.id ?? null,
    caseState: driftCase?.state ?? null,
    currency: rf.currency,
    finding: rf.finding!,
    drift: rf.drift!,
    tolerance: rf.tolerance,
    openingSnapshotId: rf.opening!.id,
    closingSnapshotId: rf.closing!.id,
    openingTakenAt: rf.opening!.takenAt,
    closingTakenAt: rf.closing!.takenAt,
  };
}

function countsOf(r: SnapshotResult): Record<string, number> {
  const counts: Record<string, number> = {
    balances: r.currencies.filter((c) => c.balance).length,
    rates: r.currencies.filter((c) => c.rate).length,
    failed: r.failures.length,
  };
  countCode(counts, 'BALANCE_DRIFT', r.drift.length);
  for (const f of r.rateFlags) for (const flag of f.flags) countCode(counts, flag);
  return counts;
}
