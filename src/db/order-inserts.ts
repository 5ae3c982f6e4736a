import type { Knex } from 'knex';
import type { Direction } from '../domain/types.ts';
import { ORDER_TABLES, toColumns, type NewOrder } from './orders.ts';

/** The refs of these orders already stored, as `m:<merchant_ref>` and `t:<transaction_ref>`. */
export async function storedOrderRefs(db: Knex, kind: Direction, orders: readonly NewOrder[]): Promise<Set<string>> {
  const existing = await db(ORDER_TABLES[kind])
    .select('merchant_ref', 'transaction_ref')
    .whereIn(
      'merchant_ref',
      orders.map((o) => o.merchantRef),
    )
    .orWhereIn(
      'transaction_ref',
      orders.map((o) => o.transactionRef),
    );
  return new Set(
    existing.flatMap((r: { merchant_ref: string; transaction_ref: string }) => [`m:${r.merchant_ref}`, `t:${r.transaction_ref}`]),
  );
}

/**
 * Inserts new orders in one statement and returns the merchant refs written. DO NOTHING covers a
 * ref written by someone else since the caller's check; any other refusal throws.
 */
export async function insertNewOrders(db: Knex, kind: Direction, orders: readonly NewOrder[]): Promise<Set<string>> {
  const rows = await db(ORDER_TABLES[kind])
    .insert(orders.map((o) => toColumns(kind, o)))
    .onConflict()
    .ignore()
    .returning('merchant_ref');
  return new Set(rows.map((r: { merchant_ref: string }) => r.merchant_ref));
}
