-- Whether session ?3 is visible to caller ?1 at visibility ?2 (visible.sql).
SELECT EXISTS (SELECT 1 FROM visible WHERE session_key = ?3)
