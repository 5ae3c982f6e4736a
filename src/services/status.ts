// The status job: last runs, next scheduled times, pending report e-mails and open alerts, as one value.
import { withJob } from '../runtime/with-job.ts';
import { lastRuns } from '../db/runs.ts';
import { pendingReportDeliveries } from '../db/deliveries.ts';
import { schedulesFromConfig } from '../schedule/schedules.ts';
import { openAlerts } from '../db/open-alerts.ts';
import { alertingHealth } from '../db/alerting-health.ts';
import { buildStatus, type StatusReport } from '../status/build.ts';
import { processGone } from '../status/process-gone.ts';

export async function statusJob(): Promise<StatusReport> {
  return withJob('status', {}, async ({ config, db }) => {
    const now = new Date();
    return buildStatus({
      now,
      timezone: config.REPORT_TIMEZONE,
      schedules: schedulesFromConfig(config),
      lastRuns: await lastRuns(db.knex),
      pendingEmails: await pendingReportDeliveries(db.knex),
      openAlerts: await openAlerts(db.knex, now),
      alerting: await alertingHealth(db.knex),
      stallAfterMs: config.RUN_STALL_AFTER_SECONDS * 1000,
      processGone: (run) => processGone(run),
    });
  });
}
