import { request } from 'undici';
import { DeliveryError, describeError } from './errors.ts';

/** A Slack incoming-webhook message: `text` is the notification fallback, `blocks` the rich body. */
export interface SlackMessage {
  text: string;
  blocks?: unknown[];
}

/**
 * POSTs the message; resolves on 2xx, throws DeliveryError (scrubbed of the URL, which is
 * itself the credential for Slack webhooks) on anything else, including a timeout.
 */
export async function postWebhook(url: string, message: SlackMessage, timeoutMs: number, secrets: readonly string[]): Promise<void> {
  const hide = [...webhookSecrets(url), ...secrets];
  let status: number;
  let body: string;
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message),
      // A connection per alert (they are rare): a pooled keep-alive socket can be reused in the very
      // turn the receiver's idle timer closes it, and a POST is not retried on that reset (issue 40).
      reset: true,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.statusCode;
    body = await res.body.text();
  } catch (err) {
    throw new DeliveryError('webhook', `webhook request failed: ${describeError(err, hide)}`);
  }
  if (status < 200 || status >= 300) {
    throw new DeliveryError('webhook', describeError(new Error(`webhook answered HTTP ${status}: ${body.slice(0, 200)}`), hide));
  }
}

/**
 * The parts of a webhook URL that grant access: the whole URL, and its path and query on their
 * own, since servers echo "/services/T000/B000/XXXX" in error bodies without the host.
 */
export function webhookSecrets(url: string): string[] {
  const out = [url];
  try {
    const u = new URL(url);
    if (u.pathname.length > 1) out.push(`${u.pathname}${u.search}`, u.pathname);
    if (u.search.length > 1) out.push(u.search.slice(1));
    if (u.password) out.push(u.password);
  } catch {
    /* not a URL: the whole string is all we can hide */
  }
  return out;
}
