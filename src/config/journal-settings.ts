import { z } from 'zod';
import { bool } from './bool.ts';
import { CURRENCIES } from '../money/decimal.ts';
import { JOURNAL_ROLES } from '../domain/journal-roles.ts';
import { readSettingsFile } from './settings-file.ts';
import { findDuplicateKey } from './json-duplicate-key.ts';
import { messageOf } from '../domain/errors.ts';

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
/** A chart-of-accounts mapping: JOURNAL_ACCOUNTS_FILE's content, and an ACCOUNTS_FILE account's journalAccounts. */
export const ledgerAccountMap = z.record(
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
          message: `cannot read ${file}: ${messageOf(err)}; expected a JSON file such as ${example}`,
        });
        return z.NEVER;
      }
      try {
        data = JSON.parse(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `cannot read ${file} as JSON (${messageOf(err)}); expected e.g. ${example}` });
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

/** ISO 4217 codes as the runtime knows them (Intl), so EUR, GBP, SGD, … pass and USDT does not. */
const ISO_4217 = new Set(Intl.supportedValuesOf('currency'));

const baseCurrency = z
  .string()
  .trim()
  .toUpperCase()
  .refine((v) => v === '' || ISO_4217.has(v), {
    message:
      'expected your ledger’s base currency as an ISO 4217 code, such as USD, EUR, GBP or SGD (USDT is not one: set JOURNAL_USDT_AT_PAR=true to value USDT at par with USD)',
  })
  .describe('ISO 4217 code');

/** One JOURNAL_RATES_FILE row: units of the base currency per 1 unit of `currency` on `date`. */
export interface BaseRate {
  rate: string;
  /** Where it came from, for the line that uses it: "JOURNAL_RATES_FILE row 4". */
  source: string;
}

/**
 * JOURNAL_RATES_FILE: a CSV the merchant maintains, header `date,currency,rate`, one row per day and
 * currency (rate = base currency per 1 unit). Read once at start; a bad row stops the job naming it.
 */
const ratesFile = z
  .string()
  .trim()
  .transform((file, ctx): Map<string, BaseRate> => {
    const out = new Map<string, BaseRate>();
    if (file === '') return out;
    let text: string;
    try {
      text = readSettingsFile(file).replace(/^\uFEFF/, '');
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: `cannot read ${file} (${messageOf(err)}); expected a CSV file with the header date,currency,rate`,
      });
      return z.NEVER;
    }
    const lines = text.split(/\r?\n/);
    const fail = (n: number, message: string) => {
      ctx.addIssue({ code: 'custom', message: `${file} row ${n}: ${message}` });
      return z.NEVER;
    };
    if (lines[0]?.trim().toLowerCase().replace(/\s/g, '') !== 'date,currency,rate')
      return fail(1, `expected the header date,currency,rate (got ${JSON.stringify(lines[0] ?? '')})`);
    for (let i = 1; i < lines.length; i++) {
      if (lines[i].trim() === '') continue;
      const [date, currency, rate, ...rest] = lines[i].split(',').map((c) => c.trim());
      const n = i + 1;
      if (rest.length > 0 || rate === undefined) return fail(n, 'expected three columns: date,currency,rate');
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)))
        return fail(n, `date ${JSON.stringify(date)}: expected YYYY-MM-DD`);
      if (!/^[A-Z]{3}$/.test(currency)) return fail(n, `currency ${JSON.stringify(currency)}: expected a code such as INR`);
      if (!/^\d+(\.\d+)?$/.test(rate) || /^0+(\.0+)?$/.test(rate))
        return fail(n, `rate ${JSON.stringify(rate)}: expected a positive decimal, the base currency per 1 ${currency}`);
      const key = `${date}:${currency}`;
      if (out.has(key)) return fail(n, `${date} ${currency} is already on ${out.get(key)!.source.replace(/.* /, 'row ')}`);
      out.set(key, { rate, source: `JOURNAL_RATES_FILE row ${n}` });
    }
    return out;
  })
  .describe('path to a CSV file');

export const JOURNAL_SETTINGS = {
  JOURNAL_ACCOUNTS_FILE: {
    schema: jsonFile(
      ledgerAccountMap,
      '{"wallet": {"code": "1210", "name": "Provider wallet"}, "fees:INR": {"code": "6110", "name": "Provider fees INR"}}',
    ),
    default: '',
    secret: false,
    doc: 'JSON file mapping journal roles (or role:CUR) to {code, name} in your chart of accounts; unset roles keep the defaults (docs/guides/for-accounting.md); a regular file of at most 1 MiB, each key once',
  },
  JOURNAL_BASE_CURRENCY: {
    schema: baseCurrency,
    default: '',
    secret: false,
    doc: 'your ledger’s base (home) currency, an ISO 4217 code (USD, EUR, GBP, SGD, INR, …): journal_xero.csv and journal_quickbooks.csv are in it; unset, they are empty and journal_posting.csv is the ledger in each entry’s own currency. An entry with no rate to it is held back, never posted at a made-up rate (docs/guides/for-accounting.md)',
  },
  JOURNAL_RATES_FILE: {
    schema: ratesFile,
    default: '',
    secret: false,
    doc: 'CSV file of your rates to the base currency, header `date,currency,rate` (rate = base currency per 1 unit, e.g. `2026-01-02,INR,0.01198`), one row per day and currency; checked at start, a bad row named',
  },
  JOURNAL_USDT_AT_PAR: {
    schema: bool,
    default: 'false',
    secret: false,
    doc: 'with JOURNAL_BASE_CURRENCY=USD: value each line at the provider’s USDT rate taken at par with USD (1 USDT = 1 USD) where JOURNAL_RATES_FILE has no row; each such line says so',
  },
  JOURNAL_FX_REVALUATION: {
    schema: z
      .enum(['on', 'off'], { message: 'expected on or off' })
      .transform((v) => v === 'on')
      .describe('on | off'),
    default: 'off',
    secret: false,
    doc: 'on: the report of a month’s last day adds, per currency, an fx_revaluation entry restating the wallet’s USDT value at that day’s closing rate, and its reversal dated the first day of the next month; each posted once (docs/guides/for-accounting.md)',
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
