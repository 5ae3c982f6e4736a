import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { Direction } from '../domain/types.ts';
import { IMPORT_COLUMNS, validateOrderRow, type RowRules } from './import-row.ts';
import type { NewOrder } from '../db/orders.ts';
import { UsageError } from '../domain/errors.ts';

/** A good row of an order CSV, with its 1-based line (the header is line 1). */
export interface OrderCsvRow {
  line: number;
  order: NewOrder;
}

/** A row that cannot be used, and every reason why. */
export interface OrderCsvRejection {
  line: number;
  reason: string;
}

/** The file as a whole is unusable (empty, or a bad header): nothing of it may be used. */
export class ImportFormatError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'ImportFormatError';
  }
}

/**
 * Reads a merchant's order CSV of one kind, row by row (streamed): each record is a validated order
 * or a rejection naming its line and problems, including refs repeated within the file. Shared by
 * `payrecon import` (into the database) and the sandbox adopting the same file (as the provider's record).
 * Throws ImportFormatError for an empty file or a bad header, before yielding anything.
 */
export async function* readOrderCsv(
  input: Readable,
  opts: RowRules & { kind: Direction },
): AsyncGenerator<OrderCsvRow | OrderCsvRejection> {
  const { kind } = opts;
  const seen = { merchant_ref: new Map<string, number>(), transaction_ref: new Map<string, number>() };
  const unreadable: OrderCsvRejection[] = [];
  let header: string[] | undefined;

  const parser = input.pipe(
    parse({
      bom: true,
      trim: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      skip_records_with_error: true,
      on_skip: (err) => {
        const line = (err as { lines?: number } | undefined)?.lines ?? 0;
        unreadable.push({ line, reason: `unreadable CSV: ${err?.message ?? 'parse error'}` });
        return undefined;
      },
    }),
  );

  for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    yield* unreadable.splice(0);
    // info.lines is where the record ends; a quoted field with newlines starts earlier.
    const line = info.lines - record.reduce((n, f) => n + (f.match(/\n/g)?.length ?? 0), 0);
    if (!header) {
      header = checkHeader(kind, record);
      continue;
    }
    if (record.length !== header.length) {
      yield { line, reason: `expected ${header.length} fields, got ${record.length}` };
      continue;
    }
    const rec = Object.fromEntries(header.map((h, i) => [h, record[i]]));
    const v = validateOrderRow(kind, rec, opts);
    if (!v.ok) {
      yield { line, reason: v.reason };
      continue;
    }
    const dup = duplicateIn(seen, v.order, line);
    yield dup ? { line, reason: dup } : { line, order: v.order };
  }
  yield* unreadable.splice(0);
  if (!header) throw new ImportFormatError('the file is empty: expected a header row');
}

function checkHeader(kind: Direction, record: string[]): string[] {
  const { required, optional } = IMPORT_COLUMNS[kind];
  const known = new Set([...required, ...optional]);
  const problems: string[] = [];
  const unknown = record.filter((h) => !known.has(h));
  if (unknown.length) problems.push(`unknown column(s) for ${kind}s: ${unknown.join(', ')}`);
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

function duplicateIn(
  seen: Record<'merchant_ref' | 'transaction_ref', Map<string, number>>,
  order: NewOrder,
  line: number,
): string | undefined {
  // Both refs are unique across accounts in one database (sql/052 keeps merchant_ref so).
  const merchantKey = order.merchantRef.toLowerCase();
  for (const [field, value, key] of [
    ['merchant_ref', order.merchantRef, merchantKey],
    ['transaction_ref', order.transactionRef, order.transactionRef.toLowerCase()],
  ] as const) {
    const first = seen[field].get(key);
    if (first !== undefined) return `${field}: ${value} duplicates line ${first}`;
  }
  seen.merchant_ref.set(merchantKey, line);
  seen.transaction_ref.set(order.transactionRef.toLowerCase(), line);
  return undefined;
}
