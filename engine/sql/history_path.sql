-- The active branch of session :session_key from the leaf up: message ids, leaf first.
-- Empty when :session_key is not visible to :caller at :visibility
-- (visible.sql); :seen = 1 when the engine found it visible from the session itself
-- (scope::sees), so that the caller's visible set is not built.
, path(id, depth) AS (
    SELECT leaf_id, 0 FROM sessions
    WHERE session_key = :session_key AND leaf_id IS NOT NULL
      AND (:seen OR session_key IN (SELECT session_key FROM visible))
    UNION ALL
    SELECT n.parent, p.depth + 1 FROM session_search_nodes n JOIN path p ON n.id = p.id
    WHERE n.parent IS NOT NULL)
SELECT id FROM path ORDER BY depth
