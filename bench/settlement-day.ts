/**
 * A simulated settlement day (issue 18): how many provider requests each finalized order costs, and how
 * long after the provider's finality payrecon sees it, for several re-check schedules.
 *
 *   node --import tsx bench/settlement-day.ts [--orders 20000] [--seed 1]
 *
 * A model on a virtual clock, not the sandbox over HTTP: orders are created evenly over one day, each
 * turns final after a delay drawn per direction, currency and method (table below: minutes for UPI and
 * NIP, hours for Indonesian virtual accounts and bank batches, a share never within the day); payments
 * are notified a few seconds after finality (5 % of notifications need the one-minute retry). payrecon's
 * side uses the real schedule code: the due sweep every SCHEDULE_RECONCILE period fetches the orders whose
 * next check is due (`nextCheckDelayMs` of the policy), the snapshot job's open-order check every
 * SCHEDULE_SNAPSHOT period fetches the open orders of SNAPSHOT_OPEN_CHECK (due within DUE_WITHIN_MS, or
 * all), a never-checked order is due once its policy's firstCheckMs old, a notification costs its
 * confirming fetch. The same rules as the job's, without the job's I/O, so a whole day and many
 * settings take a second.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { nextCheckDelayMs } from '../src/recon/timing.ts';
import type { ReconPolicy } from '../src/recon/types.ts';
import type { Direction } from '../src/domain/types.ts';
import { rng } from '../src/sandbox/prng.ts';
import { DUE_WITHIN_MS } from '../src/snapshot/open-orders.ts';
import { benchMachine, loadAverages, recordResult } from './lib/record.ts';

const { values } = parseArgs({ options: { orders: { type: 'string', default: '20000' }, seed: { type: 'string', default: '1' } } });
const N = Number(values.orders);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** Creation → finality at the provider: log-normal around the median, per kind of order; share of orders that never turn final that day. */
const KINDS: Array<{ direction: Direction; name: string; share: number; medianMs: number; sigma: number; neverShare: number }> = [
  { direction: 'payment', name: 'INR UPI', share: 0.3, medianMs: 40_000, sigma: 1.0, neverShare: 0.02 },
  { direction: 'payment', name: 'NGN transfer', share: 0.15, medianMs: 3 * MIN, sigma: 1.2, neverShare: 0.02 },
  { direction: 'payment', name: 'IDR virtual account', share: 0.15, medianMs: 45 * MIN, sigma: 1.5, neverShare: 0.05 },
  { direction: 'payout', name: 'INR IMPS', share: 0.15, medianMs: 2 * MIN, sigma: 1.3, neverShare: 0.01 },
  { direction: 'payout', name: 'NGN NIP', share: 0.1, medianMs: 1 * MIN, sigma: 1.0, neverShare: 0.01 },
  { direction: 'payout', name: 'IDR bank batch', share: 0.15, medianMs: 2 * HOUR, sigma: 1.2, neverShare: 0.01 },
];

interface Setting {
  name: string;
  env: string;
  policy: ReconPolicy;
  sweepMs: number;
  snapshotMs: number | null;
  /** SNAPSHOT_OPEN_CHECK: which open orders each snapshot fetches. */
  snapshotCheck: 'due' | 'all' | 'off';
  /** False: the merchant runs no webhook receiver, so pay-ins are seen final only by checks. */
  notifications?: boolean;
}

interface Order {
  direction: Direction;
  createdAt: number;
  finalAt: number | null;
  notifiedAt: number | null;
}

function normal(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

function day(seed: number): Order[] {
  const r = rng(seed);
  return Array.from({ length: N }, (_, i) => {
    let pick = r();
    const kind = KINDS.find((k) => (pick -= k.share) < 0) ?? KINDS[KINDS.length - 1];
    const createdAt = (i / N) * DAY;
    const never = r() < kind.neverShare;
    const finalAt = never ? null : createdAt + kind.medianMs * Math.exp(kind.sigma * normal(r));
    const notifiedAt = finalAt === null || kind.direction !== 'payment' ? null : finalAt + 1000 + r() * 9000 + (r() < 0.05 ? MIN : 0);
    return { direction: kind.direction, createdAt, finalAt, notifiedAt };
  });
}

/** One order under one setting: the fetches it costs and when payrecon first sees it final. */
function follow(o: Order, s: Setting, end: number): { requests: number; seenAt: number | null } {
  let requests = 0;
  let checkCount = 0;
  let nextCheckAt = o.createdAt + s.policy.firstCheckMs[o.direction];
  const nextTick = (t: number, period: number) => Math.floor(t / period) * period + period;
  let sweep = nextTick(o.createdAt, s.sweepMs);
  let snapshot = s.snapshotMs && s.snapshotCheck !== 'off' ? nextTick(o.createdAt, s.snapshotMs) : Infinity;
  const notifiedAt = s.notifications === false ? null : o.notifiedAt;
  const notified = notifiedAt ?? Infinity;
  for (;;) {
    const t = Math.min(sweep, snapshot, notified);
    if (t > end) return { requests, seenAt: null };
    if (t === notified) {
      // The confirming fetch; the order is final locally from here.
      return { requests: requests + 1, seenAt: t };
    }
    const isSnapshot = t === snapshot;
    if (isSnapshot) snapshot += s.snapshotMs!;
    else sweep += s.sweepMs;
    if (!isSnapshot && nextCheckAt > t) continue;
    if (isSnapshot && s.snapshotCheck === 'due' && nextCheckAt > t + DUE_WITHIN_MS) continue;
    requests++;
    if (o.finalAt !== null && o.finalAt <= t) {
      // Seen final by a check; a notification still arriving costs its confirming fetch.
      return { requests: requests + (notifiedAt !== null ? 1 : 0), seenAt: t };
    }
    nextCheckAt = t + nextCheckDelayMs(s.policy, o.direction, checkCount);
    checkCount++;
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}
function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(s.length * q))] : NaN;
}

/**
 * A setting as configuration: the policy is what `payrecon reconcile` builds from these variables on top
 * of the defaults (WEBHOOK_EXPECTED=true: the merchant runs the receiver, as the simulated day has it).
 */
function setting(name: string, vars: Record<string, string>, opts: { notifications?: boolean } = {}): Setting {
  const config = loadConfig({ WEBHOOK_EXPECTED: opts.notifications === false ? 'false' : 'true', ...vars });
  const period = (cron: string) =>
    cron === '*/5 * * * *' ? 5 * MIN : cron === '*/15 * * * *' ? 15 * MIN : cron === '0 * * * *' ? HOUR : NaN;
  const env = Object.entries({ ...(opts.notifications === false ? { WEBHOOK_EXPECTED: 'false' } : {}), ...vars })
    .map(([k, v]) => `${k}=${v.includes(' ') ? `"${v}"` : v}`)
    .join(' ');
  return {
    name,
    env: env || '(none)',
    policy: policyFromConfig(config),
    sweepMs: period(config.SCHEDULE_RECONCILE as string),
    snapshotMs: period(config.SCHEDULE_SNAPSHOT as string),
    snapshotCheck: config.SNAPSHOT_OPEN_CHECK,
    notifications: opts.notifications,
  };
}
const d = setting('defaults', {}).policy;
const fmt = (steps: readonly number[]) => steps.map((ms) => (ms === 0 ? '0' : ms >= HOUR ? `${ms / HOUR}h` : `${ms / MIN}m`)).join(',');
const BEFORE = {
  RECON_FIRST_CHECK_PAYMENT: '0',
  RECON_FIRST_CHECK_PAYOUT: '0',
  RECON_BACKOFF_PAYMENT: '5m,15m,1h,6h,24h',
  RECON_BACKOFF_PAYOUT: '15m,1h,6h,24h',
  SNAPSHOT_OPEN_CHECK: 'all',
};
const SETTINGS: Setting[] = [
  setting('defaults (with the webhook receiver)', {}),
  setting('before this tuning: first check at the next sweep, faster re-checks, every open order at each snapshot', BEFORE),
  setting('every open order at each snapshot (fewest timing items)', { SNAPSHOT_OPEN_CHECK: 'all' }),
  setting('no open-order check at snapshots', { SNAPSHOT_OPEN_CHECK: 'off' }),
  setting('payouts seen sooner', { RECON_FIRST_CHECK_PAYOUT: '10m', RECON_BACKOFF_PAYOUT: '15m,1h,6h,24h' }),
  setting('eager: sweep and re-check every 5 min, first checks at once', {
    SCHEDULE_RECONCILE: '*/5 * * * *',
    RECON_BACKOFF_PAYMENT: '5m',
    RECON_BACKOFF_PAYOUT: '5m',
    RECON_FIRST_CHECK_PAYMENT: '0',
    RECON_FIRST_CHECK_PAYOUT: '0',
  }),
  setting('frugal: payouts first at 1 h, slower re-checks', {
    RECON_FIRST_CHECK_PAYOUT: '1h',
    RECON_BACKOFF_PAYMENT: '1h,6h,24h',
    RECON_BACKOFF_PAYOUT: '1h,6h,24h',
  }),
  setting('defaults without the webhook receiver (WEBHOOK_EXPECTED=false: pay-ins checked at once)', {}, { notifications: false }),
  setting('without the receiver, pay-ins re-checked sooner', { RECON_BACKOFF_PAYMENT: '5m,15m,1h,6h,24h' }, { notifications: false }),
];

const orders = day(Number(values.seed));
const end = 3 * DAY;
const rows: string[] = [];
const figures: Array<Record<string, unknown>> = [];
for (const s of SETTINGS) {
  const per: Record<Direction | 'all', { req: number; n: number; delays: number[] }> = {
    payment: { req: 0, n: 0, delays: [] },
    payout: { req: 0, n: 0, delays: [] },
    all: { req: 0, n: 0, delays: [] },
  };
  let allRequests = 0;
  for (const o of orders) {
    const f = follow(o, s, end);
    allRequests += f.requests;
    if (o.finalAt === null || f.seenAt === null) continue;
    for (const k of [o.direction, 'all'] as const) {
      per[k].req += f.requests;
      per[k].n++;
      per[k].delays.push(f.seenAt - o.finalAt);
    }
  }
  const m = (ms: number) => `${(ms / MIN).toFixed(1)} min`;
  const minutes = (ms: number) => Number((ms / MIN).toFixed(1));
  figures.push({
    setting: s.name,
    environment: s.env,
    requests_per_finalized_order: Number((per.all.req / per.all.n).toFixed(2)),
    requests_per_finalized_payment: Number((per.payment.req / per.payment.n).toFixed(2)),
    requests_per_finalized_payout: Number((per.payout.req / per.payout.n).toFixed(2)),
    median_detection_min: minutes(median(per.all.delays)),
    median_detection_payment_min: minutes(median(per.payment.delays)),
    median_detection_payout_min: minutes(median(per.payout.delays)),
    p90_detection_min: minutes(quantile(per.all.delays, 0.9)),
    requests_per_order_all: Number((allRequests / N).toFixed(2)),
  });
  rows.push(
    `| ${s.name} | \`${s.env}\` | ${(per.all.req / per.all.n).toFixed(2)} (pay-ins ${(per.payment.req / per.payment.n).toFixed(2)}, payouts ${(per.payout.req / per.payout.n).toFixed(2)}) | ` +
      `${m(median(per.all.delays))} (pay-ins ${m(median(per.payment.delays))}, payouts ${m(median(per.payout.delays))}) | ${m(quantile(per.all.delays, 0.9))} | ${(allRequests / N).toFixed(2)} |`,
  );
}
const paymentSteps = fmt(d.backoffMs.payment);
const payoutSteps = fmt(d.backoffMs.payout);
process.stdout.write(
  `Settlement day: ${N.toLocaleString('en-US')} orders over 24 h, followed for 3 days (defaults with the receiver: first check of a pay-in ${fmt([d.firstCheckMs.payment])}, of a payout ${fmt([d.firstCheckMs.payout])}; re-checks: pay-ins ${paymentSteps}, payouts ${payoutSteps}; SNAPSHOT_OPEN_CHECK=due)\n\n` +
    `| setting | environment | requests per finalized order | median detection delay | p90 detection delay | requests per order (all, incl. never final) |\n| --- | --- | --- | --- | --- | --- |\n${rows.join('\n')}\n`,
);
recordResult('settlement-day', {
  command: `node --import tsx bench/settlement-day.ts ${process.argv.slice(2).join(' ')}`.trim(),
  machine: benchMachine(),
  load: { end: loadAverages() },
  figures: { orders: N, seed: Number(values.seed), settings: figures },
});
