-- Loading the extension by file name only: SQLite derives the entry point
-- (sqlite3_sessionsearch_init) from the name, so none is given here.
.bail off
.echo on
.load dist/session_search
SELECT sessions_version();
SELECT json_extract(sessions_version(), '$.tokenizer') AS tokenizer,
       json_extract(sessions_version(), '$.version') AS version;
SELECT name, narg FROM pragma_function_list
 WHERE name IN ('sessions_version', 'sessions_tokenize') ORDER BY name, narg;
-- The tokenizer is registered with FTS5 under the name `sessions`.
CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'sessions');
INSERT INTO t VALUES ('Hello, World!');
SELECT rowid, body FROM t WHERE t MATCH 'hello';
-- Loading a second time is harmless.
.load dist/session_search
SELECT rowid FROM t WHERE t MATCH 'world';
