import { Decimal, isCurrency, type Currency } from '../money/decimal.ts';
import type { Direction } from '../domain/types.ts';
import { BankDirectory } from './bank-codes.ts';
import { computeFee } from './fees.ts';
import { Ledger } from './ledger.ts';
import { hash32, rng, uuidFrom } from './prng.ts';
import { drawScenario, planFinal, scenarioRng } from './scenario.ts';
import { syntheticIndexOf, syntheticOrder } from './synthetic.ts';
import { TransitionQueue } from './transition-queue.ts';
import { STATUS, type LifecycleOptions, type OrderPatch, type SandboxOrder } from './types.ts';
import type { PaymentInitiateInput, PayoutInitiateInput } from './validate.ts';

export interface StateOptions {
  seed: number;
  merchantIds: readonly string[];
  lifecycle: LifecycleOptions;
  now: () => number;
}

interface SeedRange {
  seed: number;
  count: number;
  merchantId: string;
  seededAt: number;
}

/** A merchant's order as read from its CSV, for adoptOrder. */
export interface AdoptedOrder {
  direction: Direction;
  transactionRef: string;
  merchantRef: string;
  currency: Currency;
  method: string;
  amount: string;
  paidAmount?: string | null;
  fee?: string | null;
  status: string;
  /** How the status reads: a final order keeps its values; an open one (undefined) gets a lifecycle. */
  final?: 'success' | 'failed';
  utr?: string | null;
  bankCode?: string | null;
  createdAt: number;
}

export type CreateResult = { ok: true; order: SandboxOrder } | { ok: false; code: string; message: string };

/**
 * Everything the provider knows: orders, balances, bank lists, the clock. Lifecycle transitions sit in a
 * time-ordered queue applied up to `now()` by `advance()`, so an order nobody fetched is still correct.
 */
export class SandboxState {
  readonly seed: number;
  readonly merchantIds: readonly string[];
  readonly lifecycle: LifecycleOptions;
  readonly orders = new Map<string, SandboxOrder>();
  readonly ledger: Ledger;
  readonly banks = new BankDirectory();
  /** Control-interface shift of the sandbox clock; moves lifecycle and rates, not the auth window. */
  clockOffsetMs = 0;
  /** Called when a payment reaches a final status through its lifecycle (the webhook hook). */
  onPaymentFinal?: (order: SandboxOrder) => void;

  private readonly baseNow: () => number;
  private readonly queue = new TransitionQueue();
  private readonly byMerchantRef = new Map<string, string>();
  /** Seeded orders live only as (seed, count) ranges; deletions of them are remembered here. */
  private seeded: SeedRange[] = [];
  private deletedSeeded = new Set<string>();

  constructor(options: StateOptions) {
    this.seed = options.seed;
    this.merchantIds = options.merchantIds;
    this.lifecycle = options.lifecycle;
    this.baseNow = options.now;
    this.ledger = new Ledger(options.merchantIds);
  }

  /** The sandbox clock (ms): injected clock plus the control offset. */
  now(): number {
    return this.baseNow() + this.clockOffsetMs;
  }

  /** The injected clock without the control offset: what request and webhook Timestamps are checked against. */
  wallNow(): number {
    return this.baseNow();
  }

  advanceClock(ms: number): void {
    this.clockOffsetMs += ms;
    this.advance();
  }

  /** Applies every transition due by now; returns how many. */
  advance(): number {
    const now = this.now();
    let n = 0;
    for (let ref = this.queue.popDue(now); ref !== undefined; ref = this.queue.popDue(now)) {
      const order = this.orders.get(ref);
      if (order) this.finalize(order);
      n++;
    }
    return n;
  }

  createPayment(merchantId: string, input: PaymentInitiateInput): CreateResult {
    const dup = this.duplicate(merchantId, 'payment', input.merchantRef);
    if (dup) return dup;
    return this.open(merchantId, 'payment', input, '0', { paidAmount: '0.00', fee: '0.00', status: STATUS.paymentPending });
  }

  createPayout(merchantId: string, input: PayoutInitiateInput): CreateResult {
    const dup = this.duplicate(merchantId, 'payout', input.merchantRef);
    if (dup) return dup;
    const fee = computeFee('payout', input.currency, input.amount);
    if (!this.ledger.holdPayout(merchantId, input.currency, input.amount, fee)) {
      return {
        ok: false,
        code: '400',
        message: `INSUFFICIENT_BALANCE: ${input.currency} available balance does not cover amount plus fee`,
      };
    }
    return this.open(merchantId, 'payout', input, fee, {
      paidAmount: '0',
      fee,
      status: STATUS.payoutPending,
      utr: input.currency === 'INR' ? '' : undefined,
      bankCode: input.bankCode,
      account: input.account,
    });
  }

  /**
   * A new order at the provider, pending, with the final state its scenario (drawn from the seed and the
   * merchant's ref, so a rerun draws the same) plans for it; `planFee` is the fee that final state charges.
   */
  private open(
    merchantId: string,
    direction: Direction,
    input: Pick<SandboxOrder, 'merchantRef' | 'method' | 'amount'> & { currency: Currency },
    planFee: string,
    own: Pick<SandboxOrder, 'paidAmount' | 'fee' | 'status' | 'utr' | 'bankCode' | 'account'>,
  ): CreateResult {
    const r = scenarioRng(this.seed, direction, `${merchantId}|${input.merchantRef}`);
    const scenario = drawScenario(r, direction, this.lifecycle);
    const order: SandboxOrder = {
      direction,
      merchantId,
      transactionRef: this.newRef(merchantId, direction, input.merchantRef),
      merchantRef: input.merchantRef,
      currency: input.currency,
      method: input.method,
      amount: input.amount,
      ...own,
      createdAt: this.now(),
      plan: planFinal(direction, input.currency, input.amount, planFee, scenario),
    };
    this.insert(order, scenario.delayMs);
    return { ok: true, order };
  }

  /**
   * Takes a merchant's existing order as the provider's own record (`payrecon sandbox --payments/--payouts`):
   * its refs, amounts and status as the merchant holds them. A final order stays as it is; an open one
   * follows a drawn lifecycle from now, as if the provider were still working on it. An open payout is
   * held against the balance, which is topped up first if it cannot cover it.
   */
  adoptOrder(merchantId: string, order: AdoptedOrder): CreateResult {
    const known = this.orders.has(order.transactionRef) || this.findSeeded(order.transactionRef);
    if (known) return { ok: false, code: '400', message: `DUPLICATE_ORDER: transactionRef ${order.transactionRef} already exists` };
    const dup = this.duplicate(merchantId, order.direction, order.merchantRef);
    if (dup) return dup;
    const currency = order.currency;
    const fee = order.fee ?? computeFee(order.direction, currency, order.paidAmount ?? order.amount);
    const adopted: SandboxOrder = {
      direction: order.direction,
      merchantId,
      transactionRef: order.transactionRef,
      merchantRef: order.merchantRef,
      currency,
      method: order.method,
      amount: order.amount,
      paidAmount: order.paidAmount ?? (order.direction === 'payment' && order.final === 'success' ? order.amount : '0'),
      fee,
      status: order.status,
      utr: order.direction === 'payout' ? (order.utr ?? (currency === 'INR' ? '' : undefined)) : undefined,
      bankCode: order.bankCode ?? undefined,
      createdAt: order.createdAt,
    };
    if (order.final) {
      this.insert(adopted, 0);
      return { ok: true, order: adopted };
    }
    const scenario = drawScenario(
      scenarioRng(this.seed, order.direction, `${merchantId}|${order.merchantRef}`),
      order.direction,
      this.lifecycle,
    );
    adopted.plan = planFinal(order.direction, currency, order.amount, fee, scenario);
    if (order.direction === 'payout' && !this.ledger.holdPayout(merchantId, currency, order.amount, fee)) {
      this.ledger.adjust(merchantId, currency, new Decimal(order.amount).plus(fee).toFixed(2));
      this.ledger.holdPayout(merchantId, currency, order.amount, fee);
    }
    // The lifecycle runs from adoption, not from the order's creation, so nothing finalizes in the past.
    this.insert(adopted, scenario.delayMs, this.now());
    return { ok: true, order: adopted };
  }

  /** An order by transactionRef, optionally only of one direction and merchant (others are "not found"). */
  find(ref: string, direction?: Direction, merchantId?: string): SandboxOrder | undefined {
    const order = this.orders.get(ref) ?? this.findSeeded(ref);
    if (!order) return undefined;
    if (direction && order.direction !== direction) return undefined;
    if (merchantId && order.merchantId !== merchantId) return undefined;
    return order;
  }

  /** Some other order of the same merchant and direction (the "answer for a different transactionRef" fault). */
  anotherOrder(ref: string, direction: Direction, merchantId: string): SandboxOrder | undefined {
    for (const o of this.orders.values()) {
      if (o.transactionRef !== ref && o.direction === direction && o.merchantId === merchantId) return o;
    }
    return undefined;
  }

  /**
   * Overwrites what the provider reports for an order. The order is pinned: its lifecycle stops and the
   * balance is not moved, because this models the provider's record disagreeing, not money moving.
   */
  setOrder(ref: string, patch: OrderPatch): SandboxOrder | undefined {
    const order = this.orders.get(ref) ?? this.findSeeded(ref);
    if (!order) return undefined;
    this.orders.set(ref, order);
    if (patch.merchantRef !== undefined && patch.merchantRef !== order.merchantRef) {
      this.byMerchantRef.delete(this.refKey(order.merchantId, order.direction, order.merchantRef));
      this.byMerchantRef.set(this.refKey(order.merchantId, order.direction, patch.merchantRef), ref);
    }
    for (const key of ['status', 'paidAmount', 'fee', 'amount', 'currency', 'method', 'merchantRef', 'utr'] as const) {
      if (patch[key] !== undefined) order[key] = patch[key];
    }
    order.pinned = true;
    order.plan = undefined;
    order.dueAt = undefined;
    return order;
  }

  deleteOrder(ref: string): boolean {
    const order = this.orders.get(ref);
    if (order) {
      this.orders.delete(ref);
      this.byMerchantRef.delete(this.refKey(order.merchantId, order.direction, order.merchantRef));
    }
    const seeded = this.findSeeded(ref);
    if (seeded) this.deletedSeeded.add(ref);
    return Boolean(order || seeded);
  }

  /** Registers syntheticOrder(seed, 0..count-1) as known orders: O(1), nothing stored per order. */
  bulkSeed(seed: number, count: number, merchantId: string): void {
    this.seeded = this.seeded.filter((s) => !(s.seed === seed && s.merchantId === merchantId));
    this.seeded.push({ seed, count, merchantId, seededAt: this.now() });
  }

  counts(): { payments: number; payouts: number; seeded: number } {
    let payments = 0;
    for (const o of this.orders.values()) if (o.direction === 'payment') payments++;
    return { payments, payouts: this.orders.size - payments, seeded: this.seeded.reduce((n, s) => n + s.count, 0) };
  }

  reset(): void {
    this.orders.clear();
    this.byMerchantRef.clear();
    this.queue.clear();
    this.seeded = [];
    this.deletedSeeded.clear();
    this.clockOffsetMs = 0;
    this.ledger.reset();
    this.banks.reset();
  }

  private finalize(order: SandboxOrder): void {
    const plan = order.plan;
    order.plan = undefined;
    order.dueAt = undefined;
    if (!plan || order.pinned || !isCurrency(order.currency)) return;
    const currency: Currency = order.currency;
    order.status = plan.status;
    if (order.direction === 'payment') {
      order.paidAmount = plan.paidAmount;
      order.fee = plan.fee;
      if (plan.status === STATUS.success) this.ledger.paymentSettled(order.merchantId, currency, plan.paidAmount, plan.fee);
      this.onPaymentFinal?.(order);
    } else {
      if (plan.utr !== undefined) order.utr = plan.utr;
      if (plan.status === STATUS.success) this.ledger.payoutSucceeded(order.merchantId, currency, order.amount, order.fee);
      else this.ledger.payoutFailed(order.merchantId, currency, order.amount, order.fee);
    }
  }

  private insert(order: SandboxOrder, delayMs: number, lifecycleFrom = order.createdAt): void {
    this.orders.set(order.transactionRef, order);
    this.byMerchantRef.set(this.refKey(order.merchantId, order.direction, order.merchantRef), order.transactionRef);
    if (order.plan) {
      order.dueAt = lifecycleFrom + delayMs;
      this.queue.push(order.dueAt, order.transactionRef);
    }
  }

  private duplicate(merchantId: string, direction: Direction, merchantRef: string): CreateResult | undefined {
    if (!this.byMerchantRef.has(this.refKey(merchantId, direction, merchantRef))) return undefined;
    return { ok: false, code: '400', message: `DUPLICATE_ORDER: merchantRef ${merchantRef} already exists` };
  }

  private refKey(merchantId: string, direction: Direction, merchantRef: string): string {
    return `${merchantId}|${direction}|${merchantRef}`;
  }

  /** Deterministic from seed and the merchant's reference; a counter breaks the (theoretical) tie. */
  private newRef(merchantId: string, direction: Direction, merchantRef: string): string {
    for (let salt = 0; ; salt++) {
      const ref = uuidFrom(rng(hash32(`ref|${this.seed}|${merchantId}|${direction}|${merchantRef}|${salt}`)));
      if (!this.orders.has(ref)) return ref;
    }
  }

  private findSeeded(ref: string): SandboxOrder | undefined {
    if (this.seeded.length === 0 || this.deletedSeeded.has(ref)) return undefined;
    for (const range of this.seeded) {
      const index = syntheticIndexOf(range.seed, ref);
      if (index === undefined || index >= range.count) continue;
      const s = syntheticOrder(range.seed, index);
      if (s.transactionRef !== ref) continue;
      return {
        direction: s.direction,
        merchantId: range.merchantId,
        transactionRef: s.transactionRef,
        merchantRef: s.merchantRef,
        currency: s.currency,
        method: s.method,
        amount: s.amount,
        paidAmount: s.paidAmount,
        fee: s.fee,
        status: s.status,
        utr: s.utr,
        bankCode: s.bankCode,
        account: s.account,
        createdAt: range.seededAt - s.ageSeconds * 1000,
      };
    }
    return undefined;
  }
}
