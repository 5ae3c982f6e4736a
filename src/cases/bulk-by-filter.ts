import { randomBytes } from 'node:crypto';
import type { Db } from '../db/connect.ts';
import type { CaseFilter } from '../db/case-filter.ts';
import { eachCase } from '../db/case-queue.ts';
import { findImport, saveImport, takeImport } from '../db/case-imports.ts';
import type { CaseEvent } from '../recon/cases.ts';
import { actOnCases, type BulkOutcome, type SelectedCase } from './bulk.ts';
import { PREVIEW_TTL_MS } from './import.ts';

/** What a person asked of every case a filter matches, kept between the preview and the confirm. */
interface BulkPlan {
  kind: 'bulk-by-filter';
  /** The queue's query string the filter came from: the way back to the queue as it was. */
  query: string;
  event: CaseEvent;
  includeAssigned: boolean;
  /** Every match as it was when previewed: the confirm acts on exactly these, each only if unchanged. */
  selected: SelectedCase[];
}

export interface BulkPreview {
  token: string;
  matched: number;
  /** The dry run: what the confirm would do now. */
  outcome: BulkOutcome;
}

/**
 * Step one of "all N matching this filter": every match with the version seen, decided as the real
 * run would (a dry run, nothing written), and kept for the confirm in case_imports (the spreadsheet
 * round trip's table: one preview mechanism, any console process may confirm it).
 */
export async function previewBulk(
  db: Db,
  req: { filter: CaseFilter; query: string; event: CaseEvent; includeAssigned: boolean },
  who: { userName: string },
  now: Date,
): Promise<BulkPreview> {
  const selected: SelectedCase[] = [];
  for await (const c of eachCase(db.knex, req.filter)) selected.push({ id: c.id, version: c.version });
  const outcome = await actOnCases(db, selected, req.event, now, { dryRun: true, me: who.userName, includeAssigned: req.includeAssigned });
  const token = randomBytes(24).toString('base64url');
  const plan: BulkPlan = { kind: 'bulk-by-filter', query: req.query, event: req.event, includeAssigned: req.includeAssigned, selected };
  await saveImport(
    db.knex,
    { token, userName: who.userName, fileName: `filter ?${req.query}`.slice(0, 200), createdAt: now, plan },
    new Date(now.getTime() - 24 * 60 * 60_000),
  );
  return { token, matched: selected.length, outcome };
}

export type BulkConfirm = { kind: 'applied'; query: string; outcome: BulkOutcome } | { kind: 'refused'; message: string };

/** Step two: the previewed cases acted on once, by the person who previewed them, each only if unchanged since. */
export async function confirmBulk(db: Db, token: string, who: { userName: string }, now: Date): Promise<BulkConfirm> {
  const again = 'preview the filter again';
  const stored = /^[A-Za-z0-9_-]{32}$/.test(token) ? await findImport<BulkPlan>(db.knex, token) : null;
  if (!stored || stored.userName !== who.userName || stored.plan.kind !== 'bulk-by-filter')
    return { kind: 'refused', message: `no such preview of yours; ${again}` };
  if (stored.appliedAt) return { kind: 'refused', message: `this preview was already applied at ${stored.appliedAt.toISOString()}` };
  if (now.getTime() - stored.createdAt.getTime() > PREVIEW_TTL_MS)
    return { kind: 'refused', message: `this preview is more than ${PREVIEW_TTL_MS / 60_000} minutes old; ${again}` };
  if (!(await takeImport(db.knex, token, who.userName, now))) return { kind: 'refused', message: 'this preview was already applied' };
  const p = stored.plan;
  const outcome = await actOnCases(db, p.selected, p.event, now, { me: who.userName, includeAssigned: p.includeAssigned });
  return { kind: 'applied', query: p.query, outcome };
}
