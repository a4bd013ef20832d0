-- The active branch of session ?3 from the leaf up: message ids, leaf first.
-- Empty when ?3 is not visible to caller ?1 at visibility ?2 (visible.sql);
-- ?4 = 1 when the engine found it visible from the session itself
-- (scope::sees), so that the caller's visible set is not built.
, path(id, depth) AS (
    SELECT leaf_id, 0 FROM sessions
    WHERE session_key = ?3 AND leaf_id IS NOT NULL
      AND (?4 OR session_key IN (SELECT session_key FROM visible))
    UNION ALL
    SELECT n.parent, p.depth + 1 FROM session_search_nodes n JOIN path p ON n.id = p.id
    WHERE n.parent IS NOT NULL)
SELECT id FROM path ORDER BY depth
