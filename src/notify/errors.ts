import { scrub } from '../config/redact.ts';

/** A delivery failure whose message is already free of secrets, safe to log and to store. */
export class DeliveryError extends Error {
  constructor(
    readonly channel: 'smtp' | 'webhook',
    message: string,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/**
 * The text of any thrown value with secrets removed. Transport errors can quote the URL they
 * were given (nodemailer's AUTH errors, undici's connect errors), so every one goes through here.
 */
export function describeError(err: unknown, secrets: readonly string[]): string {
  const e = err as { message?: unknown; code?: unknown; response?: unknown } | null;
  let text = typeof e?.message === 'string' ? e.message : String(err);
  // nodemailer puts the server's reply in `response`; it is often the useful part.
  if (typeof e?.response === 'string' && !text.includes(e.response)) text += ` (${e.response})`;
  if (typeof e?.code === 'string' && !text.includes(e.code)) text = `${e.code}: ${text}`;
  // Keep stored error columns bounded; a server may answer with a page of HTML.
  return scrub(text, secrets).slice(0, 2000);
}
