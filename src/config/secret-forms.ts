/**
 * The forms a secret comes back in from servers and libraries, so scrubbing is not defeated by an
 * encoding: a provider echoing the key inside JSON (`k3y\/With\/…`), a URL query (`k3y%2FWith…`),
 * an Authorization header or SMTP AUTH (base64, where the secret sits at any byte offset).
 */

/** Base64 pieces shorter than this could match unrelated text. */
const MIN_BASE64_PIECE = 8;

export function secretForms(secrets: readonly string[]): string[] {
  const out = new Set<string>();
  for (const s of secrets) {
    out.add(s);
    const json = JSON.stringify(s).slice(1, -1);
    out.add(json);
    out.add(json.replaceAll('/', '\\/'));
    const url = encodeURIComponent(s);
    out.add(url);
    out.add(url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
    out.add(url.replaceAll('%20', '+'));
    for (const piece of base64Pieces(s)) if (piece.length >= MIN_BASE64_PIECE) out.add(piece);
  }
  return [...out];
}

/**
 * Base64 and base64url of the secret alone, and, for each of the three byte offsets it can start at
 * inside a longer encoded value (`user:secret` in Basic auth), the characters that depend on the
 * secret's bytes only.
 */
function base64Pieces(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const pieces: string[] = [];
  for (const alphabet of ['base64', 'base64url'] as const) {
    const whole = bytes.toString(alphabet);
    pieces.push(whole, whole.replace(/=+$/, ''));
    for (let offset = 0; offset < 3; offset++) {
      const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(alphabet);
      // The first group mixes in preceding bytes; the last partial group mixes in following ones.
      const start = offset === 0 ? 0 : 4;
      const end = Math.floor((offset + bytes.length) / 3) * 4;
      if (end > start) pieces.push(encoded.slice(start, end));
    }
  }
  return pieces;
}
