import { printOut } from '../log/terminal.ts';
import type { Command } from 'commander';
import type { PruneJobResult } from '../services/prune.ts';
import { renderTable } from '../cli-ui/table.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';

export function registerPrune(program: Command): void {
  program
    .command('prune')
    .description('remove history older than RETENTION_DAYS that no open case, unresolved alert or recorded report version needs')
    .option('--dry-run', 'count what would be removed, change nothing')
    .option('--json', 'print the result as one JSON object')
    .addHelpText('after', examplesHelp(['payrecon prune --dry-run', "payrecon prune --json | jq '.tables'"]))
    .addHelpText(
      'after',
      `
Removes, when older than the retention: superseded checks of final orders, finished job runs,
webhook payloads, resolved alerts, ended console sessions and login failures, and the folders of
superseded report versions with their recorded orders. Never an order, a case or its history, a
day's current report version, one whose e-mail is unsent or a case needs, or what an open case, an
unresolved alert or a recorded report version needs. Small batches, each its own short transaction:
safe while a reconcile runs. With PRUNE_ARCHIVE_DIR, each removed row and report version is written
there first (docs/operations/retention.md).
Exit: 0 done (or skipped: another prune holds the lock), 2 the database failed, 3 bad configuration.
${envHelp([...DB_ENV, 'RETENTION_DAYS', 'PRUNE_ARCHIVE_DIR', 'PRUNE_BATCH_SIZE'])}`,
    )
    .action(async (opts: { dryRun?: boolean; json?: boolean }) => {
      const { pruneJob } = await import('../services/prune.ts');
      const { exitCode, result } = await pruneJob({ dryRun: opts.dryRun === true });
      printOut(opts.json ? `${JSON.stringify(result)}\n` : describePrune(result));
      process.exitCode = exitCode;
    });
}

function describePrune(r: PruneJobResult): string {
  if (r.status === 'off') return 'prune: RETENTION_DAYS=0 keeps everything; nothing done\n';
  if (r.status === 'skipped') return 'prune: another prune holds the lock; nothing done\n';
  const verb = r.dryRun ? 'would remove' : 'removed';
  const rows = Object.entries(r.tables).map(([table, n]) => [table, String(n)]);
  return (
    `prune${r.dryRun ? ' (dry run)' : ''}: older than ${r.cutoff} (RETENTION_DAYS=${r.retentionDays})${r.status === 'stopped' ? ', stopped before the end' : ''}\n` +
    renderTable(['table', verb], rows) +
    (r.reportVersions.length
      ? `report versions ${r.dryRun ? 'that would be removed' : 'removed'}:\n${r.reportVersions
          .map((v) => `  ${v.businessDate} v${v.version}  ${v.directory}${v.archivedTo ? `  archived in ${v.archivedTo}` : ''}\n`)
          .join('')}`
      : '') +
    (r.archiveFiles.length ? `archived to:\n${r.archiveFiles.map((f) => `  ${f}\n`).join('')}` : '') +
    (r.reportVersionsRefused ? `warning: ${r.reportVersionsRefused}\n` : '')
  );
}
