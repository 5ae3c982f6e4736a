import { scaledDigits, scanDecimal, smallScaledValue } from '../../money/decimal-text.ts';

/**
 * Exact running sums of decimal text as scaled integers: a totals row over a million cells
 * without a Decimal object per cell. Values of up to 15 digits are added as JS integers (exact
 * below 2^53) and moved into a BigInt before the running part could lose a digit; longer ones go
 * to the BigInt directly. An input with more decimals than `scale` (an amount finer than the
 * currency's minor unit) widens the scale for the whole sum: never rounded.
 */
export class ScaledSum {
  private total = 0n;
  /** Running part, always an exact integer: |small| < 2^52 before each add of a value < 10^15. */
  private small = 0;
  private factor: bigint;

  /** `scale`: the decimals the sum is written with at least. */
  constructor(private scale: number) {
    this.factor = 10n ** BigInt(scale);
  }

  add(text: string): void {
    const d = scanDecimal(text);
    if (d === null || (d.point < text.length && d.fractionDigits === 0)) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
    if (d.significantFractionDigits > this.scale) this.widen(d.significantFractionDigits);
    const v = smallScaledValue(text, d, this.scale);
    if (v !== null) {
      this.small += v;
      if (this.small > 2 ** 52 || this.small < -(2 ** 52)) this.flush();
    } else {
      const value = BigInt(scaledDigits(text, d, this.scale));
      this.total += d.negative ? -value : value;
    }
  }

  private widen(scale: number): void {
    this.flush();
    const by = 10n ** BigInt(scale - this.scale);
    this.total *= by;
    this.factor *= by;
    this.scale = scale;
  }

  private flush(): void {
    this.total += BigInt(this.small);
    this.small = 0;
  }

  /** Fixed-decimal text, e.g. "-1234.50". */
  toString(): string {
    this.flush();
    const negative = this.total < 0n;
    const abs = negative ? -this.total : this.total;
    const whole = abs / this.factor;
    const frac = (abs % this.factor).toString().padStart(this.scale, '0');
    return `${negative ? '-' : ''}${whole}${this.scale > 0 ? `.${frac}` : ''}`;
  }
}
