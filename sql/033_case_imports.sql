-- The queue's spreadsheet round trip (issue 28): an uploaded export's plan, shown to the person as a
-- preview and kept here until they confirm it, so the confirm applies exactly what was shown (from
-- any console process) and applies it once.
CREATE TABLE case_imports (
  -- Random, and useful only with the signed-in session of its user and that session's CSRF token.
  token       text        PRIMARY KEY,
  user_name   text        NOT NULL,
  file_name   text        NOT NULL,
  created_at  timestamptz NOT NULL,
  -- Set by the confirm, before the cases are written: a second confirm (a double click) finds it taken.
  applied_at  timestamptz,
  -- The rows to resolve (case id, version exported, reason, note) and the rows refused with why.
  plan        jsonb       NOT NULL
);
-- Old previews are deleted at the next upload.
CREATE INDEX case_imports_created ON case_imports (created_at);
