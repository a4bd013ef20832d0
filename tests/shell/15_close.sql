-- Statements kept between calls never stop a connection from closing: the
-- shell reports "unable to close due to unfinalized statements" if one is
-- left open when `.open` closes the database, or when the shell exits.
-- Also: loading the extension twice into one connection, and a search after
-- the second load.
.bail off
.echo on
.load dist/session_search
SELECT sessions_init() IS NOT NULL;
INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('a', 'x', 1);
INSERT INTO messages(session_key, role, content, created_at) VALUES
  ('a', 'user', 'deploy the staging server', 1),
  ('a', 'assistant', 'the staging deploy is done', 2);
SELECT json_array_length(sessions_search('staging', '{"caller":"a"}'), '$.results');
SELECT json_array_length(sessions_search('deploy', '{"caller":"a","order":"recent"}'), '$.results');
SELECT json_array_length(sessions_history('a', '{"caller":"a"}'), '$.messages');
-- The table that ends the keeping has no rows.
SELECT count(*) FROM session_search_kept_statements;
.load dist/session_search
SELECT json_array_length(sessions_search('staging', '{"caller":"a"}'), '$.results');
.open :memory:
.load dist/session_search
SELECT sessions_init() IS NOT NULL;
INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('b', 'x', 1);
INSERT INTO messages(session_key, role, content, created_at) VALUES ('b', 'user', 'rollback plan', 1);
SELECT json_array_length(sessions_search('rollback', '{"caller":"b"}'), '$.results');
.open :memory:
SELECT 'closed cleanly';
