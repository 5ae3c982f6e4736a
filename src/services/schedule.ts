// The scheduler: one shared pool, catch-up, the minute trigger, a clean stop.
import crypto from 'node:crypto';
import { DateTime } from 'luxon';
import { untilAborted } from '../runtime/until-aborted.ts';
import { migrate } from '../db/migrate.ts';
import { withJob, type JobContextOptions } from '../runtime/with-job.ts';
import { loadConfig } from '../config/config.ts';
import { configuredAccounts } from '../config/accounts.ts';
import { routeStrayOutput } from '../log/stray-output.ts';
import { createLogger } from '../log/logger.ts';
import { secretValues } from '../config/redact.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { Scheduler } from '../schedule/scheduler.ts';
import { schedulesFromConfig, type ScheduledJobName } from '../schedule/schedules.ts';
import { inFlightChecks, jobRunners } from './schedule-runners.ts';
import { queueRunners } from './queue-runners.ts';
import { installQueue } from '../worker/install.ts';
import { planCatchUp, CATCH_UP_LOOKBACK_DAYS } from '../schedule/catch-up.ts';
import { completedDailyDates, lastStartedByJob, reportDatesSince } from '../db/schedule-runs.ts';
import { startMinuteTrigger } from '../schedule/trigger.ts';
import { catchUpLine } from '../schedule/lines.ts';
import { PayreconMetrics } from '../metrics/metrics.ts';
import { serveOps } from '../metrics/serve-ops.ts';
import type { OpsServer } from '../metrics/ops-server.ts';

export interface ScheduleJobOptions {
  /** Resolves (with a reason) when the scheduler should stop; default: the first SIGTERM or SIGINT. */
  stopWhen?: Promise<string>;
  /** Skip the catch-up at start. */
  noCatchUp?: boolean;
  /** Apply pending migrations first, under the migration advisory lock (the Docker image's default). */
  migrate?: boolean;
  /** Called once the health and metrics port listens (SCHEDULE_HTTP_PORT set); tests learn the port. */
  onOpsListening?: (server: OpsServer) => void;
}

export interface ScheduleJobResult {
  exitCode: number;
  caughtUp: ScheduledJobName[];
  /** False when a job was still running at SCHEDULE_SHUTDOWN_TIMEOUT_MS (its run stays resumable). */
  finished: boolean;
}

export async function scheduleJob(options: ScheduleJobOptions = {}, context: JobContextOptions = {}): Promise<ScheduleJobResult> {
  const config = context.config ?? loadConfig();
  const schedules = schedulesFromConfig(config);
  const root = context.logger ?? createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, secrets: secretValues(config) });
  // This process's own logger: Node's and knex's warnings go through it too (a caller's logger is the caller's business).
  if (!context.logger) routeStrayOutput(root);
  const logger = root.child({ scheduler: crypto.randomUUID().slice(0, 8) });
  // A caller's stop promise becomes the job's stop signal; without one, withJob turns SIGTERM/SIGINT into it.
  const stop = options.stopWhen ? new AbortController() : undefined;
  void options.stopWhen?.then((reason) => stop!.abort(reason));
  return withJob(
    'schedule',
    { ...context, config, logger: root, signal: stop?.signal, stoppable: true, requireMigrated: !options.migrate },
    async (deps) => {
      const { db, signal } = deps;
      if (options.migrate) {
        const { applied } = await migrate(db);
        logger.info({ applied }, applied.length ? 'migrations applied' : 'schema up to date');
      }
      const metrics = context.metrics ?? new PayreconMetrics();
      let state: 'starting' | 'running' | 'stopping' = 'starting';
      const ops = await serveOps({
        db,
        metrics,
        logger,
        host: config.SCHEDULE_HTTP_HOST,
        port: config.SCHEDULE_HTTP_PORT,
        processNotReady: () => (state === 'running' ? null : `scheduler ${state}`),
        onListening: options.onOpsListening,
      });
      const queued = config.SCHEDULE_MODE === 'queue';
      // Queue mode: the scheduler only enqueues; graphile-worker's schema must be there before the first add_job.
      if (queued) await installQueue(db, config.DATABASE_URL!, logger);
      const scheduler = new Scheduler({
        schedules,
        runners: queued ? queueRunners({ config, db }) : jobRunners({ config, db, metrics }),
        inFlightChecks: inFlightChecks({ config, db }),
        logger,
        zone: config.REPORT_TIMEZONE,
      });
      let caughtUp: ScheduledJobName[] = [];
      logger.info(
        {
          schedules: Object.fromEntries(Object.entries(schedules).map(([job, s]) => [job, s?.expression ?? 'off'])),
          mode: config.SCHEDULE_MODE,
          timezone: config.REPORT_TIMEZONE,
        },
        'scheduler started',
      );
      if (!options.noCatchUp) {
        const now = new Date();
        const since = DateTime.fromJSDate(now, { zone: config.REPORT_TIMEZONE })
          .minus({ days: CATCH_UP_LOOKBACK_DAYS + 1 })
          .toISODate()!;
        // Several accounts: a day is done only once every account's daily and report are (one account: as before).
        const accounts = configuredAccounts(config);
        const ids = accounts.length > 1 ? accounts.map((a) => a.id) : undefined;
        const plan = planCatchUp({
          now,
          zone: config.REPORT_TIMEZONE,
          schedules,
          lastStarted: await lastStartedByJob(db.knex),
          dailyDone: await completedDailyDates(db.knex, since, ids),
          reportDates: await reportDatesSince(db.knex, since, ids),
        });
        for (const c of plan) logger.info({ catchUp: c }, catchUpLine(c, config.REPORT_TIMEZONE));
        if (!plan.length) logger.info('catch-up: nothing missed');
        caughtUp = scheduler.catchUp(plan);
      }
      const stopTrigger = startMinuteTrigger((minute) => scheduler.tick(minute));
      state = 'running';
      const reason = String(await untilAborted(signal));
      state = 'stopping';
      await stopTrigger();
      logger.info(
        { reason, running: scheduler.running(), timeoutMs: config.SCHEDULE_SHUTDOWN_TIMEOUT_MS },
        'stopping: no new runs; waiting for running jobs',
      );
      const { finished, running } = await scheduler.stop(config.SCHEDULE_SHUTDOWN_TIMEOUT_MS);
      await ops?.close();
      if (finished) logger.info('scheduler stopped');
      else {
        logger.error({ running }, 'shutdown timeout: exiting with jobs still running (their runs resume at the next start)');
        // A job still running holds pooled connections; closing would wait for it.
        deps.leaveOpen();
      }
      return { exitCode: finished ? EXIT.OK : EXIT.INCOMPLETE, caughtUp, finished };
    },
  );
}
