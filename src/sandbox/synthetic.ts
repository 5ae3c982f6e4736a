import { type Currency, CURRENCIES } from '../money/decimal.ts';
import type { Direction } from '../domain/types.ts';
import { DEFAULT_BANKS } from './bank-codes.ts';
import { computeFee } from './fees.ts';
import { hash32, hex, intBetween, rng, u32, uuidFrom, uuidFromHex, type Rng } from './prng.ts';
import { drawScenario, planFinal } from './scenario.ts';
import { DEFAULT_LIFECYCLE, STATUS, type SandboxOrder } from './types.ts';

/** A benchmark order with the state the provider reports for it. Amounts are decimal text. */
/**
 * One generated order: the provider's fields of a SandboxOrder, mostly Success, some Failed, a few still
 * Pending/Initiated, some partial payments (paidAmount "0.00" unless Success; payouts "0"); utr for INR
 * payouts only ("" for failed, stuck, or the few successes without one); bankCode a default-list code
 * (NGN/IDR) or an IFSC (INR).
 */
export interface SyntheticOrder extends Pick<
  SandboxOrder,
  'direction' | 'merchantRef' | 'transactionRef' | 'method' | 'amount' | 'paidAmount' | 'fee' | 'status' | 'utr' | 'bankCode' | 'account'
> {
  currency: Currency;
  /** How long before "now" the order was created, 0 to 7 days; lets a benchmark date its rows. */
  ageSeconds: number;
}

const PAYMENT_METHOD: Record<Currency, string> = { INR: 'NATIVE', NGN: 'TRANSFER', IDR: 'BNI' };
const PAYOUT_METHOD: Record<Currency, string> = { INR: 'IFSC', NGN: 'BANK', IDR: 'TRANSFER' };
const IFSC_BANKS = ['HDFC', 'ICIC', 'SBIN', 'UTIB', 'KKBK', 'PUNB', 'BARB', 'YESB'];
/** Amount range per currency in minor units (hundredths). */
const AMOUNT_CENTS: Record<Currency, [number, number]> = {
  INR: [10_000, 5_000_000],
  NGN: [100_000, 50_000_000],
  IDR: [1_000_000, 500_000_000],
};

// transactionRef ends with the index XOR a seed mask (48 bits), so the sandbox finds a seeded order without storing it.
const maskHi = (seed: number): number => hash32(`mask-hi|${seed}`) & 0xffff;
const maskLo = (seed: number): number => hash32(`mask-lo|${seed}`);
const TWO32 = 4294967296;

function seededRef(r: Rng, seed: number, index: number): string {
  const hi = (Math.floor(index / TWO32) ^ maskHi(seed)) & 0xffff;
  const lo = ((index % TWO32) ^ maskLo(seed)) >>> 0;
  return uuidFromHex(hex(u32(r), 8) + hex(u32(r), 8) + hex(u32(r), 4) + hex(hi, 4) + hex(lo, 8));
}

/** The index a seeded transactionRef encodes under this seed (a candidate: check it by regenerating the order). */
export function syntheticIndexOf(seed: number, transactionRef: string): number | undefined {
  if (transactionRef.length !== 36) return undefined;
  const hi = parseInt(transactionRef.slice(24, 28), 16);
  const lo = parseInt(transactionRef.slice(28, 36), 16);
  if (Number.isNaN(hi) || Number.isNaN(lo)) return undefined;
  return ((hi ^ maskHi(seed)) & 0xffff) * TWO32 + ((lo ^ maskLo(seed)) >>> 0);
}

/** Pure: the same (seed, index) always gives the same order, so a benchmark and the sandbox agree without transfer. */
export function syntheticOrder(seed: number, index: number): SyntheticOrder {
  const r = rng(hash32(`synthetic|${seed}|${index}`));
  const direction: Direction = r() < 0.6 ? 'payment' : 'payout';
  const currency = CURRENCIES[Math.floor(r() * CURRENCIES.length)];
  const [lo, hi] = AMOUNT_CENTS[currency];
  let cents = intBetween(r, lo, hi);
  if (currency === 'IDR') cents -= cents % 100; // rupiah amounts are whole
  // Whole minor units to text with integer arithmetic only (exact, and cheaper than a Decimal per order).
  const amount = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  const merchantRef = uuidFrom(r);
  const transactionRef = seededRef(r, seed, index);
  const ageSeconds = intBetween(r, 0, 7 * 86_400);
  const scenario = drawScenario(r, direction, DEFAULT_LIFECYCLE);
  const base = { direction, merchantRef, transactionRef, currency, amount, ageSeconds };
  if (direction === 'payment') {
    const final = planFinal('payment', currency, amount, '0', scenario);
    return {
      ...base,
      method: PAYMENT_METHOD[currency],
      paidAmount: final?.paidAmount ?? '0.00',
      fee: final?.fee ?? '0.00',
      status: final?.status ?? STATUS.paymentPending,
    };
  }
  const fee = computeFee('payout', currency, amount);
  const final = planFinal('payout', currency, amount, fee, scenario);
  const banks = currency === 'INR' ? undefined : DEFAULT_BANKS[currency];
  const bankCode = banks
    ? banks[Math.floor(r() * banks.length)].bankCode
    : `${IFSC_BANKS[Math.floor(r() * IFSC_BANKS.length)]}0${intBetween(r, 0, 999999).toString().padStart(6, '0')}`;
  return {
    ...base,
    method: PAYOUT_METHOD[currency],
    paidAmount: '0',
    fee,
    status: final?.status ?? STATUS.payoutPending,
    utr: currency === 'INR' ? (final?.utr ?? '') : undefined,
    bankCode,
    account: String(intBetween(r, 10_000_000, 99_999_999)) + String(intBetween(r, 10, 99)),
  };
}
