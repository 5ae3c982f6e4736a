import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ProviderClient, type ProviderClientOptions } from '../src/provider/client.ts';
import { CredentialsError, ProviderResponseError, ProviderUnavailableError } from '../src/provider/errors.ts';
import { Transport } from '../src/provider/http.ts';
import { hmacSha256 } from '../src/provider/signing.ts';

/**
 * Transport behaviour against a local server whose answer each test scripts: the misbehaviours a
 * real gateway shows (resets, stalls, floods) without depending on the sandbox.
 */
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;
let handlers: Handler[] = [];
let hits = 0;
let server: http.Server;
let baseUrl: string;
const clients: ProviderClient[] = [];

const BALANCE = '{"code":"200","message":"SUCCESS","data":{"currency":"NGN","available":"100.50","pending":0,"held":0,"credit":0}}';
const ok: Handler = (_q, res) => res.setHeader('content-type', 'application/json').end(BALANCE);
const status =
  (code: number, headers: Record<string, string> = {}, body = '{"code":"x"}'): Handler =>
  (_q, res) => {
    res.writeHead(code, headers).end(body);
  };

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const h = handlers[Math.min(hits, handlers.length - 1)];
      hits++;
      h(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  handlers = [];
  hits = 0;
  await Promise.all(clients.splice(0).map((c) => c.close()));
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

function client(opts: Partial<ProviderClientOptions> = {}) {
  const c = new ProviderClient({
    baseUrl,
    merchantId: 'm',
    secret: 'top-secret',
    scheme: hmacSha256,
    retryBaseMs: 1,
    maxRetries: 2,
    timeoutMs: 2000,
    ...opts,
  });
  clients.push(c);
  return c;
}

const payout = {
  merchantRef: 'r-1',
  currency: 'NGN' as const,
  method: 'BANK',
  bankCode: '058',
  amount: '10.5',
  name: 'A',
  account: '1',
  phone: '1',
  email: 'a@b.c',
};

describe('retries', () => {
  it('retries 500, 502, 503 then succeeds', async () => {
    handlers = [status(500), status(502), ok];
    await expect(client().balance('NGN')).resolves.toMatchObject({ available: '100.5' });
    expect(hits).toBe(3);
  });

  it('gives up after maxRetries with ProviderUnavailableError naming the status', async () => {
    handlers = [status(503, {}, 'maintenance')];
    const err = await client()
      .balance('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.message).toBe('balance: provider answered HTTP 503: "maintenance"');
    expect(err.detail).toMatchObject({ httpStatus: 503, attempts: 3 });
    expect(hits).toBe(3);
  });

  it('waits for Retry-After on 429 (capped by maxRetryDelayMs)', async () => {
    const waits: number[] = [];
    handlers = [status(429, { 'retry-after': '7' }), ok];
    await client({ sleep: async (ms) => void waits.push(ms), maxRetryDelayMs: 5000 }).balance('NGN');
    expect(waits).toEqual([5000]);
    handlers = [status(429, { 'retry-after': '1' }), ok];
    hits = 0;
    const started = Date.now();
    await client().balance('NGN');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('does not re-send an initiate after a 500 (it may have landed) but does after a 429', async () => {
    handlers = [status(500), ok];
    const err = await client()
      .initiatePayout(payout)
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.detail).toMatchObject({ outcomeUnknown: true, attempts: 1 });
    expect(hits).toBe(1);
    hits = 0;
    handlers = [status(429), status(500)];
    await client()
      .initiatePayout(payout)
      .catch(() => {});
    expect(hits).toBe(2);
  });

  it('surfaces 401 and 403 at once as CredentialsError, secret scrubbed', async () => {
    for (const code of [401, 403]) {
      hits = 0;
      handlers = [status(code, {}, 'bad signature for key top-secret')];
      const err = await client()
        .balance('NGN')
        .catch((e) => e);
      expect(err).toBeInstanceOf(CredentialsError);
      expect(err.retryable).toBe(false);
      expect(err.message).toContain(`HTTP ${code}`);
      expect(err.message).not.toContain('top-secret');
      expect(hits).toBe(1);
    }
  });
});

describe('network failures', () => {
  it('retries a connection reset, then reports it', async () => {
    handlers = [(req) => req.socket.destroy()];
    const err = await client()
      .balance('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.message).toMatch(/^balance: network error/);
    expect(err.detail.attempts).toBe(3);
  });

  it('times out a stalled answer, and a body that stalls midway', async () => {
    handlers = [() => {}];
    const err = await client({ timeoutMs: 150, maxRetries: 1 })
      .balance('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    expect(err.message).toBe('balance: no complete answer within 150 ms (timeout)');
    expect(hits).toBe(2);
    hits = 0;
    handlers = [(_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{"code":"200",')];
    const err2 = await client({ timeoutMs: 150, maxRetries: 0 })
      .balance('NGN')
      .catch((e) => e);
    expect(err2.message).toContain('timeout');
  });

  it('times out a request still waiting for a free connection, and never sends it', async () => {
    handlers = [() => {}];
    const transport = new Transport({ baseUrl, connections: 1, timeoutMs: 200, maxBodyBytes: 1000 });
    try {
      const post = () => transport.post('balance', '/v1/api/account/balance', {}, '{}').catch((e) => e);
      const first = post();
      await vi.waitFor(() => expect(hits).toBe(1), { timeout: 5_000, interval: 5 });
      const second = post();
      // Hold the event loop past both deadlines, so the two timers fire in one go before any I/O. Without
      // this, a second request created a millisecond after the first could be sent in the moment between
      // the first's deadline freeing the socket and its own (sent before its deadline: no fault, but not
      // the case under test), and under load it was: the server saw 3 requests.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      const errors = await Promise.all([first, second]);
      for (const err of errors) expect(err.message).toBe('balance: no complete answer within 200 ms (timeout)');
      // The first held the only socket; the second's deadline passed in the queue. The next request
      // is answered, so the pool moved on, and the stalled server saw the first request alone.
      handlers = [() => {}, ok];
      expect(await transport.post('balance', '/v1/api/account/balance', {}, '{}')).toMatchObject({ status: 200 });
      expect(hits).toBe(2);
    } finally {
      await transport.close();
    }
  });

  it('reports a refused connection without hanging', async () => {
    const c = new ProviderClient({
      baseUrl: 'http://127.0.0.1:1',
      merchantId: 'm',
      secret: 's',
      scheme: hmacSha256,
      retryBaseMs: 1,
      maxRetries: 1,
    });
    clients.push(c);
    const err = await c.initiatePayout(payout).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderUnavailableError);
    // Refused before sending: safe to retry even an initiate.
    expect(err.detail).toMatchObject({ cause: 'ECONNREFUSED', outcomeUnknown: false, attempts: 2 });
  });
});

describe('response size cap', () => {
  it('abandons a 40 MB streamed body after ~1 MB without buffering it', async () => {
    let written = 0;
    const total = 40 * 1024 * 1024;
    handlers = [
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x31);
        const pump = () => {
          while (written < total) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        res.on('error', () => {});
        pump();
      },
    ];
    const err = await client()
      .balance('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderResponseError);
    expect(err.message).toContain('exceeds the 1048576-byte limit');
    expect(hits).toBe(1);
    // The socket was dropped long before the server could push everything.
    expect(written).toBeLessThan(total / 2);
  });

  it('rejects a declared Content-Length over the cap without reading it', async () => {
    handlers = [
      (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50_000_000) });
        res.on('error', () => {});
        res.write('{');
      },
    ];
    const err = await client({ maxBodyBytes: 1000 })
      .balance('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderResponseError);
    expect(err.message).toBe('balance: response body of 50000000 bytes (Content-Length) exceeds the 1000-byte limit; not read');
  });
});

describe('odd answers', () => {
  it('reads a body alike whether its length is declared or it comes chunked: a byte-order mark is kept, not skipped', async () => {
    const withMark = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(BALANCE)]);
    const declared: Handler = (_q, res) => res.setHeader('content-type', 'application/json').end(withMark);
    const chunked: Handler = (_q, res) => {
      res.setHeader('content-type', 'application/json');
      res.write(withMark.subarray(0, 7));
      res.end(withMark.subarray(7));
    };
    const answers: string[] = [];
    for (const h of [declared, chunked]) {
      handlers = [h];
      hits = 0;
      const err = await client({ maxRetries: 0 })
        .balance('NGN')
        .catch((e) => e);
      expect(err).toBeInstanceOf(ProviderResponseError);
      answers.push(err.message);
    }
    expect(answers[0]).toMatch(/^balance: body is not valid JSON/);
    expect(answers[1]).toBe(answers[0]);
    handlers = [ok];
    expect(await client().balance('NGN')).toMatchObject({ available: '100.5' });
  });

  it('explains a non-JSON 404 as a likely wrong base URL', async () => {
    handlers = [status(404, { 'content-type': 'text/plain' }, 'Cannot POST /v1/api/account/balance')];
    const err = await client()
      .balance('NGN')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderResponseError);
    expect(err.message).toMatch(/^balance: HTTP 404 without a provider envelope \(check PROVIDER_BASE_URL\): body is not valid JSON/);
  });

  it('rejects a balance for another currency than asked', async () => {
    handlers = [ok];
    const err = await client()
      .balance('INR')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderResponseError);
    expect(err.message).toBe('balance: field "data.currency": answer is for "NGN", but "INR" was asked');
  });

  it('caps requests per second', async () => {
    handlers = [ok];
    const c = client({ rateLimitPerSec: 20 });
    const started = Date.now();
    await Promise.all(Array.from({ length: 6 }, () => c.balance('NGN')));
    // 6 evenly spaced slots at 50 ms: the last starts >= 250 ms after the first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });
});
