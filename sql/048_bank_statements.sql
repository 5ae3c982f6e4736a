-- Bank statements (issue 38): the bank's side of withdrawals to and top-ups from a bank account,
-- imported from CAMT.053 or the documented CSV, and matched one-to-one to movements.
CREATE TABLE statement_lines (
  id            bigserial   PRIMARY KEY,
  -- The bank account (IBAN or the bank's own id) and the bank's id of the line within it: importing a
  -- statement twice adds nothing.
  bank_account  text        NOT NULL,
  line_id       text        NOT NULL,
  booked_on     date        NOT NULL,
  value_on      date,
  currency      text        NOT NULL,
  -- As the bank sees its account: credit = money arrived (a withdrawal from the wallet), debit = left (a top-up).
  direction     text        NOT NULL CHECK (direction IN ('credit', 'debit')),
  amount        numeric     NOT NULL CHECK (amount > 0),
  -- The end-to-end references and remittance text the line carries (a batched line carries several).
  refs          text[]      NOT NULL DEFAULT '{}',
  description   text        NOT NULL DEFAULT '',
  source        text        NOT NULL,
  imported_at   timestamptz NOT NULL,
  UNIQUE (bank_account, line_id)
);

-- Which movement a statement line settled. A movement is settled by one line at most (unique); a line
-- settles one movement (one_to_one, unique below) or, only on an exact sum, several (many_to_one).
CREATE TABLE statement_matches (
  id                 bigserial   PRIMARY KEY,
  statement_line_id  bigint      NOT NULL REFERENCES statement_lines (id),
  movement_id        bigint      NOT NULL UNIQUE REFERENCES movements (id),
  kind               text        NOT NULL CHECK (kind IN ('one_to_one', 'many_to_one')),
  -- line amount − movement amount (bank charges within BANK_CHARGE_TOLERANCE); 0 for many_to_one.
  difference         numeric     NOT NULL,
  matched_at         timestamptz NOT NULL
);
CREATE UNIQUE INDEX statement_matches_one_line ON statement_matches (statement_line_id) WHERE kind = 'one_to_one';
CREATE INDEX statement_matches_line ON statement_matches (statement_line_id);
