import { createRequire } from 'node:module';
import type { Pool as UndiciPool } from 'undici';
import { BoundedResponse, type RawResponse } from './bounded-response.ts';
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

/**
 * undici's pool alone: its index also loads fetch, WebSocket, caches and mocks, about 55 ms of CPU at
 * every start of a job that only needs the pool (issue 42). The package has no exports map, so the
 * path is its own; the class is the one its index exports as Pool.
 */
const Pool = createRequire(import.meta.url)('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
type Pool = UndiciPool;

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
      // Backstops for the whole-request deadline of BoundedResponse.
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connectTimeout: options.timeoutMs,
    });
  }

  post(operation: Operation, path: string, headers: Record<string, string>, body: string): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const onError = (err: unknown, timedOut: boolean) =>
        reject(err instanceof ProviderResponseError ? err : this.networkError(operation, err, timedOut));
      const handler = new BoundedResponse(operation, this.options.maxBodyBytes, this.options.timeoutMs, resolve, onError);
      try {
        this.pool.dispatch({ method: 'POST', path: `${this.pathPrefix}${path}`, headers, body: Buffer.from(body, 'utf8') }, handler);
      } catch (err) {
        handler.fail(err);
      }
    });
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
