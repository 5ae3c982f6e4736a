import { createHash } from 'node:crypto';
import { DEFAULT_ACCOUNT_ID } from '../domain/account.ts';

/** JSON with object keys sorted at every level, so equal content gives equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Identifies "the same problem" across runs: kind plus the parts that name it (job, currency, ...),
 * and the account it belongs to. The account "default" adds nothing, so a single-account deployment
 * keeps the fingerprints its alerts had before accounts existed (their repeats still suppressed).
 */
export function alertFingerprint(kind: string, parts: readonly string[], accountId: string = DEFAULT_ACCOUNT_ID): string {
  return sha256(canonicalJson(accountId === DEFAULT_ACCOUNT_ID ? [kind, ...parts] : [kind, ...parts, `account:${accountId}`]));
}

/** Identifies "the same finding": a changed payload means news worth sending again. */
export function payloadDigest(payload: unknown): string {
  return sha256(canonicalJson(payload));
}
