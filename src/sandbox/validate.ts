import { CURRENCY_DECIMALS, digitsOf, isCurrency, type Currency } from '../money/decimal.ts';
import { AMOUNT_BOUNDS } from '../money/bounds.ts';
import { isBankCurrency, isIfscShaped, type BankDirectory, type BankCurrency } from './bank-codes.ts';
import { NumText, isPlainObject } from './request-json.ts';

/** Methods the sandbox accepts per currency; the spec shows the first of each, the rest are common siblings. */
export const PAYMENT_METHODS: Readonly<Record<Currency, readonly string[]>> = {
  INR: ['NATIVE', 'UPI'],
  NGN: ['TRANSFER', 'CARD', 'USSD'],
  IDR: ['BNI', 'BRI', 'MANDIRI', 'PERMATA', 'CIMB', 'QRIS', 'OVO', 'DANA'],
};
export const PAYOUT_METHODS: Readonly<Record<Currency, readonly string[]>> = {
  INR: ['IFSC'],
  NGN: ['BANK'],
  IDR: ['TRANSFER'],
};

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

export interface PaymentInitiateInput {
  merchantRef: string;
  currency: Currency;
  method: string;
  amount: string;
  name: string;
  phone: string;
  email: string;
  redirectUrl: string;
}
export interface PayoutInitiateInput {
  merchantRef: string;
  currency: Currency;
  method: string;
  bankCode: string;
  amount: string;
  name: string;
  account: string;
  phone: string;
  email: string;
}

/** Thrown inside a checker with the message the client sees; caught by `checked`. */
class Invalid extends Error {}
const fail = (field: string, problem: string): never => {
  throw new Invalid(`INVALID_PARAMETER: ${field} ${problem}`);
};

function checked<T>(body: unknown, build: (b: Record<string, unknown>) => T): Checked<T> {
  if (!isPlainObject(body)) return { ok: false, message: 'INVALID_PARAMETER: body must be a JSON object' };
  try {
    return { ok: true, value: build(body) };
  } catch (err) {
    if (err instanceof Invalid) return { ok: false, message: err.message };
    throw err;
  }
}

function str(b: Record<string, unknown>, field: string, pattern?: RegExp, max = 128): string {
  const v = b[field];
  if (v === undefined || v === null || v === '') fail(field, 'is required');
  if (typeof v !== 'string') fail(field, 'must be a string');
  const s = v as string;
  if (s.length > max) fail(field, `must be at most ${max} characters`);
  if (pattern && !pattern.test(s)) fail(field, 'has an invalid format');
  return s;
}

function currency(b: Record<string, unknown>): Currency {
  const c = str(b, 'currency');
  if (!isCurrency(c)) fail('currency', 'must be one of INR, NGN, IDR');
  return c as Currency;
}

/**
 * A JSON number, positive, no exponent, within the currency's minor unit and the digits payrecon
 * stores (AMOUNT_BOUNDS): each limit has its own message, so a large amount is not called "too many decimals".
 */
function amount(b: Record<string, unknown>, cur: Currency): string {
  const v = b.amount;
  if (v === undefined || v === null) fail('amount', 'is required');
  if (!(v instanceof NumText)) fail('amount', 'must be a number');
  const text = (v as NumText).text;
  if (!/^(0|[1-9]\d*)(\.\d+)?$/.test(text)) fail('amount', 'must be a positive number written without an exponent');
  const { integerDigits, scale } = digitsOf(text);
  const maxScale = CURRENCY_DECIMALS[cur];
  const maxInteger = AMOUNT_BOUNDS[cur].integerDigits;
  if (scale > maxScale) fail('amount', `must have at most ${maxScale} decimals for ${cur} (got ${scale})`);
  if (integerDigits > maxInteger) fail('amount', `must have at most ${maxInteger} digits before the decimal point (got ${integerDigits})`);
  if (/^0(\.0+)?$/.test(text)) fail('amount', 'must be greater than 0');
  return text;
}

function method(b: Record<string, unknown>, cur: Currency, allowed: Readonly<Record<Currency, readonly string[]>>): string {
  const m = str(b, 'method');
  if (!allowed[cur].includes(m)) fail('method', `must be one of ${allowed[cur].join(', ')} for ${cur}`);
  return m;
}

const MERCHANT_REF = /^[A-Za-z0-9_-]{1,64}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const PHONE = /^\+?[0-9 ()-]{6,20}$/;
const ACCOUNT = /^[+0-9A-Za-z-]{5,34}$/;

export function checkPaymentInitiate(body: unknown): Checked<PaymentInitiateInput> {
  return checked(body, (b) => {
    const cur = currency(b);
    const redirectUrl = str(b, 'redirectUrl', undefined, 2048);
    let protocol = '';
    try {
      protocol = new URL(redirectUrl).protocol;
    } catch {
      fail('redirectUrl', 'must be an absolute URL');
    }
    if (protocol !== 'http:' && protocol !== 'https:') fail('redirectUrl', 'must be an http or https URL');
    return {
      merchantRef: str(b, 'merchantRef', MERCHANT_REF, 64),
      currency: cur,
      method: method(b, cur, PAYMENT_METHODS),
      amount: amount(b, cur),
      name: str(b, 'name'),
      phone: str(b, 'phone', PHONE),
      email: str(b, 'email', EMAIL),
      redirectUrl,
    };
  });
}

export function checkPayoutInitiate(body: unknown, banks: BankDirectory): Checked<PayoutInitiateInput> {
  return checked(body, (b) => {
    const cur = currency(b);
    const bankCode = str(b, 'bankCode', undefined, 16);
    if (cur === 'INR' ? !isIfscShaped(bankCode) : !banks.has(cur, bankCode)) {
      fail('bankCode', cur === 'INR' ? 'must be an IFSC code such as HDFC0001234' : `is not in the current ${cur} bank code list`);
    }
    return {
      merchantRef: str(b, 'merchantRef', MERCHANT_REF, 64),
      currency: cur,
      method: method(b, cur, PAYOUT_METHODS),
      bankCode,
      amount: amount(b, cur),
      name: str(b, 'name'),
      account: str(b, 'account', ACCOUNT),
      phone: str(b, 'phone', PHONE),
      email: str(b, 'email', EMAIL),
    };
  });
}

export function checkTransactionRef(body: unknown): Checked<string> {
  return checked(body, (b) => str(b, 'transactionRef', undefined, 64));
}

export function checkCurrency(body: unknown): Checked<Currency> {
  return checked(body, currency);
}

export function checkBankCurrency(body: unknown): Checked<BankCurrency> {
  return checked(body, (b) => {
    const c = currency(b);
    if (!isBankCurrency(c)) fail('currency', 'must be IDR or NGN for the bank code lookup (INR payouts use an IFSC code)');
    return c as BankCurrency;
  });
}
