import path from 'node:path';
import { businessView } from './business-view.ts';
import { csvCells, csvHeader } from './csv-cells.ts';
import { CsvFile, type CsvFileResult } from './csv-file.ts';
import type { Table, TableColumn, TableRow } from '../tabular/table.ts';

/** A streamed query into one CSV file, through its table definition. */
export async function writeStreamFile<T>(
  file: string,
  columns: readonly TableColumn[],
  pages: AsyncGenerator<T[]>,
  toRow: (r: T) => TableRow,
  formatTime: (ms: number) => string,
): Promise<CsvFileResult> {
  const header = csvHeader(columns);
  const csv = new CsvFile(file, header, businessView(header));
  try {
    for await (const page of pages) {
      for (const r of page) {
        const wait = csv.write(csvCells(columns, toRow(r), formatTime));
        if (wait) await wait;
      }
    }
  } catch (err) {
    await csv.abort();
    throw err;
  }
  return csv.close();
}

/** A small table into `<name>.csv`, through its table definition. */
export async function writeTableFile(dir: string, table: Table, formatTime: (ms: number) => string): Promise<CsvFileResult> {
  const header = csvHeader(table.columns);
  const csv = new CsvFile(path.join(dir, `${table.name}.csv`), header, businessView(header));
  try {
    for (const r of table.rows) await csv.write(csvCells(table.columns, r, formatTime));
  } catch (err) {
    await csv.abort();
    throw err;
  }
  return csv.close();
}
