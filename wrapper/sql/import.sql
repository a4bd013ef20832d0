-- Lookups of the importers: a message by its host id within its session, so
-- that importing a transcript again adds only the lines that are new.
CREATE INDEX IF NOT EXISTS session_search_messages_by_host_id ON messages(session_key, message_id);
