import { UsageError } from '../domain/errors.ts';

/** A configuration problem: names each variable and what it expects. */
export class ConfigError extends UsageError {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}
