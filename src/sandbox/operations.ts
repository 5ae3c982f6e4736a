import type { Operation } from '../provider/types.ts';
import type { CreateResult, SandboxState } from './state.ts';
import { usdtRate } from './rates.ts';
import type { SandboxOrder } from './types.ts';
import {
  checkBankCurrency,
  checkCurrency,
  checkPaymentInitiate,
  checkPayoutInitiate,
  checkTransactionRef,
  type Checked,
} from './validate.ts';

/** An operation's answer before serialisation; faults may still rewrite `data`. */
export interface OpResult {
  code: string;
  message: string;
  data: Record<string, unknown> | Array<Record<string, unknown>> | null;
}

const ok = (data: OpResult['data']): OpResult => ({ code: '200', message: 'SUCCESS', data });
const invalid = (c: Checked<unknown> & { ok: false }): OpResult => ({ code: '400', message: c.message, data: null });
/**
 * The spec leaves errors open. An unknown transactionRef is answered HTTP 200 with the envelope
 * `{code:"404", message:"ORDER_NOT_FOUND", data:null}`, the usual shape of Asian gateways' business errors.
 */
export const NOT_FOUND: OpResult = Object.freeze({ code: '404', message: 'ORDER_NOT_FOUND', data: null });

/** An initiate's answer: the refusal as the state words it, or the order's echo and what the direction adds. */
function created(r: CreateResult, extra: (o: SandboxOrder) => Record<string, unknown>): OpResult {
  if (!r.ok) return { code: r.code, message: r.message, data: null };
  const o = r.order;
  return ok({
    transactionRef: o.transactionRef,
    merchantRef: o.merchantRef,
    currency: o.currency,
    method: o.method,
    amount: o.amount,
    ...extra(o),
  });
}

/** A fetch's answer: the order's fields, or ORDER_NOT_FOUND for a ref this merchant has not of this direction. */
function fetched(
  body: unknown,
  find: (ref: string) => SandboxOrder | undefined,
  data: (o: SandboxOrder) => Record<string, unknown>,
): OpResult {
  const c = checkTransactionRef(body);
  if (!c.ok) return invalid(c);
  const o = find(c.value);
  return o ? ok(data(o)) : NOT_FOUND;
}

export function paymentFetchData(o: SandboxOrder): Record<string, unknown> {
  return {
    transactionRef: o.transactionRef,
    merchantRef: o.merchantRef,
    currency: o.currency,
    method: o.method,
    amount: o.amount,
    paidAmount: o.paidAmount,
    fee: o.fee,
    status: o.status,
  };
}

/** utr is present only for INR payouts, as the spec shows. */
export function payoutFetchData(o: SandboxOrder): Record<string, unknown> {
  return {
    transactionRef: o.transactionRef,
    merchantRef: o.merchantRef,
    ...(o.currency === 'INR' ? { utr: o.utr ?? '' } : {}),
    currency: o.currency,
    method: o.method,
    amount: o.amount,
    fee: o.fee,
    status: o.status,
  };
}

export function handleOperation(op: Operation, body: unknown, merchantId: string, state: SandboxState, baseUrl: string): OpResult {
  switch (op) {
    case 'paymentInitiate': {
      const c = checkPaymentInitiate(body);
      if (!c.ok) return invalid(c);
      return created(state.createPayment(merchantId, c.value), (o) => ({ checkoutUrl: `${baseUrl}/checkout/${o.transactionRef}` }));
    }
    case 'paymentFetch':
      return fetched(body, (ref) => state.find(ref, 'payment', merchantId), paymentFetchData);
    case 'payoutInitiate': {
      const c = checkPayoutInitiate(body, state.banks);
      if (!c.ok) return invalid(c);
      return created(state.createPayout(merchantId, c.value), (o) => ({ fee: o.fee, status: o.status }));
    }
    case 'payoutFetch':
      return fetched(body, (ref) => state.find(ref, 'payout', merchantId), payoutFetchData);
    case 'bankCodes': {
      const c = checkBankCurrency(body);
      if (!c.ok) return invalid(c);
      return ok(state.banks.list(c.value) as unknown as Array<Record<string, unknown>>);
    }
    case 'balance': {
      const c = checkCurrency(body);
      if (!c.ok) return invalid(c);
      const b = state.ledger.get(merchantId, c.value);
      return ok({
        currency: c.value,
        available: b.available.toFixed(2),
        pending: b.pending.toFixed(2),
        held: b.held.toFixed(2),
        credit: b.credit.toFixed(2),
      });
    }
    case 'usdtRate': {
      const c = checkCurrency(body);
      if (!c.ok) return invalid(c);
      return ok({ currency: c.value, ...usdtRate(state.seed, c.value, state.now()) });
    }
  }
}
