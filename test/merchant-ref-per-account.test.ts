import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../src/config/config.ts';
import { accountFor } from '../src/config/accounts.ts';
import { type SeededOrder } from '../src/demo/seed-merchant.ts';
import { importOrders } from '../src/import/import.ts';
import { createStatusMapper } from '../src/domain/status.ts';
import { ordersByRefPrefix } from '../src/db/order-lookup.ts';
import { enforcedMerchantRefScope, merchantRefPhase, merchantRefScopeState, switchToPerAccountRefs } from '../src/db/merchant-ref-scope.ts';
import { preparePerAccountRefs } from '../src/db/merchant-ref-prepare.ts';
import { checkMerchantRefScope } from '../src/doctor/check-merchant-refs.ts';
import { createAccountClient } from '../src/provider/from-config.ts';
import { OrderNotFoundError } from '../src/provider/errors.ts';
import { reconcileJob } from '../src/services/reconcile.ts';
import { silentLogger } from '../src/log/logger.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { quoteIdent } from '../src/db/ident.ts';
import { availableEngines, createTestDatabase, requiresServer, type TestDatabase } from './helpers/db.ts';
import { runCli } from './helpers/cli.ts';
import { seedAccountOrders, startTwoAccounts, type TwoAccounts } from './helpers/two-accounts.ts';

// merchantRef is unique across accounts by default (the merchant's writers say ON CONFLICT (merchant_ref));
// `payrecon accounts refs-per-account` makes it unique per account. Before it, a second account's order of
// a taken merchantRef is refused by the database, and the import names the switch; after it, two accounts
// each hold their order of one merchantRef, each checked with its own MerchantID and secret.

const statusOf = createStatusMapper();
const HEADER = 'merchant_ref,transaction_ref,currency,method,amount,status,created_at,account';
const uuid = (n: number, tag: string) => `0000000${tag}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const csv = (...lines: string[]) => Readable.from([`${HEADER}\n${lines.join('\n')}\n`]);
const SHARED = uuid(1, 'c');
const ACCOUNTS = { ids: ['in-main', 'ng-brand'] };
const NO_MATCHING_INDEX = 'there is no unique or exclusion constraint matching the ON CONFLICT specification';

describe('merchantRef unique per account, opted into', () => {
  let t: TestDatabase;
  let two: TwoAccounts;
  let config: Config;
  const seeded: Record<string, SeededOrder[]> = {};

  beforeAll(async () => {
    t = await createTestDatabase('merchant_ref_per_account');
    two = await startTwoAccounts(t);
    config = two.config;
  });
  afterAll(async () => {
    await two?.close();
    await t?.drop();
  });

  const rowsOfRef = async (ref: string) =>
    (await t.db
      .knex('payment_orders')
      .where('merchant_ref', ref)
      .orderBy('account_id')
      .select('account_id', 'transaction_ref', 'amount')) as Array<{
      account_id: string;
      transaction_ref: string;
      amount: string;
    }>;

  const table = () => `${quoteIdent(t.db.schema)}.payment_orders`;
  const upsertPerAccount = (account: string, ref: string, tx: string, amount: string) =>
    t.db.knex.raw(
      `INSERT INTO ${table()} (account_id, merchant_ref, transaction_ref, currency, method, amount, status)
       VALUES (?, ?, ?, 'INR', 'UPI', ?, 'Initiated')
       ON CONFLICT (account_id, merchant_ref) DO UPDATE SET amount = excluded.amount`,
      [account, ref, tx, amount],
    );
  const upsertGlobal = (ref: string, tx: string, amount: string) =>
    t.db.knex.raw(
      `INSERT INTO ${table()} (account_id, merchant_ref, transaction_ref, currency, method, amount, status)
       VALUES ('in-main', ?, ?, 'INR', 'UPI', ?, 'Initiated')
       ON CONFLICT (merchant_ref) DO UPDATE SET amount = excluded.amount`,
      [ref, tx, amount],
    );

  it('by default a second account may not reuse a merchantRef: the database refuses it, the import names the switch', async () => {
    expect(await enforcedMerchantRefScope(t.db.knex)).toBe('database');
    const first = await importOrders(t.db.knex, csv(`${SHARED},${uuid(1, 'd')},INR,UPI,10.00,Pending,2026-11-20T10:00:00Z,in-main`), {
      kind: 'payment',
      statusOf,
      accounts: ACCOUNTS,
    });
    expect(first.inserted).toBe(1);
    const second = await importOrders(
      t.db.knex,
      csv(`${SHARED},${uuid(2, 'd')},NGN,TRANSFER,700.00,Pending,2026-11-20T10:00:00Z,ng-brand`),
      {
        kind: 'payment',
        statusOf,
        accounts: ACCOUNTS,
      },
    );
    expect(second.inserted).toBe(0);
    expect(second.rejected[0].reason).toContain(`merchant_ref: ${SHARED} is already account in-main's`);
    expect(second.rejected[0].reason).toContain('run `payrecon accounts refs-per-account`');
    // Not only the import's check: the database itself refuses the row, by the database-wide index.
    const err = await t.db
      .knex('payment_orders')
      .insert({
        account_id: 'ng-brand',
        merchant_ref: SHARED,
        transaction_ref: uuid(3, 'd'),
        currency: 'NGN',
        method: 'TRANSFER',
        amount: '1',
      })
      .then(
        () => null,
        (e: { code?: string; constraint?: string }) => e,
      );
    expect(err).toMatchObject({ code: '23505', constraint: 'payment_orders_merchant_ref_key' });
  });

  it('by default there is no per-account index: ON CONFLICT (account_id, merchant_ref) is refused, and so is the switch, naming --prepare', async () => {
    const state = await merchantRefScopeState(t.db.knex);
    expect(state).toMatchObject({ recorded: 'database', accountIndexOn: [], accountIndexInvalidOn: [] });
    expect(merchantRefPhase(state)).toBe('database');
    await expect(upsertPerAccount('ng-brand', uuid(8, 'c'), uuid(8, 'd'), '1')).rejects.toThrow(NO_MATCHING_INDEX);
    await expect(switchToPerAccountRefs(t.db.knex)).rejects.toThrow(
      'the per-account unique index is missing or unfinished on payment_orders, payout_orders; run `payrecon accounts refs-per-account --prepare` first',
    );
    expect(await checkMerchantRefScope(config)).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('unique across accounts (the default)'),
    });
  });

  it('--prepare drops an INVALID leftover of an interrupted build and builds it again; then both ON CONFLICT forms work', async () => {
    // A CONCURRENTLY build that fails half-way leaves an INVALID index under the name (here: a uniqueness violation).
    await t.db.knex('payment_orders').insert({
      account_id: 'in-main',
      merchant_ref: uuid(9, 'c'),
      transaction_ref: uuid(9, 'd'),
      currency: 'INR',
      method: 'UPI',
      amount: '1',
    });
    await expect(
      t.db.knex.raw('CREATE UNIQUE INDEX CONCURRENTLY payment_orders_account_merchant_ref_key ON payment_orders (account_id)'),
    ).rejects.toThrow(/could not create unique index/);
    await t.db.knex('payment_orders').where('merchant_ref', uuid(9, 'c')).del();
    expect((await merchantRefScopeState(t.db.knex)).accountIndexInvalidOn).toEqual(['payment_orders']);
    expect(await checkMerchantRefScope(config)).toMatchObject({ status: 'failed', fix: expect.stringContaining('--prepare` again') });
    await expect(switchToPerAccountRefs(t.db.knex)).rejects.toThrow('--prepare');

    const steps = await preparePerAccountRefs(t.db.knex);
    expect(steps.map((x) => [x.index, x.did])).toEqual([
      ['payment_orders_account_merchant_ref_key', 'rebuilt'],
      ['payout_orders_account_merchant_ref_key', 'built'],
    ]);
    const [def] = (await t.db
      .knex('pg_indexes')
      .where({ schemaname: t.db.schema, indexname: 'payment_orders_account_merchant_ref_key' })
      .pluck('indexdef')) as string[];
    expect(def).toContain('UNIQUE INDEX payment_orders_account_merchant_ref_key ON');
    expect(def).toContain('(merchant_ref text_pattern_ops, account_id)');
    expect((await preparePerAccountRefs(t.db.knex)).map((x) => x.did)).toEqual(['already', 'already']);
    const state = await merchantRefScopeState(t.db.knex);
    expect(merchantRefPhase(state)).toBe('prepared');
    expect(state.globalIndexOn).toEqual(['payment_orders', 'payout_orders']);
    expect(await enforcedMerchantRefScope(t.db.knex)).toBe('database');
    expect(await checkMerchantRefScope(config)).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('prepared for per account'),
    });

    // Prepared: the merchant's writers may use either form; merchantRef is still unique across accounts.
    await upsertPerAccount('in-main', SHARED, uuid(1, 'd'), '11.00');
    await upsertGlobal(SHARED, uuid(1, 'd'), '10');
    expect((await rowsOfRef(SHARED)).map((x) => [x.account_id, x.amount])).toEqual([['in-main', '10']]);
    await expect(upsertPerAccount('ng-brand', SHARED, uuid(2, 'd'), '700.00')).rejects.toMatchObject({
      code: '23505',
      constraint: 'payment_orders_merchant_ref_key',
    });
    const r = await importOrders(t.db.knex, csv(`${SHARED},${uuid(2, 'd')},NGN,TRANSFER,700.00,Pending,2026-11-20T10:00:00Z,ng-brand`), {
      kind: 'payment',
      statusOf,
      accounts: ACCOUNTS,
    });
    expect(r.rejected[0].reason).toContain(`merchant_ref: ${SHARED} is already account in-main's`);
  });

  it('the switch (--yes) drops the database-wide indexes in one go, records it, and a second run changes nothing', async () => {
    const done = await switchToPerAccountRefs(t.db.knex);
    expect(done.dropped).toEqual(['payment_orders_merchant_ref_key', 'payout_orders_merchant_ref_key']);
    const again = await switchToPerAccountRefs(t.db.knex);
    expect(again.dropped).toEqual([]);
    expect(again.changedAt).toEqual(done.changedAt);
    const state = await merchantRefScopeState(t.db.knex);
    expect(state).toMatchObject({ recorded: 'account', globalIndexOn: [], accountIndexOn: ['payment_orders', 'payout_orders'] });
    expect(merchantRefPhase(state)).toBe('account');
    expect(await enforcedMerchantRefScope(t.db.knex)).toBe('account');
    expect(await checkMerchantRefScope(config)).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('merchantRef unique per account since'),
    });
    expect((await preparePerAccountRefs(t.db.knex)).map((x) => x.did)).toEqual(['already', 'already']);
  });

  it('after it, the import stores the second account its own order of the shared merchantRef; a repeat in one account is still refused', async () => {
    const r = await importOrders(
      t.db.knex,
      csv(
        `${SHARED},${uuid(2, 'd')},NGN,TRANSFER,700.00,Pending,2026-11-20T10:00:00Z,ng-brand`,
        `${SHARED},${uuid(4, 'd')},NGN,TRANSFER,800.00,Pending,2026-11-20T10:00:00Z,ng-brand`,
        `${uuid(5, 'c')},${uuid(1, 'd')},INR,UPI,10.00,Pending,2026-11-20T10:00:00Z,ng-brand`,
      ),
      { kind: 'payment', statusOf, accounts: ACCOUNTS },
    );
    expect(r.inserted).toBe(1);
    expect(r.rejected).toEqual([
      { line: 3, reason: `merchant_ref: ${SHARED} duplicates line 2` },
      // transactionRef stays unique across accounts: another account's is refused, naming it.
      { line: 4, reason: `transaction_ref: ${uuid(1, 'd')} belongs to account in-main, not ng-brand` },
    ]);
    const again = await importOrders(t.db.knex, csv(`${SHARED},${uuid(6, 'd')},INR,UPI,10.00,Pending,2026-11-20T10:00:00Z,in-main`), {
      kind: 'payment',
      statusOf,
      accounts: ACCOUNTS,
    });
    expect(again.rejected).toEqual([{ line: 2, reason: `merchant_ref: ${SHARED} is already in the database` }]);
    expect((await rowsOfRef(SHARED)).map((x) => [x.account_id, x.transaction_ref])).toEqual([
      ['in-main', uuid(1, 'd')],
      ['ng-brand', uuid(2, 'd')],
    ]);
  });

  it("the merchant's upsert keyed on the account updates that account's order only; keyed on merchant_ref alone it is refused", async () => {
    const table = `${quoteIdent(t.db.schema)}.payment_orders`;
    await t.db.knex.raw(
      `INSERT INTO ${table} (account_id, merchant_ref, transaction_ref, currency, method, amount, status)
       VALUES ('ng-brand', ?, ?, 'NGN', 'TRANSFER', 750.00, 'Initiated')
       ON CONFLICT (account_id, merchant_ref) DO UPDATE SET amount = excluded.amount`,
      [SHARED, uuid(2, 'd')],
    );
    expect((await rowsOfRef(SHARED)).map((x) => [x.account_id, x.amount])).toEqual([
      ['in-main', '10'],
      ['ng-brand', '750.00'],
    ]);
    await expect(
      t.db.knex.raw(
        `INSERT INTO ${table} (account_id, merchant_ref, transaction_ref, currency, method, amount)
         VALUES ('ng-brand', ?, ?, 'NGN', 'TRANSFER', 1) ON CONFLICT (merchant_ref) DO NOTHING`,
        [SHARED, uuid(7, 'd')],
      ),
    ).rejects.toThrow(NO_MATCHING_INDEX);
  });

  it('the ref search finds both orders, each with its account', async () => {
    const found = await ordersByRefPrefix(t.db.knex, SHARED, 10);
    expect(found.map((o) => [o.accountId, o.merchantRef, o.transactionRef])).toEqual([
      ['in-main', SHARED, uuid(1, 'd')],
      ['ng-brand', SHARED, uuid(2, 'd')],
    ]);
    expect((await ordersByRefPrefix(t.db.knex, SHARED, 10, 'ng-brand')).map((o) => o.accountId)).toEqual(['ng-brand']);
  });

  it('two accounts seeded alike share every merchantRef; each reconciled with its own MerchantID and secret, all matched', async () => {
    await t.db.knex('payment_orders').del();
    for (const id of ['in-main', 'ng-brand']) seeded[id] = await seedAccountOrders(t, config, id, 7);
    const refsOf = (id: string) => seeded[id].map((o) => o.merchantRef).sort();
    expect(refsOf('ng-brand')).toEqual(refsOf('in-main'));
    // The provider's refs differ: each order is one account's at the provider.
    const inMainTx = new Set(seeded['in-main'].map((o) => o.transactionRef));
    expect(seeded['ng-brand'].some((o) => inMainTx.has(o.transactionRef))).toBe(false);
    await new SandboxControl(two.sandbox.url).advanceClock(2_000);

    const today = new Date().toISOString().slice(0, 10);
    for (const account of ['in-main', 'ng-brand']) {
      const r = await reconcileJob({ progress: false, date: today, account }, { config, db: t.db, logger: silentLogger });
      expect(r.outcome.runs.reduce((n, run) => n + run.checked, 0)).toBe(5);
    }
    // Each order checked once, under its own account, and consistent at the provider (a fetch with the other
    // account's MerchantID is ORDER_NOT_FOUND there, so a mix-up would be a NOT_FOUND mismatch).
    const items = (await t.db
      .knex('recon_items as i')
      .join('job_runs as r', 'r.id', 'i.run_id')
      .select('i.account_id', 'r.account_id as run_account', 'i.merchant_ref', 'i.verdict')) as Array<{
      account_id: string;
      run_account: string;
      merchant_ref: string;
      verdict: string;
    }>;
    expect(items).toHaveLength(10);
    expect(items.every((i) => i.account_id === i.run_account && ['matched', 'resolved'].includes(i.verdict))).toBe(true);
    for (const id of ['in-main', 'ng-brand'])
      expect(
        items
          .filter((i) => i.account_id === id)
          .map((i) => i.merchant_ref)
          .sort(),
      ).toEqual(refsOf(id));

    const [order] = seeded['in-main'];
    const other = await createAccountClient(config, accountFor(config, 'ng-brand'), { logger: silentLogger });
    try {
      const fetchOther = order.direction === 'payment' ? other.fetchPayment(order.transactionRef) : other.fetchPayout(order.transactionRef);
      await expect(fetchOther).rejects.toBeInstanceOf(OrderNotFoundError);
    } finally {
      await other.close();
    }
    // The search by the shared ref lists both accounts' orders.
    expect((await ordersByRefPrefix(t.db.knex, order.merchantRef, 10)).map((o) => o.accountId).sort()).toEqual(['in-main', 'ng-brand']);
  });
});

describe('one account after migration 055', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('merchant_ref_single');
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("the merchant's ON CONFLICT (merchant_ref) upsert works as before, from a session outside payrecon's schema; no index added", async () => {
    const table = `${quoteIdent(t.db.schema)}.payment_orders`;
    const upsert = (amount: string) =>
      t.db.knex.transaction(async (trx) => {
        await trx.raw('SET LOCAL search_path TO public');
        await trx.raw(
          `INSERT INTO ${table} (merchant_ref, transaction_ref, currency, method, amount, status)
           VALUES (?, ?, 'INR', 'UPI', ?, 'Initiated')
           ON CONFLICT (merchant_ref) DO UPDATE SET amount = excluded.amount`,
          [uuid(1, 'e'), uuid(1, 'f'), amount],
        );
      });
    await upsert('10.00');
    await upsert('12.50');
    expect(await t.db.knex('payment_orders').select('account_id', 'amount')).toEqual([{ account_id: 'default', amount: '12.50' }]);
    expect(await enforcedMerchantRefScope(t.db.knex)).toBe('database');
    // Migration 055 adds no index: a deployment that never switches writes no per-account index entries.
    const state = await merchantRefScopeState(t.db.knex);
    expect(state).toMatchObject({ accountIndexOn: [], accountIndexInvalidOn: [] });
    expect(merchantRefPhase(state)).toBe('database');
  });
});

// CONCURRENTLY on both engines: PGlite (one session) accepts it, and leaves an INVALID index from a failed build as Postgres does.
describe.each(availableEngines)('--prepare on %s', (engine) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase(`merchant_ref_prepare_${engine}`, { engine });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('rebuilds an INVALID leftover, builds the other, and leaves both states usable', async () => {
    await t.db
      .knex('payout_orders')
      .insert(
        [1, 2].map((n) => ({ merchant_ref: uuid(n, 'a'), transaction_ref: uuid(n, 'b'), currency: 'INR', method: 'IMPS', amount: '1' })),
      );
    await expect(
      t.db.knex.raw('CREATE UNIQUE INDEX CONCURRENTLY payout_orders_account_merchant_ref_key ON payout_orders (account_id)'),
    ).rejects.toThrow(/could not create unique index/);
    expect((await merchantRefScopeState(t.db.knex)).accountIndexInvalidOn).toEqual(['payout_orders']);
    expect((await preparePerAccountRefs(t.db.knex)).map((x) => x.did)).toEqual(['built', 'rebuilt']);
    expect(merchantRefPhase(await merchantRefScopeState(t.db.knex))).toBe('prepared');
    await switchToPerAccountRefs(t.db.knex);
    expect(merchantRefPhase(await merchantRefScopeState(t.db.knex))).toBe('account');
  });
});

// The command runs in its own process with its own connection: a server, not the embedded database.
describe.skipIf(requiresServer('the command runs in a process of its own beside the test'))('payrecon accounts refs-per-account', () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    t = await createTestDatabase('merchant_ref_command');
    env = { DATABASE_URL: t.url!, LOG_FORMAT: 'text', PROVIDER_MERCHANT_ID: 'M-1', PROVIDER_SECRET: 'not-printed-here' };
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('without an option: prints both steps and what the writers must change between them, changes nothing, exit 3', async () => {
    const r = await runCli(['accounts', 'refs-per-account'], env);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(
      '1. --prepare: builds the unique indexes (merchantRef per account)\n       payment_orders_account_merchant_ref_key, payout_orders_account_merchant_ref_key',
    );
    expect(r.stdout).toContain('CREATE UNIQUE INDEX CONCURRENTLY');
    expect(r.stdout).toContain('ON CONFLICT (account_id, merchant_ref)   instead of   ON CONFLICT (merchant_ref)');
    expect(r.stdout).toContain(
      'drops the unique indexes (merchantRef unique across accounts)\n       payment_orders_merchant_ref_key, payout_orders_merchant_ref_key',
    );
    expect(r.stdout).toContain('Forward-only');
    expect(r.stdout).toContain('Only one account is configured (default)');
    expect(r.stdout).toContain('run again with --prepare');
    expect(merchantRefPhase(await merchantRefScopeState(t.db.knex))).toBe('database');
    const list = await runCli(['accounts', 'list', '--json'], env);
    expect(JSON.parse(list.stdout)[0].merchantRefScope).toBe('database');
  });

  it('--yes before --prepare, or both at once: refused, exit 3, nothing changed', async () => {
    const early = await runCli(['accounts', 'refs-per-account', '--yes'], env);
    expect(early.code).toBe(3);
    expect(early.stderr).toContain('run `payrecon accounts refs-per-account --prepare` first');
    const both = await runCli(['accounts', 'refs-per-account', '--prepare', '--yes'], env);
    expect(both.code).toBe(3);
    expect(both.stderr).toContain('two steps');
    expect(merchantRefPhase(await merchantRefScopeState(t.db.knex))).toBe('database');
  });

  it('--prepare: builds both indexes concurrently, says what is next; again: already there', async () => {
    const r = await runCli(['accounts', 'refs-per-account', '--prepare'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'built payment_orders_account_merchant_ref_key (concurrently)\nbuilt payout_orders_account_merchant_ref_key (concurrently)\n',
    );
    expect(r.stdout).toContain(
      'Next, once every writer says ON CONFLICT (account_id, merchant_ref): payrecon accounts refs-per-account --yes',
    );
    const again = await runCli(['accounts', 'refs-per-account', '--prepare'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('payment_orders_account_merchant_ref_key: already there');
    const plan = await runCli(['accounts', 'refs-per-account'], env);
    expect(plan.stdout).toContain('1. --prepare (done)');
    expect(plan.stdout).toContain('run again with --yes');
    const list = await runCli(['accounts', 'list', '--json'], env);
    expect(JSON.parse(list.stdout)[0].merchantRefScope).toBe('prepared');
  });

  it('--yes: done, listed by `accounts list`; again: nothing to do, exit 0', async () => {
    const r = await runCli(['accounts', 'refs-per-account', '--yes'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'dropped payment_orders_merchant_ref_key, payout_orders_merchant_ref_key; merchantRef: unique per account since',
    );
    const again = await runCli(['accounts', 'refs-per-account', '--yes'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to do');
    const list = await runCli(['accounts', 'list'], env);
    expect(list.stdout).toMatch(
      /merchantRef: unique per account since \S+ \(the merchant's writers use ON CONFLICT \(account_id, merchant_ref\)\)/,
    );
    expect(r.stdout + list.stdout).not.toContain('not-printed-here');
  });
});
