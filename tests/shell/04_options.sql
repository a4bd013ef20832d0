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
-- With markers 1, pairs 0, prefixes 0 and tiers 0 each leave exactly
-- their family out of a document's tokens (the index's own table keeps
-- all three).
CREATE VIRTUAL TABLE fam_all USING fts5(body, tokenize = 'sessions markers 1');
CREATE VIRTUAL TABLE fam_no_pairs USING fts5(body, tokenize = 'sessions markers 1 pairs 0');
CREATE VIRTUAL TABLE fam_no_prefixes USING fts5(body, tokenize = 'sessions markers 1 prefixes 0');
CREATE VIRTUAL TABLE fam_no_tiers USING fts5(body, tokenize = 'sessions markers 1 tiers 0');
CREATE VIRTUAL TABLE fam_words USING fts5(body, tokenize = 'sessions markers 1 pairs 0 prefixes 0 tiers 0');
INSERT INTO fam_all(body) VALUES ('the outage in staging');
INSERT INTO fam_no_pairs(body) SELECT body FROM fam_all;
INSERT INTO fam_no_prefixes(body) SELECT body FROM fam_all;
INSERT INTO fam_no_tiers(body) SELECT body FROM fam_all;
INSERT INTO fam_words(body) SELECT body FROM fam_all;
CREATE VIRTUAL TABLE temp.v_all USING fts5vocab(main, fam_all, row);
CREATE VIRTUAL TABLE temp.v_no_pairs USING fts5vocab(main, fam_no_pairs, row);
CREATE VIRTUAL TABLE temp.v_no_prefixes USING fts5vocab(main, fam_no_prefixes, row);
CREATE VIRTUAL TABLE temp.v_no_tiers USING fts5vocab(main, fam_no_tiers, row);
CREATE VIRTUAL TABLE temp.v_words USING fts5vocab(main, fam_words, row);
SELECT 'all', group_concat(replace(term, char(57344), '<M>'), ' | ') FROM (SELECT term FROM temp.v_all ORDER BY term);
SELECT 'pairs 0', group_concat(replace(term, char(57344), '<M>'), ' | ') FROM (SELECT term FROM temp.v_no_pairs ORDER BY term);
SELECT 'prefixes 0', group_concat(replace(term, char(57344), '<M>'), ' | ') FROM (SELECT term FROM temp.v_no_prefixes ORDER BY term);
SELECT 'tiers 0', group_concat(replace(term, char(57344), '<M>'), ' | ') FROM (SELECT term FROM temp.v_no_tiers ORDER BY term);
SELECT 'words only', group_concat(replace(term, char(57344), '<M>'), ' | ') FROM (SELECT term FROM temp.v_words ORDER BY term);
SELECT sessions_tokenize('x', 'tiers 2');
