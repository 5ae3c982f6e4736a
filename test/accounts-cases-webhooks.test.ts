import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../src/config/config.ts';
import { importMovements } from '../src/import/import-movements.ts';
import { approveAndLink } from '../src/movements/approve.ts';
import { hmacSha256, unixTimestamp } from '../src/provider/signing.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { serveWebhooksJob } from '../src/services/webhook.ts';
import { snapshotJob } from '../src/services/snapshot.ts';
import { silentLogger } from '../src/log/logger.ts';
import { createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { runCli, waitFor } from './helpers/cli.ts';
import { seedAccountOrders, startTwoAccounts, type TwoAccounts } from './helpers/two-accounts.ts';

// Two provider accounts against one sandbox over HTTP: what used to be account-less carries the account.
// A drift window's cases are its account's; a movement is recorded, approved and counted in one account's
// register; a notification is the account's whose secret signed it, and is confirmed with that account's client.

describe('drift cases, movements and notifications of one account among several', () => {
  let t: TestDatabase;
  let config: Config;
  let accounts: TwoAccounts;
  let control: SandboxControl;
  const context = () => ({ config, db: t.db, logger: silentLogger });

  beforeAll(async () => {
    t = await createTestDatabase('accounts_cases_webhooks');
    accounts = await startTwoAccounts(t);
    config = accounts.config;
    control = new SandboxControl(accounts.sandbox.url);
  });
  afterAll(async () => {
    await accounts?.close();
    await t?.drop();
  });

  it("a drift in B's balance is B's case; B's movement, approved in B's register, explains it", async () => {
    for (const id of ['in-main', 'ng-brand']) expect((await snapshotJob({ account: id }, context())).exitCode).toBe(0);
    const moment = new Date();
    await control.adjustBalance('INR', '1000.00', 'M-NG');
    const csv = `reference,currency,direction,amount,occurred_at,kind,usdt_amount,note\nTOPUP-NG-1,INR,in,1000.00,${moment.toISOString()},top_up,,\n`;
    const by = { recordedBy: 'asha', source: 'import:topup.csv', at: new Date() };
    expect(await importMovements(t.db.knex, Readable.from([csv]), by, 'ng-brand')).toMatchObject({ inserted: 1, rejected: [] });
    expect(await t.db.knex('movements').where({ reference: 'TOPUP-NG-1' }).select('account')).toEqual([{ account: 'ng-brand' }]);
    for (const id of ['in-main', 'ng-brand']) await snapshotJob({ account: id }, context());

    const cases = await t.db
      .knex('cases')
      .whereIn('code', ['BALANCE_DRIFT', 'DRIFT_MATCHES_PENDING'])
      .select('code', 'account_id', 'subject');
    expect(cases.map((c) => [c.code, c.account_id]).sort()).toEqual([
      ['BALANCE_DRIFT', 'ng-brand'],
      ['DRIFT_MATCHES_PENDING', 'ng-brand'],
    ]);
    // Two accounts' windows may share their moments: the subject names the account.
    for (const c of cases) expect(c.subject).toMatch(/^ng-brand\/INR:/);

    // Not in-main's register: there it is unknown.
    const lag = config.MOVEMENT_LAG_MIN * 60_000;
    expect((await approveAndLink(t.db.knex, 'TOPUP-NG-1', 'ben', new Date(), lag, 'in-main')).outcome.kind).toBe('not_found');
    const approved = await approveAndLink(t.db.knex, 'TOPUP-NG-1', 'ben', new Date(), lag, 'ng-brand');
    expect(approved.outcome.kind).toBe('approved');
    expect(approved.resolvedCases).toHaveLength(1);
  });

  it("a notification signed with B's secret is B's, confirmed with B's client; one signed with neither is refused", async () => {
    const [order] = (await seedAccountOrders(t, config, 'ng-brand', 3)).filter((o) => o.direction === 'payment');
    await control.advanceClock(2_000);
    const p = (await control.getOrder(order.transactionRef))!;
    // Unknown here: the confirmed notification opens UNKNOWN_ORDER, which must be B's.
    await t.db.knex('payment_orders').where({ transaction_ref: order.transactionRef }).delete();
    const stop = new AbortController();
    let url = '';
    const serving = serveWebhooksJob({ port: 0, host: '127.0.0.1', stop: stop.signal, onListening: (s) => (url = s.url) }, context());
    try {
      await waitFor(async () => url !== '');
      const body = JSON.stringify({
        transactionRef: p.transactionRef,
        merchantRef: p.merchantRef,
        currency: p.currency,
        method: p.method,
        amount: p.amount,
        paidAmount: p.paidAmount,
        fee: p.fee,
        status: p.status,
      });
      const post = (secret: string) => {
        const timestamp = unixTimestamp(Date.now());
        return fetch(`${url}/webhooks/payment`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', timestamp, signature: hmacSha256.sign({ timestamp, body }, secret) },
          body,
        });
      };
      expect((await post('not-a-secret')).status).toBe(401);
      expect((await post('secret-ng')).status).toBe(200);
      const event = () => t.db.knex('webhook_events').where({ transaction_ref: p.transactionRef }).first();
      await waitFor(async () => (await event())?.confirmation !== 'pending');
      // Confirmed: the fetch found the order, so it was made as M-NG (M-IN's client would be told it does not exist).
      expect(await event()).toMatchObject({ account_id: 'ng-brand', confirmation: 'confirmed' });
      const unknown = await t.db.knex('cases').where({ code: 'UNKNOWN_ORDER', transaction_ref: p.transactionRef }).first();
      expect(unknown.account_id).toBe('ng-brand');
      // The alert is stored after the confirmation commits (a failed store must not undo it): poll for it.
      const alerts = () => t.db.knex('alerts').where({ kind: 'unknown_order' }).select('account_id');
      await waitFor(async () => (await alerts()).length > 0);
      expect(await alerts()).toEqual([{ account_id: 'ng-brand' }]);
    } finally {
      stop.abort();
      await serving;
    }
  });

  it.skipIf(requiresServer('the command runs as its own process on the same database'))(
    'movements import needs --account with several accounts, naming them, and records under the one named',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-movements-accounts-'));
      try {
        const accountsFile = path.join(dir, 'accounts.json');
        fs.writeFileSync(
          accountsFile,
          JSON.stringify({
            accounts: [
              { id: 'in-main', merchantId: 'M-IN', secret: { env: 'IN_SECRET' } },
              { id: 'ng-brand', merchantId: 'M-NG', secret: { env: 'NG_SECRET' } },
            ],
          }),
        );
        const file = path.join(dir, 'wd.csv');
        fs.writeFileSync(
          file,
          'reference,currency,direction,amount,occurred_at,kind,usdt_amount,note\nWD-IN-1,INR,out,50.00,2026-11-27T10:00:00Z,withdrawal,,\n',
        );
        const env = {
          DATABASE_URL: t.url!,
          ACCOUNTS_FILE: accountsFile,
          IN_SECRET: 'secret-in',
          NG_SECRET: 'secret-ng',
          PROVIDER_BASE_URL: accounts.sandbox.url,
          LOG_LEVEL: 'silent',
        };
        const refused = await runCli(['movements', 'import', file, '--as', 'asha'], env);
        expect(refused.code).toBe(3);
        expect(refused.stderr).toContain('--account: required, 2 accounts are configured (in-main, ng-brand)');
        const done = await runCli(['movements', 'import', file, '--as', 'asha', '--account', 'in-main'], env);
        expect(done.code).toBe(0);
        expect(await t.db.knex('movements').where({ reference: 'WD-IN-1' }).select('account')).toEqual([{ account: 'in-main' }]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
