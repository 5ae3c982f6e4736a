import type { FastifyRequest } from 'fastify';
import { sameToken } from './http-kit.ts';
import type { Session } from './auth/sessions.ts';
import { messageOf } from '../domain/errors.ts';

/** The largest upload read: the export of 20,000 cases (the most one upload applies) is about 1.7 MB. */
export const UPLOAD_MAX_BYTES = 8 * 1024 * 1024;

export type Upload = { kind: 'file'; fileName: string; bytes: Buffer } | { kind: 'refused'; status: 400 | 403 | 413; message: string };

/**
 * One file from a multipart form whose first field is the session's CSRF token: the token is checked
 * before a byte of the file is read (the app's pre-handler leaves multipart routes to this), and the
 * file is read up to UPLOAD_MAX_BYTES.
 */
export async function readUpload(request: FastifyRequest, s: Session, field = 'file'): Promise<Upload> {
  if (!request.isMultipart()) return { kind: 'refused', status: 400, message: 'expected a form upload (multipart/form-data) with a file' };
  const limits = { fileSize: UPLOAD_MAX_BYTES, files: 1, fields: 4, parts: 5, fieldSize: 1024 };
  let csrfChecked = false;
  try {
    for await (const part of request.parts({ limits })) {
      if (part.type === 'field') {
        if (part.fieldname === '_csrf') {
          if (!sameToken(part.value, s.csrfToken)) break;
          csrfChecked = true;
        }
        continue;
      }
      if (!csrfChecked) break;
      if (part.fieldname !== field) {
        await part.toBuffer().catch(() => undefined);
        continue;
      }
      const bytes = await part.toBuffer();
      if (bytes.length === 0) return { kind: 'refused', status: 400, message: 'the file is empty: choose the filled-in export' };
      return { kind: 'file', fileName: part.filename || 'upload', bytes };
    }
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      return {
        kind: 'refused',
        status: 413,
        message: `the file is larger than ${UPLOAD_MAX_BYTES / 1024 / 1024} MB: export a narrower filter (for example one code or currency) and upload it in parts`,
      };
    if (code === 'FST_PARTS_LIMIT' || code === 'FST_FILES_LIMIT' || code === 'FST_FIELDS_LIMIT')
      return { kind: 'refused', status: 400, message: 'upload one file with the form as the page gives it' };
    if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || /multipart|boundary|Unexpected end/i.test(messageOf(err)))
      return { kind: 'refused', status: 400, message: `the upload could not be read (${messageOf(err)})` };
    throw err;
  }
  if (!csrfChecked)
    return {
      kind: 'refused',
      status: 403,
      message: 'The form was missing its security token or it was stale. Reload the page and try again.',
    };
  return { kind: 'refused', status: 400, message: 'no file in the upload: choose the filled-in export' };
}
