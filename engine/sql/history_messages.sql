-- The messages whose ids are in the JSON array :ids, oldest first.
SELECT id, message_id, role, created_at, content
FROM messages WHERE id IN (SELECT value FROM json_each(:ids))
ORDER BY id
