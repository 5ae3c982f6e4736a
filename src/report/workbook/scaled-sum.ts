/**
 * Exact running sums of decimal text as scaled integers (BigInt): a totals row over a million
 * cells without a Decimal object per cell. Inputs with more decimals than `scale` are refused,
 * never rounded.
 */
export class ScaledSum {
  private total = 0n;
  private readonly factor: bigint;

  constructor(readonly scale: number) {
    this.factor = 10n ** BigInt(scale);
  }

  add(text: string): void {
    const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
    if (!m) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
    const fraction = (m[3] ?? '').replace(/0+$/, '');
    if (fraction.length > this.scale) throw new Error(`${text} has more than ${this.scale} decimals`);
    const value = BigInt(m[2]) * this.factor + BigInt(fraction.padEnd(this.scale, '0') || '0');
    this.total += m[1] === '-' ? -value : value;
  }

  /** Fixed-decimal text, e.g. "-1234.50". */
  toString(): string {
    const negative = this.total < 0n;
    const abs = negative ? -this.total : this.total;
    const whole = abs / this.factor;
    const frac = (abs % this.factor).toString().padStart(this.scale, '0');
    return `${negative ? '-' : ''}${whole}${this.scale > 0 ? `.${frac}` : ''}`;
  }
}
