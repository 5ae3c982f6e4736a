// settlementWindow's candidates (Postgres, or PGlite where none answers): the finality-interval index (sql/040) only finds rows,
// the exact conditions decide, so an order open across the window however long is still found. The provider's word
// decides (issue 43): `status` is the provider's category, `finalizedAt` the first check that saw its success, and the
// merchant's category (`merchant`) plays no part.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settlementWindow } from '../src/db/settlement.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';

const DAY_MS = 86_400_000;
const OPENING = { from: new Date('2026-05-28T00:00:00Z'), to: new Date('2026-05-28T00:01:00Z') };
const CLOSING = { from: new Date('2026-05-29T00:00:00Z'), to: new Date('2026-05-29T00:01:00Z') };
const at = (days: number) => new Date(OPENING.from.getTime() + days * DAY_MS);

interface Case {
  name: string;
  createdAt: Date;
  openSeenAt: Date | null;
  finalizedAt: Date | null;
  status?: string | null;
  /** The merchant's category; default success. */
  merchant?: string;
  /** null: not in the window; 'inside': in the sums; 'candidate': a timing-item candidate. */
  expected: null | 'inside' | 'candidate';
}

const CASES: Case[] = [
  { name: 'created and final inside the window', createdAt: at(0.3), openSeenAt: at(0.4), finalizedAt: at(0.5), expected: 'inside' },
  {
    name: 'open across the window, final 40 days later',
    createdAt: at(-40),
    openSeenAt: at(-0.5),
    finalizedAt: at(40),
    expected: 'candidate',
  },
  { name: 'created before, last seen open after the window', createdAt: at(-40), openSeenAt: at(39), finalizedAt: at(40), expected: null },
  { name: 'final 100 days before the window', createdAt: at(-101), openSeenAt: null, finalizedAt: at(-100), expected: null },
  { name: 'created 100 days after the window', createdAt: at(100), openSeenAt: null, finalizedAt: at(101), expected: null },
  { name: 'final during the opening reading', createdAt: at(-1), openSeenAt: null, finalizedAt: at(0.0003), expected: 'candidate' },
  {
    name: 'last seen open after it was final (odd data)',
    createdAt: at(0.2),
    openSeenAt: at(0.6),
    finalizedAt: at(0.5),
    expected: 'inside',
  },
  { name: 'failed, not success', createdAt: at(0.3), openSeenAt: null, finalizedAt: at(0.5), status: 'failed', expected: null },
  { name: 'never final', createdAt: at(0.3), openSeenAt: at(0.4), finalizedAt: null, status: 'pending', expected: null },
  {
    name: 'merchant success, provider pending',
    createdAt: at(0.3),
    openSeenAt: at(0.4),
    finalizedAt: null,
    status: 'pending',
    merchant: 'success',
    expected: null,
  },
  {
    name: 'merchant failed, provider success',
    createdAt: at(0.3),
    openSeenAt: null,
    finalizedAt: at(0.5),
    merchant: 'failed',
    expected: 'inside',
  },
  {
    name: 'merchant success, never checked',
    createdAt: at(0.3),
    openSeenAt: null,
    finalizedAt: null,
    status: null,
    expected: null,
  },
];

describe('settlementWindow', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase('settlement_window');
  });
  afterAll(() => t?.drop());
  beforeEach(() => t.db.knex.raw('TRUNCATE payment_orders'));

  it('finds each order by the exact conditions, however long it was open (named cases)', async () => {
    for (const [i, c] of CASES.entries()) {
      await t.db.knex.raw(
        `INSERT INTO payment_orders (merchant_ref, transaction_ref, currency, method, amount, fee, status, status_category,
                                     created_at, open_seen_at, finalized_at, provider_category, provider_amount, provider_fee, provider_success_at)
         VALUES (?, ?, 'INR', 'UPI', 100, 1, 'Success', ?, ?, ?, ?, ?, 100, 1, ?)`,
        [
          `m-${i}`,
          `t-${i}`,
          c.merchant ?? 'success',
          c.createdAt,
          c.openSeenAt,
          c.createdAt,
          c.status === undefined ? 'success' : c.status,
          (c.status ?? 'success') === 'success' ? c.finalizedAt : null,
        ],
      );
    }
    const { sums, candidates } = await settlementWindow(t.db.knex, 'INR', OPENING, CLOSING);
    const candidateRefs = candidates.map((x) => x.merchantRef).sort();
    const expectedCandidates = CASES.flatMap((c, i) => (c.expected === 'candidate' ? [`m-${i}`] : [])).sort();
    expect(candidateRefs).toEqual(expectedCandidates);
    expect(sums.payments.count).toBe(CASES.filter((c) => c.expected === 'inside').length);
  });
});
