import type { Knex } from 'knex';
import { CASE_STATES, type CaseState } from '../recon/cases.ts';

/** Which cases: every field optional, all given ones must hold. */
export interface CaseFilter {
  states?: readonly CaseState[];
  /** Any of these finding codes. */
  codes?: readonly string[];
  currency?: string;
  /** One account's cases (cases.account_id). */
  accountId?: string;
  /** occurred_at in [from, to): a business day. */
  occurredFrom?: Date;
  occurredTo?: Date;
  /** Opened (or reopened) at or before this instant. */
  openedBefore?: Date;
  /** A leading piece (6+ characters, any case) of the merchant or the transaction ref. */
  ref?: string;
  /** A console user's name; null: nobody's. */
  assignee?: string | null;
  limit?: number;
}

/** The shortest ref piece searched: shorter ones match too much to be what someone meant. */
export const REF_PIECE_MIN = 6;

/** LIKE's own characters in a typed piece are literal. */
const likePrefix = (piece: string): string => `${piece.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The WHERE clause of a filter and its bindings. States are written as literals (they are checked
 * against CASE_STATES), so the planner sees the unresolved queue's partial indexes apply.
 */
export function caseWhere(f: CaseFilter): { sql: string; args: Knex.RawBinding[] } {
  const where: string[] = [];
  const args: Knex.RawBinding[] = [];
  if (f.states?.length) {
    const states = [...new Set(f.states)].sort((a, b) => CASE_STATES.indexOf(a) - CASE_STATES.indexOf(b));
    if (states.some((s) => !CASE_STATES.includes(s))) throw new Error(`state: expected ${CASE_STATES.join(', ')}`);
    where.push(`state IN (${states.map((s) => `'${s}'`).join(', ')})`);
  }
  if (f.codes?.length) {
    const codes = [...new Set(f.codes)];
    where.push(`code IN (${codes.map(() => '?').join(', ')})`);
    args.push(...codes);
  }
  if (f.currency) {
    where.push('currency = ?');
    args.push(f.currency);
  }
  if (f.accountId !== undefined) {
    where.push('account_id = ?');
    args.push(f.accountId);
  }
  if (f.occurredFrom) {
    where.push('occurred_at >= ?');
    args.push(f.occurredFrom);
  }
  if (f.occurredTo) {
    where.push('occurred_at < ?');
    args.push(f.occurredTo);
  }
  if (f.openedBefore) {
    where.push('opened_at <= ?');
    args.push(f.openedBefore);
  }
  if (f.ref !== undefined) {
    if (f.ref.trim().length < REF_PIECE_MIN)
      throw new Error(`ref: give at least ${REF_PIECE_MIN} characters of a merchant or transaction ref`);
    where.push(`(lower(merchant_ref) LIKE ? OR lower(transaction_ref) LIKE ?)`);
    args.push(likePrefix(f.ref.trim()), likePrefix(f.ref.trim()));
  }
  if (f.assignee === null) where.push('assignee IS NULL');
  else if (f.assignee !== undefined) {
    where.push('assignee = ?');
    args.push(f.assignee);
  }
  // Built from the constant conditions above only; every value is a bound parameter.
  return { sql: where.length ? `WHERE ${where.join(' AND ')}` : '', args };
}

/** True when nothing narrows the filter (a bulk action refuses it). */
export function isEmptyFilter(f: CaseFilter): boolean {
  const { states: _states, limit: _limit, assignee, ...rest } = f;
  // An empty --assignee ('' is nobody's) narrows nothing in a queue nobody has taken: alone, it is no filter.
  return assignee == null && Object.values(rest).every((v) => v === undefined);
}
