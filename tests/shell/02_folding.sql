-- Folding: accents, case, compatibility forms, the letter table, scripts.
.bail off
.echo on
.load dist/session_search
.mode list
CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'sessions');
INSERT INTO t(rowid, body) VALUES
  (1, 'Le café est fermé'),
  (2, 'Wir wohnen in der Straße'),
  (3, 'Ærøskøbing ligger på Ærø'),
  (4, 'Fullwidth ＡＢＣ text'),
  (5, 'The ﬁle was ﬂagged'),
  (6, 'Ελληνικά: Αθήνα'),
  (7, 'Русский: ёлка, Москва'),
  (8, 'がっこう へ いく'),
  (9, 'plain cafe and strasse'),
  (10, 'Łódź, Đorđe, Þórður, Œuvre, ıstanbul'),
  (11, 'かっこう いい');
-- café / Café / CAFE / cafe all find both spellings.
SELECT 'café', group_concat(rowid) FROM t WHERE t MATCH 'café';
SELECT 'Café', group_concat(rowid) FROM t WHERE t MATCH 'Café';
SELECT 'CAFE', group_concat(rowid) FROM t WHERE t MATCH 'CAFE';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'cafe' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'ferme';
-- ß folds to ss both ways.
SELECT 'strasse', group_concat(rowid) FROM t WHERE t MATCH 'strasse';
SELECT 'Straße', group_concat(rowid) FROM t WHERE t MATCH 'Straße';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'STRASSE' ORDER BY rowid;
-- æ → ae, ø → o.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'aeroskobing';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'aero';
-- Fullwidth letters.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'abc';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'ＡＢＣ';
-- Ligatures ﬁ and ﬂ.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'file';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'flagged';
-- Greek: tonos removed, case folded.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'ελληνικα';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'ΑΘΗΝΑ';
-- Cyrillic: ё → е, case folded.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'елка';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'москва';
-- Letters with strokes and other table entries.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'lodz dorde thordur oeuvre istanbul';
-- Kana voicing is not an accent: か and が stay different.
SELECT 'か', group_concat(rowid) FROM t WHERE t MATCH 'か';
SELECT 'が', group_concat(rowid) FROM t WHERE t MATCH 'が';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'がっこう';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'かっこう';
SELECT sessions_tokenize('か が ガ ｶﾞ ぱ ば');
-- The tokens themselves.
SELECT sessions_tokenize('Café Straße Ærøskøbing ＡＢＣ ﬁle Αθήνα ёлка');
SELECT sessions_tokenize('src/main.py don''t snake_case v1.2.3');
