import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { guardWorkbook } from './workbook-guard.ts';
import { ImportFileError } from './import-file-error.ts';
import { messageOf } from '../domain/errors.ts';

/** One filled-in row of an exported queue, as text, with its row number in the file (the header is row 1). */
export interface ImportRow {
  row: number;
  caseId: string;
  version: string;
  reason: string;
  note: string;
}

/**
 * Rows one upload may hold: a batch a person decided, not the whole queue. exceljs reads a workbook
 * whole, about 10 KB of memory a row (1 GB at 100,000 rows, measured), so the cap bounds the memory:
 * the sheet's rows are counted as it inflates (workbook-guard.ts) and reading stops at the cap. The one
 * constant for the queue's upload and export limits: import it rather than repeat the number.
 */
export const IMPORT_MAX_ROWS = 20_000;
const NEEDED = ['case_id', 'version', 'resolution_reason', 'resolution_note'] as const;

/**
 * The rows of an exported queue filled in a spreadsheet: the console's workbook (.xlsx, first sheet)
 * or `payrecon cases list --csv` edited the same way. Columns are found by their header (the
 * workbook says "case id", the CSV case_id), so a person may reorder or add columns.
 */
export async function readImportFile(bytes: Buffer): Promise<ImportRow[]> {
  const table = isZip(bytes) ? await workbookRows(bytes) : csvRows(bytes);
  const header = (table[0] ?? []).map((h) => h.trim().toLowerCase().replace(/\s+/g, '_'));
  const missing = NEEDED.filter((n) => !header.includes(n));
  if (missing.length)
    throw new ImportFileError(
      `the first row has no ${missing.join(', ')} column${missing.length > 1 ? 's' : ''}: upload the queue's export (Export workbook) with its header row as downloaded`,
    );
  const at = Object.fromEntries(NEEDED.map((n) => [n, header.indexOf(n)])) as Record<(typeof NEEDED)[number], number>;
  const rows: ImportRow[] = [];
  for (let i = 1; i < table.length; i++) {
    const cell = (n: (typeof NEEDED)[number]) => (table[i][at[n]] ?? '').trim();
    const r = {
      row: i + 1,
      caseId: cell('case_id'),
      version: cell('version'),
      reason: cell('resolution_reason'),
      note: cell('resolution_note'),
    };
    if (r.caseId || r.version || r.reason || r.note) rows.push(r);
  }
  return rows;
}

function isZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50;
}

function tooMany(): ImportFileError {
  return new ImportFileError(`more than ${IMPORT_MAX_ROWS.toLocaleString('en-US')} rows: export a narrower filter and upload it in parts`);
}

/**
 * The first worksheet as text cells. exceljs reads a workbook whole, so the file is first read as a
 * stream (workbook-guard.ts): every entry inflated with its bytes counted, whatever sizes the zip
 * declares, and the first sheet's rows counted as they inflate; a zip bomb or a sheet past the row cap
 * is refused there, having cost at most the limit, before exceljs sees the file.
 */
async function workbookRows(bytes: Buffer): Promise<string[][]> {
  await guardWorkbook(bytes, { maxInflatedBytes: WORKBOOK_MAX_INFLATED, maxRows: IMPORT_MAX_ROWS + 1, tooMany });
  const rows: string[][] = [];
  try {
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(bytes as unknown as ArrayBuffer);
    const sheet = wb.worksheets[0];
    if (sheet && sheet.rowCount > IMPORT_MAX_ROWS + 1) throw tooMany();
    sheet?.eachRow({ includeEmpty: true }, (row) => {
      rows.push((row.values as unknown[]).slice(1).map(cellText));
    });
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    throw new ImportFileError(`not a workbook that could be read (${messageOf(err)}): upload the .xlsx as saved by the spreadsheet`);
  }
  if (rows.length === 0) throw new ImportFileError('the workbook has no rows: upload the queue export with its header row');
  return rows;
}

/** What a workbook may unpack to: the export of 20,000 cases is about 25 MB of XML, an Excel save less. */
const WORKBOOK_MAX_INFLATED = 48 * 1024 * 1024;

function csvRows(bytes: Buffer): string[][] {
  const text = bytes.toString('utf8');
  if (text.includes('\uFFFD') || text.includes('\0'))
    throw new ImportFileError('neither a workbook (.xlsx) nor a UTF-8 CSV file: upload the queue export as downloaded, filled in');
  try {
    const rows = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: true, to: IMPORT_MAX_ROWS + 2 }) as string[][];
    if (rows.length > IMPORT_MAX_ROWS + 1) throw tooMany();
    return rows;
  } catch (err) {
    if (err instanceof ImportFileError) throw err;
    throw new ImportFileError(`not a CSV file that could be read (${messageOf(err)})`);
  }
}

/** A cell as the text a person sees: a number typed into the id column, rich text, a formula's result. */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') {
    const o = v as { richText?: Array<{ text: string }>; text?: unknown; result?: unknown };
    if (Array.isArray(o.richText)) return o.richText.map((p) => p.text).join('');
    if (o.text !== undefined) return cellText(o.text);
    if ('result' in o) return cellText(o.result);
  }
  return '';
}
