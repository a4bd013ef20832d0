-- The sessions visible to :caller at :visibility (visible.sql), newest
-- activity first, one page of :rows after :offset: :agent, :since, :until
-- (of the last activity) and the key :prefix each NULL for no filter.
-- A session's last activity is its newest message's created_at, or its own
-- created_at while it has none.
, listed AS (
  SELECT s.session_key, s.agent_id, s.spawned_by, s.created_at,
         coalesce(m.last_activity, s.created_at) AS last_activity,
         coalesce(m.messages, 0) AS messages
  FROM visible v
  JOIN sessions s ON s.session_key = v.session_key
  LEFT JOIN (SELECT session_key, max(created_at) AS last_activity, count(*) AS messages
             FROM messages WHERE session_key IN (SELECT session_key FROM visible)
             GROUP BY session_key) m ON m.session_key = s.session_key
  WHERE (:agent IS NULL OR s.agent_id = :agent)
    AND (:prefix IS NULL OR substr(s.session_key, 1, length(:prefix)) = :prefix))
-- The page is cut before the titles are read, so only its sessions are.
, page AS (
  SELECT * FROM listed
  WHERE (:since IS NULL OR last_activity >= :since) AND (:until IS NULL OR last_activity <= :until)
  ORDER BY last_activity DESC, session_key
  LIMIT :rows OFFSET :offset)
SELECT session_key, agent_id, spawned_by, created_at, last_activity, messages,
       (SELECT content FROM messages t
        WHERE t.session_key = page.session_key AND t.role = 'user'
          AND sessions_text(t.content) IS NOT NULL
        ORDER BY t.id LIMIT 1) AS first_user
FROM page
ORDER BY last_activity DESC, session_key
