-- A version's folder relative to REPORT_DIR (issue 35 #2): `payrecon prune` resolves it under the
-- REPORT_DIR of the process that prunes, never the absolute path a version was written to, which a
-- copy of the database (staging restored from production) or a moved REPORT_DIR would point at another
-- installation's folder. Generated from the row itself, so existing rows have it and every writer fills it.
-- Built with extract (immutable) rather than a date-to-text cast, whose output follows DateStyle.
ALTER TABLE report_versions ADD COLUMN relative_dir text GENERATED ALWAYS AS (
  lpad(extract(year FROM business_date)::int::text, 4, '0') || '-' ||
  lpad(extract(month FROM business_date)::int::text, 2, '0') || '-' ||
  lpad(extract(day FROM business_date)::int::text, 2, '0') || '/v' || version::text
) STORED;
