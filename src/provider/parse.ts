import { isLosslessNumber } from 'lossless-json';
import { digitsOf, isDecimalText, normalizeDecimal } from '../money/decimal.ts';
import { amountBoundsFor } from '../money/bounds.ts';
import { describeReceived, ProviderResponseError } from './errors.ts';
import { parseLosslessTyped } from './json.ts';
import type { Operation } from './types.ts';
import { messageOf } from '../domain/errors.ts';

/** What the parsing functions need to write a useful error. */
export interface ParseContext {
  operation: Operation;
  httpStatus: number;
  secrets: readonly string[];
}

export interface Envelope {
  code: string;
  message: string;
  data: unknown;
}

/** amount: an order's money, never negative; signedAmount: a balance, which may be. Both bounded in digits. */
type FieldType = 'string' | 'amount' | 'signedAmount' | 'optionalString';
export type Shape = Readonly<Record<string, FieldType>>;

/** Maps a shape to the record it validates into; amounts come out as canonical decimal text. */
export type ShapeOf<S extends Shape> = { [K in keyof S as S[K] extends 'optionalString' ? never : K]: string } & {
  [K in keyof S as S[K] extends 'optionalString' ? K : never]?: string;
};

/** C0 and C1 control characters and DEL: no provider text needs them, and NUL cannot even be stored. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

function readText(value: unknown, field: string, ctx: ParseContext): string {
  if (typeof value !== 'string') fail(ctx, field, 'a string', value);
  if (CONTROL_CHARACTER.test(value)) fail(ctx, field, 'text without control characters', value);
  return value;
}

function fail(ctx: ParseContext, field: string, expected: string, received: unknown): never {
  const shown = describeReceived(received, ctx.secrets);
  throw new ProviderResponseError(ctx.operation, `field "${field}": expected ${expected}, received ${shown}`, {
    httpStatus: ctx.httpStatus,
    field,
    received: shown,
  });
}

/** Body text to a JSON value, with numbers kept as exact text; HTML pages and broken JSON are named as such. */
export function parseJsonBody(text: string, contentType: string | undefined, ctx: ParseContext): unknown {
  // The usual answer, a JSON object as the body's first character and not served as HTML, goes straight to the parser.
  if (text.charCodeAt(0) === OPEN_BRACE && !/text\/html/i.test(contentType ?? '')) return parseOrFail(text, ctx);
  const head = text.trimStart().slice(0, 15).toLowerCase();
  if (/text\/html/i.test(contentType ?? '') || head.startsWith('<!doctype') || head.startsWith('<html') || head.startsWith('<')) {
    const shown = describeReceived(text, ctx.secrets);
    throw new ProviderResponseError(ctx.operation, `expected a JSON body, received an HTML page (HTTP ${ctx.httpStatus}): ${shown}`, {
      httpStatus: ctx.httpStatus,
      received: shown,
    });
  }
  if (text.trim() === '') {
    throw new ProviderResponseError(ctx.operation, `expected a JSON body, received an empty body (HTTP ${ctx.httpStatus})`, {
      httpStatus: ctx.httpStatus,
    });
  }
  return parseOrFail(text, ctx);
}

const OPEN_BRACE = 0x7b;

function parseOrFail(text: string, ctx: ParseContext): unknown {
  try {
    return parseLosslessTyped(text);
  } catch (err) {
    const shown = describeReceived(text, ctx.secrets);
    throw new ProviderResponseError(ctx.operation, `body is not valid JSON (${messageOf(err)}) (HTTP ${ctx.httpStatus}): ${shown}`, {
      httpStatus: ctx.httpStatus,
      received: shown,
    });
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

/** The common envelope {code, message, data}; `code` may arrive as "200" or 200. */
export function readEnvelope(body: unknown, ctx: ParseContext): Envelope {
  if (!isPlainObject(body)) fail(ctx, '(body)', 'a JSON object {code, message, data}', body);
  const rawCode = body.code;
  let code: string;
  if (typeof rawCode === 'string') code = rawCode;
  else if (isLosslessNumber(rawCode)) code = rawCode.value;
  else fail(ctx, 'code', 'a string such as "200"', rawCode);
  const message = body.message;
  if (message !== undefined && message !== null && typeof message !== 'string') fail(ctx, 'message', 'a string', message);
  return { code, message: message ?? '', data: body.data };
}

/**
 * Amount text from a JSON number or numeric string, or null. Exponent forms are only accepted from JSON
 * numbers (some serialisers emit them) and only with a small exponent, so "1e999999" cannot blow up.
 */
function amountText(value: unknown): string | null {
  if (typeof value === 'string' && isDecimalText(value)) return normalizeDecimal(value);
  if (isLosslessNumber(value)) {
    const text = value.value;
    if (isDecimalText(text)) return normalizeDecimal(text);
    const m = /^-?(0|[1-9]\d*)(\.\d+)?[eE]([+-]?\d+)$/.exec(text);
    if (m && Math.abs(Number(m[3])) <= 40) return normalizeDecimal(text);
  }
  return null;
}

/** A shape's fields as a list, made once per shape: every provider answer is read through one. */
const FIELD_LISTS = new WeakMap<Shape, ReadonlyArray<readonly [string, FieldType]>>();

function fieldsOf(shape: Shape): ReadonlyArray<readonly [string, FieldType]> {
  let fields = FIELD_LISTS.get(shape);
  if (!fields) FIELD_LISTS.set(shape, (fields = Object.entries(shape)));
  return fields;
}

/** Validates one object against a shape; extra fields are dropped, missing or mistyped ones are named. */
export function readRecord<S extends Shape>(value: unknown, shape: S, path: string, ctx: ParseContext): ShapeOf<S> {
  if (!isPlainObject(value)) fail(ctx, path, 'an object', value);
  const out: Record<string, string> = {};
  // A field's name for an error is built only when there is one.
  for (const [key, type] of fieldsOf(shape)) {
    const v = value[key];
    if (type === 'amount' || type === 'signedAmount') {
      if (v === undefined || v === null) fail(ctx, `${path}.${key}`, 'a decimal amount', v);
      const text = amountText(v) ?? fail(ctx, `${path}.${key}`, 'a decimal amount (JSON number or numeric string)', v);
      if (type === 'amount' && text.startsWith('-')) fail(ctx, `${path}.${key}`, 'an amount of zero or more', v);
      out[key] = text;
    } else if (type === 'optionalString') {
      if (v === undefined || v === null) continue;
      out[key] = isCleanText(v) ? v : readText(v, `${path}.${key}`, ctx);
    } else {
      out[key] = isCleanText(v) ? v : readText(v, `${path}.${key}`, ctx);
    }
  }
  checkBounds(out, shape, path, value, ctx);
  return out as ShapeOf<S>;
}

/** What readText accepts, without naming the field. */
const isCleanText = (v: unknown): v is string => typeof v === 'string' && !CONTROL_CHARACTER.test(v);

/** Digits are bounded per currency (the record's own, or the widest when it names none payrecon knows). */
function checkBounds(out: Record<string, string>, shape: Shape, path: string, raw: Record<string, unknown>, ctx: ParseContext): void {
  const bounds = amountBoundsFor(out.currency);
  for (const [key, type] of fieldsOf(shape)) {
    if (type !== 'amount' && type !== 'signedAmount') continue;
    const { integerDigits, scale } = digitsOf(out[key]);
    if (integerDigits > bounds.integerDigits || scale > bounds.scale) {
      const expected = `an amount of at most ${bounds.integerDigits} digits before the point and ${bounds.scale} after`;
      fail(ctx, `${path}.${key}`, isCurrencyText(out.currency) ? `${expected} (${out.currency})` : expected, raw[key]);
    }
  }
}

const isCurrencyText = (v: unknown): v is string => typeof v === 'string' && /^[A-Z]{3}$/.test(v);

/** An array of records of one shape (the bank code list). */
export function readArray<S extends Shape>(value: unknown, shape: S, path: string, ctx: ParseContext): ShapeOf<S>[] {
  if (!Array.isArray(value)) fail(ctx, path, 'an array', value);
  return value.map((item, i) => readRecord(item, shape, `${path}[${i}]`, ctx));
}

/** Response shapes of the seven operations (spec: "Resources and their fields"). */
export const SHAPES = {
  paymentInitiate: {
    transactionRef: 'string',
    merchantRef: 'string',
    currency: 'string',
    method: 'string',
    amount: 'amount',
    checkoutUrl: 'string',
  },
  paymentFetch: {
    transactionRef: 'string',
    merchantRef: 'string',
    currency: 'string',
    method: 'string',
    amount: 'amount',
    paidAmount: 'amount',
    fee: 'amount',
    status: 'string',
  },
  payoutInitiate: {
    transactionRef: 'string',
    merchantRef: 'string',
    currency: 'string',
    method: 'string',
    amount: 'amount',
    fee: 'amount',
    status: 'string',
  },
  payoutFetch: {
    transactionRef: 'string',
    merchantRef: 'string',
    utr: 'optionalString',
    currency: 'string',
    method: 'string',
    amount: 'amount',
    fee: 'amount',
    status: 'string',
  },
  bankEntry: { bankCode: 'string', bankName: 'string' },
  balance: { currency: 'string', available: 'signedAmount', pending: 'signedAmount', held: 'signedAmount', credit: 'signedAmount' },
  usdtRate: { currency: 'string', deposit: 'amount', withdraw: 'amount' },
} as const satisfies Record<string, Shape>;

/**
 * How the client recognises "unknown transactionRef" (the spec does not say): an envelope `code`
 * of "404", or a message that says not found / does not exist / no such / invalid transactionRef.
 * A "200" envelope whose data is null or absent is treated the same way by the fetch operations.
 */
export function isNotFoundEnvelope(env: Envelope): boolean {
  return (
    env.code === '404' ||
    /not[\s_-]*found|not[\s_-]*exist|no[\s_-]+such|unknown[\s_-]+(order|transaction)|invalid[\s_-]+transaction[\s_-]*ref/i.test(env.message)
  );
}
