import { DEFAULT_ACCOUNT_ID } from '../domain/account.ts';
import type { Db } from '../db/connect.ts';
import { insertAlert } from '../db/alerts.ts';
import { hasStaleAlerts, lockStaleAlerts, markSummarised, type StaleAlert } from '../db/alerts-undelivered.ts';
import { alertFingerprint, payloadDigest } from './fingerprint.ts';

/** Titles listed in a summary; the rest are counted. */
const MAX_LISTED = 20;

/**
 * Folds stale news into one pending alert instead of a burst: alerts raised while no channel was
 * configured, and alerts a failing channel has not taken for `staleAfterMs`. Each title is listed
 * once with its count and first and last time. Returns the summary alert's id, or null.
 */
export async function summariseStale(db: Db, now: Date, staleAfterMs: number): Promise<string | null> {
  const staleBefore = new Date(now.getTime() - staleAfterMs);
  if (!(await hasStaleAlerts(db.knex, staleBefore))) return null;
  return db.knex.transaction(async (tx) => {
    const stale = await lockStaleAlerts(tx, staleBefore);
    if (stale.length === 0) return null;
    const payload = summaryPayload(stale, staleAfterMs);
    const summary = await insertAlert(tx, {
      fingerprint: alertFingerprint('stale_summary', [now.toISOString()]),
      kind: 'stale_summary',
      runId: null,
      // One summary for the whole deployment: each summarised alert names its own account.
      accountId: DEFAULT_ACCOUNT_ID,
      title: `${stale.length} earlier alerts not delivered at the time, ${iso(stale[0].created_at)} to ${iso(stale.at(-1)!.created_at)}`,
      payload,
      payloadDigest: payloadDigest(payload),
      createdAt: now,
      status: 'pending',
    });
    await markSummarised(
      tx,
      stale.map((a) => a.id),
      summary.id,
    );
    return summary.id;
  });
}

function summaryPayload(stale: readonly StaleAlert[], staleAfterMs: number): { summary: string } {
  const noChannel = stale.filter((a) => a.status === 'undeliverable').length;
  const byTitle = new Map<string, { kind: string; n: number; first: Date; last: Date }>();
  for (const a of stale) {
    const g = byTitle.get(a.title);
    if (g) {
      g.n++;
      g.last = a.created_at;
    } else byTitle.set(a.title, { kind: a.kind, n: 1, first: a.created_at, last: a.created_at });
  }
  const groups = [...byTitle.entries()];
  const lines = [
    [
      noChannel ? `${noChannel} raised while no alert channel was configured` : '',
      stale.length - noChannel ? `${stale.length - noChannel} not delivered for over ${Math.round(staleAfterMs / 3_600_000)} h` : '',
    ]
      .filter(Boolean)
      .join('; ') + '. They may be stale: check `payrecon status` for what still holds.',
    ...groups
      .slice(0, MAX_LISTED)
      .map(([title, g]) => `• ${title} (${g.kind}${g.n > 1 ? `, ${g.n} times, ${iso(g.first)} to ${iso(g.last)}` : `, ${iso(g.first)}`})`),
    ...(groups.length > MAX_LISTED ? [`…and ${groups.length - MAX_LISTED} more`] : []),
  ];
  return { summary: lines.join('\n') };
}

const iso = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ') + 'Z';
