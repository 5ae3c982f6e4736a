import { CURRENCY_DECIMALS, type Decimal } from '../money/decimal.ts';
import { isFinalCategory } from '../domain/status.ts';
import type { StatusCategory } from '../domain/types.ts';
import { amountPlaces, differsBeyond, isAmountText, readAmount, show, toleranceFor } from './amounts.ts';
import { describeRule, feeRuleFor, scheduledFee } from './fees.ts';
import { sameRef } from '../domain/refs.ts';
import { describeDuration, staleLimit } from './timing.ts';
import type { Finding, LocalOrder, ProviderOrder, ReconPolicy } from './types.ts';
import type { MismatchCode } from '../domain/verdicts.ts';

/** One order and the provider's copy of it, with the tolerance for its currency already resolved. */
export interface CheckContext {
  local: LocalOrder;
  provider: ProviderOrder;
  policy: ReconPolicy;
  tolerance: Decimal;
}

export type Check = (ctx: CheckContext) => Finding[];

/** Text fields are compared exactly after trimming: "BANK" and "bank" are different methods to a provider. */
const sameText = (a: string, b: string | undefined): boolean => typeof b === 'string' && a.trim() === b.trim();

export const checkCurrency: Check = ({ local, provider }) =>
  sameText(local.currency, provider.currency)
    ? []
    : [
        {
          code: 'CURRENCY',
          local: local.currency,
          provider: provider.currency,
          note: `currency ${local.currency} here, ${provider.currency} at provider`,
        },
      ];

export const checkMethod: Check = ({ local, provider }) =>
  sameText(local.method, provider.method)
    ? []
    : [
        {
          code: 'METHOD',
          local: local.method,
          provider: provider.method,
          note: `method ${local.method} here, ${provider.method} at provider`,
        },
      ];

export const checkMerchantRef: Check = ({ local, provider }) =>
  sameRef(local.merchantRef, provider.merchantRef)
    ? []
    : [
        {
          code: 'MERCHANT_REF',
          local: local.merchantRef,
          provider: provider.merchantRef,
          note: `provider's order belongs to merchantRef ${provider.merchantRef}`,
        },
      ];

export const checkAmount: Check = ({ local, provider, tolerance }) =>
  differsBeyond(local.amount, provider.amount, tolerance)
    ? [
        {
          code: 'AMOUNT',
          local: local.amount,
          provider: provider.amount,
          note: `amount ${show(local.amount, local.currency)} here, ${show(provider.amount, local.currency)} at provider`,
        },
      ]
    : [];

/**
 * Checks that say the provider's record may not be this order at all. When any fires, the
 * provider's status is not written to the local order: finalising an order from someone
 * else's record (e.g. shipping goods for another payer's payment) is worse than waiting for a person.
 */
export const IDENTITY_CHECKS: readonly Check[] = [checkCurrency, checkMethod, checkMerchantRef, checkAmount];

/**
 * The identity codes that say the provider's money is not this order's: another order
 * (MERCHANT_REF), another method, or money in another currency. A report adds such an order's
 * provider money to no currency's totals. AMOUNT, the other identity check, is this order's money
 * in its own currency, of another size: it stays in.
 */
export const NOT_THIS_ORDER_CODES: readonly MismatchCode[] = ['CURRENCY', 'METHOD', 'MERCHANT_REF'];

/**
 * The one identity rule of both paths that may finalize an order (reconcile and the webhook
 * confirmation): empty when the provider's record is this order, else what says it is not.
 */
export function identityFindings(local: LocalOrder, provider: ProviderOrder, policy: ReconPolicy): Finding[] {
  return runChecks(IDENTITY_CHECKS, { local, provider, policy, tolerance: toleranceFor(policy, local.currency) }, []);
}

/** Appends what each check finds to `into` (a loop, not flatMap: this runs for every order of a run). */
export function runChecks(checks: readonly Check[], ctx: CheckContext, into: Finding[]): Finding[] {
  for (const check of checks) {
    const found = check(ctx);
    for (const f of found) into.push(f);
  }
  return into;
}

/** How the provider's status reads in a report; an unclassifiable string is named as such. */
export function describeProviderStatus(provider: ProviderOrder): string {
  return provider.category === 'unknown'
    ? `unknown provider status "${provider.status}"`
    : `provider ${provider.category} (${provider.status})`;
}

/** A final local status never moves: any other answer, pending and unknown included, is for a person. */
export const checkStatus: Check = ({ local, provider }) =>
  isFinalCategory(local.category) && provider.category !== local.category
    ? [
        {
          code: 'STATUS',
          local: local.status,
          provider: provider.status,
          note: `local ${local.category} (${local.status}), ${describeProviderStatus(provider)}`,
        },
      ]
    : [];

/**
 * A payment the provider failed should have collected nothing: money it reports as paid is money
 * taken from a payer with no order completed, to be refunded or chased, never `resolved`.
 * Only failed, not pending/unknown: a payment still open may be part way through collecting.
 */
export const checkPaidOnFailure: Check = ({ local, provider }) => {
  if (local.direction !== 'payment' || provider.category !== 'failed') return [];
  const paid = readAmount(provider.paidAmount);
  if (paid === null || !paid.greaterThan(0)) return [];
  return [
    {
      code: 'PAID_AMOUNT',
      local: local.paidAmount,
      provider: provider.paidAmount ?? null,
      note: `${describeProviderStatus(provider)} but paid ${show(paid, local.currency)}: money collected on a payment it did not complete`,
    },
  ];
};

/**
 * A fee on a payment the provider failed is a charge for nothing. Payouts are left out: their fee is
 * quoted at initiate (provider spec, rule 1) and stays on a failed payout's record, refunded with the amount.
 */
export const checkFeeOnFailure: Check = ({ local, provider }) => {
  if (local.direction !== 'payment' || provider.category !== 'failed') return [];
  const fee = readAmount(provider.fee);
  if (fee === null || !fee.greaterThan(0)) return [];
  return [
    {
      code: 'FEE',
      local: local.fee,
      provider: provider.fee,
      note: `${describeProviderStatus(provider)} but charged fee ${show(fee, local.currency)} on a payment it did not complete`,
    },
  ];
};

/** Only a payment the provider calls successful has a meaningful paidAmount. */
export const checkPaidAmount: Check = ({ local, provider, tolerance }) => {
  if (local.direction !== 'payment' || provider.category !== 'success') return [];
  const cur = local.currency;
  if (provider.paidAmount === undefined) {
    return [{ code: 'PAID_AMOUNT', local: local.amount, provider: null, note: 'provider reports success without paidAmount' }];
  }
  const findings: Finding[] = [];
  if (!isAmountText(provider.paidAmount) || !isAmountText(local.amount)) {
    findings.push({
      code: 'PAID_AMOUNT',
      local: local.amount,
      provider: provider.paidAmount,
      note: `paid ${show(provider.paidAmount, cur)} of ${show(local.amount, cur)} (not a number)`,
    });
  } else if (differsBeyond(provider.paidAmount, local.amount, tolerance)) {
    // Both readable (checked above); Decimals only for the sentence of a real difference.
    const paid = readAmount(provider.paidAmount)!;
    const amount = readAmount(local.amount)!;
    const gap = show(paid.minus(amount).abs(), cur);
    const note = paid.lessThan(amount)
      ? `underpaid: paid ${show(paid, cur)} of ${show(amount, cur)} (short ${gap})`
      : `overpaid: paid ${show(paid, cur)} of ${show(amount, cur)} (over ${gap})`;
    findings.push({ code: 'PAID_AMOUNT', local: local.amount, provider: provider.paidAmount, note });
  }
  if (local.paidAmount !== null && differsBeyond(local.paidAmount, provider.paidAmount, tolerance)) {
    findings.push({
      code: 'PAID_AMOUNT',
      local: local.paidAmount,
      provider: provider.paidAmount,
      note: `paidAmount recorded ${show(local.paidAmount, cur)}, provider ${show(provider.paidAmount, cur)}`,
    });
  }
  return findings;
};

/** Only when the merchant recorded a fee: an unrecorded fee is learnt from the provider, not disputed. */
export const checkRecordedFee: Check = ({ local, provider, tolerance }) =>
  local.fee !== null && differsBeyond(local.fee, provider.fee, tolerance)
    ? [
        {
          code: 'FEE',
          local: local.fee,
          provider: provider.fee,
          note: `fee recorded ${show(local.fee, local.currency)}, provider ${show(provider.fee, local.currency)}`,
        },
      ]
    : [];

/**
 * The contracted fee applies to completed orders only (a pending or failed order may carry no
 * fee yet). Payments are charged on what was collected (paidAmount), payouts on what was sent. A fee
 * off the contract is FEE_SCHEDULE (not FEE, which is the merchant's record against the provider's):
 * its own case, and its difference (provider − contract) a journal line of its own.
 */
export const checkFeeSchedule: Check = ({ local, provider, policy, tolerance }) => {
  const rule = feeRuleFor(policy.feeSchedule?.[local.currency]?.[local.direction], local.method);
  if (!rule || provider.category !== 'success') return [];
  const base = (local.direction === 'payment' ? readAmount(provider.paidAmount) : null) ?? readAmount(provider.amount);
  if (base === null) return []; // AMOUNT / PAID_AMOUNT already report the unreadable value
  const expected = scheduledFee(base, rule, local.currency);
  if (!differsBeyond(expected.toFixed(), provider.fee, tolerance)) return [];
  const cur = local.currency;
  return [
    {
      code: 'FEE_SCHEDULE',
      local: expected.toFixed(),
      provider: provider.fee,
      note: `fee ${show(provider.fee, cur)}, contract expects ${show(expected, cur)} (${describeRule(rule, (v) => show(v, cur))} on ${show(base, cur)}, ${local.method})`,
    },
  ];
};

/** Indian payouts are traced by UTR; a completed one without it cannot be proven to the beneficiary. */
export const checkUtr: Check = ({ local, provider }) =>
  local.direction === 'payout' && local.currency === 'INR' && provider.category === 'success' && (provider.utr ?? '').trim() === ''
    ? [{ code: 'UTR_MISSING', local: local.utr, provider: provider.utr ?? null, note: 'INR payout succeeded without UTR' }]
    : [];

/** A UTR the merchant recorded is compared, not replaced: a different one may be another transfer's. */
export const checkRecordedUtr: Check = ({ local, provider }) => {
  const mine = local.utr?.trim();
  const theirs = provider.utr?.trim();
  return local.direction === 'payout' && mine && theirs && mine !== theirs
    ? [{ code: 'UTR', local: local.utr, provider: provider.utr ?? null, note: `utr recorded ${mine}, provider ${theirs}` }]
    : [];
};

const MINOR_UNIT_FIELDS = [
  ['amount', 'AMOUNT'],
  ['paidAmount', 'PAID_AMOUNT'],
  ['fee', 'FEE'],
] as const;

/**
 * Money finer than the currency's minor unit (a fee of 0.005 INR) cannot be paid or booked as such:
 * it is reported with its exact value, never rounded away. Where the merchant recorded no value, the
 * provider's is still written to a pending order, so the record keeps what the provider said.
 */
export const checkMinorUnit: Check = ({ local, provider }) => {
  const decimals = CURRENCY_DECIMALS[local.currency];
  const findings: Finding[] = [];
  for (const [field, code] of MINOR_UNIT_FIELDS) {
    // The places by a scan of the text; a Decimal only for the sentence of a finding.
    const places = amountPlaces(provider[field]);
    if (places === null || places <= decimals) continue;
    const local_ = field === 'amount' ? local.amount : field === 'paidAmount' ? local.paidAmount : local.fee;
    findings.push({
      code,
      local: local_,
      provider: provider[field] ?? null,
      note: `${field} ${readAmount(provider[field])!.toFixed()} at provider is finer than ${local.currency} allows (${decimals} decimals)`,
    });
  }
  return findings;
};

/** Checks run on every found order, after the identity checks. */
export const VALUE_CHECKS: readonly Check[] = [
  checkStatus,
  checkPaidAmount,
  checkPaidOnFailure,
  checkRecordedFee,
  checkFeeSchedule,
  checkFeeOnFailure,
  checkUtr,
  checkRecordedUtr,
  checkMinorUnit,
];

/** Needs only the local order, so it also runs when the provider does not know the order. */
export function checkBankCode(local: LocalOrder, policy: ReconPolicy): Finding[] {
  if (local.direction !== 'payout' || local.bankCode === null || !policy.knownBankCodes) return [];
  const code = local.bankCode.trim();
  return policy.knownBankCodes(local.currency, code) === false
    ? [{ code: 'BANK_CODE', local: code, provider: null, note: `bank code ${code} not in the ${local.currency} list` }]
    : [];
}

export function notFoundFinding(local: LocalOrder): Finding {
  return {
    code: 'NOT_FOUND',
    local: local.transactionRef,
    provider: null,
    note: `provider does not know transactionRef ${local.transactionRef}`,
  };
}

/** `category` is where the order stands after this check; exactly at the limit is not yet stale. */
export function checkStale(local: LocalOrder, category: StatusCategory, policy: ReconPolicy, now: Date): Finding[] {
  const limit = staleLimit(policy, local.direction, category);
  if (limit === null) return [];
  const age = now.getTime() - local.createdAt.getTime();
  return age > limit
    ? [
        {
          code: 'STALE',
          local: local.createdAt.toISOString(),
          provider: null,
          note: `${category} for ${describeDuration(age)}, limit ${describeDuration(limit)}`,
        },
      ]
    : [];
}
