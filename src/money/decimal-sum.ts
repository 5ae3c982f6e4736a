import { Decimal } from './decimal.ts';
import { scaledDigits, scanDecimal, smallScaledValue } from './decimal-text.ts';

/**
 * An exact running sum of decimal text, without a Decimal object per value: a day's totals over
 * a million orders. The sum is a scaled integer (BigInt) at the most decimals seen so far; values
 * whose scaled digits fit in 15 are added as JS integers first (exact below 2^53) and moved into
 * the BigInt before the running part could lose a digit.
 */
export class DecimalSum {
  private total = 0n;
  /** Running part at `scale`, always an exact integer: |small| ≤ 2^52 before each add of a value < 10^15. */
  private small = 0;
  private scale = 0;

  add(text: string, sign: 1 | -1 = 1): void {
    const d = scanDecimal(text);
    if (d === null || (d.point < text.length && d.fractionDigits === 0)) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
    if (d.fractionDigits > this.scale) this.rescale(d.fractionDigits);
    const v = smallScaledValue(text, d, this.scale);
    if (v !== null) {
      this.small += sign === -1 ? -v : v;
      if (this.small > 2 ** 52 || this.small < -(2 ** 52)) this.flush();
    } else {
      const value = BigInt(scaledDigits(text, d, this.scale));
      this.total += d.negative !== (sign === -1) ? -value : value;
    }
  }

  private flush(): void {
    this.total += BigInt(this.small);
    this.small = 0;
  }

  private rescale(scale: number): void {
    this.flush();
    this.total *= 10n ** BigInt(scale - this.scale);
    this.scale = scale;
  }

  toDecimal(): Decimal {
    this.flush();
    return new Decimal(this.total.toString()).dividedBy(new Decimal(10).pow(this.scale));
  }
}
