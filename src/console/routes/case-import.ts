import type { FastifyInstance } from 'fastify';
import { sendPage, type ConsoleDeps } from '../http-kit.ts';
import { readUpload } from '../upload.ts';
import { confirmImport, previewImport } from '../../cases/import.ts';
import { ImportFileError } from '../../cases/import-file-error.ts';
import { html } from '../../html/html.ts';
import { recordAction } from '../../db/console-actions.ts';
import { page } from '../pages/layout.ts';
import { importDone, importForm, importPreview } from '../pages/case-import.ts';

/** The spreadsheet round trip: upload a filled-in queue export, see what it will do, confirm. Finance and admin only. */
export function registerCaseImportRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  const titled = (s: Parameters<typeof importForm>[0]) => (inner: ReturnType<typeof importForm>) =>
    page({ title: 'Upload cases', session: s, nav: 'cases' }, inner);

  app.get('/cases/import', { config: { access: 'work-cases' } }, async (request, reply) =>
    sendPage(reply, 200, titled(request.session!)(importForm(request.session!, null))),
  );

  // One workbook read at a time in this process: exceljs holds a workbook whole (about 200 MB at the
  // 20,000-row cap), so two at once would double that.
  let reading = false;

  app.post('/cases/import', { config: { access: 'work-cases', csrf: 'upload' } }, async (request, reply) => {
    const s = request.session!;
    const upload = await readUpload(request, s);
    if (upload.kind === 'refused') return sendPage(reply, upload.status, titled(s)(importForm(s, upload.message)));
    if (reading)
      return sendPage(
        reply.header('Retry-After', '30'),
        503,
        titled(s)(importForm(s, 'Another upload is being read in this console right now. Upload again in a minute.')),
      );
    reading = true;
    try {
      const {
        token,
        plan,
        upload: file,
      } = await previewImport(
        deps.db,
        { bytes: upload.bytes, fileName: upload.fileName },
        { userName: s.userName, actor: `console:${s.userName}` },
        deps.now(),
      );
      deps.logger.info(
        { user: s.userName, resolve: plan.resolve.length, refused: plan.refused.length, blank: plan.blank },
        'case import previewed',
      );
      await recordAction(deps.db.knex, {
        at: deps.now(),
        actor: s.userName,
        action: 'cases-import-previewed',
        target: file.fileName,
        address: request.ip,
        detail: { sha256: file.sha256, bytes: file.bytes, resolve: plan.resolve.length, refused: plan.refused.length, blank: plan.blank },
      });
      return sendPage(reply, 200, titled(s)(importPreview(s, { token, fileName: upload.fileName, plan })));
    } catch (err) {
      if (!(err instanceof ImportFileError)) throw err;
      return sendPage(reply, 400, titled(s)(importForm(s, `Nothing changed: ${err.message}`)));
    } finally {
      reading = false;
    }
  });

  app.post('/cases/import/:token/confirm', { config: { access: 'work-cases' } }, async (request, reply) => {
    const s = request.session!;
    const token = (request.params as { token: string }).token;
    const out = await confirmImport(deps.db, token, { userName: s.userName, actor: `console:${s.userName}` }, deps.now());
    if (out.kind === 'refused')
      return sendPage(
        reply,
        409,
        titled(s)(
          html`<h1>Nothing changed</h1>
            <p class="error" role="alert">${out.message}</p>
            <p><a href="/cases/import">upload a file</a></p>`,
        ),
      );
    deps.logger.info({ user: s.userName, resolved: out.outcome.done.length, refused: out.outcome.refused.length }, 'case import applied');
    // The import's audit event names the file it applied (name and SHA-256): which upload changed these cases.
    await recordAction(deps.db.knex, {
      at: deps.now(),
      actor: s.userName,
      action: 'cases-import-applied',
      target: out.upload.fileName,
      address: request.ip,
      detail: {
        sha256: out.upload.sha256,
        bytes: out.upload.bytes,
        resolved: out.outcome.done.length,
        refused: out.outcome.refused.length,
      },
    });
    return sendPage(reply, 200, titled(s)(importDone(out.outcome)));
  });
}
