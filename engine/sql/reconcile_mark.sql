-- Reconciliation, step 2 of 2, in the same savepoint: marks the nodes step 1
-- indexed (the same query picks the same rows) as current.
UPDATE session_search_nodes
SET indexed_gen = (SELECT value FROM session_search_meta WHERE key = 'generation')
WHERE id IN (
  SELECT id FROM session_search_nodes
  WHERE on_branch = 1 AND indexable = 1 AND indexed_gen = 0
  ORDER BY id DESC LIMIT ?1)
