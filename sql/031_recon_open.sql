-- A year of history (issue 30): the report's open items and late changes found their candidate
-- orders through recon_items_open, which holds every pending/mismatch/error check, superseded ones
-- included (four of five checks of a typical order), so a 30-day lookback read ~600k index entries
-- to find ~1,500 open orders. recon_open holds one row per order whose newest check left it open:
-- it grows with open orders, not with history.
--
-- A superset is enough (the report's latest-check join decides): a row outlives its order's
-- checks only if those are deleted, and a late-arriving older open check may re-add a row.
CREATE TABLE recon_open (
  direction   text        NOT NULL CHECK (direction IN ('payment', 'payout')),
  order_id    bigint      NOT NULL,
  -- The newest open check seen: the report's lookback filters on it.
  checked_at  timestamptz NOT NULL,
  item_id     bigint      NOT NULL,
  PRIMARY KEY (direction, order_id)
);
CREATE INDEX recon_open_checked ON recon_open (direction, checked_at);

-- Maintained by the database on every insert of checks, so every writer (the batch, reruns, a
-- merchant's own tooling) keeps it right. Once per statement over its inserted rows: one upsert and
-- one delete per batch, not per row.
CREATE FUNCTION recon_open_maintain() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  WITH newest AS (
    SELECT DISTINCT ON (direction, order_id) direction, order_id, checked_at, id, verdict
      FROM recon_new
     ORDER BY direction, order_id, checked_at DESC, id DESC
  ), opened AS (
    -- Sorted, so concurrent runs lock the same keys in the same order.
    INSERT INTO recon_open (direction, order_id, checked_at, item_id)
    SELECT direction, order_id, checked_at, id FROM newest WHERE verdict IN ('pending', 'mismatch', 'error')
     ORDER BY direction, order_id
    ON CONFLICT (direction, order_id) DO UPDATE SET checked_at = excluded.checked_at, item_id = excluded.item_id
     WHERE (excluded.checked_at, excluded.item_id) > (recon_open.checked_at, recon_open.item_id)
  )
  -- A newer check that closed the order removes it.
  DELETE FROM recon_open o USING newest n
   WHERE n.verdict NOT IN ('pending', 'mismatch', 'error')
     AND o.direction = n.direction AND o.order_id = n.order_id
     AND (n.checked_at, n.id) > (o.checked_at, o.item_id);
  RETURN NULL;
END
$fn$;
CREATE TRIGGER recon_items_open_maintain AFTER INSERT ON recon_items
  REFERENCING NEW TABLE AS recon_new FOR EACH STATEMENT EXECUTE FUNCTION recon_open_maintain();

-- Existing history: each order's newest check, kept when it left the order open.
INSERT INTO recon_open (direction, order_id, checked_at, item_id)
SELECT direction, order_id, checked_at, id
  FROM (SELECT DISTINCT ON (direction, order_id) direction, order_id, checked_at, id, verdict
          FROM recon_items ORDER BY direction, order_id, checked_at DESC, id DESC) latest
 WHERE verdict IN ('pending', 'mismatch', 'error');

-- Its only reader was the candidate set above; every check insert paid for it.
DROP INDEX recon_items_open;
