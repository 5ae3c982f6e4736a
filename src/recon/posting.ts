import { Decimal, normalizeDecimal } from '../money/decimal.ts';
import type { JournalRole } from '../domain/journal-roles.ts';
import { JOURNAL_USDT_DECIMALS } from './journal-usdt.ts';
import { readAmount } from './amounts.ts';
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
  /** The USDT value posted per role and its rate when one rate valued it all; absent when not known (older lines). */
  usdt?: ReadonlyMap<JournalRole, { usdt: string; rate: string | null }>;
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
  const number = () => journalNumber(ctx, out.length + 1);
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
    const lines = adjustingLines(diff, p, e, `adjusts ${e.id}`);
    out.push(adjusting(e, lines, ctx, { date: p.lastDate, version: p.lastVersion }, number()));
  }
  for (const [key, p] of posted) {
    if (seen.has(key) || !key.startsWith(dayKeyPrefix)) continue;
    const diff = differences(new Map(), p.roles);
    if (diff.length === 0) continue;
    const [, date, currency, suffix] = key.split(':');
    const description = `${currency} ${suffix} ${date}: no longer in the day`;
    const e: JournalEntry = {
      key,
      id: `${date}-${currency}-${suffix}`,
      date,
      currency: currency as JournalEntry['currency'],
      kind: 'drift',
      description,
      lines: [],
    };
    const lines = adjustingLines(diff, p, e, 'reverses what was posted');
    out.push(adjusting(e, lines, ctx, { date: p.lastDate, version: p.lastVersion }, number()));
  }
  return out;
}

/** The n-th journal number of a posting file: its day, version and a sequence (`20260102v2-003`). */
export function journalNumber(ctx: Pick<PostingContext, 'date' | 'version'>, n: number): string {
  return `${ctx.date.replaceAll('-', '')}v${ctx.version}-${String(n).padStart(3, '0')}`;
}

function differences(want: ReadonlyMap<JournalRole, Decimal>, have: ReadonlyMap<JournalRole, string>): Array<[JournalRole, string]> {
  const roles = [...new Set([...want.keys(), ...have.keys()])];
  return roles.flatMap((role): Array<[JournalRole, string]> => {
    const d = (want.get(role) ?? new Decimal(0)).minus(have.get(role) ?? '0');
    return d.isZero() ? [] : [[role, normalizeDecimal(d)]];
  });
}

const U6 = (d: Decimal) => d.toDecimalPlaces(JOURNAL_USDT_DECIMALS, Decimal.ROUND_HALF_UP);

/**
 * An adjusting entry's lines, valued in USDT (the FX choice, docs/guides/for-accounting.md): the part
 * of a role's difference that takes back what was posted is valued at what it was posted at (so an
 * account cleared in its currency, suspense say, is cleared in USDT too); the rest at the entry's
 * rate now. Where the lines' rates differ, what is left goes on an `fx_difference` line (amount 0,
 * USDT only), else on a rounding line. With no USDT known for a line, the entry has no USDT figures.
 */
function adjustingLines(diff: ReadonlyArray<[JournalRole, string]>, p: PostedKey, e: JournalEntry, description: string): JournalLine[] {
  const rateNow = (role: JournalRole) => readAmount(e.lines.find((l) => l.role === role)?.usdtRate ?? e.lines[0]?.usdtRate ?? null);
  const lines: JournalLine[] = [];
  let valued = true;
  for (const [role, amount] of diff) {
    const sourceRef = e.lines.find((l) => l.role === role)?.sourceRef ?? e.key;
    const d = new Decimal(amount);
    const had = new Decimal(p.roles.get(role) ?? '0');
    const was = p.usdt?.get(role);
    const wasUsdt = was ? new Decimal(was.usdt) : null;
    // The posted rate: as recorded when one rate valued the role, else implied by amount ÷ USDT.
    const wasRate = was && wasUsdt && !wasUsdt.isZero() ? (readAmount(was.rate) ?? had.dividedBy(wasUsdt).toDecimalPlaces(8)) : null;
    const r = rateNow(role) ?? wasRate;
    const takesBack = wasUsdt !== null && !had.isZero() && d.isNegative() !== had.isNegative();
    // What takes back the posted balance: all of it when the difference is as large, else the difference.
    const back = !takesBack ? new Decimal(0) : d.abs().gte(had.abs()) ? had.negated() : d;
    const rest = d.minus(back);
    if (!back.isZero()) {
      // Taking back all of it: exactly what was posted, no rate arithmetic.
      const u = back.equals(had.negated()) ? wasUsdt!.negated() : U6(back.times(wasUsdt!).dividedBy(had));
      const rate = wasRate === null ? null : normalizeDecimal(wasRate);
      lines.push({ role, amount: normalizeDecimal(back), usdtRate: rate, usdt: u.toFixed(JOURNAL_USDT_DECIMALS), description, sourceRef });
    }
    if (!rest.isZero()) {
      if (r === null || !r.isPositive()) valued = false;
      const u = r === null || !r.isPositive() ? null : U6(rest.dividedBy(r)).toFixed(JOURNAL_USDT_DECIMALS);
      lines.push({
        role,
        amount: normalizeDecimal(rest),
        usdtRate: r === null ? null : normalizeDecimal(r),
        usdt: u,
        description,
        sourceRef,
      });
    }
  }
  if (!valued) return lines.map((l) => ({ ...l, usdtRate: null, usdt: null }));
  const residual = lines.reduce((a, l) => a.plus(l.usdt ?? '0'), new Decimal(0));
  if (residual.isZero()) return lines;
  const rates = [...new Set(lines.map((l) => l.usdtRate))];
  const fx = rates.length > 1;
  lines.push({
    role: fx ? 'fx_difference' : 'rounding',
    amount: '0',
    usdtRate: fx ? null : rates[0],
    usdt: residual.negated().toFixed(JOURNAL_USDT_DECIMALS),
    description: fx
      ? `USDT difference: taken back at the rate posted, ${rates.filter((x) => x !== null).join(' and ')} ${e.currency}/USDT`
      : `USDT rounding of ${e.description}`,
    sourceRef: fx ? 'fx_difference' : 'rounding',
  });
  return lines;
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
