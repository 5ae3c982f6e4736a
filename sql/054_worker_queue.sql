-- Work fanned out on graphile-worker (issue 41). The queue itself lives in graphile-worker's own schema
-- (<DATABASE_SCHEMA>_worker, installed by its own migrator); these tables are payrecon's side of it.

-- One row per scheduled occurrence planned onto the queue: two schedulers ticking the same minute (or a
-- catch-up racing a tick) insert the same key, and only the one that inserted it enqueues.
CREATE TABLE queued_work (
  account     text        NOT NULL DEFAULT 'default',
  job         text        NOT NULL,
  due_key     text        NOT NULL,
  run_id      bigint      REFERENCES job_runs (id) ON DELETE SET NULL,
  enqueued_at timestamptz NOT NULL,
  PRIMARY KEY (account, job, due_key)
);

-- A queued reconcile run cut into batches. A batch is written (its checks, and done_at) in one transaction,
-- and only by the worker holding its latest claim: a worker presumed dead whose batch was handed on can no
-- longer write it, so no order's check is written by two workers.
CREATE TABLE run_batches (
  run_id      bigint      NOT NULL REFERENCES job_runs (id) ON DELETE CASCADE,
  batch       integer     NOT NULL,
  account     text        NOT NULL DEFAULT 'default',
  direction   text        NOT NULL CHECK (direction IN ('payment', 'payout')),
  size        integer     NOT NULL,
  attempts    integer     NOT NULL DEFAULT 0,
  claimed_by  text,
  claimed_at  timestamptz,
  done_at     timestamptz,
  done_by     text,
  PRIMARY KEY (run_id, batch)
);
CREATE INDEX run_batches_open ON run_batches (run_id) WHERE done_at IS NULL;

-- Each `payrecon worker` process beats here. One silent past WORKER_LOCK_TIMEOUT_SECONDS is presumed dead:
-- a live worker removes its row and unlocks the jobs its graphile workers held, so they run again elsewhere.
CREATE TABLE worker_heartbeats (
  instance    text        PRIMARY KEY,
  host        text        NOT NULL,
  pid         integer     NOT NULL,
  worker_ids  text[]      NOT NULL DEFAULT '{}',
  started_at  timestamptz NOT NULL,
  seen_at     timestamptz NOT NULL
);
