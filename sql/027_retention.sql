-- `payrecon prune` (retention) and a year of history.
-- Which recorded report versions list an order: prune keeps the check each of them was built from,
-- and asks this per superseded check (the primary key leads with version_id, so without this index
-- every question read the whole table).
CREATE INDEX report_version_orders_order ON report_version_orders (direction, order_id);

-- Deleting a job run checks every table that refers to it; without an index on run_id each check read
-- the whole table (alerts, snapshots and balance checks grow by the hour).
CREATE INDEX alerts_run ON alerts (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX balance_snapshots_run ON balance_snapshots (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX rate_snapshots_run ON rate_snapshots (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX balance_checks_run ON balance_checks (run_id) WHERE run_id IS NOT NULL;

-- The old end of each pruned table, read in id batches of a few thousand rows.
CREATE INDEX job_runs_finished ON job_runs (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX webhook_events_received ON webhook_events (received_at);
CREATE INDEX alerts_resolved ON alerts (resolved_at) WHERE resolved_at IS NOT NULL;
CREATE INDEX console_sessions_seen ON console_sessions (coalesce(ended_at, last_seen_at));
CREATE INDEX console_login_failures_at ON console_login_failures (at);
