/**
 * Issue 14, item 5: money the provider confirms must reach a person. A confirmed notification for a
 * transactionRef with no local order is an UNKNOWN_ORDER finding and an alert; a confirmed Reversed for
 * an old Success is an alert, and the order is re-checked by the next due run (a STATUS item).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './helpers/world.ts';
import { seedMerchant, type SeededOrder } from '../src/demo/seed-merchant.ts';
import { reconcile } from '../src/reconcile/reconcile.ts';
import { buildSelection, type SelectionRequest } from '../src/reconcile/selection.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { storeWebhookEvent } from '../src/db/webhook-events.ts';
import { confirmWebhookEvent } from '../src/webhook/confirm.ts';
import { unknownOrdersReceived } from '../src/db/unknown-orders.ts';
import { silentLogger } from '../src/log/logger.ts';
import { writeReports } from '../src/report/write-reports.ts';
import { buildReportEmail } from '../src/report/email/content.ts';

const DAY = 86_400_000;

describe('money the provider confirms that no report shows', () => {
  let world: World;
  let orders: SeededOrder[];
  // The unknown orders earlier tests confirmed: moved out of every window before each test.
  const strangers: string[] = [];

  beforeAll(async () => {
    world = await createWorld('webhook_unreported');
    orders = await seedMerchant(world.t.db.knex, world.client, { payments: 3, payouts: 0, seed: 21 });
    await world.control.advanceClock(2_000);
  });
  afterAll(() => world?.close());
  // Each test confirms an unknown order of its own; the ones earlier tests confirmed are moved a
  // year back, out of every day and lookback a test reports on, so the tests pass in any order.
  beforeEach(async () => {
    if (strangers.length === 0) return;
    await world.t.db
      .knex('webhook_events')
      .whereIn('transaction_ref', strangers)
      .update({ received_at: new Date(Date.now() - 400 * DAY) });
  });

  const run = (request: SelectionRequest) => {
    const now = new Date();
    return reconcile(
      {
        db: world.t.db,
        fetcher: world.client,
        policy: policyFromConfig(world.config),
        clock: () => now,
        logger: silentLogger,
        concurrency: 2,
        batchSize: 10,
      },
      { selection: buildSelection(request, { now, zone: 'UTC', lookbackDays: 30 }), dryRun: false },
    );
  };

  /** What the merchant's receiver stores for a signed notification carrying the provider's current values. */
  const notify = async (transactionRef: string, status: string) => {
    const p = (await world.control.getOrder(transactionRef))!;
    const stored = await storeWebhookEvent(world.t.db.knex, {
      direction: 'payment',
      dedupeKey: `${transactionRef}-${status}`,
      transactionRef,
      merchantRef: p.merchantRef,
      currency: p.currency,
      method: p.method,
      amount: p.amount,
      paidAmount: p.paidAmount,
      fee: p.fee,
      status,
      rawBody: '{}',
      headers: {},
      receivedAt: new Date(),
    });
    return { id: stored.id, outcome: await confirmWebhookEvent({ db: world.t.db, client: world.client }, stored.id) };
  };

  /** A payment the provider has and the merchant never recorded, confirmed by a Success notification. */
  const confirmStranger = async () => {
    const stranger = await world.client.initiatePayment({
      merchantRef: randomUUID(),
      currency: 'INR',
      method: 'NATIVE',
      amount: '777.00',
      name: 'Nobody Known',
      phone: '+15550000000',
      email: 'nobody@example.com',
      redirectUrl: 'https://merchant.example/return',
    });
    strangers.push(stranger.transactionRef);
    await world.control.advanceClock(2_000);
    const { outcome } = await notify(stranger.transactionRef, 'Success');
    return { strangerRef: stranger.transactionRef, outcome };
  };

  it('a confirmed notification for a transactionRef the merchant has no order for: an UNKNOWN_ORDER finding and an alert', async () => {
    const alertsBefore = (await world.t.db.knex('alerts').where({ kind: 'unknown_order' })).map((a) => a.id);
    const { strangerRef, outcome } = await confirmStranger();
    expect(outcome).toBe('confirmed');

    const now = new Date();
    const unknown = await unknownOrdersReceived(world.t.db.knex, {
      from: new Date(now.getTime() - DAY).toISOString(),
      to: now.toISOString(),
    });
    // The confirming fetch's amount, as the client reads it (canonical decimal text); files print it as 777.00.
    expect(unknown).toEqual([expect.objectContaining({ transaction_ref: strangerRef, amount: '777' })]);
    // Exactly one new alert (other tests' unknown orders raised their own).
    const alerts = (await world.t.db.knex('alerts').where({ kind: 'unknown_order' })).filter((a) => !alertsBefore.includes(a.id));
    expect(alerts).toHaveLength(1);
    expect(alerts[0].title).toContain(strangerRef);
    expect(alerts[0].title).toContain('777.00 INR');
  });

  it('a confirmed Reversed for a five-day-old Success: an alert, and the next due run re-checks the order into a STATUS item', async () => {
    const { knex } = world.t.db;
    const o = orders[0];
    await run({ ref: o.transactionRef }); // resolved: Success locally
    const fiveDaysAgo = new Date(Date.now() - 5 * DAY);
    await knex('payment_orders')
      .where({ transaction_ref: o.transactionRef })
      .update({ created_at: fiveDaysAgo, finalized_at: fiveDaysAgo });
    const before = await knex('payment_orders').where({ transaction_ref: o.transactionRef }).first();
    expect(before).toMatchObject({ status: 'Success', next_check_at: null });

    await world.control.setOrder(o.transactionRef, { status: 'Reversed' });
    const { id, outcome } = await notify(o.transactionRef, 'Reversed');
    expect(outcome).toBe('confirmed');
    expect((await knex('webhook_events').where({ id }).first()).confirmation_note).toMatch(/re-check/);
    const alerts = await knex('alerts').where({ kind: 'final_status_contradicted' });
    expect(alerts).toHaveLength(1);
    expect(alerts[0].title).toContain(o.transactionRef);

    // The default (due) run: final orders are normally never due; this one was asked for.
    const due = await run({});
    const items = await knex('recon_items').where({ run_id: due.runs.at(-1)!.runId, transaction_ref: o.transactionRef });
    expect(items).toHaveLength(1);
    // Reversed still reporting paid and fee: PAID_AMOUNT and FEE beside STATUS (issue 25 item 7).
    expect(items[0]).toMatchObject({ verdict: 'mismatch', codes: ['FEE', 'PAID_AMOUNT', 'STATUS'], provider_status: 'Reversed' });
    const after = await knex('payment_orders').where({ transaction_ref: o.transactionRef }).first();
    expect(after).toMatchObject({ status: 'Success', status_category: 'success', next_check_at: null }); // never moves backwards
    // Asked once, checked once.
    const again = await run({});
    expect(await knex('recon_items').where({ run_id: again.runs.at(-1)!.runId, transaction_ref: o.transactionRef })).toHaveLength(0);
  });

  it("the day's report shows the unknown order: a mismatch row in mismatches.csv, the workbook, report.html, counted in the summary, the e-mail and the headline", async () => {
    const { strangerRef, outcome } = await confirmStranger();
    expect(outcome).toBe('confirmed');
    // Its business day is the day the notification was received, in the report's zone (the provider sends no creation time).
    const now = new Date();
    const date = now.toISOString().slice(0, 10);
    const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-unknown-'));
    const r = await writeReports(world.t.db, { date, timezone: 'UTC', reportDir, now, currencies: ['INR'] });
    const read = (name: string) =>
      parse(fs.readFileSync(path.join(r.directory, name)), { columns: true, bom: true }) as Record<string, string>[];

    const rows = read('mismatches.csv').filter((m) => m.transaction_ref === strangerRef);
    expect(rows).toEqual([
      expect.objectContaining({
        business_date: date,
        direction: 'payment',
        mismatch_codes: 'UNKNOWN_ORDER',
        verdict: 'mismatch',
        currency: 'INR',
        local_amount: '',
        provider_amount: '777.00',
        provider_status: 'Success',
        difference: '777.00',
      }),
    ]);
    expect(rows[0].reason).toContain('no local order');
    // Not a merchant order: items.csv lists the merchant's orders only.
    expect(read('items.csv').some((m) => m.transaction_ref === strangerRef)).toBe(false);
    // Counted as a mismatch, so the day is never "all matched".
    expect(r.manifest.headline).not.toContain('all matched');
    expect(r.manifest.headline).toMatch(/\b1 mismatch \(1 unknown order\)/);

    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(path.join(r.directory, 'reconciliation.xlsx'));
    const sheetText: string[] = [];
    wb.getWorksheet('Mismatches')!.eachRow((row) => sheetText.push(JSON.stringify(row.values)));
    expect(sheetText.some((l) => l.includes(strangerRef) && l.includes('UNKNOWN_ORDER'))).toBe(true);

    const html = fs.readFileSync(path.join(r.directory, 'report.html'), 'utf8');
    expect(html).toContain(strangerRef);
    expect(html).toContain('UNKNOWN_ORDER');

    const email = buildReportEmail({ business_date: date, version: r.version, directory: r.directory });
    expect(email.subject).toContain('1 unknown order');
    // The e-mail counts them per currency with the money they moved (each is a row of the attached mismatches.csv).
    for (const body of [email.text, email.html]) {
      expect(body).toContain('Orders only the provider knows (UNKNOWN_ORDER)');
      expect(body).toContain('777.00');
    }
    const summary = read('summary_unknown_orders.csv');
    expect(summary).toEqual([{ currency: 'INR', direction: 'payment', orders: '1', amount: '777.00' }]);
  });

  it('a payout notification carrying only transactionRef and status: its UNKNOWN_ORDER rows carry what the confirming fetch returned', async () => {
    // Issue 25, item 5: the rows used to take the notification's blanks (`,payout,1,0`) while the alert said 5,000.00 NGN.
    const [bank] = await world.client.bankCodes('NGN');
    const merchantRef = randomUUID();
    const payout = await world.client.initiatePayout({
      merchantRef,
      currency: 'NGN',
      method: 'BANK',
      bankCode: bank.bankCode,
      amount: '5000.00',
      name: 'Nobody Known',
      account: '0123456789',
      phone: '+2348012345678',
      email: 'nobody@example.com',
    });
    strangers.push(payout.transactionRef);
    await world.control.setOrder(payout.transactionRef, { status: 'Success', fee: '25' });
    const stored = await storeWebhookEvent(world.t.db.knex, {
      direction: 'payout',
      dedupeKey: `${payout.transactionRef}-bare-Success`,
      transactionRef: payout.transactionRef,
      merchantRef: null,
      currency: null,
      method: null,
      amount: null,
      paidAmount: null,
      fee: null,
      status: 'Success',
      rawBody: JSON.stringify({ transactionRef: payout.transactionRef, status: 'Success' }),
      headers: {},
      receivedAt: new Date(),
    });
    expect(await confirmWebhookEvent({ db: world.t.db, client: world.client }, stored.id)).toBe('confirmed');
    const alert = await world.t.db.knex('alerts').where({ kind: 'unknown_order' }).whereLike('title', `%${payout.transactionRef}%`).first();
    expect(alert.title).toContain('5000.00 NGN'); // the alert already said it

    const now = new Date();
    const date = now.toISOString().slice(0, 10);
    const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-unknown-bare-'));
    const r = await writeReports(world.t.db, { date, timezone: 'UTC', reportDir, now, currencies: ['NGN'] });
    const read = (name: string) =>
      parse(fs.readFileSync(path.join(r.directory, name)), { columns: true, bom: true }) as Record<string, string>[];
    expect(read('mismatches.csv').filter((m) => m.transaction_ref === payout.transactionRef)).toEqual([
      expect.objectContaining({
        direction: 'payout',
        merchant_ref: merchantRef,
        mismatch_codes: 'UNKNOWN_ORDER',
        currency: 'NGN',
        method: 'BANK',
        provider_amount: '5000.00',
        provider_fee: '25.00',
        provider_status: 'Success',
        difference: '5000.00',
      }),
    ]);
    expect(read('summary_unknown_orders.csv')).toEqual([{ currency: 'NGN', direction: 'payout', orders: '1', amount: '5000.00' }]);
  });

  it('on a later day of the lookback it is an open item of its day, with its case', async () => {
    const { knex } = world.t.db;
    const { strangerRef, outcome } = await confirmStranger();
    expect(outcome).toBe('confirmed');
    const twoDaysAgo = new Date(Date.now() - 2 * DAY);
    await knex('webhook_events').where({ transaction_ref: strangerRef }).update({ received_at: twoDaysAgo });
    const now = new Date();
    const date = now.toISOString().slice(0, 10);
    const reportDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payrecon-unknown-later-'));
    const r = await writeReports(world.t.db, { date, timezone: 'UTC', reportDir, now, currencies: ['INR'] });
    const read = (name: string) =>
      parse(fs.readFileSync(path.join(r.directory, name)), { columns: true, bom: true }) as Record<string, string>[];
    expect(read('mismatches.csv').some((m) => m.transaction_ref === strangerRef)).toBe(false);
    const open = read('open_items.csv').filter((m) => m.transaction_ref === strangerRef);
    const c = await knex('cases').where({ transaction_ref: strangerRef, code: 'UNKNOWN_ORDER' }).first();
    expect(open).toEqual([
      expect.objectContaining({
        business_date: twoDaysAgo.toISOString().slice(0, 10),
        age_days: '2',
        mismatch_codes: 'UNKNOWN_ORDER',
        verdict: 'mismatch',
        amount: '777.00',
        case_id: String(c.id),
        case_state: 'open',
      }),
    ]);
    expect(r.manifest.headline).toMatch(/open items? from earlier days/);
  });
});
