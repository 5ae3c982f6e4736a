-- Every verified notification received from the provider, stored before it is acknowledged.

CREATE TABLE webhook_events (
  id                bigserial PRIMARY KEY,
  direction         text        NOT NULL CHECK (direction IN ('payment', 'payout')),
  -- Identical retries of one notification share this key and are stored once.
  dedupe_key        text        NOT NULL UNIQUE,
  transaction_ref   text,
  merchant_ref      text,
  currency          text,
  method            text,
  amount            numeric,
  paid_amount       numeric,
  fee               numeric,
  status            text,
  raw_body          text        NOT NULL,
  headers           jsonb       NOT NULL,
  received_at       timestamptz NOT NULL,
  deliveries        integer     NOT NULL DEFAULT 1,
  -- Confirmation by fetch: pending, confirmed, conflict, error.
  confirmation      text        NOT NULL DEFAULT 'pending' CHECK (confirmation IN ('pending', 'confirmed', 'conflict', 'error')),
  confirmed_at      timestamptz,
  confirmation_note text
);
CREATE INDEX webhook_events_ref ON webhook_events (transaction_ref);
CREATE INDEX webhook_events_pending ON webhook_events (received_at) WHERE confirmation = 'pending';
