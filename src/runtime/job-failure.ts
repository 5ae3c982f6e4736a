import { scrub } from '../config/redact.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { withoutSql } from '../db/errors.ts';
import { ExitStatusError, UsageError } from '../domain/errors.ts';

/**
 * A job that could not complete for a reason outside its own logic (database unreachable,
 * connection lost, an unexpected error). Its message is one line naming the job and the
 * database; the CLI prints it as is (or as one JSON object with --json) and exits 2.
 */
export class JobFailedError extends ExitStatusError {
  constructor(
    readonly job: string,
    readonly database: string,
    readonly reason: string,
  ) {
    super(`${job} failed (database: ${database}): ${reason}`, EXIT.INCOMPLETE);
    this.name = 'JobFailedError';
  }
}

/** The first line of an error's cause with secrets removed: drivers put stacks after it, knex the SQL before it. */
export function oneLine(err: unknown, secrets: readonly string[]): string {
  const message = withoutSql(err instanceof Error ? err.message : String(err));
  const first = message.split('\n').find((l) => l.trim()) ?? 'unknown error';
  const code = (err as { code?: unknown })?.code;
  const withCode = typeof code === 'string' && !first.includes(code) ? `${first} (${code})` : first;
  return scrub(withCode.trim(), secrets);
}

/** Errors that already say what to do and carry their exit status (usage, config, unmigrated). */
export function isUsageError(err: unknown): boolean {
  return err instanceof UsageError;
}
