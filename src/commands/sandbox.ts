import { printOut } from '../log/terminal.ts';
import { InvalidArgumentError, type Command } from 'commander';
import { loadConfig, readEnv } from '../config/config.ts';
import type { AdoptResult } from '../sandbox/adopt-csv.ts';
import { createStatusMapper } from '../domain/status.ts';
import type { Direction } from '../domain/types.ts';
import fs from 'node:fs';
import { envHelp, examplesHelp } from './env-help.ts';
import { UsageError } from '../domain/errors.ts';
import { configuredAccounts } from '../config/accounts.ts';

const int =
  (min: number, max: number) =>
  (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    return Number(value);
  };

const httpUrl = (value: string): string => {
  if (!/^https?:\/\/\S+$/.test(value)) throw new InvalidArgumentError('expected an http:// or https:// URL');
  return value;
};

interface SandboxMerchant {
  id: string;
  secret: string;
  rateLimitPerSec?: number;
}

/** `--merchant ID:SECRET[:RATE]`, repeatable: one more MerchantID served, with its own secret and rate limit. */
const merchantFlag = (value: string, previous: SandboxMerchant[] = []): SandboxMerchant[] => {
  const m = /^([^:\s]+):([^:\s]+)(?::(\d+))?$/.exec(value);
  if (!m || (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 1_000_000)))
    throw new InvalidArgumentError('expected ID:SECRET or ID:SECRET:RATE (RATE requests per second, 1 to 1000000)');
  if (previous.some((p) => p.id === m[1])) throw new InvalidArgumentError(`merchant ${m[1]} is given twice`);
  return [...previous, { id: m[1], secret: m[2], ...(m[3] !== undefined ? { rateLimitPerSec: Number(m[3]) } : {}) }];
};

interface SandboxCliOptions {
  merchant?: SandboxMerchant[];
  accounts?: boolean;
  port: number;
  host: string;
  seed: number;
  webhookUrl?: string;
  webhookIntervalMs: number;
  latencyMs: number;
  rateLimit?: number;
  payments?: string;
  payouts?: string;
}

export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('run the provider emulator (all seven operations, webhooks, a control interface)')
    .addHelpText(
      'after',
      examplesHelp([
        'payrecon sandbox --port 4010',
        'payrecon sandbox --port 4010 --latency-ms 50 --webhook-url http://127.0.0.1:8080/webhooks/payment',
        'payrecon sandbox --payments payments.csv --payouts payouts.csv',
        'payrecon sandbox --merchant in-1:secret-in:50 --merchant ng-1:secret-ng:20',
        'ACCOUNTS_FILE=accounts.json payrecon sandbox --accounts',
        'curl -s -XPOST localhost:4010/__control/stats',
      ]),
    )
    .option('--port <n>', 'port to listen on (0 = any free port)', int(0, 65535), 4010)
    .option('--host <address>', 'address to bind', '127.0.0.1')
    .option('--seed <n>', 'seed of order outcomes, references and rates', int(0, 2 ** 32 - 1), 1)
    .option('--webhook-url <url>', 'where payment webhooks are POSTed (none if unset)', httpUrl)
    .option('--webhook-interval-ms <n>', 'webhook retry interval', int(10, 3_600_000), 60_000)
    .option('--latency-ms <n>', 'latency added to every provider request', int(0, 600_000), 0)
    .option('--payments <file>', 'adopt a payment CSV (the format `payrecon import --kind payment` reads) as orders the provider knows')
    .option('--payouts <file>', 'adopt a payout CSV (the format `payrecon import --kind payout` reads) as orders the provider knows')
    .option('--rate-limit <n>', 'answer 429 with Retry-After above this many requests per second per merchant', int(1, 1_000_000))
    .option(
      '--merchant <id:secret[:rate]>',
      'serve this MerchantID (repeatable), signing with its secret, limited to its own rate if given',
      merchantFlag,
    )
    .option('--accounts', "serve every account of ACCOUNTS_FILE: its MerchantID and secret, its rateLimitPerSec as the provider's limit")
    .addHelpText(
      'after',
      `${envHelp(['PROVIDER_MERCHANT_ID', 'PROVIDER_SECRET', 'PROVIDER_SIGNATURE', 'ACCOUNTS_FILE', 'LOG_LEVEL'])}
The sandbox accepts the merchant PROVIDER_MERCHANT_ID signing with PROVIDER_SECRET (demo-merchant / demo-secret
when unset); with --merchant or --accounts, those merchants instead, each with its own orders, balances, secret and
rate limit (--rate-limit for those without one). --payments/--payouts adopt into the first merchant. Provider operations are under <url>/v1/api; the control interface (no authentication) under
<url>/__control/: order/get, order/set, order/delete, fault/add, fault/clear, fault/list, latency, balance/adjust,
clock/advance, reset, bulk-seed, stats, rate-limit, webhook-url, bank/set, bank/remove. Stops on SIGINT or SIGTERM.`,
    )
    .action(async (opts: SandboxCliOptions) => {
      const config = loadConfig(readEnv());
      const adoptFiles = (['payment', 'payout'] as const)
        .map((kind) => ({ kind, file: kind === 'payment' ? opts.payments : opts.payouts }))
        .filter((f): f is { kind: Direction; file: string } => f.file !== undefined);
      // Checked before listening, so a wrong path is bad input (exit 3) and no half-loaded sandbox serves.
      for (const { file } of adoptFiles) {
        if (!fs.existsSync(file)) throw new UsageError(`${file}: no such file`);
      }
      const [{ createLogger }, { secretValues }, { loadSigningScheme }, { startSandbox }, { adoptOrderCsv }] = await Promise.all([
        import('../log/logger.ts'),
        import('../config/redact.ts'),
        import('../provider/signing.ts'),
        import('../sandbox/server.ts'),
        import('../sandbox/adopt-csv.ts'),
      ]);
      const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT, secrets: secretValues(config) });
      const merchants = sandboxMerchants(opts, config.PROVIDER_MERCHANT_ID, config.PROVIDER_SECRET, () =>
        configuredAccounts(config).map((a) => ({
          id: a.merchantId,
          secret: a.secret,
          ...(a.rateLimitPerSec > 0 ? { rateLimitPerSec: a.rateLimitPerSec } : {}),
        })),
      );
      const sandbox = await startSandbox({
        port: opts.port,
        host: opts.host,
        seed: opts.seed,
        merchants,
        signature: await loadSigningScheme(config.PROVIDER_SIGNATURE),
        webhookUrl: opts.webhookUrl,
        webhookIntervalMs: opts.webhookIntervalMs,
        latencyMs: opts.latencyMs,
        rateLimitPerSec: opts.rateLimit ?? null,
        logger,
        // Adopting a large CSV takes seconds: until it is done the sandbox answers 503, not NOT_FOUND.
        loading: adoptFiles.length > 0,
      });
      try {
        for (const { kind, file } of adoptFiles) {
          const statusOf = createStatusMapper(config.PROVIDER_STATUS_MAP);
          printOut(describeAdopted(await adoptOrderCsv(sandbox.state, merchants[0].id, file, { kind, statusOf })));
        }
      } catch (err) {
        await sandbox.close();
        throw err;
      }
      sandbox.ready();
      // One line for people and scripts; the secret is never printed.
      printOut(
        `payrecon sandbox listening on ${sandbox.url} (API ${sandbox.url}/v1/api, control ${sandbox.url}/__control) ${merchants.length === 1 ? 'merchant' : 'merchants'} ${merchants.map((m) => m.id).join(', ')}\n`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      await sandbox.close();
    });
}

/** The merchants served: --merchant's, or ACCOUNTS_FILE's with --accounts, else the one of PROVIDER_MERCHANT_ID. */
function sandboxMerchants(
  opts: SandboxCliOptions,
  merchantId: string,
  secret: string,
  fromAccounts: () => SandboxMerchant[],
): SandboxMerchant[] {
  if (opts.accounts && opts.merchant) throw new UsageError('--accounts and --merchant: give one or the other');
  if (opts.accounts) return fromAccounts();
  return opts.merchant ?? [{ id: merchantId, secret }];
}

function describeAdopted(r: AdoptResult): string {
  const summary = `${r.file}: ${r.rows} ${r.kind} rows read, ${r.adopted} adopted, ${r.rejected.length} rejected\n`;
  return summary + r.rejected.map((x) => `  line ${x.line}: ${x.reason}\n`).join('');
}
