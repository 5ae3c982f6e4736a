/**
 * Issue 35, item 1: alerting must not stop for good. Earlier alerts in every state the table holds
 * (pending, sent, suppressed, undeliverable, summarised) with their cases resolved or not, then a run
 * with a Slack-style webhook: the new alert goes out escaped, the cleared ones that someone was told of
 * get their one "resolved" message. A step that fails does not stop the others, and is seen in
 * `payrecon status`, `payrecon doctor` and /metrics (kept across a restart), not only in a log line.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { raiseAndDeliver } from '../src/runtime/alerting.ts';
import type { AlertInput } from '../src/notify/raise-alert.ts';
import { ALERT_STATUSES } from '../src/db/alerts.ts';
import { alertingHealth } from '../src/db/alerting-health.ts';
import { buildStatus } from '../src/status/build.ts';
import { renderStatus } from '../src/status/render.ts';
import { schedulesFromConfig } from '../src/schedule/schedules.ts';
import { checkAlerting } from '../src/doctor/checks.ts';
import { PayreconMetrics } from '../src/metrics/metrics.ts';

const T0 = new Date('2026-11-20T06:00:00Z');
const at = (h: number) => new Date(T0.getTime() + h * 3_600_000);
const HOSTILE = 'NGN drift <!channel> & <https://evil.example|click>';

describe('alerting with earlier alerts in every state', () => {
  let t: TestDatabase;
  let server: http.Server;
  let hooked: Config;
  const bodies: Array<{ text: string; blocks: Array<{ text: { text: string } }> }> = [];

  const openCase = async (n: number): Promise<string> => {
    const res = await t.db.knex.raw(
      `INSERT INTO cases (subject, code, direction, order_id, currency, occurred_at, state, created_at, opened_at, state_changed_at, last_seen_at, finding)
       VALUES (?, 'AMOUNT', 'payment', ?, 'INR', ?, 'open', ?, ?, ?, ?, '{"note":"seeded"}'::jsonb) RETURNING id::text AS id`,
      [`payment:${n}`, n, T0, T0, T0, T0, T0],
    );
    return (res.rows ?? res)[0].id as string;
  };
  const resolveCase = (id: string) =>
    t.db.knex.raw(`UPDATE cases SET state = 'resolved', resolution = 'other', state_changed_at = ? WHERE id = ?::bigint`, [at(1), id]);
  const finding = (part: string, title: string, caseIds: string[] = []): AlertInput => ({
    kind: 'mismatches',
    fingerprintParts: [part],
    title,
    payload: { n: 1 },
    caseIds,
  });
  const texts = () => bodies.map((b) => `${b.text}\n${b.blocks.map((x) => x.text.text).join('\n')}`);
  const ctx = (config: Config, h: number) => ({ db: t.db, config, logger: silentLogger, now: () => at(h), job: 'reconcile' });

  beforeAll(async () => {
    t = await createTestDatabase('h35_alerting_states');
    server = http.createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        bodies.push(JSON.parse(data));
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
    hooked = loadConfig({ ...(t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR }), ALERT_WEBHOOK_URL: url });
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await t?.drop();
  });

  it('the repro: undeliverable, then summarised, cases resolved: the next run still delivers, and says resolved', async () => {
    const c1 = await openCase(1);
    // No channel (as the demo runs): recorded undeliverable.
    expect((await raiseAndDeliver(ctx(t.config, 0), [finding('a', 'reconcile: 1 order in mismatch', [c1])])).failed).toEqual([]);
    // A channel configured: folded into one summary, which is sent; the alert is now summarised.
    expect((await raiseAndDeliver(ctx(hooked, 48), [])).failed).toEqual([]);
    expect(texts().join()).toMatch(/while no alert channel/);
    await resolveCase(c1);
    bodies.length = 0;
    const c2 = await openCase(2);
    const out = await raiseAndDeliver(ctx(hooked, 49), [finding('b', HOSTILE, [c2])]);
    expect(out.failed).toEqual([]);
    const sent = texts();
    expect(
      sent.some((s) => /Resolved: case #\d+ resolved/.test(s) && /1 order in mismatch/.test(s)),
      sent.join('\n--\n'),
    ).toBe(true);
    expect(sent.some((s) => s.includes('NGN drift &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;'))).toBe(true);
    expect(sent.join()).not.toContain('<!channel>');
  });

  it('earlier alerts in every state: one run delivers the new alert, resolves only what cleared, tells only who was told', async () => {
    bodies.length = 0;
    const made: Record<string, { cleared: string; open: string }> = {};
    for (const [i, status] of ALERT_STATUSES.entries()) {
      const ids = { cleared: '', open: '' };
      for (const which of ['cleared', 'open'] as const) {
        const c = await openCase(100 + i * 2 + (which === 'open' ? 1 : 0));
        if (which === 'cleared') await resolveCase(c);
        const res = await t.db.knex.raw(
          `INSERT INTO alerts (fingerprint, kind, title, payload, payload_digest, created_at, status, next_attempt_at, case_ids, sent_at)
           VALUES (?, 'mismatches', ?, '{}'::jsonb, 'd', ?, ?, ?, ARRAY[?::bigint], ?) RETURNING id::text AS id`,
          [
            `fp-${status}-${which}`,
            `earlier ${status} ${which}`,
            at(50),
            status,
            status === 'pending' ? at(50) : null,
            c,
            status === 'sent' ? at(50) : null,
          ],
        );
        ids[which] = (res.rows ?? res)[0].id;
      }
      made[status] = ids;
    }
    const c = await openCase(200);
    const out = await raiseAndDeliver(ctx(hooked, 51), [finding('c', `${HOSTILE} again`, [c])]);
    expect(out.failed).toEqual([]);
    const sent = texts().join('\n--\n');
    expect(sent).toContain('NGN drift &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt; again');
    // Told before (sent, or in a summary): one resolved message each. Never told: none.
    for (const status of ['sent', 'summarised']) expect(sent).toContain(`resolved: earlier ${status} cleared`);
    for (const status of ['pending', 'suppressed', 'undeliverable']) expect(sent).not.toContain(`resolved: earlier ${status}`);
    // The pending alert whose case is still open goes out now; the one whose case cleared does not.
    expect(sent).toContain('earlier pending open');
    expect(sent).not.toMatch(/payrecon: earlier pending cleared/);
    const rows = (await t.db
      .knex('alerts')
      .whereIn(
        'fingerprint',
        Object.keys(made).flatMap((s) => [`fp-${s}-cleared`, `fp-${s}-open`]),
      )
      .select('fingerprint', 'resolved_at')) as Array<{ fingerprint: string; resolved_at: Date | null }>;
    for (const r of rows) expect(r.resolved_at !== null, r.fingerprint).toBe(r.fingerprint.endsWith('-cleared'));
  });

  it('a failing step does not stop the others, and shows in status, doctor and the metrics (kept across a restart)', async () => {
    bodies.length = 0;
    // A database that refuses to resolve alerts (a real failure of the resolve step, not a stand-in).
    await t.db.knex.raw(`CREATE FUNCTION h35_refuse_resolve() RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN RAISE EXCEPTION 'resolve refused for the test'; END $f$`);
    await t.db.knex.raw(
      `CREATE TRIGGER h35_refuse BEFORE UPDATE OF resolved_at ON alerts FOR EACH ROW EXECUTE FUNCTION h35_refuse_resolve()`,
    );
    const c = await openCase(300);
    const other = await openCase(301);
    await raiseAndDeliver(ctx(hooked, 52), [finding('d', 'to be cleared', [c])]);
    await resolveCase(c);
    const out = await raiseAndDeliver(ctx(hooked, 53), [finding('e', 'delivered despite the failure', [other])]);
    expect(out.failed).toEqual(['resolve']);
    expect(texts().join()).toContain('delivered despite the failure');

    const health = await alertingHealth(t.db.knex);
    const status = renderStatus(
      buildStatus({
        now: at(54),
        timezone: 'UTC',
        schedules: schedulesFromConfig(hooked),
        lastRuns: [],
        pendingEmails: [],
        openAlerts: [],
        alerting: health,
        stallAfterMs: 60_000,
      }),
    );
    expect(status).toMatch(/ALERTING FAILING/);
    expect(status).toMatch(/resolve .*reconcile .*1 .*resolve refused for the test/);
    if (t.engine === 'postgres') {
      const doctor = await checkAlerting(hooked);
      expect(doctor).toMatchObject({ name: 'alerting', status: 'failed' });
      expect(doctor.detail).toMatch(/resolve failing since .*resolve refused/);
    }
    const scrape = async () => {
      const m = new PayreconMetrics({ defaultMetrics: false });
      await m.refreshFromDatabase(t.db.knex, { timeoutMs: 10_000 });
      return (await m.render()).body;
    };
    for (const body of [await scrape(), await scrape()]) {
      // A fresh registry each time (as after a restart): the count comes from the database.
      expect(body).toMatch(/^payrecon_alerting_failures_total\{step="resolve"\} 1$/m);
      expect(body).toMatch(/^payrecon_alerting_failures_total\{step="deliver"\} 0$/m);
      expect(body).toContain(`payrecon_alerting_last_failure_timestamp_seconds ${at(53).getTime() / 1000}`);
    }

    // Fixed: the next pass resolves it, status and doctor are clear again, the counter keeps its total.
    await t.db.knex.raw(`DROP TRIGGER h35_refuse ON alerts`);
    expect((await raiseAndDeliver(ctx(hooked, 55), [])).failed).toEqual([]);
    expect(texts().join()).toContain('resolved: to be cleared');
    const after = buildStatus({
      now: at(56),
      timezone: 'UTC',
      schedules: schedulesFromConfig(hooked),
      lastRuns: [],
      pendingEmails: [],
      openAlerts: [],
      alerting: await alertingHealth(t.db.knex),
      stallAfterMs: 60_000,
    });
    expect(after.alertingFailing).toEqual([]);
    expect(renderStatus(after)).toMatch(/alerting:\nok\n/);
    if (t.engine === 'postgres') expect((await checkAlerting(hooked)).status).toBe('ok');
    expect(await scrape()).toMatch(/^payrecon_alerting_failures_total\{step="resolve"\} 1$/m);
  });
});
