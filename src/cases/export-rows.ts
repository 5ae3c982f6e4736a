import type { StoredCase } from '../db/cases.ts';
import { moneyValue } from '../domain/money-codes.ts';
import { textCell } from '../tabular/neutralize.ts';
import { amountCell, fixedDecimalCell, USDT_DECIMALS } from '../tabular/format.ts';
import type { CellValue, TableColumn } from '../tabular/table.ts';
import { breachesSla, type SlaHours } from '../recon/case-sla.ts';

/**
 * The queue as rows for a CSV or a workbook: whole refs and codes as text, money as numbers in the
 * case's currency (the signed difference, what is at stake and its USDT value), values that are not
 * money (a status, a ref, a time) in their own text columns, and two empty resolution columns a
 * person fills in a spreadsheet and uploads (POST /cases/import, read by header).
 */
export const EXPORT_TABLE_COLUMNS: readonly TableColumn[] = [
  { name: 'case_id', kind: 'text' },
  { name: 'version', kind: 'text' },
  { name: 'state', kind: 'text' },
  { name: 'code', kind: 'text' },
  { name: 'currency', kind: 'text' },
  { name: 'merchant_ref', kind: 'text', width: 44 },
  { name: 'transaction_ref', kind: 'text', width: 44 },
  { name: 'local', kind: 'amount' },
  { name: 'provider', kind: 'amount' },
  { name: 'difference', kind: 'amount' },
  { name: 'at_risk', kind: 'amount' },
  { name: 'at_risk_usdt', kind: 'decimal', decimals: USDT_DECIMALS },
  { name: 'local_detail', kind: 'text' },
  { name: 'provider_detail', kind: 'text' },
  { name: 'opened_at', kind: 'text' },
  { name: 'sla_breached', kind: 'text' },
  { name: 'assignee', kind: 'text' },
  { name: 'finding', kind: 'text', width: 40 },
  { name: 'resolution_reason', kind: 'text' },
  { name: 'resolution_note', kind: 'text', width: 40 },
];

export const EXPORT_COLUMNS: readonly string[] = EXPORT_TABLE_COLUMNS.map((c) => c.name);

/**
 * One case as raw cells in EXPORT_TABLE_COLUMNS order: amounts as the stored decimal text (the
 * workbook writes them as numbers with the currency's decimals), text a spreadsheet would
 * evaluate neutralized.
 */
export function exportRow(c: StoredCase, sla: SlaHours, now: Date): CellValue[] {
  const detail = (v: unknown) => (v === null || v === undefined || moneyValue(c.code, v) !== null ? '' : textCell(String(v)));
  return [
    c.id,
    String(c.version),
    c.state,
    c.code,
    c.currency ?? '',
    textCell(c.merchantRef),
    textCell(c.transactionRef),
    moneyValue(c.code, c.finding.local),
    moneyValue(c.code, c.finding.provider),
    c.difference,
    c.atRisk,
    c.atRiskUsdt,
    detail(c.finding.local),
    detail(c.finding.provider),
    c.openedAt.toISOString(),
    breachesSla(c, sla, now) ? 'yes' : '',
    c.assignee ?? '',
    c.finding.note === undefined ? '' : textCell(String(c.finding.note)),
    '',
    '',
  ];
}

/** The same row as CSV text: amounts with the currency's fixed decimals, USDT with 6. */
export function exportCsvRow(c: StoredCase, sla: SlaHours, now: Date): string[] {
  const currency = c.currency ?? '';
  return exportRow(c, sla, now).map((v, i) => {
    const col = EXPORT_TABLE_COLUMNS[i];
    if (v === null || v === '') return '';
    if (col.kind === 'amount') return amountCell(String(v), currency);
    if (col.kind === 'decimal') return fixedDecimalCell(String(v), col.decimals);
    return String(v);
  });
}
