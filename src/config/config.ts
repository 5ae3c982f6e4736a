import fs from 'node:fs';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';
import { ENV_VARS, type EnvVarName } from './schema.ts';
import { ConfigError } from './errors.ts';
import { redactUrl } from './redact.ts';

type Parsed<K extends EnvVarName> = z.output<(typeof ENV_VARS)[K]['schema']>;
type HasDefault<K extends EnvVarName> = (typeof ENV_VARS)[K] extends { default: string } ? K : never;

/** The validated, frozen configuration: every variable parsed; those without default may be undefined. */
export type Config = Readonly<
  { [K in EnvVarName as HasDefault<K>]: Parsed<K> } & {
    [K in Exclude<EnvVarName, HasDefault<EnvVarName>>]?: Parsed<K>;
  }
>;

/** Reads `.env` (if present) underneath the real environment: the environment wins. */
export function readEnv(env: NodeJS.ProcessEnv = process.env, dotenvPath = '.env'): Record<string, string | undefined> {
  let fromFile: Record<string, string> = {};
  if (fs.existsSync(dotenvPath)) fromFile = parseDotenv(fs.readFileSync(dotenvPath));
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
  problems.push(...demoCredentialProblems(env, out.PROVIDER_BASE_URL as string | undefined));
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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
