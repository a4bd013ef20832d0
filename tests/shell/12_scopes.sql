.load dist/session_search
-- Visibility stays exact while sessions move: the index's scope words (the
-- caller's tree and agent, see sql/schema.sql) follow every change of
-- spawned_by and agent_id, in the same transaction.
SELECT sessions_init() IS NOT NULL;
.mode list
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES
  ('root', 'main', NULL, 1), ('child', 'main', 'root', 2), ('grandchild', 'main', 'child', 3),
  ('other', 'ops', NULL, 4);
INSERT INTO messages(session_key, role, content, created_at) VALUES
  ('root', 'user', 'kiwi in root', 10), ('child', 'user', 'kiwi in child', 11),
  ('grandchild', 'assistant', 'kiwi in grandchild', 12), ('other', 'user', 'kiwi in other', 13);
.print -- tree of root, of child; agent of root; all:
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"child"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","visibility":"agent"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","visibility":"all"}'), '$.results') r;
.print -- child moves under other: its subtree leaves root's tree and joins other's
UPDATE sessions SET spawned_by = 'other' WHERE session_key = 'child';
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"other"}'), '$.results') r;
.print -- grandchild moves to agent ops: agent visibility follows
UPDATE sessions SET agent_id = 'ops' WHERE session_key = 'grandchild';
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"other","visibility":"agent"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","visibility":"agent"}'), '$.results') r;
.print -- a session written before its spawner: found in the spawner's tree once it exists
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES ('early', 'main', 'late', 5);
INSERT INTO messages(session_key, role, content, created_at) VALUES ('early', 'user', 'kiwi in early', 14);
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES ('late', 'main', 'root', 6);
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root"}'), '$.results') r;
.print -- deleting child: grandchild is no longer in other's tree
DELETE FROM sessions WHERE session_key = 'child';
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"other"}'), '$.results') r;
.print -- a spawned_by cycle neither hangs nor leaks
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES ('p', 'x', 'q', 7), ('q', 'x', 'p', 8);
INSERT INTO messages(session_key, role, content, created_at) VALUES ('p', 'user', 'kiwi in p', 15), ('q', 'user', 'kiwi in q', 16);
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"p"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root"}'), '$.results') r;
SELECT json_extract(sessions_status(), '$.integrity');
.print -- a cycle's sessions, and those below it, carry two scope words however long the cycle
.print -- (the agent's and tz); a tree search by one of them reads every such session and
.print -- checks each: a session on the cycle sees the cycle and what hangs below it, one
.print -- below sees its own tree, and self is one session
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES
  ('c1', 'x', 'c6', 20), ('c2', 'x', 'c1', 20), ('c3', 'x', 'c2', 20), ('c4', 'x', 'c3', 20),
  ('c5', 'x', 'c4', 20), ('c6', 'x', 'c5', 20), ('under', 'x', 'c3', 20), ('leaf', 'x', 'under', 20);
INSERT INTO messages(session_key, role, content, created_at) VALUES
  ('c1', 'user', 'mango in c1', 20), ('c6', 'user', 'mango in c6', 21),
  ('under', 'user', 'mango in under', 22), ('leaf', 'user', 'mango in leaf', 23);
SELECT group_concat(session_key || ': ' || substr(scope, 2), ', ') FROM session_search_scopes WHERE session_key IN ('p', 'q', 'c1', 'c6', 'under', 'leaf');
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('mango', '{"caller":"c6"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('mango', '{"caller":"under"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('mango', '{"caller":"c1","visibility":"self"}'), '$.results') r;
.print -- breaking the cycle gives its sessions their chain's words again
UPDATE sessions SET spawned_by = NULL WHERE session_key = 'c1';
SELECT group_concat(session_key || ': ' || substr(scope, 2), ', ') FROM session_search_scopes WHERE session_key IN ('c1', 'c2', 'c6', 'leaf');
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('mango', '{"caller":"c1"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('mango', '{"caller":"c6"}'), '$.results') r;
.print -- a spawned_by naming no session is the top of its chain: g1 counts as one level
.print -- below it (g4, four levels below, carries its ancestors' words but not its own) and
.print -- sees its tree; once the session exists, its tree holds them
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES
  ('g1', 'x', 'gone', 30), ('g2', 'x', 'g1', 30), ('g3', 'x', 'g2', 30), ('g4', 'x', 'g3', 30);
INSERT INTO messages(session_key, role, content, created_at) VALUES ('g1', 'user', 'papaya in g1', 30), ('g4', 'user', 'papaya in g4', 31);
SELECT group_concat(session_key || ': ' || substr(scope, 2), ', ') FROM session_search_scopes WHERE session_key IN ('g1', 'g4');
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('papaya', '{"caller":"g1"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('papaya', '{"caller":"g4"}'), '$.results') r;
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES ('gone', 'x', NULL, 32);
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('papaya', '{"caller":"gone"}'), '$.results') r;
SELECT json_extract(sessions_status(), '$.integrity');
.print -- a rolled-back move changes nothing
BEGIN;
UPDATE sessions SET spawned_by = NULL WHERE session_key = 'late';
ROLLBACK;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root"}'), '$.results') r;
.print -- the scope word selects a tree without walking it, and every row returned is checked
.print -- against sessions: with the move trigger dropped, late and early keep root's word
.print -- in the index but are no longer in its tree, and are not returned
BEGIN;
DROP TRIGGER session_search_session_move;
UPDATE sessions SET spawned_by = NULL WHERE session_key = 'late';
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","order":"recent"}'), '$.results') r;
.print -- so is an agent: early moves to agent ops but keeps main's word, and is not returned to main
UPDATE sessions SET agent_id = 'ops' WHERE session_key = 'early';
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","visibility":"agent"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","visibility":"agent","order":"recent"}'), '$.results') r;
.print -- and all: with the delete trigger dropped, the messages of a deleted session stay indexed and are not returned
DROP TRIGGER session_search_session_delete;
DELETE FROM sessions WHERE session_key = 'early';
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","visibility":"all"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","visibility":"all","order":"recent"}'), '$.results') r;
ROLLBACK;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","visibility":"all"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","visibility":"agent"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root"}'), '$.results') r;
.print -- rankWindow: only the newest matches of a phrase are ranked (one word is ranked exactly); it must be positive
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('"kiwi in"', '{"caller":"root","visibility":"all","rankWindow":2}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.sessionKey'), ' ') FROM json_each(sessions_search('kiwi', '{"caller":"root","visibility":"all","rankWindow":2}'), '$.results') r;
SELECT sessions_search('kiwi', '{"caller":"root","rankWindow":0}');
.print -- keys longer than a token (cut at 256 bytes) share a scope word: only speed suffers
INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES
  (printf('%.300c', 'k') || '-one', 'long', NULL, 9), (printf('%.300c', 'k') || '-two', 'long', NULL, 10);
INSERT INTO messages(session_key, role, content, created_at) VALUES
  (printf('%.300c', 'k') || '-one', 'user', 'kiwi in long one', 17), (printf('%.300c', 'k') || '-two', 'user', 'kiwi in long two', 18);
SELECT group_concat(substr(json_extract(r.value, '$.sessionKey'), 300), ' ') FROM json_each(sessions_search('kiwi', json_object('caller', printf('%.300c', 'k') || '-one')), '$.results') r;
.print -- a database made by schema version 1, 2 or 3 is upgraded in place:
.print -- nothing is lost, the index is rebuilt by reconciliation, rewound text
.print -- stays hidden
.open --deserialize tests/fixtures/schema-v1.db
.load dist/session_search
.read tests/shell/upgrade_checks.inc
.open --deserialize tests/fixtures/schema-v2.db
.load dist/session_search
.read tests/shell/upgrade_checks.inc
.print -- version 3 indexed secrets (its searches only hid them): the upgrade
.print -- empties the index at once, and the rebuilt one holds none of their tokens
.open --deserialize tests/fixtures/schema-v3.db
.load dist/session_search
CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, session_search_fts, 'row');
SELECT count(*) FROM temp.vocab WHERE term IN ('hunter2hunter2xyz', 'q8vlm2pxz7rt4wn9ks3dh6jf1gb5yc0ea2uo');
SELECT json_extract(sessions_init(), '$.pending');
SELECT count(*) FROM temp.vocab;
SELECT sessions_search('Hunter2Hunter2xyz', '{"caller":"agent:main:cli:1"}');
DROP TABLE temp.vocab;
.read tests/shell/upgrade_checks.inc
CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, session_search_fts, 'row');
SELECT count(*) FROM temp.vocab WHERE term IN ('hunter2hunter2xyz', 'q8vlm2pxz7rt4wn9ks3dh6jf1gb5yc0ea2uo');
SELECT count(*) FROM temp.vocab WHERE term IN ('rotate', 'staging');
SELECT json_extract(sessions_search('rotate', '{"caller":"agent:main:cli:1"}'), '$.results[0].snippet');
SELECT sessions_search('Hunter2Hunter2xyz', '{"caller":"agent:main:cli:1"}');
-- A secret's prefix matches nothing either: only a partial match of the
-- other word is found, as it would be with any absent word.
SELECT json_extract(sessions_search('rotate Hunter2*', '{"caller":"agent:main:cli:1"}'), '$.results') = json_extract(sessions_search('rotate absentword', '{"caller":"agent:main:cli:1"}'), '$.results');
SELECT json_extract(sessions_search('rotate Hunter2*', '{"caller":"agent:main:cli:1"}'), '$.terms[1].messages');
SELECT count(*) FROM json_each(sessions_search('rotate Hunter2*', '{"caller":"agent:main:cli:1"}'), '$.results') WHERE json_extract(value, '$.partial') IS NULL;
.print -- a database indexed by tokenizer version 11 (prefix tokens of 4 to 8
.print -- characters, pairs of a word and the common word after it) is rebuilt:
.print -- sessions_init() empties its index at once, the first search catches up,
.print -- and the old tokens are gone
.open --deserialize tests/fixtures/tokenizer-v11.db
.load dist/session_search
SELECT value FROM session_search_meta WHERE key = 'tokenizer_version';
CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, session_search_fts, 'row');
SELECT count(*) FROM temp.vocab WHERE term IN (char(57344) || '*depl', char(57344) || '+failed to');
SELECT sessions_init();
SELECT count(*) FROM temp.vocab;
SELECT sessions_search('deplo*', '{"caller":"agent:main:cli:1"}');
SELECT sessions_search('"failed to start"', '{"caller":"agent:main:cli:1"}');
SELECT sessions_reconcile(100);
SELECT sessions_status();
SELECT count(*) FROM temp.vocab WHERE term IN (char(57344) || '*depl', char(57344) || '+failed to');
SELECT count(*) FROM temp.vocab WHERE term IN (char(57344) || '*dep', char(57344) || '+to start');
SELECT group_concat(json_extract(r.value, '$.messageId'), ' ') FROM json_each(sessions_search('deplo*', '{"caller":"agent:main:cli:1","visibility":"all"}'), '$.results') r;
SELECT json_extract(sessions_search('"failed to start"', '{"caller":"agent:main:cli:1"}'), '$.results[0].snippet');
SELECT sessions_search('Hunter2Hunter2xyz', '{"caller":"agent:main:cli:1"}');
.print -- a database indexed by tokenizer version 13 (prefix tokens of
.print -- frequent words: `with`, `other`) is rebuilt the same way:
.print -- those prefix tokens are gone, and a prefix still finds the words
.open --deserialize tests/fixtures/tokenizer-v13.db
.load dist/session_search
SELECT value FROM session_search_meta WHERE key = 'tokenizer_version';
CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, session_search_fts, 'row');
SELECT count(*) FROM temp.vocab WHERE term IN (char(57344) || '*wit', char(57344) || '*oth');
SELECT sessions_init();
.print -- (its schema, version 12, indexed every node's generation; 13 only the backlog's,
.print -- which reconciliation fills from the newest node down: empty until then, with
.print -- the 7 messages still pending)
SELECT name FROM sqlite_master WHERE name IN ('session_search_nodes_to_index', 'session_search_backlog');
SELECT count(*) FROM session_search_nodes INDEXED BY session_search_backlog WHERE on_branch = 1 AND indexable = 1 AND indexed_gen = 0;
SELECT json_extract(sessions_status(), '$.pending');
SELECT count(*) FROM temp.vocab;
SELECT json_extract(sessions_search('wit*', '{"caller":"agent:main:cli:1"}'), '$.indexing');
SELECT sessions_reconcile(100);
SELECT count(*) FROM session_search_meta WHERE key = 'reset_below' AND value IS NOT NULL;
SELECT json_extract(sessions_status(), '$.tokenizer_version');
SELECT count(*) FROM temp.vocab WHERE term IN (char(57344) || '*wit', char(57344) || '*oth');
SELECT count(*) FROM temp.vocab WHERE term IN (char(57344) || '*dep', char(57344) || '*cer');
SELECT group_concat(json_extract(r.value, '$.messageId'), ' ') FROM json_each(sessions_search('wit*', '{"caller":"agent:main:cli:1","visibility":"all"}'), '$.results') r;
SELECT group_concat(json_extract(r.value, '$.messageId'), ' ') FROM json_each(sessions_search('ot*', '{"caller":"agent:main:cli:1","visibility":"all"}'), '$.results') r;
SELECT sessions_search('Hunter2Hunter2xyz', '{"caller":"agent:main:cli:1"}');
