-- One transcript scenario, run unchanged through the sqlite3 shell, Python's
-- sqlite3 and the Rust wrapper (wrapper/tests/cross_language.rs) and through
-- Node's better-sqlite3 (tests/node/search.test.mjs, which compares Node with
-- the shell and Python); every SELECT must print byte-identical JSON in all.
--
-- Rules for this file, which the runners rely on: plain SQL only (no
-- dot-commands; the runners load the extension themselves), every SELECT
-- returns exactly one row of one column, and no statement fails.
SELECT sessions_init();

-- Two agents. The Telegram session spawned a research sub-agent (which
-- spawned a deeper one) and a session of the ops agent.
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES
  ('agent:main:telegram:42', 'main', NULL, 1700000000000),
  ('agent:main:sub:research', 'main', 'agent:main:telegram:42', 1700000100000),
  ('agent:main:sub:deep', 'main', 'agent:main:sub:research', 1700000200000),
  ('agent:main:cli:7', 'main', NULL, 1700000300000),
  ('agent:ops:cron:1', 'ops', NULL, 1700000400000),
  ('agent:ops:sub:helper', 'ops', 'agent:main:telegram:42', 1700000500000);

INSERT INTO messages(session_key, role, content, created_at, message_id) VALUES
  ('agent:main:telegram:42', 'user', 'Can you deploy staging to the Tokyo region? The config lives in src/deploy/config.yaml', 1700000000001, 'tg-1'),
  ('agent:main:telegram:42', 'assistant', '[{"type":"thinking","thinking":"secret plan about the deploy"},{"type":"text","text":"Deploying staging to 東京 (ap-northeast-1) now."},{"type":"tool_use","id":"call_1","name":"bash","input":{"command":"./deploy.sh staging"}}]', 1700000000002, 'tg-2'),
  ('agent:main:telegram:42', 'tool', 'deploy log: staging ok in 41 s', 1700000000003, 'tg-3'),
  ('agent:main:telegram:42', 'assistant', 'Staging is live. Ticket #123 updated; mail alice@example.com if it breaks.', 1700000000004, 'tg-4'),
  ('agent:main:telegram:42', 'user', 'Should we also deploy production tonight?', 1700000000005, 'tg-5'),
  ('agent:main:telegram:42', 'assistant', 'Noted: production deploy is scheduled for tonight.', 1700000000006, 'tg-6');

-- Rewind to tg-4 and continue on a new branch: tg-5 and tg-6 leave it.
UPDATE sessions SET leaf_id = (SELECT id FROM messages WHERE message_id = 'tg-4') WHERE session_key = 'agent:main:telegram:42';
INSERT INTO messages(session_key, role, content, created_at, message_id) VALUES
  ('agent:main:telegram:42', 'user', 'Actually, roll back the Tokyo deploy. The release token is sk-proj-Zt8qLm3Rv9XwB2nK7pQd4Hs6Yj1Fc5Ga0Ue8Wi3Oy7Tr2Mb9Nx4Lk6Jh1 if you need it.', 1700000000007, 'tg-7'),
  ('agent:main:telegram:42', 'assistant', '[{"type":"output_text","text":"Rolled back. 東京のデプロイをロールバックしました。"}]', 1700000000008, 'tg-8');

INSERT INTO messages(session_key, role, content, created_at) VALUES
  ('agent:main:sub:research', 'user', 'Recherche : le déploiement à Zürich a échoué à cause du café renversé sur le serveur.', 1700000100001),
  ('agent:main:sub:research', 'assistant', 'Die Straße zum Rechenzentrum in München ist gesperrt; Größe des Backups: 3 GB.', 1700000100002),
  ('agent:main:sub:research', 'user', '请查一下北京和上海的部署状态', 1700000100003),
  ('agent:main:sub:research', 'assistant', '서울시에서 배포가 완료되었습니다', 1700000100004),
  ('agent:main:sub:deep', 'user', 'ラーメン屋の近くのデータセンターで再起動しました', 1700000200001),
  ('agent:main:sub:deep', 'assistant', 'The Ærøskøbing mirror is back; the ＡＢＣ fullwidth check passed.', 1700000200002),
  ('agent:main:cli:7', 'user', 'deploy the other project, unrelated to staging', 1700000300001),
  ('agent:ops:cron:1', 'user', 'nightly deploy cron for ops with ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ123456', 1700000400001),
  ('agent:ops:sub:helper', 'assistant', 'ops helper says the staging deploy is done', 1700000500001);

-- A small deferred import, reconciled in slices.
SELECT sessions_set_indexing('deferred');
INSERT INTO messages(session_key, role, content, created_at) VALUES
  ('agent:main:cli:7', 'user', 'imported line one about the deploy', 1700000300002),
  ('agent:main:cli:7', 'assistant', 'imported line two about the deploy', 1700000300003),
  ('agent:main:cli:7', 'user', 'imported line three about the deploy', 1700000300004);
SELECT sessions_status();
SELECT sessions_reconcile(2);
SELECT sessions_reconcile(10);
SELECT sessions_set_indexing('immediate');
SELECT sessions_status();

-- Visibility.
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"self"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"agent"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"all","limit":25}');
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"all","sandboxed":true}');
SELECT sessions_search('deploy', '{"caller":"agent:main:sub:research","visibility":"tree"}');
SELECT sessions_search('deploy', '{"caller":"agent:ops:cron:1","visibility":"agent"}');

-- The rewind: the branch left is not found, the new one is.
SELECT sessions_search('production tonight', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('Tokyo', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('東京', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('ロールバック', '{"caller":"agent:main:telegram:42"}');

-- Folding and CJK substrings.
SELECT sessions_search('cafe deploiement zurich', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('strasse grosse munchen', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('北京', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('部署', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('서울', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('ラー', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('aeroskobing abc', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('"Rechenzentrum in München"', '{"caller":"agent:main:sub:research"}');
SELECT sessions_search('stag*', '{"caller":"agent:main:telegram:42","visibility":"all"}');

-- Only text blocks of user and assistant messages.
SELECT sessions_search('secret plan', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('deploy.sh', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('41', '{"caller":"agent:main:telegram:42"}');

-- Hostile queries.
SELECT sessions_search('src/deploy/config.yaml', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('#123', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('alice@example.com', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('NEAR( AND OR NOT "staging', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('col:umn ^deploy -x* (y)', '{"caller":"agent:main:telegram:42"}');

-- Secrets: redacted in excerpts, never found by themselves.
SELECT sessions_search('release token', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('sk-proj-Zt8qLm3Rv9XwB2nK7pQd4Hs6Yj1Fc5Ga0Ue8Wi3Oy7Tr2Mb9Nx4Lk6Jh1', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_search('nightly cron', '{"caller":"agent:ops:cron:1"}');
SELECT sessions_search('ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ123456', '{"caller":"agent:ops:cron:1"}');
SELECT sessions_search('Tokyo', '{"caller":"agent:main:telegram:42","redact":["(?i)tokyo region"]}');

-- Options.
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"all","limit":2}');
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"all","roles":["assistant"]}');
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"all","since":1700000100000,"until":1700000400001}');
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"all","sessionKeys":["agent:main:cli:7","agent:ops:sub:helper"]}');
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"all","order":"recent"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"all","order":"relevance","snippetChars":24}');
SELECT sessions_search('deploy', '{"caller":"agent:main:telegram:42","visibility":"all","maxBytes":600}');
SELECT sessions_search('staging', '{"caller":"agent:main:telegram:42","visibility":"all","limit":25,"snippetChars":300,"maxBytes":32768,"sandboxed":false}');

-- History.
SELECT sessions_history('agent:main:telegram:42', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_history('agent:main:telegram:42', '{"caller":"agent:main:telegram:42","around":"tg-4","before":1,"after":1}');
SELECT sessions_history('agent:main:telegram:42', '{"caller":"agent:main:telegram:42","around":1,"before":0,"after":2,"maxChars":30}');
SELECT sessions_history('agent:main:telegram:42', '{"caller":"agent:main:telegram:42","limit":2}');
SELECT sessions_history('agent:main:sub:research', '{"caller":"agent:main:telegram:42"}');
SELECT sessions_history('agent:main:sub:deep', '{"caller":"agent:main:sub:research","maxBytes":300}');
SELECT sessions_history('agent:ops:cron:1', '{"caller":"agent:main:telegram:42","visibility":"all"}');

-- Helpers.
SELECT sessions_text((SELECT content FROM messages WHERE message_id = 'tg-2'));
SELECT sessions_tokenize('Café Straße 東京 서울시', 'cjk 1');
SELECT sessions_status();
