import { z } from 'zod';
import { CURRENCIES } from '../money/decimal.ts';
import { JOURNAL_ROLES } from '../domain/journal-roles.ts';
import { readSettingsFile } from './settings-file.ts';
import { findDuplicateKey } from './json-duplicate-key.ts';

// Settings held in JSON files (a chart of accounts, a fee schedule): read and validated when the
// configuration loads, so a wrong key stops the job before anything runs, naming the key.

const ROLES = JOURNAL_ROLES;

const decimalText = z.string().regex(/^\d+(\.\d+)?$/, 'expected a non-negative decimal as text, such as "1.5"');

const account = z.strictObject({
  code: z.string().trim().min(1, 'expected the account code, such as "1210"'),
  name: z.string().trim().min(1, 'expected the account name as in the chart of accounts'),
});
/** role, or role:CUR for one currency's account (e.g. "wallet:INR"). */
const accountKey = new RegExp(`^(${ROLES.join('|')})(:(${CURRENCIES.join('|')}))?$`);
const accounts = z.record(
  z.string().regex(accountKey, `expected a role (${ROLES.join(', ')}), optionally with :${CURRENCIES.join('/:')}`),
  account,
);

const feeRule = z
  .strictObject({ percent: decimalText, fixed: decimalText, min: decimalText.optional(), max: decimalText.optional() })
  .refine((r) => r.min === undefined || r.max === undefined || Number(r.min) <= Number(r.max), 'min above max');
/** Per currency, direction and method ("*" = any method not listed). */
const feeSchedule = z.partialRecord(
  z.enum(CURRENCIES),
  z.strictObject({ payment: z.record(z.string().min(1), feeRule).optional(), payout: z.record(z.string().min(1), feeRule).optional() }),
);

/** The key at fault and what is wrong with it: zod puts an unknown key in the issue, not in its path. */
function describeIssue(issue: z.core.$ZodIssue): { key: string; message: string } {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') return { key: [...path, issue.keys[0]].join('.'), message: 'not a known key' };
  if (issue.code === 'invalid_key') return { key: path.join('.'), message: issue.issues[0]?.message ?? issue.message };
  return { key: path.join('.'), message: issue.message };
}

function jsonFile<T>(schema: z.ZodType<T>, example: string) {
  return z
    .string()
    .trim()
    .transform((file, ctx): T => {
      if (file === '') return {} as T;
      let data: unknown;
      let text: string;
      try {
        text = readSettingsFile(file);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: `cannot read ${file}: ${(err as Error).message}; expected a JSON file such as ${example}`,
        });
        return z.NEVER;
      }
      try {
        data = JSON.parse(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `cannot read ${file} as JSON (${(err as Error).message}); expected e.g. ${example}` });
        return z.NEVER;
      }
      const dup = findDuplicateKey(text);
      if (dup) {
        const where = dup.path ? ` in "${dup.path}"` : '';
        ctx.addIssue({
          code: 'custom',
          message: `${file}: key "${dup.key}"${where} is given twice, on line ${dup.firstLine} and line ${dup.secondLine}; keep one of them`,
        });
        return z.NEVER;
      }
      const parsed = schema.safeParse(data);
      if (!parsed.success) {
        const { key, message } = describeIssue(parsed.error.issues[0]);
        ctx.addIssue({ code: 'custom', message: `${file}: key "${key}": ${message}; expected e.g. ${example}` });
        return z.NEVER;
      }
      return parsed.data;
    })
    .describe('path to a JSON file');
}

export const JOURNAL_SETTINGS = {
  JOURNAL_ACCOUNTS_FILE: {
    schema: jsonFile(
      accounts,
      '{"wallet": {"code": "1210", "name": "Provider wallet"}, "fees:INR": {"code": "6110", "name": "Provider fees INR"}}',
    ),
    default: '',
    secret: false,
    doc: 'JSON file mapping journal roles (or role:CUR) to {code, name} in your chart of accounts; unset roles keep the defaults (docs/guides/for-accounting.md); a regular file of at most 1 MiB, each key once',
  },
  JOURNAL_BASE_CURRENCY: {
    schema: z.enum(['USDT', ...CURRENCIES], { message: `expected USDT or one of ${CURRENCIES.join(', ')}` }),
    default: 'USDT',
    secret: false,
    doc: 'the currency journal_xero.csv posts in (your Xero organisation’s base currency) and journal_quickbooks.csv’s home currency',
  },
  JOURNAL_XERO_TAX_RATE: {
    schema: z.string().trim().min(1, 'expected the name of a no-tax rate in your Xero organisation, such as "Tax Exempt"').describe('text'),
    default: 'Tax Exempt',
    secret: false,
    doc: 'TaxRate written on every journal_xero.csv line: a no-tax rate’s name as set in your Xero organisation',
  },
  FEE_SCHEDULE_FILE: {
    schema: jsonFile(
      feeSchedule,
      '{"INR": {"payment": {"UPI": {"percent": "1.5", "fixed": "0", "min": "1", "max": "500"}, "*": {"percent": "2", "fixed": "3"}}}}',
    ),
    default: '',
    secret: false,
    doc: 'JSON file of the contracted provider fees per currency, direction and method (`"*"` = other methods): `{"INR":{"payment":{"UPI":{"percent":"1.5","fixed":"0","min":"1","max":"500"}}}}`; a provider fee off it is `FEE_SCHEDULE`; a regular file of at most 1 MiB, each key once',
  },
} as const;
