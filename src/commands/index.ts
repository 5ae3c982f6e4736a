import type { Command } from 'commander';
import { registerSandbox } from './sandbox.ts';
import { registerReport } from './report.ts';
import { registerReconcile } from './reconcile.ts';

/** Every subcommand, in the order --help lists them. One line per command file. */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerSandbox,
  registerReconcile,
  registerReport,
];
