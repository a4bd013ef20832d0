-- The message of one hit of a search not grouped by session (search.rs,
-- `Page`): :id = messages.id.
SELECT session_key, id, message_id, role, created_at, content FROM messages WHERE id = :id
