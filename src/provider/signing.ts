import crypto from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseLossless } from './json.ts';
import { messageOf } from '../domain/errors.ts';

/** What a signature covers: the timestamp header and the exact body bytes sent. */
export interface SignInput {
  timestamp: string;
  /** The body as sent; a Buffer of the exact bytes received when a webhook is verified. */
  body: string | Buffer;
  merchantId?: string;
}

/** A named signing scheme. A merchant's own module default-exports one of these. */
export interface SigningScheme {
  readonly name: string;
  sign(input: SignInput, secret: string): string;
}

/** Default: hex HMAC-SHA256 keyed by the secret over `${timestamp}.${body}`. */
export const hmacSha256: SigningScheme = {
  name: 'hmac-sha256',
  sign({ timestamp, body }, secret) {
    return crypto.createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
  },
};

/**
 * The scheme common among Asian payment gateways: upper-case hex MD5 of the body's top-level
 * non-empty scalar fields as sorted `key=value` pairs joined by `&`, then `&key=<secret>`.
 * Numbers are taken as their exact JSON text.
 */
export const md5Sorted: SigningScheme = {
  name: 'md5-sorted',
  sign({ body }, secret) {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    const parsed = text ? parseLossless(text) : {};
    const fields = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    const pairs = Object.keys(fields)
      .filter((k) => fields[k] !== null && fields[k] !== '' && typeof fields[k] !== 'object')
      .sort()
      .map((k) => `${k}=${String(fields[k])}`);
    pairs.push(`key=${secret}`);
    return crypto.createHash('md5').update(pairs.join('&')).digest('hex').toUpperCase();
  },
};

export const BUILTIN_SCHEMES: Readonly<Record<string, SigningScheme>> = Object.freeze({
  [hmacSha256.name]: hmacSha256,
  [md5Sorted.name]: md5Sorted,
});

/**
 * Resolves PROVIDER_SIGNATURE: a built-in name, or `module:<path>` whose default export
 * (or named export `scheme`) is a SigningScheme: merchants plug their own in without forking.
 */
export async function loadSigningScheme(spec: string, cwd = process.cwd()): Promise<SigningScheme> {
  const builtin = BUILTIN_SCHEMES[spec];
  if (builtin) return builtin;
  if (!spec.startsWith('module:')) {
    throw new Error(
      `PROVIDER_SIGNATURE: unknown signing scheme "${spec}"; expected ${Object.keys(BUILTIN_SCHEMES).join(', ')} or module:<path>`,
    );
  }
  const file = path.resolve(cwd, spec.slice('module:'.length));
  let mod: Record<string, unknown>;
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (err) {
    throw new Error(`PROVIDER_SIGNATURE: cannot load signing module ${file}: ${messageOf(err)}`, { cause: err });
  }
  const scheme = (mod.default ?? mod.scheme) as SigningScheme | undefined;
  if (!scheme || typeof scheme.sign !== 'function') {
    throw new Error(`PROVIDER_SIGNATURE: ${file} must export default { name, sign(input, secret) }`);
  }
  return scheme;
}

/** Constant-time check of a received signature (case-insensitive hex). */
export function verifySignature(scheme: SigningScheme, input: SignInput, secret: string, received: string | undefined): boolean {
  if (!received) return false;
  let signed: string;
  try {
    signed = scheme.sign(input, secret);
  } catch {
    return false; // a body the scheme cannot even read (md5-sorted parses JSON) was not signed by it
  }
  const expected = Buffer.from(signed.toLowerCase());
  const given = Buffer.from(received.trim().toLowerCase());
  return expected.length === given.length && crypto.timingSafeEqual(expected, given);
}

/** Ten-digit Unix seconds, as the spec's Timestamp header. */
export function unixTimestamp(nowMs: number): string {
  return String(Math.floor(nowMs / 1000));
}
