import type { Db } from '../../src/db/connect.ts';

/**
 * D days of history before `dayStart` (UTC midnight of the measured day), N orders a day, in bulk SQL
 * (generate_series INSERT … SELECT, ten days a statement): final orders checked five times (four
 * superseded checks, then matched; 1% mismatch with a case, resolved after a week), a webhook
 * notification per payment, a daily alert (resolved), a report version per day recording every order,
 * hourly balance and rate snapshots of three currencies, and the runs behind them.
 */
export async function seedHistory(
  db: Db,
  opts: { days: number; perDay: number; dayStart: Date; now: Date; log: (m: string) => void },
): Promise<void> {
  const { days, perDay } = opts;
  const k = db.knex;
  const base = opts.dayStart.toISOString();
  for (let from = days; from >= 1; from -= 10) {
    const to = Math.max(1, from - 9);
    // Days [to, from] before the measured day; d = days back.
    const span = [from, to, base];
    await k.raw(
      `INSERT INTO job_runs (job, status, started_at, heartbeat_at, finished_at, params)
       SELECT j, 'completed', t, t, t + interval '1 minute', jsonb_build_object('date', (t - interval '1 day')::date::text, 'h', d * 10 + c)
         FROM generate_series(?::int, ?::int, -1) d, generate_series(1, 6) c,
              LATERAL (SELECT ?::timestamptz - d * interval '1 day' + c * interval '3 hours' AS t, CASE WHEN c = 6 THEN 'daily' ELSE 'reconcile' END AS j) x`,
      span,
    );
    for (const [table, dir] of [
      ['payment_orders', 'payment'],
      ['payout_orders', 'payout'],
    ] as const) {
      const payout = dir === 'payout';
      await k.raw(
        `INSERT INTO ${table} (merchant_ref, transaction_ref, currency, method, amount, ${payout ? 'bank_code, utr,' : 'paid_amount,'} fee, status, status_category,
                               created_at, updated_at, finalized_at, last_checked_at, check_count)
         SELECT 'h${dir[1]}-' || d || '-' || i, 'ht${dir[1]}-' || d || '-' || i, (ARRAY['INR','NGN','IDR'])[1 + i % 3], 'BANK',
                (1000 + i % 9000)::numeric / 100, ${payout ? `'HDFC', 'UTR' || i,` : '(1000 + i % 9000)::numeric / 100,'} 1.25,
                CASE WHEN i % 20 = 0 THEN 'Failed' ELSE 'Success' END, CASE WHEN i % 20 = 0 THEN 'failed' ELSE 'success' END,
                t, t, t + interval '2 minutes',
                -- The weekly re-check of final orders (RECON_FINAL_RECHECK_DAYS) in its steady state: each
                -- was last asked within the past six days, spread, so no backlog is due during the bench
                -- (a backlog of every lookback order would be re-checked by the first sweep and left mismatched).
                greatest(t + interval '4 hours', ?::timestamptz - interval '6 days' + (i::bigint * 432000 / ?::int) * interval '1 second'), 5
           FROM generate_series(?::int, ?::int, -1) d, generate_series(1, ?::int) i,
                LATERAL (SELECT ?::timestamptz - d * interval '1 day' + (i * 86400 / ?::int) * interval '1 second' AS t) x
          WHERE (i % 2 = 0) = ${payout ? 'false' : 'true'}`,
        [opts.now.toISOString(), perDay, from, to, perDay, base, perDay],
      );
      // Five checks per order, each by one of the day's reconcile runs; the fifth is the latest.
      await k.raw(
        `INSERT INTO recon_items (run_id, direction, order_id, merchant_ref, transaction_ref, currency, method, checked_at,
                                  local_status, local_category, local_amount, provider_status, provider_category, provider_amount,
                                  verdict, codes, reason)
         SELECT r.id, '${dir}', o.id, o.merchant_ref, o.transaction_ref, o.currency, o.method, o.created_at + c * interval '45 minutes',
                o.status, o.status_category, o.amount, o.status, o.status_category, o.amount,
                CASE WHEN c < 5 THEN 'pending' WHEN o.id % 100 = 0 THEN 'mismatch' ELSE 'matched' END,
                CASE WHEN c = 5 AND o.id % 100 = 0 THEN '{AMOUNT}'::text[] ELSE '{}' END, ''
           FROM ${table} o
           CROSS JOIN generate_series(1, 5) c
           JOIN LATERAL (
             SELECT j.id FROM job_runs j WHERE j.job = 'reconcile' AND j.started_at >= date_trunc('day', o.created_at)
              ORDER BY j.started_at LIMIT 1 OFFSET c - 1) r ON true
          WHERE o.created_at >= ?::timestamptz - ?::int * interval '1 day' AND o.created_at < ?::timestamptz - (?::int - 1) * interval '1 day'
            AND o.merchant_ref LIKE 'h%'`,
        [base, from, base, to],
      );
      await k.raw(
        `INSERT INTO cases (subject, code, direction, order_id, merchant_ref, transaction_ref, currency, occurred_at, state, resolution,
                            created_at, opened_at, state_changed_at, last_seen_at, finding)
         SELECT '${dir}:' || o.id, 'AMOUNT', '${dir}', o.id, o.merchant_ref, o.transaction_ref, o.currency, o.created_at,
                CASE WHEN o.created_at < ?::timestamptz - interval '7 days' THEN 'resolved' ELSE 'open' END,
                CASE WHEN o.created_at < ?::timestamptz - interval '7 days' THEN 'written-off' END,
                o.last_checked_at, o.last_checked_at, o.last_checked_at + interval '2 days', o.last_checked_at,
                jsonb_build_object('local', o.amount::text, 'provider', (o.amount + 1)::text, 'note', 'amount differs')
           FROM ${table} o
          WHERE o.id % 100 = 0 AND o.merchant_ref LIKE 'h%'
            AND o.created_at >= ?::timestamptz - ?::int * interval '1 day' AND o.created_at < ?::timestamptz - (?::int - 1) * interval '1 day'`,
        [base, base, base, from, base, to],
      );
      if (!payout) {
        await k.raw(
          `INSERT INTO webhook_events (direction, dedupe_key, transaction_ref, merchant_ref, currency, method, amount, paid_amount, fee, status,
                                       raw_body, headers, received_at, confirmation, confirmed_at)
           SELECT 'payment', 'h:' || o.transaction_ref, o.transaction_ref, o.merchant_ref, o.currency, o.method, o.amount, o.paid_amount, o.fee, o.status,
                  json_build_object('merchantRef', o.merchant_ref, 'transactionRef', o.transaction_ref, 'amount', o.amount::text,
                                    'status', o.status, 'currency', o.currency, 'pad', repeat('x', 200))::text,
                  '{"content-type":"application/json","signature":"0123456789abcdef0123456789abcdef"}', o.finalized_at, 'confirmed', o.finalized_at
             FROM payment_orders o
            WHERE o.merchant_ref LIKE 'h%'
              AND o.created_at >= ?::timestamptz - ?::int * interval '1 day' AND o.created_at < ?::timestamptz - (?::int - 1) * interval '1 day'`,
          [base, from, base, to],
        );
      }
    }
    await k.raw(
      `INSERT INTO case_events (case_id, from_state, to_state, reason, actor, at)
       SELECT c.id, NULL, 'open', NULL, 'reconcile', c.opened_at FROM cases c
        WHERE c.opened_at >= ?::timestamptz - ?::int * interval '1 day' AND c.opened_at < ?::timestamptz - (?::int - 1) * interval '1 day' + interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM case_events e WHERE e.case_id = c.id)
       UNION ALL
       SELECT c.id, 'open', 'resolved', 'written-off', 'console:bench', c.state_changed_at FROM cases c
        WHERE c.state = 'resolved'
          AND c.opened_at >= ?::timestamptz - ?::int * interval '1 day' AND c.opened_at < ?::timestamptz - (?::int - 1) * interval '1 day' + interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM case_events e WHERE e.case_id = c.id)`,
      [base, from, base, to, base, from, base, to],
    );
    await k.raw(
      `INSERT INTO alerts (fingerprint, kind, title, payload, created_at, status, sent_at, resolved_at)
       SELECT 'mismatches:' || d, 'mismatches', 'mismatches on day -' || d, '{}', t, 'sent', t, t + interval '1 day'
         FROM generate_series(?::int, ?::int, -1) d, LATERAL (SELECT ?::timestamptz - d * interval '1 day' + interval '6 hours' AS t) x`,
      span,
    );
    await k.raw(
      `INSERT INTO report_versions (business_date, version, directory, manifest, content_hash, business_hash, created_at, orders_recorded, email_status)
       SELECT (?::timestamptz - d * interval '1 day')::date, 1, '/reports/' || d, '{}', md5(d::text), md5(d::text),
              ?::timestamptz - (d - 1) * interval '1 day' + interval '6 hours', true, 'sent'
         FROM generate_series(?::int, ?::int, -1) d`,
      [base, base, from, to],
    );
    for (const [table, dir] of [
      ['payment_orders', 'payment'],
      ['payout_orders', 'payout'],
    ] as const) {
      await k.raw(
        `INSERT INTO report_version_orders (version_id, direction, order_id, verdict, codes)
         SELECT v.id, '${dir}', o.id, CASE WHEN o.id % 100 = 0 THEN 'mismatch' ELSE 'matched' END,
                CASE WHEN o.id % 100 = 0 THEN '{AMOUNT}'::text[] ELSE '{}' END
           FROM report_versions v JOIN ${table} o
             ON o.created_at >= v.business_date::timestamptz AND o.created_at < v.business_date::timestamptz + interval '1 day'
          WHERE v.business_date >= (?::timestamptz - ?::int * interval '1 day')::date AND v.business_date <= (?::timestamptz - ?::int * interval '1 day')::date
            AND o.merchant_ref LIKE 'h%'`,
        [base, from, base, to],
      );
    }
    for (const table of ['balance_snapshots', 'rate_snapshots']) {
      const cols =
        table === 'balance_snapshots'
          ? ['currency, available, pending, held, credit, taken_at', 'cur, 1000000 + h, 5000, 100, 0, t']
          : ['currency, deposit, withdraw, taken_at', 'cur, 83.10 + (h % 7)::numeric / 100, 83.40, t'];
      await k.raw(
        `INSERT INTO ${table} (${cols[0]})
         SELECT ${cols[1]} FROM generate_series(?::int, ?::int, -1) d, generate_series(0, 23) h, unnest(ARRAY['INR','NGN','IDR']) cur,
                LATERAL (SELECT ?::timestamptz - d * interval '1 day' + h * interval '1 hour' AS t) x`,
        span,
      );
    }
    opts.log(`seeded days -${from} .. -${to}`);
  }
  await k.raw('ANALYZE');
}
