// The webhook receiver against an attacker on its port: signatures over the raw bytes, slow bodies
// dropped, a connection cap, no 500 for junk, and the md5-sorted scheme's missing Timestamp coverage.
import crypto from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { silentLogger } from '../src/log/logger.ts';
import { hmacSha256, md5Sorted, type SigningScheme } from '../src/provider/signing.ts';
import { createWebhookHandler } from '../src/webhook/handler.ts';
import { startWebhookServer, type WebhookServer, type WebhookServerOptions } from '../src/webhook/server.ts';
import { schemeWarnings } from '../src/webhook/verify.ts';
import { signedPost } from './helpers/signed-post.ts';

const SECRET = 'hook-secret-1';

/** Sends raw bytes over a socket; resolves with the raw answer (or '' when the server closed without one). */
function rawRequest(port: number, head: string, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(Buffer.concat([Buffer.from(head), body])));
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const post = (port: number, path: string, body: Buffer, headers: Record<string, string>) =>
  rawRequest(
    port,
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`,
    body,
  );
const statusOf = (answer: string) => Number(answer.split(' ')[1]);

/** A connected socket (optionally from another loopback source address), errors ignored. */
async function connect(port: number, localAddress?: string): Promise<net.Socket> {
  const c = net.connect({ port, host: '127.0.0.1', localAddress });
  c.on('error', () => undefined);
  // Read (and drop) whatever comes, so the server's close is seen.
  c.resume();
  await new Promise((r) => c.once('connect', r));
  return c;
}

async function poll(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('webhook receiver hardening', () => {
  let t: TestDatabase;
  const servers: WebhookServer[] = [];
  const start = async (scheme: SigningScheme, limits: WebhookServerOptions = { port: 0 }) => {
    const handler = createWebhookHandler({
      db: t.db,
      scheme,
      secret: SECRET,
      now: Date.now,
      logger: silentLogger,
      windowSec: 900,
      maxBodyBytes: 65536,
    });
    const s = await startWebhookServer(handler, limits);
    servers.push(s);
    return s;
  };

  /** A genuine payment notification, signed as the provider signs it, on a fresh connection. */
  const deliver = (s: WebhookServer, ref: string) =>
    signedPost(
      { baseUrl: s.url, prefix: '', merchantId: 'm', secret: SECRET },
      '/webhooks/payment',
      JSON.stringify({
        transactionRef: ref,
        merchantRef: `m-${ref}`,
        currency: 'NGN',
        method: 'TRANSFER',
        status: 'Success',
        amount: '1000',
        paidAmount: '1000',
        fee: '15',
      }),
    );

  beforeAll(async () => {
    t = await createTestDatabase('webhook_hardening');
  });
  afterAll(async () => {
    for (const s of servers) await s.close();
    await t?.drop();
  });

  it('verifies the signature over the raw bytes: a signed body that is not UTF-8 passes the check and is refused as 400', async () => {
    const s = await start(hmacSha256);
    // A Latin-1 é (0xe9) inside a JSON string: decoding as UTF-8 first would change the bytes signed.
    const body = Buffer.concat([Buffer.from('{"transactionRef":"caf'), Buffer.from([0xe9]), Buffer.from('","status":"Success"}')]);
    const ts = String(Math.floor(Date.now() / 1000));
    const sig = crypto
      .createHmac('sha256', SECRET)
      .update(Buffer.concat([Buffer.from(`${ts}.`), body]))
      .digest('hex');
    const answer = await post(s.port, '/webhooks/payment', body, { Signature: sig, Timestamp: ts });
    expect(statusOf(answer), answer).toBe(400);
    expect(answer).toMatch(/UTF-8/);
    // One byte changed: the signature no longer matches.
    const tampered = Buffer.from(body);
    tampered[body.indexOf(0xe9)] = 0xe8;
    expect(statusOf(await post(s.port, '/webhooks/payment', tampered, { Signature: sig, Timestamp: ts }))).toBe(401);
  });

  it('an unsigned or wrongly signed non-JSON body gets 401, never 500 (md5-sorted parses the body to check it)', async () => {
    const s = await start(md5Sorted);
    const junk = Buffer.from('not json at all {');
    const ts = String(Math.floor(Date.now() / 1000));
    expect(statusOf(await post(s.port, '/webhooks/payment', junk, { Timestamp: ts }))).toBe(401);
    expect(statusOf(await post(s.port, '/webhooks/payment', junk, { Signature: 'ABCDEF', Timestamp: ts }))).toBe(401);
  });

  it('drops a body trickling in slower than the request timeout', async () => {
    const s = await start(hmacSha256, { port: 0, requestTimeoutMs: 1_000, headersTimeoutMs: 1_000 });
    const socket = net.connect(s.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write('POST /webhooks/payment HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\nSignature: a\r\nTimestamp: 1\r\n\r\n');
    let sent = 0;
    let closedAfter: number | null = null;
    socket.on('error', () => undefined);
    socket.on('close', () => (closedAfter = sent));
    // One byte at a time, 100 bytes in all; the server must hang up long before the last.
    while (closedAfter === null && sent < 100) {
      socket.write('x');
      sent++;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(closedAfter, 'the server kept reading the whole slow body').not.toBeNull();
    expect(closedAfter!).toBeLessThan(100);
  });

  it('caps open connections: over the cap the longest-idle one makes room; when all are answering, the new one is closed', async () => {
    const s = await start(hmacSha256, { port: 0, maxConnections: 3 });
    const open: net.Socket[] = [];
    for (let i = 0; i < 3; i++) open.push(await connect(s.port));
    // Idle (connected, nothing sent): the first one opened is closed for the newcomer.
    const fourth = await connect(s.port);
    await new Promise((r) => (open[0].destroyed ? r(null) : open[0].once('close', r)));
    expect([...open.slice(1), fourth].every((c) => !c.destroyed)).toBe(true);
    // Busy (a request whose body is still awaited): nothing to evict, so the next one is closed at once.
    for (const c of [...open.slice(1), fourth]) {
      c.write('POST /webhooks/payment HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\nSignature: a\r\nTimestamp: 1\r\n\r\n');
    }
    await poll(() => s.connections().busy === 3);
    const extra = net.connect(s.port, '127.0.0.1');
    extra.on('error', () => undefined);
    await new Promise((r) => extra.once('close', r));
    expect([...open.slice(1), fourth].every((c) => !c.destroyed)).toBe(true);
    for (const c of [...open, fourth]) c.destroy();
  });

  it('256 idle sockets from 8 addresses do not starve a genuine signed delivery (the longest-idle one is evicted)', async () => {
    const s = await start(hmacSha256, { port: 0 });
    const held: net.Socket[] = [];
    for (let a = 2; a < 10; a++) for (let i = 0; i < 32; i++) held.push(await connect(s.port, `127.0.0.${a}`));
    expect(held.length).toBe(256);
    const answer = await deliver(s, 'idle-1');
    expect(answer.status, answer.text).toBe(200);
    expect(held.filter((c) => c.destroyed).length).toBeLessThanOrEqual(1);
    for (const c of held) c.destroy();
  });

  it('one address holding sockets with a GET answered 405 each: the sockets are closed, and one address cannot hold more than its cap', async () => {
    const s = await start(hmacSha256, { port: 0 });
    const held: net.Socket[] = [];
    for (let i = 0; i < 256; i++) {
      const c = await connect(s.port);
      c.write('GET /webhooks/payment HTTP/1.1\r\nHost: x\r\n\r\n');
      held.push(c);
    }
    // A refusal is answered with Connection: close; the idle keep-alive that remains is short and announced.
    await poll(() => held.every((c) => c.destroyed));
    const answer = await deliver(s, 'after-405');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers['keep-alive']).toBe('timeout=5');
    // Idle sockets from one address beyond its cap (64) evict that address's own oldest.
    const idle: net.Socket[] = [];
    for (let i = 0; i < 100; i++) idle.push(await connect(s.port));
    await poll(() => idle.filter((c) => !c.destroyed).length <= 64);
  });

  it('warns at start when md5-sorted is used with the receiver (it does not cover the Timestamp)', () => {
    expect(schemeWarnings(md5Sorted).join(' ')).toMatch(/Timestamp/);
    expect(schemeWarnings(hmacSha256)).toEqual([]);
  });
});
