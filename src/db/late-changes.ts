import type { Knex } from 'knex';
import { bool, date, oneOf, rowsOf, text } from './row.ts';
import { DIRECTIONS } from '../domain/types.ts';

/**
 * A change the provider made to an order after it answered success (docs/guides/for-accounting.md):
 * a reversal (its answer is now failed) or a fee correction (its fee now differs from the fee of its
 * first success answer). Found from the checks themselves, not from what a report version recorded,
 * so rewriting the order's own day never hides it.
 */
export interface ObservedLateChange {
  kind: 'reversal' | 'fee_correction';
  direction: 'payment' | 'payout';
  orderId: string;
  merchantRef: string;
  currency: string;
  /** The balance's change: reversal −(paid − fee) / +(amount + fee) at the last success answer; fee correction first fee − fee now. */
  walletEffect: string;
  /** Business day (in the zone) the order was created on, and the one its success was counted in (finality). */
  createdOn: string;
  countedOn: string;
  /** When a check first saw the change. */
  observedAt: Date;
  /**
   * Whether the roll-forward still counts the order's success in its day (sql/040: provider_success_at is
   * never cleared, so a reversed order stays counted there and its reversal is an event of its own day).
   */
  countedNow: boolean;
}

// Candidates: orders whose newest check left them open (recon_open: it grows with open orders, not
// with history) with a STATUS or FEE finding; then, per order, its success answers (by the order index).
const OBSERVED = `
  WITH cand AS (
    SELECT o.direction, o.order_id, i.provider_category AS now_category, i.provider_fee AS now_fee, i.checked_at AS last_at
      FROM recon_open o JOIN recon_items i ON i.id = o.item_id
     WHERE i.codes && ARRAY['STATUS', 'FEE']::text[] AND i.provider_category IN ('failed', 'success')
       AND (?::text IS NULL OR i.account_id = ?::text)
  ), orders AS (
    SELECT 'payment'::text AS direction, id, merchant_ref, currency, created_at, finalized_at, provider_success_at FROM payment_orders
     WHERE id IN (SELECT order_id FROM cand WHERE direction = 'payment')
    UNION ALL
    SELECT 'payout', id, merchant_ref, currency, created_at, finalized_at, provider_success_at FROM payout_orders
     WHERE id IN (SELECT order_id FROM cand WHERE direction = 'payout')
  )
  SELECT c.direction, c.order_id::text AS order_id, o.merchant_ref, o.currency,
         (o.created_at AT TIME ZONE ?)::date::text AS created_on,
         (coalesce(o.provider_success_at, o.finalized_at, first_ok.checked_at) AT TIME ZONE ?)::date::text AS counted_on,
         (o.provider_success_at IS NOT NULL) AS counted_now,
         CASE WHEN c.now_category = 'failed' THEN 'reversal' ELSE 'fee_correction' END AS kind,
         CASE WHEN c.now_category = 'failed' THEN
                CASE WHEN c.direction = 'payment'
                     THEN -(coalesce(last_ok.provider_paid_amount, last_ok.provider_amount) - coalesce(last_ok.provider_fee, 0))
                     ELSE last_ok.provider_amount + coalesce(last_ok.provider_fee, 0) END
              ELSE coalesce(first_ok.provider_fee, 0) - coalesce(c.now_fee, 0) END::text AS wallet_effect,
         CASE WHEN c.now_category = 'failed' THEN
                (SELECT min(i.checked_at) FROM recon_items i WHERE i.direction = c.direction AND i.order_id = c.order_id
                   AND i.checked_at > last_ok.checked_at AND i.provider_category = 'failed')
              ELSE (SELECT min(i.checked_at) FROM recon_items i WHERE i.direction = c.direction AND i.order_id = c.order_id
                   AND i.checked_at > first_ok.checked_at AND i.provider_category = 'success'
                   AND i.provider_fee IS DISTINCT FROM first_ok.provider_fee) END AS observed_at
    FROM cand c
    JOIN orders o ON o.direction = c.direction AND o.id = c.order_id
    JOIN LATERAL (SELECT checked_at, provider_fee FROM recon_items i WHERE i.direction = c.direction AND i.order_id = c.order_id
                     AND i.provider_category = 'success' ORDER BY i.checked_at, i.id LIMIT 1) first_ok ON true
    JOIN LATERAL (SELECT checked_at, provider_amount, provider_paid_amount, provider_fee FROM recon_items i
                   WHERE i.direction = c.direction AND i.order_id = c.order_id AND i.provider_category = 'success'
                     AND i.checked_at < c.last_at ORDER BY i.checked_at DESC, i.id DESC LIMIT 1) last_ok ON true
   WHERE first_ok.checked_at < c.last_at
     AND (c.now_category = 'failed' OR c.now_fee IS DISTINCT FROM first_ok.provider_fee)
   ORDER BY observed_at, c.direction, c.order_id`;

/** The late changes a check had seen by `upTo`, oldest first; business days in `zone`. */
export async function observedLateChanges(
  db: Knex | Knex.Transaction,
  zone: string,
  upTo: Date,
  /** Only this account's orders (several accounts configured); undefined: every order. */
  account?: string,
): Promise<ObservedLateChange[]> {
  const res = await db.raw(OBSERVED, [account ?? null, account ?? null, zone, zone]);
  return rowsOf(res)
    .map((r) => ({
      kind: oneOf(r, 'kind', ['reversal', 'fee_correction'] as const),
      direction: oneOf(r, 'direction', DIRECTIONS),
      orderId: text(r, 'order_id'),
      merchantRef: text(r, 'merchant_ref'),
      currency: text(r, 'currency'),
      walletEffect: text(r, 'wallet_effect'),
      createdOn: text(r, 'created_on'),
      countedOn: text(r, 'counted_on'),
      observedAt: date(r, 'observed_at'),
      countedNow: bool(r, 'counted_now'),
    }))
    .filter((c) => c.observedAt.getTime() < upTo.getTime());
}
