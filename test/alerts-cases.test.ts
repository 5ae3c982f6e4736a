import http from 'node:http';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { alertsByFingerprint } from '../src/db/alerts.ts';
import { insertOrders, type OrderRow } from '../src/db/orders.ts';
import { createRun } from '../src/db/runs.ts';
import { insertItems } from '../src/db/items.ts';
import { openCasesOfRun, orderSubject, findCase } from '../src/db/cases.ts';
import { syncOrderCases } from '../src/cases/sync-orders.ts';
import { acknowledgeCase, resolveCase } from '../src/cases/work.ts';
import { alertFingerprint } from '../src/notify/fingerprint.ts';
import { raiseAlert } from '../src/notify/raise-alert.ts';
import { alertsForReconcileRun, alertForFailedRun } from '../src/notify/alert-builders.ts';
import { deliverPendingAlerts, alertChannelsFromConfig, type AlertChannels } from '../src/notify/deliver-alerts.ts';
import { resolveClearedAlerts } from '../src/notify/resolve-alerts.ts';
import type { MismatchCode } from '../src/domain/verdicts.ts';

/** A Slack-like receiver that keeps every message it was sent. */
class Receiver {
  readonly texts: string[] = [];
  port = 0;
  private server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      this.texts.push((JSON.parse(data) as { text: string }).text);
      res.writeHead(200).end('ok');
    });
  });
  get url() {
    return `http://127.0.0.1:${this.port}/services/hook`;
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
const at = (h: number) => new Date(T0.getTime() + h * 3_600_000);

describe('alerts belong to their cause', () => {
  let t: TestDatabase;
  let receiver: Receiver;
  let channels: AlertChannels;
  let orders: OrderRow[];

  /** One reconcile run's items and cases: `codes[i]` are the codes found on orders[i]. */
  const checkRun = async (codes: MismatchCode[][], when: Date): Promise<string> => {
    const run = await createRun(t.db.knex, 'reconcile', {}, { dryRun: false, now: when });
    await t.db.knex.transaction(async (trx) => {
      await insertItems(
        trx,
        orders.map((o, i) => ({
          runId: run.id,
          direction: 'payment' as const,
          orderId: o.id,
          merchantRef: o.merchantRef,
          transactionRef: o.transactionRef,
          currency: o.currency,
          method: o.method,
          checkedAt: when,
          localStatus: 'Success',
          localCategory: 'success',
          localAmount: o.amount,
          localPaidAmount: null,
          localFee: null,
          localUtr: null,
          providerStatus: 'Success',
          providerCategory: 'success',
          providerCurrency: o.currency,
          providerAmount: o.amount,
          providerPaidAmount: null,
          providerFee: null,
          providerUtr: null,
          verdict: codes[i].length ? ('mismatch' as const) : ('matched' as const),
          codes: codes[i],
          details: [],
          reason: codes[i].join('; '),
        })),
      );
      await syncOrderCases(
        trx,
        orders.map((o, i) => ({
          direction: 'payment' as const,
          orderId: o.id,
          merchantRef: o.merchantRef,
          transactionRef: o.transactionRef,
          currency: o.currency,
          createdAt: o.createdAt,
          visibility: 'found' as const,
          findings: codes[i].map((code) => ({ code, local: '1', provider: '2', note: code })),
        })),
        when,
      );
    });
    return run.id;
  };
  /** What the reconcile job raises for a run: only the orders whose cases nobody acknowledged yet. */
  const raiseFor = async (runId: string, when: Date) => {
    const items = (await openCasesOfRun(t.db.knex, runId)).map((i) => ({ ...i, codes: i.codes as MismatchCode[] }));
    for (const input of alertsForReconcileRun({ runId, items })) await raiseAlert(t.db, input, { now: when });
    await resolveClearedAlerts(t.db, when);
    return deliverPendingAlerts(t.db, channels, when);
  };
  const caseOf = async (i: number, code: string) => (await findCase(t.db.knex, orderSubject('payment', orders[i].id), code))!;

  // Alerts are matched by fingerprint across the whole table, so every `it` gets a database of its own
  // (and its own two orders): none sees another's alerts or cases, whatever order they run in.
  beforeAll(async () => {
    receiver = new Receiver();
    await receiver.listen();
  });
  beforeEach(async () => {
    receiver.texts.length = 0;
    t = await createTestDatabase('alerts_cases', { env: { ALERT_WEBHOOK_URL: receiver.url } });
    channels = alertChannelsFromConfig(t.config);
    orders = await insertOrders(
      t.db.knex,
      'payment',
      [1, 2].map(() => ({
        merchantRef: randomUUID(),
        transactionRef: randomUUID(),
        currency: 'NGN' as const,
        method: 'TRANSFER',
        amount: '10.00',
      })),
    );
  });
  afterEach(() => t?.drop());
  afterAll(() => receiver?.close());

  /** Both orders found in mismatch, alerted once, then both cases acknowledged (so no repeat goes out). */
  const alertThenAcknowledge = async () => {
    await raiseFor(await checkRun([['FEE'], ['AMOUNT']], at(0)), at(0));
    expect(receiver.texts).toEqual(['payrecon: reconcile: 2 orders in mismatch (AMOUNT 1, FEE 1)']);
    const [alert] = await alertsByFingerprint(t.db.knex, alertFingerprint('mismatches', ['reconcile']));
    const ids = [(await caseOf(0, 'FEE')).id, (await caseOf(1, 'AMOUNT')).id];
    expect((await t.db.knex('alerts').where({ id: alert.id }).first()).case_ids.map(String).sort()).toEqual(ids.sort());

    await acknowledgeCase(t.db, ids[0], { actor: 'asha', now: at(1) });
    await acknowledgeCase(t.db, ids[1], { actor: 'asha', now: at(1) });
    receiver.texts.length = 0;
    // A day later the findings stand: without the acknowledgements the same alert would go out again.
    await raiseFor(await checkRun([['FEE'], ['AMOUNT']], at(30)), at(30));
    expect(receiver.texts).toEqual([]);
  };

  it('an alert names its cases; repeats stop once a person acknowledged them', async () => {
    await alertThenAcknowledge();
  });

  it('when every case behind it is resolved, the alert is resolved and one resolved message goes out', async () => {
    await alertThenAcknowledge();
    const fee = await caseOf(0, 'FEE');
    await resolveCase(t.db, fee.id, { actor: 'asha', reason: 'adjusted', note: 'booked', now: at(31) });
    expect(await resolveClearedAlerts(t.db, at(31))).toEqual([]); // the AMOUNT case is still acknowledged
    await raiseFor(await checkRun([['FEE'], []], at(32)), at(32)); // AMOUNT cleared by the recheck; FEE reopens
    expect((await caseOf(1, 'AMOUNT')).resolution).toBe('cleared-by-recheck');
    expect((await caseOf(0, 'FEE')).state).toBe('open');
    // The first alert listed FEE too, and FEE is open again: not resolved yet. The reopened FEE is news.
    expect(receiver.texts).toEqual(['payrecon: reconcile: 1 order in mismatch (FEE 1)']);

    await resolveCase(t.db, (await caseOf(0, 'FEE')).id, { actor: 'asha', reason: 'written-off', note: 'not worth it', now: at(33) });
    const resolved = await resolveClearedAlerts(t.db, at(33));
    expect(resolved.length).toBe(2); // the first alert, and the one for the reopened FEE
    expect(await resolveClearedAlerts(t.db, at(34))).toEqual([]);
    await deliverPendingAlerts(t.db, channels, at(34));
    await deliverPendingAlerts(t.db, channels, at(35));
    expect(receiver.texts.slice(1).sort()).toEqual([
      'payrecon: resolved: reconcile: 1 order in mismatch (FEE 1)',
      'payrecon: resolved: reconcile: 2 orders in mismatch (AMOUNT 1, FEE 1)',
    ]);
    const rows = await t.db.knex('alerts').whereNotNull('resolves_alert_id');
    expect(rows).toHaveLength(2);
    expect(await t.db.knex('alerts').whereNull('resolved_at').whereNot({ kind: 'resolved' })).toEqual([]);
  });

  it('a failed job alert is resolved when the job completes again (provider back), once', async () => {
    await raiseAlert(t.db, alertForFailedRun('reconcile', 'provider_unavailable', 'the provider failed most fetches'), { now: at(40) });
    expect(await deliverPendingAlerts(t.db, channels, at(40))).toEqual({ sent: [expect.any(String)], failed: [] });
    const back = { kind: 'run_failed', fingerprintParts: ['reconcile', 'provider_unavailable'], why: 'reconcile completed again' };
    expect(await resolveClearedAlerts(t.db, at(41), [back])).toHaveLength(1);
    expect(await resolveClearedAlerts(t.db, at(42), [back])).toEqual([]);
    await deliverPendingAlerts(t.db, channels, at(42));
    await deliverPendingAlerts(t.db, channels, at(43));
    expect(receiver.texts).toEqual([
      'payrecon: reconcile: the provider is unavailable',
      'payrecon: resolved: reconcile: the provider is unavailable',
    ]);
  });

  it('an alert never delivered is dropped when its cause clears: no resolved message for news nobody heard', async () => {
    await raiseAlert(t.db, alertForFailedRun('snapshot', 'failed', 'boom'), { now: at(50) });
    const back = { kind: 'run_failed', fingerprintParts: ['snapshot', 'failed'], why: 'snapshot completed again' };
    expect(await resolveClearedAlerts(t.db, at(51), [back])).toHaveLength(1);
    await deliverPendingAlerts(t.db, channels, at(52));
    expect(receiver.texts).toEqual([]);
  });
});
