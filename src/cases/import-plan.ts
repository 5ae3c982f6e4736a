import type { StoredCase } from '../db/cases.ts';
import { decideCase, isResolutionReason, RESOLUTION_REASONS, CLEARED_BY_RECHECK, RECURRED, type ResolutionReason } from '../recon/cases.ts';
import type { ImportRow } from './import-file.ts';

/**
 * What an uploaded queue export will do, decided row by row before anything is written (pure: the
 * caller reads the cases the rows name and stores the plan for the confirm).
 *
 * Choices made for the finance team:
 * - A row with neither a reason nor a note was not worked: it is left out, not refused.
 * - Each row resolves only the case as exported: a case whose version moved since (acknowledged,
 *   assigned, reopened, resolved by someone else) is refused, so nobody overwrites work unseen.
 * - A note is required, as in the console's resolve form: the audit trail says why.
 * - "written off" and "Written-Off" are the reason written-off: spreadsheets invite such spellings.
 * - A case named twice is resolved by its first row; the second is refused and named.
 */

/** A case the confirm will resolve, with what the preview shows of it. */
export interface PlannedResolve {
  row: number;
  id: string;
  version: number;
  reason: ResolutionReason;
  note: string;
  code: string;
  state: string;
  ref: string | null;
  /** The order the case is about, for the ref's link; null for a drift case. */
  order: { direction: string; id: string } | null;
}

export interface RefusedRow {
  row: number;
  caseId: string;
  /** Whether caseId names a stored case (the preview links it). */
  known: boolean;
  why: string;
}

export interface ImportPlan {
  resolve: PlannedResolve[];
  refused: RefusedRow[];
  /** Rows with no resolution filled in: left as they are. */
  blank: number;
}

const CASE_ID = /^[1-9]\d{0,17}$/;

export function planImport(rows: readonly ImportRow[], stored: ReadonlyMap<string, StoredCase>, actor: string): ImportPlan {
  const plan: ImportPlan = { resolve: [], refused: [], blank: 0 };
  const firstRow = new Map<string, number>();
  for (const r of rows) {
    if (!r.reason && !r.note) {
      plan.blank++;
      continue;
    }
    const why = refusal(r, stored, firstRow, actor);
    if (why) {
      plan.refused.push({ row: r.row, caseId: r.caseId, known: stored.has(r.caseId), why });
      continue;
    }
    const c = stored.get(r.caseId)!;
    firstRow.set(c.id, r.row);
    plan.resolve.push({
      row: r.row,
      id: c.id,
      version: c.version,
      reason: reasonOf(r.reason) as ResolutionReason,
      note: r.note.slice(0, 2000),
      code: c.code,
      state: c.state,
      ref: c.merchantRef ?? c.transactionRef,
      order: c.direction && c.orderId ? { direction: c.direction, id: c.orderId } : null,
    });
  }
  return plan;
}

/** The reason as written, in the form the lifecycle knows ("Written off" → written-off). */
function reasonOf(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');
}

function refusal(r: ImportRow, stored: ReadonlyMap<string, StoredCase>, firstRow: Map<string, number>, actor: string): string | null {
  const c = CASE_ID.test(r.caseId) ? stored.get(r.caseId) : undefined;
  if (!c) return r.caseId ? `unknown case ${JSON.stringify(r.caseId)}` : 'unknown case: the case id cell is empty';
  const earlier = firstRow.get(c.id);
  if (earlier !== undefined) return `case ${c.id} is listed again: row ${earlier} already resolves it`;
  const reason = reasonOf(r.reason);
  if (!reason) return `no resolution reason: choose one of ${RESOLUTION_REASONS.join(', ')}`;
  if (reason === CLEARED_BY_RECHECK || reason === RECURRED)
    return `not permitted: ${reason} is payrecon's own reason; choose one of ${RESOLUTION_REASONS.join(', ')}`;
  if (!isResolutionReason(reason)) return `unknown reason ${JSON.stringify(r.reason)}: choose one of ${RESOLUTION_REASONS.join(', ')}`;
  if (!r.note) return 'no resolution note: say what was done or why, for the audit trail';
  if (c.state === 'resolved') return `already resolved (${c.resolution ?? 'no reason'})`;
  if (!/^\d{1,9}$/.test(r.version) || Number(r.version) !== c.version)
    return `changed since the export (now ${c.state}${c.assignee ? `, assigned to ${c.assignee}` : ''}): export again`;
  const d = decideCase(c, { kind: 'resolve', actor, reason, note: r.note });
  if (d.kind === 'refused') return `not permitted: ${d.message}`;
  if (d.kind !== 'move') return 'nothing to do';
  return null;
}
