-- session-search demo: the `sessions` tokenizer next to FTS5's unicode61.
-- Run with `make demo` (which builds dist/session_search.so first).
.load dist/session_search
.mode list
.separator ' | '
.headers on

CREATE VIRTUAL TABLE plain    USING fts5(body, tokenize = 'unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE sessions USING fts5(body, tokenize = 'sessions cjk 1');

CREATE TEMP TABLE corpus(body TEXT);
INSERT INTO corpus VALUES
  ('The staging deploy failed: see src/deploy/main.py line 42'),
  ('Rendez-vous au Café de Flore pour parler du déploiement'),
  ('Treffpunkt: Lange Straße 5, Ærøskøbing, Dänemark'),
  ('東京都でラーメンを食べました。明日は大阪に行きます'),
  ('서울시에서 회의가 있습니다'),
  ('ＡＢＣ株式会社 quarterly ﬁle report'),
  ('ข้อความภาษาไทยเกี่ยวกับการทดสอบ');
INSERT INTO plain    SELECT body FROM corpus;
INSERT INTO sessions SELECT body FROM corpus;

CREATE TEMP TABLE queries(query TEXT, why TEXT);
INSERT INTO queries VALUES
  ('deploy',      'plain words: both find it'),
  ('cafe',        'accents folded: both find it'),
  ('strasse',     'ß folds to ss'),
  ('aeroskobing', 'æ and ø fold to ae and o'),
  ('東京',        '2 Han characters inside 東京都'),
  ('ラー',        'a prefix of the katakana word ラーメン'),
  ('阪',          'a single character'),
  ('서울',        'a Korean stem inside 서울시에서'),
  ('abc',         'fullwidth ＡＢＣ'),
  ('file',        'the ligature ﬁ'),
  ('ภาษาไทย',      'Thai, written without spaces');

-- One row per hit of `sessions`; unicode61_hits counts what unicode61 finds.
SELECT q.query, q.why,
       (SELECT count(*) FROM plain WHERE plain MATCH '"' || q.query || '"') AS unicode61_hits,
       highlight(sessions, 0, '[', ']') AS sessions_hit
FROM queries q JOIN sessions ON sessions MATCH '"' || q.query || '"';

SELECT sessions_version() AS version;
