// GET /healthz, /readyz and /metrics on a port of their own (never a public webhook or console port).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PayreconMetrics } from './metrics.ts';
import { messageOf } from '../domain/errors.ts';

/** Null when ready; otherwise the reason, sent with the 503. */
export type ReadinessCheck = () => Promise<string | null>;

export interface OpsServerOptions {
  host: string;
  port: number;
  metrics: PayreconMetrics;
  ready: ReadinessCheck;
  /** Reads the database gauges before each scrape (bounded; never throws). */
  beforeScrape?: () => Promise<void>;
}

export interface OpsServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startOpsServer(opts: OpsServerOptions): Promise<OpsServer> {
  const server = http.createServer((req, res) => {
    void answer(req, res, opts).catch((err: unknown) => send(res, 500, `error: ${messageOf(err)}\n`));
  });
  // A scraper's keep-alive socket must not hold the process open at shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function answer(req: http.IncomingMessage, res: http.ServerResponse, opts: OpsServerOptions): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'use GET\n');
  if (path === '/healthz') return send(res, 200, 'ok\n');
  if (path === '/readyz') {
    const reason = await opts.ready();
    return reason === null ? send(res, 200, 'ready\n') : send(res, 503, `not ready: ${reason}\n`);
  }
  if (path === '/metrics') {
    await opts.beforeScrape?.();
    const { contentType, body } = await opts.metrics.render();
    return send(res, 200, body, contentType);
  }
  send(res, 404, 'not found: try /healthz, /readyz or /metrics\n');
}

function send(res: http.ServerResponse, status: number, body: string, contentType = 'text/plain; charset=utf-8'): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
