/**
 * A merchant's own orders with the sandbox: the CSV `payrecon import` reads is adopted by the
 * sandbox (`payrecon sandbox --payments/--payouts`), so reconcile finds the imported orders instead
 * of NOT_FOUND. In-process for the reconcile path, and the real CLI for the command.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { reconcileWorld } from './helpers/reconcile-run.ts';
import { startCli, runCli, waitFor } from './helpers/cli.ts';
import { importOrders } from '../src/import/import.ts';
import { adoptOrderCsv } from '../src/sandbox/adopt-csv.ts';
import { createStatusMapper } from '../src/domain/status.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';

const NOW = new Date('2026-03-10T12:00:00Z');
const clock = () => NOW;
const statusOf = createStatusMapper();

const PAYMENTS = `merchant_ref,transaction_ref,currency,method,amount,paid_amount,fee,status,created_at
6a0c1e6e-0000-4000-8000-000000000001,7b1d2f7f-0000-4000-8000-000000000001,INR,NATIVE,2500.00,2500.00,50.00,Success,2026-03-10T09:15:00+05:30
6a0c1e6e-0000-4000-8000-000000000002,7b1d2f7f-0000-4000-8000-000000000002,NGN,TRANSFER,12345678901234.56,,,Pending,2026-03-10T10:00:00Z
6a0c1e6e-0000-4000-8000-000000000003,not-a-uuid,IDR,QRIS,150000.00,,,Pending,2026-03-10T10:05:00Z
`;
const PAYOUTS = `merchant_ref,transaction_ref,currency,method,amount,fee,bank_code,utr,status,created_at
6a0c1e6e-0000-4000-8000-000000000011,7b1d2f7f-0000-4000-8000-000000000011,INR,IFSC,1000.00,10.00,HDFC0001234,192358463048,Success,2026-03-10T08:00:00Z
6a0c1e6e-0000-4000-8000-000000000012,7b1d2f7f-0000-4000-8000-000000000012,NGN,BANK,5000.00,,044,,Initiated,2026-03-10T11:00:00Z
`;

describe('the sandbox adopts a merchant order CSV', () => {
  let dir: string;
  let files: { payments: string; payouts: string };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-adopt-'));
    files = { payments: path.join(dir, 'payments.csv'), payouts: path.join(dir, 'payouts.csv') };
    fs.writeFileSync(files.payments, PAYMENTS);
    fs.writeFileSync(files.payouts, PAYOUTS);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('in-process, reconciled against it', () => {
    let world: World;
    beforeAll(async () => {
      world = await createWorld('adopt', { sandbox: { now: () => NOW.getTime() }, client: { now: () => NOW.getTime() } });
    });
    afterAll(() => world?.close());

    it('imported orders are found (no NOT_FOUND); final ones match, open ones finish at the sandbox and resolve', async () => {
      const merchantId = world.config.PROVIDER_MERCHANT_ID;
      for (const kind of ['payment', 'payout'] as const) {
        const file = kind === 'payment' ? files.payments : files.payouts;
        const imported = await importOrders(world.t.db.knex, Readable.from([fs.readFileSync(file)]), { kind, statusOf });
        const adopted = await adoptOrderCsv(world.sandbox.state, merchantId, file, { kind, statusOf });
        // The same rows are good and bad for both: the import's validation is the sandbox's.
        expect(adopted.adopted).toBe(imported.inserted);
        expect(adopted.rejected).toEqual(imported.rejected);
      }

      const first = await reconcileWorld(world, { request: { date: '2026-03-10' }, clock });
      expect(first.status).toBe('completed');
      const items = await world.t.db
        .knex('recon_items')
        .where({ run_id: first.runs[0].runId })
        .select('transaction_ref', 'verdict', 'codes');
      const verdicts = Object.fromEntries(items.map((i) => [i.transaction_ref.slice(-2), [i.verdict, i.codes]]));
      expect(verdicts).toEqual({
        '01': ['matched', []],
        '02': ['pending', []],
        '11': ['matched', []],
        '12': ['pending', []],
      });

      await world.control.advanceClock(86_400_000);
      const second = await reconcileWorld(world, { request: { date: '2026-03-10' }, clock: () => new Date(NOW.getTime() + 86_400_000) });
      const after = await world.t.db
        .knex('recon_items')
        .where({ run_id: second.runs[0].runId })
        .select('transaction_ref', 'verdict', 'codes');
      expect(after.filter((i) => i.codes.includes('NOT_FOUND'))).toEqual([]);
      const opened = after.filter((i) => ['02', '12'].includes(i.transaction_ref.slice(-2)));
      expect(opened.map((i) => i.verdict).sort()).toEqual(['resolved', 'resolved']);
      const big = await world.control.getOrder('7b1d2f7f-0000-4000-8000-000000000002');
      expect(big?.amount).toBe('12345678901234.56');
    });
  });

  it('payrecon sandbox --payments/--payouts adopts the files, lists rejected lines, and serves the orders', async () => {
    const { child, done } = startCli(['sandbox', '--port', '0', '--payments', files.payments, '--payouts', files.payouts], {
      LOG_LEVEL: 'error',
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    try {
      await waitFor(async () => /listening on (\S+)/.test(out));
      expect(out).toContain(`${files.payments}: 3 payment rows read, 2 adopted, 1 rejected`);
      expect(out).toMatch(/line 4: transaction_ref: "not-a-uuid" is not a UUID/);
      expect(out).toContain(`${files.payouts}: 2 payout rows read, 2 adopted, 0 rejected`);
      const control = new SandboxControl(/listening on (\S+)/.exec(out)![1]);
      expect(await control.getOrder('7b1d2f7f-0000-4000-8000-000000000011')).toMatchObject({ status: 'Success', utr: '192358463048' });
    } finally {
      child.kill('SIGTERM');
      await done;
    }
  });

  it('a missing file is bad input: exit 3 naming it, nothing served', async () => {
    const r = await runCli(['sandbox', '--port', '0', '--payments', path.join(dir, 'nope.csv')], { LOG_LEVEL: 'error' });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('nope.csv: no such file');
    expect(r.stdout).not.toContain('listening');
  });
});
