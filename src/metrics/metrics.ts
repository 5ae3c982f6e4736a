// The Prometheus families of payrecon, one registry per process, handed down as an object (never a global).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Knex } from '../db/knex-types.ts';
import { readOpsGauges } from '../db/ops-gauges.ts';
import { ALERTING_STEPS } from '../db/alerting-health.ts';
import { VERDICTS } from '../domain/verdicts.ts';
import { PATHS } from '../provider/types.ts';
import { JOB_OUTCOMES, type JobOutcome } from './job-outcome.ts';
import { messageOf } from '../domain/errors.ts';

/**
 * Jobs known up front, so their series exist (at zero) before the first run. The label is
 * `payrecon_job`, never `job`: Prometheus renames a target's own `job` label to `exported_job`
 * under the default `honor_labels: false`, and a rule written against `job` then matches nothing.
 */
export const METRIC_JOBS = ['reconcile', 'snapshot', 'bank-codes', 'report', 'daily'] as const;
const DIRECTIONS = ['payment', 'payout'] as const;
/** Answers that mean the provider is not serving: the same statuses the error-ratio rule counts. */
const PROVIDER_FAILURE = /^(5\d\d|429|timeout|network)$/;
const WEBHOOK_OUTCOMES = ['stored', 'duplicate', 'refused', 'not_stored'] as const;
export type WebhookOutcome = (typeof WEBHOOK_OUTCOMES)[number];

export interface GaugeRefreshOptions {
  /** Statement timeout of the scrape's queries, and the whole refresh's bound. */
  timeoutMs: number;
  /** graphile-worker's schema, read when installed (SCHEDULE_MODE=queue): the queue's gauges. */
  queueSchema?: string;
}

export class PayreconMetrics {
  readonly registry = new Registry();
  private readonly jobRuns = new Counter({
    name: 'payrecon_job_runs_total',
    help: 'Job runs by job and outcome (success, failure, skipped, interrupted)',
    labelNames: ['payrecon_job', 'outcome', 'account'],
    registers: [this.registry],
  });
  private readonly lastSuccess = new Gauge({
    name: 'payrecon_job_last_success_timestamp_seconds',
    help: 'Unix time of the latest completed run of each job (from job_runs, any process)',
    labelNames: ['payrecon_job', 'account'],
    registers: [this.registry],
  });
  private readonly watchedSince = new Gauge({
    name: 'payrecon_job_watched_since_timestamp_seconds',
    help: "Unix time payrecon's schema was installed (its first migration): a job that never succeeded is overdue from here",
    labelNames: ['payrecon_job', 'account'],
    registers: [this.registry],
  });
  private readonly ready = new Gauge({
    name: 'payrecon_ready',
    help: '1 when /readyz would answer 200 (checked at each scrape), else 0',
    registers: [this.registry],
  });
  private readonly databaseReachable = new Gauge({
    name: 'payrecon_database_reachable',
    help: "1 when this scrape's database queries answered within the bound, else 0",
    registers: [this.registry],
  });
  private readonly providerReachable = new Gauge({
    name: 'payrecon_provider_reachable',
    help: '1 when the latest request of each operation was answered (not 5xx, 429, timeout or network error), else 0; absent before the first',
    // Labelled so that no sample exists before the first request (an unlabelled gauge reads 0 from the start).
    labelNames: ['operation', 'account'],
    registers: [this.registry],
  });
  private readonly oldestOpenCase = new Gauge({
    name: 'payrecon_open_cases_oldest_timestamp_seconds',
    help: 'Unix time the oldest case still open was opened, by mismatch code and currency (read from the database at scrape)',
    labelNames: ['code', 'currency', 'account'],
    registers: [this.registry],
  });
  private readonly ordersChecked = new Counter({
    name: 'payrecon_orders_checked_total',
    help: 'Orders checked against the provider, by direction and verdict',
    labelNames: ['direction', 'verdict', 'account'],
    registers: [this.registry],
  });
  private readonly providerRequests = new Counter({
    name: 'payrecon_provider_requests_total',
    help: 'HTTP requests to the provider by operation and answer status (HTTP code, or timeout / network)',
    labelNames: ['operation', 'status', 'account'],
    registers: [this.registry],
  });
  private readonly providerDuration = new Histogram({
    name: 'payrecon_provider_request_duration_seconds',
    help: 'Duration of one HTTP request to the provider (one attempt)',
    labelNames: ['operation', 'account'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  private readonly openCases = new Gauge({
    name: 'payrecon_open_cases',
    help: 'Cases in state open, by mismatch code and currency (read from the database at scrape)',
    labelNames: ['code', 'currency', 'account'],
    registers: [this.registry],
  });
  private readonly drift = new Gauge({
    name: 'payrecon_balance_drift',
    help: "Latest roll-forward drift per currency checked (closing - expected, in the currency's units)",
    labelNames: ['currency', 'account'],
    registers: [this.registry],
  });
  private readonly emailsPending = new Gauge({
    name: 'payrecon_report_emails_pending',
    help: 'Report versions whose e-mail is still pending (read from the database at scrape)',
    labelNames: ['account'],
    registers: [this.registry],
  });
  private readonly webhooks = new Counter({
    name: 'payrecon_webhook_notifications_total',
    help: 'Notifications received by the webhook receiver, by outcome',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  // Read from alerting_health at scrape: every process's alerting, and a restart keeps the count.
  private readonly alertingFailures = new Counter({
    name: 'payrecon_alerting_failures_total',
    help: 'Failures of each alerting step (raise, resolve, no_channel, summarise, deliver), from the database',
    labelNames: ['step'],
    registers: [this.registry],
  });
  private readonly alertingLastFailure = new Gauge({
    name: 'payrecon_alerting_last_failure_timestamp_seconds',
    help: 'Unix time of the latest failure of any alerting step (0: none recorded), from the database',
    registers: [this.registry],
  });
  // Label values: the queue's task names, the configured accounts and four states: bounded.
  private readonly queueJobs = new Gauge({
    name: 'payrecon_queue_jobs',
    help: 'Jobs in the worker queue (SCHEDULE_MODE=queue) by task, account and state: waiting, running, retried (waiting again after a failure), failed (out of attempts)',
    labelNames: ['task', 'account', 'state'],
    registers: [this.registry],
  });
  private readonly scrapeErrors = new Counter({
    name: 'payrecon_metrics_database_errors_total',
    help: 'Scrapes whose database gauges could not be refreshed (they kept their last values)',
    registers: [this.registry],
  });
  private readonly inProcessSuccess = new Map<string, number>();
  /**
   * The configured account ids when there are several: the per-account families carry `account`, only
   * ever one of these (a row of another account is left out), so its cardinality is the config's. With
   * one account (the default) the label is absent and the output is as before accounts existed.
   */
  private accounts: ReadonlySet<string> | null = null;
  /** Per account, the operation its latest provider request was (provider_reachable keeps only that). */
  private readonly latestOperation = new Map<string, string>();
  /** Why the last refresh failed, or null; readiness reports it. */
  lastRefreshError: string | null = null;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.zeroSeries();
    for (const outcome of WEBHOOK_OUTCOMES) this.webhooks.inc({ outcome }, 0);
    for (const step of ALERTING_STEPS) this.alertingFailures.inc({ step }, 0);
    this.alertingLastFailure.set(0);
  }

  /**
   * The configured accounts (configuredAccounts(config) ids), told once the process has its config. With
   * several, the per-account series are started again labelled by account; with one, nothing changes.
   */
  useAccounts(ids: readonly string[]): void {
    const next = ids.length > 1 ? new Set(ids) : null;
    if (sameSet(next, this.accounts)) return;
    this.accounts = next;
    for (const m of [this.jobRuns, this.ordersChecked, this.providerRequests, this.lastSuccess, this.watchedSince]) m.reset();
    this.providerDuration.reset();
    this.providerReachable.reset();
    this.emailsPending.reset();
    this.latestOperation.clear();
    this.inProcessSuccess.clear();
    this.zeroSeries();
  }

  /** The account label for an account id: none with one account; null (leave the sample out) for an id not configured. */
  private label(account: string | undefined): { account?: string } | null {
    if (!this.accounts) return {};
    return account !== undefined && this.accounts.has(account) ? { account } : null;
  }

  private accountLabels(): Array<{ account?: string }> {
    return this.accounts ? [...this.accounts].map((account) => ({ account })) : [{}];
  }

  /** Series known up front exist at zero before the first event: per account when there are several. */
  private zeroSeries(): void {
    for (const a of this.accountLabels()) {
      for (const job of METRIC_JOBS) for (const outcome of JOB_OUTCOMES) this.jobRuns.inc({ payrecon_job: job, outcome, ...a }, 0);
      for (const direction of DIRECTIONS) for (const verdict of VERDICTS) this.ordersChecked.inc({ direction, verdict, ...a }, 0);
      for (const operation of Object.keys(PATHS)) this.providerDuration.zero({ operation, ...a });
      this.emailsPending.set(a, 0);
    }
  }

  jobFinished(job: string, outcome: JobOutcome, at: Date = new Date(), account?: string): void {
    const a = this.label(account);
    if (!a) return;
    this.jobRuns.inc({ payrecon_job: job, outcome, ...a });
    if (outcome === 'success') {
      const key = `${job}\u0000${a.account ?? ''}`;
      this.inProcessSuccess.set(key, at.getTime() / 1000);
      this.lastSuccess.set({ payrecon_job: job, ...a }, Math.max(at.getTime() / 1000, this.inProcessSuccess.get(key) ?? 0));
    }
  }

  /** What /readyz answers, as gauges a rule can read without depending on `up`. */
  readiness(state: { ready: boolean; databaseReachable: boolean }): void {
    this.ready.set(state.ready ? 1 : 0);
    this.databaseReachable.set(state.databaseReachable ? 1 : 0);
  }

  /** `count` orders of one direction checked with this verdict (a reconcile batch reports once per verdict). */
  orderChecked(direction: string, verdict: string, count = 1, account?: string): void {
    const a = this.label(account);
    if (a) this.ordersChecked.inc({ direction, verdict, ...a }, count);
  }

  providerRequest(operation: string, status: string, seconds: number, account?: string): void {
    const a = this.label(account);
    if (!a) return;
    this.providerRequests.inc({ operation, status, ...a });
    this.providerDuration.observe({ operation, ...a }, seconds);
    // Only the latest request (of the account) counts: an operation not called since an outage began must not keep saying 1.
    const key = a.account ?? '';
    const previous = this.latestOperation.get(key);
    if (previous !== undefined) this.providerReachable.remove({ operation: previous, ...a });
    this.latestOperation.set(key, operation);
    this.providerReachable.set({ operation, ...a }, PROVIDER_FAILURE.test(status) ? 0 : 1);
  }

  webhookNotification(outcome: WebhookOutcome): void {
    this.webhooks.inc({ outcome });
  }

  /**
   * Reads the database gauges. Never throws: on failure (database down, timeout) the gauges keep
   * their last values, the error is counted and kept for /readyz.
   */
  async refreshFromDatabase(db: Knex, opts: GaugeRefreshOptions): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const bound = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`database gauges not read within ${opts.timeoutMs} ms`)), opts.timeoutMs);
      });
      const rows = await Promise.race([readOpsGauges(db, opts.timeoutMs, opts.queueSchema), bound]);
      this.queueJobs.reset();
      for (const q of rows.queue) this.queueJobs.set({ task: q.task, account: q.account, state: q.state }, q.count);
      this.openCases.reset();
      this.oldestOpenCase.reset();
      // Without the account label (one account) rows of every account are summed into the series, as before accounts.
      for (const c of this.byLabels(rows.openCases, (r) => ({ code: r.code, currency: r.currency }))) {
        this.openCases.set(c.labels, sum(c.rows.map((r) => r.count)));
        this.oldestOpenCase.set(c.labels, Math.min(...c.rows.map((r) => r.oldestOpenedAt.getTime())) / 1000);
      }
      this.drift.reset();
      // Prometheus samples are floats: the drift is shown, never summed back into money.
      for (const d of rows.drift) {
        const a = this.label(d.account);
        if (a) this.drift.set({ currency: d.currency, ...a }, Number(d.drift));
      }
      for (const a of this.accountLabels()) {
        this.emailsPending.set(
          a,
          sum(rows.emailsPending.filter((e) => this.accounts === null || e.account === a.account).map((e) => e.count)),
        );
      }
      // The database holds the total: the counter is set to it (reset, then one increment per step).
      this.alertingFailures.reset();
      for (const step of ALERTING_STEPS)
        this.alertingFailures.inc({ step }, rows.alertingFailures.find((f) => f.step === step)?.failures ?? 0);
      this.alertingLastFailure.set(rows.alertingLastFailure ? rows.alertingLastFailure.getTime() / 1000 : 0);
      for (const s of this.byLabels(rows.lastSuccess, (r) => ({ payrecon_job: r.job }))) {
        const key = `${s.labels.payrecon_job}\u0000${s.labels.account ?? ''}`;
        const seconds = Math.max(Math.max(...s.rows.map((r) => r.at.getTime())) / 1000, this.inProcessSuccess.get(key) ?? 0);
        this.lastSuccess.set(s.labels, seconds);
      }
      if (rows.installedAt) {
        for (const a of this.accountLabels())
          for (const job of METRIC_JOBS) this.watchedSince.set({ payrecon_job: job, ...a }, rows.installedAt.getTime() / 1000);
      }
      this.lastRefreshError = null;
    } catch (err) {
      this.scrapeErrors.inc();
      this.lastRefreshError = messageOf(err).split('\n')[0];
    } finally {
      clearTimeout(timer);
    }
  }

  /** Rows grouped by their labels plus the account's (rows of an account not configured left out). */
  private byLabels<R extends { account: string }, L extends Record<string, string>>(
    rows: readonly R[],
    labelsOf: (r: R) => L,
  ): Array<{ labels: L & { account?: string }; rows: R[] }> {
    const groups = new Map<string, { labels: L & { account?: string }; rows: R[] }>();
    for (const r of rows) {
      const a = this.label(r.account);
      if (!a) continue;
      const labels = { ...labelsOf(r), ...a };
      const key = JSON.stringify(labels);
      const g = groups.get(key);
      if (g) g.rows.push(r);
      else groups.set(key, { labels, rows: [r] });
    }
    return [...groups.values()];
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function sameSet(a: ReadonlySet<string> | null, b: ReadonlySet<string> | null): boolean {
  if (a === null || b === null) return a === b;
  return a.size === b.size && [...a].every((x) => b.has(x));
}
