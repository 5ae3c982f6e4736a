import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal content gives equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Identifies "the same problem" across runs: kind plus the parts that name it (job, currency, ...). */
export function alertFingerprint(kind: string, parts: readonly string[]): string {
  return sha256(canonicalJson([kind, ...parts]));
}

/** Identifies "the same finding": a changed payload means news worth sending again. */
export function payloadDigest(payload: unknown): string {
  return sha256(canonicalJson(payload));
}
