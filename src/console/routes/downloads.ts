import fs from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { findReportVersionById } from '../../db/report-days.ts';
import { CONTENT_TYPES, versionFiles } from '../report-files.ts';
import { html } from '../html.ts';
import { page } from '../pages/layout.ts';

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
    const file = versionFiles(version).find((f) => f.name === name);
    if (!file) return notFound();
    const ext = file.name.slice(file.name.lastIndexOf('.') + 1);
    return reply
      .type(CONTENT_TYPES[ext] ?? 'application/octet-stream')
      .header('Content-Disposition', `attachment; filename="payrecon-${version.businessDate}-v${version.version}-${file.name}"`)
      .header('Content-Length', file.bytes)
      .send(fs.createReadStream(file.path));
  });
}
