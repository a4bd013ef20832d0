-- The transcript store through plain SQL: init, writes, content blocks,
-- rewinds and branches, deletes, rollback, the errors the triggers raise,
-- deferred indexing with reconciliation, and adopting a database whose
-- transcripts were written before sessions_init().
--
-- `found` shows, for each probe word, the ids of the messages that
-- sessions_search returns for it (visibility all, from session 'a'), or '-'.
.bail off
.echo on
.load dist/session_search
-- sessions_init() is idempotent: the second call changes nothing.
SELECT sessions_init();
SELECT sessions_init();
SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'session_search_fts_%' ORDER BY type, name;
SELECT sessions_init();
SELECT count(*) FROM sqlite_master;
-- Writes are plain SQL. A new message becomes its session's leaf.
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES ('a', 'main', NULL, 1000);
INSERT INTO messages(session_key, role, content, created_at) VALUES ('a', 'user', 'alpha words', 1001);
INSERT INTO messages(session_key, role, content, created_at, message_id) VALUES
  ('a', 'assistant', 'bravo words', 1002, 'host-2'),
  ('a', 'user', 'charlie words', 1003, 'host-3'),
  ('a', 'assistant', 'delta words', 1004, 'host-4');
SELECT session_key, agent_id, spawned_by, created_at, leaf_id FROM sessions;
SELECT id, session_key, parent_id, role, content, created_at, message_id FROM messages ORDER BY id;
CREATE TEMP VIEW found AS
  SELECT w.value AS word,
         (SELECT ifnull(group_concat(json_extract(r.value, '$.id'), ','), '-')
          FROM json_each(sessions_search(w.value, '{"caller":"a","visibility":"all"}'), '$.results') r) AS ids
  FROM json_each('["alpha","bravo","charlie","delta","echo","foxtrot","golf","lima","words"]') w;
SELECT * FROM found;
SELECT sessions_search('charlie', '{"caller":"a"}');
-- Rewind: messages 3 and 4 leave the active branch and are no longer found.
UPDATE sessions SET leaf_id = 2 WHERE session_key = 'a';
SELECT * FROM found;
-- A new message after the rewind starts a new branch after message 2.
INSERT INTO messages(session_key, role, content, created_at) VALUES ('a', 'user', 'echo words', 1005);
SELECT id, parent_id FROM messages WHERE id = 5;
SELECT leaf_id FROM sessions WHERE session_key = 'a';
SELECT * FROM found;
-- Switching back to the first branch: 3 and 4 return, 5 leaves.
UPDATE sessions SET leaf_id = 4 WHERE session_key = 'a';
SELECT * FROM found;
-- A branch from the middle: an explicit parent_id forks after message 1.
INSERT INTO messages(session_key, parent_id, role, content, created_at) VALUES ('a', 1, 'assistant', 'foxtrot words', 1006);
SELECT leaf_id FROM sessions WHERE session_key = 'a';
SELECT * FROM found;
-- Rewind to empty: nothing of the session is found.
UPDATE sessions SET leaf_id = NULL WHERE session_key = 'a';
SELECT * FROM found;
SELECT sessions_history('a', '{"caller":"a"}');
-- Appending to an empty session starts a new root.
INSERT INTO messages(session_key, role, content, created_at) VALUES ('a', 'user', 'golf words', 1007);
SELECT id, parent_id FROM messages WHERE id = 7;
SELECT * FROM found;
-- Back to the branch through 5: the switch takes effect inside the
-- transaction and is undone with it.
BEGIN;
UPDATE sessions SET leaf_id = 5 WHERE session_key = 'a';
SELECT * FROM found;
ROLLBACK;
SELECT leaf_id FROM sessions WHERE session_key = 'a';
SELECT * FROM found;
UPDATE sessions SET leaf_id = 5 WHERE session_key = 'a';
SELECT sessions_history('a', '{"caller":"a"}');
-- A parent_id off the active branch switches to that branch and extends it.
INSERT INTO messages(session_key, parent_id, role, content, created_at) VALUES ('a', 3, 'user', 'lima words', 1008);
SELECT leaf_id FROM sessions WHERE session_key = 'a';
SELECT * FROM found;
UPDATE sessions SET leaf_id = 5 WHERE session_key = 'a';
SELECT * FROM found;
SELECT sessions_status();
-- Content blocks: only the text blocks (text, input_text, output_text) of
-- user and assistant messages are searchable. Reasoning, tool calls, tool
-- results and images are stored and summarised in history, never found;
-- tool and system messages are never found.
INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('b', 'main', 2000);
INSERT INTO messages(id, session_key, role, content, created_at) VALUES
  (20, 'b', 'user', '[{"type":"input_text","text":"hotel question"},{"type":"image","source":{"type":"base64","data":"imagekilo"}}]', 2001),
  (21, 'b', 'assistant', '[{"type":"thinking","thinking":"thinkingmike"},{"type":"text","text":"india answer"},{"type":"tool_use","id":"t1","name":"bash","input":{"command":"tooluseoscar"}}]', 2002),
  (22, 'b', 'user', '[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"resultpapa"}]}]', 2003),
  (23, 'b', 'tool', 'toolrolequebec output', 2004),
  (24, 'b', 'system', 'systemromeo prompt', 2005),
  (25, 'b', 'assistant', '[{"type":"reasoning","text":"reasoningsierra"},{"type":"output_text","text":"juliet done"},{"type":"toolCall","name":"read","arguments":{"path":"toolcalltango"}}]', 2006);
SELECT id, sessions_text(content) FROM messages WHERE session_key = 'b' ORDER BY id;
SELECT w.value,
       (SELECT ifnull(group_concat(json_extract(r.value, '$.id'), ','), '-')
        FROM json_each(sessions_search(w.value, '{"caller":"b"}'), '$.results') r)
FROM json_each('["hotel","india","juliet","imagekilo","thinkingmike","tooluseoscar","resultpapa","toolrolequebec","systemromeo","reasoningsierra","toolcalltango","bash","t1"]') w;
SELECT sessions_history('b', '{"caller":"b"}');
SELECT sessions_status();
-- Editing content re-indexes the message; editing its role to tool removes
-- it from the index.
UPDATE messages SET content = 'hotel changed to uniform' WHERE id = 20;
SELECT w.value,
       (SELECT ifnull(group_concat(json_extract(r.value, '$.id'), ','), '-')
        FROM json_each(sessions_search(w.value, '{"caller":"b"}'), '$.results') r)
FROM json_each('["hotel","question","uniform"]') w;
UPDATE messages SET role = 'tool' WHERE id = 20;
SELECT sessions_search('uniform', '{"caller":"b"}');
UPDATE messages SET role = 'user' WHERE id = 20;
SELECT json_extract(sessions_search('uniform', '{"caller":"b"}'), '$.results[0].id');
-- Deleting a message: it is no longer found, its child hangs from its
-- parent, and the branch in history skips it.
DELETE FROM messages WHERE id = 2;
SELECT * FROM found;
SELECT sessions_history('a', '{"caller":"a"}');
-- Deleting the leaf moves the leaf to its parent.
DELETE FROM messages WHERE id = 5;
SELECT leaf_id FROM sessions WHERE session_key = 'a';
SELECT * FROM found;
-- Switching to the branch below the deleted message 2 still works.
UPDATE sessions SET leaf_id = 4 WHERE session_key = 'a';
SELECT * FROM found;
SELECT sessions_history('a', '{"caller":"a"}');
-- Deleting a session deletes its messages and their index entries.
DELETE FROM sessions WHERE session_key = 'b';
SELECT count(*) FROM messages WHERE session_key = 'b';
SELECT sessions_search('juliet', '{"caller":"a","visibility":"all"}');
SELECT sessions_status();
-- A rolled-back insert leaves neither the row nor its index entry; inside
-- the transaction it is found.
BEGIN;
INSERT INTO messages(id, session_key, role, content, created_at) VALUES (30, 'a', 'user', 'victor inside', 3001);
SELECT json_extract(sessions_search('victor', '{"caller":"a"}'), '$.results[0].id');
SELECT leaf_id FROM sessions WHERE session_key = 'a';
ROLLBACK;
SELECT count(*) FROM messages WHERE id = 30;
SELECT leaf_id FROM sessions WHERE session_key = 'a';
SELECT sessions_search('victor', '{"caller":"a"}');
SELECT sessions_status();
-- Errors, each leaving the database unchanged.
INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('c', 'other', 4000);
INSERT INTO messages(id, session_key, role, content, created_at) VALUES (31, 'c', 'user', 'whiskey in c', 4001);
-- An unknown session.
INSERT INTO messages(session_key, role, content, created_at) VALUES ('nobody', 'user', 'xray', 4002);
-- A parent from another session, and a message as its own parent.
INSERT INTO messages(session_key, parent_id, role, content, created_at) VALUES ('a', 31, 'user', 'xray', 4003);
INSERT INTO messages(id, session_key, parent_id, role, content, created_at) VALUES (40, 'a', 40, 'user', 'xray', 4004);
-- A leaf from another session, and a leaf that names no message.
UPDATE sessions SET leaf_id = 31 WHERE session_key = 'a';
UPDATE sessions SET leaf_id = 999 WHERE session_key = 'a';
-- A message's place in the tree cannot change (an appended message's
-- parent_id already records the message it followed).
UPDATE messages SET parent_id = 1 WHERE id = 4;
UPDATE messages SET parent_id = NULL WHERE id = 6;
UPDATE messages SET session_key = 'c' WHERE id = 4;
UPDATE messages SET id = 41 WHERE id = 4;
UPDATE sessions SET session_key = 'renamed' WHERE session_key = 'c';
-- A role outside the four, a time that is not an integer (also by UPDATE),
-- an empty, non-text or not UTF-8 session key.
INSERT INTO messages(session_key, role, content, created_at) VALUES ('a', 'robot', 'xray', 4005);
UPDATE messages SET role = 'admin' WHERE id = 4;
UPDATE messages SET created_at = 'later' WHERE id = 4;
INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('', 'main', 4006);
INSERT INTO sessions(session_key, agent_id, created_at) VALUES (x'c3', 'main', 4007);
INSERT INTO sessions(session_key, agent_id, created_at) VALUES (CAST(x'ff' AS TEXT), 'main', 4008);
INSERT INTO sessions(session_key, agent_id, created_at) VALUES (CAST(x'6b6579c3' AS TEXT), 'main', 4009);
SELECT sessions_is_utf8('tōkyō 東京'), sessions_is_utf8(CAST(x'ff' AS TEXT)), sessions_is_utf8(x'41'), sessions_is_utf8(NULL), sessions_is_utf8(7);
SELECT count(*) FROM sessions WHERE session_key IN ('', x'c3', CAST(x'ff' AS TEXT), CAST(x'6b6579c3' AS TEXT));
-- A message_id that is not UTF-8 text (on insert and on update): search
-- results and histories could not give it back as messageId.
INSERT INTO messages(session_key, role, content, created_at, message_id) VALUES ('a', 'user', 'yak', 4010, CAST(x'ff' AS TEXT));
INSERT INTO messages(session_key, role, content, created_at, message_id) VALUES ('a', 'user', 'yak', 4011, x'6d2d31');
UPDATE messages SET message_id = CAST(x'6d2dc3' AS TEXT) WHERE id = 4;
SELECT count(*), (SELECT quote(message_id) FROM messages WHERE id = 4) FROM messages WHERE content = 'yak';
BEGIN;
INSERT INTO messages(session_key, role, content, created_at, message_id) VALUES ('a', 'user', 'yak', 4012, 'yak-7');
SELECT json_extract(sessions_search('yak', '{"caller":"a"}'), '$.results[0].messageId');
ROLLBACK;
SELECT role, typeof(created_at) FROM messages WHERE id = 4;
-- Rewriting a column with its own value is not a change.
UPDATE messages SET parent_id = parent_id, session_key = session_key WHERE id = 4;
SELECT count(*) FROM messages WHERE content = 'xray';
SELECT session_key, leaf_id FROM sessions ORDER BY session_key;
SELECT id, parent_id, session_key FROM messages ORDER BY id;
SELECT sessions_search('xray', '{"caller":"a","visibility":"all"}');
SELECT sessions_status();
-- Deferred indexing: writes are only queued; sessions_reconcile indexes them
-- in slices, oldest first, and reports its progress.
SELECT sessions_set_indexing('deferred');
SELECT sessions_set_indexing('deferred');
INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('d', 'main', 5000);
INSERT INTO messages(session_key, role, content, created_at)
  WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5)
  SELECT 'd', CASE i % 2 WHEN 1 THEN 'user' ELSE 'assistant' END, 'yankee number ' || i, 5000 + i FROM n;
INSERT INTO messages(session_key, role, content, created_at) VALUES ('d', 'tool', 'yankee tool output', 5006);
SELECT sessions_status();
SELECT count(*) FROM session_search_fts WHERE session_search_fts MATCH 'yankee';
SELECT sessions_reconcile(2);
SELECT count(*) FROM session_search_fts WHERE session_search_fts MATCH 'yankee';
SELECT sessions_reconcile(2);
SELECT sessions_reconcile(100);
SELECT sessions_reconcile(100);
SELECT sessions_status();
SELECT json_array_length(sessions_search('yankee', '{"caller":"d"}'), '$.results');
-- A rewind in deferred mode removes the messages that left the branch at
-- once; those that joined it are queued.
UPDATE sessions SET leaf_id = (SELECT min(id) FROM messages WHERE session_key = 'd') WHERE session_key = 'd';
SELECT sessions_status();
SELECT json_array_length(sessions_search('yankee', '{"caller":"d","visibility":"self"}'), '$.results');
SELECT sessions_status();
UPDATE sessions SET leaf_id = (SELECT max(id) FROM messages WHERE session_key = 'd') WHERE session_key = 'd';
SELECT sessions_status();
-- Indexing half the index again makes a compaction due: the FTS5 segments
-- are merged into one in the budget a slice has left once the backlog is
-- empty (none here), and `done` waits for it.
SELECT sessions_reconcile(4);
SELECT sessions_reconcile(10);
SELECT sessions_reconcile(10);
SELECT sessions_set_indexing('immediate');
SELECT sessions_status();
-- Bad arguments.
SELECT sessions_set_indexing('later');
SELECT sessions_set_indexing(NULL);
SELECT sessions_reconcile(0);
SELECT sessions_reconcile(-5);
SELECT sessions_reconcile('many');
SELECT sessions_reconcile(NULL);
-- A database whose transcripts were written by plain SQL before
-- sessions_init(): the functions refuse to run before it, then the rows are
-- adopted as backlog and found once reconciled.
.open :memory:
.load dist/session_search
SELECT sessions_status();
SELECT sessions_search('anything', '{"caller":"x"}');
SELECT sessions_reconcile(10);
CREATE TABLE sessions(
  session_key TEXT PRIMARY KEY,
  agent_id    TEXT NOT NULL,
  spawned_by  TEXT,
  created_at  INTEGER NOT NULL,
  leaf_id     INTEGER);
CREATE TABLE messages(
  id          INTEGER PRIMARY KEY,
  session_key TEXT NOT NULL,
  parent_id   INTEGER,
  role        TEXT NOT NULL,
  content     TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  message_id  TEXT);
INSERT INTO sessions VALUES
  ('old:1', 'main', NULL, 100, NULL),
  ('old:2', 'main', 'old:1', 200, 12),
  ('old:3', 'main', NULL, 300, NULL);
INSERT INTO messages VALUES
  (1, 'old:1', NULL, 'user', 'legacy zulu question', 101, 'u1'),
  (2, 'old:1', NULL, 'assistant', '[{"type":"text","text":"legacy zulu answer"},{"type":"tool_use","name":"grep","input":{}}]', 102, 'a1'),
  (3, 'old:1', NULL, 'tool', 'legacy zulu tool output', 103, NULL),
  (10, 'old:2', NULL, 'user', 'legacy amber root', 201, NULL),
  (11, 'old:2', 10, 'assistant', 'legacy bronze abandoned', 202, NULL),
  (12, 'old:2', 10, 'assistant', 'legacy copper kept', 203, NULL);
SELECT sessions_init();
SELECT session_key, leaf_id FROM sessions ORDER BY session_key;
-- A NULL parent_id now records the message it followed.
SELECT id, parent_id FROM messages ORDER BY id;
SELECT sessions_status();
SELECT count(*) FROM session_search_fts WHERE session_search_fts MATCH 'legacy';
SELECT sessions_reconcile(3);
SELECT sessions_reconcile(3);
SELECT sessions_status();
SELECT sessions_search('legacy', '{"caller":"old:1","visibility":"all","order":"recent"}');
SELECT sessions_search('bronze', '{"caller":"old:1","visibility":"all"}');
SELECT sessions_history('old:2', '{"caller":"old:1"}');
-- Adopted databases take new writes like any other.
INSERT INTO messages(session_key, role, content, created_at) VALUES ('old:1', 'user', 'legacy follow up', 104);
SELECT id, parent_id FROM messages WHERE content = 'legacy follow up';
SELECT json_extract(sessions_search('follow', '{"caller":"old:1"}'), '$.results[0].id');
SELECT sessions_status();
-- A pre-existing table lacking a column is refused, and nothing is created.
.open :memory:
.load dist/session_search
CREATE TABLE sessions(session_key TEXT PRIMARY KEY, agent_id TEXT NOT NULL, spawned_by TEXT, created_at INTEGER NOT NULL, leaf_id INTEGER);
CREATE TABLE messages(id INTEGER PRIMARY KEY, session_key TEXT NOT NULL, parent_id INTEGER, role TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL);
SELECT sessions_init();
SELECT name FROM sqlite_master ORDER BY name;
-- Every integer is a valid message id, the smallest and largest included
-- (the index stores ~id); a rank window of one keeps the newest (largest)
-- of a phrase's matches (a word's are ranked exactly).
.open :memory:
.load dist/session_search
SELECT sessions_init() IS NOT NULL;
INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('edge', 'a', 1);
INSERT INTO messages(id, session_key, role, content, created_at) VALUES
  (-9223372036854775808, 'edge', 'user', 'kiwi at the smallest id', 5),
  (0, 'edge', 'user', 'kiwi at zero', 5),
  (9223372036854775807, 'edge', 'user', 'kiwi at the largest id', 5);
SELECT group_concat(json_extract(r.value, '$.id'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"edge"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.id'), ' ') FROM json_each(sessions_search('"kiwi at"', '{"caller":"edge","rankWindow":1}'), '$.results') r;
UPDATE messages SET content = 'plum now' WHERE id = -9223372036854775808;
SELECT group_concat(json_extract(r.value, '$.id'), ' ') FROM json_each(sessions_search('plum', '{"caller":"edge"}'), '$.results') r;
DELETE FROM messages WHERE id = 9223372036854775807;
SELECT json_extract(sessions_status(), '$.integrity'), json_extract(sessions_status(), '$.indexed');
