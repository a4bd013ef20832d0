"""The transcript store, search and history from Python's sqlite3 module.

The same scenarios as tests/shell/10_store.sql and 11_search.sql (init,
plain-SQL writes, content blocks, branches, deletes, atomicity, the errors
the triggers raise, deferred indexing, adoption, every search option, hostile
queries, history windows), plus what only a host program can do: a writer
killed with SIGKILL in the middle of a large transaction, several
connections, and bad input bound as parameters.

Run with the system Python, whose sqlite3 can load extensions:

    /usr/bin/python3 -m unittest discover -s tests/python -v

Needs dist/session_search.so (make build).
"""

import json
import math
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTENSION = os.path.join(ROOT, "dist", "session_search")
FAKE_KEY = "sk-proj-Zt8qLm3Rv9XwB2nK7pQd4Hs6Yj1Fc5Ga0Ue8Wi3Oy7Tr2Mb9Nx4Lk6Jh1"


def connect(path=":memory:", uri=False):
    """A connection in autocommit mode (transactions are explicit BEGIN /
    COMMIT) with the extension loaded."""
    conn = sqlite3.connect(path, isolation_level=None, uri=uri)
    conn.enable_load_extension(True)
    conn.load_extension(EXTENSION)
    conn.enable_load_extension(False)
    return conn


def store(path=":memory:"):
    conn = connect(path)
    conn.execute("SELECT sessions_init()")
    return conn


def value(conn, sql, params=()):
    return conn.execute(sql, params).fetchone()[0]


def status(conn):
    return json.loads(value(conn, "SELECT sessions_status()"))


def session(conn, key, agent="main", spawned_by=None, created_at=1):
    conn.execute(
        "INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES (?, ?, ?, ?)",
        (key, agent, spawned_by, created_at),
    )


def say(conn, key, role, content, created_at, parent_id=None, message_id=None, id=None):
    """Inserts a message with plain SQL; returns messages.id."""
    cur = conn.execute(
        "INSERT INTO messages(id, session_key, parent_id, role, content, created_at, message_id)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (id, key, parent_id, role, content, created_at, message_id),
    )
    return cur.lastrowid


def leaf(conn, key):
    return value(conn, "SELECT leaf_id FROM sessions WHERE session_key = ?", (key,))


def rewind(conn, key, leaf_id):
    conn.execute("UPDATE sessions SET leaf_id = ? WHERE session_key = ?", (leaf_id, key))


def index_bm25(conn, query):
    """FTS5's own bm25() of the query's words in the index's text column, by message id."""
    rows = conn.execute("SELECT ~rowid, -bm25(session_search_fts) FROM session_search_fts"
                        " WHERE session_search_fts MATCH 'text : (' || ? || ')'", (query,))
    return dict(rows.fetchall())


def search(conn, query, caller, **options):
    options = {"caller": caller, **options}
    return json.loads(value(conn, "SELECT sessions_search(?, ?)", (query, json.dumps(options))))


def found(conn, query, caller, **options):
    """The ids of the messages a search finds with every term, sorted (the
    any-term fill marked partial left out)."""
    results = search(conn, query, caller, **options)["results"]
    return sorted(hit["id"] for hit in results if not hit.get("partial"))


def history(conn, key, caller, **options):
    options = {"caller": caller, **options}
    return json.loads(value(conn, "SELECT sessions_history(?, ?)", (key, json.dumps(options))))


def shown(conn, key, caller, **options):
    """(messageIds, before, after) of a history window."""
    h = history(conn, key, caller, **options)
    return [m["messageId"] for m in h["messages"]], h["before"], h["after"]


class StoreTestCase(unittest.TestCase):
    def assertConsistent(self, conn):
        """Integrity ok, and the counts of status agree with the tables."""
        s = status(conn)
        self.assertEqual(s["integrity"], "ok")
        self.assertEqual(s["messages"], value(conn, "SELECT count(*) FROM messages"))
        self.assertEqual(value(conn, "PRAGMA integrity_check"), "ok")
        return s

    def assertError(self, conn, sql, params, *fragments):
        with self.assertRaises(sqlite3.Error) as ctx:
            conn.execute(sql, params).fetchall()
        for fragment in fragments:
            self.assertIn(fragment, str(ctx.exception))
        return str(ctx.exception)


class InitTest(StoreTestCase):
    def test_init_is_idempotent(self):
        conn = connect()
        first = json.loads(value(conn, "SELECT sessions_init()"))
        schema = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
        second = json.loads(value(conn, "SELECT sessions_init()"))
        self.assertEqual(first, second)
        self.assertEqual(
            first,
            {"schema_version": 14, "tokenizer_version": 14, "redaction_version": 3,
             "redaction_patterns": 0, "messages": 0, "indexed": 0, "pending": 0,
             "indexing": "immediate"},
        )
        self.assertEqual(schema, conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall())
        names = {row[1] for row in schema}
        self.assertTrue({"sessions", "messages", "session_search_fts", "session_search_nodes"} <= names)

    def test_init_after_writes_keeps_them(self):
        conn = store()
        session(conn, "a")
        say(conn, "a", "user", "kept across init", 2)
        conn.execute("SELECT sessions_init()")
        self.assertEqual(found(conn, "kept", "a"), [1])
        self.assertConsistent(conn)

    def test_init_waits_out_another_writer_as_long_as_the_busy_timeout(self):
        import threading
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "new.db")
            writer = sqlite3.connect(path, isolation_level=None)
            writer.execute("PRAGMA journal_mode = wal")
            writer.execute("CREATE TABLE host(x)")
            writer.execute("BEGIN IMMEDIATE")
            writer.execute("INSERT INTO host VALUES (1)")
            outcome = {}

            def initialise(timeout_ms):
                conn = connect(path)
                conn.execute(f"PRAGMA busy_timeout = {timeout_ms}")
                try:
                    outcome[timeout_ms] = json.loads(value(conn, "SELECT sessions_init()"))["schema_version"]
                except sqlite3.Error as e:
                    outcome[timeout_ms] = str(e)
                conn.close()

            # No busy timeout: a short grace, then a clear error; nothing made.
            initialise(0)
            self.assertIn("sessions_init: another connection is writing", outcome[0])
            # A busy timeout longer than the other write: init waits it out.
            waiting = threading.Thread(target=initialise, args=(5000,))
            waiting.start()
            time.sleep(0.6)
            writer.execute("COMMIT")
            waiting.join()
            self.assertEqual(outcome[5000], 14)
            writer.close()

    def test_functions_refuse_to_run_before_init(self):
        conn = connect()
        for sql in (
            "SELECT sessions_status()",
            "SELECT sessions_reconcile(10)",
            "SELECT sessions_set_indexing('deferred')",
            """SELECT sessions_search('x', '{"caller":"a"}')""",
            """SELECT sessions_history('a', '{"caller":"a"}')""",
        ):
            name = sql.split("(")[0].split()[-1]
            self.assertError(conn, sql, (), name, "run SELECT sessions_init() first")

    def test_versions_4_to_8_gain_the_covering_session_index_and_marked_bounded_scopes(self):
        index_sql = "SELECT sql FROM sqlite_master WHERE name = 'session_search_messages_by_session'"
        for version in (4, 5, 6, 7, 8):
            with self.subTest(version=version):
                conn = store()
                session(conn, "s")
                say(conn, "s", "user", "kept across the upgrade", 1)
                conn.execute("DROP INDEX session_search_messages_by_session")
                conn.execute("CREATE INDEX session_search_messages_by_session ON messages(session_key, id)")
                if version >= 5:
                    conn.execute("CREATE INDEX session_search_messages_by_time ON messages(created_at)")
                # Before version 7 a scope held the whole spawn chain.
                conn.execute("DROP VIEW session_search_scope_of")
                conn.execute("CREATE VIEW session_search_scope_of(session_key, scope) AS"
                             " SELECT session_key, 'a' || lower(hex(agent_id)) FROM sessions")
                conn.execute("UPDATE session_search_meta SET value = ? WHERE key = 'schema_version'", (version,))
                init = json.loads(value(conn, "SELECT sessions_init()"))
                # Version 9 marks the scopes: the index is rebuilt, and a
                # search indexes the backlog it finds.
                self.assertEqual((init["schema_version"], init["indexed"], init["pending"]), (14, 0, 1))
                view = value(conn, "SELECT sql FROM sqlite_master WHERE name = 'session_search_scope_of'")
                self.assertIn("THEN 'tz'", view)
                self.assertEqual(value(conn, "SELECT unicode(scope) FROM session_search_scopes"), 0xE001)
                self.assertEqual(value(conn, "SELECT count(*) FROM sqlite_master WHERE name = 'session_search_messages_by_time'"), 0)
                self.assertIn("(session_key, id, created_at)", value(conn, index_sql))
                self.assertEqual(found(conn, "upgrade", "s", order="recent"), [1])
                listed = json.loads(value(conn, """SELECT sessions_list('{"caller":"s"}')"""))
                self.assertEqual([(s["sessionKey"], s["messages"], s["lastActivity"]) for s in listed["sessions"]], [("s", 1, 1)])

    def test_newer_schema_version_is_refused(self):
        conn = store()
        conn.execute("UPDATE session_search_meta SET value = 15 WHERE key = 'schema_version'")
        self.assertError(conn, "SELECT sessions_init()", (), "sessions_init", "schema version 15", "upgrade")

    @staticmethod
    def entries(n):
        """A store whose session "s" holds `n` user messages, `entry 0`
        onwards, at times from 1000."""
        conn = store()
        session(conn, "s")
        for i in range(n):
            say(conn, "s", "user", f"entry {i}", 1000 + i)
        return conn

    def test_version_13_drops_the_index_of_messages_by_time(self):
        conn = self.entries(300)
        conn.execute("CREATE INDEX session_search_messages_by_time ON messages(created_at)")
        conn.execute("UPDATE session_search_meta SET value = 13 WHERE key = 'schema_version'")
        init = json.loads(value(conn, "SELECT sessions_init()"))
        # Nothing to index again: the index itself is unchanged.
        self.assertEqual((init["schema_version"], init["messages"], init["indexed"], init["pending"]), (14, 300, 300, 0))
        self.assertEqual(value(conn, "SELECT count(*) FROM sqlite_master WHERE name = 'session_search_messages_by_time'"), 0)
        self.assertEqual(found(conn, "entry", "s", order="recent", limit=3), [298, 299, 300])

    def test_version_9_gains_the_time_blocks_of_recent(self):
        conn = self.entries(600)
        conn.execute("DROP TABLE session_search_time_blocks")
        conn.execute("UPDATE session_search_meta SET value = 9 WHERE key = 'schema_version'")
        init = json.loads(value(conn, "SELECT sessions_init()"))
        # Version 11 rebuilds the index (below).
        self.assertEqual((init["schema_version"], init["pending"]), (14, 600))
        blocks = conn.execute("SELECT block, newest FROM session_search_time_blocks ORDER BY block").fetchall()
        self.assertEqual(blocks, [(0, 1254), (1, 1510), (2, 1599)])
        self.assertEqual(found(conn, "entry", "s", order="recent", limit=3), [598, 599, 600])

    def test_version_11_gives_a_cycles_sessions_one_tree_word(self):
        conn = store()
        session(conn, "p", spawned_by="q")
        session(conn, "q", spawned_by="p")
        session(conn, "below", spawned_by="q")
        for i, key in enumerate(("p", "q", "below")):
            say(conn, key, "user", f"guava in {key}", i)
        # Version 11's scopes: every key of the cycle, re-indexed under them.
        conn.execute("UPDATE session_search_scopes SET scope = char(57345) || 'a' || lower(hex('main'))"
                     " || ' t' || lower(hex('p')) || ' t' || lower(hex('q'))"
                     " || CASE WHEN session_key = 'below' THEN ' t' || lower(hex('below')) ELSE '' END")
        conn.execute("UPDATE session_search_meta SET value = 11 WHERE key = 'schema_version'")
        init = json.loads(value(conn, "SELECT sessions_init()"))
        self.assertEqual((init["schema_version"], init["pending"]), (14, 0))
        scopes = conn.execute("SELECT session_key, substr(scope, 2) FROM session_search_scopes ORDER BY 1").fetchall()
        self.assertEqual(scopes, [("below", "a6d61696e tz"), ("p", "a6d61696e tz"), ("q", "a6d61696e tz")])
        self.assertEqual(sorted(found(conn, "guava", "p")), [1, 2, 3])
        self.assertEqual(found(conn, "guava", "below"), [3])
        self.assertEqual(status(conn)["integrity"], "ok")

    def test_version_10_gives_the_index_its_markers_and_rebuilds_it(self):
        conn = store()
        session(conn, "s")
        say(conn, "s", "user", "we fixed the error in the deploy", 1)
        say(conn, "s", "user", "the deploy error is back", 2)
        # Version 10's index: the tokenizer without its markers.
        conn.execute("DROP TABLE session_search_fts")
        conn.execute("CREATE VIRTUAL TABLE session_search_fts USING fts5(text, scope,"
                     " content = 'session_search_text', content_rowid = 'id', tokenize = 'sessions cjk 1')")
        conn.execute("UPDATE session_search_meta SET value = 10 WHERE key = 'schema_version'")
        init = json.loads(value(conn, "SELECT sessions_init()"))
        self.assertEqual((init["schema_version"], init["indexed"], init["pending"]), (14, 0, 2))
        self.assertIn("markers 1", value(conn, "SELECT sql FROM sqlite_master WHERE name = 'session_search_fts'"))
        self.assertEqual(json.loads(value(conn, "SELECT sessions_reconcile(10)"))["pending"], 0)
        self.assertEqual(found(conn, '"the error"', "s"), [1])
        self.assertEqual(found(conn, '"the deploy"', "s"), [1, 2])
        self.assertEqual(found(conn, '"error is"', "s"), [2])

    def test_plain_sql_writes_after_an_upgrade_succeed_and_the_rebuild_indexes_them(self):
        """An index built by an earlier release (another tokenizer and default
        redaction set): a host that only writes, never calling sessions_init(),
        keeps writing; nothing is read from the old index, and the rebuild a
        search starts indexes every write made meanwhile."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "agent.db")
            w = store(path)
            session(w, "a")
            kept = say(w, "a", "user", "kiwi before the upgrade", 1)
            edited = say(w, "a", "assistant", "mango before the upgrade", 2)
            removed = say(w, "a", "user", "papaya before the upgrade", 3)
            w.execute("UPDATE session_search_meta SET value = 9 WHERE key = 'tokenizer_version'")
            w.execute("UPDATE session_search_meta SET value = json_set(value, '$.version', 1)"
                      " WHERE key = 'redaction'")
            added = say(w, "a", "assistant", "guava after the upgrade", 4)
            w.execute("UPDATE messages SET content = 'lychee after the upgrade' WHERE id = ?", (edited,))
            w.execute("DELETE FROM messages WHERE id = ?", (removed,))
            self.assertIn("an earlier version", status(w)["integrity"])
            r = connect(f"file:{path}?mode=ro", uri=True)
            stale = search(r, "kiwi", "a")
            self.assertEqual((stale["results"], stale["indexing"]), ([], True))
            self.assertIn("an earlier version", stale["warning"])
            # The first search on a writable connection starts the rebuild,
            # and its own slice indexes a backlog this small.
            self.assertEqual(found(w, "upgrade", "a"), sorted([kept, edited, added]))
            self.assertEqual(found(w, "guava", "a"), [added])
            self.assertEqual(found(w, "lychee", "a"), [edited])
            self.assertEqual(found(w, "mango OR papaya", "a"), [])
            self.assertEqual(found(r, "kiwi", "a"), [kept])
            self.assertConsistent(w)

    def test_an_index_of_a_newer_release_is_neither_written_nor_rebuilt_by_an_older_one(self):
        for key, newer in (("redaction", "json_set(value, '$.version', 99)"), ("tokenizer_version", "99")):
            with self.subTest(key):
                conn = store()
                session(conn, "a")
                kept = say(conn, "a", "user", "hello before", 1)
                old = value(conn, "SELECT value FROM session_search_meta WHERE key = ?", (key,))
                conn.execute(f"UPDATE session_search_meta SET value = {newer} WHERE key = ?", (key,))
                meta = conn.execute("SELECT key, value FROM session_search_meta ORDER BY key").fetchall()
                for sql in ("INSERT INTO messages(session_key, role, content, created_at)"
                            " VALUES ('a', 'user', 'hello', 2)",
                            f"UPDATE messages SET content = 'hello again' WHERE id = {kept}",
                            f"DELETE FROM messages WHERE id = {kept}"):
                    self.assertError(conn, sql, (), "newer session-search")
                self.assertEqual(conn.execute("SELECT id, content FROM messages").fetchall(),
                                 [(kept, "hello before")])
                # Nothing rebuilds it back to this build's tokens: every
                # function that would says why it cannot run.
                for sql, args in (("SELECT sessions_init()", ()),
                                  ("SELECT sessions_search('hello', ?)", ('{"caller": "a"}',)),
                                  ("SELECT sessions_reconcile(100)", ()),
                                  ("SELECT sessions_set_redaction('[]')", ())):
                    self.assertError(conn, sql, args, "built by a newer session-search")
                self.assertEqual(conn.execute("SELECT key, value FROM session_search_meta ORDER BY key").fetchall(),
                                 meta)
                status = json.loads(value(conn, "SELECT sessions_status()"))
                self.assertIn("not checked: the search index was built by a newer session-search",
                              status["integrity"])
                # The index is as the newer build left it: with the version
                # back, it finds what it held.
                conn.execute("UPDATE session_search_meta SET value = ? WHERE key = ?", (old, key))
                self.assertEqual(found(conn, "hello", "a"), [kept])

    def test_prefixes_find_every_word_they_start(self):
        conn = store()
        session(conn, "s")
        for id_, text in ((1, "dep"), (2, "depl"), (3, "deploy"), (4, "Deployments done"),
                          (5, "that is all"), (6, "thaw the depot"), (7, "nothing else"),
                          (8, "deploymentsmanager"), (9, "there"), (10, "therefore")):
            say(conn, "s", "user", text, id_, id=id_)
        # Words of 4 letters or more carry a prefix token of their first 3
        # letters; shorter words and frequent words (deploy, done, nothing,
        # else, there) are asked for as themselves, and longer prefixes are
        # FTS5 prefixes.
        conn.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, session_search_fts, 'row')")
        terms = {t[2:] for (t,) in conn.execute("SELECT term FROM terms WHERE term LIKE ?", ("\ue000*%",))}
        self.assertEqual(terms, {"dep", "tha", "the"})
        for order in ("relevance", "recent"):
            self.assertEqual(found(conn, "dep*", "s", order=order), [1, 2, 3, 4, 6, 8])
            self.assertEqual(found(conn, "DEPL*", "s", order=order), [2, 3, 4, 8])
            self.assertEqual(found(conn, "deplo*", "s", order=order), [3, 4, 8])
            self.assertEqual(found(conn, "deploy*", "s", order=order), [3, 4, 8])
            self.assertEqual(found(conn, "deployme*", "s", order=order), [4, 8])
            self.assertEqual(found(conn, "deploymen*", "s", order=order), [4, 8])
            self.assertEqual(found(conn, "deploymentsm*", "s", order=order), [8])
            self.assertEqual(found(conn, "tha*", "s", order=order), [5, 6])
            self.assertEqual(found(conn, "th*", "s", order=order), [5, 6, 9, 10])
            self.assertEqual(found(conn, "there*", "s", order=order), [9, 10])
            self.assertEqual(found(conn, "tha* done", "s", order=order), [])
            self.assertEqual(found(conn, "dep* done", "s", order=order), [4])
            self.assertEqual(found(conn, "not*", "s", order=order), [7])
            self.assertEqual(found(conn, "El*", "s", order=order), [7])

    def test_a_table_of_the_host_gets_no_markers(self):
        conn = connect()
        conn.execute("CREATE VIRTUAL TABLE notes USING fts5(body, tokenize = 'sessions cjk 1')")
        conn.execute("CREATE VIRTUAL TABLE notes_terms USING fts5vocab(notes, 'row')")
        conn.execute("INSERT INTO notes(body) VALUES ('fix the error in the deploy')")
        self.assertEqual([t for (t,) in conn.execute("SELECT term FROM notes_terms ORDER BY term")],
                         ["deploy", "error", "fix", "in", "the"])
        self.assertEqual(value(conn, """SELECT count(*) FROM notes WHERE notes MATCH '"the error"'"""), 1)

    def test_missing_column_is_named_and_nothing_is_created(self):
        conn = connect()
        conn.execute("CREATE TABLE messages(id INTEGER PRIMARY KEY, session_key TEXT NOT NULL, parent_id INTEGER,"
                     " role TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL)")
        self.assertError(conn, "SELECT sessions_init()", (), "sessions_init: table messages has no column message_id")
        self.assertEqual([r[0] for r in conn.execute("SELECT name FROM sqlite_master ORDER BY name")], ["messages"])

    def test_missing_indexed_column_is_named_with_its_table(self):
        conn = connect()
        conn.execute("CREATE TABLE sessions(session_key TEXT PRIMARY KEY, agent_id TEXT NOT NULL,"
                     " created_at INTEGER NOT NULL, leaf_id INTEGER)")
        self.assertError(conn, "SELECT sessions_init()", (), "sessions_init: table sessions has no column spawned_by")

    def test_connection_without_the_extension_cannot_write(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "agent.db")
            conn = store(path)
            session(conn, "a")
            say(conn, "a", "user", "before the plain connection", 2)
            plain = sqlite3.connect(path, isolation_level=None)
            for sql in (
                "INSERT INTO messages(session_key, role, content, created_at) VALUES ('a', 'user', 'stale', 3)",
                "UPDATE sessions SET leaf_id = NULL",
                "DELETE FROM messages",
                "UPDATE messages SET content = 'stale'",
            ):
                with self.assertRaises(sqlite3.OperationalError) as ctx:
                    plain.execute(sql)
                # docs/sql.md names "no such function: sessions_text"; FTS5
                # reports its tokenizer first.
                self.assertRegex(str(ctx.exception), "no such (function: sessions_text|tokenizer: sessions)")
            plain.close()
            self.assertEqual(found(conn, "plain", "a"), [1])
            self.assertEqual(found(conn, "stale", "a"), [])
            self.assertConsistent(conn)

    def test_indexing_mode_is_stored_in_the_database(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "agent.db")
            conn = store(path)
            self.assertEqual(value(conn, "SELECT sessions_set_indexing('deferred')"), "immediate")
            conn.close()
            other = connect(path)
            self.assertEqual(status(other)["indexing"], "deferred")
            self.assertEqual(value(other, "SELECT sessions_set_indexing('immediate')"), "deferred")


class ContentTest(StoreTestCase):
    def setUp(self):
        self.conn = store()
        session(self.conn, "b")

    def test_only_text_blocks_of_user_and_assistant_are_searchable(self):
        conn = self.conn
        blocks = [
            ("user", [{"type": "input_text", "text": "hotel question"},
                      {"type": "image", "source": {"type": "base64", "data": "imagekilo"}}]),
            ("assistant", [{"type": "thinking", "thinking": "thinkingmike"},
                           {"type": "text", "text": "india answer"},
                           {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "tooluseoscar"}}]),
            ("user", [{"type": "tool_result", "tool_use_id": "t1",
                       "content": [{"type": "text", "text": "resultpapa"}]}]),
            ("assistant", [{"type": "reasoning", "text": "reasoningsierra"},
                           {"type": "output_text", "text": "juliet done"},
                           {"type": "toolCall", "name": "read", "arguments": {"path": "toolcalltango"}}]),
        ]
        ids = [say(conn, "b", role, json.dumps(content), 10 + i) for i, (role, content) in enumerate(blocks)]
        tool = say(conn, "b", "tool", "toolrolequebec output", 20)
        system = say(conn, "b", "system", "systemromeo prompt", 21)
        tool_blocks = say(conn, "b", "tool", json.dumps([{"type": "text", "text": "toolblockvictor"}]), 22)
        self.assertEqual(found(conn, "hotel", "b"), [ids[0]])
        self.assertEqual(found(conn, "india", "b"), [ids[1]])
        self.assertEqual(found(conn, "juliet", "b"), [ids[3]])
        for hidden in ("imagekilo", "thinkingmike", "tooluseoscar", "resultpapa", "reasoningsierra",
                       "toolcalltango", "toolrolequebec", "systemromeo", "toolblockvictor", "bash", "t1",
                       "base64", "type"):
            self.assertEqual(found(conn, hidden, "b"), [], hidden)
        texts = [m["text"] for m in history(conn, "b", "b")["messages"]]
        self.assertEqual(texts, [
            "hotel question\n[image]",
            "[reasoning]\nindia answer\n[tool call: bash]",
            "[tool result]",
            "[reasoning]\njuliet done\n[tool call: read]",
            "[tool result: 21 characters]",
            "[system message: 18 characters]",
            f"[tool result: {len(json.dumps([{'type': 'text', 'text': 'toolblockvictor'}]))} characters]",
        ])
        self.assertEqual(value(conn, "SELECT count(*) FROM messages WHERE id IN (?, ?, ?)", (tool, system, tool_blocks)), 3)
        s = self.assertConsistent(conn)
        # The tool_result-only user message is indexed, with no text.
        self.assertEqual((s["messages"], s["indexed"], s["pending"]), (7, 4, 0))

    def test_malformed_or_foreign_json_stays_plain_text(self):
        conn = self.conn
        contents = [
            '[{"type":"text","text":"unclosed alpha',
            '[1, 2, "bravo"]',
            '{"type":"text","text":"charlie object"}',
            '[{"text":"delta without type"}]',
            '[{"type":"text","text":"echo"}] trailing',
        ]
        ids = [say(conn, "b", "user", c, i) for i, c in enumerate(contents)]
        for word, id_ in zip(("alpha", "bravo", "charlie", "delta", "echo"), ids):
            self.assertEqual(found(conn, word, "b"), [id_], word)
        self.assertEqual([m["text"] for m in history(conn, "b", "b")["messages"]], contents)
        for c in contents:
            self.assertEqual(value(conn, "SELECT sessions_text(?)", (c,)), c)
        self.assertConsistent(conn)

    def test_editing_content_or_role_reindexes(self):
        conn = self.conn
        m = say(conn, "b", "user", "original words", 1)
        conn.execute("UPDATE messages SET content = 'edited words' WHERE id = ?", (m,))
        self.assertEqual(found(conn, "original", "b"), [])
        self.assertEqual(found(conn, "edited", "b"), [m])
        conn.execute("UPDATE messages SET role = 'tool' WHERE id = ?", (m,))
        self.assertEqual(found(conn, "edited", "b"), [])
        conn.execute("UPDATE messages SET role = 'assistant', content = ? WHERE id = ?",
                     (json.dumps([{"type": "text", "text": "blocks now"}]), m))
        self.assertEqual(found(conn, "blocks", "b"), [m])
        self.assertConsistent(conn)


class BranchTest(StoreTestCase):
    """Rewinds and branches, as in tests/shell/10_store.sql."""

    WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "lima")

    def setUp(self):
        self.conn = store()
        session(self.conn, "a")
        for i, (role, word) in enumerate(zip(("user", "assistant", "user", "assistant"), self.WORDS), 1):
            say(self.conn, "a", role, f"{word} words", 1000 + i)

    def found_words(self):
        return {w: found(self.conn, w, "a") for w in self.WORDS if found(self.conn, w, "a")}

    def branch(self):
        return [m["id"] for m in history(self.conn, "a", "a")["messages"]]

    def test_rewind_branch_switch_back_and_fork(self):
        conn = self.conn
        self.assertEqual(leaf(conn, "a"), 4)
        self.assertEqual(found(conn, "words", "a"), [1, 2, 3, 4])
        rewind(conn, "a", 2)
        self.assertEqual(self.found_words(), {"alpha": [1], "bravo": [2]})
        # A new message after the rewind starts a branch after message 2.
        self.assertEqual(say(conn, "a", "user", "echo words", 1005), 5)
        self.assertEqual(self.branch(), [1, 2, 5])
        self.assertEqual(found(conn, "words", "a"), [1, 2, 5])
        # Switch back.
        rewind(conn, "a", 4)
        self.assertEqual(self.branch(), [1, 2, 3, 4])
        self.assertEqual(found(conn, "echo", "a"), [])
        # Branch from the middle.
        self.assertEqual(say(conn, "a", "assistant", "foxtrot words", 1006, parent_id=1), 6)
        self.assertEqual(leaf(conn, "a"), 6)
        self.assertEqual(self.found_words(), {"alpha": [1], "foxtrot": [6]})
        # A parent off the branch switches to it and extends it.
        self.assertEqual(say(conn, "a", "user", "lima words", 1007, parent_id=5), 7)
        self.assertEqual(self.branch(), [1, 2, 5, 7])
        self.assertEqual(self.found_words(), {"alpha": [1], "bravo": [2], "echo": [5], "lima": [7]})
        # Rewind to empty, then a new root.
        rewind(conn, "a", None)
        self.assertEqual(self.found_words(), {})
        self.assertEqual(history(conn, "a", "a")["messages"], [])
        self.assertEqual(say(conn, "a", "user", "golf words", 1008), 8)
        self.assertIsNone(value(conn, "SELECT parent_id FROM messages WHERE id = 8"))
        self.assertEqual(self.found_words(), {"golf": [8]})
        rewind(conn, "a", 4)
        self.assertEqual(self.found_words(), {"alpha": [1], "bravo": [2], "charlie": [3], "delta": [4]})
        s = self.assertConsistent(conn)
        self.assertEqual((s["messages"], s["indexed"], s["pending"]), (8, 4, 0))

    def test_a_switch_inside_a_transaction_is_visible_there_and_rolled_back(self):
        conn = self.conn
        conn.execute("BEGIN")
        rewind(conn, "a", 1)
        self.assertEqual(found(conn, "words", "a"), [1])
        say(conn, "a", "user", "echo words", 1005)
        self.assertEqual(found(conn, "words", "a"), [1, 5])
        conn.execute("ROLLBACK")
        self.assertEqual(leaf(conn, "a"), 4)
        self.assertEqual(found(conn, "words", "a"), [1, 2, 3, 4])
        self.assertConsistent(conn)

    def test_rewinding_a_long_session_back_and_forth(self):
        conn = self.conn
        conn.execute("BEGIN")
        for i in range(5, 2001):
            say(conn, "a", "user" if i % 2 else "assistant", f"message number{i}", 1000 + i)
        conn.execute("COMMIT")
        for target in (1000, 10, 1999, 5, 2000):
            rewind(conn, "a", target)
            self.assertEqual(found(conn, f"number{target}", "a"), [target])
            if target < 2000:
                self.assertEqual(found(conn, f"number{target + 1}", "a"), [])
            self.assertEqual(status(conn)["indexed"], target)
        self.assertConsistent(conn)

    def test_delete_message_leaf_and_session(self):
        conn = self.conn
        rewind(conn, "a", 2)
        say(conn, "a", "user", "echo words", 1005)  # 5, after 2
        conn.execute("DELETE FROM messages WHERE id = 2")
        self.assertEqual(self.branch(), [1, 5])
        self.assertEqual(found(conn, "bravo", "a"), [])
        conn.execute("DELETE FROM messages WHERE id = 5")
        self.assertEqual(leaf(conn, "a"), 1)
        rewind(conn, "a", 4)  # 3 now hangs from 1
        self.assertEqual(self.branch(), [1, 3, 4])
        self.assertEqual(found(conn, "words", "a"), [1, 3, 4])
        self.assertConsistent(conn)
        session(conn, "other")
        other = say(conn, "other", "user", "other words", 5000)
        conn.execute("DELETE FROM sessions WHERE session_key = 'a'")
        self.assertEqual(value(conn, "SELECT count(*) FROM messages WHERE session_key = 'a'"), 0)
        self.assertEqual(found(conn, "words", "other"), [other])
        s = self.assertConsistent(conn)
        self.assertEqual((s["messages"], s["indexed"]), (1, 1))

    def test_rolled_back_insert_leaves_no_row_and_no_index_entry(self):
        conn = self.conn
        conn.execute("BEGIN")
        m = say(conn, "a", "user", "victor inside", 3001)
        self.assertEqual(found(conn, "victor", "a"), [m])
        conn.execute("ROLLBACK")
        self.assertEqual(value(conn, "SELECT count(*) FROM messages WHERE id = ?", (m,)), 0)
        self.assertEqual(found(conn, "victor", "a"), [])
        self.assertEqual(leaf(conn, "a"), 4)
        # The id is free again and the new message is a different one.
        self.assertEqual(say(conn, "a", "user", "whiskey after", 3002), m)
        self.assertEqual(found(conn, "victor", "a"), [])
        self.assertEqual(found(conn, "whiskey", "a"), [m])
        self.assertConsistent(conn)

    def test_errors_leave_everything_unchanged(self):
        conn = self.conn
        session(conn, "c", agent="other")
        say(conn, "c", "user", "in c", 4001, id=31)
        before = conn.execute("SELECT * FROM messages ORDER BY id").fetchall()
        sessions_before = conn.execute("SELECT * FROM sessions ORDER BY session_key").fetchall()
        insert = "INSERT INTO messages(id, session_key, parent_id, role, content, created_at) VALUES (?, ?, ?, ?, ?, ?)"
        self.assertError(conn, insert, (None, "nobody", None, "user", "xray", 1), "names no session")
        self.assertError(conn, insert, (None, "a", 31, "user", "xray", 1), "parent_id must name")
        self.assertError(conn, insert, (40, "a", 40, "user", "xray", 1), "parent_id must name")
        self.assertError(conn, insert, (None, "a", 999, "user", "xray", 1), "parent_id must name")
        self.assertError(conn, "UPDATE sessions SET leaf_id = 31 WHERE session_key = 'a'", (), "leaf_id must be NULL or name")
        self.assertError(conn, "UPDATE sessions SET leaf_id = 999 WHERE session_key = 'a'", (), "leaf_id must be NULL or name")
        for sql in (
            "UPDATE messages SET parent_id = 1 WHERE id = 4",
            "UPDATE messages SET session_key = 'c' WHERE id = 4",
            "UPDATE messages SET id = 41 WHERE id = 4",
        ):
            self.assertError(conn, sql, (), "cannot change")
        self.assertError(conn, "UPDATE sessions SET session_key = 'renamed' WHERE session_key = 'c'", (), "cannot change")
        # Inside a transaction, the failed statement alone is undone.
        conn.execute("BEGIN")
        say(conn, "a", "user", "yankee kept", 4100)
        self.assertError(conn, insert, (None, "nobody", None, "user", "xray", 1), "names no session")
        conn.execute("COMMIT")
        self.assertEqual(found(conn, "yankee", "a"), [32])
        conn.execute("DELETE FROM messages WHERE id = 32")
        self.assertEqual(before, conn.execute("SELECT * FROM messages ORDER BY id").fetchall())
        self.assertEqual(sessions_before, conn.execute("SELECT * FROM sessions ORDER BY session_key").fetchall())
        self.assertEqual(found(conn, "xray", "a", visibility="all"), [])
        self.assertConsistent(conn)


class DeferredTest(StoreTestCase):
    def test_reconcile_in_slices_with_progress(self):
        conn = store()
        session(conn, "d")
        self.assertEqual(value(conn, "SELECT sessions_set_indexing('deferred')"), "immediate")
        conn.execute("BEGIN")
        for i in range(1, 11):
            say(conn, "d", "user" if i % 2 else "assistant", f"yankee number {i}", i)
        say(conn, "d", "tool", "yankee tool", 11)
        conn.execute("COMMIT")
        s = self.assertConsistent(conn)
        self.assertEqual((s["messages"], s["indexed"], s["pending"], s["indexing"]), (11, 0, 10, "deferred"))
        progress = [json.loads(value(conn, "SELECT sessions_reconcile(4)")) for _ in range(4)]
        self.assertEqual(progress, [
            {"indexed": 4, "pending": 6, "compacting": False, "done": False},
            {"indexed": 4, "pending": 2, "compacting": False, "done": False},
            # The whole index was reconciled: its segments are merged into
            # one, in the budget left and the next slice.
            {"indexed": 2, "pending": 0, "compacting": True, "done": False},
            {"indexed": 0, "pending": 0, "compacting": False, "done": True},
        ])
        self.assertEqual(status(conn)["segments"], 1)
        self.assertEqual(len(found(conn, "yankee", "d")), 10)
        # Rewinds in deferred mode remove at once and queue what joins.
        rewind(conn, "d", 3)
        self.assertEqual(status(conn)["indexed"], 3)
        self.assertEqual(found(conn, "yankee", "d"), [1, 2, 3])
        rewind(conn, "d", 11)
        self.assertEqual(status(conn)["pending"], 7)
        self.assertEqual(json.loads(value(conn, "SELECT sessions_reconcile(100)")),
                         {"indexed": 7, "pending": 0, "compacting": False, "done": True})
        self.assertEqual(value(conn, "SELECT sessions_set_indexing('immediate')"), "deferred")
        self.assertConsistent(conn)

    def test_a_large_backlog_is_counted_by_its_newest_part(self):
        """A slice counts at most 10 000 queued messages (20 per row it may
        index, if more), so its cost never grows with the backlog; beyond
        that the count is scaled by the queued ids' span, exact when they
        are spread evenly, as here. The messages of an emptied index not
        yet queued again are added as the rebuild counted them."""
        conn = store()
        for k in range(10):
            session(conn, f"b{k}")
        conn.execute("SELECT sessions_set_indexing('deferred')")

        def append(n, first):
            conn.execute("BEGIN")
            conn.executemany(
                "INSERT INTO messages(session_key, role, content, created_at) VALUES (?, ?, ?, ?)",
                ((f"b{i % 10}", "user" if i % 2 else "assistant", f"backlog line {i}", i)
                 for i in range(first, first + n)))
            conn.execute("COMMIT")

        def reconcile(max_rows):
            return json.loads(value(conn, "SELECT sessions_reconcile(?)", (max_rows,)))

        append(15_000, 0)
        progress = reconcile(1)
        self.assertEqual(progress["pending"], 14_999)
        self.assertEqual(progress["pending"], status(conn)["pending"])
        self.assertEqual(reconcile(100_000)["pending"], 0)
        # Two generations queued: 12 000 never indexed, then a redaction
        # change queues the 15 000 indexed under the old patterns.
        append(12_000, 15_000)
        conn.execute("""SELECT sessions_set_redaction('["ACME-[0-9]{6}"]')""")
        self.assertEqual(status(conn)["pending"], 27_000)
        for max_rows in (1, 1000, 5000):
            progress = reconcile(max_rows)
            self.assertFalse(progress["done"])
            self.assertEqual(progress["pending"], status(conn)["pending"])
        self.assertEqual(status(conn)["pending"], 27_000 - 6001)
        self.assertTrue(reconcile(100_000)["done"])
        self.assertEqual(found(conn, '"backlog line 14999" OR "backlog line 26999"', "b0", visibility="all"),
                         [15_000, 27_000])

    def test_a_rebuild_starts_without_a_pass_over_every_message(self):
        """A new generation (a redaction change here) writes no node under
        the write lock; reconciliation resets the old generations, newest
        first, a bounded number a slice, and nothing of the old index is
        searched meanwhile."""
        conn = store()
        session(conn, "a")
        conn.execute("BEGIN")
        conn.executemany(
            "INSERT INTO messages(session_key, role, content, created_at) VALUES ('a', 'user', ?, ?)",
            ((f"rebuilt entry {i}", i) for i in range(5000)))
        conn.execute("COMMIT")
        conn.execute("SELECT sessions_set_indexing('deferred')")
        change = json.loads(value(conn, """SELECT sessions_set_redaction('["ACME-[0-9]{6}"]')"""))
        self.assertEqual((change["changed"], change["pending"]), (True, 5000))
        # Every node keeps its old generation until reconciliation reaches it.
        self.assertEqual(value(conn, "SELECT count(*) FROM session_search_nodes WHERE indexed_gen = 0"), 0)
        self.assertEqual(status(conn)["indexed"], 0)
        progress = json.loads(value(conn, "SELECT sessions_reconcile(10)"))
        self.assertEqual((progress["indexed"], progress["pending"], progress["done"]), (10, 4990, False))
        self.assertEqual(status(conn)["pending"], 4990)
        newest = json.loads(value(conn, """SELECT sessions_search('"rebuilt entry"', '{"caller":"a","order":"recent","limit":3}')"""))
        self.assertTrue(newest["indexing"])
        self.assertEqual([r["messageId"] for r in newest["results"]], ["5000", "4999", "4998"])
        while not json.loads(value(conn, "SELECT sessions_reconcile(100)"))["done"]:
            pass
        self.assertEqual((status(conn)["indexed"], status(conn)["pending"]), (5000, 0))
        self.assertEqual(value(conn, "SELECT count(*) FROM session_search_meta WHERE key LIKE 'reset_%' AND value IS NOT NULL"), 0)
        self.assertEqual(found(conn, '"rebuilt entry 0"', "a"), [1])

    def test_reconciliation_indexes_exactly_what_the_triggers_index(self):
        """Every token at every position of a reconciled index is the one an
        append indexes, secrets stay out, whatever the slice size, for
        content blocks, a text that starts with the scope marker, CJK, multi-line
        text and a text long enough to be tokenized on threads of its own."""
        texts = [
            f"deploy to staging {i}: the token {FAKE_KEY} failed\nretry café 東京の設定 {i % 7}"
            for i in range(400)
        ]
        texts += [
            json.dumps([{"type": "text", "text": "blocks of the staging deploy"},
                        {"type": "tool_use", "name": "bash"}]),
            "\ue001 a text that starts like the scope column",
            "x",
            "word " * 300_000 + f"DB_PASS=hunter2hunter2x {FAKE_KEY}",
        ]

        def filled(deferred):
            conn = store()
            session(conn, "a")
            session(conn, "b", spawned_by="a")
            if deferred:
                conn.execute("SELECT sessions_set_indexing('deferred')")
            for i, text in enumerate(texts):
                say(conn, "ab"[i % 2], ("user", "assistant", "tool")[i % 3], text, i)
            return conn

        def instances(conn):
            conn.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, session_search_fts, instance)")
            return conn.execute("SELECT term, doc, col, offset FROM temp.v ORDER BY 1, 2, 3, 4").fetchall()

        appended = instances(filled(False))
        self.assertGreater(len(appended), 600_000)
        self.assertFalse([row for row in appended if "hunter2" in row[0] or "zt8qlm" in row[0]])
        for slice_rows in (1, 37, 5000):
            with self.subTest(slice_rows=slice_rows):
                conn = filled(True)
                while not json.loads(value(conn, "SELECT sessions_reconcile(?)", (slice_rows,)))["done"]:
                    pass
                self.assertEqual(instances(conn), appended)
                self.assertEqual(status(conn)["integrity"], "ok")

    def test_reconcile_compacts_an_index_written_by_appends(self):
        conn = store()
        session(conn, "a")
        for i in range(300):  # one transaction each: a segment each, until automerge
            say(conn, "a", "user", f"appended note {i}", i)
        self.assertGreater(status(conn)["segments"], 1)
        self.assertEqual(json.loads(value(conn, "SELECT sessions_reconcile(1000)")),
                         {"indexed": 0, "pending": 0, "compacting": False, "done": True})
        self.assertEqual(status(conn)["segments"], 1)
        self.assertEqual(found(conn, '"appended note 299"', "a"), [300])

    def test_bad_arguments(self):
        conn = store()
        for arg in (0, -1, None, "many", 1.5, b"\x01"):
            self.assertError(conn, "SELECT sessions_reconcile(?)", (arg,), "sessions_reconcile", "max_rows")
        for arg in ("later", None, 1, b"deferred", "DEFERRED"):
            self.assertError(conn, "SELECT sessions_set_indexing(?)", (arg,), "sessions_set_indexing", "mode")
        self.assertEqual(status(conn)["indexing"], "immediate")


class AdoptionTest(StoreTestCase):
    def test_plain_sql_database_is_adopted_as_backlog(self):
        conn = connect()
        conn.executescript("""
            CREATE TABLE sessions(session_key TEXT PRIMARY KEY, agent_id TEXT NOT NULL, spawned_by TEXT,
                                  created_at INTEGER NOT NULL, leaf_id INTEGER);
            CREATE TABLE messages(id INTEGER PRIMARY KEY, session_key TEXT NOT NULL, parent_id INTEGER,
                                  role TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL,
                                  message_id TEXT);
        """)
        conn.executemany("INSERT INTO sessions VALUES (?, ?, ?, ?, ?)", [
            ("old:1", "main", None, 100, None),
            ("old:2", "main", "old:1", 200, 12),
            ("old:3", "main", None, 300, None),
        ])
        conn.executemany("INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?)", [
            (1, "old:1", None, "user", "legacy zulu question", 101, "u1"),
            (2, "old:1", None, "assistant", json.dumps([{"type": "text", "text": "legacy zulu answer"},
                                                        {"type": "tool_use", "name": "grep", "input": {}}]), 102, "a1"),
            (3, "old:1", None, "tool", "legacy zulu tool output", 103, None),
            (10, "old:2", None, "user", "legacy amber root", 201, None),
            (11, "old:2", 10, "assistant", "legacy bronze abandoned", 202, None),
            (12, "old:2", 10, "assistant", "legacy copper kept", 203, None),
        ])
        init = json.loads(value(conn, "SELECT sessions_init()"))
        self.assertEqual((init["messages"], init["indexed"], init["pending"]), (6, 0, 4))
        self.assertNotIn("integrity", init)
        self.assertEqual(conn.execute("SELECT session_key, leaf_id FROM sessions ORDER BY 1").fetchall(),
                         [("old:1", 3), ("old:2", 12), ("old:3", None)])
        s = self.assertConsistent(conn)
        self.assertEqual(s["pending"], 4)
        self.assertEqual(json.loads(value(conn, "SELECT sessions_reconcile(3)")),
                         {"indexed": 3, "pending": 1, "compacting": False, "done": False})
        self.assertEqual(json.loads(value(conn, "SELECT sessions_reconcile(3)")),
                         {"indexed": 1, "pending": 0, "compacting": True, "done": False})
        self.assertEqual(json.loads(value(conn, "SELECT sessions_reconcile(3)")),
                         {"indexed": 0, "pending": 0, "compacting": False, "done": True})
        self.assertEqual(found(conn, "legacy", "old:1", visibility="all"), [1, 2, 10, 12])
        self.assertEqual(found(conn, "bronze", "old:1", visibility="all"), [])
        self.assertEqual(shown(conn, "old:2", "old:1"), (["10", "12"], 0, 0))
        self.assertEqual(say(conn, "old:1", "user", "legacy follow up", 104), 13)
        self.assertEqual(shown(conn, "old:1", "old:1"), (["u1", "a1", "3", "13"], 0, 0))
        self.assertConsistent(conn)

    def test_search_alone_converges_an_adopted_backlog(self):
        conn = connect()
        conn.execute("CREATE TABLE sessions(session_key TEXT PRIMARY KEY, agent_id TEXT NOT NULL,"
                     " spawned_by TEXT, created_at INTEGER NOT NULL, leaf_id INTEGER)")
        conn.execute("CREATE TABLE messages(id INTEGER PRIMARY KEY, session_key TEXT NOT NULL, parent_id INTEGER,"
                     " role TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL, message_id TEXT)")
        conn.execute("INSERT INTO sessions VALUES ('s', 'main', NULL, 1, NULL)")
        conn.executemany("INSERT INTO messages(session_key, role, content, created_at) VALUES ('s', 'user', ?, ?)",
                         [(f"old row {i}", i) for i in range(1, 501)])
        conn.execute("SELECT sessions_init()")
        flags = []
        for _ in range(4):
            answer = search(conn, "old", "s", limit=1)
            flags.append(answer.get("indexing", False))
            if answer.get("indexing"):
                self.assertIn("warning", answer)
        self.assertEqual(flags, [True, True, False, False])
        self.assertEqual(status(conn)["pending"], 0)
        self.assertEqual(found(conn, '"row 1"', "s"), [1])


class SearchTest(StoreTestCase):
    """The options of sessions_search, as in tests/shell/11_search.sql."""

    @classmethod
    def setUpClass(cls):
        conn = cls.conn = store()
        for key, agent, parent in (
            ("agent:main:cli:1", "main", None),
            ("agent:main:sub:1", "main", "agent:main:cli:1"),
            ("agent:main:sub:2", "main", "agent:main:sub:1"),
            ("agent:main:cli:2", "main", None),
            ("agent:ops:sub:9", "ops", "agent:main:cli:1"),
            ("agent:ops:cli:1", "ops", None),
        ):
            session(conn, key, agent, parent)
        for id_, key, role, text, t in (
            (1, "agent:main:cli:1", "user", "Please deploy the staging server", 1000),
            (2, "agent:main:cli:1", "assistant", "The staging deploy is done", 1001),
            (3, "agent:main:sub:1", "user", "deploy from the first sub-agent", 2000),
            (4, "agent:main:sub:2", "assistant", "deploy from the second sub-agent", 3000),
            (5, "agent:main:cli:2", "user", "deploy from the other cli session", 4000),
            (6, "agent:ops:sub:9", "user", "deploy from the spawned ops session", 5000),
            (7, "agent:ops:cli:1", "user", "deploy from the unrelated ops session", 6000),
            (40, "agent:main:cli:1", "user", f"export the key {FAKE_KEY} before the rotation", 1800),
            (50, "agent:main:cli:1", "user", "open src/main.py and mail alice@example.com about issue #123", 1900),
            (51, "agent:main:cli:1", "assistant", "the office is near the station, and or not, you decide", 1901),
        ):
            say(conn, key, role, text, t, id=id_)

    def test_visibility(self):
        c = self.conn
        root = "agent:main:cli:1"
        self.assertEqual(found(c, "deploy", root, visibility="self"), [1, 2])
        self.assertEqual(found(c, "deploy", root), [1, 2, 3, 4, 6])
        self.assertEqual(found(c, "deploy", root, visibility="tree"), [1, 2, 3, 4, 6])
        self.assertEqual(found(c, "deploy", root, visibility="agent"), [1, 2, 3, 4, 5])
        self.assertEqual(found(c, "deploy", root, visibility="all"), [1, 2, 3, 4, 5, 6, 7])
        self.assertEqual(found(c, "deploy", root, visibility="all", sandboxed=True), [1, 2, 3, 4, 6])
        self.assertEqual(found(c, "deploy", root, visibility="agent", sandboxed=True), [1, 2, 3, 4, 6])
        self.assertEqual(found(c, "deploy", root, visibility="self", sandboxed=True), [1, 2])
        self.assertEqual(found(c, "deploy", "agent:main:sub:1"), [3, 4])
        self.assertEqual(found(c, "deploy", "agent:main:sub:2"), [4])
        self.assertEqual(found(c, "deploy", "agent:ops:sub:9", visibility="agent"), [6, 7])

    def test_agent_visibility_in_a_database_of_one_agent_then_of_two(self):
        # With one agent `agent` reads the index as `all` does; a session of
        # a second agent is hidden from the first as soon as it exists.
        c = store()
        for key, parent in (("main:1", None), ("main:2", "main:1"), ("main:3", None)):
            session(c, key, "main", parent)
        words = ["deploy the staging server", "deploy deploy now", "why did the deploy fail",
                 "the staging deploy is done and the logs are clean"]
        for i in range(150):  # more than a one-word search ranks by its window
            say(c, ("main:1", "main:2", "main:3")[i % 3], "user", words[i % 4] + f" step {i}", 1000 + i, id=i + 1)
        queries = ("deploy", "staging deploy", '"deploy the"', "dep*", "nothing")
        cases = [dict(order=order, limit=20) for order in ("relevance", "recent")]
        cases += [dict(limit=20, roles=["user"], since=1050), dict(groupBy="session")]
        for query in queries:
            for options in cases:
                with self.subTest(query=query, **options):
                    self.assertEqual(search(c, query, "main:2", visibility="agent", **options),
                                     search(c, query, "main:2", visibility="all", **options))
        session(c, "ops:1", "ops")
        say(c, "ops:1", "user", "the staging deploy the deploy", 5000, id=1000)
        for query in queries[:4]:
            for order in ("relevance", "recent"):
                with self.subTest(query=query, order=order):
                    self.assertNotIn(1000, found(c, query, "main:2", visibility="agent", order=order))
                    self.assertIn(1000, found(c, query, "main:2", visibility="all", order=order))
                    self.assertEqual(found(c, query, "ops:1", visibility="agent", order=order), [1000])

    def test_limit_and_truncated(self):
        c = self.conn
        one = search(c, "deploy", "agent:main:cli:1", visibility="all", limit=1)
        self.assertEqual([h["id"] for h in one["results"]], [2])
        self.assertIs(one["truncated"], True)
        seven = search(c, "deploy", "agent:main:cli:1", visibility="all", limit=7)
        self.assertEqual(len(seven["results"]), 7)
        self.assertNotIn("truncated", seven)

    def test_filters(self):
        c = self.conn
        root = "agent:main:cli:1"
        self.assertEqual(found(c, "deploy", root, visibility="all", roles=["assistant"]), [2, 4])
        self.assertEqual(found(c, "deploy", root, visibility="all", since=2000, until=4000), [3, 4, 5])
        self.assertEqual(found(c, "deploy", root, sessionKeys=["agent:main:sub:2", "agent:ops:cli:1"]), [4])
        self.assertEqual(found(c, "deploy", root, visibility="all", sessionKeys=["agent:main:sub:2", "agent:ops:cli:1"]), [4, 7])

    def test_recent_is_newest_by_time_when_ids_are_not_in_time_order(self):
        c = store()
        session(c, "s")
        session(c, "t", spawned_by="s")
        rng = __import__("random").Random(7)
        # Live messages, then an import of older history (higher ids, older
        # times), then live again; some share a timestamp; some are tool
        # output or in another session.
        times = list(range(5000, 5600)) + rng.sample(range(0, 5000), 900) + list(range(6000, 6300))
        times[100:110] = [5099] * 10
        c.execute("BEGIN")
        for i, t in enumerate(times):
            role = "tool" if i % 7 == 0 else "user"
            say(c, "t" if i % 3 else "s", role, f"entry {i} {'common' if i % 2 else 'other'}", t)
        c.execute("COMMIT")
        rows = c.execute("SELECT id, created_at, role, session_key FROM messages").fetchall()

        def expected(word, limit, **filters):
            picked = [(t, i) for i, t, role, key in rows
                      if role == "user" and (word == "entry" or (word == "common") == bool((i - 1) % 2))
                      and filters.get("session", key) == key and t >= filters.get("since", 0)]
            return [i for t, i in sorted(picked, reverse=True)[:limit]]

        def newest(word, **options):
            return [hit["id"] for hit in search(c, word, "s", order="recent", **options)["results"]]

        for limit in (1, 10, 25):
            for word in ("entry", "common"):
                got = newest(word, visibility="tree", limit=limit)
                self.assertEqual(got, expected(word, limit), (word, limit))
            got = newest("entry", visibility="self", limit=limit)
            self.assertEqual(got, expected("entry", limit, session="s"))
            got = newest("entry", limit=limit, since=5590)
            self.assertEqual(got, expected("entry", limit, since=5590))
        # Only the old import and a tie: the newest by time are in the middle.
        c.execute("DELETE FROM messages WHERE created_at >= 6000")
        rows = c.execute("SELECT id, created_at, role, session_key FROM messages").fetchall()
        self.assertEqual(newest("entry", limit=25), expected("entry", 25))

    def test_every_time_block_below_the_newest_holds_its_newest_time(self):
        # Appends in time order, one far ahead by id, then messages written
        # with explicit ids into older blocks, later in time than any.
        c = store()
        session(c, "s")
        for i in range(700):
            say(c, "s", "user", f"entry {i}", 1000 + i)
        say(c, "s", "user", "far ahead", 1800, id=5000)
        say(c, "s", "user", "late import", 9000, id=1000)
        say(c, "s", "user", "late in block 3", 9500, id=800)
        say(c, "s", "user", "new", 1900)
        newest_block = value(c, "SELECT max(id) >> 8 FROM messages")
        wanted = c.execute("SELECT id >> 8, max(created_at) FROM messages GROUP BY id >> 8"
                           " HAVING id >> 8 < ? ORDER BY 1", (newest_block,)).fetchall()
        blocks = c.execute("SELECT block, newest FROM session_search_time_blocks"
                           " WHERE block < ? ORDER BY block", (newest_block,)).fetchall()
        self.assertEqual(blocks, wanted)
        recent = search(c, "entry late", "s", order="recent", limit=3)["results"]
        self.assertEqual([hit["id"] for hit in recent], [800, 1000, 700])

    def test_recent_with_locally_shuffled_times(self):
        # Messages written by several writers at once: by id, times are
        # shuffled within each block of 50.
        c = store()
        session(c, "s")
        rng = __import__("random").Random(3)
        times = []
        for block in range(60):
            chunk = list(range(block * 50, block * 50 + 50))
            rng.shuffle(chunk)
            times += chunk
        c.execute("BEGIN")
        for i, t in enumerate(times):
            say(c, "s", "user", f"shuffled {'even' if i % 2 else 'odd'}", t)
        c.execute("COMMIT")
        rows = c.execute("SELECT id, created_at, content FROM messages").fetchall()
        for word in ("shuffled", "even"):
            for limit in (1, 10, 25):
                expected = [i for t, i in sorted(((t, i) for i, t, text in rows if word in text), reverse=True)][:limit]
                got = [hit["id"] for hit in search(c, word, "s", order="recent", limit=limit)["results"]]
                self.assertEqual(got, expected, (word, limit))

    def test_order_and_scores(self):
        c = self.conn
        relevance = search(c, "deploy", "agent:main:cli:1", visibility="all")["results"]
        scores = [h["score"] for h in relevance]
        self.assertEqual(scores, sorted(scores, reverse=True))
        for hit in relevance:
            self.assertIsInstance(hit["score"], float)
            self.assertGreater(hit["score"], 0)
        recent = search(c, "deploy", "agent:main:cli:1", visibility="all", order="recent")["results"]
        self.assertEqual([h["id"] for h in recent], [7, 6, 5, 4, 3, 2, 1])
        # The scores are FTS5's own bm25() on the index (whose scope column is
        # one token in every row, whatever the session's depth), except that
        # a one-term query leaves out the IDF factor every hit shares.
        def bm25(query):
            return index_bm25(c, query)

        rows = value(c, "SELECT count(*) FROM session_search_fts")
        hits = value(c, "SELECT count(*) FROM session_search_fts WHERE session_search_fts MATCH 'text : deploy'")
        idf = max(math.log((rows - hits + 0.5) / (hits + 0.5)), 1e-6)
        scores = {h["id"]: h["score"] for h in relevance}
        expected = bm25("deploy")
        self.assertEqual(set(expected), set(scores))
        for rowid, score in expected.items():
            self.assertTrue(math.isclose(score / idf, scores[rowid], rel_tol=1e-9), (rowid, score, scores[rowid]))
        two = search(c, "deploy session", "agent:main:cli:1", visibility="all")["results"]
        two = [hit for hit in two if not hit.get("partial")]
        expected = bm25("deploy session")
        self.assertTrue(two)
        self.assertEqual(set(expected), {h["id"] for h in two})
        for hit in two:
            self.assertTrue(math.isclose(expected[hit["id"]], hit["score"], rel_tol=1e-12), hit)

    def test_snippet_chars_and_max_bytes(self):
        c = self.conn
        for n in (3, 10, 30, 300):
            for hit in search(c, "rotation", "agent:main:cli:1", snippetChars=n)["results"]:
                self.assertLessEqual(len(hit["snippet"]), n)
        for budget in (2, 100, 300, 1000):
            options = json.dumps({"caller": "agent:main:cli:1", "visibility": "all", "maxBytes": budget})
            raw = value(c, "SELECT sessions_search('deploy', ?)", (options,))
            prefix = '{"results":'
            self.assertTrue(raw.startswith(prefix), raw)
            results, end = json.JSONDecoder().raw_decode(raw, len(prefix))
            self.assertLessEqual(len(raw[len(prefix):end].encode()), budget)
            self.assertEqual(json.loads(raw).get("truncated", False), len(results) < 7)

    def test_fake_key_is_redacted_and_cannot_be_searched(self):
        c = self.conn
        [hit] = search(c, "rotation", "agent:main:cli:1")["results"]
        self.assertEqual(hit["snippet"], "export the key [REDACTED] before the rotation")
        for query in (FAKE_KEY, f'"{FAKE_KEY}"', FAKE_KEY[8:], FAKE_KEY[8:20] + "*", "sk proj"):
            self.assertEqual(search(c, query, "agent:main:cli:1")["results"], [], query)
        text = history(c, "agent:main:cli:1", "agent:main:cli:1", around=40, before=0, after=0)["messages"][0]["text"]
        self.assertNotIn(FAKE_KEY[8:16], text)
        extra = search(c, "rotation", "agent:main:cli:1", redact=["export the (?P<secret>key)"])["results"][0]
        self.assertEqual(extra["snippet"], "export the [REDACTED] [REDACTED] before the rotation")

    def test_hostile_queries_are_plain_text(self):
        c = self.conn
        root = "agent:main:cli:1"
        for query, ids in (
            ("src/main.py", [50]), ("alice@example.com", [50]), ("#123", [50]), ("NEAR(", [51]),
            ("AND OR NOT", [50, 51]), ('"', None), ('say "unbalanced', []), ("a" * 4096, []),
            ("NEAR(a b) OR (c* ^d:e -f {g})", []), ("-deploy", [1, 2, 3, 4, 6]), ("deploy*", [1, 2, 3, 4, 6]),
            ("\u0000deploy\n", [1, 2, 3, 4, 6]), ('deploy" OR "x', []),
        ):
            if ids is None:
                self.assertError(c, "SELECT sessions_search(?, ?)", (query, json.dumps({"caller": root})),
                                 "no letters or digits")
            else:
                self.assertEqual(found(c, query, root), ids, query)
        self.assertError(c, "SELECT sessions_search(?, ?)", ("a" * 4097, json.dumps({"caller": root})),
                         "4097 characters", "4096")
        self.assertError(c, "SELECT sessions_search(?, ?)", ("é" * 4097, json.dumps({"caller": root})),
                         "4097 characters")
        self.assertEqual(found(c, "é" * 4096, root), [])
        for query in ("", "   ", "\n\t"):
            self.assertError(c, "SELECT sessions_search(?, ?)", (query, json.dumps({"caller": root})), "empty")

    def test_option_errors(self):
        c = self.conn
        cases = (
            ("{}", "options.caller is required"),
            ('{"caller":""}', "options.caller is required"),
            ('{"caller":"agent:main:nobody"}', 'caller "agent:main:nobody" names no session'),
            ('{"caller":"agent:main:cli:1","visibility":"everyone"}', "unknown variant `everyone`"),
            ('{"caller":"agent:main:cli:1","visiblity":"all"}', "unknown field `visiblity`"),
            ('{"caller":"agent:main:cli:1","limit":0}', "limit must be between 1 and 25"),
            ('{"caller":"agent:main:cli:1","limit":1.5}', "invalid options"),
            ('{"caller":"agent:main:cli:1","roles":["system"]}', "roles may only contain"),
            ('{"caller":"agent:main:cli:1","snippetChars":301}', "snippetChars must be between 1 and 300"),
            ('{"caller":"agent:main:cli:1","maxBytes":32769}', "maxBytes must be between 2 and 32768"),
            ('{"caller":"agent:main:cli:1","redact":["("]}', "redaction pattern"),
            ('{"caller":', "invalid options"),
            ("[]", "invalid options"),
            ("null", "invalid options"),
        )
        for options, fragment in cases:
            message = self.assertError(c, "SELECT sessions_search('deploy', ?)", (options,), fragment)
            self.assertTrue(message.startswith("sessions_search: "), message)


class QuestionTest(StoreTestCase):
    """A question typed in plain language, on the SQLite of /usr/bin/python3:
    partial matches ranked by one score after the full ones, other forms of
    a word and the pieces of a CJK run in the fill only, and terms counted
    within the caller's view."""

    def test_partial_matches_other_forms_pieces_and_terms(self):
        c = store()
        session(c, "main:1", "main")
        session(c, "ops:1", "ops")
        say(c, "main:1", "user", "compile the staging box", 1, id=1)
        say(c, "main:1", "assistant", "the compilation failed on the staging box", 2, id=2)
        say(c, "main:1", "assistant", "我們的機器人用 PostgreSQL 當資料庫", 3, id=3)
        say(c, "ops:1", "user", "the zeppelin compiled", 4, id=4)
        page = search(c, "how do we compile the staging zeppelin?", "main:1")
        self.assertEqual([(h["id"], h.get("partial", False)) for h in page["results"]], [(1, True), (2, True)])
        scores = [h["score"] for h in page["results"]]
        self.assertEqual(scores, sorted(scores, reverse=True))
        self.assertEqual(page["results"][1]["matched"], ["compile", "staging"])
        terms = {t["term"]: t for t in page["terms"]}
        self.assertTrue(terms["how"]["framing"])
        self.assertEqual(terms["compile"]["messages"], 1)
        self.assertEqual(terms["compile"]["otherForms"], 1)
        # The other agent's zeppelin is not counted, nor found.
        self.assertEqual(terms["zeppelin"]["messages"], 0)
        everyone = search(c, "how do we compile the staging zeppelin?", "main:1", visibility="all")
        self.assertEqual({t["term"]: t for t in everyone["terms"]}["zeppelin"]["messages"], 1)
        # Exact matching does not change.
        self.assertEqual(found(c, '"compiling"', "main:1"), [])
        self.assertEqual(search(c, "compile", "main:1")["results"][0]["id"], 1)
        cjk = search(c, "上次那個機器人用了什麼資料庫？", "main:1")
        self.assertEqual([h["id"] for h in cjk["results"]], [3])
        self.assertEqual(cjk["results"][0]["matched"], ["上次那個機器人用了什麼資料庫"])
        self.assertEqual(search(c, '"機器人資料庫"', "main:1")["results"], [])


class RankTest(StoreTestCase):
    """sessions_rank on this SQLite (3.40 here): FTS5's BM25 of the text column's terms,
    with the row count of a term in more than 1024 messages estimated from
    its first 1024 (the sample stops FTS5's xQueryPhrase early)."""

    def test_a_word_in_no_tier_is_ranked_in_full_within_the_budget(self):
        # Every message holds 'deploy' once in a long text, so no impact
        # tier marks it; the best hit is the oldest, the shortest. With
        # rankWindow 5 the newest 5 alone would miss it: a word found in at
        # most 3 000 messages has all of them ranked instead.
        c = store()
        session(c, "s")
        say(c, "s", "user", "deploy " + " ".join(f"old{i}" for i in range(49)), 1)
        for n in range(30):
            say(c, "s", "user", "deploy " + " ".join(f"new{n}x{i}" for i in range(69)), 10 + n)
        best = index_bm25(c, "deploy")
        oldest = min(best, key=lambda id: -best[id])
        self.assertEqual(oldest, 1)
        hits = search(c, "deploy", "s", rankWindow=5)["results"]
        self.assertEqual(hits[0]["id"], 1)
        self.assertEqual([h["id"] for h in hits], sorted(best, key=lambda id: (-best[id], -id))[:10])

    def test_keep_ranks_exactly_every_row_that_may_be_among_the_best(self):
        # sessions_rank(fts, last_rowid, ranked, keep): read newest first, a
        # row that cannot rank among the best `keep` of those before it
        # gets infinity; every other row gets its exact rank, so the best
        # `keep` of all rows are the same, with the same ranks.
        c = store()
        session(c, "s")
        c.execute("BEGIN")
        for i in range(300):
            deploys = " ".join(["deploy"] * (1 + i % 3))
            filler = " ".join(f"w{i}x{j}" for j in range((i * 7) % 40))
            say(c, "s", "user", f"{filler} {deploys} staging", 10 + i)
        c.execute("COMMIT")

        def ranks(*extra):
            arguments = "".join(", " + str(a) for a in extra)
            return c.execute(
                f"SELECT ~rowid, sessions_rank(session_search_fts{arguments}) FROM session_search_fts"
                " WHERE session_search_fts MATCH '{text} : (deploy staging)' ORDER BY rowid").fetchall()

        exact = dict(ranks())
        self.assertEqual(len(exact), 300)
        for keep in (1, 3, 10):
            kept = ranks("NULL", "NULL", keep)
            self.assertEqual([id for id, _ in kept], [id for id, _ in ranks()])
            skipped = [id for id, rank in kept if rank == math.inf]
            self.assertTrue(skipped, keep)
            for n, (id, rank) in enumerate(kept):
                if rank == math.inf:
                    best_before = sorted(exact[i] for i, _ in kept[:n])[:keep]
                    self.assertGreater(exact[id], best_before[-1], (keep, id))
                else:
                    self.assertEqual(rank, exact[id])
            best = lambda rows: sorted(rows, key=lambda row: (row[1], -row[0]))[:keep]
            self.assertEqual(best(kept), best(exact.items()))
        # Two calls in one statement share FTS5's per-query state: a call
        # without `keep` still ranks every row, and two with it skip alike.
        both = c.execute(
            "SELECT ~rowid, sessions_rank(session_search_fts, NULL, NULL, 3), sessions_rank(session_search_fts),"
            " sessions_rank(session_search_fts, NULL, NULL, 3) FROM session_search_fts"
            " WHERE session_search_fts MATCH '{text} : (deploy staging)' ORDER BY rowid").fetchall()
        self.assertEqual({id: plain for id, _, plain, _ in both}, exact)
        self.assertEqual([(id, a) for id, a, _, _ in both], [(id, b) for id, _, _, b in both])
        self.assertEqual(best([(id, a) for id, a, _, _ in both]), best(exact.items()))

    def test_common_terms_are_sampled_and_close_to_bm25(self):
        c = store()
        session(c, "s")
        c.execute("BEGIN")
        for i in range(3000):
            text = "common words here" + (" rare" if i % 97 == 0 else "") + (" often" if i % 5 < 2 else "")
            say(c, "s", "user", text, 10 + i)
        c.execute("COMMIT")
        results = search(c, "common rare", "s", limit=25)["results"]
        self.assertEqual(len(results), 25)
        exact = index_bm25(c, "common rare")
        for hit in results:
            # 'common' is in every row: its IDF is at the floor either way;
            # 'rare' (31 rows) is counted exactly.
            self.assertTrue(math.isclose(hit["score"], exact[hit["id"]], rel_tol=1e-6), hit)
        # 'often' is in 1200 rows: estimated from 1024 of them, its weight
        # stays within a few percent of the exact one.
        results = [hit for hit in search(c, "often rare", "s", limit=25)["results"] if not hit.get("partial")]
        exact = index_bm25(c, "often rare")
        self.assertTrue(results)
        for hit in results:
            self.assertTrue(math.isclose(hit["score"], exact[hit["id"]], rel_tol=0.05), (hit, exact[hit["id"]]))


class IndexingFlagTest(StoreTestCase):
    def test_indexing_true_while_a_deferred_backlog_remains(self):
        conn = store()
        session(conn, "s")
        say(conn, "s", "user", "bulk before", 1)
        self.assertNotIn("indexing", search(conn, "bulk", "s"))
        conn.execute("SELECT sessions_set_indexing('deferred')")
        conn.execute("BEGIN")
        for i in range(450):
            say(conn, "s", "user", f"bulk row {i}", 10 + i)
        conn.execute("COMMIT")
        pendings = []
        for _ in range(4):
            answer = search(conn, "bulk", "s", limit=1)
            pendings.append((status(conn)["pending"], answer.get("indexing", False), "warning" in answer))
        self.assertEqual(pendings, [(250, True, True), (50, True, True), (0, False, False), (0, False, False)])
        self.assertConsistent(conn)

    def test_backlog_never_grows_under_steady_deferred_writes_and_searches(self):
        conn = store()
        session(conn, "s")
        conn.execute("SELECT sessions_set_indexing('deferred')")
        for round_ in range(10):
            conn.execute("BEGIN")
            for i in range(150):
                say(conn, "s", "user", f"steady {round_} {i}", round_ * 1000 + i)
            conn.execute("COMMIT")
            search(conn, "steady", "s")
            self.assertEqual(status(conn)["pending"], 0)


class HistoryTest(StoreTestCase):
    def setUp(self):
        conn = self.conn = store()
        session(conn, "root")
        session(conn, "h", spawned_by="root")
        session(conn, "other", agent="ops")
        for i in range(1, 13):
            say(conn, "h", "user" if i % 2 else "assistant", f"history line {i}", 7000 + i, message_id=f"h{i}", id=1000 + i)
        say(conn, "other", "user", "private line", 1, id=1)

    def test_windows(self):
        c = self.conn
        all12 = [f"h{i}" for i in range(1, 13)]
        self.assertEqual(shown(c, "h", "root"), (all12, 0, 0))
        self.assertEqual(shown(c, "h", "root", limit=3), (["h10", "h11", "h12"], 9, 0))
        self.assertEqual(shown(c, "h", "root", around="h6"), (all12[:11], 0, 1))
        self.assertEqual(shown(c, "h", "root", around="h6", before=2, after=1), (["h4", "h5", "h6", "h7"], 3, 5))
        self.assertEqual(shown(c, "h", "root", around=1006, before=2, after=1), (["h4", "h5", "h6", "h7"], 3, 5))
        self.assertEqual(shown(c, "h", "root", around="1006", before=2, after=1), (["h4", "h5", "h6", "h7"], 3, 5))
        self.assertEqual(shown(c, "h", "root", around="h6", before=0, after=0), (["h6"], 5, 6))
        self.assertEqual(shown(c, "h", "root", around="h1", before=5, after=1), (["h1", "h2"], 0, 10))
        self.assertEqual(shown(c, "h", "root", around="h12", before=1, after=5), (["h11", "h12"], 10, 0))
        cut = history(c, "h", "root", around="h3", before=0, after=0, maxChars=7)
        self.assertEqual(cut["messages"][0]["text"], "histor…")
        self.assertIs(cut["truncated"], True)

    def test_rewound_branch_and_off_branch_errors(self):
        c = self.conn
        rewind(c, "h", 1008)
        say(c, "h", "user", "history branch", 7100, message_id="b1", id=1020)
        self.assertEqual(shown(c, "h", "root"), ([f"h{i}" for i in range(1, 9)] + ["b1"], 0, 0))
        self.assertEqual(shown(c, "h", "root", around="b1", before=2, after=2), (["h7", "h8", "b1"], 6, 0))
        for around in ("h10", 1010, "nope", 1, "1"):
            self.assertError(c, "SELECT sessions_history('h', ?)", (json.dumps({"caller": "root", "around": around}),),
                             "sessions_history: message", "is not on the active branch")

    def test_visibility(self):
        c = self.conn
        self.assertEqual(history(c, "h", "h", visibility="self")["sessionKey"], "h")
        errors = []
        for key, options in (
            ("root", {"caller": "h"}),
            ("nothing", {"caller": "h"}),
            ("other", {"caller": "root", "visibility": "all", "sandboxed": True}),
            ("other", {"caller": "root", "visibility": "agent"}),
        ):
            message = self.assertError(c, "SELECT sessions_history(?, ?)", (key, json.dumps(options)),
                                       f'no session "{key}" is visible to caller')
            errors.append(message.replace(key, "KEY"))
        self.assertEqual(len(set(errors[:2])), 1, "existing and missing sessions give the same error")
        self.assertEqual(len(history(c, "other", "root", visibility="all")["messages"]), 1)


class KilledWriterTest(StoreTestCase):
    """A writer killed with SIGKILL in the middle of a large transaction: on
    reopening, the committed rows are there, the uncommitted ones are not,
    and the index agrees with the tables."""

    CHILD = r"""
import sqlite3, sys
path, extension, journal = sys.argv[1:4]
db = sqlite3.connect(path, isolation_level=None)
db.enable_load_extension(True)
db.load_extension(extension)
db.execute("PRAGMA journal_mode=" + journal).fetchall()
db.execute("PRAGMA cache_size=8")  # spill dirty pages into the file before the commit
db.execute("BEGIN")
i = 0
while True:
    db.execute(
        "INSERT INTO messages(session_key, role, content, created_at) VALUES ('s', ?, ?, ?)",
        ("user" if i % 2 else "assistant", "uncommitted zebra %d %s" % (i, "filler text " * 20), 100000 + i))
    if i % 50 == 0:
        db.execute("UPDATE sessions SET leaf_id = (SELECT min(id) FROM messages) WHERE session_key = 's'")
    i += 1
    if i % 250 == 0:
        print(i, flush=True)
"""

    def killed_writer(self, journal, deferred=False, rows=20000):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "agent.db")
        conn = store(path)
        conn.execute(f"PRAGMA journal_mode={journal}").fetchall()
        if deferred:
            conn.execute("SELECT sessions_set_indexing('deferred')")
        session(conn, "s")
        conn.execute("BEGIN")
        for i in range(300):
            say(conn, "s", "user" if i % 2 else "assistant", f"committed lynx {i}", i)
        conn.execute("COMMIT")
        committed = status(conn)
        committed_leaf = leaf(conn, "s")
        conn.close()

        child = subprocess.Popen(
            ["/usr/bin/python3", "-c", self.CHILD, path, EXTENSION, journal],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            written = 0
            deadline = time.monotonic() + 60
            while written < rows:
                line = child.stdout.readline()
                if not line:
                    self.fail(f"the writer stopped: {child.stderr.read()}")
                written = int(line)
                self.assertLess(time.monotonic(), deadline, "the writer is too slow")
            os.kill(child.pid, signal.SIGKILL)
        finally:
            child.kill()
            child.wait()
            child.stdout.close()
            child.stderr.close()
        self.assertEqual(child.returncode, -signal.SIGKILL)
        leftovers = [f for f in os.listdir(tmp) if f != "agent.db"]
        self.assertTrue(leftovers, "a journal or WAL file is left by the killed writer")

        conn = connect(path)
        s = self.assertConsistent(conn)
        self.assertEqual({k: s[k] for k in ("messages", "indexed", "pending", "indexing")},
                         {k: committed[k] for k in ("messages", "indexed", "pending", "indexing")})
        self.assertEqual(value(conn, "SELECT count(*) FROM messages WHERE content LIKE 'uncommitted%'"), 0)
        self.assertEqual(leaf(conn, "s"), committed_leaf)
        self.assertEqual(search(conn, "zebra", "s")["results"], [])
        self.assertEqual(len(search(conn, "lynx", "s", limit=25)["results"]), 25)
        self.assertEqual(found(conn, '"lynx 299"', "s"), [committed_leaf])
        # The database takes writes again.
        m = say(conn, "s", "user", "after the crash", 10**6)
        self.assertEqual(found(conn, "crash", "s"), [m])
        self.assertConsistent(conn)
        conn.close()

    def test_killed_in_a_large_transaction_with_a_rollback_journal(self):
        self.killed_writer("DELETE")

    def test_killed_in_a_large_transaction_in_wal_mode(self):
        self.killed_writer("WAL")

    def test_killed_in_a_large_deferred_import(self):
        self.killed_writer("DELETE", deferred=True)

    def test_killed_during_reconciliation(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "agent.db")
        conn = store(path)
        session(conn, "s")
        conn.execute("SELECT sessions_set_indexing('deferred')")
        conn.execute("BEGIN")
        for i in range(60000):
            say(conn, "s", "user", f"backlog row {i} " + "more words " * 10, i)
        conn.execute("COMMIT")
        conn.close()
        code = ("import sqlite3, sys\n"
                "db = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                "db.enable_load_extension(True); db.load_extension(sys.argv[2])\n"
                "print('start', flush=True)\n"
                "db.execute('SELECT sessions_reconcile(60000)').fetchall()\n"
                "print('done', flush=True)\n")
        child = subprocess.Popen(["/usr/bin/python3", "-c", code, path, EXTENSION],
                                 stdout=subprocess.PIPE, text=True)
        self.assertEqual(child.stdout.readline().strip(), "start")
        time.sleep(0.05)  # the slice takes about 0.2 s
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        child.stdout.close()
        conn = connect(path)
        s = self.assertConsistent(conn)
        self.assertEqual(s["indexed"] + s["pending"], 60000)
        self.assertIn(s["indexed"], (0, 60000), "one slice is one transaction")
        while not json.loads(value(conn, "SELECT sessions_reconcile(5000)"))["done"]:
            pass
        self.assertEqual(found(conn, '"row 59999"', "s"), [60000])
        self.assertConsistent(conn)
        conn.close()


class BadInputTest(StoreTestCase):
    def setUp(self):
        self.conn = store()
        session(self.conn, "a")

    def test_a_message_starting_like_a_scope_is_indexed_and_ranked_as_text(self):
        # U+E001 starts the index's scope column; a message that starts with
        # it is still text: it gets its impact-tier markers, so a one-word
        # search ranked from the tiers (rankWindow 1) still finds it first.
        c = self.conn
        for i in range(20):
            say(c, "a", "user", f"deploy deploy filler{i} words here", 1 + i)
        say(c, "a", "user", "\ue001deploy deploy deploy deploy", 100)
        marked = value(c, "SELECT max(id) FROM messages")
        for window in (1, 1000):
            hits = search(c, "deploy", "a", rankWindow=window)["results"]
            self.assertEqual(hits[0]["id"], marked, window)
        self.assertEqual(status(c)["integrity"], "ok")

    def test_null_and_non_text_options(self):
        c = self.conn
        say(c, "a", "user", "deploy", 1)
        for options in (None, 42, 4.2, b'{"caller":"a"}'):
            self.assertError(c, "SELECT sessions_search('deploy', ?)", (options,),
                             "sessions_search: options must be a JSON object")
            self.assertError(c, "SELECT sessions_history('a', ?)", (options,),
                             "sessions_history: options must be a JSON object")
        for query in (None, 42, b"deploy"):
            self.assertError(c, "SELECT sessions_search(?, ?)", (query, '{"caller":"a"}'), "query must be text")
        for key in (None, b"a"):
            self.assertError(c, "SELECT sessions_history(?, ?)", (key, '{"caller":"a"}'), "session_key must be text")
        self.assertError(c, "SELECT sessions_search('deploy', CAST(x'7b2263616c6c6572223aff7d' AS TEXT))", (),
                         "sessions_search: options must be a JSON object")
        self.assertError(c, """SELECT sessions_search(CAST(x'ff6465706c6f79' AS TEXT), '{"caller":"a"}')""", (),
                         "query must be text")
        self.assertEqual(value(c, "SELECT sessions_text(NULL)"), None)
        self.assertEqual(value(c, "SELECT sessions_text(42)"), "42")

    def test_invalid_utf8_content(self):
        c = self.conn
        c.execute("INSERT INTO messages(session_key, role, content, created_at)"
                  " VALUES ('a', 'user', CAST(x'616c706861ff6f6d65676120e69db1e4ba' AS TEXT), 1)")
        c.execute("INSERT INTO messages(session_key, role, content, created_at)"
                  " VALUES ('a', 'assistant', CAST(x'5b7b2274797065223a2274657874222c2274657874223a22ff62657461227d5d' AS TEXT), 2)")
        self.assertEqual(value(c, "SELECT hex(content) FROM messages WHERE id = 1"), "616C706861FF6F6D65676120E69DB1E4BA")
        self.assertEqual(found(c, "alpha", "a"), [1])
        self.assertEqual(found(c, "omega", "a"), [1])
        self.assertEqual(found(c, "東", "a"), [1])
        self.assertEqual(found(c, "beta", "a"), [2])
        [hit] = search(c, "omega", "a")["results"]
        self.assertEqual(hit["snippet"], "alpha\ufffdomega \u6771\ufffd")
        texts = [m["text"] for m in history(c, "a", "a")["messages"]]
        self.assertEqual(texts[0], "alpha\ufffdomega \u6771\ufffd")
        self.assertConsistent(c)
        c.execute("UPDATE messages SET content = CAST(x'6e6577ff' AS TEXT) WHERE id = 1")
        self.assertEqual(found(c, "omega", "a"), [])
        self.assertEqual(found(c, "new", "a"), [1])
        c.execute("DELETE FROM messages WHERE id = 2")
        rewind(c, "a", None)
        self.assertEqual(found(c, "new", "a"), [])
        s = self.assertConsistent(c)
        self.assertEqual(s["indexed"], 0)

    def test_blob_content(self):
        c = self.conn
        say(c, "a", "user", b"blob content words", 1)
        self.assertEqual(found(c, "blob", "a"), [1])
        self.assertEqual(history(c, "a", "a")["messages"][0]["text"], "blob content words")
        self.assertConsistent(c)

    def test_ten_megabyte_message(self):
        c = self.conn
        words = " ".join(f"w{i} Café 東京" for i in range(600000))
        content = f"{words} needle {FAKE_KEY} 終わり"
        self.assertGreater(len(content.encode()), 10_000_000)
        started = time.monotonic()
        m = say(c, "a", "user", content, 1)
        say(c, "a", "assistant", "small reply", 2)
        self.assertEqual(found(c, "needle", "a"), [m])
        self.assertEqual(found(c, "w599999", "a"), [m])
        self.assertEqual(found(c, "cafe", "a"), [m])
        self.assertEqual(found(c, "終わ", "a"), [m])
        [hit] = search(c, "needle", "a")["results"]
        self.assertLessEqual(len(hit["snippet"]), 300)
        self.assertIn("needle [REDACTED] 終わり", hit["snippet"])
        self.assertEqual(search(c, FAKE_KEY, "a")["results"], [])
        h = history(c, "a", "a")
        self.assertIs(h["truncated"], True)
        self.assertEqual(len(h["messages"][0]["text"]), 2000)
        big = history(c, "a", "a", maxChars=20000, maxBytes=65536)
        self.assertEqual(len(big["messages"][0]["text"]), 20000)
        rewind(c, "a", None)
        self.assertEqual(found(c, "needle", "a"), [])
        c.execute("DELETE FROM messages WHERE id = ?", (m,))
        self.assertConsistent(c)
        self.assertLess(time.monotonic() - started, 60)

    def test_huge_and_odd_json_content(self):
        c = self.conn
        deep = "[" * 10000 + "]" * 10000
        m1 = say(c, "a", "user", deep, 1)
        many = json.dumps([{"type": "text", "text": f"block{i}"} for i in range(20000)])
        m2 = say(c, "a", "assistant", many, 2)
        self.assertEqual(found(c, "block19999", "a"), [m2])
        self.assertEqual(value(c, "SELECT sessions_text(content) FROM messages WHERE id = ?", (m1,)), deep)
        self.assertConsistent(c)


def interrupt_after(conn, seconds):
    """Makes statements on `conn` fail with 'interrupted' after `seconds`,
    so a hang becomes a test failure."""
    deadline = time.monotonic() + seconds
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10000)


class RegressionTest(StoreTestCase):
    """Bugs found by these tests and fixed: each pins the behaviour the
    contract asks for."""

    def test_replacing_a_session_row_does_not_leave_stale_hits(self):
        c = store()
        session(c, "a")
        say(c, "a", "user", "alpha one", 2)
        c.execute("INSERT OR REPLACE INTO sessions(session_key, agent_id, created_at) VALUES ('a', 'main', 1)")
        branch = [m["id"] for m in history(c, "a", "a")["messages"]]
        self.assertEqual(found(c, "alpha", "a"), branch)

    def test_replacing_a_message_row_keeps_history_finite(self):
        c = store()
        session(c, "a")
        say(c, "a", "user", "alpha one", 2)
        say(c, "a", "user", "bravo two", 3)
        try:
            c.execute("INSERT OR REPLACE INTO messages(id, session_key, role, content, created_at)"
                      " VALUES (1, 'a', 'user', 'alpha replaced', 2)")
        except sqlite3.Error:
            return  # refusing the REPLACE would be a fix too
        interrupt_after(c, 3)
        h = history(c, "a", "a")
        self.assertLessEqual(len(h["messages"]), 2)

    def test_inserting_a_session_with_a_foreign_leaf_is_refused(self):
        c = store()
        session(c, "a")
        say(c, "a", "user", "private words of a", 2)
        try:
            c.execute("INSERT INTO sessions(session_key, agent_id, created_at, leaf_id) VALUES ('x', 'other', 1, 1)")
        except sqlite3.Error as e:
            self.assertIn("leaf_id", str(e))
            return
        texts = [m["text"] for m in history(c, "x", "x", visibility="self", sandboxed=True)["messages"]]
        self.assertEqual(texts, [])

    def test_non_integer_created_at_is_refused_or_shown(self):
        c = store()
        session(c, "a")
        try:
            say(c, "a", "user", "alpha float time", 1700000000123.456)
        except sqlite3.Error:
            return
        self.assertEqual(len(search(c, "alpha", "a")["results"]), 1)
        self.assertEqual(len(history(c, "a", "a")["messages"]), 1)

    def test_snippet_chars_one_is_at_most_one_character(self):
        c = store()
        session(c, "a")
        say(c, "a", "user", "a" * 50 + " needle " + "b" * 50, 1)
        snippet = search(c, "needle", "a", snippetChars=1)["results"][0]["snippet"]
        self.assertLessEqual(len(snippet), 1)

    def test_history_cuts_keep_the_around_message_and_the_newest(self):
        c = store()
        session(c, "h")
        for i in range(1, 13):
            say(c, "h", "user", f"history line {i}", i, message_id=f"h{i}")
        ids, _, _ = shown(c, "h", "h", around="h6", before=5, after=5, limit=2)
        self.assertIn("h6", ids)
        ids, _, _ = shown(c, "h", "h", around="h6", before=5, after=5, maxBytes=200)
        self.assertIn("h6", ids)
        ids, _, _ = shown(c, "h", "h", maxBytes=200)
        self.assertEqual(ids[-1], "h12")

    def test_around_error_names_the_message_as_given(self):
        c = store()
        session(c, "h")
        say(c, "h", "user", "one", 1, message_id="h1")
        message = self.assertError(c, "SELECT sessions_history('h', ?)", ('{"caller":"h","around":"h10"}',),
                                   "is not on the active branch")
        self.assertNotIn("Text(", message)
        message = self.assertError(c, "SELECT sessions_history('h', ?)", ('{"caller":"h","around":7}',),
                                   "is not on the active branch")
        self.assertNotIn("Id(", message)

    def test_read_only_connection_with_a_backlog(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "agent.db")
            w = store(path)
            session(w, "a")
            say(w, "a", "user", "alpha indexed", 1)
            w.execute("SELECT sessions_set_indexing('deferred')")
            say(w, "a", "user", "alpha queued", 2)
            r = connect(f"file:{path}?mode=ro", uri=True)
            self.assertEqual(status(r)["integrity"], "not checked: read-only connection")
            answer = search(r, "alpha", "a")
            self.assertTrue(answer["indexing"])
            self.assertEqual([h["id"] for h in answer["results"]], [1])


if __name__ == "__main__":
    unittest.main()
