import { EXIT } from '../runtime/exit-codes.ts';

/** The database lacks migrations this code needs; nothing was done. */
export class NotMigratedError extends Error {
  /** Read by the CLI's main(): an unmigrated database is a usage problem, not a failed run. */
  readonly exitCode = EXIT.USAGE;
  constructor(
    readonly schema: string,
    readonly pending: readonly string[],
  ) {
    super(
      `The database schema "${schema}" is not migrated (${pending.length} pending: ${pending.join(', ')}); run \`payrecon migrate\` first.`,
    );
    this.name = 'NotMigratedError';
  }
}
