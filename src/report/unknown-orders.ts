import type { Knex } from '../db/knex-types.ts';
import type { OpenUnknownOrderRow, UnknownOrderRow } from '../db/unknown-orders.ts';
import type { OpenItemRow } from '../db/reports.ts';
import type { Direction } from '../domain/types.ts';
import { unknownOrderFinding, type WebhookFinding } from '../recon/webhook-findings.ts';
import type { CellValue, TableColumn, TableRow } from '../tabular/table.ts';
import { unknownOrderCaseColumns, type CaseColumns } from './case-cells.ts';
import { ITEM_TABLE_COLUMNS } from './item-table.ts';

/**
 * An order the provider confirmed and the merchant has no record of, as a row of the mismatch
 * table (mismatches.csv, the Mismatches sheet, report.html). Choices, for accounting:
 * - It is a mismatch of the business day its first confirmed notification was received, in the
 *   report's zone: the provider's notification and fetch carry no creation time, and receipt is
 *   when the merchant learnt of the money.
 * - It sits in the mismatch list, after the merchant's own orders, with code UNKNOWN_ORDER: one
 *   list of what needs a person, filterable by code. It is not in items.csv (not a merchant order).
 * - On later days of the lookback it is an open item (after the orders) while no local order has
 *   its transactionRef, as a mismatched order stays one while it is mismatched.
 * - The local columns are empty (there is no local order); the difference is the whole provider
 *   amount (for a payment the amount paid when the provider gives one): money no order explains.
 */
export function unknownOrderValues(u: UnknownOrderRow, businessDate: string): Record<string, CellValue> {
  const finding = findingOf(u);
  const moved = u.direction === 'payment' ? (u.paid_amount ?? u.amount) : u.amount;
  return {
    business_date: businessDate,
    direction: u.direction,
    merchant_ref: u.merchant_ref,
    mismatch_codes: 'UNKNOWN_ORDER',
    difference: moved,
    currency: u.currency,
    provider_amount: u.amount,
    provider_paid_amount: u.paid_amount,
    provider_fee: u.fee,
    provider_status: u.status,
    verdict: 'mismatch',
    method: u.method,
    transaction_ref: u.transaction_ref,
    checked_at: u.confirmed_at_ms === null ? null : Number(u.confirmed_at_ms),
    reason: finding.note,
  };
}

/** The row in a table's columns, by name: a column the row has no value for is empty. */
function rowByName(columns: readonly TableColumn[], values: Readonly<Record<string, CellValue>>): TableRow {
  return columns.map((c) => values[c.name] ?? null);
}

/** The day's unknown orders as rows of the item table, each with its UNKNOWN_ORDER case's columns. */
export async function unknownOrderTableRows(
  db: Knex | Knex.Transaction,
  unknown: readonly UnknownOrderRow[],
  businessDate: string,
  now: Date,
): Promise<TableRow[]> {
  const cases = await unknownOrderCaseColumns(db, unknown, now);
  return unknown.map((u, i) => rowByName(ITEM_TABLE_COLUMNS, { ...unknownOrderValues(u, businessDate), ...cases[i] }));
}

/**
 * An unknown order of an earlier day still open (no local order has its transactionRef), as an
 * open item: verdict mismatch, code UNKNOWN_ORDER, the amount the provider moved, no local status.
 */
function openItemOf(u: OpenUnknownOrderRow, cases: CaseColumns): OpenItemRow & CaseColumns {
  const note = findingOf(u).note;
  return {
    business_date: u.business_date,
    run_id: null,
    checked_at_ms: u.confirmed_at_ms,
    created_at_ms: u.first_received_at_ms,
    direction: u.direction,
    order_id: '',
    merchant_ref: u.merchant_ref ?? '',
    transaction_ref: u.transaction_ref,
    currency: u.currency ?? '',
    method: u.method ?? '',
    local_status: '',
    provider_status: u.status,
    provider_category: null,
    provider_currency: u.currency,
    local_amount: (u.direction === 'payment' ? (u.paid_amount ?? u.amount) : u.amount) ?? '',
    provider_amount: u.amount,
    local_paid_amount: null,
    provider_paid_amount: u.paid_amount,
    local_fee: null,
    provider_fee: u.fee,
    utr: null,
    bank_code: null,
    finalized_at_ms: null,
    verdict: 'mismatch',
    mismatch_codes: 'UNKNOWN_ORDER',
    reason: note,
    ...cases,
  };
}

/** The open items' pages, then the earlier days' unknown orders still open, each with its case. */
export async function* withOpenUnknownOrders(
  db: Knex | Knex.Transaction,
  pages: AsyncIterable<Array<OpenItemRow & Partial<CaseColumns>>>,
  unknown: readonly OpenUnknownOrderRow[],
  now: Date,
): AsyncGenerator<Array<OpenItemRow & Partial<CaseColumns>>> {
  yield* pages;
  if (unknown.length === 0) return;
  const cases = await unknownOrderCaseColumns(db, unknown, now);
  yield unknown.map((u, i) => openItemOf(u, cases[i]));
}

/** The UNKNOWN_ORDER finding of a stored unknown order, as every report row of it states it. */
function findingOf(u: UnknownOrderRow): WebhookFinding {
  return unknownOrderFinding({
    direction: u.direction as Direction,
    merchantRef: u.merchant_ref,
    transactionRef: u.transaction_ref,
    currency: u.currency,
    amount: u.amount,
    status: u.status,
  });
}
