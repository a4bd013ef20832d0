-- The public tables of session-search (docs/sql.md, "Schema and write path"): the contract hosts write
-- to with plain SQL. Run by sessions_init(); every statement is idempotent.

CREATE TABLE IF NOT EXISTS sessions(
  session_key TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  spawned_by  TEXT,
  created_at  INTEGER NOT NULL,
  leaf_id     INTEGER
);

CREATE TABLE IF NOT EXISTS messages(
  id          INTEGER PRIMARY KEY,
  session_key TEXT NOT NULL,
  parent_id   INTEGER,
  role        TEXT NOT NULL,
  content     TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  message_id  TEXT
);

-- A session's messages in order; created_at makes it covering for the last
-- activity and message count of sessions_list.
CREATE INDEX IF NOT EXISTS session_search_messages_by_session ON messages(session_key, id, created_at);
-- Covering indexes for the visibility walks of visible.sql and the scopes.
CREATE INDEX IF NOT EXISTS session_search_sessions_by_spawner ON sessions(spawned_by, session_key);
CREATE INDEX IF NOT EXISTS session_search_sessions_by_agent_key ON sessions(agent_id, session_key);
