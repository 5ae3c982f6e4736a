import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookServer {
  /** e.g. http://127.0.0.1:8080 (append /webhooks/payment). */
  url: string;
  port: number;
  /** Stops accepting, lets requests in flight finish, then resolves. */
  close(): Promise<void>;
}

/** A bare node:http server around the webhook handler (`payrecon webhook serve`). */
export async function startWebhookServer(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  options: { port: number; host?: string },
): Promise<WebhookServer> {
  const server = http.createServer((req, res) => void handler(req, res));
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
