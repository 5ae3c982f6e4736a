-- The exceptions queue at volume (issue 28): who works a case, notes without a state change, search
-- by a ref's leading piece, and keyset paging by age or by amount at risk, fast at any depth.

-- The console user working the case; null: nobody. A user is never deleted (only disabled), so the
-- reference holds.
ALTER TABLE cases ADD COLUMN assignee text REFERENCES console_users (name);

-- What a finding puts at stake: |local - provider| when both are amounts (AMOUNT, FEE, PAID_AMOUNT);
-- null otherwise (a status, a missing side). Stored so the queue sorts on an index.
ALTER TABLE cases ADD COLUMN at_risk numeric GENERATED ALWAYS AS (
  CASE WHEN finding ->> 'local' ~ '^-?[0-9]{1,30}(\.[0-9]{1,18})?$' AND finding ->> 'provider' ~ '^-?[0-9]{1,30}(\.[0-9]{1,18})?$'
       THEN abs((finding ->> 'local')::numeric - (finding ->> 'provider')::numeric) END
) STORED;

-- An audit row is a transition, a comment (state unchanged) or an assignment (state unchanged).
ALTER TABLE case_events ADD COLUMN kind text NOT NULL DEFAULT 'transition' CHECK (kind IN ('transition', 'comment', 'assign'));

-- Ref search: a leading piece, any case (LIKE 'piece%' on lower(ref) uses text_pattern_ops).
CREATE INDEX cases_merchant_ref_prefix ON cases (lower(merchant_ref) text_pattern_ops);
CREATE INDEX cases_transaction_ref_prefix ON cases (lower(transaction_ref) text_pattern_ops);

-- The unresolved queue's two orders, keyset-paged: oldest opened first, largest at risk first.
CREATE INDEX cases_queue_age ON cases (opened_at, id) WHERE state IN ('open', 'acknowledged');
CREATE INDEX cases_queue_risk ON cases ((coalesce(at_risk, -1)), id) WHERE state IN ('open', 'acknowledged');
CREATE INDEX cases_assignee ON cases (assignee, opened_at, id) WHERE assignee IS NOT NULL;
