import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookServer {
  /** e.g. http://127.0.0.1:8080 (append /webhooks/payment). */
  url: string;
  port: number;
  /** Stops accepting, lets requests in flight finish, then resolves. */
  close(): Promise<void>;
}

/**
 * Limits against a client holding the port: a notification is a few hundred bytes, so a request
 * (headers and body) taking longer than this is dropped, and beyond maxConnections new connections
 * are closed at once.
 */
export const WEBHOOK_SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  maxConnections: 256,
});

interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
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
  server.maxConnections = limits.maxConnections;
  // Outlive the provider's keep-alive idle time so reused sockets are not closed under a request.
  server.keepAliveTimeout = 65_000;
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
