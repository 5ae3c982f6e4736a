import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  caseHistory,
  driftSubject,
  findCase,
  getCase,
  insertCases,
  markCasesSeen,
  orderSubject,
  selectCases,
  type StoredCase,
  transitionCase,
  unknownOrderSubject,
} from '../src/db/cases.ts';
import { insertOrders, type OrderRow } from '../src/db/orders.ts';
import { observeCaseNow } from '../src/cases/observe.ts';
import { syncOrderCases, type OrderCheckForCases } from '../src/cases/sync-orders.ts';
import { acknowledgeCase, listCases, resolveCase, showCase } from '../src/cases/work.ts';
import type { Finding } from '../src/recon/types.ts';
import { availableEngines, createTestDatabase, type TestDatabase } from './helpers/db.ts';

const T0 = new Date('2026-11-20T10:00:00Z');
const at = (h: number) => new Date(T0.getTime() + h * 3_600_000);
const fee: Finding = { code: 'FEE', local: '10.00', provider: '11.00', note: 'fee recorded 10.00, provider 11.00' };
const paid: Finding = { code: 'PAID_AMOUNT', local: '100.00', provider: '90.00', note: 'underpaid' };

/**
 * One order and its cases in one database. Each `it` below builds its own scene (a fresh order with
 * fresh refs) and replays the lifecycle steps that precede it, so none depends on what another `it`
 * wrote or on the order the `it`s run in.
 */
interface Scene {
  t: TestDatabase;
  order: OrderRow;
  sync: (findings: Finding[], when: Date, visibility?: OrderCheckForCases['visibility']) => Promise<unknown>;
  feeCase: () => Promise<StoredCase>;
}

async function newScene(t: TestDatabase): Promise<Scene> {
  const [order] = await insertOrders(t.db.knex, 'payment', [
    { merchantRef: randomUUID(), transactionRef: randomUUID(), currency: 'NGN', method: 'TRANSFER', amount: '100.00', createdAt: T0 },
  ]);
  const check = (findings: Finding[], visibility: OrderCheckForCases['visibility'] = 'found'): OrderCheckForCases => ({
    direction: 'payment',
    orderId: order.id,
    merchantRef: order.merchantRef,
    transactionRef: order.transactionRef,
    currency: order.currency,
    createdAt: order.createdAt,
    visibility,
    findings,
  });
  return {
    t,
    order,
    sync: (findings, when, visibility) => t.db.knex.transaction((trx) => syncOrderCases(trx, [check(findings, visibility)], when)),
    feeCase: async () => (await findCase(t.db.knex, orderSubject('payment', order.id), 'FEE'))!,
  };
}

/** a finding opens one case per (order, code), a repeat only counts a sighting */
async function opens(s: Scene): Promise<void> {
  const { order, sync, feeCase } = s;
  expect(await sync([fee, paid], at(1))).toEqual({ opened: 2 });
  expect(await sync([fee, paid], at(2))).toEqual({ seen: 2 });
  const c = await feeCase();
  expect(c).toMatchObject({ state: 'open', code: 'FEE', seenCount: 2, merchantRef: order.merchantRef, currency: 'NGN', occurredAt: T0 });
  expect(c.finding).toMatchObject({ local: '10.00', provider: '11.00' });
  expect(c.lastSeenAt).toEqual(at(2));
}

/** a provider error clears nothing; a consistent recheck clears with cleared-by-recheck by payrecon */
async function clears(s: Scene): Promise<void> {
  const { t, sync, feeCase } = s;
  expect(await sync([], at(3), 'error')).toEqual({});
  expect(await sync([paid], at(4))).toEqual({ seen: 1, moved: 1 });
  const c = await feeCase();
  expect(c).toMatchObject({ state: 'resolved', resolution: 'cleared-by-recheck' });
  expect((await caseHistory(t.db.knex, c.id)).map((e) => [e.fromState, e.toState, e.reason, e.actor])).toEqual([
    [null, 'open', null, 'payrecon'],
    ['open', 'resolved', 'cleared-by-recheck', 'payrecon'],
  ]);
}

/** reopens on recurrence, recorded; the age counts from the reopening */
async function reopens(s: Scene): Promise<void> {
  const { t, sync, feeCase } = s;
  expect(await sync([fee, paid], at(5))).toEqual({ moved: 1, seen: 1 });
  const c = await feeCase();
  expect(c).toMatchObject({ state: 'open', resolution: null, openedAt: at(5), createdAt: at(1) });
  const last = (await caseHistory(t.db.knex, c.id)).at(-1)!;
  expect(last).toMatchObject({ fromState: 'resolved', toState: 'open', reason: 'recurred', actor: 'payrecon' });
}

/** people acknowledge and resolve; a written-off case stays resolved while its finding persists */
async function peopleAct(s: Scene): Promise<void> {
  const { t, sync, feeCase } = s;
  const c = await feeCase();
  const acked = await acknowledgeCase(t.db, c.id, { actor: 'asha', note: 'asking the provider', now: at(6) });
  expect(acked.state).toBe('acknowledged');
  await expect(acknowledgeCase(t.db, c.id, { actor: 'asha', now: at(6) })).rejects.toThrow('already acknowledged');
  await expect(resolveCase(t.db, c.id, { actor: 'asha', reason: 'shrug', note: 'x', now: at(6) })).rejects.toThrow('reason must be one of');
  const done = await resolveCase(t.db, c.id, { actor: 'asha', reason: 'written-off', note: 'below our threshold', now: at(7) });
  expect(done).toMatchObject({ state: 'resolved', resolution: 'written-off' });
  expect(await sync([fee, paid], at(8))).toEqual({ seen: 2 });
  const after = await feeCase();
  expect(after).toMatchObject({ state: 'resolved', resolution: 'written-off', lastSeenAt: at(8) });
  expect((await caseHistory(t.db.knex, c.id)).at(-1)).toMatchObject({
    toState: 'resolved',
    reason: 'written-off',
    note: 'below our threshold',
    actor: 'asha',
  });
}

/** a person action computed from an older version is refused and writes nothing */
async function staleRefused(s: Scene): Promise<void> {
  const { t, order } = s;
  const c = (await findCase(t.db.knex, orderSubject('payment', order.id), 'PAID_AMOUNT'))!;
  await expect(acknowledgeCase(t.db, c.id, { actor: 'bo', now: at(9), expectedVersion: c.version - 1 })).rejects.toThrow('changed since');
  const stale = { ...c };
  await acknowledgeCase(t.db, c.id, { actor: 'bo', now: at(9) });
  const wrote = await t.db.knex.transaction((trx) =>
    transitionCase(trx, stale, { from: 'open', to: 'resolved', reason: 'other', note: 'late', actor: 'cy' }, at(10)),
  );
  expect(wrote).toBe(false);
  expect((await getCase(t.db.knex, c.id))!.state).toBe('acknowledged');
  expect((await caseHistory(t.db.knex, c.id)).map((e) => e.actor)).toEqual(['payrecon', 'bo']);
}

/** drift cases per currency and window; unknown orders cleared once the merchant has the order */
async function driftAndUnknown(s: Scene): Promise<void> {
  const { t, order, sync } = s;
  const window = {
    subject: driftSubject('NGN', at(0), at(1)),
    code: 'BALANCE_DRIFT',
    currency: 'NGN',
    windowStart: at(0),
    windowEnd: at(1),
    occurredAt: at(1),
  };
  expect((await observeCaseNow(t.db, window, { kind: 'finding' }, at(1), { note: 'drift 1250' })).outcome).toBe('opened');
  const next = { ...window, subject: driftSubject('NGN', at(1), at(2)) };
  expect((await observeCaseNow(t.db, next, { kind: 'consistent' }, at(2))).outcome).toBe('none');
  expect((await observeCaseNow(t.db, window, { kind: 'consistent' }, at(3))).outcome).toBe('moved');

  const unknown = {
    subject: unknownOrderSubject('payment', order.transactionRef),
    code: 'UNKNOWN_ORDER',
    direction: 'payment' as const,
    transactionRef: order.transactionRef,
    currency: 'NGN',
    occurredAt: at(0),
  };
  expect((await observeCaseNow(t.db, unknown, { kind: 'finding' }, at(0))).outcome).toBe('opened');
  await sync([fee, paid], at(11));
  expect(await findCase(t.db.knex, unknown.subject, 'UNKNOWN_ORDER')).toMatchObject({
    state: 'resolved',
    resolution: 'cleared-by-recheck',
  });
}

/** Replays the lifecycle steps up to (not including) `step` on the scene. */
async function replayBefore(s: Scene, step: (s: Scene) => Promise<void>): Promise<void> {
  for (const earlier of lifecycle) {
    if (earlier === step) return;
    await earlier(s);
  }
}
const lifecycle = [opens, clears, reopens, peopleAct, staleRefused, driftAndUnknown];

describe.each(availableEngines)('cases repositories on %s', (engine) => {
  let t: TestDatabase;
  let s: Scene;

  beforeAll(async () => {
    t = await createTestDatabase(`cases_${engine}`, { engine });
  });
  beforeEach(async () => {
    s = await newScene(t);
  });
  afterAll(() => t?.drop());

  it('a finding opens one case per (order, code), a repeat only counts a sighting', async () => {
    await opens(s);
  });

  it('a provider error clears nothing; a consistent recheck clears with cleared-by-recheck by payrecon', async () => {
    await replayBefore(s, clears);
    await clears(s);
  });

  it('reopens on recurrence, recorded; the age counts from the reopening', async () => {
    await replayBefore(s, reopens);
    await reopens(s);
  });

  it('people acknowledge and resolve; a written-off case stays resolved while its finding persists', async () => {
    await replayBefore(s, peopleAct);
    await peopleAct(s);
  });

  it('a person action computed from an older version is refused and writes nothing', async () => {
    await replayBefore(s, staleRefused);
    await staleRefused(s);
  });

  it('drift cases per currency and window; unknown orders cleared once the merchant has the order', async () => {
    await replayBefore(s, driftAndUnknown);
    await driftAndUnknown(s);
  });

  // Lists every case in the database, so it gets a database of its own holding exactly one scene.
  it('lists by state, code, currency, day and age, and shows the order with its history', async () => {
    const own = await createTestDatabase(`cases_list_${engine}`, { engine });
    try {
      const scene = await newScene(own);
      for (const step of lifecycle) await step(scene);
      const { order } = scene;
      const open = await selectCases(own.db.knex, { states: ['open', 'acknowledged'] });
      expect(open.map((c) => c.code)).toEqual(['PAID_AMOUNT']);
      expect((await selectCases(own.db.knex, { codes: ['BALANCE_DRIFT'] })).length).toBe(1);
      expect((await selectCases(own.db.knex, { currency: 'INR' })).length).toBe(0);
      expect((await selectCases(own.db.knex, { occurredFrom: at(-1), occurredTo: at(0.5) })).map((c) => c.code).sort()).toEqual([
        'FEE',
        'PAID_AMOUNT',
        'UNKNOWN_ORDER',
      ]);
      expect((await selectCases(own.db.knex, { states: ['open', 'acknowledged'], openedBefore: at(0) })).length).toBe(0);
      const listed = (await listCases(own.db, { codes: ['FEE'] }, { sort: 'age', limit: 100 })).cases;
      expect(listed[0].history.map((e) => e.toState)).toEqual(['open', 'resolved', 'open', 'acknowledged', 'resolved']);
      const shown = await showCase(own.db, listed[0].id);
      expect(shown.order).toMatchObject({ id: order.id, amount: '100.00' });
      await expect(showCase(own.db, '999999')).rejects.toThrow('no case "999999"');
    } finally {
      await own.drop();
    }
  });

  it('a batch of orders: new cases and sightings are written once per batch, moves one by one', async () => {
    const scenes = [s, await newScene(t), await newScene(t), await newScene(t)];
    const [seenScene, clearedScene] = scenes.slice(2);
    const checkOf = (sc: Scene, findings: Finding[]): OrderCheckForCases => ({
      direction: 'payment',
      orderId: sc.order.id,
      merchantRef: sc.order.merchantRef,
      transactionRef: sc.order.transactionRef,
      currency: sc.order.currency,
      createdAt: sc.order.createdAt,
      visibility: 'found',
      findings,
    });
    await seenScene.sync([fee], at(1));
    await clearedScene.sync([paid], at(1));
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql.trim().split(/\s+/).slice(0, 3).join(' '));
    t.db.knex.on('query', onQuery);
    const counts = await t.db.knex
      .transaction((trx) =>
        syncOrderCases(
          trx,
          [checkOf(scenes[0], [fee, paid]), checkOf(scenes[1], [fee]), checkOf(seenScene, [fee]), checkOf(clearedScene, [])],
          at(2),
        ),
      )
      .finally(() => t.db.knex.off('query', onQuery));
    expect(counts).toEqual({ opened: 3, seen: 1, moved: 1 });
    // Read and lock, open three cases with their audit rows, one sighting, then the one move and its audit row.
    expect(statements.filter((q) => !/^(BEGIN|COMMIT)/i.test(q))).toEqual([
      'SELECT id::text AS',
      'INSERT INTO cases',
      'INSERT INTO case_events',
      'UPDATE cases AS',
      'UPDATE cases SET',
      'INSERT INTO case_events',
    ]);
    for (const [sc, code] of [
      [scenes[0], 'FEE'],
      [scenes[0], 'PAID_AMOUNT'],
      [scenes[1], 'FEE'],
    ] as const) {
      const c = (await findCase(t.db.knex, orderSubject('payment', sc.order.id), code))!;
      expect(c).toMatchObject({ state: 'open', seenCount: 1, merchantRef: sc.order.merchantRef, occurredAt: T0, lastSeenAt: at(2) });
      expect((await caseHistory(t.db.knex, c.id)).map((e) => [e.fromState, e.toState, e.actor, e.at])).toEqual([
        [null, 'open', 'payrecon', at(2)],
      ]);
    }
    expect(await seenScene.feeCase()).toMatchObject({ state: 'open', seenCount: 2, lastSeenAt: at(2) });
    expect(await findCase(t.db.knex, orderSubject('payment', clearedScene.order.id), 'PAID_AMOUNT')).toMatchObject({
      state: 'resolved',
      resolution: 'cleared-by-recheck',
    });
  });

  it('refuses a batch that checks one order twice (its sighting would be counted twice and recorded once)', async () => {
    const check: OrderCheckForCases = {
      direction: 'payment',
      orderId: s.order.id,
      merchantRef: s.order.merchantRef,
      transactionRef: s.order.transactionRef,
      currency: s.order.currency,
      createdAt: s.order.createdAt,
      visibility: 'found',
      findings: [fee],
    };
    await expect(t.db.knex.transaction((trx) => syncOrderCases(trx, [check, check], at(1)))).rejects.toThrow(
      'syncOrderCases: an order is checked twice in one batch',
    );
    expect(await findCase(t.db.knex, orderSubject('payment', s.order.id), 'FEE')).toBeNull();
  });

  it('a batch write leaves a case another process opened or moved meanwhile as it is, for a second decision', async () => {
    const other = await newScene(t);
    await other.sync([fee], at(1));
    const stored = await other.feeCase();
    const fresh = orderSubject('payment', s.order.id);
    const subjectOf = (subject: string) => ({ subject, code: 'FEE', direction: 'payment' as const, currency: 'NGN', occurredAt: T0 });
    const opening = { from: null, to: 'open' as const, reason: null, note: 'finding opened', actor: 'payrecon' };
    const opened = await t.db.knex.transaction((trx) =>
      insertCases(
        trx,
        [
          { subject: subjectOf(stored.subject), finding: { note: 'again' }, transition: opening },
          { subject: subjectOf(fresh), finding: { note: 'new' }, transition: opening },
        ],
        at(2),
      ),
    );
    expect(opened.map((c) => c.subject)).toEqual([fresh]);
    expect((await caseHistory(t.db.knex, stored.id)).length).toBe(1);
    expect(await other.feeCase()).toEqual(stored);

    const stale = { ...stored, version: stored.version - 1 };
    const updated = await markCasesSeen(t.db.knex, [{ case: stale, finding: { note: 'stale' } }], at(3));
    expect(updated.size).toBe(0);
    expect(await other.feeCase()).toEqual(stored);
  });

  it('the audit trail is append-only in the database: UPDATE, DELETE and TRUNCATE are refused', async () => {
    await opens(s);
    const k = t.db.knex;
    const before = await k('case_events').count<{ count: string }[]>('* as count');
    // The guard is a row trigger: it only proves anything when there are rows to touch.
    expect(Number(before[0].count)).toBeGreaterThan(0);
    await expect(k.raw(`UPDATE case_events SET actor = 'mallory'`)).rejects.toThrow('case_events is append-only: UPDATE refused');
    await expect(k.raw(`DELETE FROM case_events`)).rejects.toThrow('case_events is append-only: DELETE refused');
    await expect(k.raw(`TRUNCATE case_events CASCADE`)).rejects.toThrow('case_events is append-only: TRUNCATE refused');
    expect(await k('case_events').count<{ count: string }[]>('* as count')).toEqual(before);
    expect(await k('case_events').where({ actor: 'mallory' })).toEqual([]);
  });
});
