-- Report versions on disk have a retention too (issue 30): `payrecon prune` removes (or archives) the
-- directory of a superseded version older than RETENTION_DAYS, and its report_version_orders rows with
-- it. The report_versions row stays as the record of what happened, so the console and `report --resend`
-- can say "version N of DAY was removed by retention on DATE" (or where it was archived) instead of
-- failing on a missing directory.
ALTER TABLE report_versions ADD COLUMN removed_at timestamptz;
-- The archive file (zip) the version was written to before its removal; null when not archived.
ALTER TABLE report_versions ADD COLUMN archived_to text;
ALTER TABLE report_versions ADD CONSTRAINT report_versions_archived_removed CHECK (archived_to IS NULL OR removed_at IS NOT NULL);
