import pLimit from 'p-limit';
import type { Knex } from '../db/knex-types.ts';
import { CURRENCIES, type Currency } from '../money/decimal.ts';
import type { ProviderClient } from '../provider/client.ts';
import { insertOrders, type NewOrder } from '../db/orders.ts';
import type { Direction } from '../domain/types.ts';
import { rng } from '../sandbox/prng.ts';

/** Methods as the spec shows them per currency and direction. */
export const DEMO_METHODS: Readonly<Record<Direction, Record<Currency, string>>> = Object.freeze({
  payment: { INR: 'NATIVE', NGN: 'TRANSFER', IDR: 'BNI' },
  payout: { INR: 'IFSC', NGN: 'BANK', IDR: 'TRANSFER' },
});

/** Typical ticket sizes per currency, so amounts look like a real merchant's. */
const AMOUNT_RANGE: Readonly<Record<Currency, [number, number]>> = { INR: [100, 50_000], NGN: [1_000, 500_000], IDR: [10_000, 5_000_000] };

export interface SeededOrder {
  direction: Direction;
  merchantRef: string;
  transactionRef: string;
  currency: Currency;
}

/** Whole units plus cents, built as text: never a float on the way to the provider. */
function amountText(r: () => number, currency: Currency, scale = 1): string {
  const [min, max] = AMOUNT_RANGE[currency].map((v) => Math.round(v * scale));
  const units = min + Math.floor(r() * (max - min));
  const cents = Math.floor(r() * 100);
  return `${units}.${String(cents).padStart(2, '0')}`;
}

/**
 * Creates orders the way a merchant's systems do: initiate at the provider, then record the order
 * in the merchant database with what initiate returned. Used by the demo, tests and benchmarks.
 */
export async function seedMerchant(
  db: Knex,
  client: ProviderClient,
  opts: {
    payments: number;
    payouts: number;
    seed?: number;
    concurrency?: number;
    createdAt?: () => Date;
    /** The account the orders are recorded under (ACCOUNTS_FILE); unset: the table's default. */
    accountId?: string;
  },
): Promise<SeededOrder[]> {
  const r = rng(opts.seed ?? 42); // the same seed gives the same merchant
  const limit = pLimit(opts.concurrency ?? 32);
  const banks = new Map<Currency, string[]>();
  for (const c of ['IDR', 'NGN'] as const)
    banks.set(
      c,
      (await client.bankCodes(c)).map((b) => b.bankCode),
    );
  const currencyOf = () => CURRENCIES[Math.floor(r() * CURRENCIES.length)];
  const uuid = () => {
    const bytes = Array.from({ length: 16 }, () => Math.floor(r() * 256));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Buffer.from(bytes).toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };

  const plans: Array<{ direction: Direction; currency: Currency; amount: string; merchantRef: string; bank: string }> = [];
  for (let i = 0; i < opts.payments; i++) {
    const currency = currencyOf();
    plans.push({ direction: 'payment', currency, amount: amountText(r, currency), merchantRef: uuid(), bank: '' });
  }
  for (let i = 0; i < opts.payouts; i++) {
    const currency = currencyOf();
    const list = banks.get(currency);
    const bank = list ? list[Math.floor(r() * list.length)] : `HDFC0${String(Math.floor(r() * 1e6)).padStart(6, '0')}`;
    // Payouts are smaller than pay-ins so the demo balance stays positive.
    const amount = amountText(r, currency, 0.2);
    plans.push({ direction: 'payout', currency, amount, merchantRef: uuid(), bank });
  }

  const created = await Promise.all(
    plans.map((p, i) =>
      limit(async (): Promise<{ order: NewOrder; direction: Direction }> => {
        const base = { merchantRef: p.merchantRef, currency: p.currency, method: DEMO_METHODS[p.direction][p.currency], amount: p.amount };
        const account = opts.accountId === undefined ? {} : { accountId: opts.accountId };
        const person = {
          name: `Customer ${i + 1}`,
          phone: `+1555${String(1_000_000 + i).slice(-7)}`,
          email: `customer${i + 1}@example.com`,
        };
        const createdAt = opts.createdAt?.() ?? new Date();
        if (p.direction === 'payment') {
          const res = await client.initiatePayment({ ...base, ...person, redirectUrl: 'https://merchant.example/return' });
          return {
            direction: 'payment',
            order: { ...base, ...account, transactionRef: res.transactionRef, status: 'Initiated', statusCategory: 'pending', createdAt },
          };
        }
        const res = await client.initiatePayout({ ...base, ...person, bankCode: p.bank, account: String(1_000_000_000 + i) });
        return {
          direction: 'payout',
          order: {
            ...base,
            ...account,
            transactionRef: res.transactionRef,
            fee: res.fee,
            bankCode: p.bank,
            status: res.status,
            statusCategory: res.category,
            createdAt,
          },
        };
      }),
    ),
  );
  for (const direction of ['payment', 'payout'] as const) {
    const rows = created.filter((c) => c.direction === direction).map((c) => c.order);
    if (rows.length) await insertOrders(db, direction, rows);
  }
  return created.map((c) => ({
    direction: c.direction,
    merchantRef: c.order.merchantRef,
    transactionRef: c.order.transactionRef,
    currency: c.order.currency,
  }));
}
