-- Scripts written without spaces, with cjk 1: any substring of 1, 2 or 3+
-- characters is found, and highlight() marks exactly those characters.
.bail off
.echo on
.load dist/session_search
CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'sessions cjk 1');
INSERT INTO t(rowid, body) VALUES
  (1, '我们明天去东京都看樱花。'),
  (2, '东京大学的图书馆很大'),
  (3, '今日はラーメンを食べました'),
  (4, 'ラーメン屋は駅の近くです'),
  (5, '서울시에서 만나요'),
  (6, '부산에서 서울까지 기차로 갔다'),
  (7, 'Deploy to 東京 staging at 9:00, then ラーメン'),
  (8, 'ภาษาไทยง่ายนิดเดียว');
-- Chinese: 1, 2, 3 and 4 characters.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"京"' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"东京"' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"东京都"' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"图书馆很"' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"樱花"' ORDER BY rowid;
-- Unquoted (a bareword) works the same.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '东京' ORDER BY rowid;
-- Characters that are not adjacent in the text do not match as a substring.
SELECT 'not adjacent', count(*) FROM t WHERE t MATCH '"东大"';
SELECT 'across the full stop', count(*) FROM t WHERE t MATCH '"花我"';
-- Japanese: katakana ラー finds ラーメン; kanji and hiragana substrings.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"ラー"' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"メン屋"' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"食べ"' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"駅"' ORDER BY rowid;
-- Korean: 서울 finds 서울시에서 and 서울까지; 1-syllable query.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"서울"' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"에서"' ORDER BY rowid;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"시"' ORDER BY rowid;
-- Thai.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"ไทย"' ORDER BY rowid;
-- Mixed scripts in one query and in one document.
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH 'deploy AND "東京" AND "ラー"';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"staging at 9"';
-- A repeated or overlapping substring: overlapping matches merge into one
-- marked span, adjacent ones stay separate (in SQLite 3.40; newer FTS5
-- versions join adjacent ones too).
INSERT INTO t(rowid, body) VALUES (9, 'ああああ 東京東京');
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"ああ"';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"東京"' AND rowid = 9;
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"あ"';
-- snippet() around a CJK match.
SELECT snippet(t, 0, '[', ']', '…', 3) FROM t WHERE t MATCH '"看樱"';
-- A phrase does not run from one CJK run into the next across punctuation
-- or a space; written with the space, it does.
INSERT INTO t(rowid, body) VALUES (10, '大阪。東京');
SELECT '"阪東"', count(*) FROM t WHERE t MATCH '"阪東"';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"阪 東"';
SELECT rowid, highlight(t, 0, '[', ']') FROM t WHERE t MATCH '"阪東" OR "阪。東"';
-- The tokens: one per character, and a zero-width boundary token (U+0001)
-- between a run and the token after it.
SELECT sessions_tokenize('東京都 staging', 'cjk 1');
SELECT sessions_tokenize('東京都 staging');
-- Without cjk 1, words keep UAX #29 semantics: a katakana run and a Hangul
-- word are whole tokens, so a part of one is not found.
CREATE VIRTUAL TABLE w USING fts5(body, tokenize = 'sessions');
INSERT INTO w SELECT body FROM t ORDER BY rowid;
SELECT 'cjk 0 ラー', count(*) FROM w WHERE w MATCH '"ラー"';
SELECT 'cjk 0 ラーメン', count(*) FROM w WHERE w MATCH '"ラーメン"';
SELECT 'cjk 0 서울', count(*) FROM w WHERE w MATCH '"서울"';
SELECT 'cjk 0 서울시에서', count(*) FROM w WHERE w MATCH '"서울시에서"';
INSERT INTO t(t) VALUES ('integrity-check');
INSERT INTO w(w) VALUES ('integrity-check');
