import type { Command } from 'commander';
import { registerDemo } from './demo.ts';
import { registerMigrate } from './migrate.ts';
import { registerImport } from './import.ts';
import { registerMovements } from './movements.ts';
import { registerStatements } from './statements.ts';
import { registerSandbox } from './sandbox.ts';
import { registerReport } from './report.ts';
import { registerReconcile } from './reconcile.ts';
import { registerWebhook } from './webhook.ts';
import { registerSnapshot } from './snapshot.ts';
import { registerBanks } from './banks.ts';
import { registerSchedule } from './schedule.ts';
import { registerWorker } from './worker.ts';
import { registerStatus } from './status.ts';
import { registerCases } from './cases.ts';
import { registerConsole } from './console.ts';
import { registerUsers } from './users.ts';
import { registerDoctor } from './doctor.ts';
import { registerPrune } from './prune.ts';
import { registerLedger } from './ledger.ts';
import { registerAccounts } from './accounts.ts';

/** Every subcommand, in the order --help lists them. One line per command file. */
export const COMMANDS: ReadonlyArray<(program: Command) => void> = [
  registerDemo,
  registerMigrate,
  registerAccounts,
  registerImport,
  registerMovements,
  registerStatements,
  registerSandbox,
  registerReconcile,
  registerSnapshot,
  registerBanks,
  registerReport,
  registerLedger,
  registerWebhook,
  registerSchedule,
  registerWorker,
  registerStatus,
  registerCases,
  registerConsole,
  registerUsers,
  registerDoctor,
  registerPrune,
];
