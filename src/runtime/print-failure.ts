import { sanitizeForTerminal } from '../log/terminal.ts';
import { ConfigError } from '../config/errors.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { JobFailedError } from './job-failure.ts';
import { ExitStatusError } from '../domain/errors.ts';

/**
 * How a failed command ends, for the CLI and the job entries alike: one line on stderr (no stack
 * trace), or with --json one object on stdout for the script reading it. Returns the exit status.
 */
export function printFailure(err: unknown, opts: { json: boolean; out?: NodeJS.WritableStream; errOut?: NodeJS.WritableStream }): number {
  // Through the terminal sanitizer: a failure message can carry provider text.
  const out = sanitized(opts.out ?? process.stdout);
  const errOut = sanitized(opts.errOut ?? process.stderr);
  const exitCode = err instanceof ExitStatusError ? err.exitCode : EXIT.INCOMPLETE;
  const message = err instanceof Error ? err.message : String(err);
  if (opts.json) {
    const failure = err instanceof JobFailedError ? { job: err.job, database: err.database, reason: err.reason } : {};
    out.write(`${JSON.stringify({ error: message, exitCode, ...failure })}\n`);
  } else if (err instanceof ConfigError) {
    errOut.write(`${message}\nSee .env.example or 'payrecon <command> --help' for each variable.\n`);
  } else {
    errOut.write(`payrecon: ${message.split('\n')[0]}\n`);
  }
  return exitCode;
}

const sanitized = (stream: NodeJS.WritableStream) => ({ write: (text: string) => stream.write(sanitizeForTerminal(text)) });
