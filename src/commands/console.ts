import { InvalidArgumentError, type Command } from 'commander';
import { DB_ENV, PROVIDER_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';

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
      // The console's modules (database, metrics, the web server) load only when it runs.
      const { consoleJob } = await import('../services/console.ts');
      await consoleJob(opts);
      process.exitCode = EXIT.OK;
    });
}
