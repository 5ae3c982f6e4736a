import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReportItemRow } from '../src/db/reports.ts';
import { Decimal } from '../src/money/decimal.ts';
import { csvCells, csvHeader } from '../src/report/csv-cells.ts';
import { timeFormatter } from '../src/tabular/format.ts';
import { EXTRA_FILES, REPORT_FILES } from '../src/report/manifest.ts';
import { filePurpose } from '../src/report/file-purposes.ts';
import { OrderTotalsAccumulator } from '../src/report/order-totals.ts';
import { rollForwardTable, timingItemsTable } from '../src/report/rollforward-tables.ts';
import { SUMMARY_TABLES } from '../src/report/report-tables.ts';
import { ordersTable } from '../src/report/summary-tables.ts';
import { tableFromCsv } from '../src/report/table-csv.ts';
import type { Table } from '../src/tabular/table.ts';
import type { SnapshotRollForward } from '../src/snapshot/rollforward.ts';

const formatTime = timeFormatter('Asia/Kolkata');
/** A table as the CSV file holds it: one header, then the rows, exactly. */
const csvOf = (t: Table) => [csvHeader(t.columns), ...t.rows.map((r) => csvCells(t.columns, r, formatTime))].map((r) => r.join(','));

function item(over: Partial<ReportItemRow>): ReportItemRow {
  return {
    direction: 'payment',
    currency: 'INR',
    verdict: 'matched',
    provider_category: 'success',
    mismatch_codes: '',
    local_amount: '100',
    provider_amount: '100',
    provider_paid_amount: null,
    provider_fee: '2',
    run_id: '1',
    ...over,
  } as ReportItemRow;
}

describe('summary_orders', () => {
  const totals = new OrderTotalsAccumulator();
  for (const r of [
    item({ provider_paid_amount: '90', provider_fee: '1.5' }), // underpaid: net counts what was paid
    item({ local_amount: '250.5', provider_amount: '250.5', provider_fee: '2.5', verdict: 'resolved' }),
    item({ provider_category: 'failed', verdict: 'matched', provider_fee: null }), // failed: counted, no money
    item({ provider_category: null, verdict: 'unchecked', provider_amount: null, provider_fee: null }),
    item({ direction: 'payout', local_amount: '1000', provider_amount: '1000', provider_fee: '15' }),
    item({ direction: 'payout', provider_category: 'pending', verdict: 'pending' }),
    item({ currency: 'NGN', direction: 'payout', local_amount: '5000', provider_amount: '5000', provider_fee: '50' }),
  ])
    totals.add(r);
  const t = ordersTable(['INR', 'NGN'], totals, new Map());

  it('is written exactly: counts by verdict and provider status (failed included), gross, paid, fees, net, a total row per currency', () => {
    expect(csvOf(t)).toEqual([
      'currency,direction,orders,matched,resolved,pending,mismatch,error,unchecked,provider_success,provider_pending,provider_failed,provider_unknown,provider_none,gross,paid,fees,net,usdt_rate,net_usdt,identity_mismatches,gross_usdt,fees_usdt',
      'INR,payment,4,2,1,0,0,0,1,2,0,1,0,1,350.50,340.50,4.00,336.50,,,0,,',
      'INR,payout,2,1,0,1,0,0,0,1,1,0,0,0,1000.00,1000.00,15.00,-1015.00,,,0,,',
      'INR,total,6,3,1,1,0,0,1,3,1,1,0,1,1350.50,1340.50,19.00,-678.50,,,0,,',
      'NGN,payment,0,0,0,0,0,0,0,0,0,0,0,0,0.00,0.00,0.00,0.00,,,0,,',
      'NGN,payout,1,1,0,0,0,0,0,1,0,0,0,0,5000.00,5000.00,50.00,-5050.00,,,0,,',
      'NGN,total,1,1,0,0,0,0,0,1,0,0,0,0,5000.00,5000.00,50.00,-5050.00,,,0,,',
    ]);
  });

  const col = (name: string) => t.columns.findIndex((c) => c.name === name);
  const rowsOf = (currency: string, direction: string) => t.rows.find((r) => r[0] === currency && r[1] === direction)!;

  it('total rows equal the sums of their direction rows, column by column', () => {
    for (const currency of ['INR', 'NGN']) {
      const total = rowsOf(currency, 'total');
      t.columns.forEach((c, i) => {
        if (c.kind !== 'count' && c.kind !== 'amount') return;
        const sum = ['payment', 'payout'].reduce((s, d) => s.plus(String(rowsOf(currency, d)[i])), new Decimal(0));
        expect(new Decimal(String(total[i])).equals(sum), `${currency} ${c.name}`).toBe(true);
      });
    }
  });

  it('payments: net = paid − fees; payouts: net is the outflow −(amount + fees)', () => {
    const payment = rowsOf('INR', 'payment');
    expect(
      new Decimal(String(payment[col('net')])).equals(new Decimal(String(payment[col('paid')])).minus(String(payment[col('fees')]))),
    ).toBe(true);
    for (const c of ['INR', 'NGN']) {
      const payout = rowsOf(c, 'payout');
      const outflow = new Decimal(String(payout[col('gross')])).plus(String(payout[col('fees')]));
      expect(new Decimal(String(payout[col('net')])).equals(outflow.negated()), c).toBe(true);
    }
  });
});

describe('summary_rollforward and timing_items', () => {
  const at = (iso: string) => new Date(iso);
  const inr: SnapshotRollForward = {
    currency: 'INR',
    opening: null,
    closing: null,
    openingAt: at('2024-05-01T00:00:00Z'),
    closingAt: at('2024-05-01T23:00:00Z'),
    openingTotal: '1000',
    explainedMovement: '-20',
    movementsMovement: '0',
    movements: [],
    finding: null,
    timingItems: [
      {
        direction: 'payout',
        orderId: '9',
        merchantRef: 'P-LATE',
        effect: '-101',
        from: at('2024-05-01T22:50:00Z'),
        to: at('2024-05-01T23:10:00Z'),
        straddles: 'closing',
        likelyIn: false,
        assignedIn: false,
      },
      {
        direction: 'payment',
        orderId: '4',
        merchantRef: 'M-EARLY',
        effect: '49.5',
        from: at('2024-04-30T23:55:00Z'),
        to: at('2024-05-01T00:20:00Z'),
        straddles: 'opening',
        likelyIn: true,
        assignedIn: true,
      },
    ],
    timingMovement: '49.5',
    closingTotal: '1029.5',
    expectedClosing: '1029.5',
    drift: '0',
    withinTolerance: true,
    note: null,
    sums: { payments: { paidAmount: '100', fee: '2', count: 1 }, payouts: { amount: '110', fee: '8', count: 1 } },
    tolerance: '0',
  } as SnapshotRollForward;
  const results = new Map<string, SnapshotRollForward | null>([
    ['INR', inr],
    ['XYZ', null],
  ]);

  it('is written exactly: snapshot times, movement by orders, timing items count and movement, expected closing, drift', () => {
    expect(csvOf(rollForwardTable(['INR', 'XYZ'], results))).toEqual([
      'currency,opening_at,opening,payments_in,payouts_out,explained_movement,movements,timing_items,timing_movement,expected_closing,closing_at,closing,drift,tolerance,within_tolerance,note',
      'INR,2024-05-01T05:30:00.000+05:30,1000.00,98.00,118.00,-20.00,0.00,2,49.50,1029.50,2024-05-02T04:30:00.000+05:30,1029.50,0.00,0.00,yes,',
      'XYZ,,,,,,,,,,,,,,,currency not reconciled by payrecon',
    ]);
  });

  it('adds up on its face: opening + movement by orders + timing movement = expected closing', () => {
    const t = rollForwardTable(['INR'], results);
    const v = (name: string) => new Decimal(String(t.rows[0][t.columns.findIndex((c) => c.name === name)]));
    expect(v('opening').plus(v('explained_movement')).plus(v('movements')).plus(v('timing_movement')).equals(v('expected_closing'))).toBe(
      true,
    );
    expect(v('payments_in').minus(v('payouts_out')).equals(v('explained_movement'))).toBe(true);
  });

  it('lists every timing item with its refs, finality interval and the side it was counted on, in time order', () => {
    expect(csvOf(timingItemsTable(['INR', 'XYZ'], results))).toEqual([
      'currency,direction,merchant_ref,effect,last_seen_open_at,first_seen_final_at,straddles,counted_in_day',
      'INR,payment,M-EARLY,49.50,2024-05-01T05:25:00.000+05:30,2024-05-01T05:50:00.000+05:30,opening,yes',
      'INR,payout,P-LATE,-101.00,2024-05-02T04:20:00.000+05:30,2024-05-02T04:40:00.000+05:30,closing,no',
    ]);
  });

  it('reads back from its CSV file to the same values (what the e-mail renders)', () => {
    for (const t of [rollForwardTable(['INR', 'XYZ'], results), timingItemsTable(['INR'], results)]) {
      const back = tableFromCsv(t, `${csvOf(t).join('\r\n')}\r\n`);
      expect(csvOf(back)).toEqual(csvOf(t));
    }
  });
});

it('gives each summary table of the registry the definition of its own name', () => {
  for (const t of SUMMARY_TABLES) expect(t.spec.name, t.name).toBe(t.name);
});

it("says what every file of a version is for, in report.html's list and in docs/reference/report-files.md", () => {
  const page = fs.readFileSync(path.join(import.meta.dirname, '..', 'docs', 'reference', 'report-files.md'), 'utf8');
  for (const name of [...REPORT_FILES, ...EXTRA_FILES, 'manifest.json']) {
    expect(filePurpose(name), name).not.toBe('');
    if (!name.startsWith('chart-')) expect(page, name).toContain(`\`${name}\``);
  }
});
