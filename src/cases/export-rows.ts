import type { StoredCase } from '../db/cases.ts';
import { textCell } from '../report/neutralize.ts';
import { breachesSla, type SlaHours } from '../recon/case-sla.ts';

/**
 * The queue as rows for a CSV or a workbook: whole refs, amounts as stored decimal text, and two
 * empty resolution columns a person fills in a spreadsheet and uploads (POST /cases/import).
 */
export const EXPORT_COLUMNS = [
  'case_id',
  'version',
  'state',
  'code',
  'currency',
  'merchant_ref',
  'transaction_ref',
  'local',
  'provider',
  'at_risk',
  'opened_at',
  'sla_breached',
  'assignee',
  'finding',
  'resolution_reason',
  'resolution_note',
] as const;

/** One case as text cells in EXPORT_COLUMNS order; text a spreadsheet would evaluate is neutralized. */
export function exportRow(c: StoredCase, sla: SlaHours, now: Date): string[] {
  const value = (v: unknown) => (v === null || v === undefined ? '' : textCell(String(v)));
  return [
    c.id,
    String(c.version),
    c.state,
    c.code,
    c.currency ?? '',
    textCell(c.merchantRef),
    textCell(c.transactionRef),
    value(c.finding.local),
    value(c.finding.provider),
    c.atRisk ?? '',
    c.openedAt.toISOString(),
    breachesSla(c, sla, now) ? 'yes' : '',
    c.assignee ?? '',
    value(c.finding.note),
    '',
    '',
  ];
}
