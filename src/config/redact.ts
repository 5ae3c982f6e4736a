import { ENV_VARS, type EnvVarName } from './schema.ts';
import type { Config } from './config.ts';
import { secretForms } from './secret-forms.ts';

import { REDACTED } from './redact-url.ts';

export { REDACTED };

/** Every secret value in the config, in every form it may come back in, for scrubbing free text (error messages, provider bodies). */
export function secretValues(config: Config): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(config)) {
    if (typeof value !== 'string' || !value) continue;
    if (ENV_VARS[name as EnvVarName]?.secret) values.push(value);
    try {
      const password = new URL(value).password;
      if (password) values.push(password, decodeURIComponent(password));
    } catch {
      /* not a URL */
    }
  }
  // Each account's secret, from its variable or file, is as secret as PROVIDER_SECRET.
  for (const account of config.ACCOUNTS_FILE?.accounts ?? []) if (account.secret) values.push(account.secret);
  return secretForms(values.filter((v) => v.length >= 3));
}

/** Replaces each secret occurrence in text (longest first, so a form containing another goes whole). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join(REDACTED);
  return out;
}
