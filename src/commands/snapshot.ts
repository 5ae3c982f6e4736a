import { printOut } from '../log/terminal.ts';
import type { Command } from 'commander';
import { renderTable } from '../cli-ui/table.ts';
import { formatAmount, Decimal } from '../money/decimal.ts';
import type { SnapshotResult } from '../snapshot/take-snapshots.ts';
import { DB_ENV, PROVIDER_ENV, envHelp } from './env-help.ts';

export function registerSnapshot(program: Command): void {
  program
    .command('snapshot')
    .description("store each currency's balance and USDT rate, flag the rate, and roll the balance forward from the previous snapshot")
    .option('--json', 'print the result (snapshots, rate flags, drift findings, failures) as JSON')
    .option(
      '--account <id>',
      'the account whose balances to take (ACCOUNTS_FILE; required when several are configured): its client, its orders',
    )
    .addHelpText(
      'after',
      `
Each balance is checked against the previous snapshot of its currency: the change in
available + pending + held must equal payments finalized in between (paidAmount - fee) minus
payouts (amount + fee), within RECON_TOLERANCE; otherwise a BALANCE_DRIFT finding is stored.
Examples:
  payrecon snapshot
  payrecon snapshot --json | jq '.drift'
  payrecon snapshot --account in-main
Exit: 0 every currency stored (findings included), or skipped: another run holds the lock;
      2 some or all currencies could not be fetched (the run lists which), credentials refused;
      3 bad configuration.
${envHelp([...DB_ENV, ...PROVIDER_ENV, 'RECON_CURRENCIES', 'RECON_TOLERANCE', 'RATE_STALE_AFTER_MIN', 'RATE_JUMP_PERCENT', 'SNAPSHOT_OPEN_CHECK'])}`,
    )
    .action(async (opts: { json?: boolean; account?: string }) => {
      const { snapshotJob } = await import('../services/snapshot.ts');
      const { exitCode, result } = await snapshotJob(opts.account !== undefined ? { account: opts.account } : {});
      printOut(opts.json ? `${JSON.stringify(result, null, 2)}\n` : describeSnapshots(result));
      process.exitCode = exitCode;
    });
}

export function describeSnapshots(r: SnapshotResult): string {
  if (r.status === 'skipped') return 'snapshot: another run holds the lock; nothing done\n';
  const rows = r.currencies.map((c) => {
    const b = c.balance;
    const total = b ? formatAmount(new Decimal(b.available).plus(b.pending).plus(b.held), c.currency) : '-';
    const rf = c.rollForward;
    const drift = rf?.drift == null ? '-' : formatAmount(rf.drift, c.currency);
    const rate = c.rate ? `${c.rate.deposit} / ${c.rate.withdraw}` : '-';
    return [c.currency, total, drift, rate, [...(c.rate?.flags ?? []), ...(rf?.finding ? ['BALANCE_DRIFT'] : [])].join(' ')];
  });
  const failed = r.failures.map((f) => `  ${f.currency} ${f.step}: ${f.message}\n`).join('');
  const notes = [
    ...r.rateFlags.flatMap((f) => f.notes.map((n) => `  ${f.currency} ${n}\n`)),
    ...r.drift.map((d) => `  ${d.finding.note}\n`),
  ].join('');
  return (
    `snapshot run ${r.runId}: ${r.status}\n` +
    renderTable(['currency', 'balance total', 'drift', 'USDT deposit / withdraw', 'flags'], rows) +
    (notes ? `findings:\n${notes}` : '') +
    (failed ? `failed:\n${failed}` : '') +
    (r.status === 'credentials' && r.error ? `${r.error}\n` : '')
  );
}
