import fs from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { assignableUsers } from '../../cases/work.ts';
import { selectCasePage, type CasePage } from '../../db/case-queue.ts';
import { writeQueueWorkbook } from '../../cases/export-workbook.ts';
import { exportRefused, queueBody } from '../pages/case-queue.ts';
import { page } from '../pages/layout.ts';
import { filterOf, pageNumberOf, type Query } from './case-query.ts';
import { exportFileName } from './case-export-name.ts';
import { messageOf } from '../../domain/errors.ts';
import { consoleAccountIds } from './account-choice.ts';

const PAGE = 100;

/** The queue (GET /cases) and its workbook export: reading, no change. */
export function registerCaseQueueRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const zone = deps.config.REPORT_TIMEZONE;
  const accountIds = consoleAccountIds(deps.config);

  app.get('/cases', { config: { access: 'read' } }, async (request, reply) => {
    const now = deps.now();
    const s = request.session!;
    const q = request.query as Query;
    const { filter, sort, problems, shown } = filterOf(q, zone, now, s.userName, accountIds);
    let found: CasePage | null = null;
    if (problems.length === 0) {
      try {
        const pageNo = q.page && !q.after && !q.before ? pageNumberOf(q.page, problems) : undefined;
        if (problems.length === 0) {
          found = await selectCasePage(deps.db.knex, filter, {
            sort,
            limit: PAGE,
            after: q.after || undefined,
            before: q.before || undefined,
            page: pageNo,
          });
          if (pageNo !== undefined && found.cases.length === 0 && found.total > 0) {
            problems.push(`page: ${pageNo} is past the last page (${Math.ceil(found.total / PAGE)} pages of ${PAGE})`);
            found = null;
          }
        }
      } catch (err) {
        if (!/^cursor: /.test(messageOf(err))) throw err;
        problems.push(messageOf(err));
      }
    }
    const users = await assignableUsers(deps.db);
    const at = found ? Object.fromEntries((['after', 'before', 'page'] as const).flatMap((k) => (q[k] ? [[k, q[k]]] : []))) : {};
    const body = queueBody({ deps, s, now, shown, found, problems, users, at, accountIds });
    return sendPage(reply, problems.length ? 400 : 200, page({ title: 'Cases', session: s, nav: 'cases' }, body));
  });

  /** The filtered queue as a workbook, every match, with empty resolution columns to fill in. */
  app.get('/cases/export.xlsx', { config: { access: 'read' } }, async (request, reply) => {
    const s = request.session!;
    const now = deps.now();
    const { filter, sort, problems, shown } = filterOf(request.query as Query, zone, now, s.userName, accountIds);
    if (problems.length) return sendPage(reply, 400, page({ title: 'Cases', session: s, nav: 'cases' }, exportRefused(problems)));
    const out = await writeQueueWorkbook(deps.db, filter, sort, { zone, sla: deps.config.CASE_SLA_HOURS, now });
    try {
      const bytes = await fs.readFile(out.file);
      return reply
        .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
        .header('Content-Disposition', `attachment; filename="${exportFileName(shown, now, zone)}"`)
        .send(bytes);
    } finally {
      await out.remove();
    }
  });
}
