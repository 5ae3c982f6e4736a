import type { Readable } from 'node:stream';
import type { Direction } from '../domain/types.ts';
import { IMPORT_COLUMNS, validateOrderRow, type RowRules } from './import-row.ts';
import type { NewOrder } from '../db/orders.ts';
import { checkCsvHeader, csvRecords, ImportFormatError } from './import-csv.ts';
import type { MerchantRefScope } from '../db/merchant-ref-scope.ts';

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

/**
 * Reads a merchant's order CSV of one kind, row by row (streamed): each record is a validated order
 * or a rejection naming its line and problems, including refs repeated within the file. Shared by
 * `payrecon import` (into the database) and the sandbox adopting the same file (as the provider's record).
 * Throws ImportFormatError for an empty file or a bad header, before yielding anything.
 */
export async function* readOrderCsv(
  input: Readable,
  opts: RowRules & { kind: Direction; merchantRefScope?: MerchantRefScope },
): AsyncGenerator<OrderCsvRow | OrderCsvRejection> {
  const { kind } = opts;
  const perAccount = opts.merchantRefScope === 'account';
  const seen = { merchant_ref: new Map<string, number>(), transaction_ref: new Map<string, number>() };
  const unreadable: OrderCsvRejection[] = [];
  let header: string[] | undefined;

  for await (const { record, line } of csvRecords(input, (r) => unreadable.push(r))) {
    yield* unreadable.splice(0);
    if (!header) {
      header = checkCsvHeader(record, IMPORT_COLUMNS[kind], ` for ${kind}s`);
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
    const dup = duplicateIn(seen, v.order, line, perAccount);
    yield dup ? { line, reason: dup } : { line, order: v.order };
  }
  yield* unreadable.splice(0);
  if (!header) throw new ImportFormatError('the file is empty: expected a header row');
}

function duplicateIn(
  seen: Record<'merchant_ref' | 'transaction_ref', Map<string, number>>,
  order: NewOrder,
  line: number,
  perAccount: boolean,
): string | undefined {
  // transaction_ref is unique across accounts; merchant_ref too, unless the database made it unique per account (sql/055).
  const merchantKey = perAccount ? `${order.accountId ?? ''} ${order.merchantRef.toLowerCase()}` : order.merchantRef.toLowerCase();
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
