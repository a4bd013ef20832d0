"""The sqlite-utils and Datasette plugins (run by tests/run.sh in a venv
that has both installed, with the standard sqlite3 able to load extensions).

Datasette is served on 127.0.0.1 at a free port and stopped afterwards.
"""

import json
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import sqlite_session_search as sss

BIN = Path(sys.executable).parent
CALLER = "agent:main:py:1"
OPTIONS = json.dumps({"caller": CALLER})
SECRET = "password=hunter2hunter2"


def make_db(path):
    """A database with one session: a message to find and one with a secret."""
    conn = sqlite3.connect(path)
    sss.load(conn)
    with conn:
        conn.execute("SELECT sessions_init()")
        conn.execute("INSERT INTO sessions(session_key, agent_id, created_at) VALUES (?, 'main', 1)", (CALLER,))
        conn.executemany(
            "INSERT INTO messages(session_key, role, content, created_at) VALUES (?, ?, ?, ?)",
            [(CALLER, "user", "Deploy staging please", 2), (CALLER, "user", f"login with {SECRET}", 3)],
        )
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY 1")]
    conn.close()
    return names


def assert_one_staging_hit(test, answer):
    found = json.loads(answer)
    test.assertEqual([(h["sessionKey"], h["snippet"]) for h in found["results"]], [(CALLER, "Deploy staging please")])


class SqliteUtilsTest(unittest.TestCase):
    def test_query_calls_sessions_search(self):
        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp, "agent.db"))
            make_db(db)
            plugins = json.loads(subprocess.run([BIN / "sqlite-utils", "plugins"], check=True, capture_output=True, text=True).stdout)
            self.assertIn("sqlite-utils-sqlite-session-search", [p["name"] for p in plugins])
            out = subprocess.run(
                [BIN / "sqlite-utils", "query", db, "select sessions_search(:q, :o) as r", "-p", "q", "staging", "-p", "o", OPTIONS],
                check=True, capture_output=True, text=True,
            ).stdout
            rows = json.loads(out)
            self.assertEqual(len(rows), 1, out)
            assert_one_staging_hit(self, rows[0]["r"])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def readme_recipe():
    """The Python block of docs/python.md that writes Datasette's metadata.json."""
    page = (Path(__file__).resolve().parents[3] / "docs" / "python.md").read_text()
    after = page.split("writes such a `metadata.json`", 1)
    if len(after) != 2:
        raise AssertionError("docs/python.md has no metadata.json recipe")
    return after[1].split("```python\n", 1)[1].split("```", 1)[0]


class DatasetteTest(unittest.TestCase):
    """`plain` is served as it is; `agent` with the metadata.json that the
    recipe of docs/python.md writes, hiding every table and allowing a canned search."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls.tmp.name)
        make_db(tmp / "plain.db")
        cls.internal = make_db(tmp / "agent.db")
        subprocess.run([sys.executable, "-c", readme_recipe()], cwd=tmp, check=True)
        cls.port = free_port()
        cls.log = open(tmp / "datasette.log", "w+")
        cls.server = subprocess.Popen(
            [BIN / "datasette", "serve", tmp / "plain.db", tmp / "agent.db", "--metadata", tmp / "metadata.json",
             "--host", "127.0.0.1", "--port", str(cls.port)],
            stdout=cls.log, stderr=subprocess.STDOUT,
        )
        cls.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        deadline = time.monotonic() + 30
        while True:
            try:
                cls.get("/-/versions.json")
                break
            except (urllib.error.URLError, ConnectionError):
                if cls.server.poll() is not None or time.monotonic() > deadline:
                    log = Path(tmp / "datasette.log").read_text()
                    cls.tearDownClass()
                    raise RuntimeError("datasette did not start: " + log)
                time.sleep(0.1)

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()
        try:
            cls.server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            cls.server.kill()
            cls.server.wait()
        cls.log.close()
        cls.tmp.cleanup()

    @classmethod
    def get(cls, path, **params):
        """(status, body) of a GET to the server."""
        url = f"http://127.0.0.1:{cls.port}{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        try:
            with cls.opener.open(url, timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def test_plugin_is_installed(self):
        status, body = self.get("/-/plugins.json")
        self.assertEqual(status, 200)
        self.assertIn("datasette-sqlite-session-search", [p["name"] for p in json.loads(body)])

    def test_sql_api_calls_sessions_search(self):
        status, body = self.get(
            "/plain.json", sql="select sessions_search(:q, :o) as r", q="staging", o=OPTIONS, _shape="array"
        )
        self.assertEqual(status, 200, body)
        rows = json.loads(body)
        self.assertEqual(len(rows), 1, body)
        assert_one_staging_hit(self, rows[0]["r"])

    def test_the_table_ui_shows_raw_messages(self):
        status, body = self.get("/plain/messages.json", _shape="array")
        self.assertEqual(status, 200, body)
        self.assertIn(SECRET, [m["content"].split()[-1] for m in json.loads(body)])
        self.assertEqual(self.get("/plain/session_search_fts.json", _search="staging")[0], 200)

    def test_recipe_hides_and_denies_internal_tables(self):
        self.assertIn("messages", self.internal)
        self.assertIn("session_search_fts", self.internal)
        status, body = self.get("/agent.json")
        self.assertEqual(status, 200, body)
        listed = json.loads(body)
        shown = [t["name"] for t in listed["tables"] + listed.get("views", []) if not t.get("hidden")]
        self.assertEqual([n for n in shown if n in self.internal], [])
        for name in self.internal:
            with self.subTest(table=name):
                self.assertEqual(self.get(f"/agent/{name}.json")[0], 403)
        self.assertEqual(self.get("/agent/session_search_fts.json", _search="hunter2hunter2")[0], 403)
        self.assertEqual(self.get("/agent.json", sql="select content from messages")[0], 403)

    def test_recipe_answers_the_canned_search(self):
        status, body = self.get("/agent/search.json", q="staging", options=OPTIONS, _shape="array")
        self.assertEqual(status, 200, body)
        rows = json.loads(body)
        self.assertEqual(len(rows), 1, body)
        assert_one_staging_hit(self, rows[0]["result"])


if __name__ == "__main__":
    unittest.main()
