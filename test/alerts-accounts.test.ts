// Alerts of several provider accounts: each alert's row, fingerprint, title and delivered message name
// its account, so the same finding in two accounts is two alerts (neither suppresses the other), and a
// cause cleared in one account resolves that account's alert only. With one account nothing changes.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { silentLogger } from '../src/log/logger.ts';
import { raiseAndDeliver } from '../src/runtime/alerting.ts';
import { alertForFailedRun } from '../src/notify/alert-builders.ts';
import { alertFingerprint, canonicalJson } from '../src/notify/fingerprint.ts';
import { jobCompleted } from '../src/notify/resolve-alerts.ts';
import { createHash } from 'node:crypto';
import type { AlertInput } from '../src/notify/raise-alert.ts';

const T0 = new Date('2026-11-20T06:00:00Z');
const at = (min: number) => new Date(T0.getTime() + min * 60_000);
const mismatch: AlertInput = {
  kind: 'mismatches',
  fingerprintParts: ['reconcile'],
  title: 'reconcile: 1 order in mismatch (AMOUNT_MISMATCH 1)',
  payload: { summary: '1 order disagrees with the provider', counts: { AMOUNT_MISMATCH: 1 } },
};

interface Row {
  id: string;
  account_id: string;
  fingerprint: string;
  kind: string;
  title: string;
  status: string;
  resolved_at: Date | null;
}

describe('alerts per account', () => {
  let t: TestDatabase;
  let server: http.Server;
  let config: Config;
  const bodies: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-alerts-accounts-'));

  beforeAll(async () => {
    t = await createTestDatabase('alerts_accounts');
    server = http.createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        bodies.push(data);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const file = path.join(dir, 'accounts.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        accounts: [
          { id: 'in-main', baseUrl: 'http://127.0.0.1:9', merchantId: 'M-IN', secret: { env: 'IN_SECRET' } },
          { id: 'ng-brand', baseUrl: 'http://127.0.0.1:9', merchantId: 'M-NG', secret: { env: 'NG_SECRET' } },
        ],
      }),
    );
    config = loadConfig({
      ...(t.url ? { DATABASE_URL: t.url } : { PGLITE_DIR: t.config.PGLITE_DIR }),
      ACCOUNTS_FILE: file,
      IN_SECRET: 'secret-in',
      NG_SECRET: 'secret-ng',
      ALERT_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
      LOG_LEVEL: 'silent',
    });
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
    await t?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const rows = async () =>
    (await t.db.knex('alerts').orderBy('id').select('id', 'account_id', 'fingerprint', 'kind', 'title', 'status', 'resolved_at')) as Row[];
  const ctx = (account: string | undefined, min: number, cfg: Config = config) => ({
    db: t.db,
    config: cfg,
    logger: silentLogger,
    now: () => at(min),
    job: 'reconcile',
    account,
  });

  it('the same finding in two accounts is two alerts, each naming its account in row, fingerprint, title and message', async () => {
    await raiseAndDeliver(ctx('in-main', 0), [mismatch]);
    await raiseAndDeliver(ctx('ng-brand', 1), [mismatch]);
    const [a, b] = await rows();
    expect([a.account_id, b.account_id]).toEqual(['in-main', 'ng-brand']);
    expect(a.fingerprint).toBe(alertFingerprint('mismatches', ['reconcile'], 'in-main'));
    expect(b.fingerprint).toBe(alertFingerprint('mismatches', ['reconcile'], 'ng-brand'));
    expect(a.fingerprint).not.toBe(b.fingerprint);
    expect(a.title).toBe(`[in-main] ${mismatch.title}`);
    expect(b.title).toBe(`[ng-brand] ${mismatch.title}`);
    // Neither suppressed the other: both went out, each message naming its account.
    expect([a.status, b.status]).toEqual(['sent', 'sent']);
    expect(bodies).toHaveLength(2);
    const [ma, mb] = bodies.map((x) => JSON.parse(x) as { text: string; blocks: { text: { text: string } }[] });
    expect(ma.text).toBe(`payrecon: [in-main] ${mismatch.title}`);
    expect(ma.blocks[1].text.text).toMatch(/\nAccount in-main$/);
    expect(mb.text).toBe(`payrecon: [ng-brand] ${mismatch.title}`);
    expect(mb.blocks[1].text.text).toMatch(/\nAccount ng-brand$/);
  });

  it("a repeat is suppressed within its own account only, and a cleared cause resolves only its account's alert", async () => {
    await raiseAndDeliver(ctx('in-main', 2), [mismatch]);
    expect((await rows()).at(-1)).toMatchObject({ account_id: 'in-main', status: 'suppressed' });
    const failed = alertForFailedRun('reconcile', 'provider_unavailable', 'provider down');
    await raiseAndDeliver(ctx('in-main', 3), [failed]);
    await raiseAndDeliver(ctx('ng-brand', 4), [failed]);
    const sentBefore = bodies.length;
    // ng-brand's reconcile completes again: its failure clears; in-main's still stands.
    await raiseAndDeliver(ctx('ng-brand', 5), [], jobCompleted('reconcile'));
    const failures = (await rows()).filter((r) => r.kind === 'run_failed');
    expect(failures.map((r) => [r.account_id, r.resolved_at !== null])).toEqual([
      ['in-main', false],
      ['ng-brand', true],
    ]);
    const resolved = (await rows()).filter((r) => r.kind === 'resolved');
    expect(resolved).toMatchObject([{ account_id: 'ng-brand', title: 'resolved: [ng-brand] reconcile: the provider is unavailable' }]);
    expect(bodies.slice(sentBefore).map((x) => (JSON.parse(x) as { text: string }).text)).toEqual([
      'payrecon: resolved: [ng-brand] reconcile: the provider is unavailable',
    ]);
  });

  it('with one account (no ACCOUNTS_FILE) an alert is the account "default", its fingerprint and title as before accounts', async () => {
    const single = { ...t.config, ALERT_WEBHOOK_URL: config.ALERT_WEBHOOK_URL };
    const before = (await rows()).length;
    await raiseAndDeliver(ctx(undefined, 10, single), [{ ...mismatch, fingerprintParts: ['one-account'] }]);
    const [row] = (await rows()).slice(before);
    // The fingerprint of a release without accounts: sha256 of the canonical [kind, ...parts].
    const legacy = createHash('sha256')
      .update(canonicalJson(['mismatches', 'one-account']))
      .digest('hex');
    expect(row).toMatchObject({ account_id: 'default', fingerprint: legacy, title: mismatch.title, status: 'sent' });
    expect((JSON.parse(bodies.at(-1)!) as { blocks: { text: { text: string } }[] }).blocks[1].text.text).not.toMatch(/Account/);
  });
});
