import { printOut } from '../log/terminal.ts';
import { InvalidArgumentError, type Command } from 'commander';
import { withJob } from '../runtime/with-job.ts';
import { untilAborted } from '../runtime/until-aborted.ts';
import { dayJobs } from '../services/day-jobs.ts';
import { DB_ENV, PROVIDER_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { PayreconMetrics } from '../metrics/metrics.ts';
import { serveOps } from '../metrics/serve-ops.ts';

const port = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535');
  return Number(value);
};

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
${envHelp([...DB_ENV, ...PROVIDER_ENV, 'REPORT_DIR', 'REPORT_TIMEZONE', 'CONSOLE_HOST', 'CONSOLE_PORT', 'CONSOLE_IDLE_TIMEOUT_MIN', 'CONSOLE_ABSOLUTE_TIMEOUT_MIN', 'CONSOLE_LOGIN_MAX_FAILURES', 'CONSOLE_LOGIN_WINDOW_MIN', 'CONSOLE_TRUSTED_PROXY', 'CONSOLE_PROXY_USER_HEADER', 'CONSOLE_METRICS_PORT', 'METRICS_HOST'])}`,
    )
    .action(async (opts: { port?: number }) => {
      // A rerun's two steps run in this process with its pool: reconcile --date, then report --date (not e-mailed).
      const metrics = new PayreconMetrics();
      await withJob('console', { stoppable: true, metrics }, async ({ config, db, logger, signal }) => {
        // Loaded here: the web server (fastify and its plugins) is about 20 MB no other command needs.
        const { serveConsole } = await import('../console/serve.ts');
        const running = await serveConsole({ db, config, logger, port: opts.port, ...dayJobs({ config, logger, db, metrics }) });
        printOut(`payrecon console listening on ${running.url}\n`);
        // Its own port (CONSOLE_METRICS_PORT), never the console's: no session guards /metrics.
        const ops = await serveOps({ db, metrics, logger, host: config.METRICS_HOST, port: config.CONSOLE_METRICS_PORT }).catch(
          async (err: unknown) => {
            await running.close();
            throw err;
          },
        );
        if (ops) printOut(`payrecon console health and metrics on ${ops.url}/metrics\n`);
        await untilAborted(signal);
        await running.close();
        await ops?.close();
      });
      process.exitCode = EXIT.OK;
    });
}
