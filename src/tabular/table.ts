/**
 * A report table described once and rendered by every writer (CSV, workbook, html), so the three
 * agree on columns and values by construction.
 *
 * Values arrive raw, as the database gave them: text as text (not yet neutralised), amounts and
 * other decimals as decimal text (never a JS number), counts as integers, times as epoch
 * milliseconds. Each writer turns them into its own typed cells.
 */
export type ColumnKind =
  /** Free text or an identifier (refs, UTR, bank codes, accounts): always text, leading zeros kept. */
  | 'text'
  /** Money in the currency named by the row's `currency` column: the currency's fixed decimals. */
  | 'amount'
  /** A whole count. */
  | 'count'
  /** An instant, shown in REPORT_TIMEZONE. */
  | 'datetime'
  /** A non-money decimal (rates), written with the digits stored. */
  | 'decimal';

export interface TableColumn {
  /** snake_case: the CSV header. */
  readonly name: string;
  readonly kind: ColumnKind;
  /** Header a person reads in the workbook and html; default: name with spaces. */
  readonly label?: string;
  /** Workbook column width in characters; default by kind. */
  readonly width?: number;
  /** A decimal column written with this many decimals (USDT: 6); default: the digits stored. */
  readonly decimals?: number;
}

export type CellValue = string | number | null;
export type TableRow = readonly CellValue[];

export interface Table {
  /** File stem (`summary_orders`) and the anchor in report.html. */
  readonly name: string;
  readonly title: string;
  readonly columns: readonly TableColumn[];
  readonly rows: readonly TableRow[];
  /** Lines a reader needs to read the table right (what a total includes, …). */
  readonly notes?: readonly string[];
  /** Print at this percentage, columns running on to further pages, instead of fitting the page width (a table read on paper). */
  readonly printScale?: number;
}

/** A table without its rows: what a reader of its CSV file needs to render it again. */
export type TableSpec = Pick<Table, 'name' | 'title' | 'columns' | 'notes'>;

export function columnLabel(c: TableColumn): string {
  return c.label ?? c.name.replaceAll('_', ' ');
}

/** Index of the column holding the row's currency (amount columns are read in it), or -1. */
export function currencyIndex(columns: readonly TableColumn[]): number {
  return columns.findIndex((c) => c.name === 'currency');
}
