import fs from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * The archive prune writes before it deletes: one file per table and UTC month,
 * `<dir>/<table>/<table>-YYYY-MM.jsonl.gz`, each line one deleted row as Postgres's row_to_json
 * (numbers are exact decimal literals: read them with a lossless JSON parser, never as floats).
 * Each batch is appended as a gzip member of its own, so a file is a valid gzip stream after every
 * batch, and is on disk (fsync) before the batch's delete commits.
 */
export function archiveFile(dir: string, table: string, month: string): string {
  return path.join(dir, table, `${table}-${month}.jsonl.gz`);
}

/** Appends rows (grouped by month) to their files and fsyncs them; returns the files written. */
export async function appendToArchive(dir: string, table: string, rows: ReadonlyArray<{ month: string; line: string }>): Promise<string[]> {
  const byMonth = new Map<string, string[]>();
  for (const r of rows) {
    const lines = byMonth.get(r.month) ?? [];
    lines.push(r.line);
    byMonth.set(r.month, lines);
  }
  await fs.mkdir(path.join(dir, table), { recursive: true });
  const files: string[] = [];
  for (const [month, lines] of byMonth) {
    const file = archiveFile(dir, table, month);
    const handle = await fs.open(file, 'a');
    try {
      await handle.write(gzipSync(`${lines.join('\n')}\n`));
      await handle.sync();
    } finally {
      await handle.close();
    }
    files.push(file);
  }
  return files;
}
