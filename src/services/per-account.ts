// A scheduled job run for every configured account: one run each, none held up or stopped by another's.
import type { Config } from '../config/config.ts';
import { configuredAccounts } from '../config/accounts.ts';
import type { JobRunReport } from '../schedule/scheduler.ts';
import { messageOf } from '../domain/errors.ts';

/**
 * Runs `run` for the account a queued job names, or else for each configured account at once. With one
 * account and none named, `run(undefined)` alone: exactly the run there was before accounts. With several,
 * one account's failure is its own line in the detail; the others' runs go on.
 */
export async function forEachAccount(
  config: Config,
  named: string | undefined,
  run: (account: string | undefined) => Promise<JobRunReport>,
): Promise<JobRunReport> {
  if (named !== undefined) return run(named);
  const accounts = configuredAccounts(config);
  if (accounts.length === 1) return run(undefined);
  const settled = await Promise.allSettled(accounts.map((a) => run(a.id)));
  const reports: Array<JobRunReport & { account: string }> = settled.map((s, i) =>
    s.status === 'fulfilled'
      ? { ...s.value, account: accounts[i].id }
      : { account: accounts[i].id, status: 'failed', exitCode: 2, detail: { error: messageOf(s.reason) } },
  );
  return mergeReports(reports);
}

/** One report of several accounts' runs: the worst exit, one status when they agree, counts summed, each account's own in detail. */
function mergeReports(reports: Array<JobRunReport & { account: string }>): JobRunReport {
  const statuses = new Set(reports.map((r) => r.status));
  const counts: Record<string, number> = {};
  for (const r of reports) for (const [k, v] of Object.entries(r.counts ?? {})) counts[k] = (counts[k] ?? 0) + v;
  return {
    status: statuses.size === 1 ? reports[0].status : [...statuses].sort().join('/'),
    exitCode: Math.max(...reports.map((r) => r.exitCode)),
    counts,
    detail: {
      accounts: Object.fromEntries(reports.map((r) => [r.account, { status: r.status, exitCode: r.exitCode, ...r.detail }])),
    },
  };
}

/**
 * The account whose client syncs the bank codes. The bank code list is the provider's directory, not an
 * account's: bank_codes holds one list per currency, which every account's payout checks read. So with
 * several accounts it stays one job (several syncing one table would only repeat it), made with the
 * first account that pays out in IDR or NGN. One account: undefined, the only one, as before.
 */
export function bankCodesAccount(config: Config): string | undefined {
  const accounts = configuredAccounts(config);
  if (accounts.length === 1) return undefined;
  return (accounts.find((a) => a.currencies.some((c) => c === 'IDR' || c === 'NGN')) ?? accounts[0]).id;
}
