import { ENV_VARS, type EnvVarName } from '../config/schema.ts';

/** The "Environment:" block of a command's --help, from the config schema itself. */
export function envHelp(names: readonly EnvVarName[]): string {
  const width = Math.max(...names.map((n) => n.length));
  const lines = names.map((n) => {
    const spec = ENV_VARS[n];
    const def = 'default' in spec && spec.default !== '' ? ` (default: ${spec.default})` : '';
    return `  ${n.padEnd(width)}  ${spec.doc}${def}`;
  });
  return `\nEnvironment (also read from .env):\n${lines.join('\n')}\n`;
}

export const DB_ENV: readonly EnvVarName[] = [
  'DATABASE_URL',
  'DATABASE_SCHEMA',
  'DATABASE_QUERY_TIMEOUT_MS',
  'PGLITE_DIR',
  'LOG_LEVEL',
  'LOG_FORMAT',
];
export const PROVIDER_ENV: readonly EnvVarName[] = [
  'PROVIDER_BASE_URL',
  'PROVIDER_MERCHANT_ID',
  'PROVIDER_SECRET',
  'PROVIDER_SIGNATURE',
  'PROVIDER_TIMEOUT_MS',
  'PROVIDER_MAX_RETRIES',
  'PROVIDER_RATE_LIMIT',
  'PROVIDER_STATUS_MAP',
];

/** The "Examples:" block of a command's --help. */
export function examplesHelp(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}
