import type { Knex } from 'knex';
import type { SlotGrant, SlotRequest, SlotStore } from '../provider/slot-store.ts';
import { rowsOf } from './row.ts';

/**
 * The account's request schedule in the `provider_budget` row, shared by every process on this
 * database. One statement locks the row, applies the rule of decideGrant (src/provider/slot-store.ts)
 * on the server's clock and moves the next free slot forward: two processes never get the same slot.
 */
const RESERVE = `
WITH cur AS (
  SELECT account, next_free_ms, coalesce(?::float8, extract(epoch from clock_timestamp()) * 1000) AS now_ms
  FROM provider_budget WHERE account = ? FOR UPDATE
), plan AS (
  SELECT account, now_ms, start,
         CASE WHEN start - now_ms >= ?::float8 THEN 0
              ELSE greatest(1, least(?::int, ceil((?::float8 - (start - now_ms)) / ?::float8)::int))
         END AS granted
  FROM (SELECT account, now_ms, greatest(next_free_ms, now_ms + ?::float8) AS start FROM cur) c
), moved AS (
  UPDATE provider_budget b SET next_free_ms = plan.start + plan.granted * ?::float8, updated_at = now()
  FROM plan WHERE b.account = plan.account AND plan.granted > 0
  RETURNING b.account
)
SELECT start, now_ms, granted FROM plan`;

export class PostgresSlotStore implements SlotStore {
  private readonly known = new Set<string>();

  /** `now` replaces the server's clock (tests). */
  constructor(
    private readonly knex: Knex,
    private readonly now?: () => number,
  ) {}

  private async ensureRow(account: string): Promise<void> {
    if (this.known.has(account)) return;
    await this.knex.raw('INSERT INTO provider_budget (account) VALUES (?) ON CONFLICT (account) DO NOTHING', [account]);
    this.known.add(account);
  }

  /** A 429's Retry-After for every process of the account: the next free slot is no earlier than now + forMs (server clock). */
  async hold(account: string, forMs: number): Promise<void> {
    await this.ensureRow(account);
    await this.knex.raw(
      `UPDATE provider_budget SET next_free_ms = greatest(next_free_ms, coalesce(?::float8, extract(epoch from clock_timestamp()) * 1000) + ?::float8),
              updated_at = now()
        WHERE account = ?`,
      [this.now ? this.now() : null, forMs, account],
    );
  }

  async reserve(req: SlotRequest): Promise<SlotGrant> {
    await this.ensureRow(req.account);
    // In the order the placeholders appear in RESERVE.
    const res = await this.knex.raw(RESERVE, [
      this.now ? this.now() : null,
      req.account,
      req.horizonMs,
      req.want,
      req.horizonMs,
      req.intervalMs,
      req.leadMs ?? 0,
      req.intervalMs,
    ]);
    const [row] = rowsOf(res);
    const start = Number(row.start);
    const nowMs = Number(row.now_ms);
    const count = Number(row.granted);
    return { count, firstSlotMs: start, nowMs, retryInMs: count > 0 ? 0 : start - nowMs - req.horizonMs + 1 };
  }
}
