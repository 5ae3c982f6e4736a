import type { IncomingHttpHeaders } from 'node:http';
import { verifySignature, type SigningScheme } from '../provider/signing.ts';

export type AuthResult = { ok: true; merchantId: string } | { ok: false; status: 401 | 403; message: string };

const header = (h: IncomingHttpHeaders, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Missing credentials are 401; credentials present but wrong (unknown merchant, bad signature,
 * malformed or stale Timestamp) are 403. The signature covers the Timestamp and the exact raw body.
 */
export function authenticate(
  headers: IncomingHttpHeaders,
  rawBody: string,
  secrets: ReadonlyMap<string, string>,
  scheme: SigningScheme,
  nowMs: number,
  windowSec: number,
): AuthResult {
  const merchantId = header(headers, 'merchantid');
  const signature = header(headers, 'signature');
  const timestamp = header(headers, 'timestamp');
  const missing = [!merchantId && 'MerchantID', !signature && 'Signature', !timestamp && 'Timestamp'].filter(Boolean);
  if (missing.length) return { ok: false, status: 401, message: `UNAUTHORIZED: missing header ${missing.join(', ')}` };
  const secret = secrets.get(merchantId!);
  if (secret === undefined) return { ok: false, status: 403, message: 'FORBIDDEN: unknown MerchantID' };
  if (!/^\d{10}$/.test(timestamp!)) return { ok: false, status: 403, message: 'FORBIDDEN: Timestamp must be ten-digit Unix seconds' };
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > windowSec) {
    return { ok: false, status: 403, message: `FORBIDDEN: Timestamp outside the accepted window of ${windowSec}s` };
  }
  if (!verifySignature(scheme, { timestamp: timestamp!, body: rawBody, merchantId }, secret, signature)) {
    return { ok: false, status: 403, message: 'FORBIDDEN: invalid Signature' };
  }
  return { ok: true, merchantId: merchantId! };
}
