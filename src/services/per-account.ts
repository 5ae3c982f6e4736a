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

/** Statuses from least to most telling: the merged status is the most telling of the accounts' (any other status ranks above all). */
const RANK = ['skipped', 'already_done', 'completed', 'busy', 'stalled', 'interrupted'];
const rankOf = (status: string): number => (RANK.includes(status) ? RANK.indexOf(status) : RANK.length);

/**
 * One report of several accounts' runs: the worst exit, the most telling status (completed beside another
 * scheduler's skip is completed; a failure beside completions is a failure), counts summed, each account's own in detail.
 */
function mergeReports(reports: Array<JobRunReport & { account: string }>): JobRunReport {
  const counts: Record<string, number> = {};
  for (const r of reports) for (const [k, v] of Object.entries(r.counts ?? {})) counts[k] = (counts[k] ?? 0) + v;
  const status = reports.map((r) => r.status).reduce((a, b) => (rankOf(b) > rankOf(a) ? b : a));
  return {
    status,
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
