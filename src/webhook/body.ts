import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes`);
  }
}

/**
 * Reads the request body as its exact bytes (signatures are checked over them), refusing more than maxBytes: a declared Content-Length is refused before
 * reading, and a chunked body is cut off as soon as it crosses the limit (never buffered whole).
 */
export function readLimitedBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
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
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text, or undefined when its bytes are not UTF-8 (refused, never silently replaced by U+FFFD). */
export function decodeUtf8(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}
