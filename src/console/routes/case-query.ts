import type { CaseFilter } from '../../db/case-filter.ts';
import { REF_PIECE_MIN } from '../../db/case-filter.ts';
import { CASE_SORTS, type CaseSort } from '../../db/case-queue.ts';
import { CASE_STATES, parseAge, type CaseState } from '../../recon/cases.ts';
import { MISMATCH_CODES } from '../../domain/verdicts.ts';
import { businessDay } from '../../report/date.ts';
import { CURRENCIES } from '../../money/decimal.ts';
import { messageOf } from '../../domain/errors.ts';

/** The queue's query string read into a filter, shared by the queue, its export and bulk by filter. */

export interface Query {
  state?: string;
  /** code=FEE&code=STATUS (the form's multiple choice) or code=FEE,STATUS (a link). */
  code?: string | string[];
  currency?: string;
  /** A configured account's id; taken only when several accounts are configured. */
  account?: string;
  day?: string;
  age?: string;
  ref?: string;
  assignee?: string;
  sort?: string;
  after?: string;
  before?: string;
  /** The Nth page (1-based): "page 100" typed or linked. */
  page?: string;
}
export type Shown = Record<Exclude<keyof Query, 'after' | 'before' | 'page'>, string>;

/** The filter from the query string; a value not of the expected shape is refused, naming the field and what it takes. */
export function filterOf(
  q: Query,
  zone: string,
  now: Date,
  me: string,
  /** The configured accounts' ids when there are several; with one, no account filter (every page as before). */
  accountIds: readonly string[] = [],
): { filter: CaseFilter; sort: CaseSort; problems: string[]; shown: Shown } {
  const problems: string[] = [];
  const filter: CaseFilter = {};
  const shown: Shown = { state: '', code: '', currency: '', account: '', day: '', age: '', ref: '', assignee: '', sort: 'age' };
  const state = q.state || 'unresolved';
  if (state === 'unresolved') filter.states = ['open', 'acknowledged'];
  else if ((CASE_STATES as readonly string[]).includes(state)) filter.states = [state as CaseState];
  else if (state !== 'all') problems.push(`state: expected open, acknowledged, resolved, unresolved or all`);
  shown.state = state;
  const codes = [...new Set((Array.isArray(q.code) ? q.code : [q.code ?? '']).flatMap((c) => c.split(',')).map((c) => c.trim()))].filter(
    Boolean,
  );
  const unknown = codes.filter((c) => !MISMATCH_CODES.includes(c as never));
  if (unknown.length)
    problems.push(
      `code: ${unknown.map((c) => JSON.stringify(c)).join(', ')} is not a finding code; choose from ${MISMATCH_CODES.join(', ')}`,
    );
  else if (codes.length) {
    filter.codes = codes;
    shown.code = codes.join(',');
  }
  if (q.currency) {
    if ((CURRENCIES as readonly string[]).includes(q.currency)) filter.currency = shown.currency = q.currency;
    else problems.push(`currency: expected one of ${CURRENCIES.join(', ')}`);
  }
  if (q.account && accountIds.length > 1) {
    if (accountIds.includes(q.account)) filter.accountId = shown.account = q.account;
    else
      problems.push(`account: ${JSON.stringify(q.account.slice(0, 40))} is not a configured account; choose from ${accountIds.join(', ')}`);
  }
  if (q.day) {
    try {
      const d = businessDay(q.day, zone);
      filter.occurredFrom = d.start.toJSDate();
      filter.occurredTo = d.end.toJSDate();
      shown.day = d.date;
    } catch (err) {
      problems.push(`day: ${messageOf(err)}`);
    }
  }
  if (q.age) {
    try {
      filter.openedBefore = new Date(now.getTime() - parseAge(q.age));
      shown.age = q.age;
    } catch (err) {
      problems.push(`age: ${messageOf(err)}`);
    }
  }
  if (q.ref) {
    if (q.ref.trim().length >= REF_PIECE_MIN) filter.ref = shown.ref = q.ref.trim();
    else problems.push(`ref: give at least ${REF_PIECE_MIN} characters of a merchant or transaction ref (got ${q.ref.trim().length})`);
  }
  if (q.assignee) {
    shown.assignee = q.assignee;
    filter.assignee = q.assignee === 'me' ? me : q.assignee === 'nobody' ? null : q.assignee;
  }
  if (q.sort) {
    if ((CASE_SORTS as readonly string[]).includes(q.sort)) shown.sort = q.sort;
    else problems.push(`sort: expected ${CASE_SORTS.join(' or ')}`);
  }
  return { filter, sort: shown.sort as CaseSort, problems, shown };
}

export function pageNumberOf(text: string, problems: string[]): number | undefined {
  if (/^[1-9]\d{0,6}$/.test(text)) return Number(text);
  problems.push(`page: expected a page number from 1 (got ${JSON.stringify(text.slice(0, 20))})`);
  return undefined;
}

/** The queue's query string a form or link carries (without "?"): only what the queue's own links hold. */
export function backQuery(v: unknown): string {
  return typeof v === 'string' && v.length <= 2000 && /^[\w%+=&.,:~-]*$/.test(v) ? v.replace(/^\?/, '') : '';
}

export function queryOf(back: string): Query {
  const q: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(back)) q[k] = k in q ? [...[q[k]].flat(), v] : v;
  return q as Query;
}
