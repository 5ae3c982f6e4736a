import { scrub } from '../config/redact.ts';
import type { Db } from '../db/connect.ts';
import { insertAlert, latestLiveAlert, supersedePendingAlerts, type AlertRecord } from '../db/alerts.ts';
import { alertFingerprint, payloadDigest } from './fingerprint.ts';

export const DEFAULT_REPEAT_AFTER_MS = 24 * 60 * 60 * 1000;

export interface AlertInput {
  /** What sort of problem: mismatches, stale, balance_drift, rate_flags, run_failed. */
  kind: string;
  /** With kind, names the problem across runs (job, currency, ...), never run-specific values. */
  fingerprintParts: readonly string[];
  title: string;
  /** The finding itself (counts per code, first few orders); its digest decides whether it is news. */
  payload: unknown;
  runId?: string | null;
  /** The account the finding is of; unset: "default" (the single account). */
  accountId?: string;
  /** The cases behind the alert: it is resolved when they all are (src/notify/resolve-alerts.ts). */
  caseIds?: readonly string[];
}

export interface RaiseOptions {
  now: Date;
  /** An unchanged finding is sent again only after this long (ALERT_REPEAT_AFTER_MS); default 24 h. */
  repeatAfterMs?: number;
  /** Secret values to remove from title and payload before they are stored (secretValues(config)). */
  secrets?: readonly string[];
}

export interface RaiseResult {
  alert: AlertRecord;
  /** True when recorded as suppressed: the same finding was sent (or is queued) within the interval. */
  suppressed: boolean;
}

/**
 * Records an alert, pending delivery, unless it repeats news: an alert with the same
 * fingerprint and payload digest that is still queued, or was sent less than repeatAfterMs
 * ago, makes this one `suppressed` (kept as a record). A changed finding supersedes queued
 * older ones of the same fingerprint. Raises of one fingerprint are serialised by a
 * transaction-scoped lock (the engine's, db/engine/) so two jobs cannot both decide "news".
 */
export async function raiseAlert(db: Db, input: AlertInput, opts: RaiseOptions): Promise<RaiseResult> {
  const secrets = opts.secrets ?? [];
  const title = scrub(input.title, secrets);
  const payload = secrets.length ? (JSON.parse(scrub(JSON.stringify(input.payload), secrets)) as unknown) : input.payload;
  const fingerprint = alertFingerprint(input.kind, input.fingerprintParts);
  const digest = payloadDigest(payload);
  const repeatAfter = opts.repeatAfterMs ?? DEFAULT_REPEAT_AFTER_MS;

  return db.knex.transaction(async (tx) => {
    await db.engine.transactionLock(tx, `alert:${fingerprint}`);
    const last = await latestLiveAlert(tx, fingerprint);
    const sameFinding = last !== null && last.payload_digest === digest;
    const recent =
      last !== null && (last.status === 'pending' || (last.sent_at !== null && opts.now.getTime() - last.sent_at.getTime() < repeatAfter));
    const suppressed = sameFinding && recent;
    const alert = await insertAlert(tx, {
      fingerprint,
      kind: input.kind,
      runId: input.runId ?? null,
      ...(input.accountId !== undefined ? { accountId: input.accountId } : {}),
      title,
      payload,
      payloadDigest: digest,
      createdAt: opts.now,
      status: suppressed ? 'suppressed' : 'pending',
      caseIds: input.caseIds ?? [],
    });
    if (!suppressed) await supersedePendingAlerts(tx, fingerprint, alert.id);
    return { alert, suppressed };
  });
}
