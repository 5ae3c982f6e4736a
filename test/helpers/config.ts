import { loadConfig } from '../../src/config/config.ts';
import { ConfigError } from '../../src/config/errors.ts';

/** The problems loadConfig reports for env, or none. */
export function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
}
