-- Lookups of the importers: a message by its host id within its session, so
-- that importing a transcript again adds only the lines that are new.
CREATE INDEX IF NOT EXISTS session_search_messages_by_host_id ON messages(session_key, message_id);

-- Where each imported session came from, for people: its transcript format,
-- the host's own id for it (the one its resume command takes) and the
-- working directory it ran in. Only the importers write it and no SQL
-- function reads it: a session a host created with plain SQL has no row.
CREATE TABLE IF NOT EXISTS session_search_origins(
  session_key TEXT PRIMARY KEY,
  format      TEXT NOT NULL,
  host_id     TEXT NOT NULL,
  cwd         TEXT
) WITHOUT ROWID;

-- Other ids a host gave one session, as `<format>:<id>`: a resumed Codex
-- rollout's file is named with a new id while its lines carry the first
-- session's, under which it is stored. A key typed as such an id names
-- that session (Store::resolve_session_key).
CREATE TABLE IF NOT EXISTS session_search_aliases(
  alias       TEXT PRIMARY KEY,
  session_key TEXT NOT NULL
) WITHOUT ROWID;

-- A deleted session takes its rows along. (An upgrade of the engine's
-- triggers drops this one with them; the next import makes it again.)
CREATE TRIGGER IF NOT EXISTS session_search_origins_forget
AFTER DELETE ON sessions BEGIN
  DELETE FROM session_search_origins WHERE session_key = OLD.session_key;
  DELETE FROM session_search_aliases WHERE session_key = OLD.session_key;
END;
