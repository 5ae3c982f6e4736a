// Thin entry of the scheduler: config, one shared pool, catch-up, the minute trigger, a clean stop.
import crypto from 'node:crypto';
import { DateTime } from 'luxon';
import { openJobContext, type JobContextOptions } from '../src/runtime/job-context.ts';
import { loadConfig } from '../src/config/config.ts';
import { createLogger } from '../src/log/logger.ts';
import { secretValues } from '../src/config/redact.ts';
import { EXIT } from '../src/commands/exit-codes.ts';
import { Scheduler } from '../src/schedule/scheduler.ts';
import { schedulesFromConfig, type ScheduledJobName } from '../src/schedule/schedules.ts';
import { jobRunners } from '../src/schedule/runners.ts';
import { planCatchUp, CATCH_UP_LOOKBACK_DAYS } from '../src/schedule/catch-up.ts';
import { completedDailyDates, lastStartedByJob, reportDatesSince } from '../src/schedule/runs-db.ts';
import { startMinuteTrigger } from '../src/schedule/trigger.ts';

export interface ScheduleJobOptions {
  /** Resolves (with a reason) when the scheduler should stop; default: the first SIGTERM or SIGINT. */
  stopWhen?: Promise<string>;
  /** Skip the catch-up at start. */
  noCatchUp?: boolean;
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
  const root = context.logger ?? createLogger({ level: config.LOG_LEVEL, secrets: secretValues(config) });
  const logger = root.child({ scheduler: crypto.randomUUID().slice(0, 8) });
  const signals = options.stopWhen ? null : stopOnSignals();
  const ctx = await openJobContext('schedule', { ...context, config, logger: root });
  const scheduler = new Scheduler({ schedules, runners: jobRunners({ config, db: ctx.db }), logger });
  let finished = true;
  let caughtUp: ScheduledJobName[] = [];
  try {
    logger.info(
      {
        schedules: Object.fromEntries(Object.entries(schedules).map(([job, s]) => [job, s?.expression ?? 'off'])),
        timezone: config.REPORT_TIMEZONE,
      },
      'scheduler started',
    );
    if (!options.noCatchUp) {
      const now = new Date();
      const since = DateTime.fromJSDate(now, { zone: config.REPORT_TIMEZONE })
        .minus({ days: CATCH_UP_LOOKBACK_DAYS + 1 })
        .toISODate()!;
      const plan = planCatchUp({
        now,
        zone: config.REPORT_TIMEZONE,
        schedules,
        lastStarted: await lastStartedByJob(ctx.db.knex),
        dailyDone: await completedDailyDates(ctx.db.knex, since),
        reportDates: await reportDatesSince(ctx.db.knex, since),
      });
      if (plan.length) logger.info({ plan }, 'catching up runs missed while no scheduler ran');
      caughtUp = scheduler.catchUp(plan);
    }
    const stopTrigger = startMinuteTrigger((minute) => scheduler.tick(minute));
    const reason = await (options.stopWhen ?? signals!.stopped);
    await stopTrigger();
    logger.info(
      { reason, running: scheduler.running(), timeoutMs: config.SCHEDULE_SHUTDOWN_TIMEOUT_MS },
      'stopping: no new runs; waiting for running jobs',
    );
    const stopped = await scheduler.stop(config.SCHEDULE_SHUTDOWN_TIMEOUT_MS);
    finished = stopped.finished;
    if (finished) logger.info('scheduler stopped');
    else
      logger.error({ running: stopped.running }, 'shutdown timeout: exiting with jobs still running (their runs resume at the next start)');
    return { exitCode: finished ? EXIT.OK : EXIT.INCOMPLETE, caughtUp, finished };
  } finally {
    signals?.dispose();
    // A job still running holds pooled connections; closing would wait for it.
    if (finished) await ctx.close();
  }
}

/** The first SIGTERM/SIGINT asks for a clean stop; a second one exits at once. */
function stopOnSignals(): { stopped: Promise<string>; dispose(): void } {
  let resolve!: (reason: string) => void;
  const stopped = new Promise<string>((r) => (resolve = r));
  let seen = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (seen) process.exit(130);
    seen = true;
    resolve(sig);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    stopped,
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}
