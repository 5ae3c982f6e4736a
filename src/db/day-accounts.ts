import type { Knex } from 'knex';
import { int, rowsOf, text, textOrNull } from './row.ts';

type Conn = Knex | Knex.Transaction;

/** One account's orders of one currency on a business day, as their newest checks left them. */
export interface DayAccountRow {
  accountId: string;
  currency: string;
  checked: number;
  mismatches: number;
  /** Sum of the orders' amounts (decimal text), checked or not. */
  amount: string;
  /** Open and acknowledged cases' money at stake (decimal text), and in USDT where the case is priced. */
  atRisk: string;
  atRiskUsdt: string;
  /** Open cases with money at stake but no USDT rate: their at-risk is missing from atRiskUsdt. */
  unpriced: number;
}

/**
 * Per account and currency, a business day's orders (created in [start, end)) read from the
 * database, not from report files: the report is one per account and day, and this page sums
 * across them. The newest check of each order decides whether it is a mismatch.
 */
export async function dayByAccount(db: Conn, start: Date, end: Date): Promise<DayAccountRow[]> {
  const res = await db.raw(
    `WITH day AS (
       SELECT 'payment'::text AS direction, id, account_id, currency, amount FROM payment_orders WHERE created_at >= ? AND created_at < ?
       UNION ALL
       SELECT 'payout', id, account_id, currency, amount FROM payout_orders WHERE created_at >= ? AND created_at < ?
     )
     SELECT d.account_id, d.currency,
            count(i.verdict)::int AS checked,
            count(*) FILTER (WHERE i.verdict IN ('mismatch', 'error'))::int AS mismatches,
            sum(d.amount)::text AS amount,
            coalesce(sum(c.at_risk), 0)::text AS at_risk,
            coalesce(sum(c.at_risk_usdt), 0)::text AS at_risk_usdt,
            coalesce(sum(c.unpriced), 0)::int AS unpriced
       FROM day d
       LEFT JOIN LATERAL (
         SELECT verdict FROM recon_items r WHERE r.direction = d.direction AND r.order_id = d.id
          ORDER BY r.checked_at DESC, r.id DESC LIMIT 1
       ) i ON true
       LEFT JOIN LATERAL (
         SELECT sum(at_risk) AS at_risk, sum(at_risk_usdt) AS at_risk_usdt,
                count(*) FILTER (WHERE at_risk IS NOT NULL AND at_risk_usdt IS NULL) AS unpriced
           FROM cases k WHERE k.direction = d.direction AND k.order_id = d.id AND k.state IN ('open', 'acknowledged')
       ) c ON true
      GROUP BY d.account_id, d.currency
      ORDER BY d.account_id, d.currency`,
    [start, end, start, end],
  );
  return rowsOf(res).map((r) => ({
    accountId: text(r, 'account_id'),
    currency: text(r, 'currency'),
    checked: int(r, 'checked'),
    mismatches: int(r, 'mismatches'),
    amount: textOrNull(r, 'amount') ?? '0',
    atRisk: text(r, 'at_risk'),
    atRiskUsdt: text(r, 'at_risk_usdt'),
    unpriced: int(r, 'unpriced'),
  }));
}
