-- Adopts transcripts written before sessions_init(): runs once, before the
-- triggers exist. Gives every message a node (a NULL parent_id follows the
-- previous message of its session), gives sessions with messages but no leaf
-- their newest message as leaf, and marks the active branches. Nothing is
-- indexed here: the adopted nodes are reconciliation backlog.

INSERT INTO session_search_nodes(id, parent, indexable)
SELECT m.id,
       coalesce(m.parent_id,
                (SELECT max(p.id) FROM messages p WHERE p.session_key = m.session_key AND p.id < m.id)),
       m.role IN ('user', 'assistant')
FROM messages m
WHERE m.id NOT IN (SELECT id FROM session_search_nodes);

UPDATE sessions
SET leaf_id = (SELECT max(id) FROM messages WHERE session_key = sessions.session_key)
WHERE leaf_id IS NULL;

UPDATE session_search_nodes SET on_branch = 1
WHERE id IN (
  WITH RECURSIVE up(id) AS (
    SELECT leaf_id FROM sessions WHERE leaf_id IS NOT NULL
    UNION
    SELECT n.parent FROM session_search_nodes n JOIN up ON n.id = up.id WHERE n.parent IS NOT NULL)
  SELECT id FROM up);

-- The public table tells the tree by itself: a NULL parent_id becomes the
-- message it followed.
UPDATE messages SET parent_id = (SELECT parent FROM session_search_nodes n WHERE n.id = messages.id)
WHERE parent_id IS NULL
  AND (SELECT parent FROM session_search_nodes n WHERE n.id = messages.id) IS NOT NULL;
