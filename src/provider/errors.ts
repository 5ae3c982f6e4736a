import { stringify as losslessStringify } from 'lossless-json';
import { scrub } from '../config/redact.ts';
import type { Operation } from './types.ts';

export type ProviderErrorKind = 'credentials' | 'unavailable' | 'response' | 'not_found';

/** Structured facts behind a provider error, for logs, recon_items and alerts. */
export interface ProviderErrorDetail {
  httpStatus?: number;
  /** The envelope `code`, when one was read. */
  code?: string;
  /** Dotted path of the offending field, e.g. "data.amount". */
  field?: string;
  /** What was received, scrubbed and truncated. */
  received?: string;
  attempts?: number;
  /** Network error code (ECONNRESET, UND_ERR_HEADERS_TIMEOUT, ...). */
  cause?: string;
  /** An initiate call that may or may not have reached the provider: do not blindly re-send it. */
  outcomeUnknown?: boolean;
  transactionRef?: string;
  /** From a Retry-After header, in ms. */
  retryAfterMs?: number;
  /** A 429 given up on because the provider has refused every call of this client for PROVIDER_MAX_THROTTLED_MS. */
  throttledOut?: boolean;
}

/** Base class: every failure of the client is one of these, never a raw exception. */
export class ProviderError extends Error {
  constructor(
    readonly operation: Operation,
    readonly kind: ProviderErrorKind,
    readonly retryable: boolean,
    message: string,
    readonly detail: ProviderErrorDetail = {},
  ) {
    super(`${operation}: ${message}`);
    this.name = new.target.name;
  }
}

/** 401/403 (or an envelope saying so): wrong MerchantID, secret or signature scheme. Never retried. */
export class CredentialsError extends ProviderError {
  constructor(operation: Operation, message: string, detail: ProviderErrorDetail = {}) {
    super(operation, 'credentials', false, message, detail);
  }
}

/** Network failure, timeout, 5xx or 429 that outlasted the retries. */
export class ProviderUnavailableError extends ProviderError {
  constructor(operation: Operation, message: string, detail: ProviderErrorDetail = {}, retryable = true) {
    super(operation, 'unavailable', retryable, message, detail);
  }
}

/** The provider answered, but not with something we can trust (shape, types, amounts, refs, size). */
export class ProviderResponseError extends ProviderError {
  constructor(operation: Operation, message: string, detail: ProviderErrorDetail = {}) {
    super(operation, 'response', false, message, detail);
  }
}

/** The provider says it does not know the transactionRef (recon's NOT_FOUND). */
export class OrderNotFoundError extends ProviderError {
  constructor(
    operation: Operation,
    readonly transactionRef: string,
    message: string,
    detail: ProviderErrorDetail = {},
  ) {
    super(operation, 'not_found', false, message, { ...detail, transactionRef });
  }
}

export const RECEIVED_MAX_CHARS = 200;

/** Received text as it may appear in a message: secrets removed, cut to ~200 chars (length given in chars of the original). */
export function describeReceived(value: unknown, secrets: readonly string[]): string {
  if (value === undefined) return 'nothing';
  const isText = typeof value === 'string';
  let text: string;
  if (isText) text = value;
  else {
    try {
      text = losslessStringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  // Scrub before cutting, so a secret that straddles the cut cannot leak its first half.
  text = scrub(text, secrets);
  const cut = text.length > RECEIVED_MAX_CHARS;
  const shown = cut ? text.slice(0, RECEIVED_MAX_CHARS) : text;
  return `${isText ? JSON.stringify(shown) : shown}${cut ? `… (${text.length} chars)` : ''}`;
}
