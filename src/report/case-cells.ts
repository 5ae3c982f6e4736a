import type { Knex } from 'knex';
import { casesBySubject, orderSubject, unknownOrderSubject, type StoredCase } from '../db/cases.ts';
import type { Direction } from '../provider/types.ts';
import { orderCaseCells } from '../recon/case-figures.ts';
import type { TableColumn } from './table.ts';

/**
 * The case columns of a report row (mismatches, items, open items): the order's case ids, the state
 * of the one that most needs a person, and the age in whole days of the oldest unresolved one, as
 * of the instant the version is written (src/recon/case-figures.ts decides them). The age moves
 * with the clock, so it is not business content (business-view.ts); the state is.
 */
export interface CaseColumns {
  case_id: string | null;
  case_state: string | null;
  case_age_days: number | null;
}

/** The case columns of the item and open-item tables: state first, what a person scans for. */
export const CASE_COLUMNS: readonly TableColumn[] = [
  { name: 'case_state', kind: 'text', label: 'case state', width: 13 },
  { name: 'case_age_days', kind: 'count', label: 'case age (days)' },
  { name: 'case_id', kind: 'text', label: 'case id', width: 9 },
];

const NO_CASE: CaseColumns = { case_id: null, case_state: null, case_age_days: null };

/** A row's case subject: its order, or the transactionRef of an order only the provider knows. */
export type CaseSubjectOf = { direction: string; order_id: string } | { direction: string; transaction_ref: string; unknown: true };

function subjectOf(r: CaseSubjectOf): string {
  return 'unknown' in r
    ? unknownOrderSubject(r.direction as Direction, r.transaction_ref)
    : orderSubject(r.direction as Direction, r.order_id);
}

export function caseColumns(cases: readonly StoredCase[], now: Date): CaseColumns {
  if (cases.length === 0) return NO_CASE;
  const c = orderCaseCells(cases, now);
  return { case_id: c.caseIds, case_state: c.caseState, case_age_days: c.caseAgeDays };
}

/** The case columns of one page of rows, in the rows' order: one query per page. */
export async function caseColumnsOfPage(db: Knex | Knex.Transaction, rows: readonly CaseSubjectOf[], now: Date): Promise<CaseColumns[]> {
  const subjects = rows.map(subjectOf);
  const bySubject = await casesBySubject(db, subjects);
  return subjects.map((s) => caseColumns(bySubject.get(s) ?? [], now));
}

/** Each page of report rows with its case columns: one query per page, the cursor's memory bound kept. */
export async function* withCaseColumns<T extends CaseSubjectOf>(
  db: Knex | Knex.Transaction,
  pages: AsyncIterable<T[]>,
  now: Date,
): AsyncGenerator<Array<T & CaseColumns>> {
  for await (const page of pages) {
    const cols = await caseColumnsOfPage(db, page, now);
    yield page.map((r, i) => ({ ...r, ...cols[i] }));
  }
}
