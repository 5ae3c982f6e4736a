import { InvalidArgumentError, type Command } from 'commander';
import { openJobContext } from '../runtime/job-context.ts';
import { reconcileJob } from '../../jobs/reconcile.ts';
import { reportJob } from '../../jobs/report.ts';
import { serveConsole, type ServeConsoleOptions } from '../console/serve.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.ts';
import { DB_ENV, PROVIDER_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from './exit-codes.ts';

const port = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535');
  return Number(value);
};

/** A rerun's two steps, run in the console's process with its pool: reconcile --date, then report --date (not e-mailed). */
export function dayJobs(ctx: { config: Config; logger: Logger; db: Db }): Pick<ServeConsoleOptions, 'reconcileDay' | 'reportDay'> {
  const { config, logger, db } = ctx;
  return {
    reconcileDay: async (date, stopSignal) => {
      // One try per round: the rerun worker's own loop retries the reconcile lock (lockRetryMs, up to lockWaitMs).
      const { outcome } = await reconcileJob({ date, progress: false, stopSignal, waitMs: 0 }, { config, logger, db });
      return { status: outcome.status, runIds: outcome.runs.map((r) => r.runId), lockHolder: outcome.lockHolder };
    },
    reportDay: async (date) => {
      const { exitCode, report, emails } = await reportJob({ date }, { config, logger, db });
      return { exitCode, version: report.version, unchanged: report.unchanged, emails };
    },
  };
}

export function registerConsole(program: Command): void {
  program
    .command('console')
    .description('the web console for finance: business days and report downloads, cases, reruns, job status')
    .option('--port <n>', 'port to listen on (default CONSOLE_PORT; 0 = any free port)', port)
    .addHelpText(
      'after',
      examplesHelp([
        'payrecon users add alice --role finance --password-stdin < alice.pw',
        'payrecon console                 # http://127.0.0.1:8090',
        'payrecon console --port 9000',
      ]),
    )
    .addHelpText(
      'after',
      `
Listens on CONSOLE_HOST (loopback by default). Every page needs a signed-in user (payrecon users add);
reruns queued in the console run one at a time in this process, never inside a web request.
Stops on SIGINT or SIGTERM (a running rerun stops at its next checkpoint and is resumed by the next reconcile).
${envHelp([...DB_ENV, ...PROVIDER_ENV, 'REPORT_DIR', 'REPORT_TIMEZONE', 'CONSOLE_HOST', 'CONSOLE_PORT', 'CONSOLE_IDLE_TIMEOUT_MIN', 'CONSOLE_ABSOLUTE_TIMEOUT_MIN', 'CONSOLE_LOGIN_MAX_FAILURES', 'CONSOLE_LOGIN_WINDOW_MIN', 'CONSOLE_TRUSTED_PROXY', 'CONSOLE_PROXY_USER_HEADER'])}`,
    )
    .action(async (opts: { port?: number }) => {
      const ctx = await openJobContext('console');
      const { config, db, logger } = ctx;
      const running = await serveConsole({
        db,
        config,
        logger,
        port: opts.port,
        ...dayJobs({ config, logger, db }),
      }).catch(async (err) => {
        await ctx.close();
        throw err;
      });
      process.stdout.write(`payrecon console listening on ${running.url}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await running.close();
      await ctx.close();
      process.exitCode = EXIT.OK;
    });
}
