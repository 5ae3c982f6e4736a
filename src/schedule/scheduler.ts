import crypto from 'node:crypto';
import type { Logger } from 'pino';
import { floorMinute } from './cron.ts';
import type { CatchUp } from './catch-up.ts';
import type { Schedules, ScheduledJobName } from './schedules.ts';
import { finishedLine, startedLine } from './lines.ts';
import { messageOf } from '../domain/errors.ts';

export interface JobRunContext {
  /** The cron occurrence this run stands for (a catch-up run: the one that was missed). */
  scheduledFor: Date;
  reason: 'scheduled' | 'catch-up';
  /** daily: the business date to cover, when the catch-up plan fixed it. */
  date?: string;
  /** Aborted when the scheduler stops: stop taking work, checkpoint, return. */
  signal: AbortSignal;
  /** Child of the scheduler's logger for this job and this firing. */
  logger: Logger;
  /** The one account to run for (a queued job names it); unset: every configured account. */
  account?: string;
}

export interface JobRunReport {
  /** The job's own outcome: completed, skipped (another process holds its lock), interrupted, failed, ... */
  status: string;
  exitCode: number;
  /** Figures for the finished line (checked, mismatch, ...). */
  counts?: Record<string, number>;
  detail?: Record<string, unknown>;
}

export type JobRunner = (ctx: JobRunContext) => Promise<JobRunReport>;

/** A look at a job's run still in flight in this process, when one of its occurrences is skipped for it. */
export type InFlightCheck = (ctx: JobRunContext) => Promise<void>;

export interface SchedulerOptions {
  schedules: Schedules;
  /** prune may be absent (a scheduler given no prune schedule never fires it). */
  runners: Readonly<Record<Exclude<ScheduledJobName, 'prune'>, JobRunner>> & { readonly prune?: JobRunner };
  logger: Logger;
  /**
   * Run when an occurrence finds the job's previous run still in flight here: reconcile's liveness
   * check, so a run hung in this process is alerted as one in another process is by the next run.
   */
  inFlightChecks?: Readonly<Partial<Record<ScheduledJobName, InFlightCheck>>>;
  /** REPORT_TIMEZONE, for the times in the lines (default UTC). */
  zone?: string;
  /** For the next time in a finished line (tests fix it). */
  now?: () => Date;
}

/**
 * Decides and starts runs; owns no timer. Whatever drives it (node-cron in production, a test
 * directly) calls tick(now) once a minute. At most one run per job is in flight in this process;
 * across processes each job's advisory lock decides, and the loser reports 'skipped'.
 */
export class Scheduler {
  private readonly inFlight = new Map<ScheduledJobName, Promise<void>>();
  /** At most one in-flight check per job at a time (a check cut off from the database must not pile up). */
  private readonly checking = new Map<ScheduledJobName, Promise<void>>();
  /** Latest occurrence fired per job, so a repeated tick or a catch-up never runs one twice. */
  private readonly fired = new Map<ScheduledJobName, number>();
  private readonly stopController = new AbortController();

  constructor(private readonly options: SchedulerOptions) {}

  get stopping(): boolean {
    return this.stopController.signal.aborted;
  }

  /** Starts every job whose cron matches now's minute; returns the jobs started. */
  tick(now: Date): ScheduledJobName[] {
    const minute = floorMinute(now);
    const started: ScheduledJobName[] = [];
    for (const [job, spec] of Object.entries(this.options.schedules) as [ScheduledJobName, Schedules[ScheduledJobName]][]) {
      if (spec?.matches(minute) && this.fire(job, minute, 'scheduled')) started.push(job);
    }
    return started;
  }

  /** Starts the missed runs the catch-up plan found; returns the jobs started. */
  catchUp(plan: readonly CatchUp[]): ScheduledJobName[] {
    return plan.filter((c) => this.fire(c.job, c.scheduledFor, 'catch-up', c.date)).map((c) => c.job);
  }

  /** Jobs running in this process now. */
  running(): ScheduledJobName[] {
    return [...this.inFlight.keys()];
  }

  /** Resolves when nothing is in flight (tests, and shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size || this.checking.size) await Promise.all([...this.inFlight.values(), ...this.checking.values()]);
  }

  /**
   * Takes no new runs, asks running ones to stop (reconcile checkpoints), and waits up to
   * timeoutMs. Returns whether everything finished in time.
   */
  async stop(timeoutMs: number): Promise<{ finished: boolean; running: ScheduledJobName[] }> {
    this.stopController.abort();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const finished = await Promise.race([this.idle().then(() => true as const), timedOut]);
    clearTimeout(timer);
    return { finished, running: this.running() };
  }

  private fire(job: ScheduledJobName, scheduledFor: Date, reason: JobRunContext['reason'], date?: string): boolean {
    const log = this.options.logger.child({ schedule: job, firing: crypto.randomUUID().slice(0, 8) });
    if (this.stopping) return false;
    const at = scheduledFor.getTime();
    if ((this.fired.get(job) ?? -Infinity) >= at) return false;
    if (this.inFlight.has(job)) {
      // Not queued: the next occurrence (or the run in flight) covers the same ground.
      log.warn({ scheduledFor }, 'previous run still in progress; this occurrence is skipped');
      this.checkInFlight(job, { scheduledFor, reason, date, signal: this.stopController.signal, logger: log });
      return false;
    }
    this.fired.set(job, at);
    const run = this.runOne(job, { scheduledFor, reason, date, signal: this.stopController.signal, logger: log }).finally(() =>
      this.inFlight.delete(job),
    );
    this.inFlight.set(job, run);
    return true;
  }

  private checkInFlight(job: ScheduledJobName, ctx: JobRunContext): void {
    const check = this.options.inFlightChecks?.[job];
    if (!check || this.checking.has(job)) return;
    const running = check(ctx)
      .catch((err: unknown) => ctx.logger.error({ err }, 'check of the run in flight failed'))
      .finally(() => this.checking.delete(job));
    this.checking.set(job, running);
  }

  private async runOne(job: ScheduledJobName, ctx: JobRunContext): Promise<void> {
    const started = Date.now();
    const zone = this.options.zone ?? 'UTC';
    const next = () => this.options.schedules[job]?.next((this.options.now ?? (() => new Date()))()) ?? null;
    ctx.logger.info(
      { scheduledFor: ctx.scheduledFor, reason: ctx.reason, date: ctx.date },
      startedLine(job, ctx.reason, ctx.scheduledFor, zone, ctx.date),
    );
    try {
      const runner = this.options.runners[job];
      if (!runner) throw new Error(`no runner for the ${job} schedule`);
      const report = await runner(ctx);
      const ms = Date.now() - started;
      const fields = { status: report.status, exitCode: report.exitCode, ms, ...report.counts, ...report.detail };
      // Another process holding the job's lock is normal with several schedulers: said, never an error.
      const outcome = report.status === 'skipped' ? 'skipped (another process holds its lock)' : report.status;
      const line = finishedLine(job, outcome, report.counts ?? {}, ms, next(), zone);
      if (report.exitCode === 0 || report.status === 'skipped') ctx.logger.info(fields, line);
      else ctx.logger.error(fields, line);
    } catch (err) {
      // One failed run must not take the scheduler down: the next occurrence tries again.
      const ms = Date.now() - started;
      ctx.logger.error({ err, ms }, finishedLine(job, `failed (${messageOf(err).split('\n')[0]})`, {}, ms, next(), zone));
    }
  }
}
