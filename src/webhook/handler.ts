import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Db } from '../db/connect.ts';
import { storeWebhookEvent } from '../db/webhook-events.ts';
import type { Logger } from '../log/logger.ts';
import type { SigningScheme } from '../provider/signing.ts';
import type { Direction } from '../domain/types.ts';
import { BodyTooLargeError, decodeUtf8, readLimitedBody } from './body.ts';
import { dedupeKey, parsePaymentNotification, parsePayoutNotification, PayloadError, type Notification } from './payload.ts';
import { DEFAULT_FUTURE_SKEW_SEC, verifyWebhook, type VerifyResult } from './verify.ts';
import { messageOf } from '../domain/errors.ts';

/** Where the provider is told to POST. Payout payload is unspecified; it gets its own path so it is never mistaken for a payment. */
export const WEBHOOK_PATHS: Readonly<Record<string, Direction>> = Object.freeze({
  '/webhooks/payment': 'payment',
  '/webhooks/payout': 'payout',
});

export interface WebhookHandlerDeps {
  db: Db;
  scheme: SigningScheme;
  /** The key shared with the provider (PROVIDER_SECRET); never logged. */
  secret: string;
  /**
   * Several accounts (ACCOUNTS_FILE): each one's id and secret. A notification is the account's whose secret
   * signed it; `secret` is then unused. Unset: one account, stored under the column's default.
   */
  accounts?: ReadonlyArray<{ id: string; secret: string }>;
  now: () => number;
  logger: Logger;
  /** Accepted age of the Timestamp header, seconds (webhook/verify.ts says why 900 by default). */
  windowSec: number;
  maxBodyBytes: number;
  futureSkewSec?: number;
  /** Called with a stored event's id after the 200, e.g. ConfirmQueue.enqueue. */
  confirm?: (eventId: string) => void;
  /** Path prefix when mounted under another route (default none). */
  basePath?: string;
  /** Told what came of each request on a webhook path (metrics): stored, duplicate, refused or not_stored. */
  onOutcome?: (outcome: 'stored' | 'duplicate' | 'refused' | 'not_stored') => void;
}

const PARSERS: Readonly<Record<Direction, (raw: string) => Notification>> = {
  payment: parsePaymentNotification,
  payout: parsePayoutNotification,
};

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * The merchant's webhook receiver as a plain node request handler (node:http, express, fastify's raw mode).
 * Order: route, size (413), Signature over the raw bytes (401), Timestamp window (403), UTF-8, JSON and fields (400), durable store
 * (500 if the database fails, so the provider retries), then 200 text/plain SUCCESS, then confirmation.
 * Every refusal is logged with its reason; the secret and the Signature value never are.
 */
export function createWebhookHandler(deps: WebhookHandlerDeps): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const base = (deps.basePath ?? '').replace(/\/+$/, '');
  // Never rejects: a mounted handler must not leave an express app with an unhandled rejection.
  return async (req, res) => {
    try {
      await handle(req, res);
    } catch (err) {
      deps.logger.error({ err: messageOf(err) }, 'webhook request failed');
      deps.onOutcome?.('not_stored');
      if (!res.headersSent) reply(res, 500, 'not stored');
      else res.destroy();
    }
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const direction = path.startsWith(base) ? WEBHOOK_PATHS[path.slice(base.length)] : undefined;
    const log = deps.logger.child({ path, remote: req.socket.remoteAddress });
    const refuse = (status: number, reason: string): void => {
      log.warn({ status, reason }, 'webhook refused');
      deps.onOutcome?.('refused');
      reply(res, status, reason);
    };
    if (!direction) return refuse(404, 'not a webhook path');
    if (req.method !== 'POST') return refuse(405, 'use POST');

    let bytes: Buffer;
    try {
      bytes = await readLimitedBody(req, deps.maxBodyBytes);
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        // Stop reading a body we will not use; the connection is closed once the answer is out.
        res.once('finish', () => req.destroy());
        res.setHeader('connection', 'close');
        return refuse(413, err.message);
      }
      throw err;
    }

    const verify = (secret: string) =>
      verifyWebhook({
        signature: header(req, 'signature'),
        timestamp: header(req, 'timestamp'),
        body: bytes,
        nowMs: deps.now(),
        scheme: deps.scheme,
        secret,
        windowSec: deps.windowSec,
        futureSkewSec: deps.futureSkewSec ?? DEFAULT_FUTURE_SKEW_SEC,
      });
    const signer = signedBy(deps.accounts, verify);
    const verdict = signer ? signer.verdict : verify(deps.secret);
    if (!verdict.ok) return refuse(verdict.status, verdict.reason);
    const accountId = signer?.account;
    const raw = decodeUtf8(bytes);
    if (raw === undefined) return refuse(400, 'body is not UTF-8 text');

    let n: Notification;
    try {
      n = PARSERS[direction](raw);
    } catch (err) {
      if (err instanceof PayloadError) return refuse(400, err.message);
      throw err;
    }

    let stored;
    try {
      stored = await storeWebhookEvent(deps.db.knex, {
        ...n,
        dedupeKey: dedupeKey(n, raw),
        rawBody: raw,
        headers: pickHeaders(req),
        receivedAt: new Date(deps.now()),
        ...(accountId !== undefined ? { accountId } : {}),
      });
    } catch (err) {
      log.error({ err: messageOf(err), transactionRef: n.transactionRef }, 'webhook not stored; answering 500 so the provider retries');
      deps.onOutcome?.('not_stored');
      return reply(res, 500, 'not stored');
    }
    reply(res, 200, 'SUCCESS');
    deps.onOutcome?.(stored.inserted ? 'stored' : 'duplicate');
    log.info(
      {
        eventId: stored.id,
        direction,
        transactionRef: n.transactionRef,
        status: n.status,
        duplicate: !stored.inserted,
        account: accountId,
      },
      'webhook stored',
    );
    // A retry of a notification whose confirmation failed transiently gets another try; a settled one never.
    if (stored.confirmation === 'pending') deps.confirm?.(stored.id);
  }
}

/**
 * With several accounts: the account whose secret the signature matches, and its verdict (a Timestamp out of
 * the window is still refused). None matches: the first refusal, which says the signature does not match.
 * Undefined without accounts (one account: its secret is deps.secret).
 */
function signedBy(
  accounts: WebhookHandlerDeps['accounts'],
  verify: (secret: string) => VerifyResult,
): { account: string | undefined; verdict: VerifyResult } | undefined {
  if (!accounts || accounts.length === 0) return undefined;
  let first: VerifyResult | undefined;
  for (const a of accounts) {
    const verdict = verify(a.secret);
    // 403: the signature matched this account's secret, only the Timestamp is out of the window.
    if (verdict.ok || verdict.status === 403) return { account: a.id, verdict };
    first ??= verdict;
  }
  return { account: undefined, verdict: first! };
}

/** The headers worth keeping as evidence: what the signature was checked against. */
function pickHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, key] of [
    ['Signature', 'signature'],
    ['Timestamp', 'timestamp'],
    ['Content-Type', 'content-type'],
  ] as const) {
    const v = header(req, key);
    if (v !== undefined) out[name] = v;
  }
  return out;
}

function reply(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent) return;
  // Only a stored delivery keeps its connection: a refused caller (a GET, a bad signature) gets no idle socket to hold.
  const connection = status === 200 ? {} : { connection: 'close' };
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text), ...connection });
  res.end(text);
}
