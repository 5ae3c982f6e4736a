import type { Command } from 'commander';
import { registerMigrate } from './migrate.ts';
import { registerImport } from './import.ts';
import { registerSandbox } from './sandbox.ts';
import { registerReport } from './report.ts';
import { registerReconcile } from './reconcile.ts';
import { registerWebhook } from './webhook.ts';

/** Every subcommand, in the order --help lists them. One line per command file. */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerMigrate,
  registerImport,
  registerSandbox,
  registerReconcile,
  registerReport,
  registerWebhook,
];
