-- The general ledger's side of the journal (issue 37): what payrecon has handed accounting to post.
-- A ledger is append-only, so this is too: one journal_postings row per posting file written (a
-- report version's journal_posting.csv), and the lines it carried. The next posting file is the
-- truth of now minus what these hold, keyed by entry (entry_key): a day's entry of one kind and
-- currency ("day:2026-01-02:IDR:payouts"), one order's late change ("late:reversal:payment:42"),
-- or any later source of entries (a wallet movement) with a key of its own.
CREATE TABLE journal_postings (
  id              bigserial   PRIMARY KEY,
  -- The order postings were written in: the order to post them in. Unique, so two report writers
  -- that read the same ledger cannot both append (the second fails and is run again).
  seq             integer     NOT NULL UNIQUE,
  business_date   date        NOT NULL,
  version         integer     NOT NULL,
  -- The business day the adjusting entries are dated (the day the file was written, in the zone).
  posted_on       date        NOT NULL,
  created_at      timestamptz NOT NULL,
  UNIQUE (business_date, version)
);

CREATE TABLE journal_posting_lines (
  posting_id      bigint      NOT NULL REFERENCES journal_postings (id),
  line_no         integer     NOT NULL,
  entry_key       text        NOT NULL,
  -- The number the entry was posted under (QuickBooks' Journal No., Xero's Narration): unique across
  -- every posting file, so an adjusting entry never reuses its original's.
  journal_no      text        NOT NULL,
  entry_date      date        NOT NULL,
  kind            text        NOT NULL,
  -- What an adjusting entry adjusts: the day and the version that last posted the key. Null on a
  -- first posting.
  adjusts_date    date,
  adjusts_version integer,
  currency        text        NOT NULL,
  role            text        NOT NULL,
  amount          numeric     NOT NULL,
  description     text        NOT NULL,
  source_ref      text        NOT NULL,
  -- A late change's order and the business day its order was counted in (its finality), so a rerun
  -- of that day keeps the change out of the day's own figures even once no check shows it any more.
  order_direction text,
  order_id        bigint,
  counted_on      date,
  observed_at     timestamptz,
  PRIMARY KEY (posting_id, line_no)
);
CREATE INDEX journal_posting_lines_key ON journal_posting_lines (entry_key);
CREATE INDEX journal_posting_lines_counted ON journal_posting_lines (counted_on) WHERE counted_on IS NOT NULL;

-- Append-only: a posted line is never edited or removed (a correction is a new posting).
CREATE FUNCTION journal_postings_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'journal postings are append-only: % on % refused (post an adjusting entry instead)', TG_OP, TG_TABLE_NAME;
END
$fn$;
CREATE TRIGGER journal_postings_append_only BEFORE UPDATE OR DELETE ON journal_postings
  FOR EACH ROW EXECUTE FUNCTION journal_postings_append_only();
CREATE TRIGGER journal_posting_lines_append_only BEFORE UPDATE OR DELETE ON journal_posting_lines
  FOR EACH ROW EXECUTE FUNCTION journal_postings_append_only();
