import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { ProviderResponseError } from './errors.ts';
import type { Operation } from './types.ts';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  contentType: string | undefined;
}

type Controller = Dispatcher.DispatchController;

/**
 * One request's answer, read straight from undici's dispatch callbacks into a list of chunks:
 * no body stream and no abort signal per request, which at a few thousand fetches a second is a
 * measurable share of the client's time (bench/run.ts, 50 ms latency). The body is bounded:
 * a Content-Length or a stream over `maxBodyBytes` aborts the request (the socket is dropped,
 * nothing more is buffered). The whole request has one deadline, connect to last byte.
 */
export class BoundedResponse implements Dispatcher.DispatchHandler {
  private controller: Controller | null = null;
  private status = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private settled = false;
  private timedOut = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly operation: Operation,
    private readonly maxBodyBytes: number,
    timeoutMs: number,
    private readonly resolve: (res: RawResponse) => void,
    /** timedOut: the deadline passed; the error is undici's (or the abort's) as it came. */
    private readonly reject: (err: unknown, timedOut: boolean) => void,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.fail(new Error('deadline passed'));
    }, timeoutMs);
  }

  onRequestStart(controller: Controller): void {
    this.controller = controller;
    // A deadline that passed while the request waited for a free connection: it is not sent.
    if (this.settled) controller.abort(new Error('request already settled'));
  }

  onResponseStart(_controller: Controller, status: number, headers: IncomingHttpHeaders): void {
    this.status = status;
    this.headers = headers;
    const declared = Number(headerValue(headers['content-length']));
    if (Number.isFinite(declared) && declared > this.maxBodyBytes) {
      this.fail(
        new ProviderResponseError(
          this.operation,
          `response body of ${declared} bytes (Content-Length) exceeds the ${this.maxBodyBytes}-byte limit; not read`,
          { httpStatus: status, received: `${declared} bytes` },
        ),
      );
    }
  }

  onResponseData(_controller: Controller, chunk: Buffer): void {
    if (this.settled) return;
    this.size += chunk.length;
    if (this.size > this.maxBodyBytes) {
      this.fail(
        new ProviderResponseError(
          this.operation,
          `response body exceeds the ${this.maxBodyBytes}-byte limit (more than ${this.size - chunk.length} bytes received); abandoned`,
          { httpStatus: this.status, received: `>${this.maxBodyBytes} bytes` },
        ),
      );
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    // One chunk (the usual answer) is decoded without a copy; a byte-order mark is kept either way.
    const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    this.resolve({
      status: this.status,
      headers: this.headers,
      text: body.toString('utf8'),
      contentType: headerValue(this.headers['content-type']),
    });
  }

  onResponseError(_controller: Controller, err: Error): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.reject(err, this.timedOut);
  }

  /** Settles with `err` and drops the request: its socket is closed, the rest of the body never read. */
  fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.reject(err, this.timedOut);
    this.controller?.abort(err instanceof Error ? err : new Error(String(err)));
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
