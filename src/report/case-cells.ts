import type { Knex } from '../db/knex-types.ts';
import { casesBySubject, unknownOrderSubject } from '../db/cases.ts';
import type { OrderCasesColumns } from '../db/report-orders.ts';
import type { Direction } from '../domain/types.ts';
import { orderCaseCells, type CaseLike } from '../recon/case-figures.ts';
import type { CaseReason, CaseState } from '../recon/cases.ts';
import type { TableColumn } from '../tabular/table.ts';

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

/** The case columns of an unknown order's row: its UNKNOWN_ORDER case, by transactionRef. */
export interface UnknownOrderSubject {
  direction: string;
  transaction_ref: string;
}

export function caseColumns(cases: readonly CaseLike[], now: Date): CaseColumns {
  if (cases.length === 0) return NO_CASE;
  const c = orderCaseCells(cases, now);
  return { case_id: c.caseIds, case_state: c.caseState, case_age_days: c.caseAgeDays };
}

/** The case columns of a report row from the arrays its query selected (src/db/report-orders.ts CASES_OF). */
export function rowCaseColumns(r: Partial<OrderCasesColumns>, now: Date): CaseColumns {
  const ids = r.case_ids ?? [];
  return caseColumns(
    ids.map((id, i) => ({
      id,
      state: r.case_states![i] as CaseState,
      resolution: (r.case_resolutions![i] ?? null) as CaseReason | null,
      openedAt: new Date(Number(r.case_opened_ms![i])),
    })),
    now,
  );
}

/** Each page of report rows with its case columns, computed from what the cursor selected. */
export async function* withCaseColumns<T extends Partial<OrderCasesColumns>>(
  pages: AsyncIterable<T[]>,
  now: Date,
): AsyncGenerator<Array<T & Partial<CaseColumns>>> {
  // The rows are the cursor's own fresh objects: assigned in place, no copy per row of a large day,
  // and only for an order with cases (the tables read a missing case column as empty), so most rows
  // keep the shape the driver gave them instead of growing three properties each.
  for await (const page of pages) {
    for (const r of page) if (r.case_ids) Object.assign(r, rowCaseColumns(r, now));
    yield page;
  }
}

/** The case columns of the day's unknown orders (a few rows): one query for all of them. */
export async function unknownOrderCaseColumns(
  db: Knex | Knex.Transaction,
  rows: readonly UnknownOrderSubject[],
  now: Date,
): Promise<CaseColumns[]> {
  const subjects = rows.map((r) => unknownOrderSubject(r.direction as Direction, r.transaction_ref));
  const bySubject = await casesBySubject(db, subjects);
  return subjects.map((s) => caseColumns(bySubject.get(s) ?? [], now));
}
