import { printOut } from '../log/terminal.ts';
import { InvalidArgumentError, type Command } from 'commander';
import { DB_ENV, PROVIDER_ENV, envHelp, examplesHelp } from './env-help.ts';

const port = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new InvalidArgumentError('expected a port from 0 to 65535');
  return Number(value);
};

const WEBHOOK_ENV = [
  'WEBHOOK_PORT',
  'WEBHOOK_TIMESTAMP_WINDOW_SEC',
  'WEBHOOK_MAX_BODY_BYTES',
  'WEBHOOK_CONFIRM_CONCURRENCY',
  'WEBHOOK_METRICS_PORT',
  'METRICS_HOST',
] as const;

export function registerWebhook(program: Command): void {
  const webhook = program
    .command('webhook')
    .description("receive the provider's signed notifications and confirm them by fetch")
    .addHelpText('after', examplesHelp(['payrecon webhook serve --port 8080', 'payrecon webhook confirm-pending --json']));
  webhook
    .command('serve')
    .description('listen for notifications: POST /webhooks/payment and /webhooks/payout')
    .addHelpText(
      'after',
      examplesHelp(['payrecon webhook serve --port 8080', 'WEBHOOK_TIMESTAMP_WINDOW_SEC=600 payrecon webhook serve --host 0.0.0.0']),
    )
    .option('--port <n>', 'port to listen on (default WEBHOOK_PORT; 0 = any free port)', port)
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .addHelpText(
      'after',
      `
Each notification is checked (Signature and Timestamp with PROVIDER_SIGNATURE / PROVIDER_SECRET: 401 wrong or
missing signature, 403 Timestamp outside the window; 413 too large; 400 not JSON or fields missing), stored in
webhook_events (retries of one notification are stored once), answered 200 text/plain SUCCESS, then confirmed by
the matching fetch before any order is updated. Stops on SIGINT or SIGTERM.
${envHelp([...DB_ENV, ...PROVIDER_ENV, ...WEBHOOK_ENV])}`,
    )
    .action(async (opts: { port?: number; host: string }) => {
      const { serveWebhooksJob } = await import('../services/webhook.ts');
      process.exitCode = await serveWebhooksJob({
        port: opts.port,
        host: opts.host,
        onListening: (s) => printOut(`payrecon webhook receiver listening on ${s.url}/webhooks/payment and ${s.url}/webhooks/payout\n`),
        onOpsListening: (s) => printOut(`payrecon webhook health and metrics on ${s.url}/metrics\n`),
      });
    });
  webhook
    .command('confirm-pending')
    .description('confirm by fetch every stored notification still pending (after a crash or a provider outage)')
    .option('--json', 'print the counts as JSON')
    .addHelpText('after', examplesHelp(['payrecon webhook confirm-pending', 'payrecon webhook confirm-pending --json']))
    .addHelpText(
      'after',
      `\nExit: 0 done, 2 some could not be confirmed yet (provider unavailable).\n${envHelp([...DB_ENV, ...PROVIDER_ENV, 'WEBHOOK_CONFIRM_CONCURRENCY'])}`,
    )
    .action(async (opts: { json?: boolean }) => {
      const { confirmPendingJob } = await import('../services/webhook.ts');
      const { exitCode, counts } = await confirmPendingJob();
      printOut(
        opts.json
          ? `${JSON.stringify(counts)}\n`
          : `webhook confirmations: ${Object.entries(counts)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')}\n`,
      );
      process.exitCode = exitCode;
    });
}
