import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { listReportDays, versionsOfDay } from '../../db/report-days.ts';
import { businessDay } from '../../report/date.ts';
import { versionMismatches } from '../../db/day-mismatches.ts';
import { previewCsv, versionFiles } from '../report-files.ts';
import { rerunRefusal } from '../can-do.ts';
import { messageOf } from '../../domain/errors.ts';
import { badAccountPage, daysListPage } from '../pages/days-list.ts';
import { consoleAccountIds } from './account-choice.ts';
import { badDatePage, dayPage, type DaySection } from '../pages/day-page.ts';
import { dayByAccount } from '../../db/day-accounts.ts';
import { dayAccountsPage } from '../pages/day-accounts.ts';

/** The report's sections shown on a day's page, in order, where the version has the file. */
const SECTIONS: ReadonlyArray<{ title: string; match: (name: string) => boolean }> = [
  // summary.csv: a version written before the summary was one file per table.
  { title: 'Orders by currency and direction', match: (n) => n === 'summary_orders.csv' || n === 'summary.csv' },
  { title: 'Roll-forward', match: (n) => n === 'summary_rollforward.csv' },
  { title: 'Timing items of the roll-forward', match: (n) => n === 'timing_items.csv' },
  { title: 'Open items of earlier days', match: (n) => n === 'open_items.csv' },
  { title: 'Late changes to earlier days', match: (n) => n === 'late_changes.csv' },
  { title: 'Balances', match: (n) => n === 'balances.csv' },
];

const MISMATCHES_SHOWN = 200;

export function registerDayRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;
  const cannotRerun = rerunRefusal(deps.config);
  const accountIds = consoleAccountIds(deps.config);

  // With several accounts, ?account=ID: that account's reports; with one it is ignored. undefined: none chosen.
  const chosenAccount = (query: unknown): string | undefined => {
    const raw = (query as { account?: unknown }).account;
    return typeof raw === 'string' && raw !== '' && accountIds.length > 1 ? raw : undefined;
  };
  const unknownAccount = (account: string) =>
    `account: ${JSON.stringify(account.slice(0, 40))} is not a configured account; choose from ${accountIds.join(', ')}`;

  app.get('/days', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const account = chosenAccount(request.query);
    if (account !== undefined && !accountIds.includes(account)) return sendPage(reply, 400, badAccountPage(s, unknownAccount(account)));
    const days = await listReportDays(deps.db.knex, 120, account);
    return sendPage(reply, 200, daysListPage({ session: s, days, zone, cannotRerun, accountIds, account: account ?? '' }));
  });

  app.get('/days/:date', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const raw = (request.params as { date: string }).date;
    let date: string;
    try {
      date = businessDay(raw, zone).date;
    } catch (err) {
      return sendPage(reply, 400, badDatePage(s, messageOf(err)));
    }
    // With several accounts a day has one report per account: the page is one account's (its versions,
    // files from its own folder); with none chosen, the consolidated day shows the accounts side by side.
    const account = chosenAccount(request.query);
    if (account !== undefined && !accountIds.includes(account)) return sendPage(reply, 400, badAccountPage(s, unknownAccount(account)));
    if (account === undefined && accountIds.length > 1) return reply.redirect(`/days/${date}/accounts`);
    const versions = await versionsOfDay(deps.db.knex, date, account);
    const current = versions[0];
    const sections: DaySection[] = [];
    if (current) {
      const files = versionFiles(current);
      for (const section of SECTIONS) {
        const file = files.find((f) => section.match(f.name));
        if (file) sections.push({ title: section.title, fileName: file.name, preview: await previewCsv(file.path) });
      }
    }
    const mismatches = current ? await versionMismatches(deps.db.knex, current.id, MISMATCHES_SHOWN) : null;
    return sendPage(
      reply,
      200,
      dayPage({ session: s, date, zone, cannotRerun, versions, sections, mismatches, ...(account !== undefined ? { account } : {}) }),
    );
  });

  // One day across every account, summed from the orders, checks and cases in the database.
  app.get('/days/:date/accounts', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const raw = (request.params as { date: string }).date;
    let day: ReturnType<typeof businessDay>;
    try {
      day = businessDay(raw, zone);
    } catch (err) {
      return sendPage(reply, 400, badDatePage(s, messageOf(err)));
    }
    const rows = await dayByAccount(deps.db.knex, day.start.toJSDate(), day.end.toJSDate());
    return sendPage(reply, 200, dayAccountsPage({ session: s, date: day.date, zone, rows }));
  });
}
