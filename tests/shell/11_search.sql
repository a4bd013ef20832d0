-- sessions_search and sessions_history through the sqlite3 shell: every
-- option, hostile queries, the errors, redaction of a fake API key, the
-- indexing flag during a deferred backlog, and history windows.
--
-- `hits` shows, for each row of `probe`, the ids of the messages found,
-- sorted (or '-'), a partial match (not every term) marked `~`; `truncated`
-- is shown when set.
.bail off
.echo on
.load dist/session_search
SELECT sessions_init();
-- Two agents. agent:main:cli:1 spawned sub:1, which spawned sub:2, and also
-- spawned a session of the ops agent; cli:2 and ops:cli:1 are unrelated.
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES
  ('agent:main:cli:1', 'main', NULL, 100),
  ('agent:main:sub:1', 'main', 'agent:main:cli:1', 200),
  ('agent:main:sub:2', 'main', 'agent:main:sub:1', 300),
  ('agent:main:cli:2', 'main', NULL, 400),
  ('agent:ops:sub:9', 'ops', 'agent:main:cli:1', 500),
  ('agent:ops:cli:1', 'ops', NULL, 600);
INSERT INTO messages(id, session_key, role, content, created_at, message_id) VALUES
  (1, 'agent:main:cli:1', 'user', 'Please deploy the staging server', 1000, 'msg-1'),
  (2, 'agent:main:cli:1', 'assistant', 'The staging deploy is done', 1001, 'msg-2'),
  (3, 'agent:main:sub:1', 'user', 'deploy from the first sub-agent', 2000, NULL),
  (4, 'agent:main:sub:2', 'assistant', 'deploy from the second sub-agent', 3000, NULL),
  (5, 'agent:main:cli:2', 'user', 'deploy from the other cli session', 4000, NULL),
  (6, 'agent:ops:sub:9', 'user', 'deploy from the spawned ops session', 5000, NULL),
  (7, 'agent:ops:cli:1', 'user', 'deploy from the unrelated ops session', 6000, NULL);
CREATE TEMP TABLE probe(query TEXT, options TEXT);
CREATE TEMP VIEW hits AS
  SELECT query, options,
         (SELECT ifnull(group_concat(id || mark, ','), '-')
          FROM (SELECT json_extract(r.value, '$.id') AS id,
                       iif(json_extract(r.value, '$.partial'), '~', '') AS mark
                FROM json_each(sessions_search(query, options), '$.results') r ORDER BY 1)) AS ids,
         json_extract(sessions_search(query, options), '$.truncated') AS truncated
  FROM probe ORDER BY probe.rowid;
-- The full answer once.
SELECT sessions_search('staging', '{"caller":"agent:main:cli:1"}');
-- Visibility: self, tree (the default), agent, all; sandboxed clamps agent
-- and all to tree. tree follows spawned_by across agents, never upwards.
INSERT INTO probe VALUES
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"self"}'),
  ('deploy', '{"caller":"agent:main:cli:1"}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"tree"}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"agent"}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all"}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","sandboxed":true}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"agent","sandboxed":true}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"self","sandboxed":true}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","sandboxed":false}'),
  ('deploy', '{"caller":"agent:main:sub:1"}'),
  ('deploy', '{"caller":"agent:main:sub:1","visibility":"agent"}'),
  ('deploy', '{"caller":"agent:main:sub:2"}'),
  ('deploy', '{"caller":"agent:ops:sub:9"}'),
  ('deploy', '{"caller":"agent:ops:sub:9","visibility":"agent"}'),
  ('deploy', '{"caller":"agent:ops:cli:1","visibility":"agent","sandboxed":true}');
SELECT * FROM hits;
DELETE FROM probe;
-- limit (1-25, default 10): truncated says more hits existed.
INSERT INTO probe VALUES
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","limit":1}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","limit":6}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","limit":7}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","limit":25}');
SELECT * FROM hits;
DELETE FROM probe;
-- roles, since and until (inclusive), sessionKeys (still within visibility).
INSERT INTO probe VALUES
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","roles":["assistant"]}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","roles":["user"]}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","roles":["user","assistant"]}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","since":2000,"until":4000}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","since":2001}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","until":1001}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","since":4000,"until":3000}'),
  ('deploy', '{"caller":"agent:main:cli:1","sessionKeys":["agent:main:sub:2","agent:ops:cli:1"]}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","sessionKeys":["agent:main:sub:2","agent:ops:cli:1"]}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","sessionKeys":["no:such:session"]}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","roles":["assistant"],"since":1001,"until":2999,"sessionKeys":["agent:main:cli:1"]}');
SELECT * FROM hits;
DELETE FROM probe;
-- order: relevance is BM25 (score = -bm25), ties broken by newer first;
-- recent is newest first. FTS5's own bm25() over the same texts in a plain
-- table is shown for comparison: the same order (the scope column changes no
-- score); a one-term query's scores leave out the IDF factor all hits share.
INSERT INTO messages(id, session_key, role, content, created_at) VALUES
  (10, 'agent:main:cli:1', 'user', 'rollback rollback rollback', 1100),
  (11, 'agent:main:cli:1', 'assistant', 'we planned a rollback of the release for tonight, after the checks', 1200),
  (12, 'agent:main:cli:1', 'user', 'rollback now', 1300),
  (13, 'agent:main:cli:1', 'assistant', 'identical twin text', 1400),
  (14, 'agent:main:cli:1', 'assistant', 'identical twin text', 1500),
  (15, 'agent:main:cli:1', 'assistant', 'identical twin text', 1500);
CREATE VIRTUAL TABLE temp.plain USING fts5(text, tokenize = 'sessions cjk 1');
INSERT INTO plain(rowid, text) SELECT ~id, text FROM session_search_text;
SELECT rowid, round(-bm25(plain), 12) FROM plain WHERE plain MATCH 'rollback' ORDER BY rank;
SELECT json_extract(r.value, '$.id'), round(json_extract(r.value, '$.score'), 12)
  FROM json_each(sessions_search('rollback', '{"caller":"agent:main:cli:1"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.id'))
  FROM json_each(sessions_search('rollback', '{"caller":"agent:main:cli:1","order":"relevance"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.id'))
  FROM json_each(sessions_search('rollback', '{"caller":"agent:main:cli:1","order":"recent"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.id'))
  FROM json_each(sessions_search('twin', '{"caller":"agent:main:cli:1"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.id'))
  FROM json_each(sessions_search('deploy', '{"caller":"agent:main:cli:1","visibility":"all","order":"recent"}'), '$.results') r;
-- snippetChars (1-300, default 300): the excerpt is cut around the match,
-- white space collapsed, ellipses counted.
INSERT INTO messages(id, session_key, role, content, created_at) VALUES
  (20, 'agent:main:cli:1', 'user',
   printf('%.150c', 'a') || char(10) || char(10) || ' the   needle   is here ' || printf('%.150c', 'b'), 1600);
SELECT json_extract(sessions_search('needle', '{"caller":"agent:main:cli:1","snippetChars":30}'), '$.results[0].snippet');
SELECT length(json_extract(sessions_search('needle', '{"caller":"agent:main:cli:1","snippetChars":30}'), '$.results[0].snippet'));
SELECT length(json_extract(sessions_search('needle', '{"caller":"agent:main:cli:1"}'), '$.results[0].snippet'));
SELECT json_extract(sessions_search('needle', '{"caller":"agent:main:cli:1","snippetChars":300}'), '$.results[0].snippet');
-- maxBytes (2-32768): the results array fits in it, truncated says a hit
-- was left out.
INSERT INTO probe VALUES
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","maxBytes":2}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","maxBytes":400}'),
  ('deploy', '{"caller":"agent:main:cli:1","visibility":"all","maxBytes":32768}');
SELECT * FROM hits;
DELETE FROM probe;
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","visibility":"all","maxBytes":2}');
SELECT length(json_extract(sessions_search('deploy', '{"caller":"agent:main:cli:1","visibility":"all","maxBytes":400}'), '$.results')) <= 400;
-- redact: a request's own patterns, added to the defaults, redact its
-- excerpts (a group named secret redacts only itself). They do not change
-- the index, so the words inside them are still found.
INSERT INTO messages(id, session_key, role, content, created_at) VALUES
  (30, 'agent:main:cli:1', 'user', 'the codename-falcon launch and vault pin 8391 are ready', 1700);
SELECT json_extract(sessions_search('launch', '{"caller":"agent:main:cli:1"}'), '$.results[0].snippet');
SELECT json_extract(sessions_search('launch', '{"caller":"agent:main:cli:1","redact":["codename-[a-z]+"]}'), '$.results[0].snippet');
SELECT json_extract(sessions_search('launch', '{"caller":"agent:main:cli:1","redact":["codename-[a-z]+","vault pin (?P<secret>[0-9]+)"]}'), '$.results[0].snippet');
SELECT json_extract(sessions_search('falcon', '{"caller":"agent:main:cli:1","redact":["codename-[a-z]+"]}'), '$.results[0].snippet');
SELECT sessions_search('launch', '{"caller":"agent:main:cli:1","redact":["("]}');
SELECT sessions_search('launch', '{"caller":"agent:main:cli:1","redact":"codename"}');
-- Patterns stored with sessions_set_redaction() redact the index itself:
-- every message is re-indexed through reconciliation, then nothing inside
-- them is found, and excerpts and history are redacted without asking.
SELECT sessions_set_redaction('["codename-[a-z]+","vault pin (?P<secret>[0-9]+)"]');
SELECT sessions_reconcile(100000);
SELECT json_extract(sessions_search('launch', '{"caller":"agent:main:cli:1"}'), '$.results[0].snippet');
SELECT sessions_search('falcon', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('codename*', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('8391', '{"caller":"agent:main:cli:1"}');
SELECT json_extract(sessions_history('agent:main:cli:1', '{"caller":"agent:main:cli:1","around":30,"before":0,"after":0}'), '$.messages[0].text');
SELECT json_extract(sessions_status(), '$.redaction_patterns');
-- The same patterns again change nothing; bad ones are refused and keep
-- the stored ones.
SELECT sessions_set_redaction('["codename-[a-z]+","vault pin (?P<secret>[0-9]+)"]');
SELECT sessions_set_redaction('["ok", "("]');
SELECT sessions_set_redaction('codename');
SELECT sessions_set_redaction('[]');
SELECT sessions_reconcile(100000);
SELECT json_extract(sessions_search('falcon', '{"caller":"agent:main:cli:1"}'), '$.results[0].snippet');
-- A fake API key: redacted in the excerpt; searching for the key, or any
-- part of it, returns nothing.
INSERT INTO messages(id, session_key, role, content, created_at) VALUES
  (40, 'agent:main:cli:1', 'user', 'export the key sk-proj-Zt8qLm3Rv9XwB2nK7pQd4Hs6Yj1Fc5Ga0Ue8Wi3Oy7Tr2Mb9Nx4Lk6Jh1 before the rotation', 1800),
  (41, 'agent:main:cli:1', 'assistant', 'the token ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ123456 also needs rotation', 1801);
SELECT json_extract(r.value, '$.id'), json_extract(r.value, '$.snippet')
  FROM json_each(sessions_search('rotation', '{"caller":"agent:main:cli:1"}'), '$.results') r ORDER BY 1;
SELECT sessions_search('sk-proj-Zt8qLm3Rv9XwB2nK7pQd4Hs6Yj1Fc5Ga0Ue8Wi3Oy7Tr2Mb9Nx4Lk6Jh1', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('"sk-proj-Zt8qLm3Rv9XwB2nK7pQd4Hs6Yj1Fc5Ga0Ue8Wi3Oy7Tr2Mb9Nx4Lk6Jh1"', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('Zt8qLm3Rv9XwB2nK7pQd4Hs6Yj1Fc5Ga0Ue8Wi3Oy7Tr2Mb9Nx4Lk6Jh1', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('Zt8q*', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('ghp_R4nD0mT0k3nV4lu3F0rT3st1ngXyZ123456', '{"caller":"agent:main:cli:1"}');
SELECT json_array_length(sessions_search('sk proj', '{"caller":"agent:main:cli:1"}'), '$.results');
SELECT json_extract(sessions_search('export rotation', '{"caller":"agent:main:cli:1"}'), '$.results[0].snippet');
SELECT json_extract(sessions_history('agent:main:cli:1', '{"caller":"agent:main:cli:1","around":40,"before":0,"after":1}'), '$.messages');
-- The index holds the redacted text: highlight() and snippet() read it, and
-- none of the key's characters is an index term.
SELECT highlight(session_search_fts, 0, '<', '>') FROM session_search_fts WHERE session_search_fts MATCH '{text}: rotation' ORDER BY rowid;
SELECT snippet(session_search_fts, 0, '<', '>', '…', 6) FROM session_search_fts WHERE session_search_fts MATCH '{text}: export';
CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, session_search_fts, 'row');
SELECT count(*) FROM temp.terms WHERE term LIKE 'zt8q%' OR term LIKE 'r4nd0m%' OR term = 'redacted';
DROP TABLE temp.terms;
-- Hostile queries are plain text: never an FTS5 syntax error.
INSERT INTO messages(id, session_key, role, content, created_at) VALUES
  (50, 'agent:main:cli:1', 'user', 'open src/main.py and mail alice@example.com about issue #123', 1900),
  (51, 'agent:main:cli:1', 'assistant', 'the office is near the station, and or not, you decide', 1901),
  (52, 'agent:main:cli:1', 'user', 'say "hello" to C# and NEAR(a b) fans', 1902);
INSERT INTO probe VALUES
  ('src/main.py', '{"caller":"agent:main:cli:1"}'),
  ('alice@example.com', '{"caller":"agent:main:cli:1"}'),
  ('#123', '{"caller":"agent:main:cli:1"}'),
  ('123', '{"caller":"agent:main:cli:1"}'),
  ('NEAR(', '{"caller":"agent:main:cli:1"}'),
  ('NEAR(a b)', '{"caller":"agent:main:cli:1"}'),
  ('AND OR NOT', '{"caller":"agent:main:cli:1"}'),
  ('NOT', '{"caller":"agent:main:cli:1"}'),
  ('"hello', '{"caller":"agent:main:cli:1"}'),
  ('say "hello" to', '{"caller":"agent:main:cli:1"}'),
  ('"office is near"', '{"caller":"agent:main:cli:1"}'),
  ('"office near"', '{"caller":"agent:main:cli:1"}'),
  ('C#', '{"caller":"agent:main:cli:1"}'),
  ('main.py*', '{"caller":"agent:main:cli:1"}'),
  ('stag*', '{"caller":"agent:main:cli:1"}'),
  ('col:umn ^start -minus +plus (paren) {brace}', '{"caller":"agent:main:cli:1"}'),
  ('DEPLOY', '{"caller":"agent:main:cli:1"}'),
  ('deploy nonexistentword', '{"caller":"agent:main:cli:1"}'),
  ('deploy OR nonexistentword', '{"caller":"agent:main:cli:1"}'),
  ('staging OR second deploy', '{"caller":"agent:main:cli:1"}'),
  ('staging nonexistentword', '{"caller":"agent:main:cli:1","limit":1}'),
  ('deploy', '{"caller":"agent:main:cli:1","groupBy":"session","limit":2}'),
  ('staging server deploy', '{"caller":"agent:main:cli:1","groupBy":"session"}');
SELECT json_extract(value, '$.sessionKey'), json_extract(value, '$.id'), json_extract(value, '$.hits'), json_extract(value, '$.partial')
FROM json_each(sessions_search('staging server deploy', '{"caller":"agent:main:cli:1","groupBy":"session"}'), '$.results');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","groupBy":"sessions"}');
SELECT * FROM hits;
DELETE FROM probe;
-- 4096 characters of noise (quotes, brackets, FTS5 operators) is a query;
-- 4097 characters is an error, whatever they are. 585 times 'deploy ' and a
-- space are 4096 characters: the repeated term is searched once.
SELECT length(substr(replace(printf('%.500c', 'x'), 'x', '"a" OR (b* NEAR c) ^d:e -f '), 1, 4096));
SELECT sessions_search(substr(replace(printf('%.500c', 'x'), 'x', '"a" OR (b* NEAR c) ^d:e -f '), 1, 4096), '{"caller":"agent:main:cli:1"}');
SELECT sessions_search(printf('%.4096c', 'x'), '{"caller":"agent:main:cli:1"}');
SELECT sessions_search(printf('%.4097c', 'x'), '{"caller":"agent:main:cli:1"}');
SELECT sessions_search(
  (WITH RECURSIVE q(s) AS (SELECT 'deploy ' UNION ALL SELECT s || 'deploy ' FROM q WHERE length(s) < 4097)
   SELECT substr(max(s), 1, 4097) FROM q),
  '{"caller":"agent:main:cli:1"}');
SELECT json_array_length(sessions_search(
  (WITH RECURSIVE q(s) AS (SELECT 'deploy ' UNION ALL SELECT s || 'deploy ' FROM q WHERE length(s) < 4095)
   SELECT substr(max(s), 1, 4095) || ' ' FROM q),
  '{"caller":"agent:main:cli:1"}'), '$.results');
-- Queries that cannot be run.
SELECT sessions_search('', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('   ', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('"', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('?!# ... ***', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('*', '{"caller":"agent:main:cli:1","visibility":"all"}');
SELECT sessions_search(NULL, '{"caller":"agent:main:cli:1"}');
-- Option errors: missing or unknown caller (fail closed), bad values,
-- unknown keys, malformed JSON.
SELECT sessions_search('deploy', '{}');
SELECT sessions_search('deploy', '{"caller":""}');
SELECT sessions_search('deploy', '{"caller":"agent:main:nobody"}');
SELECT sessions_search('deploy', '{"caller":null,"visibility":"all"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","visibility":"everyone"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","visiblity":"all"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","sandboxed":"yes"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","limit":0}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","limit":26}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","limit":"5"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","roles":["tool"]}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","roles":"user"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","since":"yesterday"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","order":"newest"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","snippetChars":0}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","snippetChars":301}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","maxBytes":1}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","maxBytes":32769}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1","sessionKeys":"agent:main:cli:1"}');
SELECT sessions_search('deploy', '{caller:"agent:main:cli:1"}');
SELECT sessions_search('deploy', '{"caller":"agent:main:cli:1"');
SELECT sessions_search('deploy', '["agent:main:cli:1"]');
SELECT sessions_search('deploy', '');
SELECT sessions_search('deploy', NULL);
SELECT sessions_search('deploy', 42);
SELECT sessions_search('deploy');
-- The indexing flag: a deferred backlog of 450 messages. Each search first
-- indexes up to 200 of them and answers indexing: true, with a warning,
-- while work remains; its results come from what is indexed so far.
SELECT json_type(sessions_search('deploy', '{"caller":"agent:main:cli:1"}'), '$.indexing') IS NULL;
SELECT sessions_set_indexing('deferred');
INSERT INTO messages(session_key, role, content, created_at)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 450)
  SELECT 'agent:main:cli:2', 'user', 'bulk import row ' || i, 10000 + i FROM n;
SELECT json_extract(sessions_status(), '$.pending');
SELECT sessions_search('import', '{"caller":"agent:main:cli:2","limit":1}');
SELECT json_extract(sessions_status(), '$.pending');
SELECT json_extract(value, '$.results[0].snippet'), json_extract(value, '$.indexing'), json_extract(value, '$.warning') IS NOT NULL
  FROM (SELECT sessions_search('row 399', '{"caller":"agent:main:cli:2"}') AS value);
SELECT json_extract(sessions_status(), '$.pending');
SELECT sessions_search('"row 450"', '{"caller":"agent:main:cli:2"}');
SELECT json_extract(sessions_status(), '$.pending');
SELECT sessions_search('"row 450"', '{"caller":"agent:main:cli:2"}');
SELECT json_extract(sessions_status(), '$.pending'), json_extract(sessions_status(), '$.integrity');
SELECT sessions_set_indexing('immediate');
-- sessions_history: the active branch, oldest first, in windows.
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES ('agent:main:hist', 'main', 'agent:main:cli:1', 700);
INSERT INTO messages(id, session_key, role, content, created_at, message_id)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)
  SELECT 1000 + i, 'agent:main:hist', CASE i % 2 WHEN 1 THEN 'user' ELSE 'assistant' END, 'history line ' || i, 7000 + i, 'h' || i FROM n;
CREATE TEMP TABLE hprobe(session_key TEXT, options TEXT);
CREATE TEMP VIEW window AS
  SELECT options,
         (SELECT group_concat(json_extract(m.value, '$.messageId'), ',')
          FROM json_each(sessions_history(session_key, options), '$.messages') m) AS shown,
         json_extract(sessions_history(session_key, options), '$.before') AS before,
         json_extract(sessions_history(session_key, options), '$.after') AS after,
         json_extract(sessions_history(session_key, options), '$.truncated') AS truncated
  FROM hprobe ORDER BY hprobe.rowid;
INSERT INTO hprobe VALUES
  ('agent:main:hist', '{"caller":"agent:main:cli:1"}'),
  ('agent:main:hist', '{"caller":"agent:main:hist"}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","limit":3}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":"h6"}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":"h6","before":2,"after":1}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":1006,"before":2,"after":1}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":"1006","before":2,"after":1}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":"h6","before":0,"after":0}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":"h1","before":5,"after":1}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":"h12","before":1,"after":5}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":"h6","before":100,"after":100}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":"h6","before":1,"after":1,"limit":3}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":"h3","before":0,"after":0,"maxChars":7}');
SELECT * FROM window;
DELETE FROM hprobe;
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","around":"h3","before":1,"after":1,"maxChars":7}');
-- After a rewind the window is the new branch; an around message off the
-- branch, of another session, or unknown is an error.
UPDATE sessions SET leaf_id = 1008 WHERE session_key = 'agent:main:hist';
INSERT INTO messages(id, session_key, role, content, created_at, message_id) VALUES
  (1020, 'agent:main:hist', 'user', 'history branch b1', 7100, 'b1');
INSERT INTO hprobe VALUES
  ('agent:main:hist', '{"caller":"agent:main:cli:1"}'),
  ('agent:main:hist', '{"caller":"agent:main:cli:1","around":"b1","before":2,"after":2}');
SELECT * FROM window;
DELETE FROM hprobe;
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","around":"h10"}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","around":"msg-1"}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","around":1}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","around":"nope"}');
-- Visibility as for search: a session the caller cannot see gives the
-- same error whether or not it exists.
SELECT json_extract(sessions_history('agent:main:hist', '{"caller":"agent:main:hist","visibility":"self"}'), '$.sessionKey');
SELECT sessions_history('agent:main:cli:1', '{"caller":"agent:main:sub:1"}');
SELECT sessions_history('agent:main:nothing', '{"caller":"agent:main:sub:1"}');
SELECT sessions_history('agent:ops:cli:1', '{"caller":"agent:main:cli:1","visibility":"all","sandboxed":true}');
SELECT json_array_length(sessions_history('agent:ops:cli:1', '{"caller":"agent:main:cli:1","visibility":"all"}'), '$.messages');
SELECT sessions_history('agent:main:cli:2', '{"caller":"agent:main:sub:2","visibility":"self"}');
SELECT json_extract(sessions_history('agent:main:cli:2', '{"caller":"agent:main:sub:2","visibility":"agent","limit":1}'), '$.messages[0].text');
-- History errors.
SELECT sessions_history('agent:main:hist', '{}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:nobody"}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","before":101}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","after":-1}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","limit":0}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","limit":201}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","maxChars":20001}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","maxBytes":65537}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","around":true}');
SELECT sessions_history('agent:main:hist', '{"caller":"agent:main:cli:1","limits":5}');
SELECT sessions_history('agent:main:hist', 'caller=agent:main:cli:1');
SELECT sessions_history(NULL, '{"caller":"agent:main:cli:1"}');
SELECT sessions_history('agent:main:hist', NULL);
SELECT json_extract(sessions_status(), '$.integrity');
-- Questions: when full matches are fewer than the limit, partial matches
-- fill the page, by one score, with the terms each holds; a word also
-- matches its other forms and a CJK run its pieces there, never in full
-- matches; `terms` counts each word among the caller's messages only.
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES
  ('agent:q:1', 'q', NULL, 900), ('agent:q:other', 'q2', NULL, 901);
INSERT INTO messages(session_key, role, content, created_at) VALUES
  ('agent:q:1', 'assistant', 'the compilation failed on the build box', 910),
  ('agent:q:1', 'user', 'compile it again', 911),
  ('agent:q:1', 'assistant', '我們的機器人用 PostgreSQL 當資料庫', 912),
  ('agent:q:other', 'user', 'a zeppelin compiled', 913);
SELECT json_extract(value, '$.snippet'), json_extract(value, '$.partial'), json_extract(value, '$.matched')
FROM json_each(json_extract(sessions_search('compiling errors', '{"caller":"agent:q:1","visibility":"self"}'), '$.results'));
SELECT json_extract(sessions_search('where did we see compiling zeppelin errors?', '{"caller":"agent:q:1","visibility":"self"}'), '$.terms');
SELECT json_extract(sessions_search('where did we see compiling zeppelin errors?', '{"caller":"agent:q:1","visibility":"all"}'), '$.terms[5]');
SELECT json_extract(sessions_search('"compiling"', '{"caller":"agent:q:1","visibility":"self"}'), '$.results');
SELECT json_extract(sessions_search('compile', '{"caller":"agent:q:1","visibility":"self"}'), '$.results[0].snippet', '$.results[0].partial', '$.results[1].snippet', '$.results[1].partial');
SELECT json_extract(value, '$.snippet'), json_extract(value, '$.matched')
FROM json_each(json_extract(sessions_search('上次那個機器人用了什麼資料庫？', '{"caller":"agent:q:1","visibility":"self"}'), '$.results'));
SELECT json_extract(sessions_search('"機器人資料庫"', '{"caller":"agent:q:1","visibility":"self"}'), '$.results');
