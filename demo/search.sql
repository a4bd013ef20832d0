-- session-search demo, part 2: transcripts written with plain SQL, then
-- searched the way an agent's tool would. Run by `make demo`.
.load dist/session_search
.mode list
SELECT sessions_init() IS NOT NULL AS initialised;

INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES
  ('agent:main:cli:1',      'main',  NULL,               1700000000000),
  ('agent:main:sub:2',      'main',  'agent:main:cli:1', 1700000100000),
  ('agent:other:chat:9',    'other', NULL,               1700000200000);

INSERT INTO messages(session_key, role, content, created_at) VALUES
  ('agent:main:cli:1', 'user', 'Le déploiement de staging a échoué hier soir', 1700000000001),
  ('agent:main:cli:1', 'assistant',
   '[{"type":"thinking","thinking":"check the logs"},{"type":"text","text":"The staging deploy failed: export GITHUB_TOKEN=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 was expired"},{"type":"tool_use","name":"bash","input":{"cmd":"make deploy"}}]',
   1700000000002),
  ('agent:main:cli:1', 'user', 'Try the rollback plan instead', 1700000000003);
-- Rewind: the user takes back the last message; it leaves the index.
UPDATE sessions SET leaf_id = 2 WHERE session_key = 'agent:main:cli:1';
INSERT INTO messages(session_key, role, content, created_at) VALUES
  ('agent:main:cli:1', 'user', 'Retry with a fresh token', 1700000000004),
  ('agent:main:sub:2', 'assistant', '東京リージョンのstagingサーバーを再起動しました', 1700000100001),
  ('agent:other:chat:9', 'user', 'staging credentials for the other agent', 1700000200001);

.print
.print -- 'deploiement' (no accents) finds 'déploiement'; the token is redacted:
SELECT sessions_search('deploiement', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('staging deploy', '{"caller":"agent:main:cli:1","limit":3}');
.print
.print -- a 2-character Japanese query, found in the spawned sub-session (visibility tree):
SELECT sessions_search('東京', '{"caller":"agent:main:cli:1"}');
.print
.print -- rewound text is not found:
SELECT sessions_search('rollback', '{"caller":"agent:main:cli:1"}');
.print
.print -- searching for the secret itself finds nothing:
SELECT sessions_search('ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8', '{"caller":"agent:main:cli:1"}');
.print
.print -- visibility: the other agent's session is invisible even with "all" when sandboxed:
SELECT sessions_search('staging', '{"caller":"agent:main:cli:1","visibility":"all","sandboxed":true}');
.print
.print -- hostile input is just text:
SELECT sessions_search('"unbalanced NEAR( src/main.py #123', '{"caller":"agent:main:cli:1"}');
.print
.print -- the active branch around a hit, redacted, tool calls summarised:
SELECT sessions_history('agent:main:cli:1', '{"caller":"agent:main:cli:1","around":2,"before":1,"after":1}');
.print
SELECT sessions_status();
