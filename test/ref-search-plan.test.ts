/**
 * Issue 39: the ref search (/search) and the queue's ref filter are served by the ref indexes, not by
 * a walk of the table (or of its primary key in id order), so they stay as fast with a year of history
 * as with a week. Read from the planner itself: EXPLAIN of the very SQL the search runs, on a table
 * big enough (and analysed) for the planner to choose.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrders } from '../src/db/orders.ts';
import { ordersByRefPrefix, refPrefixQuery } from '../src/db/order-lookup.ts';
import { casePageQuery } from '../src/db/case-queue.ts';
import { switchToPerAccountRefs } from '../src/db/merchant-ref-scope.ts';
import { preparePerAccountRefs } from '../src/db/merchant-ref-prepare.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { seedOpenCases } from './helpers/seed-cases.ts';

const ORDERS = 20_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** Every scan of the plan: its kind, and the table or index it reads. */
function scans(node: PlanNode, out: string[] = []): string[] {
  if (/Scan/.test(node['Node Type']) && node['Node Type'] !== 'Subquery Scan')
    out.push(`${node['Node Type']} ${node['Index Name'] ?? node['Relation Name'] ?? ''}`.trim());
  for (const child of node.Plans ?? []) scans(child, out);
  return out;
}

describe.each(availableEngines)('the ref search plan on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`ref_search_plan_${engine}`, { engine });
    const hex = (i: number, salt: number) => ((i * 2654435761 + salt) >>> 0).toString(16).padStart(8, '0');
    for (let from = 0; from < ORDERS; from += 5000) {
      await insertOrders(
        t.db.knex,
        'payment',
        Array.from({ length: 5000 }, (_, k) => {
          const i = from + k;
          // Every tenth merchant ref in capitals, as some merchants write them.
          const m = `${hex(i, 1)}-4a0e-4c39-9d55-${hex(i, 2)}aaaa`;
          return {
            merchantRef: i % 10 ? m : `ORD-${m.toUpperCase()}`,
            transactionRef: `${hex(i, 3)}-7d0c-${hex(i, 4)}`,
            currency: 'INR',
            method: 'UPI',
            amount: '1',
          };
        }),
      );
    }
    await seedOpenCases(t.db.knex, ORDERS, new Date('2026-11-22T10:00:00Z'));
    await t.db.knex.raw('ANALYZE');
  }, 300_000);
  afterAll(() => t?.drop());

  const explain = async (sql: string, bindings: readonly unknown[]): Promise<PlanNode> => {
    const res = await t.db.knex.raw(`EXPLAIN (FORMAT JSON) ${sql}`, bindings as never);
    const rows = (res as { rows: Array<Record<string, unknown>> }).rows;
    const raw = rows[0]['QUERY PLAN'];
    const doc = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
    return doc[0].Plan;
  };

  it('/search finds a ref by its leading piece through the ref indexes only, never a walk of the orders or their primary key', async () => {
    const one = (await ordersByRefPrefix(t.db.knex, 'ORD-', 1))[0];
    for (const piece of [one.merchantRef.slice(0, 12).toLowerCase(), one.transactionRef.slice(0, 8)]) {
      const found = await ordersByRefPrefix(t.db.knex, piece, 51);
      expect(
        found.map((r) => r.id),
        piece,
      ).toContain(one.id);
      const q = refPrefixQuery(piece, 51);
      const used = scans(await explain(q.sql, q.bindings));
      const onPayments = used.filter((s) => s.includes('payment_orders'));
      expect(onPayments.length, used.join('; ')).toBeGreaterThan(0);
      expect(
        onPayments.every((s) =>
          /^(Bitmap Heap Scan payment_orders|(Bitmap )?Index (Only )?Scan payment_orders_(merchant|transaction)_ref_(key|prefix))$/.test(s),
        ),
        used.join('; '),
      ).toBe(true);
      expect(used.join('; ')).not.toMatch(/Seq Scan payment_orders|payment_orders_pkey/);
    }
  });

  it('the queue’s ref filter is served by the cases’ ref indexes, not by a walk of the queue in age or risk order', async () => {
    const ref = String((await t.db.knex('cases').where({ id: 1234 }).first()).merchant_ref);
    for (const sort of ['age', 'risk'] as const) {
      const q = casePageQuery({ states: ['open', 'acknowledged'], ref: ref.slice(0, 14) }, sort, 101);
      const used = scans(await explain(q.sql, q.bindings)).join('; ');
      expect(used, sort).toMatch(/Bitmap Index Scan cases_(merchant|transaction)_ref_prefix/);
      expect(used, sort).not.toMatch(/Seq Scan cases|cases_queue_(age|risk)|cases_pkey/);
    }
  });

  // Last two: they change the database, through the three states of `accounts refs-per-account` (sql/055).
  const refPieceScans = async () => {
    await t.db.knex.raw('ANALYZE payment_orders');
    const one = (await ordersByRefPrefix(t.db.knex, 'ORD-', 1))[0];
    const piece = one.merchantRef.slice(0, 12).toLowerCase();
    expect((await ordersByRefPrefix(t.db.knex, piece, 51)).map((r) => r.id)).toContain(one.id);
    const q = refPrefixQuery(piece, 51);
    return scans(await explain(q.sql, q.bindings)).join('; ');
  };

  it('prepared (`--prepare`, both unique indexes): a merchant ref piece is found through an index', async () => {
    await preparePerAccountRefs(t.db.knex);
    const used = await refPieceScans();
    expect(used).toMatch(/Index (Only )?Scan payment_orders_(account_)?merchant_ref_key/);
    expect(used).not.toMatch(/Seq Scan payment_orders|payment_orders_pkey/);
  });

  it('after `--yes`, a merchant ref piece is still found through an index: the per-account one', async () => {
    await switchToPerAccountRefs(t.db.knex);
    const used = await refPieceScans();
    expect(used).toMatch(/Index (Only )?Scan payment_orders_account_merchant_ref_key/);
    expect(used).not.toMatch(/Seq Scan payment_orders|payment_orders_pkey/);
  });
});
