// `payrecon doctor`: each piece payrecon needs, checked for real (connect, authenticate, write),
// never changing anything but one temporary file in the report directory.
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config.ts';
import { secretValues } from '../config/redact.ts';
import { openDatabase } from '../db/connect.ts';
import { describeDatabase } from '../db/describe.ts';
import { pendingMigrations } from '../db/migrate.ts';
import { createAccountClient } from '../provider/from-config.ts';
import { configuredAccounts } from '../config/accounts.ts';
import type { Account } from '../domain/account.ts';
import { installationId } from '../db/installation.ts';
import { alertingHealth, failingSteps } from '../db/alerting-health.ts';
import { OWNER_FILE, readReportDirOwner } from '../report/report-dir-owner.ts';
import { errorOf, messageOf } from '../domain/errors.ts';

export type CheckStatus = 'ok' | 'failed' | 'skipped';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  /** What was found (ok), or what went wrong (failed), or why it was not checked (skipped). */
  detail: string;
  /** With failed: what to do about it. */
  fix?: string;
}

/** Clock skew beyond this makes the provider refuse signed requests (Timestamp window) or webhooks look stale. */
const MAX_SKEW_SEC = 60;

const scrub = (text: string, config: Config) =>
  secretValues(config).reduce((t, s) => (s.length >= 3 ? t.split(s).join('***') : t), text.split('\n')[0]);

export async function checkDatabase(config: Config): Promise<CheckResult> {
  const name = 'database';
  const which = describeDatabase(config);
  let db;
  try {
    db = await openDatabase(config, { applicationName: 'payrecon-doctor', poolMax: 2 });
  } catch (err) {
    return {
      name,
      status: 'failed',
      detail: `${which}: ${scrub(messageOf(err), config)}`,
      fix: connectFix(err, config),
    };
  }
  try {
    const pending = await pendingMigrations(db);
    if (pending.length) {
      return {
        name,
        status: 'failed',
        detail: `${which}: ${pending.length} migration(s) pending (${pending[0]}, ...)`,
        fix: 'run `payrecon migrate`',
      };
    }
    return { name, status: 'ok', detail: `${which}: reachable, migrated` };
  } catch (err) {
    return {
      name,
      status: 'failed',
      detail: `${which}: ${scrub(messageOf(err), config)}`,
      fix: 'check the database user may read its schema (DATABASE_SCHEMA)',
    };
  } finally {
    await db.close();
  }
}

/** The fix for a failed connection, by what the server said: a missing database or role is created, not re-typed. */
function connectFix(err: unknown, config: Config): string {
  const code = (err as { code?: string }).code;
  const url = config.DATABASE_URL ? new URL(config.DATABASE_URL) : null;
  const database = url ? decodeURIComponent(url.pathname.slice(1)) : '';
  const user = url ? decodeURIComponent(url.username) : '';
  // 3D000 invalid_catalog_name; 28000 invalid_authorization_specification (also "role does not exist").
  if (code === '3D000' || /database ".*" does not exist/.test(String(err)))
    return `create the database: \`createdb ${database || '<name>'}\`${user ? ` (owner: \`createdb --owner ${user} ${database}\`)` : ''}, then \`payrecon migrate\``;
  if (/role ".*" does not exist/.test(String(err)))
    return `create the role: \`createuser ${user || '<user>'}\` (as a Postgres superuser), or fix the user in DATABASE_URL`;
  return 'check DATABASE_URL (host, port, user, password) and that the server is up';
}

/** The provider check of every configured account: "provider" for the one account, "provider <id>" for each of several. */
export async function checkProviders(config: Config): Promise<CheckResult[]> {
  const accounts = configuredAccounts(config);
  const results: CheckResult[] = [];
  for (const account of accounts)
    results.push(await checkProvider(config, account, accounts.length > 1 ? `provider ${account.id}` : 'provider'));
  return results;
}

async function checkProvider(config: Config, account: Account, name: string): Promise<CheckResult> {
  const baseUrl = account.baseUrl;
  if (!baseUrl)
    return {
      name,
      status: 'failed',
      detail: 'PROVIDER_BASE_URL is not set',
      fix: 'set PROVIDER_BASE_URL (and PROVIDER_MERCHANT_ID, PROVIDER_SECRET)',
    };
  const currency = account.currencies[0];
  const client = await createAccountClient(config, account, { maxRetries: 0 });
  try {
    await client.balance(currency);
  } catch (err) {
    return {
      name,
      status: 'failed',
      detail: `balance ${currency}: ${scrub(messageOf(err), config)}`,
      fix: config.ACCOUNTS_FILE
        ? `check account ${account.id}'s baseUrl, merchantId and secret in ACCOUNTS_FILE, and PROVIDER_SIGNATURE`
        : 'check PROVIDER_BASE_URL, PROVIDER_MERCHANT_ID, PROVIDER_SECRET and PROVIDER_SIGNATURE',
    };
  } finally {
    await client.close();
  }
  const skew = await clockSkewSec(baseUrl);
  if (skew !== null && Math.abs(skew) > MAX_SKEW_SEC) {
    return {
      name,
      status: 'failed',
      detail: `credentials accepted, but this clock is ${Math.round(skew)} s off the provider's`,
      fix: "synchronise this machine's clock (NTP)",
    };
  }
  return {
    name,
    status: 'ok',
    detail: `credentials accepted (balance ${currency})${skew === null ? '' : `, clock skew ${Math.round(skew)} s`}`,
  };
}

/** This machine's clock minus the provider's, from the Date header of any answer; null when it sends none. */
async function clockSkewSec(baseUrl: string): Promise<number | null> {
  try {
    const res = await fetch(baseUrl, { method: 'GET', signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    const date = res.headers.get('date');
    return date ? (Date.now() - Date.parse(date)) / 1000 : null;
  } catch {
    return null;
  }
}

export async function checkSmtp(config: Config): Promise<CheckResult> {
  const name = 'smtp';
  if (!config.SMTP_URL) return { name, status: 'skipped', detail: 'skipped (not configured: SMTP_URL)' };
  const nodemailer = (await import('nodemailer')).default;
  const timeout = config.NOTIFY_TIMEOUT_MS;
  const transport = nodemailer.createTransport(config.SMTP_URL, {
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  } as never);
  try {
    await transport.verify();
    return { name, status: 'ok', detail: `connected and authenticated to ${new URL(config.SMTP_URL).host} (no mail sent)` };
  } catch (err) {
    return {
      name,
      status: 'failed',
      detail: scrub(messageOf(err), config),
      fix: 'check SMTP_URL (host, port, user and password; smtps: for implicit TLS)',
    };
  } finally {
    transport.close();
  }
}

export async function checkAlertWebhook(config: Config): Promise<CheckResult> {
  const name = 'alert webhook';
  if (!config.ALERT_WEBHOOK_URL) return { name, status: 'skipped', detail: 'skipped (not configured: ALERT_WEBHOOK_URL)' };
  const host = new URL(config.ALERT_WEBHOOK_URL).host;
  try {
    // A GET posts nothing: any answer short of a server error shows the endpoint is there.
    const res = await fetch(config.ALERT_WEBHOOK_URL, { method: 'GET', signal: AbortSignal.timeout(config.NOTIFY_TIMEOUT_MS) });
    await res.body?.cancel();
    if (res.status >= 500)
      return {
        name,
        status: 'failed',
        detail: `${host} answered HTTP ${res.status}`,
        fix: 'check ALERT_WEBHOOK_URL and the receiving service',
      };
    return { name, status: 'ok', detail: `${host} reachable (HTTP ${res.status})` };
  } catch (err) {
    // fetch's TypeError says only "fetch failed"; its cause names the refusal or the DNS failure.
    const { cause: why } = errorOf(err);
    const cause = why instanceof Error ? why.message : messageOf(err);
    return {
      name,
      status: 'failed',
      detail: `${host}: ${scrub(cause, config)}`,
      fix: 'check ALERT_WEBHOOK_URL and that this machine may reach it',
    };
  }
}

export async function checkReportDir(config: Config): Promise<CheckResult> {
  const name = 'report directory';
  const dir = path.resolve(config.REPORT_DIR);
  const probe = path.join(dir, `.payrecon-doctor-${process.pid}`);
  try {
    await fs.promises.mkdir(dir, { recursive: true });
    await fs.promises.writeFile(probe, 'payrecon doctor\n', { flag: 'wx' });
    await fs.promises.rm(probe);
  } catch (err) {
    return {
      name,
      status: 'failed',
      detail: `${dir}: ${(err as NodeJS.ErrnoException).code ?? messageOf(err)}`,
      fix: 'set REPORT_DIR to a directory this user may write, or fix its permissions',
    };
  }
  let owner;
  try {
    owner = await readReportDirOwner(dir);
  } catch (err) {
    return { name, status: 'failed', detail: messageOf(err), fix: `restore or remove ${OWNER_FILE} in REPORT_DIR` };
  }
  if (!owner) return { name, status: 'ok', detail: `${dir} writable, not yet marked by a database` };
  const mine = await ownInstallation(config);
  if (typeof mine !== 'string') return { name, status: 'ok', detail: `${dir} writable; its owner not compared (${mine.why})` };
  if (owner.installationId !== mine)
    return {
      name,
      status: 'failed',
      detail: `${dir} holds the reports of another database (${owner.database}, installation ${owner.installationId}); this one is installation ${mine}`,
      fix: "set REPORT_DIR to a folder of this database's own (two databases in one folder would interleave their version numbers)",
    };
  return { name, status: 'ok', detail: `${dir} writable, this database's own` };
}

/** Whether alerting worked the last time each step ran (alerting_health, written by every job's alerting). */
export async function checkAlerting(config: Config): Promise<CheckResult> {
  const name = 'alerting';
  let db;
  try {
    db = await openDatabase(config, { applicationName: 'payrecon-doctor', poolMax: 1 });
    const failing = failingSteps(await alertingHealth(db.knex));
    if (failing.length === 0) return { name, status: 'ok', detail: 'no alerting step failing' };
    const f = failing[0];
    return {
      name,
      status: 'failed',
      detail:
        `${failing.map((x) => x.step).join(', ')} failing since ${f.lastFailedAt.toISOString()} (${f.lastJob}): ${scrub(f.lastError, config)}` +
        (failing.length > 1 ? ` (and ${failing.length - 1} more step(s), see payrecon status)` : ''),
      fix: 'alerts may not be going out: fix the cause named (a channel refusing: ALERT_WEBHOOK_URL, ALERT_EMAIL_TO, SMTP_URL); the next job run that alerts clears it',
    };
  } catch (err) {
    return { name, status: 'skipped', detail: `not checked: ${scrub(messageOf(err), config)}` };
  } finally {
    await db?.close();
  }
}

/** This database's installation id, or why it cannot be read (the database check above says what to do). */
async function ownInstallation(config: Config): Promise<string | { why: string }> {
  let db;
  try {
    db = await openDatabase(config, { applicationName: 'payrecon-doctor', poolMax: 1 });
  } catch {
    return { why: 'the database did not answer' };
  }
  try {
    if ((await pendingMigrations(db)).length) return { why: 'the database is not migrated' };
    return await installationId(db.knex);
  } catch {
    return { why: 'the database could not be read' };
  } finally {
    await db?.close();
  }
}
