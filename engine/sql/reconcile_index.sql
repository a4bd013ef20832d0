-- Reconciliation, step 1 of 2: the messages of up to ?1 backlog nodes (see
-- session_search_backlog), newest first, so recent history becomes
-- searchable first, with each one's index rowid (~id) and scope. They are
-- inserted in this order, ascending FTS5 rowid (descending id): FTS5
-- writes out its pending terms whenever a rowid is not above the last one.
SELECT ~m.id, m.content, sc.scope
FROM messages m LEFT JOIN session_search_scopes sc ON sc.session_key = m.session_key
WHERE m.id IN (
  SELECT id FROM session_search_nodes
  WHERE on_branch = 1 AND indexable = 1 AND indexed_gen = 0
  ORDER BY id DESC LIMIT ?1)
ORDER BY m.id DESC
