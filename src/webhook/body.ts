import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes`);
  }
}

/**
 * Reads the request body as UTF-8, refusing more than maxBytes: a declared Content-Length is refused before
 * reading, and a chunked body is cut off as soon as it crosses the limit (never buffered whole).
 */
export function readLimitedBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(new BodyTooLargeError(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.pause();
        reject(new BodyTooLargeError(maxBytes));
      } else chunks.push(c);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
