-- Reconciliation, step 1 of 2: indexes up to ?1 backlog nodes (see
-- session_search_backlog), newest message first, so recent history becomes
-- searchable first. Rows go in ascending FTS5 rowid (descending id): FTS5
-- writes out its pending terms whenever a rowid is not above the last one.
INSERT INTO session_search_fts(rowid, text, scope)
SELECT ~m.id, sessions_text(m.content, (SELECT value FROM session_search_meta WHERE key = 'redaction')), sc.scope
FROM messages m LEFT JOIN session_search_scopes sc ON sc.session_key = m.session_key
WHERE m.id IN (
  SELECT id FROM session_search_nodes
  WHERE on_branch = 1 AND indexable = 1 AND indexed_gen = 0
  ORDER BY id DESC LIMIT ?1)
ORDER BY m.id DESC
