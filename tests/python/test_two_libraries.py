"""The extension in one process with two SQLite libraries: the standard
sqlite3 module (Debian's libsqlite3) and pysqlite3 or sqlean, each with a
SQLite of its own.

Each case runs in a child process, so that a crash shows as its exit
status. The child's Python is a venv of /usr/bin/python3 with pysqlite3 and
sqlean installed (tests/python/requirements.txt), which `make test-python`
makes and names in SQLITE_LIBS_PYTHON.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTENSION = os.path.join(ROOT, "dist", "session_search.so")
PYTHON = os.environ.get(
    "SQLITE_LIBS_PYTHON", os.path.join(ROOT, "target", "python-libs-venv", "bin", "python")
)

# argv: folder, then one "module=extension file" per connection, opened in
# that order. Each connection loads its file, writes a session and a message
# in a transaction and searches; then the first connection does so again.
# Prints one JSON line: per connection, the error of its load or the
# messageIds its two searches found.
CHILD = r"""
import json, os, sys
import sqlite3, sqlean, pysqlite3.dbapi2 as pysqlite3
MODULES = {"sqlite3": sqlite3, "pysqlite3": pysqlite3, "sqlean": sqlean}

def use(conn, key):
    with conn:
        conn.execute("INSERT OR IGNORE INTO sessions(session_key, agent_id, created_at) VALUES (?, 1, 1)", (key,))
        conn.execute("INSERT INTO messages(session_key, role, content, created_at) VALUES (?, 'user', 'deploy to staging', 1)", (key,))
    found = conn.execute("SELECT sessions_search('staging', json_object('caller', ?))", (key,)).fetchone()[0]
    return [hit["messageId"] for hit in json.loads(found)["results"]]

folder, opened, report = sys.argv[1], [], []
for i, arg in enumerate(sys.argv[2:]):
    name, extension = arg.split("=", 1)
    conn = MODULES[name].connect(os.path.join(folder, f"{i}.db"))
    conn.enable_load_extension(True)
    try:
        conn.load_extension(extension)
    except Exception as e:
        report.append({"error": str(e)})
        continue
    conn.execute("SELECT sessions_init()")
    opened.append((conn, f"s{i}"))
    report.append({"found": use(conn, f"s{i}")})
for conn, key in opened:
    report.append({"found": use(conn, key)})
print(json.dumps(report))
"""

PAIRS = [("sqlite3", "pysqlite3"), ("pysqlite3", "sqlean"), ("sqlean", "sqlite3")]

REFUSED = "session-search is already loaded into another SQLite library in this process"


class TwoLibraries(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(PYTHON, os.X_OK):
            raise RuntimeError(f"no {PYTHON}: `make test-python` makes it")
        cls.folder = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder)

    def run_child(self, *connections):
        folder = tempfile.mkdtemp(dir=self.folder)
        args = [f"{name}={extension}" for name, extension in connections]
        done = subprocess.run(
            [PYTHON, "-c", CHILD, folder, *args], capture_output=True, text=True, timeout=60
        )
        self.assertEqual(done.returncode, 0, f"{connections}: {done.stderr}")
        return json.loads(done.stdout)

    def test_a_second_library_is_refused_and_the_first_works_on(self):
        for first, second in PAIRS:
            with self.subTest(first=first, second=second):
                report = self.run_child(
                    (first, EXTENSION), (second, EXTENSION), (first, EXTENSION)
                )
                self.assertEqual(report[0], {"found": ["1"]})
                self.assertIn(REFUSED, report[1]["error"])
                # A second connection of the first library loads it still,
                # and the first one writes and commits after the refusal.
                self.assertEqual(report[2], {"found": ["1"]})
                self.assertEqual(report[3:], [{"found": ["2", "1"]}, {"found": ["2", "1"]}])

    def test_a_copy_of_the_file_serves_the_second_library(self):
        copy = os.path.join(self.folder, "copy", "session_search.so")
        os.makedirs(os.path.dirname(copy))
        shutil.copy(EXTENSION, copy)
        for first, second in PAIRS:
            with self.subTest(first=first, second=second):
                report = self.run_child((first, EXTENSION), (second, copy))
                self.assertEqual(
                    report,
                    [{"found": ["1"]}, {"found": ["1"]}, {"found": ["2", "1"]}, {"found": ["2", "1"]}],
                )


if __name__ == "__main__":
    unittest.main()
