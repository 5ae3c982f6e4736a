import { z } from 'zod';

/** A true/false setting: true, false, 1, 0, yes or no, any case. */
export const bool = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' }))
  .transform((v) => v === 'true' || v === '1' || v === 'yes')
  .describe('true or false');
