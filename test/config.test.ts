import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import { problemsOf } from './helpers/config.ts';
import { secretValues, scrub } from '../src/config/redact.ts';
import { policyFromConfig } from '../src/reconcile/policy-from-config.ts';
import { defaultPolicy } from '../src/recon/policy.ts';

describe('config defaults', () => {
  it('an empty environment is a valid demo configuration', () => {
    const config = loadConfig({});
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.DATABASE_SCHEMA).toBe('payrecon');
    expect(config.PROVIDER_SIGNATURE).toBe('hmac-sha256');
    expect(config.RECON_CONCURRENCY).toBe(16);
    expect(config.REPORT_TIMEZONE).toBe('UTC');
    expect(config.RECON_CURRENCIES).toEqual(['INR', 'NGN', 'IDR']);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('parses lists, tolerances and status maps', () => {
    const config = loadConfig({
      RECON_TOLERANCE: 'inr=0.01, NGN=1',
      PROVIDER_STATUS_MAP: 'Paid=success,Expired=FAILED',
      REPORT_EMAIL_TO: 'a@example.com, b@example.com',
      RECON_CURRENCIES: 'ngn',
    });
    expect(config.RECON_TOLERANCE).toEqual({ INR: '0.01', NGN: '1' });
    expect(config.PROVIDER_STATUS_MAP).toEqual({ Paid: 'success', Expired: 'failed' });
    expect(config.REPORT_EMAIL_TO).toEqual(['a@example.com', 'b@example.com']);
    expect(config.RECON_CURRENCIES).toEqual(['NGN']);
  });
});

describe('config validation: each bad value names its variable and what it expects', () => {
  it.each([
    ['DATABASE_URL', 'mysql://localhost/db', 'postgres://'],
    ['DATABASE_URL', 'not a url', 'postgres://'],
    ['DATABASE_SCHEMA', 'Robert"); DROP TABLE', 'SQL identifier'],
    ['PROVIDER_BASE_URL', 'ftp://provider', 'http://'],
    ['PROVIDER_SIGNATURE', 'sha1', 'hmac-sha256'],
    ['PROVIDER_TIMEOUT_MS', 'ten', 'whole number'],
    ['PROVIDER_TIMEOUT_MS', '5', 'at least 100'],
    ['PROVIDER_TIMEOUT_MS', '1.5', 'whole number'],
    ['PROVIDER_MAX_RETRIES', '-1', 'whole number'],
    ['PROVIDER_RATE_LIMIT', '1e3', 'whole number'],
    ['PROVIDER_STATUS_MAP', 'Paid=done', 'Status=category'],
    ['RECON_CONCURRENCY', '0', 'at least 1'],
    ['RECON_CONCURRENCY', '100000', 'at most 1024'],
    ['RECON_TOLERANCE', 'USD=1', 'CUR=amount'],
    ['RECON_TOLERANCE', 'INR=-1', 'CUR=amount'],
    // Checked here only: the policy is built from the parsed values without a second validation (recon/policy.ts).
    ['RECON_TOLERANCE', 'NGN=1e-2', 'CUR=amount'],
    ['RECON_BACKOFF_PAYOUT', '1m,,2m', 'delays such as'],
    ['RECON_BACKOFF_PAYMENT', '1m,0m', 'delays such as'],
    ['RECON_FIRST_CHECK_PAYOUT', '-1m', 'a delay such as'],
    ['RECON_CURRENCIES', 'INR,USD', 'INR, NGN, IDR'],
    ['REPORT_TIMEZONE', 'Mars/Olympus', 'IANA time zone'],
    ['SMTP_URL', 'http://mail', 'smtp://'],
    ['REPORT_EMAIL_FROM', 'finance', 'e-mail address'],
    ['REPORT_EMAIL_TO', 'a@example.com,,nope', 'e-mail address'],
    ['ALERT_WEBHOOK_URL', 'hooks.slack.com/x', 'http://'],
    ['LOG_LEVEL', 'loud', 'one of'],
    ['PAYRECON_ACTOR', 'asha\u0007', 'printable characters'],
  ])('%s=%s', (name, value, expects) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
    expect(problems[0]).toContain(expects);
  });

  it('reports every bad variable at once', () => {
    const problems = problemsOf({ RECON_CONCURRENCY: 'x', REPORT_TIMEZONE: 'x' });
    expect(problems.map((p) => p.split(':')[0])).toEqual(['RECON_CONCURRENCY', 'REPORT_TIMEZONE']);
  });

  it('never echoes a secret value in the error', () => {
    const problems = problemsOf({ SMTP_URL: 'ftp://user:hunter2-secret@mail' });
    expect(problems[0]).toContain('SMTP_URL');
    expect(problems[0]).not.toContain('hunter2-secret');
  });
});

describe('redaction', () => {
  const config = loadConfig({
    PROVIDER_SECRET: 'topsecret-key',
    DATABASE_URL: 'postgres://app:db-pass-123@db:5432/merchant',
    SMTP_URL: 'smtp://mailer:smtp-pass-456@mail:587',
  });

  it('scrubs every secret from free text', () => {
    const text = 'auth failed for topsecret-key via postgres://app:db-pass-123@db and smtp-pass-456';
    const clean = scrub(text, secretValues(config));
    for (const secret of ['topsecret-key', 'db-pass-123', 'smtp-pass-456']) expect(clean).not.toContain(secret);
  });
});

describe('demo credentials', () => {
  it('serve a provider on this machine (the sandbox)', () => {
    expect(loadConfig({ PROVIDER_BASE_URL: 'http://127.0.0.1:4010' }).PROVIDER_SECRET).toBe('demo-secret');
  });

  it.each([
    ['unset', {}],
    ['blank', { PROVIDER_MERCHANT_ID: ' ', PROVIDER_SECRET: '   ' }],
  ])('are refused for a real provider when %s, naming both variables', (_name, creds) => {
    const problems = problemsOf({ PROVIDER_BASE_URL: 'https://api.provider.example', ...creds });
    expect(problems.map((p) => p.split(':')[0])).toEqual(['PROVIDER_MERCHANT_ID', 'PROVIDER_SECRET']);
    expect(problems[1]).toContain('required when PROVIDER_BASE_URL points at a real provider');
  });

  it('a real provider with explicit credentials is fine', () => {
    const config = loadConfig({ PROVIDER_BASE_URL: 'https://api.provider.example', PROVIDER_MERCHANT_ID: 'm-1', PROVIDER_SECRET: 'k' });
    expect(config.PROVIDER_SECRET).toBe('k');
  });
});

describe('re-check schedules (RECON_BACKOFF_PAYMENT, RECON_BACKOFF_PAYOUT)', () => {
  it('are read as delays in ms and become the policy the runner uses', () => {
    const config = loadConfig({ RECON_BACKOFF_PAYMENT: '30s, 5m,2h', RECON_BACKOFF_PAYOUT: '1d' });
    expect(config.RECON_BACKOFF_PAYMENT).toEqual([30_000, 300_000, 7_200_000]);
    expect(policyFromConfig(config).backoffMs).toEqual({ payment: [30_000, 300_000, 7_200_000], payout: [86_400_000] });
  });
  it('default to the schedule tuned on the simulated settlement day, slower than the built-in one', () => {
    expect(policyFromConfig(loadConfig({})).backoffMs).toEqual({
      payment: [30 * 60_000, 2 * 3_600_000, 6 * 3_600_000, 24 * 3_600_000],
      payout: [45 * 60_000, 2 * 3_600_000, 6 * 3_600_000, 24 * 3_600_000],
    });
    expect(defaultPolicy().backoffMs.payment[0]).toBe(5 * 60_000);
  });
});

describe('first checks (RECON_FIRST_CHECK_PAYMENT, RECON_FIRST_CHECK_PAYOUT)', () => {
  it('are one delay each, 0 meaning at once', () => {
    const config = loadConfig({ RECON_FIRST_CHECK_PAYMENT: '90m', RECON_FIRST_CHECK_PAYOUT: '0' });
    expect(policyFromConfig(config).firstCheckMs).toEqual({ payment: 90 * 60_000, payout: 0 });
  });
  it('default: payouts after 20 minutes; pay-ins after an hour with the webhook receiver, else at once', () => {
    expect(policyFromConfig(loadConfig({ WEBHOOK_EXPECTED: 'true' })).firstCheckMs).toEqual({ payment: 3_600_000, payout: 20 * 60_000 });
    expect(policyFromConfig(loadConfig({})).firstCheckMs).toEqual({ payment: 0, payout: 20 * 60_000 });
  });
});
