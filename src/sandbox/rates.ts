import { Decimal, type Currency } from '../money/decimal.ts';
import { hash32 } from './prng.ts';

/** Mid rate (local units per USDT), its swing as a fraction, and decimals written. */
const RATE_BASE: Record<Currency, { mid: string; swing: number; dp: number }> = {
  INR: { mid: '86.5', swing: 0.038, dp: 4 },
  NGN: { mid: '1575', swing: 0.045, dp: 2 },
  IDR: { mid: '16000', swing: 0.03, dp: 2 },
};

/** Spread around the mid in basis points: deposits get fewer local units per USDT, withdrawals cost more. */
const DEPOSIT_BPS = -25;
const WITHDRAW_BPS = 45;

const DAY = 86_400_000;

/**
 * USDT rates at a moment: a weekly swell, a daily wave and an hourly ripple with seeded phases,
 * so the rate drifts smoothly and deterministically with the sandbox clock and stays within the mid's swing.
 */
export function usdtRate(seed: number, currency: Currency, nowMs: number): { deposit: string; withdraw: string } {
  const base = RATE_BASE[currency];
  const phase = (k: string) => (hash32(`${seed}|${currency}|${k}`) / 4294967296) * 2 * Math.PI;
  const wave =
    0.6 * Math.sin((nowMs / (7 * DAY)) * 2 * Math.PI + phase('week')) +
    0.3 * Math.sin((nowMs / DAY) * 2 * Math.PI + phase('day')) +
    0.1 * Math.sin((nowMs / (DAY / 24)) * 2 * Math.PI + phase('hour'));
  // The drift is a ratio, not money: turn it into whole hundredths of a basis point before decimal arithmetic.
  const driftCbps = Math.round(wave * base.swing * 1_000_000);
  const mid = new Decimal(base.mid).mul(new Decimal(1_000_000 + driftCbps).div(1_000_000));
  const at = (bps: number) => mid.mul(new Decimal(10_000 + bps).div(10_000)).toFixed(base.dp);
  return { deposit: at(DEPOSIT_BPS), withdraw: at(WITHDRAW_BPS) };
}
