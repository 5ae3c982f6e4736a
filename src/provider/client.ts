import { sameRef } from '../domain/refs.ts';
import type { Logger } from '../log/logger.ts';
import { silentLogger } from '../log/logger.ts';
import type { Currency } from '../money/decimal.ts';
import {
  CredentialsError,
  describeReceived,
  OrderNotFoundError,
  ProviderError,
  ProviderResponseError,
  ProviderUnavailableError,
} from './errors.ts';
import type { RawResponse } from './bounded-response.ts';
import { Transport } from './http.ts';
import { stringifyBody } from './json.ts';
import {
  isNotFoundEnvelope,
  parseJsonBody,
  readArray,
  readEnvelope,
  readRecord,
  SHAPES,
  type Envelope,
  type ParseContext,
} from './parse.ts';
import { RateLimiter, type BudgetPriority } from './rate-limit.ts';
import type { SlotStore } from './slot-store.ts';
import { Throttle } from './throttle.ts';
import { parseRetryAfter, RETRYABLE_STATUSES, withRetries, type RetryPolicy } from './retry.ts';
import { unixTimestamp, type SigningScheme } from './signing.ts';
import { createStatusMapper, type StatusMapper } from '../domain/status.ts';
import {
  API_PREFIX,
  PATHS,
  type Balance,
  type BankEntry,
  type Operation,
  type PaymentFetchResponse,
  type PaymentInitiateRequest,
  type PaymentInitiateResponse,
  type PayoutFetchResponse,
  type PayoutInitiateRequest,
  type PayoutInitiateResponse,
  type UsdtRate,
} from './types.ts';
import { type StatusCategory } from '../domain/types.ts';

export interface ProviderClientOptions {
  baseUrl: string;
  merchantId: string;
  secret: string;
  scheme: SigningScheme;
  timeoutMs?: number;
  maxRetries?: number;
  /** Sizes the keep-alive pool. */
  concurrency?: number;
  /** The provider account's whole limit, shared by every process using `slotStore`; 0 = none. */
  rateLimitPerSec?: number;
  /** The shared request schedule (the database's provider_budget); default: this process alone. */
  slotStore?: SlotStore;
  statusMapper?: StatusMapper;
  /** Clock for the Timestamp header. */
  now?: () => number;
  logger?: Logger;
  secretsToScrub?: string[];
  /** Default 200; tests pass small. */
  retryBaseMs?: number;
  /** Cap of any one wait between attempts, Retry-After included. Default 30 000. */
  maxRetryDelayMs?: number;
  /** Total time one call may spend waiting on 429s (they do not count as retries). Default 10 minutes. */
  maxThrottledMs?: number;
  /**
   * How long the provider may answer nothing but 429 to this client before calls stop waiting and
   * fail with the 429 (PROVIDER_MAX_THROTTLED_MS). Default 5 minutes.
   */
  throttledGiveUpMs?: number;
  /** A stop request (the job's SIGTERM): ends every wait for a place, a Retry-After or a backoff at once. */
  signal?: AbortSignal;
  /** Bodies above this are abandoned. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Injectable for tests of the retry path. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Told of every HTTP attempt: its answer's status ("200", "429", "timeout", "network") and duration (metrics). */
  onRequest?: (operation: Operation, status: string, seconds: number) => void;
}

export type WithCategory<T> = T & { category: StatusCategory };

/** Per call: what it is for, when the account's budget is short (default: sweep). */
export interface CallOptions {
  priority?: BudgetPriority;
}

/** Initiates create money movements: re-sending one that may have arrived could pay twice. */
const NOT_IDEMPOTENT: ReadonlySet<Operation> = new Set(['paymentInitiate', 'payoutInitiate']);
const FETCHES: ReadonlySet<Operation> = new Set(['paymentFetch', 'payoutFetch']);
const DEFAULT_THROTTLED_GIVE_UP_MS = 300_000;

/**
 * Typed client for the provider's seven operations: signs each request, retries what is safe to
 * retry, validates every answer, and turns every failure into a ProviderError subclass.
 */
export class ProviderClient {
  private readonly transport: Transport;
  private readonly limiter?: RateLimiter;
  /** Calls in flight, reduced on 429 and raised again as answers come back. */
  readonly throttle: Throttle;
  private readonly policy: RetryPolicy;
  private readonly statusMapper: StatusMapper;
  private readonly now: () => number;
  private readonly logger: Logger;
  private readonly secrets: string[];

  constructor(private readonly options: ProviderClientOptions) {
    const timeoutMs = options.timeoutMs ?? 15_000;
    this.transport = new Transport({
      baseUrl: options.baseUrl,
      connections: Math.max(1, options.concurrency ?? 16),
      timeoutMs,
      maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    });
    const rate = options.rateLimitPerSec ?? 0;
    if (rate > 0) {
      this.limiter = new RateLimiter({ ratePerSec: rate, account: options.merchantId, store: options.slotStore, sleep: options.sleep });
    }
    this.throttle = new Throttle(Math.max(1, options.concurrency ?? 16), undefined, options.sleep);
    this.policy = {
      maxRetries: options.maxRetries ?? 3,
      baseMs: options.retryBaseMs ?? 200,
      maxDelayMs: options.maxRetryDelayMs ?? 30_000,
      maxThrottledMs: options.maxThrottledMs,
    };
    this.statusMapper = options.statusMapper ?? createStatusMapper();
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? silentLogger;
    this.secrets = [options.secret, ...(options.secretsToScrub ?? [])].filter((s) => s.length >= 3);
  }

  async initiatePayment(req: PaymentInitiateRequest): Promise<PaymentInitiateResponse> {
    const { data, ctx } = await this.call('paymentInitiate', { ...req });
    const out = readRecord(data, SHAPES.paymentInitiate, 'data', ctx);
    this.expectEcho(ctx, 'data.merchantRef', req.merchantRef, out.merchantRef);
    return out;
  }

  async fetchPayment(transactionRef: string, opts: CallOptions = {}): Promise<WithCategory<PaymentFetchResponse>> {
    const { data, ctx } = await this.call('paymentFetch', { transactionRef }, transactionRef, opts.priority);
    const out = readRecord(data, SHAPES.paymentFetch, 'data', ctx);
    this.expectEcho(ctx, 'data.transactionRef', transactionRef, out.transactionRef);
    return this.withCategory(out);
  }

  async initiatePayout(req: PayoutInitiateRequest): Promise<WithCategory<PayoutInitiateResponse>> {
    const { data, ctx } = await this.call('payoutInitiate', { ...req });
    const out = readRecord(data, SHAPES.payoutInitiate, 'data', ctx);
    this.expectEcho(ctx, 'data.merchantRef', req.merchantRef, out.merchantRef);
    return this.withCategory(out);
  }

  async fetchPayout(transactionRef: string, opts: CallOptions = {}): Promise<WithCategory<PayoutFetchResponse>> {
    const { data, ctx } = await this.call('payoutFetch', { transactionRef }, transactionRef, opts.priority);
    const out = readRecord(data, SHAPES.payoutFetch, 'data', ctx);
    this.expectEcho(ctx, 'data.transactionRef', transactionRef, out.transactionRef);
    return this.withCategory(out);
  }

  async bankCodes(currency: 'IDR' | 'NGN'): Promise<BankEntry[]> {
    const { data, ctx } = await this.call('bankCodes', { currency });
    return readArray(data, SHAPES.bankEntry, 'data', ctx);
  }

  async balance(currency: Currency): Promise<Balance> {
    const { data, ctx } = await this.call('balance', { currency });
    const out = readRecord(data, SHAPES.balance, 'data', ctx);
    this.expectEcho(ctx, 'data.currency', currency, out.currency);
    return out;
  }

  async usdtRate(currency: Currency): Promise<UsdtRate> {
    const { data, ctx } = await this.call('usdtRate', { currency });
    const out = readRecord(data, SHAPES.usdtRate, 'data', ctx);
    this.expectEcho(ctx, 'data.currency', currency, out.currency);
    return out;
  }

  /** Budget slots this client reached too late and gave up (a stalled process; see rate-limit.ts). */
  get expiredSlots(): number {
    return this.limiter?.expired ?? 0;
  }

  /** Of the expired slots, those already past when the reservation's answer came. */
  get expiredOnArrival(): number {
    return this.limiter?.expiredOnArrival ?? 0;
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /** The record readRecord made for this answer, with its status's category (added to it, not copied: one per fetch). */
  private withCategory<T extends { status: string }>(out: T): WithCategory<T> {
    const record = out as WithCategory<T>;
    record.category = this.statusMapper(out.status);
    return record;
  }

  /** An answer about another order or currency than asked is never silently accepted. */
  private expectEcho(ctx: ParseContext, field: string, asked: string, got: string): void {
    if (sameRef(asked, got)) return;
    const shown = describeReceived(got, this.secrets);
    throw new ProviderResponseError(
      ctx.operation,
      `field "${field}": answer is for ${shown}, but ${describeReceived(asked, this.secrets)} was asked`,
      {
        httpStatus: ctx.httpStatus,
        field,
        received: shown,
      },
    );
  }

  /** Sends one operation with retries and returns the envelope's `data` (checked for code "200"). */
  private async call(
    operation: Operation,
    body: Record<string, unknown>,
    transactionRef?: string,
    priority?: BudgetPriority,
  ): Promise<{ data: unknown; ctx: ParseContext }> {
    const bodyText = stringifyBody(body);
    const started = performance.now();
    const { signal } = this.options;
    const giveUpMs = this.options.throttledGiveUpMs ?? DEFAULT_THROTTLED_GIVE_UP_MS;
    const result = await this.throttle
      .run(
        () =>
          withRetries((attempt) => this.attempt(operation, bodyText, attempt, transactionRef, priority), this.policy, {
            sleep: this.options.sleep,
            random: this.options.random,
            signal,
            canRetry: (err) =>
              (!NOT_IDEMPOTENT.has(operation) || err.detail.outcomeUnknown === false) &&
              // A provider refusing everything for that long is unavailable: the run stops instead of waiting for hours.
              (err.detail.httpStatus !== 429 || this.throttle.refusingForMs() < giveUpMs),
            onRetry: (err, retryIndex, delayMs) => {
              if (err.detail.httpStatus === 429) {
                this.throttle.onThrottled(delayMs);
                // Told to the account's shared schedule: every process of this MerchantID waits it out.
                void this.limiter?.hold(delayMs);
                // Expected under a shared budget or a provider's own limit: one line per halving is enough.
                this.logger.debug({ operation, delayMs, limit: this.throttle.limit }, 'provider throttled (429); slowing down');
                return;
              }
              this.logger.warn(
                { operation, retry: retryIndex + 1, delayMs, cause: err.detail.cause ?? err.detail.httpStatus, err: err.message },
                'provider call failed; retrying',
              );
            },
          }),
        signal,
      )
      .catch((err: unknown) => {
        const e = this.asProviderError(operation, err);
        if (e.detail.httpStatus === 429 && this.throttle.refusingForMs() >= giveUpMs) e.detail.throttledOut = true;
        throw e;
      });
    // Every fetch passes here: no log object is built unless the level would print it.
    if (this.logger.isLevelEnabled('debug'))
      this.logger.debug({ operation, ms: Math.round(performance.now() - started) }, 'provider call done');
    return result;
  }

  private async attempt(
    operation: Operation,
    bodyText: string,
    attempt: number,
    transactionRef?: string,
    priority?: BudgetPriority,
  ): Promise<{ data: unknown; ctx: ParseContext }> {
    // A retry has waited out its own delay (Retry-After included); new calls wait for the gate.
    if (attempt === 0) await this.throttle.ready(this.options.signal);
    await this.limiter?.acquire(priority);
    // Signed per attempt: a retry after a long wait must not carry a stale Timestamp.
    const timestamp = unixTimestamp(this.now());
    const signature = this.options.scheme.sign({ timestamp, body: bodyText, merchantId: this.options.merchantId }, this.options.secret);
    const headers = {
      MerchantID: this.options.merchantId,
      Signature: signature,
      Timestamp: timestamp,
      'Content-Type': 'application/json',
    };
    if (this.logger.isLevelEnabled('trace')) this.logger.trace({ operation, attempt }, 'provider request');
    const res = await this.post(operation, headers, bodyText);
    if (res.status !== 429) this.throttle.onAnswered();
    return { data: this.interpret(operation, res, transactionRef), ctx: { operation, httpStatus: res.status, secrets: this.secrets } };
  }

  /** One HTTP attempt, reported to onRequest whatever came of it. */
  private async post(operation: Operation, headers: Record<string, string>, bodyText: string): Promise<RawResponse> {
    const report = this.options.onRequest;
    const sent = performance.now();
    try {
      const res = await this.transport.post(operation, `${API_PREFIX}${PATHS[operation]}`, headers, bodyText);
      report?.(operation, String(res.status), (performance.now() - sent) / 1000);
      return res;
    } catch (err) {
      const timedOut = err instanceof ProviderUnavailableError && /timeout/i.test(String(err.detail.cause ?? ''));
      report?.(operation, timedOut ? 'timeout' : 'network', (performance.now() - sent) / 1000);
      throw err;
    }
  }

  /** HTTP status first, then the envelope: which answers are errors, and of which kind. */
  private interpret(operation: Operation, res: RawResponse, transactionRef?: string): unknown {
    const ctx: ParseContext = { operation, httpStatus: res.status, secrets: this.secrets };
    if (res.status === 401 || res.status === 403) {
      throw new CredentialsError(
        operation,
        `provider refused the credentials (HTTP ${res.status}); check PROVIDER_MERCHANT_ID, PROVIDER_SECRET and PROVIDER_SIGNATURE: ${describeReceived(res.text, this.secrets)}`,
        {
          httpStatus: res.status,
          received: describeReceived(res.text, this.secrets),
        },
      );
    }
    if (RETRYABLE_STATUSES.has(res.status) || res.status >= 500) {
      throw new ProviderUnavailableError(
        operation,
        `provider answered HTTP ${res.status}: ${describeReceived(res.text, this.secrets)}`,
        {
          httpStatus: res.status,
          received: describeReceived(res.text, this.secrets),
          retryAfterMs: parseRetryAfter(res.headers['retry-after'], this.now()),
          // A 429 is a refusal before any processing; a 5xx may have happened after it.
          outcomeUnknown: res.status !== 429,
        },
        RETRYABLE_STATUSES.has(res.status),
      );
    }
    const env = this.envelopeOf(res, ctx);
    if (env.code === '200') {
      if (transactionRef !== undefined && FETCHES.has(operation) && (env.data === null || env.data === undefined)) {
        throw new OrderNotFoundError(
          operation,
          transactionRef,
          `provider returned no order for transactionRef ${describeReceived(transactionRef, this.secrets)} (data is empty)`,
          {
            httpStatus: res.status,
            code: env.code,
          },
        );
      }
      if (res.status !== 200) {
        throw new ProviderResponseError(operation, `unexpected HTTP ${res.status} with a success envelope`, {
          httpStatus: res.status,
          code: env.code,
        });
      }
      return env.data;
    }
    const said = `code ${describeReceived(env.code, this.secrets)}, message ${describeReceived(env.message, this.secrets)}`;
    if (transactionRef !== undefined && FETCHES.has(operation) && isNotFoundEnvelope(env)) {
      throw new OrderNotFoundError(
        operation,
        transactionRef,
        `provider does not know transactionRef ${describeReceived(transactionRef, this.secrets)} (${said})`,
        {
          httpStatus: res.status,
          code: env.code,
        },
      );
    }
    if (env.code === '401' || env.code === '403') {
      throw new CredentialsError(operation, `provider refused the credentials (${said})`, { httpStatus: res.status, code: env.code });
    }
    throw new ProviderResponseError(operation, `field "code": expected "200", received ${said} (HTTP ${res.status})`, {
      httpStatus: res.status,
      code: env.code,
      field: 'code',
      received: describeReceived(env.code, this.secrets),
    });
  }

  private envelopeOf(res: RawResponse, ctx: ParseContext): Envelope {
    try {
      return readEnvelope(parseJsonBody(res.text, res.contentType, ctx), ctx);
    } catch (err) {
      // A non-JSON 404/400 is more likely a wrong base URL or path than a bad body: say so.
      if (err instanceof ProviderResponseError && res.status !== 200) {
        const reason = err.message.slice(`${ctx.operation}: `.length);
        throw new ProviderResponseError(
          ctx.operation,
          `HTTP ${res.status} without a provider envelope (check PROVIDER_BASE_URL): ${reason}`,
          err.detail,
        );
      }
      throw err;
    }
  }

  /** Last line of defence: whatever escaped becomes a ProviderError, so callers handle one type. */
  private asProviderError(operation: Operation, err: unknown): ProviderError {
    if (err instanceof ProviderError) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new ProviderResponseError(operation, `unexpected failure: ${describeReceived(message, this.secrets)}`);
  }
}
