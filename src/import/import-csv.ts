import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { UsageError } from '../domain/errors.ts';

/** The file as a whole is unusable (empty, or a bad header): nothing of it may be used. */
export class ImportFormatError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'ImportFormatError';
  }
}

/**
 * An import file's header row, checked against its columns: every problem named at once (unknown,
 * missing, repeated), with the columns expected. `of` says whose columns an unknown one is not
 * (" for payments"). Returns the header; throws ImportFormatError.
 */
export function checkCsvHeader(
  record: string[],
  columns: { readonly required: readonly string[]; readonly optional: readonly string[] },
  of = '',
): string[] {
  const { required, optional } = columns;
  const known = new Set<string>([...required, ...optional]);
  const problems: string[] = [];
  const unknown = record.filter((h) => !known.has(h));
  if (unknown.length) problems.push(`unknown column(s)${of}: ${unknown.join(', ')}`);
  const missing = required.filter((h) => !record.includes(h));
  if (missing.length) problems.push(`missing column(s): ${missing.join(', ')}`);
  const repeated = record.filter((h, i) => record.indexOf(h) !== i);
  if (repeated.length) problems.push(`repeated column(s): ${repeated.join(', ')}`);
  if (problems.length) {
    throw new ImportFormatError(
      `line 1 (header): ${problems.join('; ')}. Expected ${required.join(', ')}; optional ${optional.join(', ')}.`,
    );
  }
  return record;
}

/**
 * An import file's records with the line each starts on, read leniently (BOM, trimmed fields, blank lines
 * skipped, any field count: the caller names a wrong one). A record the parser cannot read is handed to
 * `unreadable` with its line, and reading goes on.
 */
export async function* csvRecords(
  input: Readable,
  unreadable: (rejection: { line: number; reason: string }) => void,
): AsyncGenerator<{ record: string[]; line: number }> {
  const parser = input.pipe(
    parse({
      bom: true,
      trim: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      skip_records_with_error: true,
      on_skip: (err) => {
        unreadable({
          line: (err as { lines?: number } | undefined)?.lines ?? 0,
          reason: `unreadable CSV: ${err?.message ?? 'parse error'}`,
        });
        return undefined;
      },
    }),
  );
  for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    // info.lines is where the record ends; a quoted field with newlines starts earlier.
    yield { record, line: info.lines - record.reduce((n, f) => n + (f.match(/\n/g)?.length ?? 0), 0) };
  }
}
