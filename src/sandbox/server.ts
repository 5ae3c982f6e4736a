import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, type Logger } from '../log/logger.ts';
import { hmacSha256, type SigningScheme } from '../provider/signing.ts';
import { API_PREFIX, PATHS, type Operation } from '../provider/types.ts';
import { authenticate } from './auth.ts';
import type { SandboxContext } from './context.ts';
import { WalletMovements } from './wallet-movements.ts';
import { handleControl } from './control.ts';
import { FaultRegistry, HTML_ERROR_PAGE, PRE_FAULTS, corruptData, streamHugeBody } from './faults.ts';
import { handleOperation, paymentFetchData, payoutFetchData, type OpResult } from './operations.ts';
import { hash32, rng, uuidFrom } from './prng.ts';
import { RequestStats } from './request-stats.ts';
import { RateWindow } from './rate-window.ts';
import { isPlainObject, parseRequestJson } from './request-json.ts';
import { envelopeText, sendError, sendJson, sendText } from './response-json.ts';
import { SandboxState } from './state.ts';
import { DEFAULT_LIFECYCLE, type FaultSpec, type LifecycleOptions } from './types.ts';
import { WebhookDispatcher } from './webhooks.ts';

export type { LifecycleOptions } from './types.ts';
export { SandboxState } from './state.ts';

export interface SandboxOptions {
  /** 0 = a free port (default 0). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * Default [{ id: 'demo-merchant', secret: 'demo-secret' }]. Each merchant has its own orders and
   * balances; `rateLimitPerSec` gives it its own limit instead of `rateLimitPerSec` below.
   */
  merchants?: Array<{ id: string; secret: string; rateLimitPerSec?: number | null }>;
  /** Verifies requests and signs webhooks (default hmacSha256). */
  signature?: SigningScheme;
  /** |now - Timestamp| beyond it is 403 (default 300). */
  timestampWindowSec?: number;
  /** Seeds every scenario, reference and rate (default 1). */
  seed?: number;
  /** The sandbox clock in ms (default Date.now); the control interface can offset it. */
  now?: () => number;
  /** Where payment webhooks are POSTed; none if unset. */
  webhookUrl?: string;
  /** Default 60_000 (the spec: every minute). */
  webhookIntervalMs?: number;
  /** Attempts in total per notification (default 10). */
  webhookMaxAttempts?: number;
  lifecycle?: Partial<LifecycleOptions>;
  /** Latency added to every provider request (default 0). */
  latencyMs?: number;
  /** Requests per second per merchant above which the answer is 429 with Retry-After (default: no limit). */
  rateLimitPerSec?: number | null;
  logger?: Logger;
  /**
   * Start loading: every request is answered 503 (Retry-After: 1) until ready() is called, so a client
   * that finds the port open while orders are still being adopted from CSV is told to wait, rather than
   * seeing NOT_FOUND for an order a later line of the file holds. Default false.
   */
  loading?: boolean;
}

export interface Sandbox {
  /** Base address without /v1/api. */
  url: string;
  port: number;
  state: SandboxState;
  /** Ends loading (options.loading): requests are served from now on. */
  ready(): void;
  close(): Promise<void>;
}

const OPERATION_BY_PATH = new Map<string, Operation>(Object.entries(PATHS).map(([op, path]) => [API_PREFIX + path, op as Operation]));
const MAX_REQUEST_BYTES = 1024 * 1024;
const DEFAULT_HUGE_BYTES = 32 * 1024 * 1024;

class TooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BYTES) {
        reject(new TooLarge());
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The faults that replace the answer. Returns after the response is handled (or deliberately left open). */
function answerWithFault(ctx: SandboxContext, fault: FaultSpec, req: IncomingMessage, res: ServerResponse): void {
  switch (fault.kind) {
    case 'status500':
      return sendError(res, 500, 'INTERNAL_SERVER_ERROR');
    case 'status429':
      return sendError(
        res,
        429,
        'TOO_MANY_REQUESTS',
        fault.retryAfterSec !== undefined ? { 'retry-after': String(fault.retryAfterSec) } : {},
      );
    case 'status401':
      return sendError(res, 401, 'UNAUTHORIZED');
    case 'status403':
      return sendError(res, 403, 'FORBIDDEN');
    case 'htmlError':
      return sendText(res, fault.httpStatus ?? 502, 'text/html', HTML_ERROR_PAGE);
    case 'timeout':
      // Accept and never answer; the socket is destroyed only when the client gives up or the sandbox closes.
      ctx.held.add(res);
      res.on('close', () => ctx.held.delete(res));
      return;
    case 'reset':
      req.socket.resetAndDestroy();
      return;
    default:
      return;
  }
}

/** "Answer for a different transactionRef": another real order when there is one, else a foreign reference. */
function wrongOrder(ctx: SandboxContext, op: Operation, merchantId: string, data: Record<string, unknown>): Record<string, unknown> {
  const ref = String(data.transactionRef);
  if (op === 'paymentFetch' || op === 'payoutFetch') {
    const other = ctx.state.anotherOrder(ref, op === 'paymentFetch' ? 'payment' : 'payout', merchantId);
    if (other) return op === 'paymentFetch' ? paymentFetchData(other) : payoutFetchData(other);
  }
  return { ...data, transactionRef: uuidFrom(rng(hash32(`other|${ref}`))) };
}

async function handleApi(ctx: SandboxContext, op: Operation, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readBody(req);
  ctx.stats.count(op);
  // Counted on arrival, before authentication, as a provider's gateway would.
  const merchantHeader = String(req.headers.merchantid ?? '');
  const arrivedAt = performance.now();
  if (!ctx.rate.admit(merchantHeader, arrivedAt)) {
    return sendError(res, 429, 'TOO_MANY_REQUESTS', { 'retry-after': String(ctx.rate.retryAfterSec(merchantHeader, arrivedAt)) });
  }
  let body: unknown;
  let malformed = false;
  try {
    body = parseRequestJson(raw);
  } catch {
    malformed = true;
  }
  const { latencyMs, fault } = ctx.faults.match(op, body);
  if (latencyMs > 0) await sleep(latencyMs);
  if (fault && PRE_FAULTS.has(fault.kind) && !fault.afterProcessing) return answerWithFault(ctx, fault, req, res);

  const auth = authenticate(req.headers, raw, ctx.secrets, ctx.scheme, ctx.state.wallNow(), ctx.timestampWindowSec);
  if (!auth.ok) return sendError(res, auth.status, auth.message);
  if (malformed || !isPlainObject(body)) return sendJson(res, 400, envelopeText('400', 'INVALID_JSON: body must be a JSON object', null));

  ctx.state.advance();
  const result: OpResult = handleOperation(op, body, auth.merchantId, ctx.state, ctx.baseUrl);
  if (!fault) return sendJson(res, 200, envelopeText(result.code, result.message, result.data));

  if (PRE_FAULTS.has(fault.kind)) return answerWithFault(ctx, fault, req, res); // afterProcessing: the work is done, the answer lost
  if (fault.kind === 'hugeBody') return streamHugeBody(res, fault.bytes ?? DEFAULT_HUGE_BYTES);
  if (result.code === '200' && isPlainObject(result.data)) {
    result.data =
      fault.kind === 'wrongTransactionRef' ? wrongOrder(ctx, op, auth.merchantId, result.data) : corruptData(fault, result.data);
  }
  const text = envelopeText(result.code, result.message, result.data);
  if (fault.kind === 'malformedJson') return sendJson(res, 200, text.slice(0, Math.max(12, Math.floor(text.length * 0.6))));
  sendJson(res, 200, text);
}

function checkoutPage(ctx: SandboxContext, ref: string, res: ServerResponse): void {
  const order = ctx.state.find(ref, 'payment');
  if (!order) return sendText(res, 404, 'text/html', '<!DOCTYPE html><title>Not found</title><p>Unknown payment.</p>');
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  sendText(
    res,
    200,
    'text/html',
    `<!DOCTYPE html><title>Sandbox checkout</title><h1>Pay ${esc(order.amount)} ${esc(String(order.currency))}</h1><p>Order ${esc(order.transactionRef)}: ${esc(order.status)}</p>`,
  );
}

async function route(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0];
  const op = OPERATION_BY_PATH.get(path);
  if (op) {
    if (req.method !== 'POST') return sendError(res, 405, 'METHOD_NOT_ALLOWED: use POST');
    return handleApi(ctx, op, req, res);
  }
  if (path.startsWith('/__control/')) return handleControl(ctx, path.slice('/__control/'.length), await readBody(req), res);
  if (req.method === 'GET' && path.startsWith('/checkout/')) return checkoutPage(ctx, path.slice('/checkout/'.length), res);
  sendError(res, 404, 'NOT_FOUND');
}

/** Starts the provider emulator: the seven operations under /v1/api, webhooks, and /__control/*. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const merchants = options.merchants ?? [{ id: 'demo-merchant', secret: 'demo-secret' }];
  if (merchants.length === 0) throw new Error('sandbox: at least one merchant is required');
  const secrets = new Map(merchants.map((m) => [m.id, m.secret]));
  const scheme = options.signature ?? hmacSha256;
  const logger = options.logger ?? silentLogger;
  const lifecycle: LifecycleOptions = { ...DEFAULT_LIFECYCLE, ...options.lifecycle };
  const state = new SandboxState({ seed: options.seed ?? 1, merchantIds: [...secrets.keys()], lifecycle, now: options.now ?? Date.now });
  const webhookIntervalMs = options.webhookIntervalMs ?? 60_000;
  const webhooks = new WebhookDispatcher({
    url: options.webhookUrl,
    intervalMs: webhookIntervalMs,
    maxAttempts: options.webhookMaxAttempts ?? 10,
    scheme,
    secretOf: (id) => secrets.get(id),
    now: () => state.now(),
    wallNow: () => state.wallNow(),
    logger,
  });
  state.onPaymentFinal = (order) => webhooks.enqueue(order);
  const faults = new FaultRegistry();
  faults.globalLatencyMs = options.latencyMs ?? 0;
  const ctx: SandboxContext = {
    baseUrl: '',
    state,
    faults,
    webhooks,
    stats: new RequestStats(),
    rate: new RateWindow(),
    secrets,
    scheme,
    timestampWindowSec: options.timestampWindowSec ?? 300,
    logger,
    held: new Set(),
    movements: new WalletMovements(),
    initial: {
      webhookUrl: options.webhookUrl,
      latencyMs: faults.globalLatencyMs,
      rateLimitPerSec: options.rateLimitPerSec ?? null,
      merchantRateLimits: new Map(merchants.flatMap((m) => (m.rateLimitPerSec !== undefined ? [[m.id, m.rateLimitPerSec] as const] : []))),
    },
  };

  ctx.rate.reset(ctx.initial.rateLimitPerSec, ctx.initial.merchantRateLimits);
  let loading = options.loading ?? false;
  const server = http.createServer((req, res) => {
    if (loading) {
      // The body is not read: the connection closes after the answer rather than waiting for it.
      res.setHeader('Connection', 'close');
      return sendError(res, 503, 'SANDBOX_LOADING: still loading its orders; retry in a moment', { 'Retry-After': '1' });
    }
    route(ctx, req, res).catch((err: unknown) => {
      if (err instanceof TooLarge) return;
      logger.error({ err }, 'sandbox: request failed');
      if (!res.headersSent) sendError(res, 500, 'INTERNAL_SERVER_ERROR');
      else res.destroy();
    });
  });
  // Outlive typical client idle timeouts so keep-alive sockets are reused, not raced.
  server.keepAliveTimeout = 65_000;
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  ctx.baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  // Between requests, transitions and webhook retries still happen on time.
  const ticker = setInterval(
    () => {
      state.advance();
      webhooks.dispatchDue();
    },
    Math.max(10, Math.min(250, Math.floor(webhookIntervalMs / 4))),
  );
  ticker.unref();

  logger.info({ url: ctx.baseUrl, merchants: [...secrets.keys()] }, 'sandbox listening');
  return {
    url: ctx.baseUrl,
    port,
    state,
    ready() {
      if (loading) logger.info({ url: ctx.baseUrl }, 'sandbox ready');
      loading = false;
    },
    async close() {
      clearInterval(ticker);
      webhooks.close();
      for (const res of ctx.held) res.destroy();
      ctx.held.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
