import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardConnections, type ConnectionCaps, type ConnectionCounts } from './connection-guard.ts';

export interface WebhookServer {
  /** e.g. http://127.0.0.1:8080 (append /webhooks/payment). */
  url: string;
  port: number;
  /** Connections open now, and those answering a request (for status and tests). */
  connections(): ConnectionCounts;
  /** Stops accepting, lets requests in flight finish, then resolves. */
  close(): Promise<void>;
}

/**
 * Limits against a client holding the port: a notification is a few hundred bytes, so a request
 * (headers and body) taking longer than this is dropped; an idle keep-alive connection is closed
 * after keepAliveTimeoutMs (the provider reconnects for the next delivery); beyond the connection
 * caps the longest-idle connection makes room (connection-guard.ts).
 */
export const WEBHOOK_SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
  maxConnectionsPerAddress: 64,
});

interface ServerLimits extends ConnectionCaps {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

export interface WebhookServerOptions extends Partial<ServerLimits> {
  port: number;
  host?: string;
}

/** A bare node:http server around the webhook handler (`payrecon webhook serve`). */
export async function startWebhookServer(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  options: WebhookServerOptions,
): Promise<WebhookServer> {
  const limits = { ...WEBHOOK_SERVER_LIMITS, ...options };
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // node checks both timeouts on this interval (30 s by default, too coarse for them).
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs, limits.requestTimeoutMs),
    },
    (req, res) => void handler(req, res),
  );
  const guarded = guardConnections(server, limits);
  // Short, and announced in the Keep-Alive header, so a client reuses a socket only while the server keeps it.
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    connections: guarded.counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        guarded.closeIdle();
      }),
  };
}
