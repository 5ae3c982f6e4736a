// Alerts raised while no channel is configured: recorded as undeliverable (not pending forever), and
// summarised in one message once a channel is configured, instead of a burst of stale alerts.
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { loadConfig } from '../src/config/config.ts';
import { createLogger } from '../src/log/logger.ts';
import { raiseAndDeliver } from '../src/runtime/alerting.ts';
import type { AlertInput } from '../src/notify/raise-alert.ts';

const T0 = new Date('2026-11-20T06:00:00Z');
const HOUR = 3_600_000;
const at = (h: number) => new Date(T0.getTime() + h * HOUR);

const finding = (kind: string, part: string, title: string, n = 1): AlertInput => ({
  kind,
  fingerprintParts: [part],
  title,
  payload: { n },
});

describe('alerts with no channel', () => {
  let t: TestDatabase;
  let server: http.Server;
  const bodies: string[] = [];
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void lines.push(s) } });

  beforeAll(async () => {
    t = await createTestDatabase('alerts_no_channel');
    server = http.createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        bodies.push(JSON.stringify(JSON.parse(data)));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await t?.drop();
  });

  const statuses = async () =>
    (await t.db.knex('alerts').orderBy('id').select('kind', 'status', 'last_error')) as Array<{
      kind: string;
      status: string;
      last_error: string | null;
    }>;

  it('are marked undeliverable with the reason, and the log does not claim they were sent', async () => {
    const config = t.config; // no ALERT_WEBHOOK_URL, no ALERT_EMAIL_TO
    const ctx = (h: number) => ({ db: t.db, config, logger, now: () => at(h), job: 'test' });
    await raiseAndDeliver(ctx(0), [finding('run_failed', 'snapshot', 'snapshot: credentials refused')]);
    await raiseAndDeliver(ctx(1), [finding('mismatches', 'reconcile', 'reconcile: 3 orders in mismatch', 3)]);
    await raiseAndDeliver(ctx(2), [finding('mismatches', 'reconcile', 'reconcile: 3 orders in mismatch', 3)]);
    await raiseAndDeliver(ctx(3), [finding('rate_flags', 'snapshot', 'snapshot: NGN rate stale')]);
    const rows = await statuses();
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(rows.filter((r) => r.status === 'pending')).toEqual([]);
    expect(rows.filter((r) => r.status === 'undeliverable').length).toBeGreaterThanOrEqual(3);
    for (const r of rows.filter((x) => x.status === 'undeliverable')) expect(r.last_error).toMatch(/ALERT_WEBHOOK_URL/);
    expect(lines.join('')).not.toMatch(/since last sent/);
    expect(lines.join('')).toMatch(/no alert channel configured/);
  });

  it('a channel configured later gets one summary of the stale ones, not a burst', async () => {
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
    const config = loadConfig({ ...(t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR }), ALERT_WEBHOOK_URL: url });
    // Two days later a channel exists; the run raises one new, current finding.
    await raiseAndDeliver({ db: t.db, config, logger, now: () => at(48), job: 'test' }, [
      finding('balance_drift', 'NGN', 'snapshot: NGN balance drift 1,250.00'),
    ]);
    expect(bodies).toHaveLength(2); // the summary, and the current finding
    const summary = bodies.find((b) => /while no alert channel/.test(b));
    expect(summary, JSON.stringify(bodies)).toBeDefined();
    expect(summary).toMatch(/credentials refused/);
    expect(summary).toMatch(/NGN rate stale/);
    expect(summary).toMatch(/3 orders in mismatch \(mismatches, 2 times/);
    expect(bodies.some((b) => /balance drift/.test(b) && !/while no alert channel/.test(b))).toBe(true);
    expect((await statuses()).filter((r) => r.status === 'pending' || r.status === 'undeliverable')).toEqual([]);

    // Nothing is sent again by the next run.
    await raiseAndDeliver({ db: t.db, config, logger, now: () => at(49), job: 'test' }, []);
    expect(bodies).toHaveLength(2);
  });
});
