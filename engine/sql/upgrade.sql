-- Upgrade from an older schema version, before tables.sql and schema.sql
-- run. The index changed in every version since 1 (version 2 added the
-- scope column, version 3 made the rowid ~ the message id, version 4 holds
-- redacted text and its view passes the redaction settings, version 11
-- gives its tokenizer `markers 1`), so it is
-- dropped and recreated by schema.sql, and a new generation makes every
-- message backlog that reconciliation indexes again. Until it has, searches
-- answer with what is re-indexed and `indexing: true`.
DROP TABLE IF EXISTS session_search_fts;
DROP VIEW IF EXISTS session_search_text;
UPDATE session_search_meta SET value = value + 1 WHERE key = 'generation';
-- Version 1's session indexes, replaced by covering ones in tables.sql.
DROP INDEX IF EXISTS session_search_sessions_by_parent;
DROP INDEX IF EXISTS session_search_sessions_by_agent;
