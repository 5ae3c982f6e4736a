import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant } from '../src/demo/seed-merchant.ts';
import { snapshotJob } from '../src/services/snapshot.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { silentLogger } from '../src/log/logger.ts';

/** A Slack-compatible receiver that records what it was sent. */
async function startReceiver(): Promise<{ url: string; bodies: Array<{ text: string }>; close(): Promise<void> }> {
  const bodies: Array<{ text: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    bodies,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('jobs raise their findings as alerts', () => {
  let world: World;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await createWorld('alerts_jobs', { env: { ALERT_WEBHOOK_URL: receiver.url, RECON_CURRENCIES: 'NGN' } });
  });
  afterAll(async () => {
    await world?.close();
    await receiver?.close();
  });

  const context = () => ({ config: world.config, db: world.t.db, logger: silentLogger });

  it('snapshot: a balance move no order explains becomes a BALANCE_DRIFT alert with the figure', async () => {
    await snapshotJob({}, context());
    await world.control.adjustBalance('NGN', '1250.00');
    const { result } = await snapshotJob({}, context());
    expect(result.drift.map((d) => [d.currency, d.drift])).toEqual([['NGN', '1250']]);
    expect(receiver.bodies.map((b) => b.text).join('\n')).toContain('NGN balance drift 1,250.00');
  });

  it('reconcile: mismatches become one alert with counts per code, not re-sent while unchanged', async () => {
    const orders = await seedMerchant(world.t.db.knex, world.client, { payments: 4, payouts: 0, seed: 9 });
    await world.control.advanceClock(2_000);
    await world.control.setOrder(orders[0].transactionRef, { paidAmount: '1.00' });
    const before = receiver.bodies.length;
    const today = new Date().toISOString().slice(0, 10);
    await reconcileJob({ progress: false, date: today }, context());
    const sent = receiver.bodies.slice(before).map((b) => b.text);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('PAID_AMOUNT');
    await reconcileJob({ progress: false, date: today }, context());
    expect(receiver.bodies.length).toBe(before + 1); // the same finding is deduplicated
  });
});
