-- The sessions visible to caller ?1 at visibility ?2 (visible.sql), newest
-- activity first, one page: ?3 agent, ?4 since, ?5 until (of the last
-- activity), ?6 key prefix (each NULL for no filter), ?7 rows, ?8 offset.
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
  WHERE (?3 IS NULL OR s.agent_id = ?3)
    AND (?6 IS NULL OR substr(s.session_key, 1, length(?6)) = ?6))
-- The page is cut before the titles are read, so only its sessions are.
, page AS (
  SELECT * FROM listed
  WHERE (?4 IS NULL OR last_activity >= ?4) AND (?5 IS NULL OR last_activity <= ?5)
  ORDER BY last_activity DESC, session_key
  LIMIT ?7 OFFSET ?8)
SELECT session_key, agent_id, spawned_by, created_at, last_activity, messages,
       (SELECT content FROM messages t
        WHERE t.session_key = page.session_key AND t.role = 'user'
          AND sessions_text(t.content) IS NOT NULL
        ORDER BY t.id LIMIT 1) AS first_user
FROM page
ORDER BY last_activity DESC, session_key
