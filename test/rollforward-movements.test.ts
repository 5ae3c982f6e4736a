// Issue 38: recorded, approved movements (top-ups, withdrawals) explain the roll-forward like orders.
// The sandbox moves its balance (its control API) as a provider does for a top-up or a withdrawal;
// the snapshot job rolls forward between snapshots on a real database.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { CLEAN_LIFECYCLE, createWorld, type World } from './helpers/world.ts';
import { SandboxControl } from '../src/sandbox/control-client.ts';
import type { ProviderClient } from '../src/provider/client.ts';
import { silentLogger } from '../src/log/logger.ts';
import { snapshotPolicyFromConfig } from '../src/snapshot/policy.ts';
import { takeSnapshots } from '../src/snapshot/take-snapshots.ts';
import { approveMovement, insertMovements, type MovementInput } from '../src/db/movements.ts';
import { approveAndLink } from '../src/movements/approve.ts';

const SANDBOX_NOW = Date.now();
// Each test on a day of its own: the register and the cases are append-only, so nothing is truncated.
let day = 0;
let base = new Date(0);
const minutes = (m: number) => new Date(base.getTime() + m * 60_000);
let ref = (name: string) => name;

let world: World;
let t: TestDatabase;
let control: SandboxControl;
let client: ProviderClient;

beforeAll(async () => {
  world = await createWorld('h38_movements', {
    sandbox: { now: () => SANDBOX_NOW, lifecycle: CLEAN_LIFECYCLE },
    client: { maxRetries: 0 },
  });
  ({ t, control, client } = world);
});
afterAll(() => world?.close());
beforeEach(async () => {
  await control.reset();
  await t.db.knex.raw('TRUNCATE balance_snapshots, rate_snapshots, job_runs CASCADE');
  day++;
  base = new Date(Date.UTC(2026, 2, 10 + day, 8));
  ref = (name: string) => `${name}-d${day}`;
});

const snapshot = (at: Date, lagMinutes = 10) =>
  takeSnapshots(
    {
      db: t.db,
      client,
      policy: { ...snapshotPolicyFromConfig(t.config), movementLagMs: lagMinutes * 60_000 },
      clock: () => at,
      logger: silentLogger,
    },
    ['NGN'],
  );

const topUp = (at: Date, over: Partial<MovementInput> = {}): MovementInput => ({
  reference: ref('TOPUP-1'),
  currency: 'NGN',
  direction: 'in',
  amount: '1500000.00',
  occurredFrom: at,
  occurredTo: at,
  kind: 'top_up',
  usdtAmount: '1000',
  usdtRate: '1500',
  note: '',
  ...over,
});

async function record(m: MovementInput, approve: boolean) {
  await t.db.knex.transaction(async (trx) => {
    await insertMovements(trx, [m], { recordedBy: 'asha', source: 'test', at: m.occurredFrom });
    if (approve) expect((await approveMovement(trx, m.reference, 'ben', m.occurredFrom)).kind).toBe('approved');
  });
}

const driftCases = async () => (await t.db.knex('cases').where({ code: 'BALANCE_DRIFT' }).andWhere('window_start', '>=', base)).length;

describe('movements in the roll-forward', () => {
  it('a recorded, approved top-up inside a window: no drift, no alert, no case', async () => {
    await snapshot(minutes(0));
    await control.adjustBalance('NGN', '1500000.00');
    await record(topUp(minutes(30)), true);
    const s2 = await snapshot(minutes(60));
    const rf = s2.currencies[0].rollForward!;
    expect(s2.drift).toEqual([]);
    expect(rf).toMatchObject({ drift: '0', withinTolerance: true, movementsMovement: '1500000', explainedMovement: '0' });
    expect(await driftCases()).toBe(0);
    const check = await t.db.knex('balance_checks').orderBy('id', 'desc').first();
    expect([String(check.movements_movement), check.movements_count]).toEqual(['1500000', 1]);
  });

  it('the same top-up unrecorded: one drift, exactly its amount', async () => {
    await snapshot(minutes(0));
    await control.adjustBalance('NGN', '1500000.00');
    const s2 = await snapshot(minutes(60));
    expect(s2.drift.map((d) => d.drift)).toEqual(['1500000']);
    expect(await driftCases()).toBe(1);
  });

  it('maker-checker: a recorded but unapproved top-up explains nothing; the drift says it equals that pending movement', async () => {
    await snapshot(minutes(0));
    await control.adjustBalance('NGN', '1500000.00');
    await record(topUp(minutes(30)), false);
    const s2 = await snapshot(minutes(60));
    expect(s2.drift.map((d) => d.drift)).toEqual(['1500000']);
    const hint = await t.db.knex('cases').where({ code: 'DRIFT_MATCHES_PENDING' }).andWhere('window_start', '>=', base);
    expect(hint).toHaveLength(1);
    expect(hint[0].finding.note).toContain(
      `pending movement ${ref('TOPUP-1')} (recorded by asha; approve it: payrecon movements approve ${ref('TOPUP-1')})`,
    );
    expect(hint[0].finding.movements).toEqual([ref('TOPUP-1')]);
  });

  it('a BALANCE_DRIFT case is resolved by recording the movement it was, which links them', async () => {
    await snapshot(minutes(0));
    await control.adjustBalance('NGN', '1500000.00');
    const s2 = await snapshot(minutes(60));
    const caseId = s2.drift[0].caseId!;
    await t.db.knex.transaction((trx) =>
      insertMovements(trx, [topUp(minutes(30))], { recordedBy: 'asha', source: 'test', at: minutes(90) }),
    );
    const own = await approveAndLink(t.db.knex, ref('TOPUP-1'), 'asha', minutes(91), 10 * 60_000);
    expect([own.outcome.kind, own.resolvedCases]).toEqual(['own', []]);
    const r = await approveAndLink(t.db.knex, ref('TOPUP-1'), 'ben', minutes(92), 10 * 60_000);
    expect([r.outcome.kind, r.resolvedCases]).toEqual(['approved', [caseId]]);
    const c = await t.db.knex('cases').where({ id: caseId }).first();
    expect([c.state, c.resolution]).toEqual(['resolved', 'adjusted']);
    const last = await t.db.knex('case_events').where({ case_id: caseId }).orderBy('id', 'desc').first();
    expect(last.actor).toBe('ben');
    expect(last.note).toContain(`explained by top-up ${ref('TOPUP-1')} (in NGN 1500000.00), recorded by asha, approved by ben`);
  });

  it('a top-up recorded after its window drifted: the window, judged again at the next snapshot, is explained', async () => {
    await snapshot(minutes(0));
    await control.adjustBalance('NGN', '1500000.00');
    const s2 = await snapshot(minutes(60));
    expect(s2.drift.map((d) => d.drift)).toEqual(['1500000']);
    await record(topUp(minutes(30)), true);
    const s3 = await snapshot(minutes(120));
    expect(s3.drift).toEqual([]);
    const first = await t.db.knex('balance_checks').where({ closing_snapshot_id: s2.drift[0].closingSnapshotId }).first();
    expect([first.within_tolerance, String(first.drift), String(first.first_drift), String(first.movements_movement)]).toEqual([
      true,
      '0',
      '1500000',
      '1500000',
    ]);
  });

  it('a recorded, approved top-up the balance never saw: one drift of its opposite, and MOVEMENT_UNSEEN naming it', async () => {
    await snapshot(minutes(0));
    await record(topUp(minutes(30)), true);
    const s2 = await snapshot(minutes(60));
    expect(s2.drift.map((d) => d.drift)).toEqual(['-1500000']);
    const unseen = await t.db.knex('cases').where({ code: 'MOVEMENT_UNSEEN', subject: `movement:${ref('TOPUP-1')}` });
    expect(unseen.map((c) => c.state)).toEqual(['open']);
  });

  it('a withdrawal landing two minutes after its recorded moment, across a snapshot: no drift in either window', async () => {
    await snapshot(minutes(0));
    // Recorded at 59', the balance reading at 60' does not see it yet; it lands at 61'.
    await record(
      topUp(minutes(59), { reference: ref('WD-1'), direction: 'out', kind: 'withdrawal', amount: '84000.00', usdtAmount: null }),
      true,
    );
    const s2 = await snapshot(minutes(60));
    await control.adjustBalance('NGN', '-84000.00');
    const s3 = await snapshot(minutes(120));
    expect(s2.drift).toEqual([]);
    expect(s3.drift).toEqual([]);
    const items = [s2, s3].map((s) => s.currencies[0].rollForward!.timingItems.map((i) => [i.direction, i.merchantRef, i.assignedIn]));
    expect(items).toEqual([[['movement', ref('WD-1'), false]], [['movement', ref('WD-1'), true]]]);
    expect(await driftCases()).toBe(0);
  });

  it('without the lag (MOVEMENT_LAG_MIN=0) the same withdrawal is placed in the first window and both drift', async () => {
    await snapshot(minutes(0), 0);
    await record(
      topUp(minutes(59), { reference: ref('WD-1'), direction: 'out', kind: 'withdrawal', amount: '84000.00', usdtAmount: null }),
      true,
    );
    const s2 = await snapshot(minutes(60), 0);
    await control.adjustBalance('NGN', '-84000.00');
    const s3 = await snapshot(minutes(120), 0);
    expect([...s2.drift, ...s3.drift].map((d) => d.drift)).toEqual(['84000', '-84000']);
  });
});

describe('the movements register', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('h38_register');
  });
  afterAll(() => db?.drop());

  it('the maker cannot approve; a second person can, once; both steps audited', async () => {
    const at = new Date('2026-03-10T08:00:00.000Z');
    const own = await db.db.knex.transaction(async (trx) => {
      await insertMovements(trx, [topUp(at, { reference: 'MC-1' })], { recordedBy: 'asha', source: 'console', at });
      return approveMovement(trx, 'MC-1', 'asha', at);
    });
    expect(own.kind).toBe('own');
    const ok = await db.db.knex.transaction((trx) => approveMovement(trx, 'MC-1', 'ben', at));
    expect(ok.kind).toBe('approved');
    const again = await db.db.knex.transaction((trx) => approveMovement(trx, 'MC-1', 'carol', at));
    expect(again.kind).toBe('already');
    expect((await db.db.knex.transaction((trx) => approveMovement(trx, 'NOPE', 'ben', at))).kind).toBe('not_found');
    const { movementEvents } = await import('../src/db/movements.ts');
    const id = ok.kind === 'approved' ? ok.movement.id : '';
    expect((await movementEvents(db.db.knex, id)).map((e) => [e.action, e.actor])).toEqual([
      ['recorded', 'asha'],
      ['approved', 'ben'],
    ]);
    // The database itself refuses a maker approving their own, whatever the caller.
    await expect(
      db.db.knex.raw(`UPDATE movements SET approved_by = recorded_by, approved_at = now() WHERE reference = 'MC-1'`),
    ).rejects.toThrow();
    await expect(db.db.knex.raw(`DELETE FROM movement_events`)).rejects.toThrow(/append-only/);
  });
});
