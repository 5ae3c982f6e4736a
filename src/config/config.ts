import fs from 'node:fs';
import { readSettingsFile } from './settings-file.ts';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';
import { ENV_VARS, type EnvVarName } from './schema.ts';
import { ConfigError } from './errors.ts';
import { closestName } from './did-you-mean.ts';
import { redactUrl } from './redact-url.ts';
import { resolveAccountSecrets, type AccountsFile } from './accounts-file.ts';
import { messageOf } from '../domain/errors.ts';

type Parsed<K extends EnvVarName> = z.output<(typeof ENV_VARS)[K]['schema']>;
type HasDefault<K extends EnvVarName> = (typeof ENV_VARS)[K] extends { default: string } ? K : never;

/** The validated, frozen configuration: every variable parsed; those without default may be undefined. */
export type Config = Readonly<
  { [K in EnvVarName as HasDefault<K>]: Parsed<K> } & {
    [K in Exclude<EnvVarName, HasDefault<EnvVarName>>]?: Parsed<K>;
  }
>;

/** Keys a `.env` may hold besides payrecon's variables: read by Node, the users command or the tests. */
const OTHER_DOTENV_KEYS: readonly string[] = ['NODE_ENV', 'PAYRECON_ACTOR', 'TEST_DATABASE_URL', 'TEST_DB_ENGINE'];

/**
 * Reads `.env` (if present) underneath the real environment: the environment wins. A key in the
 * file that payrecon does not know is refused with the closest name: a misspelled DATABASE_URL
 * would otherwise switch silently to the embedded database. The environment is shared with other
 * programs, so unknown names there are left alone.
 */
export function readEnv(env: NodeJS.ProcessEnv = process.env, dotenvPath = '.env'): Record<string, string | undefined> {
  let fromFile: Record<string, string> = {};
  if (fs.existsSync(dotenvPath)) {
    let text: string;
    try {
      text = readSettingsFile(dotenvPath);
    } catch (err) {
      throw new ConfigError([`${dotenvPath}: ${messageOf(err)}; expected the settings as NAME=value lines (see .env.example)`]);
    }
    fromFile = parseDotenv(text);
    const known = Object.keys(ENV_VARS);
    const problems = Object.keys(fromFile)
      .filter((key) => !known.includes(key) && !OTHER_DOTENV_KEYS.includes(key))
      .map((key) => {
        const guess = closestName(key, known);
        return `${dotenvPath}: ${key} is not a payrecon variable${guess ? `; did you mean ${guess}?` : ' (.env.example lists them all)'}`;
      });
    if (problems.length) throw new ConfigError(problems);
  }
  return { ...fromFile, ...env };
}

/** Validates every variable at once so one run of the program names all the problems. */
export function loadConfig(env: Record<string, string | undefined> = readEnv()): Config {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(ENV_VARS) as [EnvVarName, (typeof ENV_VARS)[EnvVarName]][]) {
    const raw = env[name];
    const value = raw === undefined || raw.trim() === '' ? ('default' in spec ? spec.default : undefined) : raw;
    if (value === undefined) continue;
    const result = (spec.schema as z.ZodType).safeParse(value);
    if (result.success) {
      out[name] = result.data;
    } else {
      // A URL's password is a secret even where the variable is not (DATABASE_URL).
      const visible = redactUrl(value);
      const shown = spec.secret ? '(hidden)' : JSON.stringify(visible.length > 60 ? `${visible.slice(0, 60)}…` : visible);
      problems.push(`${name}: ${result.error.issues[0]?.message ?? 'invalid'}; got ${shown}`);
    }
  }
  const accounts = out.ACCOUNTS_FILE as AccountsFile | null | undefined;
  if (accounts) problems.push(...resolveAccountSecrets(accounts, env));
  // With ACCOUNTS_FILE every account names its own secret; the PROVIDER_* pair then defines no account.
  if (!accounts) problems.push(...demoCredentialProblems(env, out.PROVIDER_BASE_URL as string | undefined));
  problems.push(...productionDatabaseProblems(env, out));
  problems.push(...queueModeProblems(out));
  if (Boolean(out.CONSOLE_TRUSTED_PROXY) !== Boolean(out.CONSOLE_PROXY_USER_HEADER))
    problems.push('CONSOLE_TRUSTED_PROXY and CONSOLE_PROXY_USER_HEADER: set both for single sign-on behind a proxy, or neither');
  if (problems.length) throw new ConfigError(problems);
  return deepFreeze(out) as Config;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/**
 * The demo credentials are defaults only for a provider on this machine (the sandbox): a real
 * provider gets requests signed with an explicit secret, never silently with "demo-secret".
 */
function demoCredentialProblems(env: Record<string, string | undefined>, baseUrl: string | undefined): string[] {
  if (!baseUrl || LOOPBACK.test(new URL(baseUrl).hostname)) return [];
  return (['PROVIDER_MERCHANT_ID', 'PROVIDER_SECRET'] as const)
    .filter((name) => !env[name]?.trim())
    .map(
      (name) =>
        `${name}: required when PROVIDER_BASE_URL points at a real provider (${new URL(baseUrl).host}); the demo default only serves the local sandbox`,
    );
}

/** The queue lives in Postgres: the embedded database (one process) runs every job in the scheduler. */
function queueModeProblems(out: Record<string, unknown>): string[] {
  if (out.SCHEDULE_MODE !== 'queue' || out.DATABASE_URL) return [];
  return ['SCHEDULE_MODE: queue needs DATABASE_URL (a Postgres server the workers share); the embedded database runs every job in-process'];
}

/** Production (NODE_ENV=production, as in the Docker image) runs on a Postgres server unless PGlite is allowed by name. */
function productionDatabaseProblems(env: Record<string, string | undefined>, out: Record<string, unknown>): string[] {
  if (env.NODE_ENV !== 'production' || out.DATABASE_URL || out.PGLITE_IN_PRODUCTION === true) return [];
  return [
    'DATABASE_URL: not set, and NODE_ENV=production refuses the embedded PGlite (one process at a time, a directory inside the container); set DATABASE_URL to a Postgres server, or PGLITE_IN_PRODUCTION=true to allow PGlite anyway',
  ];
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
