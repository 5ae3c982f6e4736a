import { Command, CommanderError } from 'commander';
import { COMMANDS } from './commands/index.ts';
import { EXIT } from './domain/exit-codes.ts';
import { printFailure } from './runtime/print-failure.ts';

export function buildProgram(): Command {
  const program = new Command('payrecon')
    .description("Reconcile a merchant's pay-ins and payouts (INR, NGN, IDR) against its provider, and report to accounting.")
    .version('0.1.0')
    .showSuggestionAfterError()
    // Before the subcommands are added, so they inherit it: bad arguments exit 3, not commander's 1.
    .exitOverride()
    .addHelpText(
      'after',
      `
Exit status: 0 done, 1 mismatches found (with --fail-on-mismatch), 2 run could not complete, 3 bad configuration or arguments.
Quick start: payrecon demo`,
    );
  for (const register of COMMANDS) register(program);
  pointToHelpAfterError(program, []);
  return program;
}

/**
 * After a usage error: the error and commander's suggestion, then one line naming the command's
 * --help. The whole help (60 lines) would scroll the useful line away.
 */
function pointToHelpAfterError(cmd: Command, parents: string[]): void {
  const path = [...parents, cmd.name()];
  cmd.showHelpAfterError(`Run '${path.join(' ')} --help' for the options.`);
  for (const sub of cmd.commands) pointToHelpAfterError(sub, path);
}

/** Entry point for bin/payrecon.mjs: runs one command and sets the exit code. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      process.exitCode = err.exitCode === 0 ? EXIT.OK : EXIT.USAGE;
      return;
    }
    process.exitCode = printFailure(err, { json: argv.includes('--json') });
  }
}
