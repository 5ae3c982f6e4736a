// `payrecon banks sync` / `banks list` against the sandbox over HTTP, on a real test database.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestDatabase } from './helpers/db.ts';
import { createWorld, type World } from './helpers/world.ts';
import type { Sandbox } from '../src/sandbox/server.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import { DEFAULT_BANKS } from '../src/sandbox/bank-codes.ts';
import type { ProviderClient } from '../src/provider/client.ts';
import { silentLogger } from '../src/log/logger.ts';
import { syncBankCodes } from '../src/banks/sync.ts';
import { diffBankLists } from '../src/banks/diff.ts';
import { listBankCodes, loadActiveBankCodes } from '../src/db/bank-codes.ts';
import { findRun } from '../src/db/runs.ts';
import { bankSyncJob } from '../src/services/bank-codes.ts';
import { EXIT } from '../src/domain/exit-codes.ts';

const DAY1 = new Date('2026-03-10T06:00:00.000Z');
const DAY2 = new Date('2026-03-11T06:00:00.000Z');
const DAY3 = new Date('2026-03-12T06:00:00.000Z');

let world: World;
let t: TestDatabase;
let sb: Sandbox;
let control: SandboxControl;
let client: ProviderClient;

beforeAll(async () => {
  world = await createWorld('banks', { sandbox: {}, client: { maxRetries: 0 } });
  ({ t, sandbox: sb, control, client } = world);
});
afterAll(() => world?.close());
beforeEach(async () => {
  await control.reset();
  await t.db.knex.raw('TRUNCATE bank_codes, job_runs CASCADE');
});

const sync = (at: Date) => syncBankCodes({ db: t.db, client, clock: () => at, logger: silentLogger });
const row = (currency: string, bankCode: string) => t.db.knex('bank_codes').where({ currency, bank_code: bankCode }).first();

describe('banks sync', () => {
  it('first sync adds every listed code of IDR and NGN', async () => {
    const r = await sync(DAY1);
    expect(r.status).toBe('completed');
    expect(r.synced.map((s) => [s.currency, s.listed, s.added.length, s.renamed.length, s.removed.length])).toEqual([
      ['IDR', DEFAULT_BANKS.IDR.length, DEFAULT_BANKS.IDR.length, 0, 0],
      ['NGN', DEFAULT_BANKS.NGN.length, DEFAULT_BANKS.NGN.length, 0, 0],
    ]);
    // Leading zeros are part of the code.
    expect(await row('NGN', '044')).toMatchObject({ bank_name: 'Access Bank', active: true, first_seen_at: DAY1, last_seen_at: DAY1 });
    const run = await findRun(t.db.knex, r.runId!);
    expect(run).toMatchObject({ job: 'bank-codes', status: 'completed', counts: { 'NGN:added': DEFAULT_BANKS.NGN.length, failed: 0 } });
  });

  it('reports codes added, renamed and removed between two syncs, and a removed code that comes back', async () => {
    await sync(DAY1);
    await control.setBank('NGN', '999999', 'New Microfinance Bank');
    await control.setBank('NGN', '044', 'Access Bank Plc');
    await control.removeBank('IDR', '535');

    const second = await sync(DAY2);
    const [idr, ngn] = second.synced;
    expect(idr).toMatchObject({
      added: [],
      renamed: [],
      removed: [{ bankCode: '535', bankName: 'SeaBank' }],
      reactivated: [],
      unchanged: DEFAULT_BANKS.IDR.length - 1,
    });
    expect(ngn).toMatchObject({
      added: [{ bankCode: '999999', bankName: 'New Microfinance Bank' }],
      renamed: [{ bankCode: '044', from: 'Access Bank', to: 'Access Bank Plc' }],
      removed: [],
      reactivated: [],
    });
    expect(await row('IDR', '535')).toMatchObject({ active: false, first_seen_at: DAY1, last_seen_at: DAY1 });
    expect(await row('NGN', '044')).toMatchObject({ bank_name: 'Access Bank Plc', active: true, first_seen_at: DAY1, last_seen_at: DAY2 });
    expect(await row('NGN', '999999')).toMatchObject({ active: true, first_seen_at: DAY2 });
    // The reconcile job's BANK_CODE check sees the change.
    expect((await loadActiveBankCodes(t.db.knex)).get('IDR')?.has('535')).toBe(false);

    await control.setBank('IDR', '535', 'SeaBank');
    const third = await sync(DAY3);
    expect(third.synced[0]).toMatchObject({ added: [], reactivated: [{ bankCode: '535', bankName: 'SeaBank' }], removed: [] });
    expect(await row('IDR', '535')).toMatchObject({ active: true, first_seen_at: DAY1, last_seen_at: DAY3 });
  });

  it("one currency failing keeps the other's update; the job exits 2 and the run says which", async () => {
    await control.addFault({ kind: 'status500', operations: ['bankCodes'], currencies: ['NGN'] });
    const { exitCode, result } = await bankSyncJob(
      { provider: { baseUrl: sb.url, maxRetries: 0 }, clock: () => DAY1 },
      { config: t.config, db: t.db, logger: silentLogger },
    );
    expect(exitCode).toBe(EXIT.INCOMPLETE);
    expect(result.status).toBe('failed');
    expect(result.synced.map((s) => s.currency)).toEqual(['IDR']);
    expect(result.failures).toEqual([expect.objectContaining({ currency: 'NGN', step: 'bankCodes', unavailable: true })]);
    expect(await t.db.knex('bank_codes').where({ currency: 'NGN' }).count('* as n')).toEqual([{ n: '0' }]);
    expect((await findRun(t.db.knex, result.runId!))?.error).toMatch(/^NGN bankCodes: /);
  });

  it('refuses an empty list rather than marking every code inactive', async () => {
    await sync(DAY1);
    for (const b of DEFAULT_BANKS.IDR) await control.removeBank('IDR', b.bankCode);
    const r = await sync(DAY2);
    expect(r.status).toBe('failed');
    expect(r.failures).toEqual([expect.objectContaining({ currency: 'IDR', message: expect.stringContaining('empty list') })]);
    expect(await t.db.knex('bank_codes').where({ currency: 'IDR', active: true }).count('* as n')).toEqual([
      { n: String(DEFAULT_BANKS.IDR.length) },
    ]);
  });

  it('refused credentials stop the run', async () => {
    await control.addFault({ kind: 'status403' });
    const r = await sync(DAY1);
    expect(r.status).toBe('credentials');
    expect(r.synced).toEqual([]);
    expect((await findRun(t.db.knex, r.runId!))?.status).toBe('credentials');
  });
});

describe('banks list', () => {
  it('lists active codes by name, searches names and code prefixes, and shows inactive ones with --all', async () => {
    await sync(DAY1);
    await control.removeBank('NGN', '50211');
    await sync(DAY2);

    const all = await listBankCodes(t.db.knex, { currency: 'NGN' });
    expect(all).toHaveLength(DEFAULT_BANKS.NGN.length - 1);
    const names = all.map((b) => b.bankName.toLowerCase());
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

    const kuda = await listBankCodes(t.db.knex, { currency: 'NGN', search: 'kuda' });
    expect(kuda.map((b) => [b.bankCode, b.active])).toEqual([['090267', true]]);
    const kudaAll = await listBankCodes(t.db.knex, { currency: 'NGN', search: 'KUDA', includeInactive: true });
    expect(kudaAll.map((b) => [b.bankCode, b.active]).sort()).toEqual([
      ['090267', true],
      ['50211', false],
    ]);

    expect((await listBankCodes(t.db.knex, { currency: 'NGN', search: '0902' })).map((b) => b.bankCode)).toEqual(['090267']);
    // LIKE wildcards typed by the user match literally.
    expect(await listBankCodes(t.db.knex, { currency: 'NGN', search: '%' })).toEqual([]);
  });
});

describe('diffBankLists', () => {
  it('keeps the last of a code listed twice, and reports it', () => {
    const d = diffBankLists(
      [{ bankCode: '01', bankName: 'A', active: true }],
      [
        { bankCode: '01', bankName: 'A' },
        { bankCode: '01', bankName: 'A2' },
      ],
    );
    expect(d).toMatchObject({
      entries: [{ bankCode: '01', bankName: 'A2' }],
      duplicates: ['01'],
      renamed: [{ bankCode: '01', from: 'A', to: 'A2' }],
      unchanged: 0,
    });
  });
});
