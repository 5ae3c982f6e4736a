/**
 * Wrong values for the configuration variables that test/config.test.ts's table does not cover
 * (ALERT_*, NOTIFY_*, WEBHOOK_*, SCHEDULE_*, RATE_*, RECON_LOOKBACK_DAYS, RECON_BATCH_SIZE, RUN_STALL_AFTER_SECONDS), and a
 * completeness check: every variable payrecon reads has a wrong-value row here or there, or is free text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { problemsOf } from './helpers/config.ts';
import { ENV_VARS } from '../src/config/schema.ts';
import { ROOT } from './helpers/cli.ts';

const TABLE: Array<[string, string, string]> = [
  ['RECON_LOOKBACK_DAYS', '0', 'at least 1'],
  ['RECON_LOOKBACK_DAYS', '30d', 'whole number'],
  ['RECON_FINAL_RECHECK_DAYS', '-1', 'whole number'],
  ['RECON_FINAL_RECHECK_DAYS', '7d', 'whole number'],
  ['RECON_BATCH_SIZE', '0', 'at least 1'],
  ['RECON_BACKOFF_PAYMENT', '5m,soon', 'expected delays such as'],
  ['RECON_BACKOFF_PAYOUT', '0m', 'expected delays such as'],
  ['RECON_FIRST_CHECK_PAYMENT', '1 hour', 'expected a delay such as'],
  ['RECON_FIRST_CHECK_PAYOUT', '-5m', 'expected a delay such as'],
  ['SNAPSHOT_OPEN_CHECK', 'some', 'SNAPSHOT_OPEN_CHECK'],
  ['RECON_BATCH_SIZE', '1000000', 'at most 10000'],
  ['RUN_STALL_AFTER_SECONDS', '30', 'at least 60'],
  ['RUN_STALL_AFTER_SECONDS', '15m', 'whole number'],
  ['RATE_STALE_AFTER_MIN', '0', 'at least 1'],
  ['RATE_STALE_AFTER_MIN', '6h', 'whole number'],
  ['RATE_JUMP_PERCENT', '-5', 'percentage'],
  ['RATE_JUMP_PERCENT', '5%', 'percentage'],
  ['ALERT_EMAIL_TO', 'ops', 'e-mail address'],
  ['ALERT_REPEAT_AFTER_MS', 'soon', 'whole number'],
  ['ALERT_REPEAT_AFTER_MS', '1e9', 'whole number'],
  ['ALERT_REPEAT_AFTER_MS', '-1', 'whole number'],
  ['NOTIFY_TIMEOUT_MS', '50', 'at least 100'],
  ['DATABASE_QUERY_TIMEOUT_MS', '50', 'at least 100'],
  ['PGLITE_IN_PRODUCTION', 'maybe', 'true or false'],
  ['LOG_FORMAT', 'xml', 'auto, json or text'],
  ['WEBHOOK_PORT', '70000', 'at most 65535'],
  ['WEBHOOK_PORT', 'http', 'whole number'],
  ['WEBHOOK_TIMESTAMP_WINDOW_SEC', '5', 'at least 30'],
  ['WEBHOOK_MAX_BODY_BYTES', '100', 'at least 1024'],
  ['WEBHOOK_MAX_BODY_BYTES', '1GB', 'whole number'],
  ['WEBHOOK_CONFIRM_CONCURRENCY', '0', 'at least 1'],
  ['WEBHOOK_MISSING_MARGIN_MIN', 'x', 'whole number'],
  ['WEBHOOK_EXPECTED', 'maybe', 'true or false'],
  ['SCHEDULE_RECONCILE', 'every 5 minutes', 'cron'],
  ['SCHEDULE_SNAPSHOT', '* * *', 'cron'],
  ['SCHEDULE_BANK_CODES', '0 25 * * *', 'cron'],
  ['SCHEDULE_DAILY', '61 * * * *', 'cron'],
  ['SCHEDULE_PRUNE', '0 4 * * 8', 'cron'],
  ['RETENTION_DAYS', '7', 'at least 40'],
  ['RETENTION_DAYS', '1y', 'whole number'],
  ['PRUNE_BATCH_SIZE', '10', 'at least 100'],
  ['SCHEDULE_SHUTDOWN_TIMEOUT_MS', '-5', 'whole number'],
  ['SCHEDULE_MODE', 'cluster', 'inprocess or queue'],
  ['WORKER_CONCURRENCY', '0', 'at least 1'],
  ['WORKER_LOCK_TIMEOUT_SECONDS', '1', 'at least 2'],
  ['CONSOLE_PORT', '70000', 'at most 65535'],
  ['CONSOLE_IDLE_TIMEOUT_MIN', '0', 'at least 1'],
  ['CONSOLE_ABSOLUTE_TIMEOUT_MIN', '12h', 'whole number'],
  ['CONSOLE_LOGIN_MAX_FAILURES', '0', 'at least 1'],
  ['CONSOLE_LOGIN_WINDOW_MIN', '0', 'at least 1'],
  ['CONSOLE_TRUSTED_PROXY', 'proxy.internal', 'IP address'],
  ['CONSOLE_PROXY_USER_HEADER', 'X Forwarded User', 'HTTP header name'],
  ['SCHEDULE_HTTP_PORT', '70000', 'at most 65535'],
  ['WEBHOOK_METRICS_PORT', 'metrics', 'whole number'],
  ['CONSOLE_METRICS_PORT', '99999', 'at most 65535'],
  ['CONSOLE_PUBLIC_URL', 'recon.example.com', 'https://recon.example.com'],
  ['PROVIDER_MAX_THROTTLED_MS', '10', 'at least 1000'],
  ['JOURNAL_ACCOUNTS_FILE', '/nonexistent/accounts.json', 'cannot read'],
  ['ACCOUNTS_FILE', '/nonexistent/provider-accounts.json', 'cannot read'],
  ['JOURNAL_BASE_CURRENCY', 'USDT', 'ISO 4217 code'],
  ['JOURNAL_RATES_FILE', '/nonexistent/rates.csv', 'cannot read'],
  ['JOURNAL_USDT_AT_PAR', 'maybe', 'true or false'],
  ['JOURNAL_FX_REVALUATION', 'yes', 'on or off'],
  ['FEE_SCHEDULE_FILE', '/nonexistent/fees.json', 'cannot read'],
  ['CASE_SLA_HOURS', 'FOO=1', 'CODE=hours pairs'],
  ['MOVEMENT_LAG_MIN', '1441', 'at most 1440'],
  ['MOVEMENT_LAG_MIN', '10m', 'whole number'],
  ['BANK_CHARGE_TOLERANCE', 'INR:50', 'CUR=amount pairs'],
  ['MOVEMENT_SETTLE_HOURS', '0', 'at least 1'],
  ['STATEMENT_MAX_MB', '50MB', 'whole number'],
];

/** Free text by design (a path, an id, a key): any non-blank value is acceptable. */
const FREE_TEXT = new Set([
  'PGLITE_DIR',
  'PROVIDER_MERCHANT_ID',
  'PROVIDER_SECRET',
  'REPORT_DIR',
  'CONSOLE_HOST',
  'SCHEDULE_HTTP_HOST',
  'METRICS_HOST',
  'PRUNE_ARCHIVE_DIR',
  'JOURNAL_XERO_TAX_RATE',
]);

describe('config validation: the variables config.test.ts does not cover', () => {
  it.each(TABLE)('%s=%s', (name, value, expects) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
    expect(problems[0]).toContain(expects);
  });

  it('SCHEDULE_MODE=queue needs a Postgres server: the embedded database runs every job in-process', () => {
    expect(problemsOf({ SCHEDULE_MODE: 'queue' })).toEqual([expect.stringMatching(/^SCHEDULE_MODE: queue needs DATABASE_URL/)]);
    expect(problemsOf({ SCHEDULE_MODE: 'queue', DATABASE_URL: 'postgres://u@db:5432/recon' })).toEqual([]);
  });

  it('CONSOLE_TRUSTED_PROXY and CONSOLE_PROXY_USER_HEADER go together', () => {
    expect(problemsOf({ CONSOLE_TRUSTED_PROXY: '10.0.0.5' })).toEqual([expect.stringContaining('set both')]);
    expect(problemsOf({ CONSOLE_PROXY_USER_HEADER: 'X-Forwarded-User' })).toEqual([expect.stringContaining('set both')]);
    expect(problemsOf({ CONSOLE_TRUSTED_PROXY: '10.0.0.5', CONSOLE_PROXY_USER_HEADER: 'X-Forwarded-User' })).toEqual([]);
  });

  it('every variable payrecon reads has a wrong-value row (here or in config.test.ts) or is free text', () => {
    const existing = fs.readFileSync(path.join(ROOT, 'test/config.test.ts'), 'utf8');
    const covered = new Set(TABLE.map(([n]) => n));
    const missing = Object.keys(ENV_VARS).filter(
      (name) => !covered.has(name) && !FREE_TEXT.has(name) && !existing.includes(`['${name}', `),
    );
    expect(missing).toEqual([]);
  });
});
