import { Decimal } from './decimal.ts';
import { scaledDigits, scanDecimal, smallScaledValue } from './decimal-text.ts';

/**
 * An exact running sum of decimal text as a scaled integer: a day's totals, or a totals row, over
 * a million amounts without a Decimal object per value. Values of up to 15 digits are added as JS
 * integers (exact below 2^53) and moved into a BigInt before the running part could lose a digit;
 * longer ones go to the BigInt directly. A value with more decimals than the sum has so far widens
 * the scale for the whole sum: never rounded.
 */
export class ScaledSum {
  private total = 0n;
  /** Running part, always an exact integer: |small| ≤ 2^52 before each add of a value < 10^15. */
  private small = 0;
  private factor: bigint;

  /** `scale`: the decimals the sum is written with at least (a currency's minor unit; 0: as the values have them). */
  constructor(private scale = 0) {
    this.factor = 10n ** BigInt(scale);
  }

  /** Adds the value, or subtracts it with sign -1. */
  add(text: string, sign: 1 | -1 = 1): void {
    const d = scanDecimal(text);
    if (d === null || (d.point < text.length && d.fractionDigits === 0)) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
    if (d.significantFractionDigits > this.scale) this.widen(d.significantFractionDigits);
    const v = smallScaledValue(text, d, this.scale);
    if (v !== null) {
      this.small += sign === -1 ? -v : v;
      if (this.small > 2 ** 52 || this.small < -(2 ** 52)) this.flush();
    } else {
      const value = BigInt(scaledDigits(text, d, this.scale));
      this.total += d.negative !== (sign === -1) ? -value : value;
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

  /** Fixed-decimal text at the sum's scale, e.g. "-1234.50". */
  toString(): string {
    this.flush();
    const negative = this.total < 0n;
    const abs = negative ? -this.total : this.total;
    const whole = abs / this.factor;
    const frac = (abs % this.factor).toString().padStart(this.scale, '0');
    return `${negative ? '-' : ''}${whole}${this.scale > 0 ? `.${frac}` : ''}`;
  }

  toDecimal(): Decimal {
    this.flush();
    return new Decimal(this.total.toString()).dividedBy(new Decimal(10).pow(this.scale));
  }
}
