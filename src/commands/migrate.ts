import type { Command } from 'commander';
import { loadConfig, type Config } from '../config/config.ts';
import type { MigrateResult } from '../db/migrate.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';

export interface MigrateCommandOptions {
  json?: boolean;
}

/** Applies pending migrations and prints them; the only command allowed on an unmigrated database. */
export async function runMigrate(
  opts: MigrateCommandOptions,
  config: Config = loadConfig(),
  out: NodeJS.WritableStream = process.stdout,
): Promise<MigrateResult> {
  const [{ withJob }, { migrate }] = await Promise.all([import('../runtime/with-job.ts'), import('../db/migrate.ts')]);
  return withJob('migrate', { config, requireMigrated: false }, async ({ db }) => {
    const result = await migrate(db);
    if (opts.json) out.write(`${JSON.stringify({ schema: db.schema, engine: db.engine.name, ...result })}\n`);
    else if (result.applied.length === 0) out.write(`schema ${db.schema}: up to date\n`);
    else out.write(`schema ${db.schema}: applied ${result.applied.length}\n${result.applied.map((m) => `  ${m}\n`).join('')}`);
    return result;
  });
}

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('create the schema and apply pending sql/ migrations (safe when several run at once)')
    .addHelpText('after', examplesHelp(['payrecon migrate', 'DATABASE_URL=postgres://app@db/merchant payrecon migrate --json']))
    .option('--json', 'print {schema, engine, applied} as JSON')
    .addHelpText('after', envHelp(DB_ENV))
    .action(async (opts: MigrateCommandOptions) => {
      await runMigrate(opts);
    });
}
