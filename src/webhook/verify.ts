import { verifySignature, type SigningScheme } from '../provider/signing.ts';

/*
 * Why WEBHOOK_TIMESTAMP_WINDOW_SEC defaults to 900 (15 minutes):
 * The sandbox re-signs every retry with a fresh Timestamp, so against it a few minutes would do; the spec does
 * not say what the real provider does. If it reuses the first attempt's Timestamp, its tenth and last attempt
 * (every minute, up to 10) arrives ~9 minutes after the first, plus delivery timeouts and clock skew. A window
 * too narrow silently loses genuine notifications; a wide one costs little, because a replay inside it is
 * deduplicated (stored once) and nothing is applied before a fetch confirms it.
 */
/** How far a Timestamp may lie in the future (provider clock ahead of ours). */
export const DEFAULT_FUTURE_SKEW_SEC = 300;

export interface VerifyInput {
  signature: string | undefined;
  timestamp: string | undefined;
  /** The exact bytes received (a string stands for its UTF-8 bytes): the signature is checked over these, never over a decoded string. */
  body: Buffer | string;
  nowMs: number;
  scheme: SigningScheme;
  secret: string;
  windowSec: number;
  futureSkewSec?: number;
}

/** 401: not signed by someone holding the secret. 403: genuinely signed but too old or too far ahead. */
export type VerifyResult = { ok: true } | { ok: false; status: 401 | 403; reason: string };

const TEN_DIGITS = /^\d{10}$/;

/** Signature first (constant time), then the Timestamp window: a stale answer never hints at signature validity. */
export function verifyWebhook(input: VerifyInput): VerifyResult {
  const { signature, timestamp } = input;
  if (!signature || !timestamp) return { ok: false, status: 401, reason: `missing ${!signature ? 'Signature' : 'Timestamp'} header` };
  if (!TEN_DIGITS.test(timestamp.trim())) return { ok: false, status: 401, reason: 'Timestamp is not ten-digit Unix seconds' };
  if (!verifySignature(input.scheme, { timestamp: timestamp.trim(), body: input.body }, input.secret, signature)) {
    return { ok: false, status: 401, reason: 'signature does not match' };
  }
  const ageSec = Math.floor(input.nowMs / 1000) - Number(timestamp.trim());
  if (ageSec > input.windowSec) return { ok: false, status: 403, reason: `Timestamp is ${ageSec} s old (window ${input.windowSec} s)` };
  const ahead = -ageSec;
  const skew = input.futureSkewSec ?? DEFAULT_FUTURE_SKEW_SEC;
  if (ahead > skew) return { ok: false, status: 403, reason: `Timestamp is ${ahead} s in the future (allowed ${skew} s)` };
  return { ok: true };
}

/**
 * What to tell the operator at start about the scheme verifying webhooks. md5-sorted signs the body's
 * fields only, not the Timestamp: a captured notification can be re-sent with any fresh Timestamp, so
 * the window protects nothing (a replay is still deduplicated and nothing applies before a fetch confirms it).
 */
export function schemeWarnings(scheme: SigningScheme): string[] {
  if (scheme.name !== 'md5-sorted') return [];
  return [
    'PROVIDER_SIGNATURE=md5-sorted does not cover the Timestamp header: the WEBHOOK_TIMESTAMP_WINDOW_SEC window cannot stop a replayed notification (replays are deduplicated and confirmed by fetch before anything is applied)',
  ];
}
