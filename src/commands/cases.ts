import { printOut } from '../log/terminal.ts';
import os from 'node:os';
import { Option, type Command } from 'commander';
import { withJob, type JobDeps } from '../runtime/with-job.ts';
import { raiseAndDeliver } from '../runtime/alerting.ts';
import { acknowledgeCase, listCases, resolveCase, showCase } from '../cases/work.ts';
import { caseJson, caseDetailJson, renderCaseDetail, renderCaseList } from '../cases/render.ts';
import type { CaseFilter } from '../db/cases.ts';
import { businessDay } from '../report/date.ts';
import { CASE_STATES, RESOLUTION_REASONS, parseAge, type CaseState } from '../recon/cases.ts';
import { MISMATCH_CODES } from '../domain/verdicts.ts';
import { DB_ENV, envHelp, examplesHelp } from './env-help.ts';
import { EXIT } from '../domain/exit-codes.ts';
import { UsageError } from '../domain/errors.ts';
import { currencyOption } from './currency-option.ts';

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
        'payrecon cases show 42',
        'payrecon cases ack 42 --note "asked the provider"',
        'payrecon cases resolve 42 --reason adjusted --note "fee booked in the ledger"',
      ]),
    );

  cases
    .command('list')
    .description('cases matching the filters, oldest opened first (default: open and acknowledged)')
    .addOption(new Option('--state <state>', 'open, acknowledged, resolved, or all').choices([...CASE_STATES, 'all']))
    .addOption(new Option('--code <code>', 'a finding code').choices(CASE_CODES).argParser((v) => v.toUpperCase()))
    .addOption(currencyOption('INR, NGN or IDR (any case)'))
    .option('--day <YYYY-MM-DD>', 'cases about business day D in REPORT_TIMEZONE (orders created that day, drift windows ending that day)')
    .option('--older-than <age>', 'opened (or reopened) longer ago than this: 30m, 12h, 3d')
    .option('--json', 'print the cases, each with its history, as JSON')
    .addHelpText(
      'after',
      `\nExit: 0 listed (possibly nothing); 3 bad arguments or configuration.\n${envHelp([...DB_ENV, 'REPORT_TIMEZONE'])}`,
    )
    .action(
      async (opts: { state?: CaseState | 'all'; code?: string; currency?: string; day?: string; olderThan?: string; json?: boolean }) => {
        const olderThan = opts.olderThan === undefined ? undefined : inputOf(() => parseAge(opts.olderThan!), '--older-than');
        await withCases(async (ctx) => {
          const now = new Date();
          const day = opts.day === undefined ? undefined : inputOf(() => businessDay(opts.day!, ctx.config.REPORT_TIMEZONE), '--day');
          const filter: CaseFilter = {
            states: opts.state === 'all' ? undefined : opts.state ? [opts.state] : ['open', 'acknowledged'],
            code: opts.code,
            currency: opts.currency,
            occurredFrom: day?.start.toJSDate(),
            occurredTo: day?.end.toJSDate(),
            openedBefore: olderThan === undefined ? undefined : new Date(now.getTime() - olderThan),
          };
          const found = await listCases(ctx.db, filter);
          printOut(opts.json ? `${JSON.stringify(found.map(caseJson), null, 2)}\n` : renderCaseList(found, now));
        });
      },
    );

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

  cases
    .command('resolve <id>')
    .description('resolve a case with a reason and a note')
    .addOption(new Option('--reason <reason>', 'why it is resolved').choices([...RESOLUTION_REASONS]).makeOptionMandatory())
    .requiredOption('--note <text>', 'what was done (required)')
    .option('--as <name>', 'who resolves (default: PAYRECON_ACTOR, else the OS user)')
    .option('--json', 'print the case as JSON')
    .addHelpText(
      'after',
      `
Reasons: provider-corrected (the provider fixed its side), adjusted (we booked a correction),
written-off (accepted as is: the case stays resolved while the finding persists), duplicate,
false-positive, other. A resolved case whose finding comes back is reopened (except written-off).
Exit: 0 resolved; 3 no such case, already resolved, bad arguments.
${envHelp([...DB_ENV, 'PAYRECON_ACTOR'])}`,
    )
    .action(async (id: string, opts: { reason: string; note: string; as?: string; json?: boolean }) => {
      await withCases(async (ctx) => {
        const c = await resolveCase(ctx.db, id, { actor: actorOf(opts.as, ctx), reason: opts.reason, note: opts.note, now: new Date() });
        // The alert this case was behind may be over now: resolve it and send its one "resolved" message.
        await raiseAndDeliver({ db: ctx.db, config: ctx.config, logger: ctx.logger, now: () => new Date() }, []);
        printOut(
          opts.json
            ? `${JSON.stringify(caseJson(c), null, 2)}\n`
            : `case ${c.id} resolved (${c.resolution}) by ${c.history.at(-1)!.actor}\n`,
        );
      });
    });
}

async function withCases(fn: (deps: JobDeps) => Promise<void>): Promise<void> {
  await withJob('cases', {}, fn);
  process.exitCode ??= EXIT.OK;
}

/** --as, else PAYRECON_ACTOR, else the OS user: every transition names a person. */
function actorOf(as: string | undefined, ctx: JobDeps): string {
  if (as !== undefined) {
    if (!/^[^\x00-\x1f\x7f]{1,100}$/.test(as.trim())) throw usage('--as: expected a name of up to 100 printable characters');
    return as.trim();
  }
  if (ctx.config.PAYRECON_ACTOR) return ctx.config.PAYRECON_ACTOR;
  try {
    return os.userInfo().username;
  } catch {
    throw usage('no actor: pass --as NAME or set PAYRECON_ACTOR');
  }
}

function inputOf<T>(fn: () => T, option: string): T {
  try {
    return fn();
  } catch (err) {
    throw usage(`${option}: ${(err as Error).message}`);
  }
}
