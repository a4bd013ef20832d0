-- session-search triggers, version 4: every write to sessions and messages
-- keeps session_search_fts exact in the same transaction.
--
-- Invariant: a message is in session_search_fts (as rowid ~id, see
-- session_search_text) iff its node's indexed_gen equals the current
-- generation; it is then on its session's active branch (the path from the
-- root to sessions.leaf_id) and has role user or assistant. Every other
-- node has indexed_gen 0, or the generation of an index a rebuild emptied
-- until reconciliation sets it to 0; those of generation 0 on the branch
-- with searchable text are the reconciliation backlog (deferred indexing,
-- adoption, tokenizer rebuild).
--
-- The triggers call sessions_text(), so a connection without the extension
-- loaded fails with "no such function" instead of leaving the index stale.
-- It redacts with the stored settings (session_search_meta 'redaction'),
-- which change only together with a new generation, so an index row is
-- always removed with exactly the text it was added with. It also gets the
-- index's tokenizer version: for an index built by an earlier version (its
-- default pattern set or tokenizer older) it gives NULL, as the rebuild
-- that sessions_init() or a search starts empties that index before
-- anything reads it; an index of a newer version it refuses to write.
--
-- A statement writing many index rows writes them in ascending rowid
-- (descending message id, ORDER BY ... DESC): FTS5 writes out its pending
-- terms as a new segment whenever a rowid is not above the last one.

-- A message id is written once: INSERT OR REPLACE would drop the old row
-- without the delete trigger, leaving its index entry behind.
CREATE TRIGGER IF NOT EXISTS session_search_message_replace
BEFORE INSERT ON messages
WHEN EXISTS (SELECT 1 FROM messages WHERE id = NEW.id) BEGIN
  SELECT RAISE(ABORT, 'session_search: messages.id exists already; UPDATE a message to change it');
END;

CREATE TRIGGER IF NOT EXISTS session_search_message_insert
AFTER INSERT ON messages BEGIN
  SELECT RAISE(ABORT, 'session_search: messages.role must be user, assistant, tool or system')
  WHERE NEW.role IS NOT 'user' AND NEW.role IS NOT 'assistant' AND NEW.role IS NOT 'tool' AND NEW.role IS NOT 'system';
  SELECT RAISE(ABORT, 'session_search: messages.created_at must be an integer (unix milliseconds)')
  WHERE typeof(NEW.created_at) <> 'integer';
  SELECT RAISE(ABORT, 'session_search: messages.session_key names no session; insert the sessions row first')
  WHERE NOT EXISTS (SELECT 1 FROM sessions WHERE session_key = NEW.session_key);
  SELECT RAISE(ABORT, 'session_search: messages.parent_id must name an earlier message of the same session')
  WHERE NEW.parent_id IS NOT NULL
    AND (NEW.parent_id = NEW.id
         OR NOT EXISTS (SELECT 1 FROM messages WHERE id = NEW.parent_id AND session_key = NEW.session_key));
  -- The common case, appending after the leaf, is handled here without
  -- walking the tree; a new branch is left to session_search_leaf_move.
  INSERT INTO session_search_nodes(id, parent, on_branch, indexable, indexed_gen)
  SELECT NEW.id, parent, appended, indexable,
         CASE WHEN appended AND indexable AND immediate THEN generation ELSE 0 END
  FROM (SELECT parent,
               parent IS leaf AS appended,
               NEW.role IN ('user', 'assistant') AS indexable,
               (SELECT value FROM session_search_meta WHERE key = 'indexing') = 'immediate' AS immediate,
               (SELECT value FROM session_search_meta WHERE key = 'generation') AS generation
        FROM (SELECT coalesce(NEW.parent_id, leaf_id) AS parent, leaf_id AS leaf
              FROM sessions WHERE session_key = NEW.session_key));
  INSERT INTO session_search_fts(rowid, text, scope)
  SELECT ~NEW.id, sessions_text(NEW.content, (SELECT value FROM session_search_meta WHERE key = 'redaction'), (SELECT value FROM session_search_meta WHERE key = 'tokenizer_version')), sc.scope
  FROM session_search_nodes n LEFT JOIN session_search_scopes sc ON sc.session_key = NEW.session_key
  WHERE n.id = NEW.id AND n.indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation');
  -- An appended message records the message it was appended after.
  UPDATE messages SET parent_id = (SELECT parent FROM session_search_nodes WHERE id = NEW.id)
  WHERE NEW.parent_id IS NULL AND id = NEW.id
    AND (SELECT parent FROM session_search_nodes WHERE id = NEW.id) IS NOT NULL;
  UPDATE sessions SET leaf_id = NEW.id WHERE session_key = NEW.session_key;
  -- Every block of 256 ids below the newest message's has the newest time
  -- written into it (sql/recent_complete.sql reads the newest block's ids
  -- one by one, as no id below a window is in a block above it), so an
  -- append writes a block only when it opens the next one: then the block
  -- before it gets its newest time. A message below the newest block
  -- moves its own block's time.
  INSERT INTO session_search_time_blocks(block, newest)
  SELECT NEW.id >> 8, NEW.created_at
  WHERE NEW.id >> 8 < (SELECT max(id) FROM messages) >> 8
  UNION ALL
  SELECT block, (SELECT max(created_at) FROM messages WHERE id >= block << 8 AND id < (block + 1) << 8)
  FROM (SELECT (SELECT max(id) FROM messages WHERE id < NEW.id) >> 8 AS block)
  WHERE block < NEW.id >> 8
  ON CONFLICT(block) DO UPDATE SET newest = excluded.newest WHERE excluded.newest > newest;
  -- Last, so that a connection without the extension is told of
  -- sessions_text first.
  SELECT RAISE(ABORT, 'session_search: messages.message_id must be NULL or UTF-8 text')
  WHERE NEW.message_id IS NOT NULL AND NOT sessions_is_utf8(NEW.message_id);
END;

-- A message written with a later time moves its block's newest time.
CREATE TRIGGER IF NOT EXISTS session_search_message_time
AFTER UPDATE OF created_at ON messages BEGIN
  INSERT INTO session_search_time_blocks(block, newest) VALUES (NEW.id >> 8, NEW.created_at)
  ON CONFLICT(block) DO UPDATE SET newest = excluded.newest WHERE excluded.newest > newest;
END;

CREATE TRIGGER IF NOT EXISTS session_search_leaf_check
BEFORE UPDATE OF leaf_id ON sessions
WHEN NEW.leaf_id IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM messages WHERE id = NEW.leaf_id AND session_key = NEW.session_key) BEGIN
  SELECT RAISE(ABORT, 'session_search: sessions.leaf_id must be NULL or name a message of the same session');
END;

-- Rewind or branch switch; skipped for an append, which the insert trigger
-- has already put on the branch (CROSS JOIN keeps SQLite from scanning all nodes
-- instead of the few moved ones). Only the segments that changed are walked: the
-- nodes joining the branch are those from the new leaf up to the first node
-- already on it (the fork point); the nodes leaving are those from the old
-- leaf up to, not including, that fork point.
CREATE TRIGGER IF NOT EXISTS session_search_leaf_move
AFTER UPDATE OF leaf_id ON sessions
WHEN OLD.leaf_id IS NOT NEW.leaf_id
  AND NOT EXISTS (SELECT 1 FROM session_search_nodes
                  WHERE id = NEW.leaf_id AND on_branch = 1 AND parent IS OLD.leaf_id) BEGIN
  INSERT INTO session_search_moves(id, joins)
  SELECT id, joins FROM (
    WITH RECURSIVE
      up_new(id, parent, on_branch) AS (
        SELECT id, parent, on_branch FROM session_search_nodes WHERE id = NEW.leaf_id
        UNION ALL
        SELECT n.id, n.parent, n.on_branch FROM session_search_nodes n JOIN up_new ON n.id = up_new.parent
        WHERE up_new.on_branch = 0),
      fork(id) AS (SELECT id FROM up_new WHERE on_branch = 1),
      up_old(id, parent) AS (
        SELECT id, parent FROM session_search_nodes
        WHERE id = OLD.leaf_id AND id IS NOT (SELECT id FROM fork)
        UNION ALL
        SELECT n.id, n.parent FROM session_search_nodes n JOIN up_old ON n.id = up_old.parent
        WHERE n.id IS NOT (SELECT id FROM fork))
    SELECT id, 1 AS joins FROM up_new WHERE on_branch = 0
    UNION ALL
    SELECT id, 0 FROM up_old);

  INSERT INTO session_search_fts(session_search_fts, rowid, text, scope)
  SELECT 'delete', ~m.id, sessions_text(m.content, (SELECT value FROM session_search_meta WHERE key = 'redaction'), (SELECT value FROM session_search_meta WHERE key = 'tokenizer_version')),
         (SELECT scope FROM session_search_scopes WHERE session_key = NEW.session_key)
  FROM session_search_moves v
  CROSS JOIN session_search_nodes n ON n.id = v.id
  CROSS JOIN messages m ON m.id = v.id
  WHERE v.joins = 0
    AND n.indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation')
  ORDER BY v.id DESC;

  UPDATE session_search_nodes SET on_branch = 0, indexed_gen = 0
  WHERE id IN (SELECT id FROM session_search_moves WHERE joins = 0);

  INSERT INTO session_search_fts(rowid, text, scope)
  SELECT ~m.id, sessions_text(m.content, (SELECT value FROM session_search_meta WHERE key = 'redaction'), (SELECT value FROM session_search_meta WHERE key = 'tokenizer_version')),
         (SELECT scope FROM session_search_scopes WHERE session_key = NEW.session_key)
  FROM session_search_moves v
  CROSS JOIN session_search_nodes n ON n.id = v.id
  CROSS JOIN messages m ON m.id = v.id
  WHERE v.joins = 1 AND n.indexable = 1
    AND (SELECT value FROM session_search_meta WHERE key = 'indexing') = 'immediate'
  ORDER BY v.id DESC;

  UPDATE session_search_nodes
  SET on_branch = 1,
      indexed_gen = CASE
        WHEN indexable = 1 AND (SELECT value FROM session_search_meta WHERE key = 'indexing') = 'immediate'
        THEN (SELECT value FROM session_search_meta WHERE key = 'generation')
        ELSE 0 END
  WHERE id IN (SELECT id FROM session_search_moves WHERE joins = 1);

  DELETE FROM session_search_moves;
END;

-- An edit keeps the rules of an insert.
CREATE TRIGGER IF NOT EXISTS session_search_message_check
BEFORE UPDATE OF role, created_at, message_id ON messages BEGIN
  SELECT RAISE(ABORT, 'session_search: messages.role must be user, assistant, tool or system')
  WHERE NEW.role IS NOT 'user' AND NEW.role IS NOT 'assistant' AND NEW.role IS NOT 'tool' AND NEW.role IS NOT 'system';
  SELECT RAISE(ABORT, 'session_search: messages.created_at must be an integer (unix milliseconds)')
  WHERE typeof(NEW.created_at) <> 'integer';
  SELECT RAISE(ABORT, 'session_search: messages.message_id must be NULL or UTF-8 text')
  WHERE NEW.message_id IS NOT NULL AND NOT sessions_is_utf8(NEW.message_id);
END;

-- Editing a message's text or role re-indexes it.
CREATE TRIGGER IF NOT EXISTS session_search_message_edit
AFTER UPDATE OF role, content ON messages BEGIN
  INSERT INTO session_search_fts(session_search_fts, rowid, text, scope)
  SELECT 'delete', ~OLD.id, sessions_text(OLD.content, (SELECT value FROM session_search_meta WHERE key = 'redaction'), (SELECT value FROM session_search_meta WHERE key = 'tokenizer_version')),
         (SELECT scope FROM session_search_scopes WHERE session_key = OLD.session_key)
  FROM session_search_nodes
  WHERE id = OLD.id AND indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation');
  UPDATE session_search_nodes SET indexable = NEW.role IN ('user', 'assistant'), indexed_gen = 0
  WHERE id = OLD.id;
  INSERT INTO session_search_fts(rowid, text, scope)
  SELECT ~NEW.id, sessions_text(NEW.content, (SELECT value FROM session_search_meta WHERE key = 'redaction'), (SELECT value FROM session_search_meta WHERE key = 'tokenizer_version')),
         (SELECT scope FROM session_search_scopes WHERE session_key = NEW.session_key)
  FROM session_search_nodes
  WHERE id = NEW.id AND on_branch = 1 AND indexable = 1
    AND (SELECT value FROM session_search_meta WHERE key = 'indexing') = 'immediate';
  UPDATE session_search_nodes SET indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation')
  WHERE id = NEW.id AND on_branch = 1 AND indexable = 1
    AND (SELECT value FROM session_search_meta WHERE key = 'indexing') = 'immediate';
END;

-- A message's place in the tree is fixed once written. parent_id may only
-- be set to the parent the tree already has (the triggers fill it in for an
-- appended message and re-hang the children of a deleted one).
CREATE TRIGGER IF NOT EXISTS session_search_message_move
BEFORE UPDATE OF id, session_key, parent_id ON messages
WHEN OLD.id IS NOT NEW.id OR OLD.session_key IS NOT NEW.session_key
  OR (OLD.parent_id IS NOT NEW.parent_id
      AND NEW.parent_id IS NOT (SELECT parent FROM session_search_nodes WHERE id = OLD.id)) BEGIN
  SELECT RAISE(ABORT, 'session_search: messages.id, session_key and parent_id cannot change; insert a new message to branch');
END;

CREATE TRIGGER IF NOT EXISTS session_search_session_rename
BEFORE UPDATE OF session_key ON sessions
WHEN OLD.session_key IS NOT NEW.session_key BEGIN
  SELECT RAISE(ABORT, 'session_search: sessions.session_key cannot change');
END;

-- Deleting a message removes it from the index; its children (messages of
-- its session, found through the session's messages) hang from its parent
-- instead, and a deleted leaf moves the leaf to its parent. The message row
-- is already gone, so the leaf move finds no text to remove.
CREATE TRIGGER IF NOT EXISTS session_search_message_delete
AFTER DELETE ON messages BEGIN
  INSERT INTO session_search_fts(session_search_fts, rowid, text, scope)
  SELECT 'delete', ~OLD.id, sessions_text(OLD.content, (SELECT value FROM session_search_meta WHERE key = 'redaction'), (SELECT value FROM session_search_meta WHERE key = 'tokenizer_version')),
         (SELECT scope FROM session_search_scopes WHERE session_key = OLD.session_key)
  FROM session_search_nodes
  WHERE id = OLD.id AND indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation');
  UPDATE session_search_nodes SET parent = (SELECT parent FROM session_search_nodes WHERE id = OLD.id)
  WHERE id IN (SELECT id FROM messages WHERE session_key = OLD.session_key AND parent_id = OLD.id);
  UPDATE messages SET parent_id = (SELECT parent FROM session_search_nodes WHERE id = OLD.id)
  WHERE session_key = OLD.session_key AND parent_id = OLD.id;
  UPDATE sessions SET leaf_id = (SELECT parent FROM session_search_nodes WHERE id = OLD.id)
  WHERE session_key = OLD.session_key AND leaf_id = OLD.id;
  DELETE FROM session_search_nodes WHERE id = OLD.id;
END;

-- A new session starts empty. INSERT OR REPLACE drops the old row without
-- the delete trigger (unless recursive_triggers is on): messages already
-- stored under the key are kept but leave the index, as the new row's leaf
-- is NULL.
CREATE TRIGGER IF NOT EXISTS session_search_session_insert
AFTER INSERT ON sessions BEGIN
  SELECT RAISE(ABORT, 'session_search: sessions.session_key must be non-empty UTF-8 text')
  WHERE typeof(NEW.session_key) <> 'text' OR NEW.session_key = '' OR NOT sessions_is_utf8(NEW.session_key);
  SELECT RAISE(ABORT, 'session_search: a new session has no messages, so its leaf_id must be NULL')
  WHERE NEW.leaf_id IS NOT NULL;
  SELECT RAISE(ABORT, 'session_search: sessions.created_at must be an integer (unix milliseconds)')
  WHERE typeof(NEW.created_at) <> 'integer';
  INSERT INTO session_search_fts(session_search_fts, rowid, text, scope)
  SELECT 'delete', ~m.id, sessions_text(m.content, (SELECT value FROM session_search_meta WHERE key = 'redaction'), (SELECT value FROM session_search_meta WHERE key = 'tokenizer_version')),
         (SELECT scope FROM session_search_scopes WHERE session_key = NEW.session_key)
  FROM messages m CROSS JOIN session_search_nodes n ON n.id = m.id
  WHERE m.session_key = NEW.session_key
    AND n.indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation')
  ORDER BY m.id DESC;
  UPDATE session_search_nodes SET on_branch = 0, indexed_gen = 0
  WHERE id IN (SELECT id FROM messages WHERE session_key = NEW.session_key);
  -- Its scope, and that of sessions already naming it in spawned_by.
  INSERT INTO session_search_scopes(session_key, scope)
  SELECT session_key, scope FROM session_search_scope_of
  WHERE session_key IN (SELECT key FROM (
    WITH RECURSIVE below(key) AS (
      SELECT NEW.session_key
      UNION
      SELECT s.session_key FROM sessions s JOIN below ON s.spawned_by = below.key)
    SELECT key FROM below))
  ON CONFLICT(session_key) DO UPDATE SET scope = excluded.scope WHERE scope IS NOT excluded.scope;
END;

-- A session that moves to another agent or spawner takes its descendants'
-- scopes along.
CREATE TRIGGER IF NOT EXISTS session_search_session_move
AFTER UPDATE OF agent_id, spawned_by ON sessions
WHEN OLD.agent_id IS NOT NEW.agent_id OR OLD.spawned_by IS NOT NEW.spawned_by BEGIN
  INSERT INTO session_search_scopes(session_key, scope)
  SELECT session_key, scope FROM session_search_scope_of
  WHERE session_key IN (SELECT key FROM (
    WITH RECURSIVE below(key) AS (
      SELECT NEW.session_key
      UNION
      SELECT s.session_key FROM sessions s JOIN below ON s.spawned_by = below.key)
    SELECT key FROM below))
  ON CONFLICT(session_key) DO UPDATE SET scope = excluded.scope WHERE scope IS NOT excluded.scope;
END;

-- A new scope re-indexes the session's indexed messages under it.
CREATE TRIGGER IF NOT EXISTS session_search_scope_change
AFTER UPDATE OF scope ON session_search_scopes BEGIN
  INSERT INTO session_search_fts(session_search_fts, rowid, text, scope)
  SELECT 'delete', ~m.id, sessions_text(m.content, (SELECT value FROM session_search_meta WHERE key = 'redaction'), (SELECT value FROM session_search_meta WHERE key = 'tokenizer_version')), OLD.scope
  FROM messages m CROSS JOIN session_search_nodes n ON n.id = m.id
  WHERE m.session_key = OLD.session_key
    AND n.indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation')
  ORDER BY m.id DESC;
  INSERT INTO session_search_fts(rowid, text, scope)
  SELECT ~m.id, sessions_text(m.content, (SELECT value FROM session_search_meta WHERE key = 'redaction'), (SELECT value FROM session_search_meta WHERE key = 'tokenizer_version')), NEW.scope
  FROM messages m CROSS JOIN session_search_nodes n ON n.id = m.id
  WHERE m.session_key = NEW.session_key
    AND n.indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation')
  ORDER BY m.id DESC;
END;

-- The sessions it spawned now end their spawn chain at its key, so their
-- depths, and with them their scope words, change: a session that was too
-- deep to carry its own word may be shallow enough to be asked for it.
CREATE TRIGGER IF NOT EXISTS session_search_session_delete
AFTER DELETE ON sessions BEGIN
  DELETE FROM messages WHERE session_key = OLD.session_key;
  DELETE FROM session_search_scopes WHERE session_key = OLD.session_key;
  INSERT INTO session_search_scopes(session_key, scope)
  SELECT session_key, scope FROM session_search_scope_of
  WHERE session_key IN (SELECT key FROM (
    WITH RECURSIVE below(key) AS (
      SELECT OLD.session_key
      UNION
      SELECT s.session_key FROM sessions s JOIN below ON s.spawned_by = below.key)
    SELECT key FROM below))
  ON CONFLICT(session_key) DO UPDATE SET scope = excluded.scope WHERE scope IS NOT excluded.scope;
END;
