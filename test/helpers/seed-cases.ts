import type { Knex } from 'knex';

/**
 * N open cases in two statements (bulk SQL, no provider): case g is about payment g, code FEE,
 * AMOUNT or STATUS in turn, refs ORD-<g, 8 digits>-<md5> and TX<md5>, opened g minutes before `at`
 * (so case 1 is the newest), amounts local 1000+g and provider 1000+g+(g mod 7).
 */
export async function seedOpenCases(knex: Knex, n: number, at: Date): Promise<void> {
  await knex.raw(
    `INSERT INTO cases (subject, code, direction, order_id, merchant_ref, transaction_ref, currency, occurred_at,
                        state, created_at, opened_at, state_changed_at, last_seen_at, finding)
     SELECT 'payment:' || g, (ARRAY['FEE', 'AMOUNT', 'STATUS'])[1 + g % 3], 'payment', g,
            'ORD-' || lpad(g::text, 8, '0') || '-' || md5(g::text), 'TX' || md5('t' || g), (ARRAY['INR', 'NGN', 'IDR'])[1 + g % 3],
            t, 'open', t, t, t, t,
            CASE WHEN g % 3 = 2 THEN jsonb_build_object('local', 'success', 'provider', 'failed', 'note', 'status differs')
                 ELSE jsonb_build_object('local', (1000 + g) || '.00', 'provider', (1000 + g + g % 7) || '.00', 'note', 'seeded') END
       FROM generate_series(1, ?::int) AS g, LATERAL (SELECT ?::timestamptz - g * interval '1 minute' AS t) AS o`,
    [n, at],
  );
  await knex.raw(
    `INSERT INTO case_events (case_id, from_state, to_state, reason, note, actor, at)
     SELECT id, NULL, 'open', NULL, 'finding opened', 'payrecon', opened_at FROM cases c
      WHERE NOT EXISTS (SELECT 1 FROM case_events e WHERE e.case_id = c.id) ORDER BY id`,
  );
}
