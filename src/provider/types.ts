import type { Currency } from '../money/decimal.ts';
import type { Amount, Direction } from '../domain/types.ts';

export interface PaymentInitiateRequest {
  merchantRef: string;
  currency: Currency;
  method: string;
  amount: Amount;
  name: string;
  phone: string;
  email: string;
  redirectUrl: string;
}

export interface PaymentInitiateResponse {
  transactionRef: string;
  merchantRef: string;
  currency: string;
  method: string;
  amount: Amount;
  checkoutUrl: string;
}

export interface PaymentFetchResponse {
  transactionRef: string;
  merchantRef: string;
  currency: string;
  method: string;
  amount: Amount;
  paidAmount: Amount;
  fee: Amount;
  /** The provider's string as sent (e.g. "Success"). */
  status: string;
}

export interface PayoutInitiateRequest {
  merchantRef: string;
  currency: Currency;
  method: string;
  bankCode: string;
  amount: Amount;
  name: string;
  account: string;
  phone: string;
  email: string;
}

export interface PayoutInitiateResponse {
  transactionRef: string;
  merchantRef: string;
  currency: string;
  method: string;
  amount: Amount;
  fee: Amount;
  status: string;
}

export interface PayoutFetchResponse {
  transactionRef: string;
  merchantRef: string;
  /** Present for INR (may be ""); absent otherwise. */
  utr?: string;
  currency: string;
  method: string;
  amount: Amount;
  fee: Amount;
  status: string;
}

export interface BankEntry {
  bankCode: string;
  bankName: string;
}

export interface Balance {
  currency: string;
  available: Amount;
  pending: Amount;
  held: Amount;
  credit: Amount;
}

export interface UsdtRate {
  currency: string;
  deposit: Amount;
  withdraw: Amount;
}

/** The seven operations' paths under `{base_url}/v1/api`. */
export const PATHS = {
  paymentInitiate: '/payment/initiate',
  paymentFetch: '/payment/fetch',
  payoutInitiate: '/payout/initiate',
  payoutFetch: '/payout/fetch',
  bankCodes: '/payout/bankCode',
  balance: '/account/balance',
  usdtRate: '/account/usdt/rate',
} as const;

export type Operation = keyof typeof PATHS;
export const API_PREFIX = '/v1/api';

/** Body of the payment webhook: every value a string, as the spec shows. */
export interface PaymentWebhookBody {
  transactionRef: string;
  merchantRef: string;
  currency: string;
  method: string;
  amount: string;
  paidAmount: string;
  fee: string;
  status: string;
}

/** A verified notification's fields as stored: amounts are decimal text, never JS numbers. */
export interface Notification {
  direction: Direction;
  transactionRef: string | null;
  merchantRef: string | null;
  currency: string | null;
  method: string | null;
  amount: string | null;
  paidAmount: string | null;
  fee: string | null;
  status: string | null;
}
