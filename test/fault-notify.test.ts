/**
 * SMTP down and the alert endpoint down, end to end through the job entries (the delivery layer
 * itself is proven in notify-report-email.test.ts and notify-alerts.test.ts): a failed delivery is
 * left pending, a later run of a job delivers it, exactly once, and later runs do not send it again.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { reportJob } from '../src/services/report.ts';
import { silentLogger } from '../src/log/logger.ts';

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('deliveries left pending by an outage go out on a later run, exactly once', () => {
  let world: World;
  let orders: SeededOrder[];
  let config: Config;
  let smtp: SMTPServer | undefined;
  let hooks: http.Server;
  let hookUp = false;
  const hookPosts: Array<{ ok: boolean; body: string }> = [];
  const mails: Array<{ subject: string; messageId: string }> = [];
  let smtpPort: number;
  const today = new Date().toISOString().slice(0, 10);

  const startSmtp = async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _s, cb) => {
        simpleParser(stream).then((m) => {
          mails.push({ subject: m.subject ?? '', messageId: m.messageId ?? '' });
          cb();
        }, cb);
      },
    });
    await new Promise<void>((r) => smtp!.listen(smtpPort, '127.0.0.1', r));
  };

  beforeAll(async () => {
    smtpPort = await freePort(); // nothing listens there yet: SMTP is down
    hooks = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        hookPosts.push({ ok: hookUp, body });
        res.statusCode = hookUp ? 200 : 503;
        res.end(hookUp ? 'ok' : 'down');
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    world = await createWorld('fault_notify');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 20, payouts: 0, seed: 61 });
    await world.control.advanceClock(2_000);
    await world.control.deleteOrder(orders[0].transactionRef); // a NOT_FOUND mismatch: an alert
    config = loadConfig({
      ...world.env,
      REPORT_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-notify-faults-')),
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      REPORT_EMAIL_TO: 'accounting@example.com',
      ALERT_WEBHOOK_URL: `http://127.0.0.1:${(hooks.address() as net.AddressInfo).port}/hook`,
      NOTIFY_TIMEOUT_MS: '2000',
    });
  });
  afterAll(async () => {
    await new Promise<void>((r) => (smtp ? smtp.close(() => r()) : r()));
    await new Promise<void>((r) => hooks.close(() => r()));
    await world?.close();
    if (config) fs.rmSync(config.REPORT_DIR, { recursive: true, force: true });
  });

  it('alert endpoint down during reconcile: the alert stays pending; a later job run delivers it once; later runs do not repeat it', async () => {
    const r = await reconcileJob({ date: today, progress: false }, { config, db: world.t.db, logger: silentLogger });
    expect(r.outcome.status).toBe('completed');
    const pending = await world.t.db.knex('alerts').where({ status: 'pending' });
    expect(pending.length).toBeGreaterThanOrEqual(1);
    expect(pending.every((a) => a.attempts >= 1 && a.last_error && a.next_attempt_at)).toBe(true);
    expect(hookPosts.filter((p) => p.ok)).toHaveLength(0);

    hookUp = true;
    // The report job delivers pending alerts too; an hour later the backoff is over.
    const later = () => new Date(Date.now() + 3_600_000);
    await reportJob({ date: today, now: later }, { config, db: world.t.db, logger: silentLogger }).catch(() => undefined);
    const delivered = hookPosts.filter((p) => p.ok);
    expect(delivered).toHaveLength(pending.length);
    expect(
      await world.t.db
        .knex('alerts')
        .whereIn(
          'id',
          pending.map((a) => a.id),
        )
        .pluck('status'),
    ).toEqual(pending.map(() => 'sent'));

    await reportJob({ date: today, now: () => new Date(Date.now() + 7_200_000) }, { config, db: world.t.db, logger: silentLogger }).catch(
      () => undefined,
    );
    expect(hookPosts.filter((p) => p.ok)).toHaveLength(delivered.length);
  });

  it('SMTP down during report --email: exit 2, left pending; the next report run (another date) delivers it once; no repeat after', async () => {
    const first = await reportJob({ date: today, email: true, force: true }, { config, db: world.t.db, logger: silentLogger });
    expect(first.exitCode).toBe(2);
    expect(first.emails[0].status).toBe('failed');
    const versionId = first.report.record!.id;
    const row = await world.t.db.knex('report_versions').where({ id: versionId }).first();
    expect(row.email_status).toBe('pending');
    expect(row.email_attempts).toBeGreaterThanOrEqual(1); // the job's send, then its retry of pending ones, may both try
    expect(row.email_error).toMatch(/ECONNREFUSED|connect/i);
    expect(mails).toHaveLength(0);

    await startSmtp();
    // Another date without --email: pending deliveries of earlier versions still go out.
    const next = await reportJob({ date: '2026-01-01' }, { config, db: world.t.db, logger: silentLogger });
    expect(next.exitCode).toBe(0);
    expect(next.emails.map((e) => e.status)).toEqual(['sent']);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toContain(today);
    expect(await world.t.db.knex('report_versions').where({ id: versionId }).first()).toMatchObject({ email_status: 'sent' });

    await reportJob({ date: '2026-01-02' }, { config, db: world.t.db, logger: silentLogger });
    await reportJob({ date: today, email: true }, { config, db: world.t.db, logger: silentLogger }); // already sent: not again
    expect(mails).toHaveLength(1);
  });
});
