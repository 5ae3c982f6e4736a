import { describe, expect, it } from 'vitest';
import { compareOrder } from '../src/recon/compare.ts';
import { defaultPolicy } from '../src/recon/policy.ts';
import type {
  CheckResult,
  LocalOrder,
  NotificationFacts,
  OrderUpdate,
  ProviderAnswer,
  ProviderOrder,
  ReconPolicy,
} from '../src/recon/types.ts';
import type { MismatchCode, Verdict } from '../src/domain/verdicts.ts';

const NOW = new Date('2024-05-10T12:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const ago = (ms: number) => new Date(NOW.getTime() - ms);

const payment = (o: Partial<LocalOrder> = {}): LocalOrder => ({
  direction: 'payment',
  merchantRef: 'm-1',
  transactionRef: 't-1',
  currency: 'NGN',
  method: 'TRANSFER',
  amount: '1000.00',
  paidAmount: null,
  fee: null,
  utr: null,
  bankCode: null,
  status: 'Initiated',
  category: 'pending',
  createdAt: ago(HOUR),
  checkCount: 0,
  ...o,
});

const payout = (o: Partial<LocalOrder> = {}): LocalOrder =>
  payment({ direction: 'payout', currency: 'INR', method: 'IFSC', bankCode: 'HDFC0001234', ...o });

const found = (o: Partial<ProviderOrder> = {}): ProviderAnswer => ({
  kind: 'found',
  order: {
    merchantRef: 'm-1',
    transactionRef: 't-1',
    currency: 'NGN',
    method: 'TRANSFER',
    amount: '1000',
    paidAmount: '1000',
    fee: '15',
    status: 'Success',
    category: 'success',
    ...o,
  },
});

const payoutFound = (o: Partial<ProviderOrder> = {}): ProviderAnswer =>
  found({ currency: 'INR', method: 'IFSC', paidAmount: undefined, utr: 'UTR123', ...o });

const providerPending = { status: 'Initiated', category: 'pending', paidAmount: '0', fee: '0' } as const;
const localSuccess = { status: 'Success', category: 'success' } as const;

const withPolicy = (o: Partial<ReconPolicy>): ReconPolicy => ({ ...defaultPolicy(), ...o });

interface Case {
  name: string;
  local: LocalOrder;
  answer: ProviderAnswer;
  policy?: ReconPolicy;
  verdict: Verdict;
  codes: MismatchCode[];
  /** Exact update expected; omitted means null. */
  update?: OrderUpdate;
  /** Substring the reason must contain. */
  reason?: string;
  /** Milliseconds after NOW, or null for no scheduled check. */
  next: number | null;
  /** What the webhook receiver stored; omitted means the run passes none. */
  notifications?: NotificationFacts;
}

/** Webhooks expected, nothing stored for the order, no margin beyond the provider's retry window. */
const unnotified: NotificationFacts = { received: false, conflict: null, expected: true, marginMs: 0 };
const finalPayment = payment({ ...localSuccess, paidAmount: '1000', fee: '15', finalizedAt: ago(11 * MIN) });

const resolvedPayment: OrderUpdate = { status: 'Success', category: 'success', paidAmount: '1000', fee: '15', finalized: true };

const cases: Case[] = [
  // Values finer than the currency's minor unit (0.01 for NGN and INR): a finding with the exact value, never rounded.
  {
    name: 'provider fee 0.005, finer than the minor unit: FEE with the exact value; the order is still brought up to date',
    local: payment(),
    answer: found({ fee: '0.005' }),
    verdict: 'mismatch',
    codes: ['FEE'],
    update: { ...resolvedPayment, fee: '0.005' },
    reason: 'fee 0.005 at provider is finer than NGN allows (2 decimals)',
    next: null,
  },
  {
    name: 'provider paidAmount 1000.001: PAID_AMOUNT with the exact value',
    local: payment(),
    answer: found({ paidAmount: '1000.001' }),
    verdict: 'mismatch',
    codes: ['PAID_AMOUNT'],
    update: { ...resolvedPayment, paidAmount: '1000.001' },
    reason: 'paidAmount 1000.001 at provider is finer than NGN allows (2 decimals)',
    next: null,
  },
  {
    name: 'provider amount 1000.004 within a tolerance of 0.01: still AMOUNT with the exact value',
    local: payment(),
    answer: found({ amount: '1000.004' }),
    policy: withPolicy({ tolerances: { NGN: '0.01' } }),
    verdict: 'mismatch',
    codes: ['AMOUNT'],
    update: resolvedPayment,
    reason: 'amount 1000.004 at provider is finer than NGN allows (2 decimals)',
    next: null,
  },
  {
    name: 'trailing zeros are not finer: fee 15.000 matches',
    local: payment(),
    answer: found({ fee: '15.000' }),
    verdict: 'resolved',
    codes: [],
    update: { ...resolvedPayment, fee: '15.000' },
    next: null,
  },
  // verdicts without findings
  {
    name: 'final local success, provider agrees: matched',
    local: payment(localSuccess),
    answer: found(),
    verdict: 'matched',
    codes: [],
    reason: 'matched: Success',
    next: null,
  },
  {
    name: 'pending local, provider final and consistent: resolved with update',
    local: payment(),
    answer: found(),
    verdict: 'resolved',
    codes: [],
    update: resolvedPayment,
    reason: 'resolved: Initiated → Success',
    next: null,
  },
  {
    name: 'both pending, status unchanged: pending, no update',
    local: payment(),
    answer: found(providerPending),
    verdict: 'pending',
    codes: [],
    reason: 'pending at provider (Initiated)',
    next: 5 * MIN,
  },
  {
    name: 'pending local, provider moved to another pending status: status recorded',
    local: payment(),
    answer: found({ ...providerPending, status: 'Processing' }),
    verdict: 'pending',
    codes: [],
    update: { status: 'Processing', category: 'pending', finalized: false },
    next: 5 * MIN,
  },
  {
    name: 'failed both sides: matched',
    local: payment({ status: 'Failed', category: 'failed' }),
    answer: found({ status: 'Failed', category: 'failed', paidAmount: '0', fee: '0' }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'pending local, provider failed: resolved',
    local: payout({ currency: 'NGN', method: 'BANK' }),
    answer: found({ method: 'BANK', status: 'Rejected', category: 'failed', paidAmount: undefined, fee: '0' }),
    verdict: 'resolved',
    codes: [],
    update: { status: 'Rejected', category: 'failed', fee: '0', finalized: true },
    next: null,
  },

  // AMOUNT and decimal equality
  {
    name: '100.10 equals 100.1',
    local: payment({ ...localSuccess, amount: '100.10' }),
    answer: found({ amount: '100.1', paidAmount: '100.100' }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'amount differs by one minor unit, exact default: AMOUNT, no update',
    local: payment(),
    answer: found({ amount: '1000.01' }),
    verdict: 'mismatch',
    codes: ['AMOUNT'],
    reason: 'amount 1000.00 here, 1000.01 at provider',
    next: 5 * MIN,
  },
  {
    name: 'difference exactly at tolerance: not a mismatch',
    local: payment(localSuccess),
    answer: found({ amount: '1000.50', paidAmount: '1000.50' }),
    policy: withPolicy({ tolerances: { NGN: '0.5' } }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'difference just above tolerance: AMOUNT',
    local: payment(localSuccess),
    answer: found({ amount: '1000.51', paidAmount: '1000.51' }),
    policy: withPolicy({ tolerances: { NGN: '0.5' } }),
    verdict: 'mismatch',
    codes: ['AMOUNT', 'PAID_AMOUNT'],
    next: null,
  },
  {
    name: 'tolerance of another currency does not apply',
    local: payment(localSuccess),
    answer: found({ amount: '1000.5', paidAmount: '1000.5' }),
    policy: withPolicy({ tolerances: { INR: '1' } }),
    verdict: 'mismatch',
    codes: ['AMOUNT', 'PAID_AMOUNT'],
    next: null,
  },
  {
    name: 'unreadable provider amount: AMOUNT',
    local: payment(localSuccess),
    answer: found({ amount: '1e3' }),
    verdict: 'mismatch',
    codes: ['AMOUNT'],
    reason: 'amount 1000.00 here, "1e3" at provider',
    next: null,
  },

  // PAID_AMOUNT
  {
    name: 'underpaid: mismatch, local still updated to reality',
    local: payment(),
    answer: found({ paidAmount: '950' }),
    verdict: 'mismatch',
    codes: ['PAID_AMOUNT'],
    update: { ...resolvedPayment, paidAmount: '950' },
    reason: 'underpaid: paid 950.00 of 1000.00 (short 50.00)',
    next: null,
  },
  {
    name: 'overpaid',
    local: payment(),
    answer: found({ paidAmount: '1050.5' }),
    verdict: 'mismatch',
    codes: ['PAID_AMOUNT'],
    update: { ...resolvedPayment, paidAmount: '1050.5' },
    reason: 'overpaid: paid 1050.50 of 1000.00 (over 50.50)',
    next: null,
  },
  {
    name: 'paid within tolerance: resolved',
    local: payment(),
    answer: found({ paidAmount: '999.5' }),
    policy: withPolicy({ tolerances: { NGN: '0.5' } }),
    verdict: 'resolved',
    codes: [],
    update: { ...resolvedPayment, paidAmount: '999.5' },
    next: null,
  },
  {
    name: 'paidAmount differs from what the merchant recorded',
    local: payment({ ...localSuccess, paidAmount: '900' }),
    answer: found(),
    verdict: 'mismatch',
    codes: ['PAID_AMOUNT'],
    reason: 'paidAmount recorded 900.00, provider 1000.00',
    next: null,
  },
  {
    name: 'recorded paidAmount equal in other notation',
    local: payment({ ...localSuccess, paidAmount: '1000.00' }),
    answer: found(),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'provider success without paidAmount',
    local: payment(localSuccess),
    answer: found({ paidAmount: undefined }),
    verdict: 'mismatch',
    codes: ['PAID_AMOUNT'],
    reason: 'without paidAmount',
    next: null,
  },
  {
    name: 'paidAmount not judged while provider is pending',
    local: payment(),
    answer: found({ ...providerPending, paidAmount: '10' }),
    verdict: 'pending',
    codes: [],
    next: 5 * MIN,
  },

  // FEE
  {
    name: 'recorded fee differs from provider fee',
    local: payment({ ...localSuccess, fee: '10' }),
    answer: found(),
    verdict: 'mismatch',
    codes: ['FEE'],
    reason: 'fee recorded 10.00, provider 15.00',
    next: null,
  },
  {
    name: 'recorded fee equal: matched',
    local: payment({ ...localSuccess, fee: '15.00' }),
    answer: found(),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'fee matches schedule 1.5% of paid',
    local: payment(localSuccess),
    answer: found(),
    policy: withPolicy({ feeSchedule: { NGN: { payment: { percent: '1.5', fixed: '0' } } } }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'fee off schedule',
    local: payment(localSuccess),
    answer: found({ fee: '20' }),
    policy: withPolicy({ feeSchedule: { NGN: { payment: { percent: '1.5', fixed: '0' } } } }),
    verdict: 'mismatch',
    codes: ['FEE_SCHEDULE'],
    reason: 'fee 20.00, contract expects 15.00',
    next: null,
  },
  {
    name: 'schedule rounds half-up: 1001 × 1.5% = 15.015 → 15.02',
    local: payment({ ...localSuccess, amount: '1001' }),
    answer: found({ amount: '1001', paidAmount: '1001', fee: '15.02' }),
    policy: withPolicy({ feeSchedule: { NGN: { payment: { percent: '1.5', fixed: '0' } } } }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'schedule rounding: 15.01 is off by one unit',
    local: payment({ ...localSuccess, amount: '1001' }),
    answer: found({ amount: '1001', paidAmount: '1001', fee: '15.01' }),
    policy: withPolicy({ feeSchedule: { NGN: { payment: { percent: '1.5', fixed: '0' } } } }),
    verdict: 'mismatch',
    codes: ['FEE_SCHEDULE'],
    next: null,
  },
  {
    name: 'payout schedule percent + fixed on amount',
    local: payout(localSuccess),
    answer: payoutFound({ fee: '35' }),
    policy: withPolicy({ feeSchedule: { INR: { payout: { percent: '2', fixed: '15' } } } }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  // FEE_SCHEDULE per method, with minimum and maximum (FEE_SCHEDULE_FILE)
  {
    name: 'per method: TRANSFER below its minimum is charged the minimum (1.5% of 1000 = 15 → 20): on contract',
    local: payment(localSuccess),
    answer: found({ fee: '20' }),
    policy: withPolicy({
      feeSchedule: {
        NGN: { payment: { TRANSFER: { percent: '1.5', fixed: '0', min: '20', max: '500' }, '*': { percent: '3', fixed: '5' } } },
      },
    }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'per method: the percentage alone under the minimum is off contract',
    local: payment(localSuccess),
    answer: found({ fee: '15' }),
    policy: withPolicy({
      feeSchedule: {
        NGN: { payment: { TRANSFER: { percent: '1.5', fixed: '0', min: '20', max: '500' }, '*': { percent: '3', fixed: '5' } } },
      },
    }),
    verdict: 'mismatch',
    codes: ['FEE_SCHEDULE'],
    reason: 'fee 15.00, contract expects 20.00 (1.5% + 0.00, min 20.00, max 500.00 on 1000.00, TRANSFER)',
    next: null,
  },
  {
    name: 'per method: above the maximum is capped (1.5% of 100000 = 1500 → 500): on contract',
    local: payment({ ...localSuccess, amount: '100000' }),
    answer: found({ amount: '100000', paidAmount: '100000', fee: '500' }),
    policy: withPolicy({
      feeSchedule: {
        NGN: { payment: { TRANSFER: { percent: '1.5', fixed: '0', min: '20', max: '500' }, '*': { percent: '3', fixed: '5' } } },
      },
    }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'per method: the uncapped percentage above the maximum is off contract',
    local: payment({ ...localSuccess, amount: '100000' }),
    answer: found({ amount: '100000', paidAmount: '100000', fee: '1500' }),
    policy: withPolicy({
      feeSchedule: {
        NGN: { payment: { TRANSFER: { percent: '1.5', fixed: '0', min: '20', max: '500' }, '*': { percent: '3', fixed: '5' } } },
      },
    }),
    verdict: 'mismatch',
    codes: ['FEE_SCHEDULE'],
    next: null,
  },
  {
    name: 'per method: another method takes the "*" rule (3% + 5 = 35)',
    local: payment({ ...localSuccess, method: 'CARD' }),
    answer: found({ method: 'CARD', fee: '35' }),
    policy: withPolicy({
      feeSchedule: {
        NGN: { payment: { TRANSFER: { percent: '1.5', fixed: '0', min: '20', max: '500' }, '*': { percent: '3', fixed: '5' } } },
      },
    }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'per method: the TRANSFER rule does not apply to another method',
    local: payment({ ...localSuccess, method: 'CARD' }),
    answer: found({ method: 'CARD', fee: '20' }),
    policy: withPolicy({
      feeSchedule: {
        NGN: { payment: { TRANSFER: { percent: '1.5', fixed: '0', min: '20', max: '500' }, '*': { percent: '3', fixed: '5' } } },
      },
    }),
    verdict: 'mismatch',
    codes: ['FEE_SCHEDULE'],
    next: null,
  },
  {
    name: 'per method: a method with no rule and no "*" is not judged',
    local: payout(localSuccess),
    answer: payoutFound({ fee: '99' }),
    policy: withPolicy({ feeSchedule: { INR: { payout: { IMPS: { percent: '0', fixed: '10' } } } } }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'schedule not applied to an order still pending',
    local: payment(),
    answer: found(providerPending),
    policy: withPolicy({ feeSchedule: { NGN: { payment: { percent: '1.5', fixed: '0' } } } }),
    verdict: 'pending',
    codes: [],
    next: 5 * MIN,
  },

  // STATUS: a final local status never moves
  {
    name: 'local success, provider pending: STATUS, no update, asked again on the backoff until the provider is final (issue 43)',
    local: payment(localSuccess),
    answer: found(providerPending),
    verdict: 'mismatch',
    codes: ['STATUS'],
    reason: 'local success (Success), provider pending (Initiated)',
    next: 5 * MIN,
  },
  {
    name: 'local failed, provider success: STATUS, no update',
    local: payment({ status: 'Failed', category: 'failed' }),
    answer: found(),
    verdict: 'mismatch',
    codes: ['STATUS'],
    reason: 'local failed (Failed), provider success (Success)',
    next: null,
  },
  {
    name: 'local success, provider failed still reporting paid and fee: STATUS, and PAID_AMOUNT and FEE for the money',
    local: payment(localSuccess),
    answer: found({ status: 'Reversed', category: 'failed' }),
    verdict: 'mismatch',
    codes: ['FEE', 'PAID_AMOUNT', 'STATUS'],
    next: null,
  },
  {
    name: 'local success, provider failed with nothing paid or charged: STATUS alone',
    local: payment(localSuccess),
    answer: found({ status: 'Reversed', category: 'failed', paidAmount: '0', fee: '0' }),
    verdict: 'mismatch',
    codes: ['STATUS'],
    next: null,
  },

  // Money on an order the provider did not complete (issue 25 item 7)
  {
    name: 'provider Failed with paidAmount equal to the amount: PAID_AMOUNT, never resolved',
    local: payment(),
    answer: found({ status: 'Failed', category: 'failed', paidAmount: '1000', fee: '0' }),
    verdict: 'mismatch',
    codes: ['PAID_AMOUNT'],
    update: { status: 'Failed', category: 'failed', fee: '0', paidAmount: '1000', finalized: true },
    reason: 'provider failed (Failed) but paid 1000.00: money collected on a payment it did not complete',
    next: null,
  },
  {
    name: 'provider Failed with a part paid: PAID_AMOUNT',
    local: payment(),
    answer: found({ status: 'Failed', category: 'failed', paidAmount: '0.01', fee: '0' }),
    verdict: 'mismatch',
    codes: ['PAID_AMOUNT'],
    update: { status: 'Failed', category: 'failed', fee: '0', paidAmount: '0.01', finalized: true },
    reason: 'but paid 0.01',
    next: null,
  },
  {
    name: 'provider Failed charging a fee on a payment: FEE',
    local: payment(),
    answer: found({ status: 'Failed', category: 'failed', paidAmount: '0', fee: '15' }),
    verdict: 'mismatch',
    codes: ['FEE'],
    update: { status: 'Failed', category: 'failed', fee: '15', paidAmount: '0', finalized: true },
    reason: 'provider failed (Failed) but charged fee 15.00 on a payment it did not complete',
    next: null,
  },
  {
    name: 'provider Failed with paidAmount 0.00 and fee 0.00: resolved',
    local: payment(),
    answer: found({ status: 'Failed', category: 'failed', paidAmount: '0.00', fee: '0.00' }),
    verdict: 'resolved',
    codes: [],
    update: { status: 'Failed', category: 'failed', fee: '0.00', paidAmount: '0.00', finalized: true },
    next: null,
  },
  {
    name: 'failed payout keeping the fee quoted at initiate: resolved (refunded with the amount, not a charge)',
    local: payout(),
    answer: payoutFound({ status: 'Failed', category: 'failed', fee: '15', utr: '' }),
    verdict: 'resolved',
    codes: [],
    update: { status: 'Failed', category: 'failed', fee: '15', finalized: true },
    next: null,
  },
  {
    name: 'payment pending with a fee: not judged until the provider completes or fails it',
    local: payment(),
    answer: found({ ...providerPending, fee: '15' }),
    verdict: 'pending',
    codes: [],
    next: 5 * MIN,
  },

  // A value the merchant recorded is never overwritten by a provider value that disagrees (issue 25 item 1)
  {
    name: 'pending payout, fee recorded 50.00, provider Success with 50.01: FEE, status moves, fee kept',
    local: payout({ fee: '50.00', amount: '5000.00' }),
    answer: payoutFound({ amount: '5000', fee: '50.01' }),
    verdict: 'mismatch',
    codes: ['FEE'],
    update: { status: 'Success', category: 'success', utr: 'UTR123', finalized: true },
    reason: 'fee recorded 50.00, provider 50.01',
    next: null,
  },
  {
    name: 'the same payout at its next check (final, fee still 50.00): FEE again',
    local: payout({ ...localSuccess, fee: '50.00', amount: '5000.00', utr: 'UTR123' }),
    answer: payoutFound({ amount: '5000', fee: '50.01' }),
    verdict: 'mismatch',
    codes: ['FEE'],
    next: null,
  },
  {
    name: 'pending INR payout with fee recorded, provider Success without UTR and another fee: FEE and UTR_MISSING, fee kept',
    local: payout({ fee: '50.00', amount: '5000.00' }),
    answer: payoutFound({ amount: '5000', fee: '50.01', utr: '' }),
    verdict: 'mismatch',
    codes: ['FEE', 'UTR_MISSING'],
    update: { status: 'Success', category: 'success', finalized: true },
    next: null,
  },
  {
    name: 'pending payout without a recorded fee: the provider fee is taken and the reason says so',
    local: payout(),
    answer: payoutFound(),
    verdict: 'resolved',
    codes: [],
    update: { status: 'Success', category: 'success', fee: '15', utr: 'UTR123', finalized: true },
    reason: 'resolved: Initiated → Success; fee 15.00, utr UTR123 taken from the provider (none recorded)',
    next: null,
  },
  {
    name: 'pending payment with paidAmount recorded 900, provider paid 1000: PAID_AMOUNT, paidAmount kept',
    local: payment({ paidAmount: '900' }),
    answer: found(),
    verdict: 'mismatch',
    codes: ['PAID_AMOUNT'],
    update: { status: 'Success', category: 'success', fee: '15', finalized: true },
    reason: 'paidAmount recorded 900.00, provider 1000.00',
    next: null,
  },
  {
    name: 'pending payout with UTR recorded, provider reports another: UTR, recorded UTR kept',
    local: payout({ utr: 'UTR-MINE' }),
    answer: payoutFound(),
    verdict: 'mismatch',
    codes: ['UTR'],
    update: { status: 'Success', category: 'success', fee: '15', finalized: true },
    reason: 'utr recorded UTR-MINE, provider UTR123',
    next: null,
  },
  {
    name: 'final payout with UTR recorded, provider reports the same (trimmed): matched',
    local: payout({ ...localSuccess, fee: '15', utr: ' UTR123 ' }),
    answer: payoutFound(),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'recorded fee equal in other notation: not overwritten, resolved',
    local: payment({ fee: '15.00', paidAmount: '1000.00' }),
    answer: found(),
    verdict: 'resolved',
    codes: [],
    update: { status: 'Success', category: 'success', finalized: true },
    next: null,
  },
  {
    name: 'unknown provider string on a pending order: pending, recorded, reported',
    local: payment(),
    answer: found({ status: 'OnHold', category: 'unknown', paidAmount: '0', fee: '0' }),
    verdict: 'pending',
    codes: [],
    update: { status: 'OnHold', category: 'unknown', finalized: false },
    reason: 'unknown provider status "OnHold"',
    next: 5 * MIN,
  },
  {
    name: 'unknown provider string on a final order: STATUS, asked again on the backoff',
    local: payment(localSuccess),
    answer: found({ status: 'OnHold', category: 'unknown' }),
    verdict: 'mismatch',
    codes: ['STATUS'],
    reason: 'local success (Success), unknown provider status "OnHold"',
    next: 5 * MIN,
  },

  // error and not found
  {
    name: 'provider error: error, first backoff step whatever the count',
    local: payment({ checkCount: 4 }),
    answer: { kind: 'error', message: 'HTTP 500' },
    verdict: 'error',
    codes: [],
    reason: 'provider error: HTTP 500',
    next: 5 * MIN,
  },
  {
    name: 'provider error on a payout: payout first step',
    local: payout({ checkCount: 2 }),
    answer: { kind: 'error', message: 'timeout' },
    verdict: 'error',
    codes: [],
    next: 15 * MIN,
  },
  {
    name: 'not found, pending local: NOT_FOUND, keeps checking',
    local: payment({ checkCount: 1 }),
    answer: { kind: 'not_found' },
    verdict: 'mismatch',
    codes: ['NOT_FOUND'],
    reason: 'provider does not know transactionRef t-1',
    next: 15 * MIN,
  },
  {
    name: 'not found, final local: NOT_FOUND, left to a person',
    local: payment(localSuccess),
    answer: { kind: 'not_found' },
    verdict: 'mismatch',
    codes: ['NOT_FOUND'],
    next: null,
  },

  // identity
  {
    name: 'currency differs: CURRENCY, no update even though provider is final',
    local: payment(),
    answer: found({ currency: 'INR' }),
    verdict: 'mismatch',
    codes: ['CURRENCY'],
    reason: 'currency NGN here, INR at provider',
    next: 5 * MIN,
  },
  {
    name: 'method compared exactly: case matters',
    local: payment(localSuccess),
    answer: found({ method: 'transfer' }),
    verdict: 'mismatch',
    codes: ['METHOD'],
    next: null,
  },
  {
    name: 'method compared trimmed',
    local: payment(localSuccess),
    answer: found({ method: ' TRANSFER ' }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'merchantRef differs',
    local: payment(localSuccess),
    answer: found({ merchantRef: 'm-2' }),
    verdict: 'mismatch',
    codes: ['MERCHANT_REF'],
    next: null,
  },

  // payouts: UTR and bank code
  {
    name: 'INR payout success with utr "": UTR_MISSING, still finalized',
    local: payout(),
    answer: payoutFound({ utr: '' }),
    verdict: 'mismatch',
    codes: ['UTR_MISSING'],
    update: { status: 'Success', category: 'success', fee: '15', finalized: true },
    next: null,
  },
  {
    name: 'INR payout success with utr absent: UTR_MISSING',
    local: payout(localSuccess),
    answer: payoutFound({ utr: undefined }),
    verdict: 'mismatch',
    codes: ['UTR_MISSING'],
    reason: 'INR payout succeeded without UTR',
    next: null,
  },
  {
    name: 'INR payout success with utr: resolved, utr recorded',
    local: payout(),
    answer: payoutFound(),
    verdict: 'resolved',
    codes: [],
    update: { status: 'Success', category: 'success', fee: '15', utr: 'UTR123', finalized: true },
    next: null,
  },
  {
    name: 'INR payout still pending without utr: fine',
    local: payout(),
    answer: payoutFound({ ...providerPending, utr: '' }),
    verdict: 'pending',
    codes: [],
    next: 15 * MIN,
  },
  {
    name: 'NGN payout success without utr: fine',
    local: payout({ currency: 'NGN', method: 'BANK', bankCode: '044' }),
    answer: payoutFound({ currency: 'NGN', method: 'BANK', utr: undefined }),
    verdict: 'resolved',
    codes: [],
    update: { status: 'Success', category: 'success', fee: '15', finalized: true },
    next: null,
  },
  {
    name: 'bank code not in list: BANK_CODE',
    local: payout({ ...localSuccess, currency: 'NGN', method: 'BANK', bankCode: '999' }),
    answer: payoutFound({ currency: 'NGN', method: 'BANK' }),
    policy: withPolicy({ knownBankCodes: (c, code) => c === 'NGN' && code === '044' }),
    verdict: 'mismatch',
    codes: ['BANK_CODE'],
    reason: 'bank code 999 not in the NGN list',
    next: null,
  },
  {
    name: 'bank code list unknown for currency: not flagged',
    local: payout(localSuccess),
    answer: payoutFound(),
    policy: withPolicy({ knownBankCodes: () => undefined }),
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'bank code checked when provider does not know the payout',
    local: payout({ currency: 'NGN', method: 'BANK', bankCode: '999' }),
    answer: { kind: 'not_found' },
    policy: withPolicy({ knownBankCodes: () => false }),
    verdict: 'mismatch',
    codes: ['BANK_CODE', 'NOT_FOUND'],
    next: 15 * MIN,
  },

  // STALE per direction and category
  {
    name: 'payment pending exactly 24h: not stale',
    local: payment({ createdAt: ago(24 * HOUR) }),
    answer: found(providerPending),
    verdict: 'pending',
    codes: [],
    next: 5 * MIN,
  },
  {
    name: 'payment pending 24h + 1ms: STALE',
    local: payment({ createdAt: ago(24 * HOUR + 1) }),
    answer: found(providerPending),
    verdict: 'mismatch',
    codes: ['STALE'],
    reason: 'pending for 24h, limit 24h',
    next: 5 * MIN,
  },
  {
    name: 'payout pending 48h: not stale (72h limit)',
    local: payout({ createdAt: ago(48 * HOUR) }),
    answer: payoutFound(providerPending),
    verdict: 'pending',
    codes: [],
    next: 15 * MIN,
  },
  {
    name: 'payout pending 72h + 1ms: STALE',
    local: payout({ createdAt: ago(72 * HOUR + 1) }),
    answer: payoutFound(providerPending),
    verdict: 'mismatch',
    codes: ['STALE'],
    next: 15 * MIN,
  },
  {
    name: 'payout unknown 24h + 1ms: STALE under the unknown limit',
    local: payout({ createdAt: ago(24 * HOUR + 1) }),
    answer: payoutFound({ status: 'OnHold', category: 'unknown' }),
    verdict: 'mismatch',
    codes: ['STALE'],
    update: { status: 'OnHold', category: 'unknown', finalized: false },
    reason: 'unknown provider status "OnHold"; unknown for 24h, limit 24h',
    next: 15 * MIN,
  },
  {
    name: 'old order that resolves now: not stale',
    local: payment({ createdAt: ago(30 * 24 * HOUR) }),
    answer: found(),
    verdict: 'resolved',
    codes: [],
    update: resolvedPayment,
    next: null,
  },
  {
    name: 'configured stale limit',
    local: payment({ createdAt: ago(2 * HOUR) }),
    answer: found(providerPending),
    policy: withPolicy({ staleAfterMs: { payment: { pending: HOUR, unknown: HOUR }, payout: { pending: HOUR, unknown: HOUR } } }),
    verdict: 'mismatch',
    codes: ['STALE'],
    next: 5 * MIN,
  },

  // several at once
  {
    name: 'several codes, sorted and unique',
    local: payment({ fee: '10', paidAmount: '1000', createdAt: ago(48 * HOUR) }),
    answer: found({ currency: 'IDR', method: 'BNI', amount: '900', paidAmount: '800' }),
    verdict: 'mismatch',
    codes: ['AMOUNT', 'CURRENCY', 'FEE', 'METHOD', 'PAID_AMOUNT', 'STALE'],
    next: 5 * MIN,
  },
  // Webhook findings are judged in the core with the rest, so the verdict is computed once.
  {
    name: 'WEBHOOK_MISSING: final for 11 min (past the 10 min retry window), no notification stored, webhooks expected',
    local: finalPayment,
    answer: found(),
    notifications: unnotified,
    verdict: 'mismatch',
    codes: ['WEBHOOK_MISSING'],
    reason: 'no payment notification received within 10 min',
    next: null,
  },
  {
    name: 'no WEBHOOK_MISSING while the margin has not passed',
    local: finalPayment,
    answer: found(),
    notifications: { ...unnotified, marginMs: 5 * MIN },
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'no WEBHOOK_MISSING once a notification was stored',
    local: finalPayment,
    answer: found(),
    notifications: { ...unnotified, received: true },
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'no WEBHOOK_MISSING when the merchant runs no receiver (WEBHOOK_EXPECTED off)',
    local: finalPayment,
    answer: found(),
    notifications: { ...unnotified, expected: false },
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'no WEBHOOK_MISSING for an order this check finalizes: its window starts now',
    local: payment(),
    answer: found(),
    notifications: unnotified,
    verdict: 'resolved',
    codes: [],
    update: resolvedPayment,
    next: null,
  },
  {
    name: 'no WEBHOOK_MISSING for payouts: the provider notifies payments only',
    local: payout({ ...localSuccess, fee: '15', utr: 'UTR123', finalizedAt: ago(HOUR) }),
    answer: payoutFound(),
    notifications: unnotified,
    verdict: 'matched',
    codes: [],
    next: null,
  },
  {
    name: 'WEBHOOK_CONFLICT: a notification the fetch contradicted is a mismatch even when the values agree',
    local: finalPayment,
    answer: found(),
    notifications: { ...unnotified, received: true, conflict: 'notified Success 900.00; the fetch says Success 1000' },
    verdict: 'mismatch',
    codes: ['WEBHOOK_CONFLICT'],
    reason: 'notified Success 900.00',
    next: null,
  },
  {
    name: 'a provider error stays an error, and keeps the webhook codes known without the provider',
    local: finalPayment,
    answer: { kind: 'error', message: 'HTTP 500' },
    notifications: { ...unnotified, received: true, conflict: 'notified Failed' },
    verdict: 'error',
    codes: ['WEBHOOK_CONFLICT'],
    reason: 'provider error: HTTP 500; notified Failed',
    next: 5 * MIN,
  },
];

describe('compareOrder', () => {
  it('a fee recorded 0.01 against a provider fee of 0.005 is shown exactly, never as 0.01 against 0.01', () => {
    const r = compareOrder(payment({ fee: '0.01' }), found({ fee: '0.005' }), defaultPolicy(), NOW);
    const fee = r.findings.filter((f) => f.code === 'FEE');
    expect(fee.map((f) => f.provider)).toEqual(['0.005', '0.005']);
    expect(r.reason).toContain('fee recorded 0.01, provider 0.005');
    expect(r.reason).not.toMatch(/provider 0\.01/);
  });

  it.each(cases)('$name', (c) => {
    const result: CheckResult = compareOrder(c.local, c.answer, c.policy ?? defaultPolicy(), NOW, c.notifications);
    expect(result.verdict).toBe(c.verdict);
    expect(result.codes).toEqual(c.codes);
    expect(result.update).toEqual(c.update ?? null);
    if (c.reason !== undefined) expect(result.reason).toContain(c.reason);
    expect(result.nextCheckAt === null ? null : result.nextCheckAt.getTime() - NOW.getTime()).toBe(c.next);
  });

  it('reports both PAID_AMOUNT findings when under-paid and different from the recorded value', () => {
    const result = compareOrder(payment({ ...localSuccess, paidAmount: '1000' }), found({ paidAmount: '950' }), defaultPolicy(), NOW);
    expect(result.codes).toEqual(['PAID_AMOUNT']);
    expect(result.findings).toEqual([
      { code: 'PAID_AMOUNT', local: '1000.00', provider: '950', note: 'underpaid: paid 950.00 of 1000.00 (short 50.00)' },
      { code: 'PAID_AMOUNT', local: '1000', provider: '950', note: 'paidAmount recorded 1000.00, provider 950.00' },
    ]);
    expect(result.reason).toBe('underpaid: paid 950.00 of 1000.00 (short 50.00); paidAmount recorded 1000.00, provider 950.00');
  });
});

describe('compareOrder backoff', () => {
  const payment5 = [5 * MIN, 15 * MIN, HOUR, 6 * HOUR, 24 * HOUR];
  const payout4 = [15 * MIN, HOUR, 6 * HOUR, 24 * HOUR];
  const steps = [
    ...[0, 1, 2, 3, 4, 5, 50].map((checkCount) => ({
      direction: 'payment' as const,
      checkCount,
      delay: payment5[Math.min(checkCount, 4)],
    })),
    ...[0, 1, 2, 3, 4, 9].map((checkCount) => ({ direction: 'payout' as const, checkCount, delay: payout4[Math.min(checkCount, 3)] })),
  ];

  it.each(steps)('$direction after $checkCount checks waits $delay ms', ({ direction, checkCount, delay }) => {
    const local = direction === 'payment' ? payment({ checkCount }) : payout({ checkCount });
    const answer = direction === 'payment' ? found(providerPending) : payoutFound(providerPending);
    expect(compareOrder(local, answer, defaultPolicy(), NOW).nextCheckAt).toEqual(new Date(NOW.getTime() + delay));
  });
});
