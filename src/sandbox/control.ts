import type { ServerResponse } from 'node:http';
import { isCurrency, isDecimalText } from '../money/decimal.ts';
import { isBankCurrency } from './bank-codes.ts';
import type { SandboxContext } from './context.ts';
import { sendJson } from './response-json.ts';
import type { FaultSpec, OrderPatch, SandboxStats } from './types.ts';
import { messageOf } from '../domain/errors.ts';

/** A bad control request; answered 400 with its message. */
class ControlError extends Error {}
const bad = (message: string): never => {
  throw new ControlError(message);
};

const PATCH_KEYS = ['status', 'paidAmount', 'fee', 'amount', 'currency', 'method', 'merchantRef', 'utr'] as const;
const PATCH_AMOUNTS = new Set(['paidAmount', 'fee', 'amount']);
/** Bulk seeds above this would only be a typo; the sandbox stores nothing per seeded order anyway. */
const MAX_SEED_COUNT = 50_000_000;

function str(body: Record<string, unknown>, key: string): string {
  const v = body[key];
  if (typeof v !== 'string' || v === '') bad(`${key} must be a non-empty string`);
  return v as string;
}

function int(body: Record<string, unknown>, key: string, min: number, max: number): number {
  const v = body[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) bad(`${key} must be an integer from ${min} to ${max}`);
  return v as number;
}

function merchant(ctx: SandboxContext, body: Record<string, unknown>): string {
  const id = body.merchantId === undefined ? ctx.state.merchantIds[0] : str(body, 'merchantId');
  if (!ctx.secrets.has(id)) bad(`unknown merchantId ${id}`);
  return id;
}

function parsePatch(raw: unknown): OrderPatch {
  if (typeof raw !== 'object' || raw === null) bad('patch must be an object');
  const patch: OrderPatch = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!(PATCH_KEYS as readonly string[]).includes(k)) bad(`patch.${k} is not editable; editable: ${PATCH_KEYS.join(', ')}`);
    if (typeof v !== 'string') bad(`patch.${k} must be a string (amounts as decimal text)`);
    if (PATCH_AMOUNTS.has(k) && !isDecimalText(v as string)) bad(`patch.${k} must be decimal text such as "100.50"`);
    patch[k as keyof OrderPatch] = v as string;
  }
  return patch;
}

export function statsOf(ctx: SandboxContext): SandboxStats {
  const w = ctx.webhooks;
  return {
    now: ctx.state.now(),
    requests: ctx.stats.snapshot(),
    faultsApplied: ctx.faults.applied,
    orders: ctx.state.counts(),
    webhooks: { queued: w.queued, delivered: w.delivered, gaveUp: w.gaveUp, attempts: [...w.attempts] },
    rate: {
      limitPerSec: ctx.rate.limitPerSec,
      throttled: ctx.rate.throttled,
      busiestWindow: ctx.rate.busiestWindow,
      busiestSecond: ctx.rate.busiestSecond,
      perMerchant: ctx.rate.perMerchant(ctx.state.merchantIds),
    },
  };
}

function reset(ctx: SandboxContext): void {
  ctx.state.reset();
  ctx.faults.clear();
  ctx.faults.applied = 0;
  ctx.faults.globalLatencyMs = ctx.initial.latencyMs;
  ctx.webhooks.reset();
  ctx.webhooks.setUrl(ctx.initial.webhookUrl);
  ctx.stats.reset();
  ctx.rate.reset(ctx.initial.rateLimitPerSec, ctx.initial.merchantRateLimits);
  ctx.movements.reset();
}

/** Routes `/__control/<action>` (JSON in and out, no provider authentication). */
function run(ctx: SandboxContext, action: string, body: Record<string, unknown>): unknown {
  const s = ctx.state;
  s.advance();
  switch (action) {
    case 'order/get': {
      const order = s.find(str(body, 'transactionRef'));
      return { order: order ?? null };
    }
    case 'order/set': {
      const order = s.setOrder(str(body, 'transactionRef'), parsePatch(body.patch));
      if (!order) bad('no such transactionRef');
      return { order };
    }
    case 'order/delete':
      return { deleted: s.deleteOrder(str(body, 'transactionRef')) };
    case 'fault/add':
      try {
        return { id: ctx.faults.add(body.fault as FaultSpec) };
      } catch (err) {
        return bad(messageOf(err));
      }
    case 'fault/clear':
      ctx.faults.clear();
      return {};
    case 'fault/list':
      return { faults: ctx.faults.list(), globalLatencyMs: ctx.faults.globalLatencyMs };
    case 'rate-limit': {
      // Also restarts the measurement of arrivals (busiest window and second, 429s).
      const perSecond = body.perSecond === null ? null : int(body, 'perSecond', 1, 1_000_000);
      // With a merchantId: that MerchantID's own limit; without: the limit of every merchant without one.
      if (body.merchantId !== undefined) ctx.rate.setFor(merchant(ctx, body), perSecond);
      else ctx.rate.set(perSecond);
      return {};
    }
    case 'latency':
      ctx.faults.globalLatencyMs = int(body, 'ms', 0, 600_000);
      return {};
    case 'balance/adjust': {
      const currency = str(body, 'currency');
      if (!isCurrency(currency)) bad('currency must be one of INR, NGN, IDR');
      const delta = str(body, 'delta');
      if (!isDecimalText(delta)) bad('delta must be decimal text such as "-12.50"');
      const id = merchant(ctx, body);
      s.ledger.adjust(id, currency as 'INR', delta);
      const b = s.ledger.get(id, currency as 'INR');
      return { available: b.available.toFixed(2), total: b.available.plus(b.pending).plus(b.held).toFixed(2) };
    }
    case 'movement': {
      // A top-up (in) or withdrawal (out) as the provider books it: the balance moves now.
      const currency = str(body, 'currency');
      if (!isCurrency(currency)) bad('currency must be one of INR, NGN, IDR');
      const direction = str(body, 'direction');
      if (direction !== 'in' && direction !== 'out') bad('direction must be in or out');
      const amount = str(body, 'amount');
      if (!/^\d+(\.\d{1,2})?$/.test(amount) || /^0+(\.0+)?$/.test(amount)) bad('amount must be decimal text above zero such as "1500.00"');
      const bankCharge = body.bankCharge === undefined ? null : str(body, 'bankCharge');
      if (bankCharge !== null && !isDecimalText(bankCharge)) bad('bankCharge must be decimal text such as "25.00"');
      const reference = str(body, 'reference');
      if (ctx.movements.has(reference)) bad(`reference ${reference} is already used`);
      const id = merchant(ctx, body);
      const m = ctx.movements.add(s.seed, {
        reference,
        currency: currency as 'INR',
        direction: direction as 'in' | 'out',
        amount,
        at: s.now(),
        usdt: body.usdt === true,
        bankCharge,
      });
      s.ledger.adjust(id, currency as 'INR', direction === 'in' ? m.amount : `-${m.amount}`);
      return { movement: m };
    }
    case 'movements/statement':
      return { csv: ctx.movements.statementCsv() };
    case 'movements/bank-statement':
      return { xml: ctx.movements.bankStatement(body.bankAccount === undefined ? 'SANDBOX-BANK-0001' : str(body, 'bankAccount')) };
    case 'clock/advance':
      s.advanceClock(int(body, 'ms', 0, 10 * 365 * 86_400_000));
      ctx.webhooks.dispatchDue();
      return { now: s.now() };
    case 'reset':
      reset(ctx);
      return {};
    case 'bulk-seed': {
      const started = performance.now();
      const seed = int(body, 'seed', 0, 2 ** 32 - 1);
      const count = int(body, 'count', 0, MAX_SEED_COUNT);
      s.bulkSeed(seed, count, merchant(ctx, body));
      return { seed, count, ms: Math.round(performance.now() - started) };
    }
    case 'stats':
      return statsOf(ctx);
    case 'webhook-url': {
      const url = body.url;
      if (url !== null && (typeof url !== 'string' || !/^https?:\/\//.test(url))) bad('url must be an http(s) URL or null');
      ctx.webhooks.setUrl((url as string | null) ?? undefined);
      return {};
    }
    case 'bank/set':
    case 'bank/remove': {
      const currency = str(body, 'currency');
      if (!isBankCurrency(currency)) bad('currency must be IDR or NGN');
      const code = str(body, 'bankCode');
      if (!/^\d{2,6}$/.test(code)) bad('bankCode must be 2 to 6 digits');
      if (action === 'bank/remove') return { removed: s.banks.remove(currency as 'IDR', code) };
      s.banks.set(currency as 'IDR', code, str(body, 'bankName'));
      return {};
    }
    default:
      return bad(`unknown control action "${action}"`);
  }
}

export function handleControl(ctx: SandboxContext, action: string, rawBody: string, res: ServerResponse): void {
  let body: Record<string, unknown> = {};
  try {
    if (rawBody.trim()) body = JSON.parse(rawBody) as Record<string, unknown>;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) bad('body must be a JSON object');
    sendJson(res, 200, JSON.stringify(run(ctx, action, body)));
  } catch (err) {
    if (err instanceof ControlError || err instanceof SyntaxError) {
      sendJson(res, 400, JSON.stringify({ error: err.message }));
      return;
    }
    throw err;
  }
}
