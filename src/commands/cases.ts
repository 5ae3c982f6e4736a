import { printErr, printOut } from '../log/terminal.ts';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { JobDeps } from '../runtime/with-job.ts';
import { acknowledgeCase, assignCase, commentCase, listCases, resolveCase, showCase, type CaseWithHistory } from '../cases/work.ts';
import { actOnCases, type BulkOutcome, type SelectedCase } from '../cases/bulk.ts';
import { EXPORT_COLUMNS, exportCsvRow } from '../cases/export-rows.ts';
import { caseHistories } from '../db/cases.ts';
import { CASE_SORTS, eachCase, type CaseSort } from '../db/case-queue.ts';
import { isEmptyFilter, REF_PIECE_MIN, type CaseFilter } from '../db/case-filter.ts';
import { encodeCsvRecord } from '../report/csv-file.ts';
import { caseJson, caseDetailJson, renderCaseDetail, renderCaseList } from '../cases/render.ts';
import { businessDay } from '../report/date.ts';
import { CASE_STATES, RESOLUTION_REASONS, parseAge, type CaseState } from '../recon/cases.ts';
import { MISMATCH_CODES } from '../domain/verdicts.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { UsageError, messageOf } from '../domain/errors.ts';
import { currencyOption } from './currency-option.ts';
import { actorOf as actorOfConfig } from './actor-option.ts';
import { accountFor, configuredAccounts } from '../config/accounts.ts';

const usage = (message: string) => new UsageError(message);
// UNKNOWN_ORDER is a mismatch code now too; a Set keeps each code once.
const CASE_CODES = [...new Set<string>([...MISMATCH_CODES, 'UNKNOWN_ORDER'])];

export function registerCases(program: Command): void {
  const cases = program
    .command('cases')
    .description(
      'the exceptions queue: one case per finding (order and code; drift per currency and window), acknowledged and resolved by people',
    )
    .addHelpText(
      'after',
      examplesHelp([
        'payrecon cases list',
        'payrecon cases list --code FEE --currency NGN --older-than 3d',
        'payrecon cases list --ref 06f0e57a',
        'payrecon cases list --account ng-brand',
        'payrecon cases list --csv > queue.csv',
        'payrecon cases assign 42 --to asha',
        'payrecon cases comment 42 --note "provider ticket 7781"',
        'payrecon cases resolve --all-matching --code FEE --day 2026-11-21 --reason adjusted --note "fees booked"',
        'payrecon cases show 42',
        'payrecon cases ack 42 --note "asked the provider"',
        'payrecon cases resolve 42 --reason adjusted --note "fee booked in the ledger"',
      ]),
    );

  cases
    .command('list')
    .description('cases matching the filters, a page at a time, oldest opened first (default: open and acknowledged)')
    .addOption(new Option('--state <state>', 'open, acknowledged, resolved, or all').choices([...CASE_STATES, 'all']))
    .addOption(codesOption())
    .addOption(currencyOption('INR, NGN or IDR (any case)'))
    .option('--day <YYYY-MM-DD>', 'cases about business day D in REPORT_TIMEZONE (orders created that day, drift windows ending that day)')
    .option('--older-than <age>', 'opened (or reopened) longer ago than this: 30m, 12h, 3d')
    .option('--ref <text>', `a merchant or transaction ref, whole or its first ${REF_PIECE_MIN}+ characters, any case`)
    .option('--assignee <name>', "a console user's cases; '' for nobody's")
    .option('--account <id>', ACCOUNT_HELP)
    .addOption(
      new Option('--sort <order>', 'age: oldest opened first; risk: largest amount at risk first').choices([...CASE_SORTS]).default('age'),
    )
    .option('--limit <n>', 'cases per page (1 to 1000)', '100')
    .option('--after <cursor>', 'the page after this cursor (printed under each page, and as "next" in --json)')
    .option('--page <n>', 'the Nth page of --limit cases (1 is the first); a cursor (--after) is faster deep in a long queue')
    .option('--json', 'print {total, cases (each with its history), next} as JSON')
    .option('--all', 'with --json: every match in one document, no paging')
    .option('--csv', 'every match as CSV on stdout, header first (the workbook columns)')
    .addHelpText(
      'after',
      `\nExit: 0 listed (possibly nothing); 3 bad arguments or configuration.\n${envHelp([...DB_ENV, 'REPORT_TIMEZONE', 'CASE_SLA_HOURS'])}`,
    )
    .action(async (opts: ListOptions) => {
      const limit = inputOf(() => pageSize(opts.limit), '--limit');
      if (opts.all && opts.after) throw usage('--all: every match is one document; leave out --after');
      const pageNo = opts.page === undefined ? undefined : inputOf(() => pageNumber(opts.page!), '--page');
      if (pageNo !== undefined && (opts.after || opts.all || opts.csv))
        throw usage('--page: a page by its number, or by a cursor (--after), or every match (--all, --csv): choose one');
      await withCases(async (ctx) => {
        const now = new Date();
        const filter = listFilter(opts, ctx, now);
        if (opts.csv) return printCsv(ctx, filter, now);
        // With several accounts every case names its account (a column, "account_id" in JSON); with one, output as before.
        const several = configuredAccounts(ctx.config).length > 1;
        if (opts.all) {
          const all: CaseWithHistory[] = [];
          for await (const c of eachCase(ctx.db.knex, filter, opts.sort)) all.push({ ...c, history: [] });
          const histories = await caseHistories(
            ctx.db.knex,
            all.map((c) => c.id),
          );
          const cases = all.map((c) => caseJson({ ...c, history: histories.get(c.id) ?? [] }, several));
          return printOut(`${JSON.stringify({ total: cases.length, cases, next: null }, null, 2)}\n`);
        }
        const page = await listCases(ctx.db, filter, { sort: opts.sort, limit, after: opts.after, page: pageNo });
        if (pageNo !== undefined && page.cases.length === 0 && page.total > 0)
          throw usage(
            `--page: ${pageNo} is past the last page: ${count(page.total)} cases make ${plural(Math.ceil(page.total / limit), 'page')} of ${count(limit)}`,
          );
        if (opts.json)
          return printOut(
            `${JSON.stringify({ total: page.total, cases: page.cases.map((c: CaseWithHistory) => caseJson(c, several)), next: page.next }, null, 2)}\n`,
          );
        printOut(renderCaseList(page.cases, now, several));
        if (page.total > 0) printOut(`${pageFooter(page, process.argv.slice(2), pageNo)}\n`);
      });
    });

  cases
    .command('assign <id>')
    .description('give a case to a console user, or back to nobody')
    .option('--to <name>', "a console user's name ('' for nobody)")
    .option('--unassign', 'back to nobody')
    .option('--note <text>', 'why, for the history', '')
    .option('--as <name>', 'who assigns (default: PAYRECON_ACTOR, else the OS user)')
    .option('--json', 'print the case as JSON')
    .addHelpText('after', `\nExit: 0 assigned; 3 no such case or user, bad arguments.\n${envHelp([...DB_ENV, 'PAYRECON_ACTOR'])}`)
    .action(async (id: string, opts: { to?: string; unassign?: boolean; note: string; as?: string; json?: boolean }) => {
      if ((opts.to === undefined) === !opts.unassign) throw usage("assign: give --to NAME (a console user) or --unassign (or --to '')");
      const to = opts.unassign || opts.to!.trim() === '' ? null : opts.to!.trim();
      await withCases(async (ctx) => {
        const c = await assignCase(ctx.db, id, to, { actor: actorOf(opts.as, ctx), note: opts.note, now: new Date() });
        printOut(
          opts.json
            ? `${JSON.stringify(caseJson(c), null, 2)}\n`
            : `case ${c.id} ${c.assignee ? `assigned to ${c.assignee}` : 'unassigned'}\n`,
        );
      });
    });

  cases
    .command('comment <id>')
    .description("add a note to a case's history without changing its state")
    .requiredOption('--note <text>', 'the comment')
    .option('--as <name>', 'who comments (default: PAYRECON_ACTOR, else the OS user)')
    .option('--json', 'print the case as JSON')
    .addHelpText('after', `\nExit: 0 noted; 3 no such case, empty note, bad arguments.\n${envHelp([...DB_ENV, 'PAYRECON_ACTOR'])}`)
    .action(async (id: string, opts: { note: string; as?: string; json?: boolean }) => {
      await withCases(async (ctx) => {
        const c = await commentCase(ctx.db, id, { actor: actorOf(opts.as, ctx), note: opts.note, now: new Date() });
        printOut(opts.json ? `${JSON.stringify(caseJson(c), null, 2)}\n` : `case ${c.id}: comment added by ${c.history.at(-1)!.actor}\n`);
      });
    });

  cases
    .command('show <id>')
    .description("a case, its order's local and provider values, every check of the order, and the history")
    .option('--json', 'print it as JSON')
    .addHelpText('after', `\nExit: 0 shown; 3 no such case, bad arguments or configuration.\n${envHelp(DB_ENV)}`)
    .action(async (id: string, opts: { json?: boolean }) => {
      await withCases(async (ctx) => {
        const detail = await showCase(ctx.db, id);
        printOut(opts.json ? `${JSON.stringify(caseDetailJson(detail), null, 2)}\n` : renderCaseDetail(detail, new Date()));
      });
    });

  cases
    .command('ack <id>')
    .description('acknowledge a case: someone is on it (alert repeats stop; it stays in the open queue)')
    .option('--note <text>', 'what is being done', '')
    .option('--as <name>', 'who acknowledges (default: PAYRECON_ACTOR, else the OS user)')
    .option('--json', 'print the case as JSON')
    .addHelpText(
      'after',
      `\nExit: 0 acknowledged; 3 no such case, already acknowledged or resolved, bad arguments.\n${envHelp([...DB_ENV, 'PAYRECON_ACTOR'])}`,
    )
    .action(async (id: string, opts: { note: string; as?: string; json?: boolean }) => {
      await withCases(async (ctx) => {
        const c = await acknowledgeCase(ctx.db, id, { actor: actorOf(opts.as, ctx), note: opts.note, now: new Date() });
        printOut(opts.json ? `${JSON.stringify(caseJson(c), null, 2)}\n` : `case ${c.id} acknowledged by ${c.history.at(-1)!.actor}\n`);
      });
    });

  const resolve = cases
    .command('resolve [id]')
    .description('resolve a case with a reason and a note; or, with --all-matching, every case the list filters select')
    .addOption(new Option('--reason <reason>', 'why it is resolved').choices([...RESOLUTION_REASONS]).makeOptionMandatory())
    .requiredOption('--note <text>', 'what was done (required)')
    .option('--as <name>', 'who resolves (default: PAYRECON_ACTOR, else the OS user)')
    .option('--json', 'print the case (with --all-matching: the outcome) as JSON')
    .option('--all-matching', 'resolve every unresolved case the filters below select (at least one filter required)')
    .option(
      '--dry-run',
      'with --all-matching: say what would be resolved and what left, naming cases assigned to someone else; change nothing',
    )
    .option('--include-assigned', 'with --all-matching: resolve cases assigned to someone else too (left to them by default)');
  addBulkFilters(resolve)
    .addHelpText(
      'after',
      `
Reasons: provider-corrected (the provider fixed its side), adjusted (we booked a correction),
written-off (accepted as is: the case stays resolved while the finding persists), duplicate,
false-positive, other. A resolved case whose finding comes back is reopened (except written-off).
--all-matching: one audit event per case; a case that changed while the command ran is left as it is and counted.
A case assigned to someone other than the actor is left to them (and named) unless --include-assigned;
--dry-run decides every case the same way and writes nothing, so its counts are the real run's.
Exit: 0 resolved; 3 no such case, already resolved, no filter with --all-matching, bad arguments.
${envHelp([...DB_ENV, 'PAYRECON_ACTOR'])}`,
    )
    .action(
      async (
        id: string | undefined,
        opts: ListOptions & {
          reason: string;
          note: string;
          as?: string;
          json?: boolean;
          allMatching?: boolean;
          dryRun?: boolean;
          includeAssigned?: boolean;
        },
      ) => {
        if (opts.allMatching && id !== undefined) throw usage('resolve: give a case id or --all-matching with filters, not both');
        if (!opts.allMatching && (opts.dryRun || opts.includeAssigned))
          throw usage(
            `${opts.dryRun ? '--dry-run' : '--include-assigned'}: goes with --all-matching (one case is resolved as you name it)`,
          );
        if (!opts.allMatching && id === undefined) throw usage('resolve: give a case id, or --all-matching with the list filters');
        await withCases(async (ctx) => {
          const now = new Date();
          const actor = actorOf(opts.as, ctx);
          if (opts.allMatching) {
            const filter = { ...listFilter({ ...opts, state: opts.state ?? undefined }, ctx, now) };
            if (isEmptyFilter(filter))
              throw usage(
                "--all-matching: give at least one filter (--code, --currency, --day, --older-than, --ref, --assignee NAME, --account; --assignee '' alone is none) so this cannot resolve the whole queue by accident",
              );
            const selected: SelectedCase[] = [];
            for await (const c of eachCase(ctx.db.knex, filter)) selected.push({ id: c.id, version: c.version });
            const out = await actOnCases(ctx.db, selected, { kind: 'resolve', actor, reason: opts.reason, note: opts.note }, now, {
              dryRun: opts.dryRun,
              me: actor,
              includeAssigned: opts.includeAssigned,
            });
            if (!opts.dryRun) await settleAlerts(ctx);
            printOut(
              opts.json
                ? `${JSON.stringify(bulkJson(selected.length, out, opts.dryRun), null, 2)}\n`
                : bulkText(selected.length, out, opts),
            );
            return;
          }
          const c = await resolveCase(ctx.db, id!, { actor, reason: opts.reason, note: opts.note, now });
          // The alert this case was behind may be over now: resolve it and send its one "resolved" message.
          await settleAlerts(ctx);
          printOut(
            opts.json
              ? `${JSON.stringify(caseJson(c), null, 2)}\n`
              : `case ${c.id} resolved (${c.resolution}) by ${c.history.at(-1)!.actor}\n`,
          );
        });
      },
    );
}

/** The outcome of --all-matching as JSON: the same keys on a dry run, with dry_run true. */
function bulkJson(matched: number, out: BulkOutcome, dryRun = false): Record<string, unknown> {
  const others = out.refused.filter((r) => !out.assignedElsewhere.some((a) => a.id === r.id));
  return {
    dry_run: dryRun,
    matched,
    resolved: out.done.length,
    assigned_elsewhere: out.assignedElsewhere,
    refused: others,
  };
}

function bulkText(matched: number, out: BulkOutcome, opts: { reason: string; dryRun?: boolean }): string {
  const others = out.refused.length - out.assignedElsewhere.length;
  const lines = [
    `${opts.dryRun ? 'dry run: ' : ''}${plural(out.done.length, 'case')} ${opts.dryRun ? 'would be resolved' : 'resolved'} (${opts.reason}) of ${count(matched)} matching${others ? `; ${count(others)} left as they were (changed meanwhile or already resolved)` : ''}`,
  ];
  if (out.assignedElsewhere.length) {
    const named = out.assignedElsewhere.slice(0, 50).map((a) => `#${a.id} (${a.assignee})`);
    const more = out.assignedElsewhere.length > 50 ? `, and ${count(out.assignedElsewhere.length - 50)} more` : '';
    lines.push(
      `${plural(out.assignedElsewhere.length, 'case')} assigned to someone else ${opts.dryRun ? 'would be' : 'were'} left to them: ${named.join(', ')}${more}; add --include-assigned to resolve them too`,
    );
  }
  return `${lines.join('\n')}\n`;
}

interface ListOptions {
  state?: CaseState | 'all';
  code?: string[];
  currency?: string;
  day?: string;
  olderThan?: string;
  ref?: string;
  assignee?: string;
  account?: string;
  sort: CaseSort;
  limit: string;
  after?: string;
  page?: string;
  json?: boolean;
  all?: boolean;
  csv?: boolean;
}

/** --code FEE,AMOUNT or --code FEE --code AMOUNT: any of the codes, each checked, any case. */
function codesOption(): Option {
  return new Option('--code <codes>', `finding codes, comma-separated or repeated (${CASE_CODES.join(', ')})`).argParser(
    (value: string, previous: string[] | undefined) => {
      const codes = value
        .split(',')
        .map((c) => c.trim().toUpperCase())
        .filter(Boolean);
      const bad = codes.find((c) => !CASE_CODES.includes(c));
      if (bad !== undefined || codes.length === 0)
        throw new InvalidArgumentError(`${JSON.stringify(bad ?? value)} is not a finding code; choose from ${CASE_CODES.join(', ')}`);
      return [...new Set([...(previous ?? []), ...codes])];
    },
  );
}

/** The list's filters on a bulk command (no paging: it acts on every match). */
function addBulkFilters(cmd: Command): Command {
  return cmd
    .addOption(new Option('--state <state>', 'open or acknowledged (default: both)').choices(['open', 'acknowledged']))
    .addOption(codesOption())
    .addOption(new Option('--currency <code>', 'INR, NGN or IDR').choices(['INR', 'NGN', 'IDR']).argParser((v) => v.toUpperCase()))
    .option('--day <YYYY-MM-DD>', 'cases about business day D in REPORT_TIMEZONE')
    .option('--older-than <age>', 'opened (or reopened) longer ago than this: 30m, 12h, 3d')
    .option('--ref <text>', `a merchant or transaction ref, whole or its first ${REF_PIECE_MIN}+ characters`)
    .option('--assignee <name>', "a console user's cases; '' for nobody's")
    .option('--account <id>', ACCOUNT_HELP);
}

const ACCOUNT_HELP = "one account's cases (ACCOUNTS_FILE; default: every account's)";

function listFilter(opts: Omit<ListOptions, 'sort' | 'limit'>, ctx: JobDeps, now: Date): CaseFilter {
  const olderThan = opts.olderThan === undefined ? undefined : inputOf(() => parseAge(opts.olderThan!), '--older-than');
  const day = opts.day === undefined ? undefined : inputOf(() => businessDay(opts.day!, ctx.config.REPORT_TIMEZONE), '--day');
  if (opts.ref !== undefined && opts.ref.trim().length < REF_PIECE_MIN)
    throw usage(`--ref: give at least ${REF_PIECE_MIN} characters of a merchant or transaction ref (got ${JSON.stringify(opts.ref)})`);
  return {
    states: opts.state === 'all' ? undefined : opts.state ? [opts.state] : ['open', 'acknowledged'],
    codes: opts.code,
    currency: opts.currency,
    occurredFrom: day?.start.toJSDate(),
    occurredTo: day?.end.toJSDate(),
    openedBefore: olderThan === undefined ? undefined : new Date(now.getTime() - olderThan),
    ref: opts.ref?.trim(),
    assignee: opts.assignee === undefined ? undefined : opts.assignee.trim() === '' ? null : opts.assignee.trim(),
    // Named: that account's cases (an unknown id is a usage error listing the configured ones); left out: every account's.
    ...(opts.account === undefined ? {} : { accountId: accountFor(ctx.config, opts.account).id }),
  };
}

function pageSize(text: string): number {
  if (!/^\d{1,4}$/.test(text) || Number(text) < 1 || Number(text) > 1000)
    throw new Error(`expected a whole number from 1 to 1000 (got ${JSON.stringify(text)})`);
  return Number(text);
}

function pageNumber(text: string): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new Error(`expected a page number from 1 (got ${JSON.stringify(text)})`);
  return Number(text);
}

/**
 * "showing 101–200 of 20,003" and the command for the next page: this one's arguments with the
 * next --page when a page number was asked for, else with --after and the cursor.
 */
function pageFooter(
  page: { first: number; cases: unknown[]; total: number; next: string | null },
  argv: readonly string[],
  pageNo: number | undefined,
): string {
  const shown = `showing ${count(page.first)}–${count(page.first + page.cases.length - 1)} of ${count(page.total)}`;
  if (!page.next) return shown;
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--after' || argv[i] === '--page') i++;
    else if (!argv[i].startsWith('--after=') && !argv[i].startsWith('--page='))
      args.push(/^[\w@%+=:,./-]+$/.test(argv[i]) ? argv[i] : `'${argv[i].replaceAll("'", "'\\''")}'`);
  }
  const onward = pageNo === undefined ? `--after ${page.next}` : `--page ${pageNo + 1}`;
  return `${shown}; next page: payrecon ${args.join(' ')} ${onward}`;
}

// LF, not the reports' CRLF: stdout goes through the terminal sanitizer, which shows a bare CR as text.
const csvLine = (row: readonly string[]) => `${encodeCsvRecord(row).slice(0, -2)}\n`;

async function printCsv(ctx: JobDeps, filter: CaseFilter, now: Date): Promise<void> {
  printOut(csvLine(EXPORT_COLUMNS));
  let chunk = '';
  let rows = 0;
  for await (const c of eachCase(ctx.db.knex, filter)) {
    rows += 1;
    chunk += csvLine(exportCsvRow(c, ctx.config.CASE_SLA_HOURS, now));
    if (chunk.length > 65_536) {
      printOut(chunk);
      chunk = '';
    }
  }
  printOut(chunk);
  // The upload's limit, said where the file is made rather than when it is refused (loaded here: it brings exceljs).
  const { IMPORT_MAX_ROWS } = await import('../cases/import-file.ts');
  if (rows > IMPORT_MAX_ROWS)
    printErr(
      `note: ${count(rows)} rows; an upload (console: Cases → upload) takes at most ${count(IMPORT_MAX_ROWS)}: to resolve them through the spreadsheet, narrow the filter and export in parts\n`,
    );
}

const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? '' : 's'}`;
const count = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

// The database and alerting modules load when a subcommand runs, not for --help or a usage error.
async function withCases(fn: (deps: JobDeps) => Promise<void>): Promise<void> {
  const { withJob } = await import('../runtime/with-job.ts');
  await withJob('cases', {}, fn);
  process.exitCode ??= EXIT.OK;
}

/** After a resolve: alerts whose cases are all resolved now are resolved, with their one "resolved" message. */
async function settleAlerts(ctx: JobDeps): Promise<void> {
  const { raiseAndDeliver } = await import('../runtime/alerting.ts');
  await raiseAndDeliver({ db: ctx.db, config: ctx.config, logger: ctx.logger, now: () => new Date(), job: 'cases' }, []);
}

/** --as, else PAYRECON_ACTOR, else the OS user: every transition names a person. */
const actorOf = (as: string | undefined, ctx: JobDeps): string => actorOfConfig(as, ctx.config);

function inputOf<T>(fn: () => T, option: string): T {
  try {
    return fn();
  } catch (err) {
    throw usage(`${option}: ${messageOf(err)}`);
  }
}
