-- session-search internal schema. Run by sessions_init() after
-- tables.sql, in one transaction; every statement is idempotent. Internal
-- objects are prefixed session_search_ and may change between versions.

-- Settings and versions: schema_version, tokenizer_version, generation (the
-- index generation: a node is in the index iff its indexed_gen equals it),
-- indexing ('immediate' or 'deferred'), redaction (JSON: the version of the
-- default redaction patterns the index was built with and the host's
-- patterns; every index write redacts with exactly these, see
-- sessions_text).
CREATE TABLE IF NOT EXISTS session_search_meta(
  key   TEXT PRIMARY KEY,
  value ANY
) WITHOUT ROWID;

INSERT OR IGNORE INTO session_search_meta(key, value) VALUES
  ('generation', 1),
  ('indexing', 'immediate');

-- One node per message: its resolved parent (messages.parent_id, or the leaf
-- it was appended after), whether it lies on its session's active branch,
-- whether it has searchable text, and the index generation it was indexed
-- in: the current one, or 0 (not in the index). A new generation leaves the
-- old values, which count as not indexed, below the bound reset_below in
-- session_search_meta; reconciliation sets them to 0, newest node first.
CREATE TABLE IF NOT EXISTS session_search_nodes(
  id          INTEGER PRIMARY KEY,
  parent      INTEGER,
  on_branch   INTEGER NOT NULL DEFAULT 0,
  indexable   INTEGER NOT NULL DEFAULT 0,
  indexed_gen INTEGER NOT NULL DEFAULT 0
);

-- The reconciliation backlog: nodes whose text belongs in the index and is
-- not in it. Only the backlog is in this index, not every indexed node, so
-- an append indexed at once does not write it; reconciliation reads it
-- backwards (newest message first), so a slice reads only the rows it
-- indexes instead of sorting the whole backlog.
CREATE INDEX IF NOT EXISTS session_search_backlog
  ON session_search_nodes(id) WHERE on_branch = 1 AND indexable = 1 AND indexed_gen = 0;

-- For `order: recent` (sql/recent_complete.sql): per block of 256 message
-- ids (id >> 8) below the newest message's block, the newest created_at
-- ever written into it (the newest block's row, if any, may be behind). A
-- deleted message leaves its time behind, which can only make a search
-- read more matches, never miss one. Filled here for messages written
-- before the table existed; the triggers keep it up to date.
CREATE TABLE IF NOT EXISTS session_search_time_blocks(
  block  INTEGER PRIMARY KEY,
  newest NOT NULL
);

CREATE INDEX IF NOT EXISTS session_search_time_blocks_by_newest
  ON session_search_time_blocks(newest, block);

INSERT OR IGNORE INTO session_search_time_blocks(block, newest)
SELECT id >> 8, max(created_at) FROM messages GROUP BY id >> 8;

-- Scratch space of session_search_leaf_move: the nodes joining (joins = 1)
-- or leaving (joins = 0) the active branch. Always empty between statements.
CREATE TABLE IF NOT EXISTS session_search_moves(
  id    INTEGER PRIMARY KEY,
  joins INTEGER NOT NULL
);

-- The scope of each session: the words a search adds to its FTS5 query so
-- that the index itself skips messages the caller cannot see. 'a' and the
-- hex of the session's agent_id, then 't' and the hex of each key of its
-- spawned_by chain (itself included) at most 3 levels below the chain's
-- top, so a message carries at most 5 scope words however deep its session
-- is. The top is the last key of the chain: a session with no spawned_by,
-- or a key that spawned_by names and no session has (yet). A chain that
-- has not ended after 1000 steps (a spawned_by cycle, or a chain that long)
-- has no top: its sessions carry the word 'tz' instead (hex() spells no z,
-- so no key's word is 'tz'), 2 words in all. A `tree` or `self` search for X
-- asks for 't' || hex(X) when X is at most 3 levels deep, else for the word
-- of its ancestor 3 levels deep, and for 'tz' when X's chain has no top
-- (sql/scope_word.sql); an `agent` search asks for 'a' || hex(agent). The tokens only narrow what
-- FTS5 reads: visible.sql still decides what is visible, so a wider word (a
-- deep caller's ancestor, 'tz') or a stale one (a session deleted above) can cost
-- time, never leak text. The scope starts with U+E001, on which the
-- tokenizer indexes its words at one position (see `SCOPE_MARKER` in
-- engine/src/index_tokens/encoding.rs): every message's scope column is then one token long whatever its depth,
-- so BM25 (FTS5's own bm25() and sessions_rank alike) counts a message's
-- length as its text's plus one, the same for every session.
CREATE TABLE IF NOT EXISTS session_search_scopes(
  session_key TEXT PRIMARY KEY,
  scope       TEXT NOT NULL
) WITHOUT ROWID;

-- The scope every session should have, from the sessions table as it is
-- now. The walk up spawned_by numbers its steps; the top is its last key,
-- and a walk that has not ended after 1000 steps has none.
CREATE VIEW IF NOT EXISTS session_search_scope_of(session_key, scope) AS
  SELECT s.session_key,
         char(57345) || 'a' || lower(hex(s.agent_id)) || ' ' || (
           WITH RECURSIVE up(key, n) AS (
             SELECT s.session_key, 0
             UNION ALL
             SELECT p.spawned_by, up.n + 1 FROM sessions p JOIN up ON p.session_key = up.key
             WHERE p.spawned_by IS NOT NULL AND up.n < 1000),
           top(n) AS (SELECT max(n) FROM up)
           SELECT CASE WHEN top.n >= 1000 THEN 'tz'
                       ELSE replace(group_concat('t' || lower(hex(key))), ',', ' ') END
           FROM up, top
           WHERE top.n - up.n <= 3)
  FROM sessions s;

-- The redacted text and scope of every message that is in the index, as
-- they were indexed. It is the FTS5 table's content, read back only for highlight(),
-- snippet() and the integrity check; such a read scans the messages, as the
-- rowid is not a column.
--
-- An index row's rowid is ~id (bitwise NOT, -id - 1, defined for every
-- integer id): FTS5 reads a doclist fastest in ascending rowid order, which
-- is then newest first, the order a search wants (reading it backwards
-- costs 15-20% more on long doclists, most of a phrase query's time).
CREATE VIEW IF NOT EXISTS session_search_text(id, text, scope) AS
  SELECT ~m.id, sessions_text(m.content, (SELECT value FROM session_search_meta WHERE key = 'redaction')), sc.scope
  FROM messages m JOIN session_search_nodes n ON n.id = m.id
  LEFT JOIN session_search_scopes sc ON sc.session_key = m.session_key
  WHERE n.indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation');

-- `markers 1`: the text also gets the tokens searches read (tier markers,
-- pair tokens) and the scope column its colocated words.
CREATE VIRTUAL TABLE IF NOT EXISTS session_search_fts USING fts5(
  text,
  scope,
  content = 'session_search_text',
  content_rowid = 'id',
  tokenize = 'sessions cjk 1 markers 1'
);

-- Every session gets its scope (adoption, and the upgrade from version 1).
INSERT OR IGNORE INTO session_search_scopes(session_key, scope)
SELECT session_key, scope FROM session_search_scope_of;
