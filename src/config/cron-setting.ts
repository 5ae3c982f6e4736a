import { z } from 'zod';
import { validate } from 'node-cron';

/**
 * A SCHEDULE_* value: a 5-field cron expression, or "off" (parsed to null) to disable the job.
 * Checked at config load so a typo stops the scheduler at start, naming the variable.
 */
export const cronSetting = z
  .string()
  .trim()
  .refine(
    (v) => v.toLowerCase() === 'off' || (v.split(/\s+/).length === 5 && validate(v.replace(/\s+/g, ' '))),
    'expected a 5-field cron expression (minute hour day month weekday) such as "*/15 * * * *", or off',
  )
  .transform((v) => (v.toLowerCase() === 'off' ? null : v.replace(/\s+/g, ' ')));
