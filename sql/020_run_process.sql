-- Which process runs each job run, so a run that holds its job's lock but makes no progress (a network
-- partition, a hung process) can be named for a person to act on: "run 42 (pid 811 on worker-1)".
-- heartbeat_at stays the run's last progress: set at its start, with each batch written, and when resumed.
ALTER TABLE job_runs ADD COLUMN pid integer;
ALTER TABLE job_runs ADD COLUMN host text;
