import { DateTime } from 'luxon';
import { CURRENCIES, CURRENCY_DECIMALS, isCurrency, normalizeDecimal } from '../money/decimal.ts';
import { amountBoundsFor, withinAmountBounds, withinOffsetBounds } from '../money/bounds.ts';
import { isFinalCategory, type StatusMapper } from '../domain/status.ts';
import type { Direction } from '../domain/types.ts';
import type { NewOrder } from '../db/orders.ts';
import { canonicalRef } from '../domain/refs.ts';

/** Columns of an order CSV, by kind. Header names are exact; order is free. */
export const IMPORT_COLUMNS: Readonly<Record<Direction, { required: readonly string[]; optional: readonly string[] }>> = {
  payment: {
    required: ['merchant_ref', 'transaction_ref', 'currency', 'method', 'amount', 'status', 'created_at'],
    optional: ['paid_amount', 'fee', 'updated_at', 'finalized_at', 'account'],
  },
  payout: {
    required: ['merchant_ref', 'transaction_ref', 'currency', 'method', 'amount', 'status', 'created_at'],
    optional: ['fee', 'bank_code', 'utr', 'updated_at', 'finalized_at', 'account'],
  },
};

export interface RowRules {
  statusOf: StatusMapper;
  /** Decimals allowed in amounts; default: the currency's minor units (2 for INR, NGN, IDR). */
  maxDecimals?: number;
  /**
   * The configured account ids and the one a row without an `account` cell belongs to (`--account`, or
   * the only account); no fallback: such a row is refused. Unset: the rows name no account (the sandbox).
   */
  accounts?: { ids: readonly string[]; fallback?: string };
}

export type RowResult = { ok: true; order: NewOrder } | { ok: false; reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// C0, DEL and C1 controls: never legitimate in these fields, and they hide text in terminals and sheets.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// What a spreadsheet would evaluate as a formula if the value reached a report cell.
const FORMULA_START = /^[=+\-@]/;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/;
const OFFSET = /(Z|[+-][\d:]+)$/;
const UNSIGNED_DECIMAL = /^\d+(\.\d+)?$/;
const MAX_TEXT = 100;

export class RowError extends Error {}

/** The row's account: its `account` cell, else the fallback; a cell naming no configured account is refused. */
function account(cell: string, accounts: { ids: readonly string[]; fallback?: string }): string {
  if (cell === '') {
    if (accounts.fallback !== undefined) return accounts.fallback;
    throw new RowError(
      `account: required, ${accounts.ids.length} accounts are configured (${accounts.ids.join(', ')}); give the column or --account`,
    );
  }
  if (!accounts.ids.includes(cell)) throw new RowError(`account: ${show(cell)} is not a configured account (${accounts.ids.join(', ')})`);
  return cell;
}

/**
 * A row's problems, collected field by field: `check` reads one field and keeps its RowError instead of
 * stopping, so one reading of the file lists everything to fix in the row (any other error is thrown).
 */
export function rowProblems(): { problems: string[]; check: <T>(fn: () => T) => T | null } {
  const problems: string[] = [];
  const check = <T>(fn: () => T): T | null => {
    try {
      return fn();
    } catch (err) {
      if (!(err instanceof RowError)) throw err;
      problems.push(err.message);
      return null;
    }
  };
  return { problems, check };
}

const show = (v: string) => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);

export function text(field: string, v: string, required: boolean): string | null {
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

export function amount(field: string, v: string, currency: string, maxDecimals: number, required: boolean): string | null {
  if (v === '') {
    if (required) throw new RowError(`${field}: required`);
    return null;
  }
  if (v.startsWith('-') && UNSIGNED_DECIMAL.test(v.slice(1))) throw new RowError(`${field}: ${show(v)} is negative`);
  if (!UNSIGNED_DECIMAL.test(v)) throw new RowError(`${field}: ${show(v)} is not a decimal number (digits and one ".")`);
  const frac = v.split('.')[1] ?? '';
  if (frac.length > maxDecimals) throw new RowError(`${field}: ${show(v)} has more than ${maxDecimals} decimals`);
  const normalized = normalizeDecimal(v);
  // The provider parser's bounds: an order beyond them could never match its provider answer.
  if (!withinAmountBounds(normalized, currency)) {
    throw new RowError(`${field}: ${show(v)} is too large: at most ${amountBoundsFor(currency).integerDigits} digits before the point`);
  }
  return normalized;
}

export function timestamp(field: string, v: string, required: boolean): Date | null {
  if (v === '') {
    if (required) throw new RowError(`${field}: required`);
    return null;
  }
  const dt = DateTime.fromISO(v, { setZone: true });
  if (!ISO_WITH_OFFSET.test(v) || !dt.isValid) {
    throw new RowError(`${field}: ${show(v)} is not an ISO-8601 date-time with an offset (e.g. 2024-03-01T10:15:00+05:30)`);
  }
  if (!withinOffsetBounds(OFFSET.exec(v)![1])) {
    throw new RowError(`${field}: ${show(v)} needs an offset between -12:00 and +14:00 (minutes below 60), such as +05:30`);
  }
  return dt.toJSDate();
}

/** Validates one CSV record (header name -> trimmed value) into an order, or names every problem it has. */
export function validateOrderRow(kind: Direction, rec: Readonly<Record<string, string>>, rules: RowRules): RowResult {
  const { problems, check } = rowProblems();
  const get = (k: string) => rec[k] ?? '';
  // Any case, stored upper case: the same rule as `--currency` on the command line.
  const currency = get('currency').toUpperCase();
  const knownCurrency = isCurrency(currency);
  if (!knownCurrency) problems.push(`currency: ${show(get('currency'))} is not one of ${CURRENCIES.join(', ')} (any case)`);
  // With an unknown currency the amounts are still checked, against the widest minor unit.
  const decimals = rules.maxDecimals ?? (knownCurrency ? CURRENCY_DECIMALS[currency] : Math.max(...Object.values(CURRENCY_DECIMALS)));
  const status = check(() => text('status', get('status'), true)!);
  const statusCategory = status === null ? null : rules.statusOf(status);
  const createdAt = check(() => timestamp('created_at', get('created_at'), true)!);
  const updatedAt = check(() => timestamp('updated_at', get('updated_at'), false)) ?? createdAt;
  const finalizedAt = check(() => timestamp('finalized_at', get('finalized_at'), false));
  const merchantRef = check(() => ref('merchant_ref', get('merchant_ref')));
  const transactionRef = check(() => ref('transaction_ref', get('transaction_ref')));
  const method = check(() => text('method', get('method'), true)!);
  const amountValue = check(() => amount('amount', get('amount'), currency, decimals, true)!);
  const fee = check(() => amount('fee', get('fee'), currency, decimals, false));
  const paidAmount = kind === 'payment' ? check(() => amount('paid_amount', get('paid_amount'), currency, decimals, false)) : null;
  const bankCode = kind === 'payout' ? check(() => text('bank_code', get('bank_code'), false)) : null;
  const utr = kind === 'payout' ? check(() => text('utr', get('utr'), false)) : null;
  const accountId = rules.accounts ? check(() => account(get('account'), rules.accounts!)) : undefined;
  if (problems.length) return { ok: false, reason: problems.join('; ') };
  const order: NewOrder = {
    merchantRef: merchantRef!,
    transactionRef: transactionRef!,
    currency: currency as NewOrder['currency'],
    method: method!,
    amount: amountValue!,
    fee,
    status: status!,
    statusCategory: statusCategory!,
    createdAt: createdAt!,
    updatedAt: updatedAt!,
    // A final order without its own finalized_at is taken as final since its last update.
    finalizedAt: finalizedAt ?? (isFinalCategory(statusCategory!) ? updatedAt : null),
  };
  if (accountId) order.accountId = accountId;
  if (kind === 'payment') order.paidAmount = paidAmount;
  else {
    order.bankCode = bankCode;
    order.utr = utr;
  }
  return { ok: true, order };
}
