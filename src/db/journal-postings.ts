import type { Knex } from 'knex';
import type { JournalRole } from '../domain/journal-roles.ts';
import type { PostedKey, PostingEntry } from '../recon/posting.ts';
import { date, int, intOrNull, oneRow, rowsOf, text, textOrNull } from './row.ts';
import { unnestRows } from './unnest.ts';

type Conn = Knex | Knex.Transaction;

/**
 * One account's postings (alias p), with several accounts configured: each account's ledger is its own,
 * its keys ("day:D:…") the same words as another's. Null, with one account: every posting.
 */
const OF_ACCOUNT = '(?::text IS NULL OR p.account_id = ?::text)';
const ofAccount = (account: string | undefined): [string | null, string | null] => [account ?? null, account ?? null];

/**
 * The ledger payrecon has handed accounting (sql/043): append-only, one journal_postings row per
 * posting file, its lines beside it. Amounts as text in and out.
 */

/** What is posted under each key asked for, and under every key of day `date` ("day:D:…"). */
export async function postedKeys(db: Conn, day: string, keys: readonly string[], account?: string): Promise<Map<string, PostedKey>> {
  const res = await db.raw(
    `SELECT l.entry_key, l.currency, l.role, sum(l.amount)::text AS amount,
            -- Known only when every line of the role carried one (older lines have none).
            CASE WHEN count(l.usdt) = count(*) THEN sum(l.usdt)::text END AS usdt,
            CASE WHEN count(l.usdt_rate) = count(*) AND count(DISTINCT l.usdt_rate) = 1 THEN min(l.usdt_rate)::text END AS usdt_rate,
            (array_agg(p.business_date::text ORDER BY p.seq DESC))[1] AS last_date,
            (array_agg(p.version ORDER BY p.seq DESC))[1] AS last_version
       FROM journal_posting_lines l JOIN journal_postings p ON p.id = l.posting_id
      WHERE (l.entry_key = ANY(?::text[]) OR l.entry_key LIKE ?) AND ${OF_ACCOUNT}
      GROUP BY l.entry_key, l.currency, l.role
      ORDER BY l.entry_key, l.role`,
    [keys as string[], `day:${day}:%`, ...ofAccount(account)],
  );
  const out = new Map<
    string,
    {
      currency: string;
      roles: Map<JournalRole, string>;
      usdt: Map<JournalRole, { usdt: string; rate: string | null }>;
      lastDate: string;
      lastVersion: number;
    }
  >();
  for (const r of rowsOf(res)) {
    const key = text(r, 'entry_key');
    const k = out.get(key) ?? {
      currency: text(r, 'currency'),
      roles: new Map(),
      usdt: new Map(),
      lastDate: text(r, 'last_date'),
      lastVersion: int(r, 'last_version'),
    };
    k.roles.set(text(r, 'role') as JournalRole, text(r, 'amount'));
    const usdt = textOrNull(r, 'usdt');
    if (usdt !== null) k.usdt.set(text(r, 'role') as JournalRole, { usdt, rate: textOrNull(r, 'usdt_rate') });
    // The latest posting over the key's roles.
    const [d, v] = [text(r, 'last_date'), int(r, 'last_version')];
    if (d > k.lastDate || (d === k.lastDate && v > k.lastVersion)) [k.lastDate, k.lastVersion] = [d, v];
    out.set(key, k);
  }
  return out;
}

/** The last version of `day` whose posting file posted any of the day's own entries; null when none has. */
export async function dayPostedIn(db: Conn, day: string, account?: string): Promise<number | null> {
  const r = oneRow(
    await db.raw(
      `SELECT max(p.version) AS v FROM journal_postings p
        WHERE p.business_date = ?::date AND ${OF_ACCOUNT}
          AND EXISTS (SELECT 1 FROM journal_posting_lines l WHERE l.posting_id = p.id AND l.entry_key LIKE ?)`,
      [day, ...ofAccount(account), `day:${day}:%`],
    ),
  );
  return intOrNull(r, 'v');
}

/** A late change as posted: its wallet effect so far, its order, the day it was counted in and when it was seen. */
export interface PostedLateChange {
  key: string;
  currency: string;
  direction: 'payment' | 'payout';
  orderId: string;
  walletEffect: string;
  countedOn: string;
  observedAt: Date;
}

/** The late changes posted whose order was counted on `day`, or that were seen in [from, to). */
export async function postedLateChanges(db: Conn, day: string, from: string, to: string, account?: string): Promise<PostedLateChange[]> {
  const res = await db.raw(
    `SELECT entry_key, min(currency) AS currency, min(order_direction) AS direction, min(order_id)::text AS order_id,
            coalesce(sum(amount) FILTER (WHERE role = 'wallet'), 0)::text AS wallet_effect,
            min(counted_on)::text AS counted_on, min(observed_at) AS observed_at
       FROM journal_posting_lines
      WHERE order_id IS NOT NULL AND (counted_on = ?::date OR (observed_at >= ?::timestamptz AND observed_at < ?::timestamptz))
        AND posting_id IN (SELECT p.id FROM journal_postings p WHERE ${OF_ACCOUNT})
      GROUP BY entry_key ORDER BY entry_key`,
    [day, from, to, ...ofAccount(account)],
  );
  return rowsOf(res).map((r) => ({
    key: text(r, 'entry_key'),
    currency: text(r, 'currency'),
    direction: text(r, 'direction') === 'payout' ? 'payout' : 'payment',
    orderId: text(r, 'order_id'),
    walletEffect: text(r, 'wallet_effect'),
    countedOn: text(r, 'counted_on'),
    observedAt: date(r, 'observed_at'),
  }));
}

export interface NewPosting {
  businessDate: string;
  version: number;
  postedOn: string;
  createdAt: Date;
  entries: readonly PostingEntry[];
  /** The account whose ledger this file joins; left out: the column's default ('default', the single account). */
  accountId?: string;
}

/**
 * Appends a posting file and its lines; returns its seq (the order to post in). The seq is the
 * next after the last this snapshot saw: a writer that appended meanwhile makes this insert fail on
 * the unique seq, so two files never carry the same lines.
 */
export async function insertPosting(db: Conn, p: NewPosting): Promise<number> {
  const seq = int(oneRow(await db.raw(`SELECT coalesce(max(seq), 0) + 1 AS seq FROM journal_postings`)), 'seq');
  const row = oneRow(
    await db.raw(
      `INSERT INTO journal_postings (seq, business_date, version, posted_on, created_at, account_id)
       VALUES (?, ?::date, ?, ?::date, ?, coalesce(?::text, 'default')) RETURNING id::text AS id`,
      [seq, p.businessDate, p.version, p.postedOn, p.createdAt, p.accountId ?? null],
    ),
  );
  const id = text(row, 'id');
  const lines = p.entries.flatMap((e) => e.lines.filter((l) => l.role !== 'rounding').map((l) => ({ e, l })));
  if (lines.length === 0) return seq;
  const u = unnestRows(
    lines.map((x, i) => ({ ...x, i })),
    [
      { name: 'line_no', type: 'integer', value: (x) => x.i + 1 },
      { name: 'entry_key', type: 'text', value: (x) => x.e.key },
      { name: 'journal_no', type: 'text', value: (x) => x.e.journalNo },
      { name: 'entry_date', type: 'date', value: (x) => x.e.date },
      { name: 'kind', type: 'text', value: (x) => x.e.kind },
      { name: 'adjusts_date', type: 'date', value: (x) => x.e.adjusts?.date ?? null },
      { name: 'adjusts_version', type: 'integer', value: (x) => x.e.adjusts?.version ?? null },
      { name: 'currency', type: 'text', value: (x) => x.e.currency },
      { name: 'role', type: 'text', value: (x) => x.l.role },
      { name: 'amount', type: 'numeric', value: (x) => x.l.amount },
      { name: 'usdt', type: 'numeric', value: (x) => x.l.usdt },
      { name: 'usdt_rate', type: 'numeric', value: (x) => x.l.usdtRate },
      { name: 'description', type: 'text', value: (x) => `${x.e.description}: ${x.l.description}` },
      { name: 'source_ref', type: 'text', value: (x) => x.l.sourceRef },
      { name: 'order_direction', type: 'text', value: (x) => x.e.late?.direction ?? null },
      { name: 'order_id', type: 'bigint', value: (x) => x.e.late?.orderId ?? null },
      { name: 'counted_on', type: 'date', value: (x) => x.e.late?.countedOn ?? null },
      { name: 'observed_at', type: 'timestamptz', value: (x) => x.e.late?.observedAt ?? null },
    ],
  );
  await db.raw(
    `INSERT INTO journal_posting_lines (posting_id, line_no, entry_key, journal_no, entry_date, kind, adjusts_date, adjusts_version, currency,
                                        role, amount, usdt, usdt_rate, description, source_ref, order_direction, order_id, counted_on, observed_at)
     SELECT ?::bigint, v.line_no, v.entry_key, v.journal_no, v.entry_date, v.kind, v.adjusts_date, v.adjusts_version, v.currency,
            v.role, v.amount, v.usdt, v.usdt_rate, v.description, v.source_ref, v.order_direction, v.order_id, v.counted_on, v.observed_at FROM ${u.sql}`,
    [id, ...u.bindings],
  );
  return seq;
}

/** Where each of day `day`'s keys was posted: key → "D/vN" of every posting file that carried it, in order. */
export async function postingFilesOf(db: Conn, keys: readonly string[], account?: string): Promise<Map<string, string[]>> {
  if (keys.length === 0) return new Map();
  const res = await db.raw(
    `SELECT l.entry_key, array_agg(DISTINCT p.seq::text || ' ' || p.business_date::text || '/v' || p.version::text) AS files
       FROM journal_posting_lines l JOIN journal_postings p ON p.id = l.posting_id
      WHERE l.entry_key = ANY(?::text[]) AND ${OF_ACCOUNT} GROUP BY l.entry_key`,
    [keys as string[], ...ofAccount(account)],
  );
  const out = new Map<string, string[]>();
  for (const r of rowsOf(res)) {
    const files = (r.files as string[]).map((f) => f.split(' ')).sort((a, b) => Number(a[0]) - Number(b[0]));
    out.set(
      text(r, 'entry_key'),
      files.map((f) => f[1]),
    );
  }
  return out;
}

/** The wallet per currency as posted so far: Σ amount and Σ USDT (null when a line has no USDT value). */
export async function walletBooks(db: Conn, account?: string): Promise<Map<string, { amount: string; usdt: string | null }>> {
  const res = await db.raw(
    `SELECT currency, sum(amount)::text AS amount, CASE WHEN count(usdt) = count(*) THEN coalesce(sum(usdt), 0)::text END AS usdt
       FROM journal_posting_lines WHERE role = 'wallet' AND posting_id IN (SELECT p.id FROM journal_postings p WHERE ${OF_ACCOUNT})
      GROUP BY currency ORDER BY currency`,
    ofAccount(account),
  );
  return new Map(rowsOf(res).map((r) => [text(r, 'currency'), { amount: text(r, 'amount'), usdt: textOrNull(r, 'usdt') }]));
}

/** One account's running balance: Σ of its posted lines up to a posting. */
export interface TrialBalanceRow {
  currency: string;
  role: JournalRole;
  debits: string;
  credits: string;
  balance: string;
}

/** The postings (one account's, or every one), oldest first: their seq, day and version, and how many lines each carried. */
export async function listPostings(
  db: Conn,
  account?: string,
): Promise<Array<{ seq: number; date: string; version: number; postedOn: string; lines: number }>> {
  const res = await db.raw(
    `SELECT p.seq, p.business_date::text AS d, p.version, p.posted_on::text AS posted_on,
            (SELECT count(*) FROM journal_posting_lines l WHERE l.posting_id = p.id)::int AS lines
       FROM journal_postings p WHERE ${OF_ACCOUNT} ORDER BY p.seq`,
    ofAccount(account),
  );
  return rowsOf(res).map((r) => ({
    seq: int(r, 'seq'),
    date: text(r, 'd'),
    version: int(r, 'version'),
    postedOn: text(r, 'posted_on'),
    lines: int(r, 'lines'),
  }));
}

/** The seq of the posting file of a report version; null when that version posted nothing (or predates postings). */
export async function postingSeqOf(db: Conn, day: string, version: number, account?: string): Promise<number | null> {
  const res = await db.raw(`SELECT p.seq FROM journal_postings p WHERE p.business_date = ?::date AND p.version = ? AND ${OF_ACCOUNT}`, [
    day,
    version,
    ...ofAccount(account),
  ]);
  const [r] = rowsOf(res);
  return r ? int(r, 'seq') : null;
}

/** The trial balance per currency and role as of posting `seq` (every file up to it posted, in order). */
export async function trialBalance(db: Conn, seq: number, account?: string): Promise<TrialBalanceRow[]> {
  const res = await db.raw(
    `SELECT l.currency, l.role,
            coalesce(sum(l.amount) FILTER (WHERE l.amount > 0), 0)::text AS debits,
            coalesce(-sum(l.amount) FILTER (WHERE l.amount < 0), 0)::text AS credits,
            sum(l.amount)::text AS balance
       FROM journal_posting_lines l JOIN journal_postings p ON p.id = l.posting_id
      WHERE p.seq <= ? AND ${OF_ACCOUNT} GROUP BY l.currency, l.role ORDER BY l.currency, l.role`,
    [seq, ...ofAccount(account)],
  );
  return rowsOf(res).map((r) => ({
    currency: text(r, 'currency'),
    role: text(r, 'role') as JournalRole,
    debits: text(r, 'debits'),
    credits: text(r, 'credits'),
    balance: text(r, 'balance'),
  }));
}
