-- The messages whose ids are in the JSON array ?1, oldest first.
SELECT id, message_id, role, created_at, content
FROM messages WHERE id IN (SELECT value FROM json_each(?1))
ORDER BY id
