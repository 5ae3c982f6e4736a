import { DateTime } from 'luxon';
import { CURRENCIES, CURRENCY_DECIMALS, isCurrency, normalizeDecimal } from '../money/decimal.ts';
import { isFinalCategory, type StatusMapper } from '../provider/status.ts';
import type { Direction } from '../provider/types.ts';
import type { NewOrder } from './orders.ts';
import { canonicalRef } from '../recon/refs.ts';

/** Columns of an order CSV, by kind. Header names are exact; order is free. */
export const IMPORT_COLUMNS: Readonly<Record<Direction, { required: readonly string[]; optional: readonly string[] }>> = {
  payment: {
    required: ['merchant_ref', 'transaction_ref', 'currency', 'method', 'amount', 'status', 'created_at'],
    optional: ['paid_amount', 'fee', 'updated_at', 'finalized_at'],
  },
  payout: {
    required: ['merchant_ref', 'transaction_ref', 'currency', 'method', 'amount', 'status', 'created_at'],
    optional: ['fee', 'bank_code', 'utr', 'updated_at', 'finalized_at'],
  },
};

export interface RowRules {
  statusOf: StatusMapper;
  /** Decimals allowed in amounts; default: the currency's minor units (2 for INR, NGN, IDR). */
  maxDecimals?: number;
}

export type RowResult = { ok: true; order: NewOrder } | { ok: false; reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// C0, DEL and C1 controls: never legitimate in these fields, and they hide text in terminals and sheets.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// What a spreadsheet would evaluate as a formula if the value reached a report cell.
const FORMULA_START = /^[=+\-@]/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/;
const UNSIGNED_DECIMAL = /^\d+(\.\d+)?$/;
const MAX_TEXT = 100;
const MAX_INTEGER_DIGITS = 20;

class RowError extends Error {}

const show = (v: string) => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);

function text(field: string, v: string, required: boolean): string | null {
  if (v === '') {
    if (required) throw new RowError(`${field}: required`);
    return null;
  }
  if (CONTROL.test(v)) throw new RowError(`${field}: contains a control character: ${show(v)}`);
  if (FORMULA_START.test(v)) throw new RowError(`${field}: starts with "${v[0]}" (would run as a spreadsheet formula): ${show(v)}`);
  if (v.length > MAX_TEXT) throw new RowError(`${field}: longer than ${MAX_TEXT} characters`);
  return v;
}

function ref(field: string, v: string): string {
  if (!UUID.test(v)) throw new RowError(`${field}: ${show(v)} is not a UUID`);
  return canonicalRef(v);
}

function amount(field: string, v: string, maxDecimals: number, required: boolean): string | null {
  if (v === '') {
    if (required) throw new RowError(`${field}: required`);
    return null;
  }
  if (v.startsWith('-') && UNSIGNED_DECIMAL.test(v.slice(1))) throw new RowError(`${field}: ${show(v)} is negative`);
  if (!UNSIGNED_DECIMAL.test(v)) throw new RowError(`${field}: ${show(v)} is not a decimal number (digits and one ".")`);
  const [whole, frac = ''] = v.split('.');
  if (frac.length > maxDecimals) throw new RowError(`${field}: ${show(v)} has more than ${maxDecimals} decimals`);
  if (whole.replace(/^0+/, '').length > MAX_INTEGER_DIGITS) throw new RowError(`${field}: ${show(v)} is implausibly large`);
  return normalizeDecimal(v);
}

function timestamp(field: string, v: string, required: boolean): Date | null {
  if (v === '') {
    if (required) throw new RowError(`${field}: required`);
    return null;
  }
  const dt = DateTime.fromISO(v, { setZone: true });
  if (!ISO_WITH_OFFSET.test(v) || !dt.isValid) {
    throw new RowError(`${field}: ${show(v)} is not an ISO-8601 date-time with an offset (e.g. 2024-03-01T10:15:00+05:30)`);
  }
  return dt.toJSDate();
}

/** Validates one CSV record (header name -> trimmed value) into an order, or says why not. */
export function validateOrderRow(kind: Direction, rec: Readonly<Record<string, string>>, rules: RowRules): RowResult {
  try {
    const get = (k: string) => rec[k] ?? '';
    const currency = get('currency');
    if (!isCurrency(currency)) throw new RowError(`currency: ${show(currency)} is not one of ${CURRENCIES.join(', ')}`);
    const decimals = rules.maxDecimals ?? CURRENCY_DECIMALS[currency];
    const status = text('status', get('status'), true)!;
    const statusCategory = rules.statusOf(status);
    const createdAt = timestamp('created_at', get('created_at'), true)!;
    const updatedAt = timestamp('updated_at', get('updated_at'), false) ?? createdAt;
    // A final order without its own finalized_at is taken as final since its last update.
    const finalizedAt = timestamp('finalized_at', get('finalized_at'), false) ?? (isFinalCategory(statusCategory) ? updatedAt : null);
    const order: NewOrder = {
      merchantRef: ref('merchant_ref', get('merchant_ref')),
      transactionRef: ref('transaction_ref', get('transaction_ref')),
      currency,
      method: text('method', get('method'), true)!,
      amount: amount('amount', get('amount'), decimals, true)!,
      fee: amount('fee', get('fee'), decimals, false),
      status,
      statusCategory,
      createdAt,
      updatedAt,
      finalizedAt,
    };
    if (kind === 'payment') order.paidAmount = amount('paid_amount', get('paid_amount'), decimals, false);
    else {
      order.bankCode = text('bank_code', get('bank_code'), false);
      order.utr = text('utr', get('utr'), false);
    }
    return { ok: true, order };
  } catch (err) {
    if (err instanceof RowError) return { ok: false, reason: err.message };
    throw err;
  }
}
