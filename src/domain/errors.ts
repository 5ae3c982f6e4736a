import { EXIT } from './exit-codes.ts';

/**
 * An error that ends a command with a known exit status. The CLI and the job entries read the status
 * from this one type (printFailure); anything else that escapes is an incomplete run (exit 2).
 */
export class ExitStatusError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input (arguments, configuration, an unmigrated database): it says what to fix, nothing was done (exit 3). */
export class UsageError extends ExitStatusError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, EXIT.USAGE, options);
  }
}

/**
 * What was thrown, as an Error: a catch clause receives `unknown`, and a library (or a test's fake) may
 * throw a string or a plain object. Use this (or messageOf) instead of an `as Error` cast, which reads
 * `undefined` from such a throw; the lint forbids the cast in src/.
 */
export function errorOf(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}

/** The message of what was thrown (see errorOf). */
export function messageOf(thrown: unknown): string {
  return errorOf(thrown).message;
}
