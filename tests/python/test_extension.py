"""The loadable extension from Python's sqlite3 module.

Run with the system Python, whose sqlite3 can load extensions:

    /usr/bin/python3 -m unittest discover -s tests/python -v

Needs dist/session_search.so (make build).
"""

import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTENSION = os.path.join(ROOT, "dist", "session_search")


def connect():
    """A fresh in-memory connection with the extension loaded by file name
    only (SQLite derives the entry point from it)."""
    conn = sqlite3.connect(":memory:")
    conn.enable_load_extension(True)
    conn.load_extension(EXTENSION)
    conn.enable_load_extension(False)
    return conn


def tokens(conn, text, args=None):
    """sessions_tokenize() decoded: a list of dicts."""
    if args is None:
        row = conn.execute("SELECT sessions_tokenize(?)", (text,)).fetchone()
    else:
        row = conn.execute("SELECT sessions_tokenize(?, ?)", (text, args)).fetchone()
    return json.loads(row[0])


def token_texts(conn, text, args=None):
    return [t["token"] for t in tokens(conn, text, args)]


class Table:
    """An FTS5 table with one column `body` and a given tokenizer."""

    def __init__(self, conn, name, tokenize, docs):
        self.conn = conn
        self.name = name
        conn.execute(f"CREATE VIRTUAL TABLE {name} USING fts5(body, tokenize = '{tokenize}')")
        conn.executemany(f"INSERT INTO {name}(rowid, body) VALUES (?, ?)", docs)

    def hits(self, query):
        """Row ids matching `query`, sorted."""
        sql = f"SELECT rowid FROM {self.name} WHERE {self.name} MATCH ? ORDER BY rowid"
        return [r[0] for r in self.conn.execute(sql, (query,))]

    def highlights(self, query):
        """(rowid, highlight with [ ]) for every row matching `query`."""
        sql = (
            f"SELECT rowid, highlight({self.name}, 0, '[', ']') FROM {self.name} "
            f"WHERE {self.name} MATCH ? ORDER BY rowid"
        )
        return self.conn.execute(sql, (query,)).fetchall()

    def integrity_check(self):
        self.conn.execute(f"INSERT INTO {self.name}({self.name}) VALUES ('integrity-check')")


class LoadingTest(unittest.TestCase):
    def test_loads_without_naming_the_entry_point(self):
        conn = connect()
        names = conn.execute(
            "SELECT name, narg FROM pragma_function_list"
            " WHERE name IN ('sessions_version', 'sessions_tokenize') ORDER BY 1, 2"
        ).fetchall()
        self.assertEqual(names, [("sessions_tokenize", 1), ("sessions_tokenize", 2), ("sessions_version", 0)])

    def test_loads_under_any_file_name(self):
        """cargo's own output and renamed copies load with no entry point
        named, in Python and in the sqlite3 shell."""
        cargo_output = os.path.join(ROOT, "target", "release", "libsession_search_ext.so")
        with tempfile.TemporaryDirectory() as folder:
            copies = [cargo_output]
            for name in ["agent-memory.so", "libsearch.so", "ss.v2.so"]:
                copies.append(shutil.copy(EXTENSION + ".so", os.path.join(folder, name)))
            for path in copies:
                with self.subTest(path=os.path.basename(path)):
                    conn = sqlite3.connect(":memory:")
                    conn.enable_load_extension(True)
                    conn.load_extension(path)
                    (text,) = conn.execute("SELECT sessions_version()").fetchone()
                    self.assertEqual(json.loads(text)["version"], "0.1.0")
                    shell = subprocess.run(
                        [os.environ.get("SQLITE3", "sqlite3"), ":memory:", f".load {path}", "SELECT sessions_version();"],
                        capture_output=True,
                        text=True,
                    )
                    self.assertEqual(shell.stderr, "")
                    self.assertIn('"version":"0.1.0"', shell.stdout)

    def test_version_is_json_with_both_versions(self):
        conn = connect()
        (text,) = conn.execute("SELECT sessions_version()").fetchone()
        version = json.loads(text)
        self.assertEqual(version, {"tokenizer": 14, "version": "0.1.0"})

    def test_tokenizer_without_the_extension_is_unknown(self):
        conn = sqlite3.connect(":memory:")
        with self.assertRaisesRegex(sqlite3.OperationalError, "no such tokenizer: sessions"):
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'sessions')")


class FoldingTest(unittest.TestCase):
    DOCS = [
        (1, "Le café est fermé"),
        (2, "Wir wohnen in der Straße"),
        (3, "Ærøskøbing ligger på Ærø"),
        (4, "Fullwidth ＡＢＣ text"),
        (5, "The ﬁle was ﬂagged"),
        (6, "Ελληνικά: Αθήνα"),
        (7, "Русский: ёлка, Москва"),
        (8, "がっこう へ いく"),
        (9, "かっこう いい"),
        (10, "Łódź Đorđe Þórður Œuvre ıstanbul"),
    ]

    def setUp(self):
        self.conn = connect()
        self.t = Table(self.conn, "t", "sessions", self.DOCS)

    def test_each_spelling_finds_each_other(self):
        cases = [
            ("cafe", [1], "Le [café] est fermé"),
            ("CAFÉ", [1], "Le [café] est fermé"),
            ("strasse", [2], "Wir wohnen in der [Straße]"),
            ("STRASSE", [2], "Wir wohnen in der [Straße]"),
            ("aeroskobing", [3], "[Ærøskøbing] ligger på Ærø"),
            ("abc", [4], "Fullwidth [ＡＢＣ] text"),
            ("file", [5], "The [ﬁle] was ﬂagged"),
            ("flagged", [5], "The ﬁle was [ﬂagged]"),
            ("ελληνικα", [6], "[Ελληνικά]: Αθήνα"),
            ("αθηνα", [6], "Ελληνικά: [Αθήνα]"),
            ("елка", [7], "Русский: [ёлка], Москва"),
            ("МОСКВА", [7], "Русский: ёлка, [Москва]"),
            ("lodz", [10], "[Łódź] Đorđe Þórður Œuvre ıstanbul"),
            ("thordur", [10], "Łódź Đorđe [Þórður] Œuvre ıstanbul"),
            ("istanbul", [10], "Łódź Đorđe Þórður Œuvre [ıstanbul]"),
        ]
        for query, rows, highlighted in cases:
            with self.subTest(query=query):
                self.assertEqual(self.t.hits(query), rows)
                self.assertEqual(self.t.highlights(query), [(rows[0], highlighted)])

    def test_kana_voicing_is_not_folded(self):
        self.assertEqual(self.t.hits("が"), [8])
        self.assertEqual(self.t.hits("か"), [9])
        self.assertEqual(self.t.hits("がっこう"), [8])
        self.assertEqual(self.t.hits("かっこう"), [9])
        self.assertNotEqual(token_texts(self.conn, "か"), token_texts(self.conn, "が"))
        # Half-width katakana with a voicing mark is the full-width letter.
        self.assertEqual(token_texts(self.conn, "ｶﾞ"), ["ガ"])

    def test_offsets_are_utf8_byte_offsets_of_the_original(self):
        text = "Café Straße ＡＢＣ ﬁle Αθήνα 東京"
        encoded = text.encode("utf-8")
        words = [encoded[t["start"]:t["end"]].decode("utf-8") for t in tokens(self.conn, text)]
        self.assertEqual(words, ["Café", "Straße", "ＡＢＣ", "ﬁle", "Αθήνα", "東", "京"])

    def test_remove_diacritics_0_keeps_accents_but_folds_case(self):
        keep = Table(self.conn, "keep", "sessions remove_diacritics 0", [(1, "Le Café"), (2, "cafe"), (3, "Straße")])
        self.assertEqual(keep.hits("café"), [1])
        self.assertEqual(keep.hits("CAFÉ"), [1])
        self.assertEqual(keep.hits("cafe"), [2])
        self.assertEqual(keep.hits("strasse"), [3])
        self.assertEqual(token_texts(self.conn, "Ærø", "remove_diacritics 0"), ["ærø"])
        self.assertEqual(token_texts(self.conn, "Ærø", "remove_diacritics 1"), ["aero"])

    def test_prefix_queries_after_folding(self):
        t = Table(
            self.conn,
            "p",
            "sessions",
            [(1, "Configure it"), (2, "la conférence"), (3, "Straße"), (4, "Straßenbahn"), (5, "other")],
        )
        self.assertEqual(t.hits("conf*"), [1, 2])
        self.assertEqual(t.hits("CONFÉ*"), [2])
        self.assertEqual(t.hits("straß*"), [3, 4])
        self.assertEqual(t.hits("strassen*"), [4])


class CjkTest(unittest.TestCase):
    DOCS = [
        (1, "我们明天去东京都看樱花"),
        (2, "东京大学"),
        (3, "今日はラーメンを食べました"),
        (4, "서울시에서 만나요"),
        (5, "부산에서 서울까지"),
        (6, "Deploy to 東京 staging, then ラーメン"),
    ]

    def setUp(self):
        self.conn = connect()
        self.t = Table(self.conn, "t", "sessions cjk 1", self.DOCS)

    def test_substrings_of_one_two_and_more_characters(self):
        cases = [
            ('"京"', [(1, "我们明天去东[京]都看樱花"), (2, "东[京]大学"), (6, "Deploy to 東[京] staging, then ラーメン")]),
            ('"东京"', [(1, "我们明天去[东京]都看樱花"), (2, "[东京]大学")]),
            ('"东京都看"', [(1, "我们明天去[东京都看]樱花")]),
            ('"ラー"', [(3, "今日は[ラー]メンを食べました"), (6, "Deploy to 東京 staging, then [ラー]メン")]),
            ('"メンを食"', [(3, "今日はラー[メンを食]べました")]),
            ('"서울"', [(4, "[서울]시에서 만나요"), (5, "부산에서 [서울]까지")]),
            ('"에서"', [(4, "서울시[에서] 만나요"), (5, "부산[에서] 서울까지")]),
            ('"시"', [(4, "서울[시]에서 만나요")]),
            ('staging AND "東京"', [(6, "Deploy to [東京] [staging], then ラーメン")]),
        ]
        for query, expected in cases:
            with self.subTest(query=query):
                self.assertEqual(self.t.highlights(query), expected)

    def test_characters_that_are_not_adjacent_do_not_match(self):
        self.assertEqual(self.t.hits('"东大"'), [])
        self.assertEqual(self.t.hits('"서시"'), [])

    def test_without_cjk_a_part_of_a_katakana_or_hangul_word_is_missed(self):
        words = Table(self.conn, "w", "sessions", self.DOCS)
        self.assertEqual(words.hits('"ラー"'), [])
        self.assertEqual(words.hits('"서울"'), [])
        self.assertEqual(words.hits('"서울까지"'), [5])
        self.assertEqual(words.hits('"ラーメン"'), [3, 6])

    def test_one_token_per_character_and_a_boundary_after_a_run(self):
        toks = tokens(self.conn, "東京都 staging", "cjk 1")
        self.assertEqual(
            [(t["token"], t["start"], t["end"]) for t in toks],
            [("東", 0, 3), ("京", 3, 6), ("都", 6, 9), ("\x01", 10, 10), ("staging", 10, 17)],
        )
        self.assertEqual(token_texts(self.conn, "東京都 staging"), ["東", "京", "都", "staging"])

    def test_a_phrase_does_not_run_across_two_runs(self):
        t = Table(self.conn, "r", "sessions cjk 1", [(1, "大阪。東京"), (2, "大阪東京")])
        self.assertEqual(t.hits('"阪東"'), [2])
        self.assertEqual(t.hits('"阪 東"'), [1])


class BadInputTest(unittest.TestCase):
    def setUp(self):
        self.conn = connect()
        self.t = Table(self.conn, "t", "sessions cjk 1", [])

    def test_invalid_utf8_passed_as_bytes(self):
        docs = [
            (1, b"hello\xffworld"),
            (2, b"caf\xc3\xa9\xe6\x9d\xb1\xe4\xba"),  # café東 then a cut-off 京
            (3, b"\x80\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd\x80"),  # 東京都 between stray bytes
            (4, b"\xc0\xaf../passwd"),  # overlong encoding of '/'
        ]
        self.conn.executemany("INSERT INTO t(rowid, body) VALUES (?, CAST(? AS TEXT))", docs)
        # The same bytes as a blob, not cast.
        self.conn.execute("INSERT INTO t(rowid, body) VALUES (5, ?)", (b"\xfe\xfflone blob\xff",))
        self.assertEqual(self.t.hits("hello"), [1])
        self.assertEqual(self.t.hits("world"), [1])
        self.assertEqual(self.t.hits("helloworld"), [])
        self.assertEqual(self.t.hits("cafe"), [2])
        self.assertEqual(self.t.hits('"東"'), [2, 3])
        self.assertEqual(self.t.hits('"東京都"'), [3])
        self.assertEqual(self.t.hits("passwd"), [4])
        self.assertEqual(self.t.hits("lone AND blob"), [5])
        rows = self.conn.execute(
            "SELECT rowid, CAST(highlight(t, 0, '[', ']') AS BLOB) FROM t WHERE t MATCH 'world OR cafe' ORDER BY rowid"
        ).fetchall()
        self.assertEqual(rows, [(1, b"hello\xff[world]"), (2, b"[caf\xc3\xa9]\xe6\x9d\xb1\xe4\xba")])
        self.assertEqual(
            [(t["token"], t["start"], t["end"]) for t in tokens(self.conn, b"hello\xffworld")],
            [("hello", 0, 5), ("world", 6, 11)],
        )
        self.t.integrity_check()

    def test_offsets_of_invalid_text_index_the_original_bytes(self):
        for doc in [b"hello\xffworld", b"\x80\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd\x80"]:
            with self.subTest(doc=doc):
                as_text, as_blob = self.conn.execute(
                    "SELECT sessions_tokenize(CAST(?1 AS TEXT), 'cjk 1'), sessions_tokenize(?1, 'cjk 1')", (doc,)
                ).fetchone()
                self.assertEqual(as_text, as_blob)
                for token in json.loads(as_text):
                    self.assertLessEqual(token["end"], len(doc))

    def test_none_and_empty(self):
        self.conn.executemany(
            "INSERT INTO t(rowid, body) VALUES (?, ?)", [(1, None), (2, ""), (3, " ...!? "), (4, "。、")]
        )
        self.assertEqual(self.conn.execute("SELECT count(*) FROM t").fetchone(), (4,))
        self.assertEqual(tokens(self.conn, None), [])
        self.assertEqual(tokens(self.conn, ""), [])
        self.assertEqual(tokens(self.conn, " ...!? ", "cjk 1"), [])
        self.assertEqual(self.t.hits('"..."'), [])
        self.conn.execute("DELETE FROM t WHERE rowid = 1")
        self.conn.execute("UPDATE t SET body = 'now text' WHERE rowid = 2")
        self.assertEqual(self.t.hits("now"), [2])
        self.t.integrity_check()

    def test_ten_megabyte_document(self):
        body = " ".join(f"w{i} Café 東京" for i in range(600_000)) + " needle 終わり"
        self.assertGreater(len(body.encode("utf-8")), 10_000_000)
        self.conn.execute("INSERT INTO t(rowid, body) VALUES (1, ?)", (body,))
        self.conn.execute("INSERT INTO t(rowid, body) VALUES (2, 'small cafe')")
        self.assertEqual(self.t.hits("w0"), [1])
        self.assertEqual(self.t.hits("w599999"), [1])
        self.assertEqual(self.t.hits("w600000"), [])
        self.assertEqual(self.t.hits("cafe"), [1, 2])
        self.assertEqual(self.t.hits('"終わ"'), [1])
        (snippet,) = self.conn.execute(
            "SELECT snippet(t, 0, '[', ']', '…', 5) FROM t WHERE t MATCH 'needle'"
        ).fetchone()
        self.assertTrue(snippet.startswith("…") and snippet.endswith("[needle] 終わ…"), snippet)
        self.t.integrity_check()

    def test_hundred_kilobyte_token(self):
        token = os.urandom(51_200).hex()
        other = os.urandom(51_200).hex()
        self.conn.executemany(
            "INSERT INTO t(rowid, body) VALUES (?, ?)",
            [(1, f"start {token} end"), (2, other), (3, token[:256] + "tail"), (4, token[:255] + "tail")],
        )
        self.assertEqual(self.t.hits(f'"{token}"'), [1, 3])  # tokens are cut at 256 bytes
        self.assertEqual(self.t.hits(f'"{other}"'), [2])
        self.assertEqual(self.t.hits(f'"{token.upper()}"'), [1, 3])
        self.assertEqual(self.t.hits("start AND end"), [1])
        (toks,) = self.conn.execute("SELECT sessions_tokenize(?)", (token,)).fetchone()
        self.assertEqual(json.loads(toks), [{"token": token[:256], "start": 0, "end": len(token)}])
        self.t.integrity_check()

    def test_numbers_are_tokenized_as_sqlites_text_for_them(self):
        for value in ["42", "-7", "1.5", "1e20", "123456789012.0"]:
            with self.subTest(value=value):
                direct, as_text = self.conn.execute(
                    f"SELECT sessions_tokenize({value}), sessions_tokenize(CAST({value} AS TEXT))"
                ).fetchone()
                self.assertEqual(direct, as_text)
        self.assertEqual(token_texts(self.conn, 1e20), ["1", "0e", "20"])

    def test_null_arguments_count_as_none(self):
        (out,) = self.conn.execute("SELECT sessions_tokenize('Ab', ?)", (None,)).fetchone()
        self.assertEqual(json.loads(out), [{"token": "ab", "start": 0, "end": 2}])

    def test_unknown_arguments_are_errors(self):
        for args in ["foo 1", "cjk 2", "cjk", "remove_diacritics 2", "cjk 1 stemmer porter"]:
            with self.subTest(args=args):
                with self.assertRaisesRegex(sqlite3.OperationalError, "error in tokenizer constructor"):
                    self.conn.execute(f"CREATE VIRTUAL TABLE bad USING fts5(body, tokenize = 'sessions {args}')")
        with self.assertRaisesRegex(sqlite3.OperationalError, "unknown argument 'foo'"):
            self.conn.execute("SELECT sessions_tokenize('x', 'foo 1')")
        with self.assertRaisesRegex(sqlite3.OperationalError, "'cjk' must be 0 or 1, not '2'"):
            self.conn.execute("SELECT sessions_tokenize('x', 'cjk 2')")
        with self.assertRaisesRegex(sqlite3.OperationalError, "'cjk' needs a value"):
            self.conn.execute("SELECT sessions_tokenize('x', 'cjk')")
        self.assertEqual(
            self.conn.execute("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'bad%'").fetchone(), (0,)
        )


if __name__ == "__main__":
    unittest.main()
