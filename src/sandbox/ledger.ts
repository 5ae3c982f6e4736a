import { Decimal, CURRENCIES, type Currency } from '../money/decimal.ts';

export interface BalanceFigures {
  available: Decimal;
  pending: Decimal;
  held: Decimal;
  credit: Decimal;
}

/** Opening balances per currency: available, pending (settlement in transit, constant), held, credit line (constant). */
export const OPENING_BALANCE: Readonly<Record<Currency, Readonly<Record<keyof BalanceFigures, string>>>> = Object.freeze({
  INR: { available: '4850000.00', pending: '125000.00', held: '0.00', credit: '500000.00' },
  NGN: { available: '186500000.00', pending: '3200000.00', held: '0.00', credit: '10000000.00' },
  IDR: { available: '2450000000.00', pending: '65000000.00', held: '0.00', credit: '100000000.00' },
});

/**
 * Merchant balances with the model payrecon's roll-forward relies on: total = available + pending + held;
 * a settled payment adds paid - fee to available; a payout moves amount + fee from available to held,
 * then out of the balance (Success) or back to available (Failed).
 */
export class Ledger {
  private books = new Map<string, Record<Currency, BalanceFigures>>();

  constructor(private readonly merchantIds: readonly string[]) {
    this.reset();
  }

  reset(): void {
    for (const id of this.merchantIds) {
      const book = {} as Record<Currency, BalanceFigures>;
      for (const c of CURRENCIES) {
        const o = OPENING_BALANCE[c];
        book[c] = {
          available: new Decimal(o.available),
          pending: new Decimal(o.pending),
          held: new Decimal(o.held),
          credit: new Decimal(o.credit),
        };
      }
      this.books.set(id, book);
    }
  }

  get(merchantId: string, currency: Currency): BalanceFigures {
    return this.books.get(merchantId)![currency];
  }

  paymentSettled(merchantId: string, currency: Currency, paid: string, fee: string): void {
    const b = this.get(merchantId, currency);
    b.available = b.available.plus(paid).minus(fee);
  }

  /** False when available plus the credit line cannot cover it (the payout is refused). */
  holdPayout(merchantId: string, currency: Currency, amount: string, fee: string): boolean {
    const b = this.get(merchantId, currency);
    const debit = new Decimal(amount).plus(fee);
    if (b.available.plus(b.credit).lt(debit)) return false;
    b.available = b.available.minus(debit);
    b.held = b.held.plus(debit);
    return true;
  }

  payoutSucceeded(merchantId: string, currency: Currency, amount: string, fee: string): void {
    const b = this.get(merchantId, currency);
    b.held = b.held.minus(amount).minus(fee);
  }

  payoutFailed(merchantId: string, currency: Currency, amount: string, fee: string): void {
    const b = this.get(merchantId, currency);
    const debit = new Decimal(amount).plus(fee);
    b.held = b.held.minus(debit);
    b.available = b.available.plus(debit);
  }

  /** Unexplained movement (drift) the control interface injects. */
  adjust(merchantId: string, currency: Currency, delta: string): void {
    const b = this.get(merchantId, currency);
    b.available = b.available.plus(delta);
  }
}
