import { z } from 'zod';
import { CURRENCIES, type Currency } from '../money/decimal.ts';
import type { LedgerAccount, SecretSource } from '../domain/account.ts';
import { readSettingsFile } from './settings-file.ts';
import { findDuplicateKey } from './json-duplicate-key.ts';
import { ledgerAccountMap } from './journal-settings.ts';
import { messageOf } from '../domain/errors.ts';

// ACCOUNTS_FILE: the provider accounts of one deployment. Read and validated when the configuration
// loads; every problem names the account (its index and id) and the key, so one run lists them all.

/** An account as the file gives it: keys left out take the matching variable's value when listed (accounts.ts). */
export interface AccountSpec {
  id: string;
  displayName?: string;
  baseUrl?: string;
  merchantId: string;
  secretSource: SecretSource;
  /** Filled from secretSource when the configuration loads (resolveAccountSecrets); never written anywhere. */
  secret: string;
  currencies?: Currency[];
  reportRecipients?: string[];
  journalAccounts?: Record<string, LedgerAccount>;
  rateLimitPerSec?: number;
}

export interface AccountsFile {
  file: string;
  accounts: AccountSpec[];
}

/** Required keys say "required" rather than zod's "expected string, received undefined". */
const need = (what: string) => ({ error: (iss: { input?: unknown }) => (iss.input === undefined ? 'required' : `expected ${what}`) });

export const ACCOUNT_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;

const httpUrl = z.string(need('a URL')).refine((v) => {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}, 'expected an http:// or https:// URL such as https://api.provider.example');

const secretSource = z.union(
  [
    z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name such as NG_SECRET') }),
    z.strictObject({ file: z.string().trim().min(1, 'expected the path of a file holding the secret') }),
  ],
  { error: (iss) => (iss.input === undefined ? 'required' : 'expected {"env": "VARIABLE"} or {"file": "/path/to/secret"}') },
);

const accountSchema = z.strictObject({
  id: z.string(need('an id')).regex(ACCOUNT_ID, 'expected lower-case letters, digits and dashes (up to 40), such as "ng-brand"'),
  displayName: z.string(need('text')).trim().min(1, 'expected a non-empty name').optional(),
  baseUrl: httpUrl.optional(),
  merchantId: z.string(need('the MerchantID as text')).trim().min(1, 'required'),
  secret: secretSource,
  currencies: z
    .array(z.enum(CURRENCIES, { message: `expected one of ${CURRENCIES.join(', ')}` }), need('a list of currencies'))
    .min(1, 'expected at least one currency')
    .optional(),
  reportRecipients: z
    .array(
      z.string().regex(/^[^\s@,]+@[^\s@,]+$/, 'expected an e-mail address such as finance@example.com'),
      need('a list of e-mail addresses'),
    )
    .optional(),
  journalAccounts: ledgerAccountMap.optional(),
  rateLimitPerSec: z.number(need('a whole number')).int('expected a whole number').min(0).max(100_000).optional(),
});

const fileSchema = z.strictObject({ accounts: z.array(accountSchema, need('a list of accounts')).min(1, 'expected at least one account') });

const EXAMPLE = '{"accounts": [{"id": "in-main", "merchantId": "M-1001", "secret": {"env": "IN_MAIN_SECRET"}}]}';

/** "accounts[1] (id "ng-brand"): merchantId: required" — the account by index and id, then the key inside it. */
function describeIssue(issue: z.core.$ZodIssue, data: unknown): string {
  const path = issue.path.map(String);
  const unknownKey = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const message =
    unknownKey !== undefined
      ? 'not a known key'
      : issue.code === 'invalid_key'
        ? (issue.issues[0]?.message ?? issue.message)
        : issue.message;
  if (path[0] !== 'accounts' || path.length < 2) {
    const key = [...path, ...(unknownKey !== undefined ? [unknownKey] : [])].join('.');
    return key ? `${key}: ${message}` : message;
  }
  const index = Number(path[1]);
  const entry = (data as { accounts?: unknown[] }).accounts?.[index];
  const id =
    entry && typeof entry === 'object' && typeof (entry as { id?: unknown }).id === 'string' ? (entry as { id: string }).id : undefined;
  const key = [...path.slice(2), ...(unknownKey !== undefined ? [unknownKey] : [])].join('.');
  return `accounts[${index}]${id !== undefined ? ` (id ${JSON.stringify(id)})` : ''}: ${key ? `${key}: ` : ''}${message}`;
}

/** Ids and MerchantIDs each name one account: a repeated one would mix two accounts' data. */
function duplicates(accounts: AccountSpec[], baseUrlOf: (a: AccountSpec) => string): string[] {
  const problems: string[] = [];
  const ids = new Map<string, number>();
  const merchants = new Map<string, number>();
  accounts.forEach((a, i) => {
    const firstId = ids.get(a.id);
    if (firstId !== undefined) problems.push(`accounts[${i}] (id "${a.id}"): id: already used by accounts[${firstId}]`);
    else ids.set(a.id, i);
    const merchant = `${baseUrlOf(a)} ${a.merchantId}`;
    const firstMerchant = merchants.get(merchant);
    if (firstMerchant !== undefined)
      problems.push(
        `accounts[${i}] (id "${a.id}"): merchantId: ${a.merchantId} is already accounts[${firstMerchant}]'s at the same provider`,
      );
    else merchants.set(merchant, i);
  });
  return problems;
}

/** The ACCOUNTS_FILE setting: a path, read and validated; the secrets are resolved later, with the environment. */
export const accountsFile = z
  .string()
  .trim()
  .transform((file, ctx): AccountsFile | null => {
    if (file === '') return null;
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    let text: string;
    try {
      text = readSettingsFile(file);
    } catch (err) {
      return fail(`cannot read ${file}: ${messageOf(err)}; expected a JSON file such as ${EXAMPLE}`);
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      return fail(`cannot read ${file} as JSON (${messageOf(err)}); expected e.g. ${EXAMPLE}`);
    }
    const dup = findDuplicateKey(text);
    if (dup) return fail(`${file}: key "${dup.key}" is given twice, on line ${dup.firstLine} and line ${dup.secondLine}; keep one of them`);
    const parsed = fileSchema.safeParse(data);
    if (!parsed.success) return fail(parsed.error.issues.map((issue) => describeIssue(issue, data)).join('; '));
    const accounts: AccountSpec[] = parsed.data.accounts.map(({ secret, ...rest }) => ({
      ...rest,
      secretSource: 'env' in secret ? { kind: 'env', name: secret.env } : { kind: 'file', path: secret.file },
      secret: '',
    }));
    const problems = duplicates(accounts, (a) => a.baseUrl ?? '');
    if (problems.length) return fail(problems.join('; '));
    return { file, accounts };
  })
  .describe('path to a JSON file');

/**
 * Reads each account's secret from the variable or file it names, into memory only. Returns the
 * problems, each naming the account and where its secret should have been (never a secret's value).
 */
export function resolveAccountSecrets(spec: AccountsFile, env: Record<string, string | undefined>): string[] {
  const problems: string[] = [];
  spec.accounts.forEach((account, i) => {
    const where = `ACCOUNTS_FILE: accounts[${i}] (id "${account.id}"): secret`;
    const source = account.secretSource;
    if (source.kind === 'env') {
      const value = env[source.name]?.trim();
      if (value) account.secret = value;
      else problems.push(`${where}: the variable ${source.name} is not set`);
      return;
    }
    try {
      // A secret file ends with a newline as often as not; the secret is the text without it.
      const value = readSettingsFile(source.path).replace(/\r?\n$/, '');
      if (value.trim()) account.secret = value;
      else problems.push(`${where}: the file ${source.path} is empty`);
    } catch (err) {
      problems.push(`${where}: cannot read ${source.path}: ${messageOf(err)}`);
    }
  });
  return problems;
}
