import fs from 'node:fs';
import { once } from 'node:events';
import { readOrderCsv, type OrderCsvRejection } from '../import/order-csv.ts';
import type { StatusMapper } from '../domain/status.ts';
import type { Direction } from '../domain/types.ts';
import type { SandboxState } from './state.ts';

export interface AdoptResult {
  file: string;
  kind: Direction;
  /** Data rows read (header excluded). */
  rows: number;
  adopted: number;
  rejected: OrderCsvRejection[];
}

/**
 * Makes the sandbox know a merchant's orders from the same CSV `payrecon import` reads, so a
 * reconcile of imported orders finds them instead of NOT_FOUND. Rows are validated exactly as the
 * import validates them; a bad row is rejected with its line and reason, the rest adopted.
 */
export async function adoptOrderCsv(
  state: SandboxState,
  merchantId: string,
  file: string,
  opts: { kind: Direction; statusOf: StatusMapper },
): Promise<AdoptResult> {
  const input = fs.createReadStream(file);
  await once(input, 'open');
  const result: AdoptResult = { file, kind: opts.kind, rows: 0, adopted: 0, rejected: [] };
  try {
    for await (const row of readOrderCsv(input, opts)) {
      result.rows++;
      if ('reason' in row) {
        result.rejected.push(row);
        continue;
      }
      const { order } = row;
      const category = order.statusCategory;
      const adopted = state.adoptOrder(merchantId, {
        direction: opts.kind,
        transactionRef: order.transactionRef,
        merchantRef: order.merchantRef,
        currency: order.currency,
        method: order.method,
        amount: order.amount,
        paidAmount: order.paidAmount,
        fee: order.fee,
        status: order.status ?? '',
        final: category === 'success' ? 'success' : category === 'failed' ? 'failed' : undefined,
        utr: order.utr,
        bankCode: order.bankCode,
        createdAt: (order.createdAt ?? new Date(state.now())).getTime(),
      });
      if (adopted.ok) result.adopted++;
      else result.rejected.push({ line: row.line, reason: adopted.message });
    }
  } finally {
    input.destroy();
  }
  return result;
}
