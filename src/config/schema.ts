import { isIP } from 'node:net';
import { z } from 'zod';
import { IANAZone } from 'luxon';
import { CURRENCIES } from '../money/decimal.ts';
import { cronSetting } from './cron-setting.ts';
import { MISMATCH_CODES } from '../domain/verdicts.ts';
import { JOURNAL_SETTINGS } from './journal-settings.ts';
import { bool } from './bool.ts';
import { accountsFile } from './accounts-file.ts';

const intIn = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `expected a whole number from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `expected at least ${min}`).max(max, `expected at most ${max}`))
    .describe(`whole number, ${min} to ${max}`);

/**
 * A URL with "scheme://" and a host. `new URL` alone also takes `postgres:u:pw@h/d` (an opaque path,
 * which the driver then reads as localhost), so the "//" and the host are checked here.
 */
const url = (protocols: string[], example: string) =>
  z
    .string()
    .trim()
    .refine(
      (v) => {
        try {
          const u = new URL(v);
          return protocols.includes(u.protocol) && v.slice(u.protocol.length).startsWith('//') && u.hostname !== '';
        } catch {
          return false;
        }
      },
      `expected a URL such as ${example} (starting with ${protocols.map((p) => `${p}//`).join(' or ')})`,
    )
    .describe(`URL (${protocols.map((p) => `${p}//…`).join(' or ')})`);

const email = z
  .string()
  .trim()
  .regex(/^[^\s@,]+@[^\s@,]+$/, 'expected an e-mail address such as finance@example.com')
  .describe('e-mail address');
const emailList = z
  .string()
  .trim()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(email).min(1, 'expected one or more comma-separated e-mail addresses'))
  .describe('e-mail addresses, comma-separated');

const currencyList = z
  .string()
  .trim()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(CURRENCIES, { message: `expected a comma-separated list of ${CURRENCIES.join(', ')}` })).min(1))
  .describe(`currencies, comma-separated (${CURRENCIES.join(', ')})`);

/** "INR=0.01,NGN=1": absolute tolerance per currency in the currency's units. */
const tolerances = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const out: Record<string, string> = {};
    for (const part of v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const m = /^([A-Z]{3})=(\d+(\.\d+)?)$/.exec(part.toUpperCase());
      if (!m || !(CURRENCIES as readonly string[]).includes(m[1])) {
        ctx.addIssue({ code: 'custom', message: `expected CUR=amount pairs such as "INR=0.01,NGN=1" (got "${part}")` });
        return z.NEVER;
      }
      out[m[1]] = m[2];
    }
    return out;
  })
  .describe('CUR=amount pairs, comma-separated');

/** "FEE=48,STATUS=24,default=72": hours a case of a code may stay unresolved before it breaches its SLA. */
const slaHours = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const out: Record<string, number> = {};
    for (const part of v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const m = /^([A-Za-z_]{2,32})=(\d{1,5})$/.exec(part);
      const code = m?.[1].toLowerCase() === 'default' ? 'default' : m?.[1].toUpperCase();
      if (!m || !code || (code !== 'default' && !(MISMATCH_CODES as readonly string[]).includes(code)) || Number(m[2]) === 0) {
        ctx.addIssue({
          code: 'custom',
          message: `expected CODE=hours pairs such as "FEE=48,STATUS=24,default=72", CODE one of ${MISMATCH_CODES.join(', ')} or default, hours a whole number above 0 (got "${part}")`,
        });
        return z.NEVER;
      }
      out[code] = Number(m[2]);
    }
    return out;
  })
  .describe('CODE=hours pairs, comma-separated');

/** "5m,15m,1h,6h,24h": a schedule of delays (s, m, h or d), each > 0. */
const durationList = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const unit: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
    const out: number[] = [];
    for (const part of v.split(',').map((x) => x.trim())) {
      const m = /^(\d+)([smhd])$/.exec(part);
      if (!m || Number(m[1]) === 0) {
        ctx.addIssue({ code: 'custom', message: `expected delays such as "5m,15m,1h,6h,24h" (s, m, h or d; got "${part}")` });
        return z.NEVER;
      }
      out.push(Number(m[1]) * unit[m[2]]);
    }
    return out;
  })
  .describe('delays (s, m, h or d), comma-separated');

/** "1h", "20m" or "0": one delay (s, m, h or d), 0 meaning none; empty: the setting's documented default (null). */
const delay = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const unit: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
    if (v === '') return null;
    if (v === '0') return 0;
    const m = /^(\d+)([smhd])$/.exec(v);
    if (!m) {
      ctx.addIssue({ code: 'custom', message: `expected a delay such as "1h", "20m" or "0" (s, m, h or d; got "${v}")` });
      return z.NEVER;
    }
    return Number(m[1]) * unit[m[2]];
  })
  .describe('a delay (s, m, h or d), or 0');

/** "Paid=success,Expired=failed": extra provider status strings and their category. */
const statusMap = z
  .string()
  .trim()
  .transform((v, ctx) => {
    const out: Record<string, 'pending' | 'success' | 'failed' | 'unknown'> = {};
    for (const part of v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const m = /^([^=]+)=(pending|success|failed|unknown)$/i.exec(part);
      if (!m) {
        ctx.addIssue({
          code: 'custom',
          message: `expected Status=category pairs, category one of pending, success, failed, unknown (got "${part}")`,
        });
        return z.NEVER;
      }
      out[m[1].trim()] = m[2].toLowerCase() as 'pending';
    }
    return out;
  })
  .describe('Status=category pairs, comma-separated');

const timezone = z
  .string()
  .trim()
  .refine((v) => IANAZone.isValidZone(v), 'expected an IANA time zone such as Asia/Kolkata or UTC')
  .describe('IANA time zone');

const signature = z
  .string()
  .trim()
  .regex(/^(hmac-sha256|md5-sorted|module:.+)$/, 'expected hmac-sha256, md5-sorted, or module:<path to a signing module>')
  .describe('hmac-sha256, md5-sorted or module:PATH');

const text = z.string().trim().min(1, 'expected a non-empty value').describe('text');

/** Every environment variable payrecon reads: name, parser, default, and whether it is secret. */
export const ENV_VARS = {
  DATABASE_URL: {
    schema: url(['postgres:', 'postgresql:'], 'postgres://user:password@host:5432/db'),
    secret: false,
    doc: 'Postgres connection URL; unset: embedded PGlite under PGLITE_DIR',
  },
  DATABASE_QUERY_TIMEOUT_MS: {
    schema: intIn(100, 86_400_000),
    default: '600000',
    secret: false,
    doc: 'a Postgres query unanswered this long fails instead of waiting forever (a network partition sends no RST); connections also use TCP keepalive',
  },
  DATABASE_SCHEMA: {
    schema: z
      .string()
      .trim()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a lower-case SQL identifier such as payrecon')
      .describe('SQL identifier (lower case)'),
    default: 'payrecon',
    secret: false,
    doc: 'schema that holds payrecon tables',
  },
  PGLITE_DIR: {
    schema: text,
    default: '.data/pglite',
    secret: false,
    doc: 'directory of the embedded database when `DATABASE_URL` is unset; one process at a time (a `payrecon.lock` file holding the pid), a second one exits 3 naming the directory: set `DATABASE_URL` to run several processes',
  },
  PGLITE_IN_PRODUCTION: {
    schema: bool,
    default: 'false',
    secret: false,
    doc: 'with `NODE_ENV=production` (the Docker image) an unset `DATABASE_URL` is refused, since the embedded database serves one process at a time; `true` allows it anyway',
  },
  ACCOUNTS_FILE: {
    schema: accountsFile,
    default: '',
    secret: false,
    doc: 'JSON file of the provider accounts this deployment serves (id, displayName, baseUrl, merchantId, secret from `{"env": NAME}` or `{"file": PATH}`, currencies, reportRecipients, journalAccounts, rateLimitPerSec); a key left out takes the matching variable; unset: the PROVIDER_* variables define the one account `default` (docs/guides/accounts.md); checked at start, each problem naming the account and key',
  },
  PROVIDER_BASE_URL: {
    schema: url(['http:', 'https:'], 'https://provider.example.com'),
    secret: false,
    doc: 'provider base URL without `/v1/api`, e.g. `https://api.provider.example`; the demo starts the sandbox',
  },
  PROVIDER_MERCHANT_ID: { schema: text, default: 'demo-merchant', secret: false, doc: 'MerchantID header' },
  PROVIDER_SECRET: { schema: text, default: 'demo-secret', secret: true, doc: 'signing key shared with the provider' },
  PROVIDER_SIGNATURE: {
    schema: signature,
    default: 'hmac-sha256',
    secret: false,
    doc: 'signing scheme: `hmac-sha256`, `md5-sorted`, or `module:./my-scheme.mjs`',
  },
  PROVIDER_TIMEOUT_MS: { schema: intIn(100, 300_000), default: '15000', secret: false, doc: 'per-request timeout' },
  PROVIDER_MAX_RETRIES: {
    schema: intIn(0, 10),
    default: '3',
    secret: false,
    doc: 'retries for network errors, timeouts and 5xx (exponential backoff, full jitter, `Retry-After` honoured); a 429 is waited out instead (it does not count, for up to 10 minutes per call, and at most `PROVIDER_MAX_THROTTLED_MS` of the provider refusing everything) while the client lowers its calls in flight',
  },
  PROVIDER_MAX_THROTTLED_MS: {
    schema: intIn(1_000, 3_600_000),
    default: '300000',
    secret: false,
    doc: 'how long the provider may answer nothing but 429 before calls stop waiting; the run then ends provider_unavailable',
  },
  PROVIDER_RATE_LIMIT: {
    schema: intIn(0, 100_000),
    default: '0',
    secret: false,
    doc: "the provider account's requests per second, shared by every payrecon process on the same Postgres (docs/concepts/provider-budget.md); 0 = no cap",
  },
  PROVIDER_STATUS_MAP: {
    schema: statusMap,
    default: '',
    secret: false,
    doc: 'extra status strings and their category, e.g. `Paid=success,Expired=failed`',
  },
  RECON_CONCURRENCY: {
    schema: intIn(1, 1024),
    default: '16',
    secret: false,
    doc: 'provider fetches in flight at once (also sizes the keep-alive pool)',
  },
  RECON_LOOKBACK_DAYS: {
    schema: intIn(1, 3650),
    default: '30',
    secret: false,
    doc: 'the default run looks at orders created within this many days',
  },
  RECON_FINAL_RECHECK_DAYS: {
    schema: intIn(0, 3650),
    default: '7',
    secret: false,
    doc: 'the default run also re-checks each final order of the lookback window once every this many days, so a late reversal or fee correction is seen (`STATUS`/`FEE` mismatch); costs about lookback ÷ N extra fetches per order (30 ÷ 7 ≈ 4); `0` = never',
  },
  RECON_BACKOFF_PAYMENT: {
    schema: durationList,
    default: '30m,2h,6h,24h',
    secret: false,
    doc: 'delays before each re-check of an open pay-in (`s`, `m`, `h`, `d`; the last repeats): shorter = seen final sooner, more provider requests (docs/concepts/provider-budget.md)',
  },
  RECON_BACKOFF_PAYOUT: {
    schema: durationList,
    default: '45m,2h,6h,24h',
    secret: false,
    doc: 'delays before each re-check of an open payout (the last repeats)',
  },
  RECON_FIRST_CHECK_PAYMENT: {
    schema: delay,
    default: '',
    secret: false,
    doc: 'the due sweep fetches a never-checked pay-in once it is this old; 0 = at once; default 1h with WEBHOOK_EXPECTED=true (the notification and its confirming fetch nearly always come first), else 0',
  },
  RECON_FIRST_CHECK_PAYOUT: {
    schema: delay,
    default: '20m',
    secret: false,
    doc: 'the due sweep fetches a never-checked payout once it is this old; 0 = at once',
  },
  RECON_BATCH_SIZE: {
    schema: intIn(1, 10_000),
    default: '500',
    secret: false,
    doc: 'orders read and results written per batch (one transaction, one checkpoint)',
  },
  RUN_STALL_AFTER_SECONDS: {
    schema: intIn(60, 604_800),
    default: '900',
    secret: false,
    doc: "a running reconcile with no batch written for longer is stalled: `status` shows it, a `run_stalled` alert is raised, and a later `reconcile` finding the lock held exits 2 naming it (60 to 604800; keep it well above one batch's time)",
  },
  RECON_TOLERANCE: {
    schema: tolerances,
    default: '',
    secret: false,
    doc: 'absolute tolerance per currency, e.g. "INR=0.01"; default exact',
  },
  RECON_CURRENCIES: { schema: currencyList, default: 'INR,NGN,IDR', secret: false, doc: 'currencies snapshotted and reported' },
  MOVEMENT_LAG_MIN: {
    schema: intIn(0, 1_440),
    default: '10',
    secret: false,
    doc: 'a recorded top-up, withdrawal or adjustment may reach the provider balance this many minutes either side of its recorded moment; one that close to a snapshot is a timing item of the roll-forward (0 to 1440)',
  },
  BANK_CHARGE_TOLERANCE: {
    schema: tolerances,
    default: '',
    secret: false,
    doc: 'bank charges allowed between a bank statement line and the movement it settles, per currency, e.g. "INR=50,NGN=100" (the difference is shown); default exact',
  },
  MOVEMENT_SETTLE_HOURS: {
    schema: intIn(1, 8_760),
    default: '72',
    secret: false,
    doc: 'a bank top-up or withdrawal with no bank statement line this many hours after its moment is MOVEMENT_UNSETTLED (checked at each `statements import`)',
  },
  STATEMENT_MAX_MB: {
    schema: intIn(1, 2_048),
    default: '50',
    secret: false,
    doc: 'a bank statement file larger than this many MiB is refused as soon as the limit is crossed, without reading the rest',
  },
  RATE_STALE_AFTER_MIN: {
    schema: intIn(1, 525_600),
    default: '360',
    secret: false,
    doc: 'a USDT rate unchanged for longer than this many minutes is flagged RATE_STALE',
  },
  RATE_JUMP_PERCENT: {
    schema: z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, 'expected a percentage such as 5 or 2.5')
      .describe('percentage'),
    default: '5',
    secret: false,
    doc: 'a USDT rate moving more than this percent between snapshots is flagged RATE_JUMP',
  },
  REPORT_DIR: { schema: text, default: 'reports', secret: false, doc: 'where `<date>/vN/` report versions are written' },
  REPORT_TIMEZONE: {
    schema: timezone,
    default: 'UTC',
    secret: false,
    doc: "the merchant's business-day time zone (IANA), e.g. `Asia/Kolkata`",
  },
  SMTP_URL: {
    schema: url(['smtp:', 'smtps:'], 'smtp://user:password@mail:587'),
    secret: true,
    doc: 'SMTP server, e.g. smtp://user:pass@mail:587',
  },
  REPORT_EMAIL_FROM: { schema: email, default: 'payrecon@localhost', secret: false, doc: 'sender of report e-mails' },
  REPORT_EMAIL_TO: { schema: emailList, secret: false, doc: 'comma-separated recipients of report e-mails' },
  ALERT_WEBHOOK_URL: {
    schema: url(['http:', 'https:'], 'https://hooks.slack.com/services/…'),
    secret: true,
    doc: 'Slack-compatible incoming webhook for alerts',
  },
  ALERT_EMAIL_TO: { schema: emailList, secret: false, doc: 'comma-separated recipients of alerts' },
  ALERT_REPEAT_AFTER_MS: {
    schema: intIn(0, 31_536_000_000),
    default: '86400000',
    secret: false,
    doc: 'an unchanged finding is alerted again only after this long; alerts undelivered this long, or raised with no channel configured, are sent as one summary',
  },
  NOTIFY_TIMEOUT_MS: {
    schema: intIn(100, 300_000),
    default: '15000',
    secret: false,
    doc: 'timeout for SMTP connections and alert webhook requests',
  },
  WEBHOOK_PORT: {
    schema: intIn(0, 65535),
    default: '8080',
    secret: false,
    doc: 'port of `payrecon webhook serve` (POST /webhooks/payment, /webhooks/payout)',
  },
  WEBHOOK_TIMESTAMP_WINDOW_SEC: {
    schema: intIn(30, 86_400),
    default: '900',
    secret: false,
    doc: "accepted age of a webhook Timestamp (covers the provider's 10 retries even if they reuse the first Timestamp)",
  },
  WEBHOOK_MAX_BODY_BYTES: {
    schema: intIn(1024, 10_485_760),
    default: '65536',
    secret: false,
    doc: 'larger webhook bodies are refused (413)',
  },
  WEBHOOK_CONFIRM_CONCURRENCY: { schema: intIn(1, 256), default: '8', secret: false, doc: 'confirmation fetches in flight at once' },
  WEBHOOK_MISSING_MARGIN_MIN: {
    schema: intIn(0, 10_080),
    default: '5',
    secret: false,
    doc: "WEBHOOK_MISSING only after the provider's ~10 min of retries plus this margin",
  },
  WEBHOOK_EXPECTED: {
    schema: bool,
    default: 'false',
    secret: false,
    doc: 'the merchant runs the webhook receiver, so a final payment with no notification is WEBHOOK_MISSING',
  },
  SCHEDULE_RECONCILE: {
    schema: cronSetting,
    default: '*/15 * * * *',
    secret: false,
    doc: '`payrecon schedule`: reconcile of due orders; 5-field cron in `REPORT_TIMEZONE`, or `off`',
  },
  SNAPSHOT_OPEN_CHECK: {
    schema: z.enum(['due', 'all', 'off']),
    default: 'due',
    secret: false,
    doc: 'open orders the snapshot fetches around its balance readings: due = those due within 15 minutes, all = every open order (fewer timing items, one request per open order per snapshot), off = none',
  },
  SCHEDULE_SNAPSHOT: {
    schema: cronSetting,
    default: '0 * * * *',
    secret: false,
    doc: '`payrecon schedule`: balance and rate snapshot (cron, or off)',
  },
  SCHEDULE_BANK_CODES: {
    schema: cronSetting,
    default: '30 2 * * *',
    secret: false,
    doc: '`payrecon schedule`: bank code sync (cron, or off)',
  },
  SCHEDULE_DAILY: {
    schema: cronSetting,
    default: '0 6 * * *',
    secret: false,
    doc: '`payrecon schedule`: full reconcile of yesterday, then its report (e-mailed when SMTP_URL and REPORT_EMAIL_TO are set) (cron, or off)',
  },
  SCHEDULE_PRUNE: {
    schema: cronSetting,
    default: '0 4 * * 0',
    secret: false,
    doc: '`payrecon schedule`: prune of what RETENTION_DAYS no longer keeps, weekly by default (cron, or off)',
  },
  RETENTION_DAYS: {
    // At least 40: the scheduler's catch-up reads the last 35 days of job runs.
    schema: intIn(0, 36_500).refine((v) => v === 0 || v >= 40, 'expected 0 (keep everything) or at least 40 days'),
    default: '400',
    secret: false,
    doc: '`payrecon prune`: history older than this many days is removed (what an open case, an unresolved alert or a recorded report version needs is kept; see docs/operations/retention.md); 0 keeps everything, otherwise at least 40',
  },
  PRUNE_ARCHIVE_DIR: {
    schema: text,
    secret: false,
    doc: '`payrecon prune`: write each removed row (gzip JSON lines, one file per table and month) and report version (one zip each) here first; unset: no archive',
  },
  PRUNE_BATCH_SIZE: {
    schema: intIn(100, 100_000),
    default: '5000',
    secret: false,
    doc: '`payrecon prune`: rows per delete statement, each its own short transaction',
  },
  SCHEDULE_SHUTDOWN_TIMEOUT_MS: {
    schema: intIn(0, 3_600_000),
    default: '30000',
    secret: false,
    doc: '`payrecon schedule`: on SIGTERM/SIGINT, how long running jobs get to finish or checkpoint',
  },
  SCHEDULE_MODE: {
    schema: z.enum(['inprocess', 'queue'], { message: 'expected inprocess or queue' }),
    default: 'inprocess',
    secret: false,
    doc: '`payrecon schedule`: `inprocess` runs every job in the scheduler (the default; the embedded database allows nothing else); `queue` (Postgres only) enqueues them for `payrecon worker` processes (docs/operations/workers.md)',
  },
  WORKER_CONCURRENCY: {
    schema: intIn(1, 64),
    default: '2',
    secret: false,
    doc: '`payrecon worker`: jobs (reconcile batches, snapshots, reports, prunes) one worker process runs at once',
  },
  WORKER_LOCK_TIMEOUT_SECONDS: {
    schema: intIn(2, 86_400),
    default: '60',
    secret: false,
    doc: '`payrecon worker`: a worker process silent this long is presumed dead and the jobs it held run again on another worker; it beats every quarter of this',
  },
  SCHEDULE_HTTP_PORT: {
    schema: intIn(0, 65535),
    secret: false,
    doc: '`payrecon schedule`: port of `/healthz`, `/readyz` and `/metrics`; unset: not served (docs/operations/running-in-production.md)',
  },
  SCHEDULE_HTTP_HOST: {
    schema: text,
    default: '127.0.0.1',
    secret: false,
    doc: '`payrecon schedule`: address the health and metrics port binds to',
  },
  WEBHOOK_METRICS_PORT: {
    schema: intIn(0, 65535),
    secret: false,
    doc: '`payrecon webhook serve`: port of /healthz, /readyz and /metrics, never the public webhook port (unset: not served)',
  },
  CONSOLE_METRICS_PORT: {
    schema: intIn(0, 65535),
    secret: false,
    doc: '`payrecon console`: port of /healthz, /readyz and /metrics, never the console port (unset: not served)',
  },
  METRICS_HOST: {
    schema: text,
    default: '127.0.0.1',
    secret: false,
    doc: 'address WEBHOOK_METRICS_PORT and CONSOLE_METRICS_PORT bind to',
  },
  PAYRECON_ACTOR: {
    schema: z
      .string()
      .trim()
      .regex(/^[^\x00-\x1f\x7f]{1,100}$/, 'expected a name of up to 100 printable characters, such as asha@finance')
      .describe('name, up to 100 printable characters'),
    secret: false,
    doc: '`payrecon cases ack|resolve`: who acts, when `--as` is not given (default: the OS user)',
  },
  CASE_SLA_HOURS: {
    schema: slaHours,
    default: 'default=72',
    secret: false,
    doc: 'hours a case may stay unresolved per code before the queue marks it as breaching its SLA, e.g. FEE=48,STATUS=24,default=72 (codes not listed take default)',
  },
  CONSOLE_HOST: {
    schema: text,
    default: '127.0.0.1',
    secret: false,
    doc: '`payrecon console`: address to listen on (loopback by default; put a TLS proxy in front for other machines)',
  },
  CONSOLE_PORT: { schema: intIn(0, 65535), default: '8090', secret: false, doc: '`payrecon console`: port to listen on' },
  CONSOLE_IDLE_TIMEOUT_MIN: {
    schema: intIn(1, 10_080),
    default: '30',
    secret: false,
    doc: 'a console session unused for this many minutes ends',
  },
  CONSOLE_ABSOLUTE_TIMEOUT_MIN: {
    schema: intIn(1, 43_200),
    default: '720',
    secret: false,
    doc: 'a console session ends this many minutes after login, however active',
  },
  CONSOLE_LOGIN_MAX_FAILURES: {
    schema: intIn(1, 1000),
    default: '5',
    secret: false,
    doc: 'failed logins per user name, and per address, allowed within CONSOLE_LOGIN_WINDOW_MIN',
  },
  CONSOLE_LOGIN_WINDOW_MIN: { schema: intIn(1, 1440), default: '15', secret: false, doc: 'window of the login throttle (minutes)' },
  CONSOLE_PUBLIC_URL: {
    schema: url(['http:', 'https:'], 'https://recon.example.com'),
    secret: false,
    doc: "the console's address as browsers reach it, such as https://recon.example.com; https makes its cookies Secure (set it behind a TLS-terminating proxy); unset: Secure only on a request that came over https",
  },
  CONSOLE_TRUSTED_PROXY: {
    schema: z
      .string()
      .trim()
      .refine((v) => isIP(v) !== 0, 'expected the IP address of the proxy, such as 10.0.0.5')
      .describe('IP address'),
    secret: false,
    doc: 'address of an identity-aware proxy in front of the console; unset (default): no proxy is trusted',
  },
  CONSOLE_PROXY_USER_HEADER: {
    schema: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9-]{1,64}$/, 'expected an HTTP header name such as X-Forwarded-User')
      .describe('HTTP header name'),
    secret: false,
    doc: 'with CONSOLE_TRUSTED_PROXY: the header naming the signed-in console user (single sign-on)',
  },
  LOG_LEVEL: {
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'expected one of fatal, error, warn, info, debug, trace, silent',
    }),
    secret: false,
    doc: 'log level; unset: `warn` on a terminal, `info` otherwise',
  },
  LOG_FORMAT: {
    schema: z.enum(['auto', 'json', 'text'], { message: 'expected auto, json or text' }),
    default: 'auto',
    secret: false,
    doc: 'logs on stderr: `text` for a person, `json` lines for a collector; `auto` is text on a terminal and JSON otherwise',
  },
  ...JOURNAL_SETTINGS,
} as const satisfies Record<string, { schema: z.ZodType; default?: string; secret: boolean; doc: string }>;

export type EnvVarName = keyof typeof ENV_VARS;
