-- Reconciliation, step 1 of 2: indexes up to ?1 backlog nodes, oldest
-- generation and id first.
INSERT INTO session_search_fts(rowid, text)
SELECT m.id, sessions_text(m.content)
FROM messages m
WHERE m.id IN (
  SELECT id FROM session_search_nodes
  WHERE on_branch = 1 AND indexable = 1
    AND indexed_gen < (SELECT value FROM session_search_meta WHERE key = 'generation')
  ORDER BY indexed_gen, id LIMIT ?1)
