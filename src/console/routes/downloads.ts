import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { findReportVersionById } from '../../db/report-days.ts';
import { CONTENT_TYPES, versionFiles } from '../report-files.ts';
import { html } from '../../html/html.ts';
import { page } from '../pages/layout.ts';
import { removedVersionSentence } from '../../report/removed-version.ts';

const REPORT_HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox; frame-ancestors 'none'; base-uri 'none'";

export function registerDownloadRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  /**
   * A report file by version id and the file's name in that version. The name only selects among
   * the files the version lists (compared for equality); the path comes from the version record.
   */
  app.get('/reports/:versionId/files/:name', { config: { access: 'read' } }, async (request, reply) => {
    const { versionId, name } = request.params as { versionId: string; name: string };
    const notFound = () => sendPage(reply, 404, page({ title: 'Not found', session: request.session }, html`<h1>No such report file</h1>`));
    if (!/^[1-9]\d{0,17}$/.test(versionId)) return notFound();
    const version = await findReportVersionById(deps.db.knex, versionId);
    if (!version) return notFound();
    const removed = removedVersionSentence(version);
    if (removed !== null)
      return sendPage(
        reply,
        410,
        page(
          { title: 'Report version removed', session: request.session },
          html`<h1>Report version removed</h1>
            <p>The file ${name} is no longer kept: ${removed}.</p>
            <p><a href="/days/${version.businessDate}">Business day ${version.businessDate}</a> shows its current version.</p>`,
        ),
      );
    const file = versionFiles(version).find((f) => f.name === name);
    if (!file) return notFound();
    const ext = file.name.slice(file.name.lastIndexOf('.') + 1);
    // report.html opens in the browser; the rest download. The report's own inline styles and
    // charts need a looser policy than the console's pages, in a sandbox without scripts or forms.
    const inline = ext === 'html';
    if (inline) reply.header('Content-Security-Policy', REPORT_HTML_CSP);
    return reply
      .type(inline ? 'text/html; charset=utf-8' : (CONTENT_TYPES[ext] ?? 'application/octet-stream'))
      .header(
        'Content-Disposition',
        `${inline ? 'inline' : 'attachment'}; filename="payrecon-${version.businessDate}-v${version.version}-${file.name}"`,
      )
      .header('Content-Length', file.bytes)
      .send(fs.createReadStream(file.path));
  });
}
