-- The web console: its users, their sessions, login throttling, and the queue of reruns
-- finance starts from the browser (run one at a time by the console's worker, never in a request).

CREATE TABLE console_users (
  id               bigserial PRIMARY KEY,
  name             text        NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9][a-z0-9._@-]{0,63}$'),
  role             text        NOT NULL CHECK (role IN ('viewer', 'finance', 'admin')),
  -- argon2id PHC string (salt and parameters inside); never the password.
  password_hash    text        NOT NULL,
  disabled_at      timestamptz,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);

-- A session is found by the SHA-256 of its cookie token: a copy of this table logs nobody in.
CREATE TABLE console_sessions (
  id               bigserial PRIMARY KEY,
  token_hash       text        NOT NULL UNIQUE,
  user_id          bigint      NOT NULL REFERENCES console_users (id),
  csrf_token       text        NOT NULL,
  address          text        NOT NULL,
  created_at       timestamptz NOT NULL,
  last_seen_at     timestamptz NOT NULL,
  -- Set at logout, by an admin disabling the user, or on a password change: the session is over.
  ended_at         timestamptz,
  ended_reason     text
);
CREATE INDEX console_sessions_user ON console_sessions (user_id) WHERE ended_at IS NULL;

-- Failed logins, counted per user name and per address over a sliding window.
CREATE TABLE console_login_failures (
  id               bigserial PRIMARY KEY,
  name             text        NOT NULL,
  address          text        NOT NULL,
  at               timestamptz NOT NULL
);
CREATE INDEX console_login_failures_name ON console_login_failures (name, at);
CREATE INDEX console_login_failures_address ON console_login_failures (address, at);

-- Reruns of a business day (reconcile --date, then report) asked for in the console.
CREATE TABLE console_reruns (
  id               bigserial PRIMARY KEY,
  business_date    date        NOT NULL,
  requested_by     bigint      NOT NULL REFERENCES console_users (id),
  requested_at     timestamptz NOT NULL,
  state            text        NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'completed', 'failed')),
  phase            text        CHECK (phase IN ('reconcile', 'report')),
  started_at       timestamptz,
  finished_at      timestamptz,
  heartbeat_at     timestamptz,
  -- The newest job_runs id when the rerun started: its own reconcile runs come after it (progress).
  after_run_id     bigint,
  reconcile_run_ids text[]     NOT NULL DEFAULT '{}',
  report_version   integer,
  error            text
);
CREATE INDEX console_reruns_queued ON console_reruns (requested_at, id) WHERE state = 'queued';

-- What people did in the console outside cases (case transitions are in the cases' own audit
-- rows): logins, logouts, refused logins, reruns asked for, users managed. Append-only.
CREATE TABLE console_actions (
  id               bigserial PRIMARY KEY,
  at               timestamptz NOT NULL,
  actor            text        NOT NULL,
  action           text        NOT NULL,
  target           text,
  address          text,
  detail           jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX console_actions_at ON console_actions (at DESC, id DESC);
CREATE FUNCTION console_actions_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'console_actions is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$fn$;
CREATE TRIGGER console_actions_no_update_delete BEFORE UPDATE OR DELETE ON console_actions
  FOR EACH ROW EXECUTE FUNCTION console_actions_append_only();
CREATE TRIGGER console_actions_no_truncate BEFORE TRUNCATE ON console_actions
  FOR EACH STATEMENT EXECUTE FUNCTION console_actions_append_only();
