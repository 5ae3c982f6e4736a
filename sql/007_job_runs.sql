-- recon_runs holds every job's runs (reconcile, snapshot, report, bank sync, daily, webhook
-- confirmations), not only reconciliations: the name now says so. Foreign keys follow the rename.
ALTER TABLE recon_runs RENAME TO job_runs;
ALTER INDEX recon_runs_job RENAME TO job_runs_job;
ALTER SEQUENCE recon_runs_id_seq RENAME TO job_runs_id_seq;
