-- Whether session :session_key is visible to :caller at :visibility
-- (visible.sql).
SELECT EXISTS (SELECT 1 FROM visible WHERE session_key = :session_key)
