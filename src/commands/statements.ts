import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { StatementImportResult } from '../statements/import-statement.ts';
import { STATEMENT_COLUMNS } from '../statements/statement-csv.ts';
import { printOut } from '../log/terminal.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { UsageError } from '../domain/errors.ts';

export function registerStatements(program: Command): void {
  const statements = program
    .command('statements')
    .description('bank statements: the bank side of top-ups and withdrawals, matched one-to-one to recorded movements')
    .addHelpText(
      'after',
      examplesHelp(['payrecon statements import camt053-2026-11-27.xml', 'payrecon statements import statement.csv --json']),
    );

  statements
    .command('import')
    .description('import a CAMT.053 (XML) or CSV bank statement, match its lines to movements, and open cases for what does not match')
    .argument('<file>', 'a CAMT.053 XML file, or a CSV statement with a header row')
    .option('--json', 'print {format, lines, inserted, unchanged, refused, matches, unmatchedLines, unsettled} as JSON')
    .addHelpText(
      'after',
      `
CAMT.053: BkToCstmrStmt/Stmt per account, a line per Ntry (Amt with Ccy, CdtDbtInd, BookgDt, ValDt, AcctSvcrRef,
NtryDtls/TxDtls Refs/EndToEndId and RmtInf/Ustrd). A DOCTYPE (and so any entity) is refused; a file over STATEMENT_MAX_MB
is refused when the limit is crossed.
CSV columns: ${STATEMENT_COLUMNS.required.join(', ')}; optional ${STATEMENT_COLUMNS.optional.join(', ')}
(direction credit or debit as the bank sees its account; amount above zero; dates YYYY-MM-DD).
Each line is stored once (bank account and line id): importing a statement again adds nothing.
Matching: a withdrawal to the bank is a credit, a top-up from the bank a debit; by reference and amount within
BANK_CHARGE_TOLERANCE (the difference is shown); one line to one movement; several movements to one line only
when the line names them all and their sum is exact.

Exit status: 0 imported; 3 the file refused (nothing imported) or an unmigrated database.
${envHelp([...DB_ENV, 'BANK_CHARGE_TOLERANCE', 'MOVEMENT_SETTLE_HOURS', 'STATEMENT_MAX_MB'])}`,
    )
    .action(async (file: string, opts: { json?: boolean }) => {
      if (!fs.existsSync(file)) throw new UsageError(`${file}: no such file`);
      const [{ withJob }, { importStatement }] = await Promise.all([
        import('../runtime/with-job.ts'),
        import('../statements/import-statement.ts'),
      ]);
      const r = await withJob('statements', {}, ({ db, config }) =>
        importStatement(db.knex, file, {
          source: `import:${path.basename(file)}`,
          at: new Date(),
          maxBytes: config.STATEMENT_MAX_MB * 1024 * 1024,
          tolerance: (c) => (config.BANK_CHARGE_TOLERANCE as Record<string, string | undefined>)[c] ?? '0',
          settleAfterMs: config.MOVEMENT_SETTLE_HOURS * 3_600_000,
        }),
      );
      printOut(opts.json ? `${JSON.stringify(r)}\n` : describe(file, r));
      process.exitCode = r.refused.length ? EXIT.USAGE : EXIT.OK;
    });
}

function describe(file: string, r: StatementImportResult): string {
  if (r.refused.length)
    return `${file} (${r.format}): refused; nothing imported. Fix and import it again:\n${r.refused.map((x) => `  ${x.line === null ? '' : `line ${x.line}: `}${x.reason}\n`).join('')}`;
  const out = [`${file} (${r.format}): ${r.lines} lines, ${r.inserted} new, ${r.unchanged} imported before`];
  for (const m of r.matches)
    out.push(
      `  matched ${m.reference} ↔ ${m.bankAccount} ${m.bankLineId} (${m.kind === 'many_to_one' ? 'several movements in one line' : 'one to one'}${m.difference === '0' ? '' : `, difference ${m.difference}`})`,
    );
  for (const l of r.unmatchedLines)
    out.push(`  STATEMENT_UNMATCHED ${l.bankAccount} ${l.lineId}: ${l.direction} ${l.currency} ${l.amount} on ${l.bookedOn}`);
  for (const m of r.unsettled) out.push(`  MOVEMENT_UNSETTLED ${m.reference}: ${m.currency} ${m.amount}, no statement line yet`);
  return `${out.join('\n')}\n`;
}
