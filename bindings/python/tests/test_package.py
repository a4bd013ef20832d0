"""The installed `sqlite_session_search` package (run by tests/run.sh).

SSS_STANDARD says what the standard sqlite3 of this Python must do with
`load`: `loads`, or `unavailable` (built without extension loading).
SSS_ALTERNATIVES lists the other modules that must be installed and work
(`pysqlite3`, `apsw`, `sqlean`), comma-separated.
"""

import importlib
import json
import os
import sqlite3
import sys
import tomllib
import unittest
from pathlib import Path

import sqlite_session_search as sss

ROOT = Path(__file__).resolve().parents[3]
STANDARD = os.environ.get("SSS_STANDARD", "loads")
ALTERNATIVES = [m for m in os.environ.get("SSS_ALTERNATIVES", "").split(",") if m]
ALTERNATIVE_NAMES = [
    "pip install pysqlite3-binary",
    "apsw",
    "sqlean.py",
    "--enable-loadable-sqlite-extensions",
]


def rows(cursor):
    """Every row of a cursor, for sqlite3-like modules and apsw alike."""
    return [tuple(r) for r in cursor]


def check_search(test, conn):
    """Schema, one session with two messages, and a search that finds one."""
    execute = conn.execute
    status = json.loads(rows(execute("SELECT sessions_init()"))[0][0])
    test.assertIsInstance(status["schema_version"], int)
    execute(
        "INSERT INTO sessions(session_key, agent_id, created_at) VALUES (?, ?, ?)",
        ("agent:main:py:1", "main", 1_700_000_000_000),
    )
    execute(
        "INSERT INTO messages(session_key, role, content, created_at) VALUES (?, ?, ?, ?), (?, ?, ?, ?)",
        (
            "agent:main:py:1", "user", "Deploy staging to 東京都 please", 1_700_000_000_001,
            "agent:main:py:1", "assistant", "Lunch is at noon", 1_700_000_000_002,
        ),
    )
    options = json.dumps({"caller": "agent:main:py:1"})
    found = json.loads(rows(execute("SELECT sessions_search(?, ?)", ("staging 東京", options)))[0][0])
    test.assertEqual(len(found["results"]), 1, found)
    hit = found["results"][0]
    test.assertEqual((hit["sessionKey"], hit["role"], hit["id"]), ("agent:main:py:1", "user", 1))
    test.assertEqual(hit["snippet"], "Deploy staging to 東京都 please")
    # No message has both words: each has one, so both come as partial hits.
    some = json.loads(rows(execute("SELECT sessions_search(?, ?)", ("staging lunch", options)))[0][0])
    test.assertEqual(sorted(h["id"] for h in some["results"] if h.get("partial")), [1, 2], some)
    test.assertEqual(len(some["results"]), 2, some)


class NoLoading:
    """A connection of a sqlite3 built without extension loading."""

    def execute(self, sql):
        raise AssertionError("not reached")


class NotSupportedError(Exception):
    """Named like the DB-API error some modules raise."""


class RefusesLoading(NoLoading):
    """A connection whose enable_load_extension refuses."""

    def enable_load_extension(self, enabled):
        raise NotSupportedError("not supported")

    def load_extension(self, path):
        raise AssertionError("not reached")


class PackageTest(unittest.TestCase):
    def test_version_is_the_workspace_version(self):
        with open(ROOT / "Cargo.toml", "rb") as f:
            workspace = tomllib.load(f)["workspace"]["package"]["version"]
        self.assertEqual(sss.__version__, workspace)

    def test_installed_from_the_wheel_with_its_extension(self):
        path = Path(sss.loadable_path())
        self.assertTrue(path.is_absolute())
        self.assertTrue(path.is_file(), path)
        self.assertEqual(path.name, "session_search.so")
        self.assertTrue(path.is_relative_to(Path(sys.prefix).resolve()), (path, sys.prefix))
        self.assertTrue((path.parent / "py.typed").is_file())

    def test_a_connection_without_extension_loading_names_the_alternatives(self):
        for conn in (NoLoading(), RefusesLoading()):
            with self.assertRaises(sss.ExtensionLoadingUnavailable) as caught:
                sss.load(conn)
            self.assertIsInstance(caught.exception, sss.LoadError)
            for name in ALTERNATIVE_NAMES:
                self.assertIn(name, str(caught.exception))

    @unittest.skipUnless(STANDARD == "loads", "this sqlite3 cannot load extensions")
    def test_standard_sqlite3_loads_and_searches(self):
        conn = sqlite3.connect(":memory:")
        sss.load(conn)
        check_search(self, conn)
        # Extension loading is off again once loaded.
        with self.assertRaisesRegex(sqlite3.OperationalError, "not authorized"):
            conn.load_extension(sss.loadable_path())

    @unittest.skipUnless(STANDARD == "loads", "this sqlite3 cannot load extensions")
    def test_by_path_with_load_extension(self):
        conn = sqlite3.connect(":memory:")
        conn.enable_load_extension(True)
        conn.load_extension(sss.loadable_path())
        (text,) = conn.execute("SELECT sessions_version()").fetchone()
        self.assertEqual(json.loads(text)["version"], sss.__version__)

    @unittest.skipUnless(STANDARD == "unavailable", "this sqlite3 can load extensions")
    def test_standard_sqlite3_without_extension_loading_says_what_to_use(self):
        self.assertFalse(hasattr(sqlite3.Connection, "enable_load_extension"))
        with self.assertRaises(sss.ExtensionLoadingUnavailable) as caught:
            sss.load(sqlite3.connect(":memory:"))
        message = str(caught.exception)
        self.assertIn("sqlite3.Connection", message)
        for name in ALTERNATIVE_NAMES:
            self.assertIn(name, message)


class AlternativesTest(unittest.TestCase):
    @unittest.skipUnless(ALTERNATIVES, "no alternative modules in this venv")
    def test_every_alternative_loads_and_searches(self):
        for name in ALTERNATIVES:
            with self.subTest(module=name):
                if name == "apsw":
                    apsw = importlib.import_module("apsw")
                    conn = apsw.Connection(":memory:")
                else:
                    module = importlib.import_module({"pysqlite3": "pysqlite3.dbapi2"}.get(name, name))
                    conn = module.connect(":memory:")
                sss.load(conn)
                check_search(self, conn)


if __name__ == "__main__":
    unittest.main()
