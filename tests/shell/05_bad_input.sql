-- Bad and extreme input: invalid UTF-8, NULL, empty, a ~10 MB document, a
-- 100 KB token. Nothing errors, valid pieces are found, and FTS5's integrity
-- check passes afterwards.
.bail off
.echo on
.load dist/session_search
CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'sessions cjk 1');
CREATE VIRTUAL TABLE d USING fts5(body, tokenize = 'sessions');
-- Invalid UTF-8 (a lone 0xFF, a truncated 3-byte sequence, a stray
-- continuation byte) between valid words; hex() keeps the output printable.
INSERT INTO t(rowid, body) VALUES
  (1, CAST(x'68656c6c6fff776f726c64' AS TEXT)),
  (2, CAST(x'636166c3a9e69db1e4ba' AS TEXT)),
  (3, CAST(x'80e69db1e4baace983bd80' AS TEXT)),
  (4, CAST(x'c0af2e2e2f706173737764' AS TEXT));
INSERT INTO d SELECT body FROM t ORDER BY rowid;
SELECT rowid, hex(body) FROM t ORDER BY rowid;
SELECT 'hello', group_concat(rowid) FROM t WHERE t MATCH 'hello';
SELECT 'world', group_concat(rowid) FROM t WHERE t MATCH 'world';
SELECT 'helloworld', count(*) FROM t WHERE t MATCH 'helloworld';
SELECT 'cafe', group_concat(rowid) FROM t WHERE t MATCH 'cafe';
SELECT '東', group_concat(rowid) FROM t WHERE t MATCH '"東"';
SELECT '東京都', group_concat(rowid) FROM t WHERE t MATCH '"東京都"';
SELECT 'passwd', group_concat(rowid) FROM t WHERE t MATCH 'passwd';
SELECT 'd: hello world cafe passwd', count(*) FROM d WHERE d MATCH 'hello OR world OR cafe OR passwd';
SELECT rowid, hex(highlight(t, 0, '[', ']')) FROM t WHERE t MATCH 'world OR cafe' ORDER BY rowid;
SELECT sessions_tokenize(x'68656c6c6fff776f726c64');
SELECT sessions_tokenize(x'80e69db1e4baace983bd80', 'cjk 1');
SELECT sessions_tokenize(x'ff6869');
-- NULL and empty documents, and text that has no tokens at all.
INSERT INTO t(rowid, body) VALUES (10, NULL), (11, ''), (12, '  ...  !? '), (13, '。、「」');
SELECT count(*) FROM t WHERE rowid BETWEEN 10 AND 13;
SELECT rowid, body IS NULL, length(body) FROM t WHERE rowid BETWEEN 10 AND 13 ORDER BY rowid;
SELECT sessions_tokenize(NULL), sessions_tokenize(''), sessions_tokenize('  ...  !? ');
-- Queries that have no tokens match nothing.
SELECT 'no tokens', count(*) FROM t WHERE t MATCH '"..."';
SELECT 'no tokens cjk', count(*) FROM t WHERE t MATCH '"。"';
-- Deleting and updating such rows works.
DELETE FROM t WHERE rowid = 10;
UPDATE t SET body = 'now a word' WHERE rowid = 11;
SELECT 'updated', group_concat(rowid) FROM t WHERE t MATCH 'now';
-- A document of about 10 MB: 600,000 numbered words, some accented
-- and some CJK, then a needle at the very end.
INSERT INTO t(rowid, body)
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600000)
SELECT 20, group_concat('w' || i || ' Café 東京', ' ') || ' needle 終わり' FROM n;
SELECT length(CAST(body AS BLOB)) > 10000000, length(body) FROM t WHERE rowid = 20;
SELECT 'w1', group_concat(rowid) FROM t WHERE t MATCH 'w1';
SELECT 'w599999', group_concat(rowid) FROM t WHERE t MATCH 'w599999';
SELECT 'w600001', count(*) FROM t WHERE t MATCH 'w600001';
SELECT 'cafe', group_concat(rowid) FROM t WHERE t MATCH 'cafe';
SELECT 'needle', group_concat(rowid) FROM t WHERE t MATCH 'needle';
SELECT '終わ', group_concat(rowid) FROM t WHERE t MATCH '"終わ"';
SELECT '"京 w600000"', group_concat(rowid) FROM t WHERE t MATCH '"京 w600000"';
-- snippet() counts the zero-width boundary token after each CJK run as one
-- of its tokens, so these show one word fewer than asked for.
SELECT snippet(t, 0, '[', ']', '…', 5) FROM t WHERE t MATCH 'needle';
SELECT snippet(t, 0, '[', ']', '…', 4) FROM t WHERE t MATCH 'w300000';
-- A single 100 KB token (hex of random bytes): found by itself (tokens are
-- cut at 256 bytes, the same way in documents and queries), and by no other
-- random token.
CREATE TABLE big(tok TEXT);
INSERT INTO big VALUES (hex(randomblob(51200))), (hex(randomblob(51200)));
SELECT length(tok) FROM big;
INSERT INTO t(rowid, body) SELECT 30, 'start ' || tok || ' end' FROM big LIMIT 1;
INSERT INTO t(rowid, body) SELECT 31, tok FROM big LIMIT 1 OFFSET 1;
SELECT 'token 1', group_concat(rowid) FROM t WHERE t MATCH (SELECT '"' || tok || '"' FROM big LIMIT 1);
SELECT 'token 2', group_concat(rowid) FROM t WHERE t MATCH (SELECT '"' || tok || '"' FROM big LIMIT 1 OFFSET 1);
SELECT 'start + end', group_concat(rowid) FROM t WHERE t MATCH 'start AND end';
SELECT 'token 1 prefix', group_concat(rowid) FROM t WHERE t MATCH (SELECT '"' || substr(tok, 1, 40) || '"*' FROM big LIMIT 1);
SELECT 'highlight', length(highlight(t, 0, '[', ']')) - length(body), instr(highlight(t, 0, '[', ']'), '[') FROM t
 WHERE t MATCH (SELECT '"' || tok || '"' FROM big LIMIT 1) AND rowid = 30;
SELECT json_array_length(sessions_tokenize(tok)), json_extract(sessions_tokenize(tok), '$[0].end'),
       length(json_extract(sessions_tokenize(tok), '$[0].token')) FROM big LIMIT 1;
-- The cut is visible: another token with the same first 256 bytes matches
-- the long token's query too, and a token differing within them does not.
INSERT INTO t(rowid, body) SELECT 32, substr(tok, 1, 256) || 'different tail' FROM big LIMIT 1;
INSERT INTO t(rowid, body) SELECT 33, substr(tok, 1, 255) || 'z, not hex' FROM big LIMIT 1;
SELECT 'token 1 again', group_concat(rowid) FROM t WHERE t MATCH (SELECT '"' || tok || '"' FROM big LIMIT 1);
-- The same in the table without cjk.
INSERT INTO d(rowid, body) SELECT 30, tok FROM big LIMIT 1;
SELECT 'd token 1', group_concat(rowid) FROM d WHERE d MATCH (SELECT '"' || tok || '"' FROM big LIMIT 1);
-- After all that, FTS5's own consistency check passes.
INSERT INTO t(t) VALUES ('integrity-check');
INSERT INTO d(d) VALUES ('integrity-check');
INSERT INTO t(t) VALUES ('optimize');
INSERT INTO t(t) VALUES ('integrity-check');
SELECT 'rows', count(*) FROM t;
