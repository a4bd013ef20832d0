-- Upgrade from schema version 1, before schema.sql runs: the index gains the
-- scope column, so it is dropped and recreated by schema.sql, and a new
-- generation makes every message backlog that reconciliation indexes again.
-- Until it has, searches answer with what is re-indexed and `indexing: true`.
-- The session indexes become covering ones (tables.sql runs next).
DROP TABLE IF EXISTS session_search_fts;
DROP VIEW IF EXISTS session_search_text;
UPDATE session_search_meta SET value = value + 1 WHERE key = 'generation';
DROP INDEX IF EXISTS session_search_sessions_by_parent;
DROP INDEX IF EXISTS session_search_sessions_by_agent;
