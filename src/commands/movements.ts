import path from 'node:path';
import type { Command } from 'commander';
import type { JobDeps } from '../runtime/with-job.ts';
import type { StoredMovement } from '../db/movements.ts';
import { MOVEMENT_COLUMNS } from '../import/movement-row.ts';
import { MOVEMENT_KINDS } from '../domain/movements.ts';
import { printOut } from '../log/terminal.ts';
import { renderTable } from '../cli-ui/table.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { UsageError } from '../domain/errors.ts';
import { actorOf } from './actor-option.ts';
import { openInputFile } from './input-file.ts';
import { formatAmount, isCurrency } from '../money/decimal.ts';

async function withMovements<T>(fn: (deps: JobDeps) => Promise<T>): Promise<T> {
  const { withJob } = await import('../runtime/with-job.ts');
  return withJob('movements', {}, fn);
}

const ACCOUNT_HELP = 'the account whose register this is (ACCOUNTS_FILE; required when several are configured)';

/** The account `--account` names, or the only one (several configured and none named: a usage error listing them). */
async function accountOf(config: JobDeps['config'], id: string | undefined): Promise<string> {
  const { accountFor } = await import('../config/accounts.ts');
  return accountFor(config, id).id;
}

const movementJson = (m: StoredMovement) => ({
  reference: m.reference,
  currency: m.currency,
  direction: m.direction,
  amount: m.amount,
  kind: m.kind,
  occurredFrom: m.occurredFrom.toISOString(),
  occurredTo: m.occurredTo.toISOString(),
  usdtAmount: m.usdtAmount,
  usdtRate: m.usdtRate,
  note: m.note,
  recordedBy: m.recordedBy,
  recordedAt: m.recordedAt.toISOString(),
  source: m.source,
  approvedBy: m.approvedBy,
  approvedAt: m.approvedAt?.toISOString() ?? null,
  state: m.approvedBy ? 'approved' : 'pending approval',
});

export function registerMovements(program: Command): void {
  const movements = program
    .command('movements')
    .description(
      'the register of money moved into or out of the provider wallet that no order explains (top-ups, withdrawals, provider adjustments and charges)',
    )
    .addHelpText(
      'after',
      examplesHelp([
        'payrecon movements import treasury.csv --as asha',
        'payrecon movements list',
        'payrecon movements approve TOPUP-2026-11-27-01 --as ben',
      ]),
    );

  movements
    .command('import')
    .description('record the movements of a CSV file (header row first): all of them, or none when any row is refused')
    .argument('<file.csv>', 'CSV file with a header row')
    .option('--as <name>', 'who records them (default: PAYRECON_ACTOR, else the OS user); someone else approves each')
    .option('--account <id>', ACCOUNT_HELP)
    .option('--json', 'print {rows, inserted, unchanged, rejected: [{line, reason}]} as JSON')
    .addHelpText(
      'after',
      `
Columns (by header name, any order): ${MOVEMENT_COLUMNS.required.join(', ')}; optional ${MOVEMENT_COLUMNS.optional.join(', ')}.
reference: unique per account, up to 100 characters; currency INR, NGN or IDR; direction in or out;
amount above zero, at most the currency's 2 decimals; kind ${MOVEMENT_KINDS.join(', ')} (a top_up is in, a withdrawal out);
occurred_at ISO-8601 with an offset (2026-11-27T10:15:00+05:30), occurred_until the end of the interval when the moment is not known exactly;
usdt_amount the USDT sent or received (up to 6 decimals; empty when none); usdt_rate the provider's quoted rate (local per USDT; empty: the day's);
note free text (no control characters, not starting with = + - @).
Importing the same file again records nothing new and says so; a row whose reference is recorded with other values is refused, naming the row.
A movement explains the balance only once a second person approves it (payrecon movements approve).

Exit status: 0 recorded (or already recorded); 3 any row refused (nothing recorded), a bad header, or an unmigrated database.
${envHelp([...DB_ENV, 'PAYRECON_ACTOR'])}`,
    )
    .action(async (file: string, opts: { as?: string; json?: boolean; account?: string }) => {
      const input = await openInputFile(file);
      try {
        const { importMovements } = await import('../import/import-movements.ts');
        const r = await withMovements(async (ctx) =>
          importMovements(
            ctx.db.knex,
            input,
            { recordedBy: actorOf(opts.as, ctx.config), source: `import:${path.basename(file)}`, at: new Date() },
            await accountOf(ctx.config, opts.account),
          ),
        );
        if (opts.json) printOut(`${JSON.stringify(r)}\n`);
        else if (r.rejected.length) {
          printOut(
            `${file}: ${r.rows} rows read, ${r.rejected.length} refused; nothing recorded. Fix these rows and import the file again:\n` +
              r.rejected.map((x) => `  line ${x.line}: ${x.reason}\n`).join(''),
          );
        } else {
          const again = r.unchanged ? `, ${r.unchanged} already recorded (unchanged)` : '';
          const nothing = r.inserted === 0 && r.rows > 0 ? ' — nothing new: this file was imported before' : '';
          const wait = r.inserted ? '; each waits for approval by someone else' : '';
          printOut(`${file}: ${r.rows} rows read, ${r.inserted} recorded${again}${nothing}${wait}\n`);
        }
        process.exitCode = r.rejected.length ? EXIT.USAGE : EXIT.OK;
      } finally {
        input.destroy();
      }
    });

  movements
    .command('list')
    .description('every recorded movement, newest first, with who recorded and who approved it')
    .option('--json', 'print the movements as a JSON array (amounts as decimal text)')
    .option('--account <id>', ACCOUNT_HELP)
    .addHelpText('after', `\n${envHelp(DB_ENV)}`)
    .action(async (opts: { json?: boolean; account?: string }) => {
      const { listMovements } = await import('../db/movements.ts');
      const list = await withMovements(async (ctx) => listMovements(ctx.db.knex, await accountOf(ctx.config, opts.account)));
      if (opts.json) printOut(`${JSON.stringify(list.map(movementJson), null, 2)}\n`);
      else if (list.length === 0) printOut('no movements recorded\n');
      else
        printOut(
          renderTable(
            ['reference', 'kind', 'currency', 'in/out', 'amount', 'occurred', 'usdt', 'recorded by', 'approved by'],
            list.map((m) => [
              m.reference,
              m.kind,
              m.currency,
              m.direction,
              isCurrency(m.currency) ? formatAmount(m.amount, m.currency) : m.amount,
              m.occurredFrom.getTime() === m.occurredTo.getTime()
                ? m.occurredFrom.toISOString()
                : `${m.occurredFrom.toISOString()} .. ${m.occurredTo.toISOString()}`,
              m.usdtAmount ?? '',
              m.recordedBy,
              m.approvedBy ?? 'PENDING',
            ]),
          ) + '\n',
        );
      process.exitCode = EXIT.OK;
    });

  movements
    .command('approve')
    .description('approve a recorded movement (maker-checker: not by the person who recorded it); from then on it explains the balance')
    .argument('<reference>', "the movement's reference")
    .option('--as <name>', 'who approves (default: PAYRECON_ACTOR, else the OS user)')
    .option('--account <id>', ACCOUNT_HELP)
    .addHelpText(
      'after',
      `\nExit: 0 approved; 3 unknown reference, already approved, or approved by its recorder.\n${envHelp([...DB_ENV, 'PAYRECON_ACTOR'])}`,
    )
    .action(async (reference: string, opts: { as?: string; account?: string }) => {
      const { approveAndLink } = await import('../movements/approve.ts');
      const { outcome, resolvedCases } = await withMovements(async (ctx) =>
        approveAndLink(
          ctx.db.knex,
          reference,
          actorOf(opts.as, ctx.config),
          new Date(),
          ctx.config.MOVEMENT_LAG_MIN * 60_000,
          await accountOf(ctx.config, opts.account),
        ),
      );
      if (outcome.kind === 'not_found')
        throw new UsageError(`no movement with reference ${reference} (payrecon movements list shows them)`);
      if (outcome.kind === 'own')
        throw new UsageError(`${reference} was recorded by ${outcome.movement.recordedBy}: a second person approves it (maker-checker)`);
      if (outcome.kind === 'already')
        throw new UsageError(
          `${reference} is already approved, by ${outcome.movement.approvedBy} at ${outcome.movement.approvedAt!.toISOString()}`,
        );
      const linked = resolvedCases.length
        ? `; resolved the BALANCE_DRIFT case${resolvedCases.length === 1 ? '' : 's'} it explains: ${resolvedCases.join(', ')}`
        : '';
      printOut(`${reference} approved by ${outcome.movement.approvedBy}; it explains the balance from the next roll-forward on${linked}\n`);
      process.exitCode = EXIT.OK;
    });
}
