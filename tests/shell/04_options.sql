-- Tokenizer arguments and prefix queries.
.bail off
.echo on
.load dist/session_search
-- remove_diacritics 0 keeps accents but still folds case, width and ß.
CREATE VIRTUAL TABLE keep USING fts5(body, tokenize = 'sessions remove_diacritics 0');
INSERT INTO keep(rowid, body) VALUES
  (1, 'Le café est fermé'),
  (2, 'plain cafe'),
  (3, 'Große STRASSE'),
  (4, 'Fullwidth ＡＢＣ'),
  (5, 'Ærøskøbing');
SELECT 'café', group_concat(rowid) FROM keep WHERE keep MATCH 'café';
SELECT 'CAFÉ', group_concat(rowid) FROM keep WHERE keep MATCH 'CAFÉ';
SELECT 'cafe', group_concat(rowid) FROM keep WHERE keep MATCH 'cafe';
SELECT 'strasse', group_concat(rowid) FROM keep WHERE keep MATCH 'strasse';
SELECT 'grosse', group_concat(rowid) FROM keep WHERE keep MATCH 'grosse';
SELECT 'abc', group_concat(rowid) FROM keep WHERE keep MATCH 'abc';
SELECT 'ærøskøbing', group_concat(rowid) FROM keep WHERE keep MATCH 'ærøskøbing';
SELECT 'aeroskobing', count(*) FROM keep WHERE keep MATCH 'aeroskobing';
SELECT sessions_tokenize('Café Ærø', 'remove_diacritics 0');
SELECT sessions_tokenize('Café Ærø', 'remove_diacritics 1');
-- Both arguments together, in either order.
CREATE VIRTUAL TABLE both1 USING fts5(body, tokenize = 'sessions cjk 1 remove_diacritics 0');
CREATE VIRTUAL TABLE both2 USING fts5(body, tokenize = 'sessions remove_diacritics 1 cjk 1');
INSERT INTO both1 VALUES ('Café 東京都');
INSERT INTO both2 VALUES ('Café 東京都');
SELECT 'both1', count(*) FROM both1 WHERE both1 MATCH 'café AND "京都"';
SELECT 'both1 cafe', count(*) FROM both1 WHERE both1 MATCH 'cafe';
SELECT 'both2', count(*) FROM both2 WHERE both2 MATCH 'cafe AND "京都"';
-- Prefix queries keep working after folding.
CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'sessions');
INSERT INTO t(rowid, body) VALUES
  (1, 'Configure the staging deploy'),
  (2, 'The conférence starts at nine'),
  (3, 'Wir wohnen in der Straße'),
  (4, 'Strassenbahn und Straßenbahn'),
  (5, 'confidential'),
  (6, 'unrelated words');
SELECT 'conf*', group_concat(rowid) FROM t WHERE t MATCH 'conf*';
SELECT 'CONF*', group_concat(rowid) FROM t WHERE t MATCH 'CONF*';
SELECT 'confé*', group_concat(rowid) FROM t WHERE t MATCH 'confé*';
SELECT 'conference*', group_concat(rowid) FROM t WHERE t MATCH 'conference*';
SELECT 'straß*', group_concat(rowid) FROM t WHERE t MATCH 'straß*';
SELECT 'strasse*', group_concat(rowid) FROM t WHERE t MATCH 'strasse*';
SELECT 'straßenb*', group_concat(rowid) FROM t WHERE t MATCH 'straßenb*';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'straß*' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'conf*' ORDER BY rowid;
-- Prefix of a CJK substring, with cjk 1.
CREATE VIRTUAL TABLE c USING fts5(body, tokenize = 'sessions cjk 1');
INSERT INTO c(rowid, body) VALUES (1, '東京都'), (2, '京都'), (3, '大阪');
SELECT '"東"*', group_concat(rowid) FROM c WHERE c MATCH '"東"*';
SELECT '"京"*', group_concat(rowid) FROM c WHERE c MATCH '"京"*';
-- Unknown or malformed arguments. FTS5 gives a tokenizer no way to pass a
-- message out of its constructor, so CREATE VIRTUAL TABLE reports FTS5's
-- fixed text; sessions_tokenize() names the argument.
CREATE VIRTUAL TABLE bad1 USING fts5(body, tokenize = 'sessions foo 1');
CREATE VIRTUAL TABLE bad2 USING fts5(body, tokenize = 'sessions cjk 2');
CREATE VIRTUAL TABLE bad3 USING fts5(body, tokenize = 'sessions cjk');
CREATE VIRTUAL TABLE bad4 USING fts5(body, tokenize = 'sessions remove_diacritics 2');
SELECT count(*) FROM sqlite_schema WHERE name LIKE 'bad%';
SELECT sessions_tokenize('x', 'foo 1');
SELECT sessions_tokenize('x', 'cjk 2');
SELECT sessions_tokenize('x', 'cjk');
SELECT sessions_tokenize('x', 'remove_diacritics 2');
SELECT sessions_tokenize('x', 'cjk 1 stemmer porter');
-- Known arguments are accepted by sessions_tokenize too.
SELECT sessions_tokenize('Ab', 'cjk 0 remove_diacritics 1');
SELECT sessions_tokenize('Ab', '');
-- NULL arguments count as none.
SELECT sessions_tokenize('Ab', NULL);
