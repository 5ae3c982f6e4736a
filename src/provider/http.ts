import { Pool } from 'undici';
import { ProviderResponseError, ProviderUnavailableError } from './errors.ts';
import type { Operation } from './types.ts';

export interface TransportOptions {
  /** Origin plus optional path prefix, e.g. https://gw.example.com or http://127.0.0.1:4010/base. */
  baseUrl: string;
  /** Keep-alive sockets in the pool: as many as requests we run at once. */
  connections: number;
  /** Whole-request deadline: connect, headers and body together. */
  timeoutMs: number;
  maxBodyBytes: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  contentType: string | undefined;
}

/** Errors raised before the request could have been written: safe to re-send anything. */
const PRE_SEND_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** One keep-alive pool per provider origin; returns raw status, headers and bounded body text. */
export class Transport {
  private readonly pool: Pool;
  private readonly pathPrefix: string;

  constructor(private readonly options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.pathPrefix = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      pipelining: 1,
      // Backstops for the AbortController deadline below.
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connectTimeout: options.timeoutMs,
    });
  }

  async post(operation: Operation, path: string, headers: Record<string, string>, body: string): Promise<RawResponse> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    try {
      const res = await this.pool.request({
        method: 'POST',
        path: `${this.pathPrefix}${path}`,
        headers,
        body: Buffer.from(body, 'utf8'),
        signal: controller.signal,
      });
      const contentType = headerValue(res.headers['content-type']);
      const text = await this.readBounded(operation, res.statusCode, res.headers, res.body);
      return { status: res.statusCode, headers: res.headers, text, contentType };
    } catch (err) {
      if (err instanceof ProviderResponseError) throw err;
      throw this.networkError(operation, err, timedOut);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Reads at most maxBodyBytes; a larger body is abandoned (socket destroyed), never buffered. */
  private async readBounded(
    operation: Operation,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown; arrayBuffer(): Promise<ArrayBuffer> },
  ): Promise<string> {
    const max = this.options.maxBodyBytes;
    const declared = Number(headerValue(headers['content-length']));
    if (Number.isFinite(declared) && declared > max) {
      body.destroy();
      throw new ProviderResponseError(
        operation,
        `response body of ${declared} bytes (Content-Length) exceeds the ${max}-byte limit; not read`,
        {
          httpStatus: status,
          received: `${declared} bytes`,
        },
      );
    }
    // A declared length within the limit bounds the body already (undici reads no more than it), so
    // it is read whole, without an async iterator's promises per chunk: every fetch takes this path.
    // Decoded as below, so both paths give the same text (a byte-order mark is kept, not skipped).
    if (Number.isFinite(declared)) return Buffer.from(await body.arrayBuffer()).toString('utf8');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > max) {
        body.destroy();
        throw new ProviderResponseError(
          operation,
          `response body exceeds the ${max}-byte limit (more than ${size - chunk.length} bytes received); abandoned`,
          {
            httpStatus: status,
            received: `>${max} bytes`,
          },
        );
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size).toString('utf8');
  }

  private networkError(operation: Operation, err: unknown, timedOut: boolean): ProviderUnavailableError {
    const code = errorCode(err);
    if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return new ProviderUnavailableError(operation, `no complete answer within ${this.options.timeoutMs} ms (timeout)`, {
        cause: code ?? 'TIMEOUT',
        outcomeUnknown: true,
      });
    }
    if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED') {
      return new ProviderUnavailableError(operation, 'client is closed', { cause: code }, false);
    }
    const message = err instanceof Error ? err.message : String(err);
    return new ProviderUnavailableError(operation, `network error ${code ?? ''}: ${message}`.replace(/\s+/g, ' '), {
      cause: code ?? 'NETWORK',
      outcomeUnknown: !(code && PRE_SEND_CODES.has(code)),
    });
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Node and undici put the useful code on the error or on its cause (AggregateError for dual-stack connects). */
function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const inner = (e as { cause?: unknown; errors?: unknown[] }).cause ?? (e as { errors?: unknown[] }).errors?.[0];
    e = inner;
  }
  return undefined;
}
