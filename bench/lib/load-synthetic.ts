import type { Db } from '../../src/db/connect.ts';
import { syntheticOrder } from '../../src/sandbox/synthetic.ts';

/**
 * The same `count` orders the sandbox bulk-seeds for `seed`, as the merchant's non-final records:
 * 'Initiated'/pending, never checked, dated from their age (at most a minute younger than the
 * sandbox's copy). INSERT ... SELECT FROM unnest(arrays), 10k orders per statement.
 */
export async function loadSyntheticOrders(db: Db, opts: { seed: number; count: number; now: number }): Promise<void> {
  const CHUNK = 10_000;
  for (let start = 0; start < opts.count; start += CHUNK) {
    const pay = { m: [] as string[], t: [] as string[], c: [] as string[], me: [] as string[], a: [] as string[], at: [] as string[] };
    const out = {
      m: [] as string[],
      t: [] as string[],
      c: [] as string[],
      me: [] as string[],
      a: [] as string[],
      at: [] as string[],
      b: [] as string[],
    };
    for (let i = start; i < Math.min(opts.count, start + CHUNK); i++) {
      const o = syntheticOrder(opts.seed, i);
      const dst = o.direction === 'payment' ? pay : out;
      dst.m.push(o.merchantRef);
      dst.t.push(o.transactionRef);
      dst.c.push(o.currency);
      dst.me.push(o.method);
      dst.a.push(o.amount);
      dst.at.push(new Date(opts.now - o.ageSeconds * 1000).toISOString());
      if (o.direction === 'payout') out.b.push(o.bankCode ?? '');
    }
    if (pay.m.length) {
      await db.knex.raw(
        `INSERT INTO payment_orders (merchant_ref, transaction_ref, currency, method, amount, status, status_category, created_at, updated_at)
         SELECT m, t, c, me, a, 'Initiated', 'pending', at, at FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::timestamptz[]) AS v(m, t, c, me, a, at)`,
        [pay.m, pay.t, pay.c, pay.me, pay.a, pay.at] as never,
      );
    }
    if (out.m.length) {
      await db.knex.raw(
        `INSERT INTO payout_orders (merchant_ref, transaction_ref, currency, method, amount, bank_code, status, status_category, created_at, updated_at)
         SELECT m, t, c, me, a, b, 'Initiated', 'pending', at, at FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::numeric[], ?::text[], ?::timestamptz[]) AS v(m, t, c, me, a, b, at)`,
        [out.m, out.t, out.c, out.me, out.a, out.b, out.at] as never,
      );
    }
  }
}
