import { Decimal, normalizeDecimal } from '../money/decimal.ts';
import type { JournalRole } from '../domain/journal-roles.ts';
import { usdtValues } from './journal-usdt.ts';
import type { JournalEntry, JournalLine } from './journal-types.ts';

/**
 * What a posting file holds: the truth of now minus what earlier posting files posted, entry by
 * entry (docs/guides/for-accounting.md, "Posting over time"). The choices, for accounting:
 * - An entry is known by its key across versions and days. A key never posted is posted whole: on a
 *   day's first posting, dated its own date; a late change or a later source of entries (a wallet
 *   movement) dated the day it belongs to, whichever posting file carries it first.
 * - A key posted before whose lines now differ gets an adjusting entry: the difference per role,
 *   dated the day the file is written, naming the day and version it adjusts. A posted entry is
 *   never changed or repeated.
 * - A day's key posted before and no longer in the day's truth (a drift that a later check
 *   explained) is adjusted to zero. Keys of other sources are only adjusted while their source
 *   still lists them: a late change no check shows any more stays as posted.
 * - Journal numbers are the file's date and version and a sequence (`20260102v2-003`), so no two
 *   posted entries share one (QuickBooks takes 21 characters).
 * Pure: the posted totals and the clock's date come in.
 */

/** What the ledger holds for one key: the amount per role, and who posted it last. */
export interface PostedKey {
  currency: string;
  roles: ReadonlyMap<JournalRole, string>;
  /** The day and version of the posting file that last touched the key. */
  lastDate: string;
  lastVersion: number;
}

/** An entry of a posting file: a journal entry with its journal number and what it adjusts. */
export interface PostingEntry extends JournalEntry {
  journalNo: string;
  adjusts: { date: string; version: number } | null;
}

export interface PostingContext {
  /** The report version writing the file. */
  date: string;
  version: number;
  /** The business day the file is written on: adjusting entries' date. */
  postedOn: string;
  /** The last version of `date` that posted anything; null when this is the day's first posting. */
  dayPostedIn: number | null;
}

const sumRoles = (lines: readonly JournalLine[]): Map<JournalRole, Decimal> => {
  const m = new Map<JournalRole, Decimal>();
  for (const l of lines) if (l.role !== 'rounding') m.set(l.role, (m.get(l.role) ?? new Decimal(0)).plus(l.amount));
  return m;
};

/**
 * The posting file's entries, in the truth's order then the day's vanished keys. `truth` holds the
 * day's entries and every pending entry of other sources; `dayKeyPrefix` ("day:D:") names the keys
 * this version speaks for whole.
 */
export function postingEntries(
  truth: readonly JournalEntry[],
  posted: ReadonlyMap<string, PostedKey>,
  ctx: PostingContext,
  dayKeyPrefix: string,
): PostingEntry[] {
  const out: PostingEntry[] = [];
  const number = () => `${ctx.date.replaceAll('-', '')}v${ctx.version}-${String(out.length + 1).padStart(3, '0')}`;
  const seen = new Set<string>();
  for (const e of truth) {
    seen.add(e.key);
    const p = posted.get(e.key);
    if (!p) {
      const isDay = e.key.startsWith(dayKeyPrefix);
      if (!isDay || ctx.dayPostedIn === null) {
        out.push({ ...e, journalNo: number(), adjusts: null });
      } else {
        // A kind the day's earlier posting did not have: an adjustment of the day.
        out.push(adjusting(e, e.lines, ctx, { date: ctx.date, version: ctx.dayPostedIn }, number()));
      }
      continue;
    }
    const want = sumRoles(e.lines);
    const diff = differences(want, p.roles);
    if (diff.length === 0) continue;
    const rate = e.lines[0]?.usdtRate ?? null;
    const lines = diff.map(([role, amount]) => ({
      role,
      amount,
      description: `adjusts ${e.id}`,
      sourceRef: e.lines.find((l) => l.role === role)?.sourceRef ?? e.key,
    }));
    out.push(adjusting(e, withUsdt(lines, rate, e.description), ctx, { date: p.lastDate, version: p.lastVersion }, number()));
  }
  for (const [key, p] of posted) {
    if (seen.has(key) || !key.startsWith(dayKeyPrefix)) continue;
    const diff = differences(new Map(), p.roles);
    if (diff.length === 0) continue;
    const [, date, currency, suffix] = key.split(':');
    const description = `${currency} ${suffix} ${date}: no longer in the day`;
    const lines = diff.map(([role, amount]) => ({ role, amount, description: `reverses what was posted`, sourceRef: key }));
    const e: JournalEntry = {
      key,
      id: `${date}-${currency}-${suffix}`,
      date,
      currency: currency as JournalEntry['currency'],
      kind: 'drift',
      description,
      lines: withUsdt(lines, null, description),
    };
    out.push(adjusting(e, e.lines, ctx, { date: p.lastDate, version: p.lastVersion }, number()));
  }
  return out;
}

function differences(want: ReadonlyMap<JournalRole, Decimal>, have: ReadonlyMap<JournalRole, string>): Array<[JournalRole, string]> {
  const roles = [...new Set([...want.keys(), ...have.keys()])];
  return roles.flatMap((role): Array<[JournalRole, string]> => {
    const d = (want.get(role) ?? new Decimal(0)).minus(have.get(role) ?? '0');
    return d.isZero() ? [] : [[role, normalizeDecimal(d)]];
  });
}

function withUsdt(lines: Array<Omit<JournalLine, 'usdtRate' | 'usdt'>>, rate: string | null, description: string): JournalLine[] {
  const wallet = lines.filter((l) => l.role === 'wallet').reduce((a, l) => a.plus(l.amount), new Decimal(0));
  const r = rate === null ? null : { deposit: rate, withdraw: rate };
  return usdtValues(lines, r, !wallet.isNegative(), description);
}

function adjusting(
  e: JournalEntry,
  lines: JournalLine[],
  ctx: PostingContext,
  adjusts: { date: string; version: number },
  journalNo: string,
): PostingEntry {
  return {
    ...e,
    date: ctx.postedOn,
    description: `adjusts ${e.description} (posted ${adjusts.date} v${adjusts.version})`,
    lines,
    journalNo,
    adjusts,
  };
}
