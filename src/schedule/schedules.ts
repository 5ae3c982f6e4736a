import type { Config } from '../config/config.ts';
import { CronSpec } from './cron.ts';

/** What the scheduler runs. 'daily' is the full reconcile of yesterday followed by its report. */
export const SCHEDULED_JOBS = ['reconcile', 'snapshot', 'bank-codes', 'daily', 'prune'] as const;
export type ScheduledJobName = (typeof SCHEDULED_JOBS)[number];

/** Each job's cron in REPORT_TIMEZONE; null when its SCHEDULE_* variable is "off" (prune: also when absent). */
export type Schedules = Readonly<Record<Exclude<ScheduledJobName, 'prune'>, CronSpec | null>> & { readonly prune?: CronSpec | null };

export function schedulesFromConfig(config: Config): Schedules {
  const zone = config.REPORT_TIMEZONE;
  const spec = (value: string | null) => (value === null ? null : CronSpec.parse(value, zone));
  return {
    reconcile: spec(config.SCHEDULE_RECONCILE),
    snapshot: spec(config.SCHEDULE_SNAPSHOT),
    'bank-codes': spec(config.SCHEDULE_BANK_CODES),
    daily: spec(config.SCHEDULE_DAILY),
    prune: spec(config.SCHEDULE_PRUNE),
  };
}
