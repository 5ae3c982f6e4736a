import type { Knex } from '../db/knex-types.ts';
import { DateTime } from 'luxon';
import { Decimal, isCurrency, normalizeDecimal } from '../money/decimal.ts';
import { observedLateChanges, type ObservedLateChange } from '../db/late-changes.ts';
import {
  dayPostedIn,
  postedKeys,
  postedLateChanges,
  postingFilesOf,
  trialBalance,
  walletBooks,
  type TrialBalanceRow,
} from '../db/journal-postings.ts';
import { isMonthEnd, revaluationEntries } from '../recon/journal-revaluation.ts';
import { lateEntry, type JournalDay, type LateChange } from '../recon/journal.ts';
import type { JournalEntry } from '../recon/journal-types.ts';
import type { DayRate } from '../recon/journal-usdt.ts';
import { journalNumber, postingEntries, type PostingEntry } from '../recon/posting.ts';
import type { Restore } from './journal-day.ts';
import type { ReportScope } from './report-scope.ts';

/**
 * The report's side of the ledger (docs/guides/for-accounting.md, "Posting over time"): the late
 * changes a day's journal carries and restores, read from the checks and from what was posted; then,
 * once the day's journal is built, what this version's posting file holds (truth minus posted).
 *
 * Sources of entries: the day's own (roll-forward, timing, fee difference, drift: keys "day:D:…")
 * and late changes (keys "late:kind:direction:orderId"), each posted once by the first posting file
 * written after the check that saw it. Another source (issue 38's wallet movements) is one more
 * list of keyed JournalEntry values handed to `postingOf` in `pending`, with its own key prefix and,
 * where it moves the wallet inside a day's window, its effect taken out of that day's drift the way
 * `lateNet` is (src/recon/journal.ts): nothing else here changes.
 */

export interface DayLate {
  /** Late changes seen in the day's window: entries of the day's journal (their wallet effect explains the day's drift). */
  inWindow: Array<{ currency: string; change: LateChange }>;
  /** Late changes of orders the day counted, seen after it: the day's figures are restored (Restore). */
  restores: Restore[];
  /** Every late change seen so far, as now: candidates for this version's posting file. */
  observed: ObservedLateChange[];
}

const toChange = (o: ObservedLateChange): LateChange => ({
  kind: o.kind,
  direction: o.direction,
  merchantRef: o.merchantRef,
  orderId: o.orderId,
  originalDate: o.createdOn,
  countedOn: o.countedOn,
  observedAt: o.observedAt.toISOString(),
  walletEffect: o.walletEffect,
});

/** The late changes of day D as of this snapshot (checks seen before `now`). */
export async function dayLate(tx: Knex.Transaction, scope: ReportScope, timezone: string, now: Date): Promise<DayLate> {
  const observed = await observedLateChanges(tx, timezone, now, scope.account);
  const posted = await postedLateChanges(tx, scope.date, scope.window.from, scope.window.to, scope.account);
  const [from, to] = [Date.parse(scope.window.from), Date.parse(scope.window.to)];
  const inWindow = new Map<string, { currency: string; change: LateChange }>();
  const restores = new Map<string, Restore>();
  for (const o of observed) {
    const key = `late:${o.kind}:${o.direction}:${o.orderId}`;
    const at = o.observedAt.getTime();
    // A reversal of a success the roll-forward no longer counts, seen in the very day it was final:
    // the day never counted the success, so there is nothing to reverse.
    if (o.kind === 'reversal' && !o.countedNow && o.countedOn === scope.date) continue;
    if (at >= from && at < to) inWindow.set(key, { currency: o.currency, change: toChange(o) });
    if (o.countedOn === scope.date && at >= to)
      restores.set(key, {
        currency: o.currency,
        kind: o.kind,
        direction: o.direction,
        walletEffect: o.walletEffect,
        countedNow: o.countedNow,
      });
  }
  // What was posted stays the truth of a change no check lists any more (the merchant fixed its record).
  for (const p of posted) {
    const kind = p.key.split(':')[1] === 'reversal' ? 'reversal' : 'fee_correction';
    const at = p.observedAt.getTime();
    if (at >= from && at < to && !inWindow.has(p.key) && isCurrency(p.currency))
      inWindow.set(p.key, {
        currency: p.currency,
        change: {
          kind,
          direction: p.direction,
          merchantRef: p.orderId,
          orderId: p.orderId,
          originalDate: p.countedOn,
          countedOn: p.countedOn,
          observedAt: p.observedAt.toISOString(),
          walletEffect: p.walletEffect,
        },
      });
    if (p.countedOn === scope.date && at >= to && !restores.has(p.key))
      restores.set(p.key, { currency: p.currency, kind, direction: p.direction, walletEffect: p.walletEffect, countedNow: true });
  }
  return { inWindow: [...inWindow.values()], restores: [...restores.values()], observed };
}

export interface VersionPosting {
  /** The day's journal as it now stands (journal.csv), each entry with the posting files that carried it. */
  day: JournalEntry[];
  postedIn: Map<string, string[]>;
  /** This version's posting file; empty when nothing is new. */
  entries: PostingEntry[];
  /** Entries with no rate to the base currency: left out of the ledger until one is there. */
  heldBack: PostingEntry[];
  /** Why nothing is posted, for the headline; null when entries are posted. */
  nothing: string | null;
  trialBalance: TrialBalanceRow[];
}

/**
 * This version's posting file: the day's entries and every late change not yet posted (dated the
 * day a check saw it), minus what the ledger holds. A partial day posts what it has; the rest of the day
 * follows as adjusting entries of the version written once it is over.
 */
export async function postingOf(
  tx: Knex.Transaction,
  scope: ReportScope,
  v: { version: number; timezone: string; now: Date; fxRevaluation?: boolean },
  journals: readonly JournalDay[],
  late: DayLate,
  rates: ReadonlyMap<string, DayRate>,
  postable: (e: JournalEntry) => boolean,
): Promise<VersionPosting> {
  const day = journals.flatMap((j) => j.entries);
  const pending: JournalEntry[] = [];
  const inDay = new Set(day.map((e) => e.key));
  for (const o of late.observed) {
    const c = toChange(o);
    const key = `late:${o.kind}:${o.direction}:${o.orderId}`;
    if (inDay.has(key) || !isCurrency(o.currency)) continue;
    if (o.kind === 'reversal' && !o.countedNow && o.countedOn === DateTime.fromJSDate(o.observedAt, { zone: v.timezone }).toISODate())
      continue;
    const seenOn = DateTime.fromJSDate(o.observedAt, { zone: v.timezone }).toISODate()!;
    const e = lateEntry(c, o.currency, seenOn, rates.get(o.currency) ?? null);
    if (e) pending.push(e);
  }
  const truth = [...day, ...pending];
  const posted = await postedKeys(
    tx,
    scope.date,
    truth.map((e) => e.key),
    scope.account,
  );
  const postedOn = DateTime.fromJSDate(v.now, { zone: v.timezone }).toISODate()!;
  const all = postingEntries(
    truth,
    posted,
    { date: scope.date, version: v.version, postedOn, dayPostedIn: await dayPostedIn(tx, scope.date, scope.account) },
    `day:${scope.date}:`,
  );
  // No rate to the base currency: held back whole (not in the ledger), posted by the first file that has one.
  if (v.fxRevaluation && !scope.partial && isMonthEnd(scope.date))
    all.push(...(await monthEnd(tx, scope, v.version, journals, all.filter(postable), rates, all.length)));
  const entries = all.filter(postable);
  const heldBack = all.filter((e) => !postable(e));
  const postedIn = await postingFilesOf(
    tx,
    day.map((e) => e.key),
    scope.account,
  );
  for (const e of entries) postedIn.set(e.key, [...(postedIn.get(e.key) ?? []), `${scope.date}/v${v.version}`]);
  const nothing = entries.length === 0 ? 'nothing new to post (every line is in an earlier posting file)' : null;
  return { day, postedIn, entries, heldBack, nothing, trialBalance: await trialBalanceWith(tx, entries, scope.account) };
}

/**
 * The month-end revaluation and its reversal per currency (src/recon/journal-revaluation.ts), valued
 * on the wallet as posted once this file's entries are: each posted once, by the first complete
 * report of the month's last day.
 */
async function monthEnd(
  tx: Knex.Transaction,
  scope: ReportScope,
  version: number,
  journals: readonly JournalDay[],
  entries: readonly PostingEntry[],
  rates: ReadonlyMap<string, DayRate>,
  numbered: number,
): Promise<PostingEntry[]> {
  const books = await walletBooks(tx, scope.account);
  const month = scope.date.slice(0, 7);
  const currencies = journals.filter((j) => j.note === null).map((j) => j.currency);
  const posted = await postedKeys(
    tx,
    scope.date,
    currencies.map((c) => `fx_revaluation:${month}:${c}`),
    scope.account,
  );
  const out: PostingEntry[] = [];
  for (const currency of currencies) {
    if (posted.has(`fx_revaluation:${month}:${currency}`)) continue;
    let amount = new Decimal(books.get(currency)?.amount ?? '0');
    let usdt: Decimal | null =
      books.has(currency) && books.get(currency)!.usdt === null ? null : new Decimal(books.get(currency)?.usdt ?? '0');
    for (const e of entries)
      for (const l of e.lines)
        if (e.currency === currency && l.role === 'wallet') {
          amount = amount.plus(l.amount);
          usdt = usdt === null || l.usdt === null ? null : usdt.plus(l.usdt);
        }
    const book = { amount: normalizeDecimal(amount), usdt: usdt === null ? null : normalizeDecimal(usdt) };
    for (const e of revaluationEntries(scope.date, currency, book, rates.get(currency) ?? null))
      out.push({ ...e, journalNo: journalNumber({ date: scope.date, version }, numbered + out.length + 1), adjusts: null });
  }
  return out;
}

/** The trial balance once every earlier posting file and this one are posted. */
async function trialBalanceWith(tx: Knex.Transaction, entries: readonly PostingEntry[], account?: string): Promise<TrialBalanceRow[]> {
  const rows = new Map<string, { currency: string; role: TrialBalanceRow['role']; debits: Decimal; credits: Decimal }>();
  for (const r of await trialBalance(tx, 2147483647, account))
    rows.set(`${r.currency} ${r.role}`, {
      currency: r.currency,
      role: r.role,
      debits: new Decimal(r.debits),
      credits: new Decimal(r.credits),
    });
  for (const e of entries)
    for (const l of e.lines) {
      if (l.role === 'rounding') continue;
      const k = `${e.currency} ${l.role}`;
      const row = rows.get(k) ?? { currency: e.currency, role: l.role, debits: new Decimal(0), credits: new Decimal(0) };
      const a = new Decimal(l.amount);
      if (a.isPositive()) row.debits = row.debits.plus(a);
      else row.credits = row.credits.minus(a);
      rows.set(k, row);
    }
  return [...rows.values()]
    .sort((a, b) => (a.currency === b.currency ? a.role.localeCompare(b.role) : a.currency.localeCompare(b.currency)))
    .map((r) => ({
      currency: r.currency,
      role: r.role,
      debits: normalizeDecimal(r.debits),
      credits: normalizeDecimal(r.credits),
      balance: normalizeDecimal(r.debits.minus(r.credits)),
    }));
}
