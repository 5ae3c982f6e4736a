import { Decimal, normalizeDecimal, type Currency } from '../money/decimal.ts';
import type { Amount } from '../domain/types.ts';
import type { MovementKind } from '../domain/movements.ts';
import type { JournalRole } from '../domain/journal-roles.ts';
import { readAmount } from './amounts.ts';
import { JOURNAL_USDT_DECIMALS, type DayRate } from './journal-usdt.ts';
import type { JournalEntry, JournalLine } from './journal-types.ts';

/**
 * Journal entries for recorded, approved movements counted in a day's window (issue 38). Choices made
 * for finance:
 * - A top-up is wallet Dr / treasury_clearing Cr, a withdrawal the reverse: the treasury (USDT
 *   holdings or the bank) is where the merchant's own books meet it. A provider charge meets `fees`,
 *   a provider adjustment `provider_adjustment`.
 * - USDT: the wallet line is valued at the provider's quoted rate (the rate recorded with the
 *   movement, else the day's closing rate, deposit side in, withdraw side out); the treasury line
 *   at the USDT actually sent or received. Their difference is a realised FX gain or loss on an
 *   `fx_difference` line (amount 0, USDT only), so the entry balances in both currencies.
 * - Without a USDT amount the treasury line is valued at the same rate as the wallet line.
 */
export interface JournalMovement {
  reference: string;
  kind: MovementKind;
  /** Signed change of the balance: in +, out −. */
  effect: Amount;
  /** USDT actually sent (top-up) or received (withdrawal), positive; null when not in USDT. */
  usdtAmount: Amount | null;
  /** The provider's quoted rate for it, local units per USDT; null: the day's closing rate. */
  usdtRate: Amount | null;
}

const COUNTERPART: Readonly<Record<MovementKind, JournalRole>> = {
  top_up: 'treasury_clearing',
  withdrawal: 'treasury_clearing',
  adjustment: 'provider_adjustment',
  charge: 'fees',
};

const usdt = (d: Decimal) => d.toDecimalPlaces(JOURNAL_USDT_DECIMALS, Decimal.ROUND_HALF_UP);

function read(value: Amount, what: string): Decimal {
  const d = readAmount(value);
  if (d === null) throw new RangeError(`journal movement ${what}: expected decimal text (got ${JSON.stringify(value)})`);
  return d;
}

/** One entry per movement, in the order given. Pure; bad numbers throw (RangeError). */
export function movementEntries(
  date: string,
  currency: Currency,
  movements: readonly JournalMovement[],
  rate: DayRate | null,
): JournalEntry[] {
  return movements.flatMap((m) => {
    const effect = read(m.effect, `${m.reference} effect`);
    if (effect.isZero()) return [];
    const inflow = !effect.isNegative();
    const what = `${m.kind.replace('_', '-')} ${m.reference}`;
    const quoted =
      m.usdtRate !== null ? read(m.usdtRate, `${m.reference} usdt rate`) : readAmount(rate && (inflow ? rate.deposit : rate.withdraw));
    const counterpart = COUNTERPART[m.kind];
    const lines: JournalLine[] = [];
    if (quoted === null || !quoted.isPositive()) {
      lines.push(
        { role: 'wallet', amount: normalizeDecimal(effect), usdtRate: null, usdt: null, description: what, sourceRef: m.reference },
        {
          role: counterpart,
          amount: normalizeDecimal(effect.negated()),
          usdtRate: null,
          usdt: null,
          description: what,
          sourceRef: m.reference,
        },
      );
    } else {
      const walletUsdt = usdt(effect.dividedBy(quoted));
      const actual = m.usdtAmount === null ? walletUsdt.abs() : read(m.usdtAmount, `${m.reference} usdt amount`);
      // The treasury side moves opposite to the wallet: a top-up sends USDT out, a withdrawal brings it in.
      const treasuryUsdt = inflow ? actual.negated() : actual;
      const rateText = normalizeDecimal(quoted);
      lines.push(
        {
          role: 'wallet',
          amount: normalizeDecimal(effect),
          usdtRate: rateText,
          usdt: walletUsdt.toFixed(JOURNAL_USDT_DECIMALS),
          description: what,
          sourceRef: m.reference,
        },
        {
          role: counterpart,
          amount: normalizeDecimal(effect.negated()),
          usdtRate: normalizeDecimal(usdt(effect.abs().dividedBy(actual.isZero() ? quoted : actual))),
          usdt: treasuryUsdt.toFixed(JOURNAL_USDT_DECIMALS),
          description: m.usdtAmount === null ? what : `${what}: USDT ${actual.toFixed()} at the rate applied`,
          sourceRef: m.reference,
        },
      );
      const residual = walletUsdt.plus(treasuryUsdt);
      if (!residual.isZero()) {
        lines.push({
          role: 'fx_difference',
          amount: '0',
          usdtRate: rateText,
          usdt: residual.negated().toFixed(JOURNAL_USDT_DECIMALS),
          description: `${what}: USDT ${actual.toFixed()} against ${walletUsdt.abs().toFixed()} at the quoted rate ${rateText}`,
          sourceRef: m.reference,
        });
      }
    }
    return [
      {
        // Keyed by the movement, as a late change by its order: it is posted once, whichever day counts it.
        key: `movement:${currency}:${m.reference}`,
        id: `${date}-${currency}-movement-${m.reference}`,
        date,
        currency,
        kind: 'movement' as const,
        description: `${currency} ${what} ${date}`,
        lines,
      },
    ];
  });
}
