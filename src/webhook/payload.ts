import crypto from 'node:crypto';
import { parseLossless } from '../provider/json.ts';
import { digitsOf, isDecimalText, normalizeDecimal } from '../money/decimal.ts';
import { amountBoundsFor } from '../money/bounds.ts';
import type { Notification } from '../provider/types.ts';
import { canonicalRef } from '../domain/refs.ts';

// The shape lives with the provider's other types, so the repositories can store it without importing this parser.
export type { Notification };

export class PayloadError extends Error {}

const PAYMENT_TEXT = ['transactionRef', 'merchantRef', 'currency', 'method', 'status'] as const;
const PAYMENT_AMOUNTS = ['amount', 'paidAmount', 'fee'] as const;

function parseObject(raw: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    // Lossless: a provider sending amounts as JSON numbers still never goes through a float.
    parsed = parseLossless(raw);
  } catch {
    throw new PayloadError('body is not JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new PayloadError('body is not a JSON object');
  return parsed as Record<string, unknown>;
}

/** C0 and C1 control characters and DEL: refused as the fetch parser refuses them (NUL cannot even be stored). */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
/** Refs in payrecon's canonical form (UUIDs lower case), as orders store them. */
const ref = (v: unknown): string | null => {
  const t = text(v);
  return t === null ? null : canonicalRef(t);
};

/** Decimal text, not negative, within the digits payrecon accepts for the notification's currency. */
function amount(v: unknown, currency: unknown): string | null {
  if (typeof v !== 'string' || !isDecimalText(v.trim()) || v.trim().startsWith('-')) return null;
  const bounds = amountBoundsFor(currency);
  const { integerDigits, scale } = digitsOf(v.trim());
  return integerDigits <= bounds.integerDigits && scale <= bounds.scale ? v.trim() : null;
}

/** A text field carrying control characters is refused outright, naming the field, whichever direction. */
function refuseControlCharacters(o: Record<string, unknown>): void {
  const bad = PAYMENT_TEXT.filter((k) => typeof o[k] === 'string' && CONTROL_CHARACTER.test(o[k] as string));
  if (bad.length) throw new PayloadError(`control characters in field(s): ${bad.join(', ')}`);
}

/** The payment webhook as the spec shows it: all eight fields required, amounts numeric text, zero or more, bounded in digits. */
export function parsePaymentNotification(raw: string): Notification {
  const o = parseObject(raw);
  const missing = [...PAYMENT_TEXT, ...PAYMENT_AMOUNTS].filter((k) => text(o[k]) === null);
  if (missing.length) throw new PayloadError(`missing or empty field(s): ${missing.join(', ')}`);
  refuseControlCharacters(o);
  const bad = PAYMENT_AMOUNTS.filter((k) => amount(o[k], text(o.currency)) === null);
  if (bad.length) {
    const b = amountBoundsFor(text(o.currency));
    throw new PayloadError(
      `not a decimal amount of zero or more with at most ${b.integerDigits} digits before the point and ${b.scale} after: ${bad.join(', ')}`,
    );
  }
  return {
    direction: 'payment',
    transactionRef: ref(o.transactionRef),
    merchantRef: ref(o.merchantRef),
    currency: text(o.currency),
    method: text(o.method),
    amount: amount(o.amount, text(o.currency)),
    paidAmount: amount(o.paidAmount, text(o.currency)),
    fee: amount(o.fee, text(o.currency)),
    status: text(o.status),
  };
}

/** Payout payload is not specified: any JSON object is kept; familiar fields are picked when they look right. */
export function parsePayoutNotification(raw: string): Notification {
  const o = parseObject(raw);
  refuseControlCharacters(o);
  return {
    direction: 'payout',
    transactionRef: ref(o.transactionRef),
    merchantRef: ref(o.merchantRef),
    currency: text(o.currency),
    method: text(o.method),
    amount: amount(o.amount, text(o.currency)),
    paidAmount: null,
    fee: amount(o.fee, text(o.currency)),
    status: text(o.status),
  };
}

/**
 * Retries of one notification share this key. Payments: the fields that make it the same notification
 * (amounts normalised, so "100.0" and "100" agree) rather than the bytes, so a provider that re-serialises
 * on retry is still deduplicated, while a later notification with another status or amount is kept apart.
 * Payouts, payload unknown: the raw body.
 */
export function dedupeKey(n: Notification, raw: string): string {
  const basis =
    n.direction === 'payment'
      ? [
          'payment',
          n.transactionRef ?? '',
          n.status ?? '',
          ...[n.amount, n.paidAmount, n.fee].map((v) => (v === null ? '' : normalizeDecimal(v))),
        ].join('\n')
      : `payout\n${raw}`;
  return crypto.createHash('sha256').update(basis).digest('hex');
}
