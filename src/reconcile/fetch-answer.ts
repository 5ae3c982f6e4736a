import { CredentialsError, OrderNotFoundError, ProviderError } from '../provider/errors.ts';
import type { PaymentFetchResponse, PayoutFetchResponse } from '../provider/types.ts';
import type { StatusCategory, Direction } from '../domain/types.ts';
import type { BudgetPriority } from '../provider/rate-limit.ts';
import type { ProviderAnswer } from '../recon/types.ts';
import { messageOf } from '../domain/errors.ts';

/** The two fetch operations a reconcile run needs; ProviderClient provides them. */
export interface OrderFetcher {
  fetchPayment(transactionRef: string, opts?: { priority?: BudgetPriority }): Promise<PaymentFetchResponse & { category: StatusCategory }>;
  fetchPayout(transactionRef: string, opts?: { priority?: BudgetPriority }): Promise<PayoutFetchResponse & { category: StatusCategory }>;
}

/** `throttled`: the provider has refused every call with 429 for PROVIDER_MAX_THROTTLED_MS: it is unavailable. */
export type FetchOutcome = { answer: ProviderAnswer; failed: boolean; throttled?: boolean } | { credentials: CredentialsError };

/**
 * Fetches one order and turns every outcome into an answer for the core: found, not found, or
 * an error with its reason. Only a credentials refusal escapes, because it must stop the run.
 */
export async function fetchAnswer(
  fetcher: OrderFetcher,
  direction: Direction,
  transactionRef: string,
  priority: BudgetPriority = 'sweep',
): Promise<FetchOutcome> {
  try {
    const opts = { priority };
    const order =
      direction === 'payment' ? await fetcher.fetchPayment(transactionRef, opts) : await fetcher.fetchPayout(transactionRef, opts);
    return { answer: { kind: 'found', order }, failed: false };
  } catch (err) {
    if (err instanceof CredentialsError) return { credentials: err };
    if (err instanceof OrderNotFoundError) return { answer: { kind: 'not_found' }, failed: false };
    const message = err instanceof ProviderError ? err.message : `unexpected error: ${messageOf(err)}`;
    const throttled = err instanceof ProviderError && err.detail.throttledOut === true;
    return { answer: { kind: 'error', message }, failed: true, ...(throttled ? { throttled } : {}) };
  }
}
