import type { Readable } from 'node:stream';
import type { Knex } from '../db/knex-types.ts';
import type { Direction } from '../domain/types.ts';
import type { RowRules } from './import-row.ts';
import { insertNewOrders, merchantKey, storedOrderRefs } from '../db/order-inserts.ts';
import { readOrderCsv, type OrderCsvRow, type OrderCsvRejection } from './order-csv.ts';
import { messageOf } from '../domain/errors.ts';
import { enforcedMerchantRefScope, type MerchantRefScope } from '../db/merchant-ref-scope.ts';

/** Why a second account's order may not reuse a merchantRef yet, and the way to allow it. */
const SHARED_REF_FIX =
  'a merchant ref is unique across accounts in this database; to make it unique per account, run `payrecon accounts refs-per-account` (docs/guides/accounts.md)';

export interface ImportResult {
  kind: Direction;
  /** Data records read (header excluded). */
  rows: number;
  inserted: number;
  rejected: OrderCsvRejection[];
  /** Inserted rows whose status string the status map does not know (stored as `unknown`), by string. */
  unknownStatuses: Record<string, number>;
}

export interface ImportOptions extends RowRules {
  kind: Direction;
  /** Rows per INSERT statement (default 500). */
  batchSize?: number;
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
  const result: ImportResult = { kind, rows: 0, inserted: 0, rejected: [], unknownStatuses: {} };
  // What the database enforces decides which refs two accounts may share, in the file as in the database.
  const scope = await enforcedMerchantRefScope(db);
  let batch: OrderCsvRow[] = [];
  for await (const row of readOrderCsv(input, { ...opts, merchantRefScope: scope })) {
    result.rows++;
    if ('reason' in row) {
      result.rejected.push(row);
      continue;
    }
    batch.push(row);
    if (batch.length >= batchSize) {
      await flush(db, kind, batch, result, scope);
      batch = [];
    }
  }
  await flush(db, kind, batch, result, scope);
  result.rejected.sort((a, b) => a.line - b.line);
  return result;
}

/** Inserts a batch in one statement; refs already stored become rejections instead of errors. */
async function flush(db: Knex, kind: Direction, batch: OrderCsvRow[], result: ImportResult, scope: MerchantRefScope): Promise<void> {
  if (batch.length === 0) return;
  const stored = await storedOrderRefs(
    db,
    kind,
    batch.map((p) => p.order),
  );
  const fresh: OrderCsvRow[] = [];
  for (const p of batch) {
    const holder = stored.get(`t:${p.order.transactionRef}`);
    const refHolder = scope === 'database' ? stored.get(`M:${p.order.merchantRef}`) : undefined;
    if (stored.has(`m:${merchantKey(p.order.accountId, p.order.merchantRef)}`))
      result.rejected.push({ line: p.line, reason: `merchant_ref: ${p.order.merchantRef} is already in the database` });
    else if (refHolder !== undefined)
      result.rejected.push({
        line: p.line,
        reason: `merchant_ref: ${p.order.merchantRef} is already account ${refHolder}'s (${SHARED_REF_FIX})`,
      });
    else if (holder !== undefined && holder !== (p.order.accountId ?? holder))
      // The provider's ref is one order of one account: the same ref under another account is a mix-up.
      result.rejected.push({
        line: p.line,
        reason: `transaction_ref: ${p.order.transactionRef} belongs to account ${holder}, not ${p.order.accountId}`,
      });
    else if (holder !== undefined)
      result.rejected.push({ line: p.line, reason: `transaction_ref: ${p.order.transactionRef} is already in the database` });
    else fresh.push(p);
  }
  if (fresh.length === 0) return;
  try {
    const written = await insertNewOrders(
      db,
      kind,
      fresh.map((p) => p.order),
    );
    for (const p of fresh) {
      if (written.has(merchantKey(p.order.accountId, p.order.merchantRef))) countInserted(result, p);
      else result.rejected.push({ line: p.line, reason: 'merchant_ref or transaction_ref was inserted concurrently' });
    }
  } catch {
    // A row the checks above let through but the database refuses: find it, one row per statement.
    for (const p of fresh) {
      try {
        if ((await insertNewOrders(db, kind, [p.order])).size) countInserted(result, p);
        else result.rejected.push({ line: p.line, reason: 'merchant_ref or transaction_ref was inserted concurrently' });
      } catch (err) {
        const message = messageOf(err).split('\n')[0];
        // The database-wide index refusing a ref another account took meanwhile: say how to allow it.
        const fix = /_merchant_ref_key"/.test(message) && !/_account_merchant_ref_key"/.test(message) ? ` (${SHARED_REF_FIX})` : '';
        result.rejected.push({ line: p.line, reason: `refused by the database: ${message}${fix}` });
      }
    }
  }
}

function countInserted(result: ImportResult, p: OrderCsvRow): void {
  result.inserted++;
  if (p.order.statusCategory !== 'unknown') return;
  const status = p.order.status ?? '';
  result.unknownStatuses[status] = (result.unknownStatuses[status] ?? 0) + 1;
}
