.load dist/session_search
-- The README's examples ("Schema and write path", sessions_search,
-- sessions_list, sessions_rank), run as written, so the output the README shows stays true.
SELECT sessions_init() IS NOT NULL;
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at)
VALUES ('agent:main:cli:1', 'main', NULL, 1700000000000);
INSERT INTO messages(session_key, role, content, created_at)
VALUES ('agent:main:cli:1', 'user', 'Deploy staging please', 1700000000001),
       ('agent:main:cli:1', 'assistant',
        '[{"type":"text","text":"Deploying now"},{"type":"tool_use","name":"bash","input":{}}]',
        1700000000002);
SELECT sessions_search('staging deploy', '{"caller":"agent:main:cli:1"}');
SELECT sessions_list('{"caller":"agent:main:cli:1","limit":1}');
SELECT ~rowid AS id, sessions_rank(session_search_fts) FROM session_search_fts
WHERE session_search_fts MATCH '{text} : deploy' ORDER BY 2 LIMIT 10;
UPDATE sessions SET leaf_id = 1 WHERE session_key = 'agent:main:cli:1';
SELECT sessions_search('deploying', '{"caller":"agent:main:cli:1"}');
DELETE FROM sessions WHERE session_key = 'agent:main:cli:1';
SELECT count(*) FROM messages;
SELECT sessions_status();
