import { describe, expect, it } from 'vitest';
import {
  alertForDrift,
  alertForFailedRun,
  alertForRateFlags,
  alertsForReconcileRun,
  type CheckedOrderSummary,
} from '../src/notify/alert-builders.ts';
import { alertFingerprint, canonicalJson, payloadDigest } from '../src/notify/fingerprint.ts';
import { alertRetryDelayMs } from '../src/notify/backoff.ts';
import { readReportSummary, reportHeadline } from '../src/report/email/legacy-summary.ts';
import { webhookSecrets } from '../src/notify/webhook.ts';

const order = (
  ref: string,
  verdict: CheckedOrderSummary['verdict'],
  codes: CheckedOrderSummary['codes'],
  reason = '',
): CheckedOrderSummary => ({
  merchantRef: ref,
  transactionRef: `T-${ref}`,
  verdict,
  codes,
  reason,
});

describe('alertsForReconcileRun', () => {
  it.each([
    { name: 'nothing found', items: [order('a', 'matched', []), order('b', 'pending', [])], kinds: [] },
    { name: 'mismatches only', items: [order('a', 'mismatch', ['AMOUNT', 'FEE']), order('b', 'matched', [])], kinds: ['mismatches'] },
    { name: 'stale only', items: [order('a', 'pending', ['STALE'])], kinds: ['stale'] },
    {
      name: 'a stale order in mismatch counts once in each',
      items: [order('a', 'mismatch', ['STALE', 'STATUS'])],
      kinds: ['mismatches', 'stale'],
    },
    { name: 'a mismatch whose only code is STALE is a stale alert', items: [order('a', 'mismatch', ['STALE'])], kinds: ['stale'] },
  ])('$name', ({ items, kinds }) => {
    expect(alertsForReconcileRun({ items, runId: '7' }).map((a) => a.kind)).toEqual(kinds);
  });

  it('counts per code, lists the first 5 orders by merchantRef, carries the run id outside the payload', () => {
    const items = ['f', 'b', 'd', 'a', 'e', 'c'].map((r) =>
      order(r, 'mismatch', r === 'a' ? ['FEE', 'AMOUNT'] : ['AMOUNT'], `reason ${r}`),
    );
    const [a] = alertsForReconcileRun({ items, runId: '42' });
    expect(a).toEqual({
      kind: 'mismatches',
      fingerprintParts: ['reconcile'],
      title: 'reconcile: 6 orders in mismatch (AMOUNT 6, FEE 1)',
      runId: '42',
      payload: {
        summary: '6 orders disagree with the provider',
        total: 6,
        counts: { AMOUNT: 6, FEE: 1 },
        orders: ['a', 'b', 'c', 'd', 'e'].map((r) => ({
          merchantRef: r,
          transactionRef: `T-${r}`,
          codes: r === 'a' ? ['FEE', 'AMOUNT'] : ['AMOUNT'],
          reason: `reason ${r}`,
        })),
      },
    });
  });

  it('the same finding in another order and another run has the same digest', () => {
    const items = [order('x', 'mismatch', ['AMOUNT']), order('y', 'mismatch', ['STATUS'])];
    const one = alertsForReconcileRun({ items, runId: '1' })[0];
    const two = alertsForReconcileRun({ items: [...items].reverse(), runId: '2' })[0];
    expect(payloadDigest(one.payload)).toBe(payloadDigest(two.payload));
  });
});

describe('single-finding builders', () => {
  it.each([
    {
      name: 'drift',
      input: alertForDrift({ currency: 'NGN', drift: '-1250', tolerance: '1' }, '3'),
      expected: { kind: 'balance_drift', fingerprintParts: ['NGN'], title: 'NGN balance drift -1,250.00', runId: '3' },
    },
    {
      name: 'rate jump',
      input: alertForRateFlags('INR', { flags: ['RATE_JUMP'], notes: ['deposit moved 12.00%'] }),
      expected: {
        kind: 'rate_flags',
        fingerprintParts: ['INR'],
        title: 'INR USDT rate RATE_JUMP',
        payload: { summary: 'deposit moved 12.00%', currency: 'INR', flags: ['RATE_JUMP'], notes: ['deposit moved 12.00%'] },
      },
    },
    {
      name: 'credentials refused',
      input: alertForFailedRun('reconcile', 'credentials', 'HTTP 401 from fetch'),
      expected: {
        kind: 'run_failed',
        fingerprintParts: ['reconcile', 'credentials'],
        title: 'reconcile: the provider refused the credentials',
        payload: { summary: 'HTTP 401 from fetch', job: 'reconcile', status: 'credentials' },
      },
    },
    {
      name: 'provider unavailable',
      input: alertForFailedRun('snapshot', 'provider_unavailable', 'timeout'),
      expected: { fingerprintParts: ['snapshot', 'provider_unavailable'], title: 'snapshot: the provider is unavailable' },
    },
  ])('$name', ({ input, expected }) => {
    expect(input).toMatchObject(expected);
  });

  it('no rate flag, no alert', () => {
    expect(alertForRateFlags('IDR', { flags: [], notes: [] })).toBeNull();
  });
});

describe('fingerprints and digests', () => {
  it('ignore key order, not values', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(payloadDigest({ a: 1, b: 2 })).toBe(payloadDigest({ b: 2, a: 1 }));
    expect(payloadDigest({ a: 1 })).not.toBe(payloadDigest({ a: 2 }));
    expect(alertFingerprint('stale', ['reconcile'])).not.toBe(alertFingerprint('mismatches', ['reconcile']));
  });
});

describe('alertRetryDelayMs', () => {
  it.each([
    [1, 60_000],
    [2, 120_000],
    [4, 480_000],
    [7, 3_600_000],
    [100, 3_600_000],
  ])('after attempt %i waits %i ms', (attempts, ms) => {
    expect(alertRetryDelayMs(attempts)).toBe(ms);
  });
});

describe('webhookSecrets', () => {
  it('hides the URL, its path and its query', () => {
    expect(webhookSecrets('https://hooks.example/services/T1/B2/xyz?token=abc')).toEqual([
      'https://hooks.example/services/T1/B2/xyz?token=abc',
      '/services/T1/B2/xyz?token=abc',
      '/services/T1/B2/xyz',
      'token=abc',
    ]);
  });
});

describe('report headline from summary.csv', () => {
  const header =
    'section,currency,direction,orders,matched,resolved,pending,mismatch,error,settled,gross,fees,net,usdt_rate,net_usdt,opening,payments_in,payouts_out,explained_movement,expected_closing,closing,drift,tolerance,within_tolerance,note';
  const orders = (cur: string, m: number, e: number) => `orders,${cur},payment,${5 + m + e},5,0,0,${m},${e},5,1.00,0.00,1.00,,,,,,,,,,,,`;
  const roll = (cur: string, drift: string, within: string) =>
    `rollforward,${cur},,,,,,,,,,,,,,0.00,0.00,0.00,0.00,0.00,${drift},${drift},0.00,${within},`;
  // A summary.csv of the first format (no headline row, no unchecked column): the same rules over its counts.
  it.each([
    { name: 'clean day', rows: [orders('INR', 0, 0), roll('INR', '0.00', 'true')], headline: '5 orders, all matched' },
    { name: 'unchecked roll-forward is not a drift', rows: [orders('INR', 0, 0), roll('NGN', '', '')], headline: '5 orders, all matched' },
    { name: 'mismatches summed over rows', rows: [orders('INR', 2, 0), orders('NGN', 1, 0)], headline: '13 orders, 3 mismatches' },
    {
      name: 'errors and drift',
      rows: [orders('INR', 0, 1), roll('NGN', '1250.00', 'false')],
      headline: '6 orders, 0 mismatches, 1 error, NGN drift 1,250.00',
    },
    { name: 'no orders is not all matched', rows: [roll('INR', '0.00', 'true')], headline: 'no orders' },
  ])('$name', ({ rows, headline }) => {
    expect(reportHeadline(readReportSummary([header, ...rows].join('\r\n')))).toBe(headline);
  });

  it("takes the summary's own headline row when there is one", () => {
    const csv = ['section,currency,orders,unchecked,note', 'headline,,,,"4 orders not yet reconciled"', 'orders,INR,4,4,'].join('\r\n');
    expect(reportHeadline(readReportSummary(csv))).toBe('4 orders not yet reconciled');
  });
});
