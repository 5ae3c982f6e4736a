import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { alertsByFingerprint } from '../src/db/alerts.ts';
import { alertFingerprint } from '../src/notify/fingerprint.ts';
import { raiseAlert, type AlertInput } from '../src/notify/raise-alert.ts';
import { deliverPendingAlerts, alertChannelsFromConfig, type AlertChannels } from '../src/notify/deliver-alerts.ts';
import { createMailer, type Mailer } from '../src/notify/mailer.ts';
import { alertForDrift } from '../src/notify/alert-builders.ts';

const HOOK_TOKEN = 'T0K3N-hook-secret';

/** A Slack-like receiver: answers with the queued statuses (then 200), echoing the path on errors. */
class Receiver {
  readonly bodies: { text: string; blocks?: unknown[] }[] = [];
  statuses: number[] = [];
  port = 0;
  private server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const status = this.statuses.shift() ?? 200;
      if (status === 200) this.bodies.push(JSON.parse(data));
      res.writeHead(status).end(status === 200 ? 'ok' : `error handling ${req.url}`);
    });
  });
  get url() {
    return `http://127.0.0.1:${this.port}/services/${HOOK_TOKEN}`;
  }
  async listen() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as net.AddressInfo).port;
  }
  close() {
    return new Promise((r) => this.server.close(r));
  }
}

const T0 = new Date('2026-11-21T06:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const HOUR = 3_600_000;

const finding = (n: number): AlertInput => ({
  kind: 'mismatches',
  fingerprintParts: ['reconcile'],
  title: `reconcile: ${n} orders in mismatch`,
  payload: { counts: { AMOUNT: n }, orders: [{ merchantRef: 'M-1', transactionRef: 'T-1', codes: ['AMOUNT'], reason: 'amount differs' }] },
  runId: null,
});

describe('alerts', () => {
  let t: TestDatabase;
  let receiver: Receiver;
  let channels: AlertChannels;

  beforeAll(async () => {
    receiver = new Receiver();
    await receiver.listen();
    t = await createTestDatabase('notify_alerts', { env: { ALERT_WEBHOOK_URL: receiver.url, NOTIFY_TIMEOUT_MS: '2000' } });
    channels = alertChannelsFromConfig(t.config);
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.drop();
  });
  beforeEach(async () => {
    await t.db.knex.raw('DELETE FROM alerts');
    receiver.bodies.length = 0;
    receiver.statuses = [];
  });

  it('delivers a Slack-shaped message and marks the alert sent', async () => {
    const { alert, suppressed } = await raiseAlert(t.db, finding(3), { now: T0 });
    expect(suppressed).toBe(false);
    expect(alert.status).toBe('pending');
    const r = await deliverPendingAlerts(t.db, channels, T0);
    expect(r).toEqual({ sent: [alert.id], failed: [] });
    expect(receiver.bodies).toHaveLength(1);
    expect(receiver.bodies[0].text).toBe('payrecon: reconcile: 3 orders in mismatch');
    expect(receiver.bodies[0].blocks).toEqual([
      { type: 'header', text: { type: 'plain_text', text: 'payrecon: reconcile: 3 orders in mismatch' } },
      { type: 'section', text: { type: 'mrkdwn', text: 'Counts: AMOUNT 3\nFirst orders:\n• M-1 / T-1 [AMOUNT] amount differs' } },
    ]);
    const [row] = await alertsByFingerprint(t.db.knex, alert.fingerprint);
    expect(row).toMatchObject({ status: 'sent', attempts: 1, sent_at: T0, next_attempt_at: null, delivered_channels: ['webhook'] });
  });

  it('dedupes: the same finding is suppressed, a changed one is sent, the same one again after the interval', async () => {
    await raiseAlert(t.db, finding(3), { now: T0 });
    await deliverPendingAlerts(t.db, channels, T0);

    const repeat = await raiseAlert(t.db, finding(3), { now: at(HOUR) });
    expect(repeat.suppressed).toBe(true);
    expect((await deliverPendingAlerts(t.db, channels, at(HOUR))).sent).toEqual([]);

    const changed = await raiseAlert(t.db, finding(4), { now: at(2 * HOUR) });
    expect(changed.suppressed).toBe(false);
    expect((await deliverPendingAlerts(t.db, channels, at(2 * HOUR))).sent).toEqual([changed.alert.id]);

    // The interval counts from the last send of that finding (at 2 h), configurable per call.
    expect((await raiseAlert(t.db, finding(4), { now: at(5 * HOUR), repeatAfterMs: 4 * HOUR })).suppressed).toBe(true);
    const later = await raiseAlert(t.db, finding(4), { now: at(6 * HOUR), repeatAfterMs: 4 * HOUR });
    expect(later.suppressed).toBe(false);
    await deliverPendingAlerts(t.db, channels, at(6 * HOUR));

    expect(receiver.bodies.map((b) => b.text)).toEqual([
      'payrecon: reconcile: 3 orders in mismatch',
      'payrecon: reconcile: 4 orders in mismatch',
      'payrecon: reconcile: 4 orders in mismatch',
    ]);
    const rows = await alertsByFingerprint(t.db.knex, alertFingerprint('mismatches', ['reconcile']));
    expect(rows.map((r) => r.status)).toEqual(['sent', 'suppressed', 'sent', 'suppressed', 'sent']);
  });

  it('a finding raised while the previous one is still queued: the same one is suppressed, a new one supersedes it', async () => {
    const first = await raiseAlert(t.db, finding(3), { now: T0 });
    expect((await raiseAlert(t.db, finding(3), { now: at(1000) })).suppressed).toBe(true);
    const newer = await raiseAlert(t.db, finding(5), { now: at(2000) });
    expect((await deliverPendingAlerts(t.db, channels, at(3000))).sent).toEqual([newer.alert.id]);
    const rows = await alertsByFingerprint(t.db.knex, first.alert.fingerprint);
    expect(rows.map((r) => [r.status, r.last_error])).toEqual([
      ['suppressed', `superseded by alert ${newer.alert.id}`],
      ['suppressed', null],
      ['sent', null],
    ]);
  });

  it('receiver answers 500: stays pending with backoff, the URL secret is not stored, retried when due, sent once', async () => {
    const { alert } = await raiseAlert(t.db, alertForDrift({ currency: 'NGN', drift: '1250' }), { now: T0 });
    receiver.statuses = [500, 500];

    const first = await deliverPendingAlerts(t.db, channels, T0);
    expect(first.sent).toEqual([]);
    expect(first.failed).toEqual([{ id: alert.id, error: expect.stringContaining('HTTP 500'), nextAttemptAt: at(60_000) }]);
    let [row] = await alertsByFingerprint(t.db.knex, alert.fingerprint);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: at(60_000) });
    expect(row.last_error).toContain('[redacted]');
    expect(row.last_error).not.toContain(HOOK_TOKEN);

    // Not due yet: nothing is attempted.
    expect(await deliverPendingAlerts(t.db, channels, at(30_000))).toEqual({ sent: [], failed: [] });

    const second = await deliverPendingAlerts(t.db, channels, at(60_000));
    expect(second.failed[0].nextAttemptAt).toEqual(at(60_000 + 120_000));

    const third = await deliverPendingAlerts(t.db, channels, at(180_000));
    expect(third.sent).toEqual([alert.id]);
    [row] = await alertsByFingerprint(t.db.knex, alert.fingerprint);
    expect(row).toMatchObject({ status: 'sent', attempts: 3, last_error: null, sent_at: at(180_000) });
    expect(receiver.bodies.map((b) => b.text)).toEqual(['payrecon: NGN balance drift 1,250.00']);
  });

  it('never throws: an unreachable receiver and an empty channel set are results', async () => {
    const { alert } = await raiseAlert(t.db, finding(1), { now: T0 });
    const dead = await deliverPendingAlerts(t.db, { webhook: { url: 'http://127.0.0.1:9/hook', timeoutMs: 1000 } }, T0);
    expect(dead.failed.map((f) => f.id)).toEqual([alert.id]);
    expect(dead.failed[0].error).toMatch(/webhook request failed/);
    expect(await deliverPendingAlerts(t.db, {}, T0)).toMatchObject({
      sent: [],
      failed: [],
      error: expect.stringContaining('no alert channel'),
    });
  });

  it('secrets in a title or payload are scrubbed before storing', async () => {
    const { alert } = await raiseAlert(
      t.db,
      { kind: 'run_failed', fingerprintParts: ['x'], title: `failed with ${HOOK_TOKEN}`, payload: { summary: `url ${HOOK_TOKEN}` } },
      { now: T0, secrets: [HOOK_TOKEN] },
    );
    expect(JSON.stringify([alert.title, alert.payload])).not.toContain(HOOK_TOKEN);
  });
});

describe('alerts to webhook and e-mail', () => {
  let t: TestDatabase;
  let receiver: Receiver;
  let mailer: Mailer;
  const mails: ParsedMail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, _s, cb) => void simpleParser(stream).then((m) => (mails.push(m), cb()), cb),
  });

  beforeAll(async () => {
    receiver = new Receiver();
    await receiver.listen();
    await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
    const smtpPort = (smtp.server.address() as net.AddressInfo).port;
    t = await createTestDatabase('notify_alerts_mail', {
      env: {
        ALERT_WEBHOOK_URL: receiver.url,
        ALERT_EMAIL_TO: 'oncall@merchant.example',
        SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
        NOTIFY_TIMEOUT_MS: '2000',
      },
    });
    mailer = createMailer(t.config);
  });
  afterAll(async () => {
    mailer?.close();
    await new Promise((r) => smtp.close(() => r(undefined)));
    await receiver?.close();
    await t?.drop();
  });

  it('after a partial failure only the channel that failed is retried', async () => {
    const channels = alertChannelsFromConfig(t.config, mailer);
    const { alert } = await raiseAlert(t.db, finding(2), { now: T0 });
    receiver.statuses = [500];
    const first = await deliverPendingAlerts(t.db, channels, T0);
    expect(first.failed[0].error).toMatch(/^webhook: /);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe('[payrecon alert] reconcile: 2 orders in mismatch');
    expect(mails[0].text).toContain('M-1 / T-1 [AMOUNT] amount differs');

    const second = await deliverPendingAlerts(t.db, channels, at(HOUR));
    expect(second.sent).toEqual([alert.id]);
    expect(mails).toHaveLength(1);
    expect(receiver.bodies).toHaveLength(1);
    const [row] = await alertsByFingerprint(t.db.knex, alert.fingerprint);
    expect(row).toMatchObject({ status: 'sent', attempts: 2, delivered_channels: ['email', 'webhook'] });
  });
});
