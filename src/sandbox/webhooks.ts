import type { Logger } from '../log/logger.ts';
import type { PaymentWebhookBody } from '../provider/types.ts';
import { unixTimestamp, type SigningScheme } from '../provider/signing.ts';
import type { SandboxOrder, WebhookAttempt } from './types.ts';
import { messageOf } from '../domain/errors.ts';

export interface WebhookOptions {
  url?: string;
  intervalMs: number;
  maxAttempts: number;
  scheme: SigningScheme;
  secretOf: (merchantId: string) => string | undefined;
  /** Sandbox clock: when attempts are due (advancing it brings retries forward). */
  now: () => number;
  /** Clock for the Timestamp header (not shifted by the control offset, like the auth window). */
  wallNow: () => number;
  logger: Logger;
}

interface Pending {
  transactionRef: string;
  merchantId: string;
  body: string;
  attempts: number;
  nextAt: number;
  inFlight: boolean;
}

const MAX_IN_FLIGHT = 32;
const MAX_RECORDED_ATTEMPTS = 10_000;
const DELIVERY_TIMEOUT_MS = 10_000;

/** Payment notifications: POSTed when a payment is final, retried every interval until the receiver acknowledges. */
export class WebhookDispatcher {
  private url: string | undefined;
  private queue = new Map<number, Pending>();
  private nextId = 1;
  private inFlight = 0;
  private aborts = new Set<AbortController>();
  readonly attempts: WebhookAttempt[] = [];
  delivered = 0;
  gaveUp = 0;

  constructor(private readonly o: WebhookOptions) {
    this.url = o.url;
  }

  setUrl(url: string | undefined): void {
    this.url = url;
  }

  get queued(): number {
    return this.queue.size;
  }

  /** Every value as a string, as the spec's payload shows. */
  static body(order: SandboxOrder): string {
    const b: PaymentWebhookBody = {
      transactionRef: order.transactionRef,
      merchantRef: order.merchantRef,
      currency: String(order.currency),
      method: order.method,
      amount: order.amount,
      paidAmount: order.paidAmount,
      fee: order.fee,
      status: order.status,
    };
    return JSON.stringify(b);
  }

  enqueue(order: SandboxOrder): void {
    if (!this.url) return;
    this.queue.set(this.nextId++, {
      transactionRef: order.transactionRef,
      merchantId: order.merchantId,
      body: WebhookDispatcher.body(order),
      attempts: 0,
      nextAt: this.o.now(),
      inFlight: false,
    });
    this.dispatchDue();
  }

  /** Starts every delivery that is due, within the in-flight cap. */
  dispatchDue(): void {
    if (this.queue.size === 0) return;
    const now = this.o.now();
    for (const [id, p] of this.queue) {
      if (this.inFlight >= MAX_IN_FLIGHT) return;
      if (!p.inFlight && p.nextAt <= now) void this.attempt(id, p);
    }
  }

  reset(): void {
    for (const a of this.aborts) a.abort();
    this.queue.clear();
    this.attempts.length = 0;
    this.delivered = 0;
    this.gaveUp = 0;
  }

  close(): void {
    for (const a of this.aborts) a.abort();
    this.queue.clear();
  }

  private async attempt(id: number, p: Pending): Promise<void> {
    const url = this.url;
    const secret = this.o.secretOf(p.merchantId);
    if (!url || secret === undefined) {
      this.queue.delete(id);
      return;
    }
    p.inFlight = true;
    p.attempts++;
    this.inFlight++;
    const timestamp = unixTimestamp(this.o.wallNow());
    const record: WebhookAttempt = { transactionRef: p.transactionRef, attempt: p.attempts, at: this.o.now(), acknowledged: false };
    const abort = new AbortController();
    this.aborts.add(abort);
    const timer = setTimeout(() => abort.abort(), DELIVERY_TIMEOUT_MS);
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Signature: this.o.scheme.sign({ timestamp, body: p.body }, secret),
          Timestamp: timestamp,
        },
        body: p.body,
        signal: abort.signal,
      });
      const text = await res.text();
      record.httpStatus = res.status;
      // The spec's acknowledgement: 200, text/plain, body SUCCESS; anything else counts as a failure.
      record.acknowledged =
        res.status === 200 && (res.headers.get('content-type') ?? '').startsWith('text/plain') && text.trim() === 'SUCCESS';
      if (!record.acknowledged) record.error = `not acknowledged: ${res.status} ${text.slice(0, 80)}`;
    } catch (err) {
      record.error = messageOf(err);
    } finally {
      clearTimeout(timer);
      this.aborts.delete(abort);
      this.inFlight--;
      p.inFlight = false;
    }
    if (this.attempts.length >= MAX_RECORDED_ATTEMPTS) this.attempts.shift();
    this.attempts.push(record);
    if (!this.queue.has(id)) return; // reset while in flight
    if (record.acknowledged) {
      this.delivered++;
      this.queue.delete(id);
    } else if (p.attempts >= this.o.maxAttempts) {
      this.gaveUp++;
      this.queue.delete(id);
      this.o.logger.warn({ transactionRef: p.transactionRef, attempts: p.attempts }, 'sandbox webhook: gave up');
    } else {
      p.nextAt = this.o.now() + this.o.intervalMs;
      this.o.logger.debug({ transactionRef: p.transactionRef, attempt: p.attempts, error: record.error }, 'sandbox webhook: will retry');
    }
  }
}
