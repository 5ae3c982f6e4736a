import { MAIN_NS, REL_NS, XML_DECLARATION, columnName } from './xml.ts';

/**
 * Characters of column width a landscape A4 page holds at 50 % (about 137 at 100 %): a sheet this
 * narrow is printed fitted to the page width; a wider one at PRINT_SCALE, its columns running on to
 * further pages, since fitted it would print too small to read (the Items sheet at about 25 %).
 */
const FIT_WIDTH_LIMIT = 275;
const PRINT_SCALE = 60;

/** Whether a sheet of these column widths is printed fitted to the page width. */
export const fitsPageWidth = (widths: readonly number[]): boolean => widths.reduce((a, b) => a + b, 0) <= FIT_WIDTH_LIMIT;

/**
 * The fixed parts of a worksheet's XML around its rows (ECMA-376 §18.3.1.99 fixes their order:
 * views, columns, the rows, then the autofilter).
 */
export function sheetHead(widths: readonly number[], frozenRows: number, fit = fitsPageWidth(widths)): string {
  const pane =
    frozenRows > 0
      ? `<pane ySplit="${frozenRows}" topLeftCell="A${frozenRows + 1}" activePane="bottomLeft" state="frozen"/>` +
        `<selection pane="bottomLeft" activeCell="A${frozenRows + 1}" sqref="A${frozenRows + 1}"/>`
      : '';
  const cols = widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`).join('');
  return (
    `${XML_DECLARATION}<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
    // Printed to fit the page width (pageSetup below) where that stays readable, as many pages down as it takes.
    (fit ? '<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>' : '') +
    `<sheetViews><sheetView workbookViewId="0">${pane}</sheetView></sheetViews>` +
    '<sheetFormatPr defaultRowHeight="15"/>' +
    (cols ? `<cols>${cols}</cols>` : '') +
    '<sheetData>'
  );
}

/** `merged`: ranges shown as one cell (a note across the table's width, wrapped there). */
export function sheetTail(autoFilter: string | null, fit: boolean, merged: readonly string[] = [], printScale = PRINT_SCALE): string {
  const scale = fit ? 'fitToWidth="1" fitToHeight="0"' : `scale="${printScale}"`;
  const merges = merged.map((ref) => `<mergeCell ref="${ref}"/>`).join('');
  return (
    '</sheetData>' +
    (autoFilter ? `<autoFilter ref="${autoFilter}"/>` : '') +
    (merges ? `<mergeCells count="${merged.length}">${merges}</mergeCells>` : '') +
    '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>' +
    `<pageSetup paperSize="9" ${scale} orientation="landscape"/></worksheet>`
  );
}

/** A range reference, e.g. A1:X100. */
export const rangeRef = (firstRow: number, lastRow: number, columns: number): string => `A${firstRow}:${columnName(columns - 1)}${lastRow}`;

/**
 * One row from cell bodies by column (null: no cell). A cell carries its reference only where a
 * reader cannot infer it (the row's first cell, and after a gap): the rest follow in order,
 * which keeps a million-row sheet a good deal smaller to write and to compress.
 */
export function rowXml(row: number, cells: readonly (string | null)[], height?: number): string {
  let xml = height === undefined ? `<row r="${row}">` : `<row r="${row}" ht="${height}" customHeight="1">`;
  let previous = -2;
  for (let i = 0; i < cells.length; i++) {
    const body = cells[i];
    if (body === null) continue;
    xml += i === previous + 1 ? `<c${body}` : `<c r="${columnName(i)}${row}"${body}`;
    previous = i;
  }
  return `${xml}</row>`;
}
