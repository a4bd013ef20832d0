-- session-search internal schema, version 1. Run by sessions_init() after
-- tables.sql, in one transaction; every statement is idempotent. Internal
-- objects are prefixed session_search_ and may change between versions.

-- Settings and versions: schema_version, tokenizer_version, generation (the
-- index generation: a node is in the index iff its indexed_gen equals it),
-- indexing ('immediate' or 'deferred').
CREATE TABLE IF NOT EXISTS session_search_meta(
  key   TEXT PRIMARY KEY,
  value ANY
) WITHOUT ROWID;

INSERT OR IGNORE INTO session_search_meta(key, value) VALUES
  ('generation', 1),
  ('indexing', 'immediate');

-- One node per message: its resolved parent (messages.parent_id, or the leaf
-- it was appended after), whether it lies on its session's active branch,
-- whether it has searchable text, and the index generation it was indexed in.
CREATE TABLE IF NOT EXISTS session_search_nodes(
  id          INTEGER PRIMARY KEY,
  parent      INTEGER,
  on_branch   INTEGER NOT NULL DEFAULT 0,
  indexable   INTEGER NOT NULL DEFAULT 0,
  indexed_gen INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX IF NOT EXISTS session_search_nodes_by_parent ON session_search_nodes(parent);

-- Nodes whose text belongs in the index; those with an old indexed_gen are
-- the reconciliation backlog.
CREATE INDEX IF NOT EXISTS session_search_nodes_to_index
  ON session_search_nodes(indexed_gen, id) WHERE on_branch = 1 AND indexable = 1;

-- Scratch space of session_search_leaf_move: the nodes joining (joins = 1)
-- or leaving (joins = 0) the active branch. Always empty between statements.
CREATE TABLE IF NOT EXISTS session_search_moves(
  id    INTEGER PRIMARY KEY,
  joins INTEGER NOT NULL
);

-- The text of every message that is in the index, as it was indexed. It is
-- the FTS5 table's content, read back only for highlight() and snippet().
CREATE VIEW IF NOT EXISTS session_search_text(id, text) AS
  SELECT m.id, sessions_text(m.content)
  FROM messages m JOIN session_search_nodes n ON n.id = m.id
  WHERE n.indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation');

CREATE VIRTUAL TABLE IF NOT EXISTS session_search_fts USING fts5(
  text,
  content = 'session_search_text',
  content_rowid = 'id',
  tokenize = 'sessions cjk 1'
);
