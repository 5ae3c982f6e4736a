import type { Knex } from 'knex';
import type { Direction } from '../domain/types.ts';
import { ORDER_TABLES, toColumns, type NewOrder } from './orders.ts';
import { DEFAULT_ACCOUNT_ID } from '../domain/account.ts';

/** The key of an order's merchant ref: unique per account. */
export const merchantKey = (accountId: string | undefined, merchantRef: string) => `${accountId ?? DEFAULT_ACCOUNT_ID} ${merchantRef}`;

/**
 * The refs of these orders already stored, with the account holding each: `m:<account> <merchant_ref>`
 * and `M:<merchant_ref>` (unique across accounts unless `payrecon accounts refs-per-account` made it unique per account, sql/055),
 * and `t:<transaction_ref>` (the provider's, unique across accounts).
 */
export async function storedOrderRefs(db: Knex, kind: Direction, orders: readonly NewOrder[]): Promise<Map<string, string>> {
  const existing = await db(ORDER_TABLES[kind])
    .select('merchant_ref', 'transaction_ref', 'account_id')
    .whereIn(
      'merchant_ref',
      orders.map((o) => o.merchantRef),
    )
    .orWhereIn(
      'transaction_ref',
      orders.map((o) => o.transactionRef),
    );
  return new Map(
    existing.flatMap((r: { merchant_ref: string; transaction_ref: string; account_id: string }) => [
      [`m:${merchantKey(r.account_id, r.merchant_ref)}`, r.account_id],
      [`M:${r.merchant_ref}`, r.account_id],
      [`t:${r.transaction_ref}`, r.account_id],
    ]),
  );
}

/**
 * Inserts new orders in one statement and returns the merchant refs written (merchantKey). DO NOTHING covers a
 * ref written by someone else since the caller's check; any other refusal throws. Without a conflict target it
 * covers every unique index there is, so it holds in all three states of the merchantRef indexes (sql/055).
 */
export async function insertNewOrders(db: Knex, kind: Direction, orders: readonly NewOrder[]): Promise<Set<string>> {
  const rows = await db(ORDER_TABLES[kind])
    .insert(orders.map((o) => toColumns(kind, o)))
    .onConflict()
    .ignore()
    .returning(['merchant_ref', 'account_id']);
  return new Set(rows.map((r: { merchant_ref: string; account_id: string }) => merchantKey(r.account_id, r.merchant_ref)));
}
