import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { countOrders, selectOrdersPage, type OrderFilter } from '../src/db/orders.ts';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';

/**
 * The due sweep reads what is due and its lookback window, not the history under it (issue 30): with
 * 20,000 final orders from months ago, selecting a page of the few due ones and counting them reads
 * a bounded number of order rows. Measured from the plans Postgres runs (EXPLAIN ANALYZE), not time.
 */
const toDrop: TestDatabase[] = [];
afterAll(async () => {
  for (const t of toDrop) await t.drop();
});

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Order rows the plan touched: returned or filtered out by any scan of payment_orders. */
function orderRowsRead(node: PlanNode): number {
  const own =
    node['Relation Name'] === 'payment_orders'
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((n, p) => n + orderRowsRead(p), 0);
}

describe('due sweep under history', () => {
  it.skipIf(requiresServer('plans of the server'))(
    'a page and the count of due orders read what is due, not 40,000 old final orders',
    async () => {
      const t = await createTestDatabase('due-history', { engine: 'postgres' });
      toDrop.push(t);
      const k = t.db.knex;
      const now = new Date('2026-11-25T12:00:00Z');
      const order = (ref: string) => `'${ref}' || i, 't${ref}' || i, 'INR', 'BANK', 10, 10, 0`;
      // History: 40,000 final orders older than the lookback, each checked once.
      await k.raw(
        `INSERT INTO payment_orders (merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, status, status_category,
                                   created_at, updated_at, finalized_at, last_checked_at, check_count)
       SELECT ${order('old-')}, 'Success', 'success', c, c, c, c + interval '1 hour', 1
         FROM generate_series(1, 40000) i, LATERAL (SELECT ?::timestamptz - interval '31 days' - i * interval '7 minutes' AS c) x`,
        [now.toISOString()],
      );
      // The lookback: 5,000 final orders of the past 30 days, asked within the week (the weekly re-check is not due).
      await k.raw(
        `INSERT INTO payment_orders (merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, status, status_category,
                                   created_at, updated_at, finalized_at, last_checked_at, check_count)
       SELECT ${order('recent-')}, 'Success', 'success', c, c, c, ?::timestamptz - interval '1 hour', 2
         FROM generate_series(1, 5000) i, LATERAL (SELECT ?::timestamptz - interval '1 day' - i * interval '8 minutes' AS c) x`,
        [now.toISOString(), now.toISOString()],
      );
      // Today: 10 open orders due now, 10 not yet due, and 10 final ones checked an hour ago.
      await k.raw(
        `INSERT INTO payment_orders (merchant_ref, transaction_ref, currency, method, amount, paid_amount, fee, status, status_category,
                                   created_at, updated_at, finalized_at, last_checked_at, next_check_at, check_count)
       SELECT ${order('new-')}, s, cat, c, c, CASE WHEN cat = 'success' THEN c END, c + interval '10 minutes', nxt, 1
         FROM generate_series(1, 30) i,
              LATERAL (SELECT ?::timestamptz - interval '2 hours' AS c,
                              CASE WHEN i <= 20 THEN 'Initiated' ELSE 'Success' END AS s,
                              CASE WHEN i <= 20 THEN 'pending' ELSE 'success' END AS cat,
                              CASE WHEN i <= 10 THEN ?::timestamptz - interval '1 minute' WHEN i <= 20 THEN ?::timestamptz + interval '1 hour' END AS nxt) x`,
        [now.toISOString(), now.toISOString(), now.toISOString()],
      );
      await k.raw('ANALYZE payment_orders');

      const filter: OrderFilter = {
        mode: 'due',
        asOf: now,
        lookbackFrom: new Date(now.getTime() - 30 * 86_400_000),
        finalRecheckBefore: new Date(now.getTime() - 7 * 86_400_000),
      };
      const queries: Array<{ sql: string; bindings: unknown[] }> = [];
      const listen = (q: { sql: string; bindings: unknown[] }) => queries.push(q);
      k.on('query', listen);
      const page = await selectOrdersPage(k, 'payment', filter, null, 500);
      const count = await countOrders(k, 'payment', filter);
      k.off('query', listen);
      expect(page.map((o) => o.merchantRef).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `new-${i + 1}`).sort());
      expect(count).toBe(10);

      expect(queries).toHaveLength(2);
      // The statements as knex sent them ($n placeholders), explained on a plain connection in payrecon's schema.
      const c = new pg.Client({ connectionString: t.url, options: `-c search_path=${t.config.DATABASE_SCHEMA}` });
      await c.connect();
      try {
        for (const q of queries) {
          const res = await c.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${q.sql}`, q.bindings);
          // The lookback's 5,030 orders at most (the weekly re-check reads them), not the 40,000 of history (before: 45,030).
          expect(orderRowsRead(res.rows[0]['QUERY PLAN'][0].Plan), q.sql).toBeLessThan(10_000);
        }
      } finally {
        await c.end();
      }
    },
  );
});
