import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { parse } from 'csv-parse';
import { EXIT } from '../runtime/exit-codes.ts';
import type { Direction } from '../provider/types.ts';
import { IMPORT_COLUMNS, validateOrderRow, type RowRules } from './import-row.ts';
import { ORDER_TABLES, toColumns, type NewOrder } from './orders.ts';

export interface ImportRejection {
  /** 1-based line in the file (the header is line 1). */
  line: number;
  reason: string;
}

export interface ImportResult {
  kind: Direction;
  /** Data records read (header excluded). */
  rows: number;
  inserted: number;
  rejected: ImportRejection[];
}

/** The file as a whole is unusable (bad header); nothing was inserted. */
export class ImportFormatError extends Error {
  readonly exitCode = EXIT.USAGE;
  constructor(message: string) {
    super(message);
    this.name = 'ImportFormatError';
  }
}

export interface ImportOptions extends RowRules {
  kind: Direction;
  /** Rows per INSERT statement (default 500). */
  batchSize?: number;
}

interface Pending {
  line: number;
  order: NewOrder;
}

/**
 * Reads an order CSV (header row first), validates every record and inserts the good ones in
 * batches. A bad or duplicate row is a rejection with its line number, never a crash; each good
 * row is inserted whole or not at all. Rows are streamed, so file size is not bounded by memory
 * (except the refs seen, kept to catch duplicates within the file).
 */
export async function importOrders(db: Knex, input: Readable, opts: ImportOptions): Promise<ImportResult> {
  const { kind } = opts;
  const batchSize = opts.batchSize ?? 500;
  const result: ImportResult = { kind, rows: 0, inserted: 0, rejected: [] };
  const seen = { merchant_ref: new Map<string, number>(), transaction_ref: new Map<string, number>() };
  let header: string[] | undefined;
  let batch: Pending[] = [];

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
        result.rows++;
        result.rejected.push({ line, reason: `unreadable CSV: ${err?.message ?? 'parse error'}` });
        return undefined;
      },
    }),
  );

  for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
    // info.lines is where the record ends; a quoted field with newlines starts earlier.
    const line = info.lines - record.reduce((n, f) => n + (f.match(/\n/g)?.length ?? 0), 0);
    if (!header) {
      header = checkHeader(kind, record);
      continue;
    }
    result.rows++;
    if (record.length !== header.length) {
      result.rejected.push({ line, reason: `expected ${header.length} fields, got ${record.length}` });
      continue;
    }
    const rec = Object.fromEntries(header.map((h, i) => [h, record[i]]));
    const v = validateOrderRow(kind, rec, opts);
    if (!v.ok) {
      result.rejected.push({ line, reason: v.reason });
      continue;
    }
    const dup = duplicateIn(seen, v.order, line);
    if (dup) {
      result.rejected.push({ line, reason: dup });
      continue;
    }
    batch.push({ line, order: v.order });
    if (batch.length >= batchSize) {
      await flush(db, kind, batch, result);
      batch = [];
    }
  }
  if (!header) throw new ImportFormatError('the file is empty: expected a header row');
  await flush(db, kind, batch, result);
  result.rejected.sort((a, b) => a.line - b.line);
  return result;
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
  for (const [field, value] of [
    ['merchant_ref', order.merchantRef],
    ['transaction_ref', order.transactionRef],
  ] as const) {
    const first = seen[field].get(value.toLowerCase());
    if (first !== undefined) return `${field}: ${value} duplicates line ${first}`;
  }
  seen.merchant_ref.set(order.merchantRef.toLowerCase(), line);
  seen.transaction_ref.set(order.transactionRef.toLowerCase(), line);
  return undefined;
}

/** Inserts a batch in one statement; refs already stored become rejections instead of errors. */
async function flush(db: Knex, kind: Direction, batch: Pending[], result: ImportResult): Promise<void> {
  if (batch.length === 0) return;
  const table = ORDER_TABLES[kind];
  const existing = await db(table)
    .select('merchant_ref', 'transaction_ref')
    .whereIn(
      'merchant_ref',
      batch.map((p) => p.order.merchantRef),
    )
    .orWhereIn(
      'transaction_ref',
      batch.map((p) => p.order.transactionRef),
    );
  const stored = new Set(
    existing.flatMap((r: { merchant_ref: string; transaction_ref: string }) => [`m:${r.merchant_ref}`, `t:${r.transaction_ref}`]),
  );
  const fresh: Pending[] = [];
  for (const p of batch) {
    if (stored.has(`m:${p.order.merchantRef}`))
      result.rejected.push({ line: p.line, reason: `merchant_ref: ${p.order.merchantRef} is already in the database` });
    else if (stored.has(`t:${p.order.transactionRef}`))
      result.rejected.push({ line: p.line, reason: `transaction_ref: ${p.order.transactionRef} is already in the database` });
    else fresh.push(p);
  }
  if (fresh.length === 0) return;
  try {
    // DO NOTHING covers a ref written by someone else since the check above.
    const rows = await db(table)
      .insert(fresh.map((p) => toColumns(kind, p.order)))
      .onConflict()
      .ignore()
      .returning('merchant_ref');
    const written = new Set(rows.map((r: { merchant_ref: string }) => r.merchant_ref));
    result.inserted += written.size;
    for (const p of fresh) {
      if (!written.has(p.order.merchantRef))
        result.rejected.push({ line: p.line, reason: 'merchant_ref or transaction_ref was inserted concurrently' });
    }
  } catch {
    // A row the checks above let through but the database refuses: find it, one row per statement.
    for (const p of fresh) {
      try {
        const rows = await db(table).insert(toColumns(kind, p.order)).onConflict().ignore().returning('merchant_ref');
        if (rows.length) result.inserted++;
        else result.rejected.push({ line: p.line, reason: 'merchant_ref or transaction_ref was inserted concurrently' });
      } catch (err) {
        result.rejected.push({ line: p.line, reason: `refused by the database: ${(err as Error).message.split('\n')[0]}` });
      }
    }
  }
}
