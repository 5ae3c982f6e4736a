-- Report versions with their e-mail delivery, and alerts with theirs.

CREATE TABLE report_versions (
  id               bigserial PRIMARY KEY,
  business_date    date        NOT NULL,
  version          integer     NOT NULL,
  directory        text        NOT NULL,
  manifest         jsonb       NOT NULL,
  content_hash     text        NOT NULL,
  created_at       timestamptz NOT NULL,
  -- E-mail delivery: none (not asked), pending, sent.
  email_status     text        NOT NULL DEFAULT 'none' CHECK (email_status IN ('none', 'pending', 'sent')),
  email_attempts   integer     NOT NULL DEFAULT 0,
  email_error      text,
  emailed_at       timestamptz,
  UNIQUE (business_date, version)
);

CREATE TABLE alerts (
  id               bigserial PRIMARY KEY,
  fingerprint      text        NOT NULL,
  kind             text        NOT NULL,
  run_id           bigint      REFERENCES recon_runs (id),
  title            text        NOT NULL,
  payload          jsonb       NOT NULL,
  created_at       timestamptz NOT NULL,
  -- Delivery: pending until every configured channel took it.
  status           text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'suppressed')),
  attempts         integer     NOT NULL DEFAULT 0,
  last_error       text,
  next_attempt_at  timestamptz,
  sent_at          timestamptz,
  resolved_at      timestamptz
);
CREATE INDEX alerts_fingerprint ON alerts (fingerprint, created_at DESC);
CREATE INDEX alerts_pending ON alerts (next_attempt_at) WHERE status = 'pending';
