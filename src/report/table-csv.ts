import { parse } from 'csv-parse/sync';
import type { CellValue, Table, TableColumn, TableSpec } from '../tabular/table.ts';

/**
 * A table read back from the CSV file it was written to, as raw values again (amounts as decimal
 * text, counts as numbers, times as epoch ms), so the e-mail, built later from the version's
 * files, renders it through the same definition as report.html. Columns are found by name: a
 * column the file lacks is empty.
 */
export function tableFromCsv(spec: TableSpec, csv: string | Buffer): Table {
  const [header = [], ...records] = parse(csv, { bom: true, relax_column_count: true }) as string[][];
  const at = spec.columns.map((c) => header.indexOf(c.name));
  return {
    ...spec,
    rows: records.map((rec) => spec.columns.map((c, i) => (at[i] < 0 ? null : rawValue(c, rec[at[i]] ?? '')))),
  };
}

function rawValue(c: TableColumn, text: string): CellValue {
  if (text === '') return null;
  switch (c.kind) {
    case 'count':
      return Number(text);
    case 'datetime': {
      // Written as "2024-05-01T00:05:00.000+05:30": an instant with its offset.
      const ms = Date.parse(text);
      return Number.isNaN(ms) ? null : ms;
    }
    default:
      return text;
  }
}
