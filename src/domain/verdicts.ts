/** The words of a check's outcome, shared by every layer: the core decides them, the database stores them, reports show them. */

export const MISMATCH_CODES = [
  'STATUS',
  'AMOUNT',
  'PAID_AMOUNT',
  'FEE',
  'FEE_SCHEDULE',
  'CURRENCY',
  'METHOD',
  'MERCHANT_REF',
  'NOT_FOUND',
  'STALE',
  'UTR_MISSING',
  'UTR',
  'BANK_CODE',
  'BALANCE_DRIFT',
  'WEBHOOK_MISSING',
  'WEBHOOK_CONFLICT',
  'UNKNOWN_ORDER',
  'STATEMENT_UNMATCHED',
  'MOVEMENT_UNSETTLED',
  'DRIFT_MATCHES_PENDING',
  'MOVEMENT_UNSEEN',
] as const;
export type MismatchCode = (typeof MISMATCH_CODES)[number];

export const VERDICTS = ['matched', 'resolved', 'pending', 'mismatch', 'error'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** In reports, an order of the day no check has seen yet is `unchecked`. */
export const REPORT_VERDICTS = [...VERDICTS, 'unchecked'] as const;
export type ReportVerdict = (typeof REPORT_VERDICTS)[number];
