import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../db/connect.ts';
import type { CaseFilter } from '../db/case-filter.ts';
import { eachCase, type CaseSort } from '../db/case-queue.ts';
import { WorkbookFile } from '../tabular/workbook/writer.ts';
import type { SlaHours } from '../recon/case-sla.ts';
import { EXPORT_TABLE_COLUMNS, exportRow } from './export-rows.ts';

/**
 * The filtered queue as a workbook (the project's own streaming writer) in a temporary directory;
 * the caller sends the file and calls `remove`. Its resolution_reason and resolution_note columns
 * are empty for a person to fill in.
 */
export async function writeQueueWorkbook(
  db: Db,
  filter: CaseFilter,
  sort: CaseSort,
  opts: { zone: string; sla: SlaHours; now: Date },
): Promise<{ file: string; rows: number; remove: () => Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'payrecon-cases-'));
  const remove = () => fs.rm(dir, { recursive: true, force: true });
  try {
    const file = path.join(dir, 'cases.xlsx');
    const wb = new WorkbookFile(file, { zone: opts.zone, created: opts.now });
    const sheet = wb.sheet('Cases', EXPORT_TABLE_COLUMNS, { totals: false });
    for await (const c of eachCase(db.knex, filter, sort)) await sheet.add(exportRow(c, opts.sla, opts.now));
    sheet.close();
    const result = await wb.close();
    return { file, rows: result.rows, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
