import type { Db } from '../../db/connect.ts';
import {
  beginEmailAttempt,
  lastEmailedVersion,
  markEmailFailed,
  markEmailSent,
  pendingReportDeliveries,
  reportDeliveryById,
  reportDeliveryByVersion,
  type ReportDelivery,
} from '../../db/deliveries.ts';
import { describeError } from '../../notify/errors.ts';
import type { Mailer } from '../../notify/mailer.ts';
import { buildReportEmail } from './content.ts';
import { BUSY, withSendLock } from '../../notify/send-lock.ts';
import { removedVersionSentence } from '../removed-version.ts';
import { DEFAULT_ACCOUNT_ID } from '../../domain/account.ts';

/** By date and number: `account` is whose version (unset: the only account's, recorded as 'default'). */
export type ReportSelector = { versionId: string } | { businessDate: string; version: number; account?: string };

export type SendReportEmailOptions = ReportSelector & {
  /** Send a version that was already e-mailed again (a new Message-ID: it is a deliberate second mail). */
  resend?: boolean;
  now: Date;
  /** Recipients; default the mailer's REPORT_EMAIL_TO. */
  to?: readonly string[];
  /** The CSV files are attached while together at most this size; default CSV_ATTACH_LIMIT_BYTES. */
  csvAttachLimitBytes?: number;
  /** Strings to scrub from stored errors besides those the mailer already scrubs. */
  secrets?: readonly string[];
  /** Called at each step of a send (the crash tests' kill points). */
  onStep?: (step: EmailStep) => void;
};

/**
 * The steps of one send, in order: the attempt recorded (pending, committed), the SMTP server's
 * acceptance, the send recorded. A process killed after the second and before the third sends again
 * next time, with the same Message-ID (see sendReportEmail).
 */
export const EMAIL_STEPS = ['email_begun', 'email_accepted', 'email_recorded'] as const;
export type EmailStep = (typeof EMAIL_STEPS)[number];

export type ReportEmailResult =
  | { status: 'sent'; versionId: string; businessDate: string; version: number; messageId: string; attempts: number }
  | { status: 'already_sent'; versionId: string; businessDate: string; version: number; emailedAt: Date | null }
  | { status: 'failed'; versionId: string; businessDate: string; version: number; error: string; attempts: number }
  /** Another process is sending this version right now. */
  | { status: 'busy'; versionId: string; businessDate: string; version: number }
  /** The retention removed the version's files: `message` says when, and where they were archived. */
  | { status: 'removed'; versionId: string; businessDate: string; version: number; message: string };

/**
 * E-mails one report version to accounting with delivery bookkeeping: the row goes `pending`
 * (committed) before the SMTP conversation and `sent` after the server accepted the message;
 * an SMTP failure leaves it pending with the (scrubbed) error, for retryPendingEmails.
 *
 * Exactly-once is not attainable across a crash between the server's acceptance and the
 * `sent` update: the version stays pending and the next run sends it again. That duplicate
 * carries the same Message-ID (derived from the version and its previous emailed_at, both
 * unchanged until `sent` is recorded), so mail servers and clients that de-duplicate on
 * Message-ID drop it, and a person can recognise it. Concurrent senders are kept apart by
 * a per-version lock, so the only duplicate left is that crash window.
 *
 * Throws only for a missing version or no recipients; delivery failures are a result.
 */
export async function sendReportEmail(db: Db, mailer: Mailer, opts: SendReportEmailOptions): Promise<ReportEmailResult> {
  const found = await findVersion(db, opts);
  const to = opts.to ?? mailer.reportTo;
  if (to.length === 0) throw new Error('no recipients: set REPORT_EMAIL_TO');
  const ref = { versionId: found.id, businessDate: found.business_date, version: found.version };

  const outcome = await withSendLock(db, `report-email:${found.id}`, async (): Promise<ReportEmailResult> => {
    // Read again under the lock: another sender may have finished since.
    const current = (await reportDeliveryById(db.knex, found.id))!;
    if (current.removed_at) return removed(ref, current);
    if (current.email_status === 'sent' && !opts.resend) {
      return { status: 'already_sent', ...ref, emailedAt: current.emailed_at };
    }
    const row = await beginEmailAttempt(db.knex, found.id);
    if (!row) return removed(ref, (await reportDeliveryById(db.knex, found.id))!);
    opts.onStep?.('email_begun');
    const messageId = reportMessageId(row, mailer.from);
    try {
      // A day's versions are numbered per account: the previous e-mail is of the same account's.
      const previouslySent = await lastEmailedVersion(db.knex, row.business_date, row.version, row.account_id);
      const content = buildReportEmail(row, { csvAttachLimitBytes: opts.csvAttachLimitBytes, previouslySent });
      await mailer.send({ from: mailer.from, to, messageId, ...content });
      opts.onStep?.('email_accepted');
    } catch (err) {
      const error = describeError(err, opts.secrets ?? []);
      await markEmailFailed(db.knex, row.id, error);
      return { status: 'failed', ...ref, error, attempts: row.email_attempts };
    }
    await markEmailSent(db.knex, row.id, opts.now);
    opts.onStep?.('email_recorded');
    return { status: 'sent', ...ref, messageId, attempts: row.email_attempts };
  });
  return outcome === BUSY ? { status: 'busy', ...ref } : outcome;
}

function removed(ref: { versionId: string; businessDate: string; version: number }, row: ReportDelivery): ReportEmailResult {
  const message = removedVersionSentence({ ...ref, removedAt: row.removed_at, archivedTo: row.archived_to })!;
  return { status: 'removed', ...ref, message };
}

/**
 * Sends every version left pending by a failed or interrupted send, oldest first; never throws for delivery.
 * `account`: that account's versions only, the ones `to` (its recipients) are for; the other accounts'
 * wait for their own runs.
 */
export async function retryPendingEmails(
  db: Db,
  mailer: Mailer,
  now: Date,
  opts: Pick<SendReportEmailOptions, 'to' | 'csvAttachLimitBytes' | 'secrets'> & { account?: string } = {},
): Promise<ReportEmailResult[]> {
  const { account, ...send } = opts;
  const results: ReportEmailResult[] = [];
  for (const row of await pendingReportDeliveries(db.knex, account)) {
    results.push(await sendReportEmail(db, mailer, { ...send, versionId: row.id, now }));
  }
  return results;
}

/**
 * Stable for every attempt of one send: the version plus the time of the previous successful
 * send (none for the first), so retries share an id and a deliberate resend gets a new one. An
 * account's version names its account: two accounts' v1 of a day are two messages, never one de-duplicated.
 */
export function reportMessageId(
  row: Pick<ReportDelivery, 'business_date' | 'version' | 'emailed_at'> & { account_id?: string },
  from: string,
): string {
  const domain = from.split('@')[1] || 'payrecon.invalid';
  const previous = row.emailed_at ? row.emailed_at.getTime() : 0;
  const account = row.account_id === undefined || row.account_id === DEFAULT_ACCOUNT_ID ? '' : `${row.account_id}.`;
  return `<payrecon.report.${account}${row.business_date}.v${row.version}.${previous}@${domain}>`;
}

async function findVersion(db: Db, sel: ReportSelector): Promise<ReportDelivery> {
  const row =
    'versionId' in sel
      ? await reportDeliveryById(db.knex, sel.versionId)
      : await reportDeliveryByVersion(db.knex, sel.account ?? DEFAULT_ACCOUNT_ID, sel.businessDate, sel.version);
  if (!row) {
    const what = 'versionId' in sel ? `id ${sel.versionId}` : `${sel.businessDate} version ${sel.version}`;
    throw new Error(`no report version ${what}`);
  }
  return row;
}
