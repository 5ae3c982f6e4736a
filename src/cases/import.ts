import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/connect.ts';
import { getCases } from '../db/case-actions.ts';
import { findImport, saveImport, takeImport } from '../db/case-imports.ts';
import { actOnEach, type BulkOutcome } from './bulk.ts';
import { readImportFile } from './import-file.ts';
import { planImport, type ImportPlan } from './import-plan.ts';

/** A preview is confirmed within this time or uploaded again: the cases it shows may have moved on. */
export const PREVIEW_TTL_MS = 60 * 60_000;
const CHUNK = 1000;

/** The file a plan came from, as the audit names it: its name as uploaded, its SHA-256 and size. */
export interface UploadIdentity {
  fileName: string;
  sha256: string;
  bytes: number;
}

/** A plan as stored: with its upload, so the confirm's audit event names the very file previewed. */
type StoredPlan = ImportPlan & { upload?: UploadIdentity };

/**
 * The spreadsheet round trip, step one: read the filled-in export, decide each row against the
 * cases as stored now, and keep the plan for the confirm. Nothing is written to any case.
 */
export async function previewImport(
  db: Db,
  upload: { bytes: Buffer; fileName: string },
  who: { userName: string; actor: string },
  now: Date,
): Promise<{ token: string; plan: ImportPlan; upload: UploadIdentity }> {
  const identity: UploadIdentity = {
    fileName: upload.fileName.slice(0, 200),
    sha256: createHash('sha256').update(upload.bytes).digest('hex'),
    bytes: upload.bytes.length,
  };
  const rows = await readImportFile(upload.bytes);
  const ids = [...new Set(rows.map((r) => r.caseId).filter((id) => /^[1-9]\d{0,17}$/.test(id)))];
  const stored = new Map<string, Awaited<ReturnType<typeof getCases>>[number]>();
  for (let i = 0; i < ids.length; i += CHUNK) for (const c of await getCases(db.knex, ids.slice(i, i + CHUNK))) stored.set(c.id, c);
  const plan = planImport(rows, stored, who.actor);
  const token = randomBytes(24).toString('base64url');
  await saveImport<StoredPlan>(
    db.knex,
    { token, userName: who.userName, fileName: identity.fileName, createdAt: now, plan: { ...plan, upload: identity } },
    new Date(now.getTime() - 24 * 60 * 60_000),
  );
  return { token, plan, upload: identity };
}

export type ConfirmOutcome =
  { kind: 'applied'; plan: ImportPlan; outcome: BulkOutcome; upload: UploadIdentity } | { kind: 'refused'; message: string };

/**
 * Step two: applies the stored plan once, as its uploader, each case resolved only if still in the
 * version exported (one audit event per case).
 */
export async function confirmImport(db: Db, token: string, who: { userName: string; actor: string }, now: Date): Promise<ConfirmOutcome> {
  const again = 'upload the file again for a new preview';
  const stored = /^[A-Za-z0-9_-]{32}$/.test(token) ? await findImport<StoredPlan>(db.knex, token) : null;
  // A bulk-by-filter preview shares the table and has no rows to resolve.
  if (!stored || stored.userName !== who.userName || !Array.isArray(stored.plan.resolve))
    return { kind: 'refused', message: `no such preview of yours; ${again}` };
  if (stored.appliedAt) return { kind: 'refused', message: `this preview was already applied at ${stored.appliedAt.toISOString()}` };
  if (now.getTime() - stored.createdAt.getTime() > PREVIEW_TTL_MS)
    return { kind: 'refused', message: `this preview is more than ${PREVIEW_TTL_MS / 60_000} minutes old; ${again}` };
  if (!(await takeImport(db.knex, token, who.userName, now))) return { kind: 'refused', message: 'this preview was already applied' };
  const outcome = await actOnEach(
    db,
    stored.plan.resolve.map((p) => ({
      id: p.id,
      version: p.version,
      event: { kind: 'resolve' as const, actor: who.actor, reason: p.reason, note: p.note },
    })),
    now,
    'the export',
    // Each row's reason and note were written for that case by the uploader: asked, case by case.
    { includeAssigned: true },
  );
  // A preview stored before uploads were identified names its file only.
  const upload = stored.plan.upload ?? { fileName: stored.fileName, sha256: 'not recorded', bytes: 0 };
  return { kind: 'applied', plan: stored.plan, outcome, upload };
}
