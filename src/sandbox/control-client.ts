import type { WalletMovement } from './wallet-movements.ts';
import type { FaultSpec, OrderPatch, SandboxOrder, SandboxStats } from './types.ts';

export type { FaultSpec, OrderPatch, SandboxOrder, SandboxStats } from './types.ts';

/** Typed client for the sandbox's `/__control/*` interface (tests, demo, benchmarks). */
export class SandboxControl {
  private readonly base: string;

  constructor(baseUrl: string) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  private async call<T>(action: string, body: Record<string, unknown> = {}): Promise<T> {
    const res = await fetch(`${this.base}/__control/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`sandbox control ${action}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** Overwrites what the provider reports for an order; the order stops following its lifecycle. */
  async setOrder(transactionRef: string, patch: OrderPatch): Promise<void> {
    await this.call('order/set', { transactionRef, patch });
  }

  /** True when an order was removed (fetch then answers ORDER_NOT_FOUND). */
  async deleteOrder(transactionRef: string): Promise<boolean> {
    return (await this.call<{ deleted: boolean }>('order/delete', { transactionRef })).deleted;
  }

  async getOrder(transactionRef: string): Promise<SandboxOrder | null> {
    return (await this.call<{ order: SandboxOrder | null }>('order/get', { transactionRef })).order;
  }

  async addFault(fault: FaultSpec): Promise<string> {
    return (await this.call<{ id: string }>('fault/add', { fault })).id;
  }

  async clearFaults(): Promise<void> {
    await this.call('fault/clear');
  }

  async listFaults(): Promise<Array<FaultSpec & { id: string; remaining: number | null }>> {
    return (await this.call<{ faults: Array<FaultSpec & { id: string; remaining: number | null }> }>('fault/list')).faults;
  }

  /** Latency added to every provider request. */
  async setLatency(ms: number): Promise<void> {
    await this.call('latency', { ms });
  }

  /**
   * The provider's own limit: above `perSecond` requests in any one-second window per merchant, 429 with
   * Retry-After (null: none). Restarts the measurement of arrivals that stats() reports under `rate`.
   * With `merchantId`: that merchant's own limit only (each MerchantID of a provider has its own rate).
   */
  async setRateLimit(perSecond: number | null, merchantId?: string): Promise<void> {
    await this.call('rate-limit', { perSecond, merchantId });
  }

  /** Adds an unexplained delta (decimal text, may be negative) to available; returns the new available and total. */
  async adjustBalance(currency: string, delta: string, merchantId?: string): Promise<{ available: string; total: string }> {
    return this.call('balance/adjust', { currency, delta, merchantId });
  }

  /** Moves the sandbox clock forward, applying every due transition; returns the new sandbox time (ms). */
  /** A top-up (in) or withdrawal (out) the provider books now; `usdt` at its quoted rate, `bankCharge` for one through a bank. */
  async movement(m: {
    reference: string;
    currency: string;
    direction: 'in' | 'out';
    amount: string;
    usdt?: boolean;
    bankCharge?: string;
  }): Promise<WalletMovement> {
    return (await this.call<{ movement: WalletMovement }>('movement', m)).movement;
  }

  /** The portal's statement of wallet movements, in the columns of `payrecon movements import`. */
  async movementStatement(): Promise<string> {
    return (await this.call<{ csv: string }>('movements/statement')).csv;
  }

  /** The bank's CAMT.053 of the movements sent through a bank. */
  async bankStatement(bankAccount?: string): Promise<string> {
    return (await this.call<{ xml: string }>('movements/bank-statement', { bankAccount })).xml;
  }

  async advanceClock(ms: number): Promise<number> {
    return (await this.call<{ now: number }>('clock/advance', { ms })).now;
  }

  /** Back to the starting state: no orders, no faults, opening balances, default banks, clock offset 0. */
  async reset(): Promise<void> {
    await this.call('reset');
  }

  async setWebhookUrl(url: string | null): Promise<void> {
    await this.call('webhook-url', { url });
  }

  /** Makes syntheticOrder(seed, 0..count-1) known to the sandbox. */
  async bulkSeed(options: { seed: number; count: number; merchantId?: string }): Promise<{ seed: number; count: number; ms: number }> {
    return this.call('bulk-seed', options);
  }

  /** Adds a bank entry, or renames it if the code exists. */
  async setBank(currency: 'IDR' | 'NGN', bankCode: string, bankName: string): Promise<void> {
    await this.call('bank/set', { currency, bankCode, bankName });
  }

  async removeBank(currency: 'IDR' | 'NGN', bankCode: string): Promise<boolean> {
    return (await this.call<{ removed: boolean }>('bank/remove', { currency, bankCode })).removed;
  }

  async stats(): Promise<SandboxStats> {
    return this.call('stats');
  }
}
