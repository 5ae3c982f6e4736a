import { z } from 'zod';
import { CronExpressionParser } from 'cron-parser';

/** Whether expr is a valid 5-field cron expression (no seconds field), as the scheduler will read it. */
export function isFiveFieldCron(expr: string): boolean {
  if (expr.trim().split(/\s+/).length !== 5) return false;
  try {
    CronExpressionParser.parse(expr.trim(), { strict: false });
    return true;
  } catch {
    return false;
  }
}

/**
 * A SCHEDULE_* value: a 5-field cron expression, or "off" (parsed to null) to disable the job.
 * Checked at config load so a typo stops the scheduler at start, naming the variable.
 */
export const cronSetting = z
  .string()
  .trim()
  .refine(
    (v) => v.toLowerCase() === 'off' || isFiveFieldCron(v),
    'expected a 5-field cron expression (minute hour day month weekday) such as "*/15 * * * *", or off',
  )
  .transform((v) => (v.toLowerCase() === 'off' ? null : v.replace(/\s+/g, ' ')))
  .describe('5-field cron, or off');
