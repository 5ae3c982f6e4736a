-- Who this database is: a random id made once, at migration. A report folder's marker
-- (REPORT_DIR/.payrecon-database.json) names it, so a second database writing the same folder is
-- refused instead of interleaving its version numbers with the first one's.
CREATE TABLE installation (
  singleton        boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
  id               uuid        NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now()
);
INSERT INTO installation (id) VALUES (gen_random_uuid());
