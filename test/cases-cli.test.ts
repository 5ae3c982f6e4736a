import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { runCli } from './helpers/cli.ts';
import { createWorld, type World } from './helpers/world.ts';
import { requiresServer } from './helpers/db.ts';

/** The whole life of a case through the command line, the sandbox as the provider over HTTP. */
// payrecon processes beside the test's own open database: PGlite serves one at a time.
describe.skipIf(requiresServer("the cases commands run as processes beside the test's open database"))(
  'payrecon cases, end to end on the sandbox',
  () => {
    let world: World;
    let order: SeededOrder;
    let originalFee: string;
    const cli = async (args: string[], env: Record<string, string> = {}) => {
      const res = await runCli(args, { ...world.env, ...env });
      if (res.code !== 0 && !env.EXPECT_FAILURE) throw new Error(`payrecon ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
      return res;
    };
    const json = async (args: string[], env: Record<string, string> = {}) => JSON.parse((await cli([...args, '--json'], env)).stdout);
    const recheck = () => cli(['reconcile', '--ref', order.merchantRef]);
    const feeCase = async () => {
      const list = (await json(['cases', 'list', '--state', 'all', '--code', 'FEE'])) as {
        total: number;
        cases: Array<Record<string, unknown>>;
      };
      expect(list.total).toBe(1);
      expect(list.cases).toHaveLength(1);
      return list.cases[0];
    };

    beforeAll(async () => {
      world = await createWorld('cases_cli');
      const orders = await seedMerchant(world.t.db.knex, world.client, { payments: 4, payouts: 2, seed: 11 });
      order = orders.find((o) => o.direction === 'payment')!;
      await world.control.advanceClock(2_000); // every order final at the provider
      await cli(['reconcile']); // orders recorded final, fees learnt from the provider
      originalFee = (await world.control.getOrder(order.transactionRef))!.fee;
    }, 300_000);
    afterAll(() => world?.close());

    it('nothing to work after a clean night', async () => {
      expect(await json(['cases', 'list'])).toEqual({ total: 0, cases: [], next: null });
      expect((await cli(['cases', 'list'])).stdout).toBe('no cases match\n');
    }, 120_000);

    it('a finding opens a case; a person resolves it; the recheck still finds it and reopens it', async () => {
      await world.control.setOrder(order.transactionRef, { fee: `${originalFee}5` }); // the provider now charges more
      await recheck();
      const opened = await feeCase();
      expect(opened).toMatchObject({ state: 'open', code: 'FEE', merchant_ref: order.merchantRef, currency: order.currency });
      expect((await cli(['cases', 'list'])).stdout).toContain(order.merchantRef);

      const resolved = await json([
        'cases',
        'resolve',
        String(opened.id),
        '--reason',
        'provider-corrected',
        '--note',
        'provider will refund',
        '--as',
        'asha',
      ]);
      expect(resolved).toMatchObject({ state: 'resolved', resolution: 'provider-corrected' });
      expect(resolved.history.at(-1)).toMatchObject({
        from: 'open',
        to: 'resolved',
        reason: 'provider-corrected',
        note: 'provider will refund',
        actor: 'asha',
      });

      await recheck(); // the provider did not correct it
      const reopened = await feeCase();
      expect(reopened.state).toBe('open');
      expect((reopened.history as unknown[]).at(-1)).toMatchObject({ from: 'resolved', to: 'open', reason: 'recurred', actor: 'payrecon' });
    }, 300_000);

    it('acknowledged by PAYRECON_ACTOR; fixed at the provider, the next check clears it by itself', async () => {
      const c = await feeCase();
      const acked = await json(['cases', 'ack', String(c.id), '--note', 'chasing the provider'], { PAYRECON_ACTOR: 'bo@finance' });
      expect(acked.history.at(-1)).toMatchObject({ to: 'acknowledged', actor: 'bo@finance', note: 'chasing the provider' });

      await world.control.setOrder(order.transactionRef, { fee: originalFee });
      await recheck();
      const shown = await json(['cases', 'show', String(c.id)]);
      expect(shown).toMatchObject({ state: 'resolved', resolution: 'cleared-by-recheck', merchant_ref: order.merchantRef });
      expect(shown.history.map((e: Record<string, string>) => [e.to, e.reason, e.actor].filter(Boolean).join(' '))).toEqual([
        'open payrecon',
        'resolved provider-corrected asha',
        'open recurred payrecon',
        'acknowledged bo@finance',
        'resolved cleared-by-recheck payrecon',
      ]);
      expect(shown.order).toMatchObject({ merchant_ref: order.merchantRef, fee: originalFee, status_category: 'success' });
      expect(shown.checks.map((k: Record<string, unknown>) => k.verdict)).toEqual(['resolved', 'mismatch', 'mismatch', 'matched']);
      expect(shown.checks[1].provider.fee).toBe(`${originalFee}5`);
      expect(shown.checks[1].local.fee).toBe(originalFee);

      const text = (await cli(['cases', 'show', String(c.id)])).stdout;
      expect(text).toContain(`case #${c.id}  FEE  resolved (cleared-by-recheck)`);
      expect(text).toContain('bo@finance');
      expect(await json(['cases', 'list'])).toEqual({ total: 0, cases: [], next: null });
    }, 300_000);

    it.each([
      [['cases', 'resolve', '1', '--reason', 'adjusted'], "required option '--note <text>' not specified"],
      [['cases', 'resolve', '1', '--reason', 'cleared-by-recheck', '--note', 'x'], 'Allowed choices are provider-corrected'],
      [['cases', 'list', '--older-than', '3 days'], '--older-than: expected a duration like 30m, 12h or 3d'],
      [['cases', 'list', '--day', '2026-02-30'], '--day: invalid date 2026-02-30'],
      [['cases', 'ack', '999999'], 'no case "999999"'],
    ])(
      'payrecon %j exits 3 naming the problem',
      async (args, message) => {
        const res = await cli(args, { EXPECT_FAILURE: '1' });
        expect(res.code).toBe(3);
        expect(res.stderr).toContain(message);
      },
      120_000,
    );
  },
);
