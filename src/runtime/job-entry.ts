import { printFailure } from './print-failure.ts';

/** Runs a job entry of jobs/ and sets the exit status; a failure is one line on stderr, as in the CLI. */
export async function runJobEntry(run: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await run();
  } catch (err) {
    process.exitCode = printFailure(err, { json: false });
  }
}
