"""A reconciliation backlog with several processes: searches never wait for
or fail on a lock because of their own catch-up work, `sessions_reconcile`
waits as the busy timeout says and then says why it could not run, and the
backlog drains in the background with no host worker.

Run with the system Python, whose sqlite3 can load extensions:

    /usr/bin/python3 -m unittest tests/python/test_backlog.py -v
"""

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

from test_store import EXTENSION, connect, value

# A process that holds the write lock: it writes a message in a transaction,
# prints "locked", sleeps, then commits.
HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=5)
conn.enable_load_extension(True)
conn.load_extension(sys.argv[2])
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO messages(session_key, role, content, created_at) VALUES ('s0', 'user', 'holder row', 1)")
print("locked", flush=True)
time.sleep(float(sys.argv[3]))
conn.execute("COMMIT")
"""

# A process that appends messages one per transaction with a busy timeout,
# as a host's writer does, until it wrote argv[3] rows or the file argv[4]
# exists; it prints "writing" after its first row and the number of rows at
# the end, and fails loudly on any error. It pauses argv[5] seconds (if
# given) after each row, at an agent's pace: a writer that never pauses holds
# the write lock nearly all the time, and SQLite's busy handler, which polls,
# can then miss every gap for longer than any busy timeout.
WRITER = """
import os, sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=5)
conn.enable_load_extension(True)
conn.load_extension(sys.argv[2])
pause = float(sys.argv[5]) if len(sys.argv) > 5 else 0.0
rows = 0
while rows < int(sys.argv[3]) and not (len(sys.argv) > 4 and os.path.exists(sys.argv[4])):
    conn.execute("INSERT INTO messages(session_key, role, content, created_at) VALUES ('s1', 'user', ?, ?)",
                 (f"writer row {rows}", 10_000_000 + rows))
    rows += 1
    if rows == 1:
        print("writing", flush=True)
    time.sleep(pause)
print(rows, flush=True)
"""

ROWS = 20_000

# Backlog rows a search indexes itself when no background drain runs
# (SEARCH_RECONCILE_ROWS in engine/src/search.rs).
SEARCH_SLICE = 200


def adopted_backlog(path, journal="wal", rows=ROWS):
    """A database whose transcripts were written before sessions_init(), by
    a connection without the extension: every message is backlog."""
    plain = sqlite3.connect(path, isolation_level=None)
    plain.execute(f"PRAGMA journal_mode={journal}")
    plain.execute("CREATE TABLE sessions(session_key TEXT PRIMARY KEY, agent_id TEXT NOT NULL,"
                  " spawned_by TEXT, created_at INTEGER NOT NULL, leaf_id INTEGER)")
    plain.execute("CREATE TABLE messages(id INTEGER PRIMARY KEY, session_key TEXT NOT NULL, parent_id INTEGER,"
                  " role TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL, message_id TEXT)")
    plain.executemany("INSERT INTO sessions VALUES (?, 'main', NULL, 1, NULL)", [(f"s{i}",) for i in range(10)])
    plain.execute("BEGIN")
    plain.executemany("INSERT INTO messages(session_key, role, content, created_at) VALUES (?, ?, ?, ?)",
                      ((f"s{i % 10}", "user" if i % 2 else "assistant",
                        f"archived note {i} about the staging deploy", i) for i in range(rows)))
    plain.execute("COMMIT")
    plain.close()
    conn = connect(path)
    init = json.loads(value(conn, "SELECT sessions_init()"))
    assert init["pending"] == rows, init
    return conn


def status(path):
    """sessions_status() as another connection sees it."""
    conn = connect(path)
    try:
        return json.loads(value(conn, "SELECT sessions_status()"))
    finally:
        conn.close()


def pending(path):
    """The backlog as another connection sees it."""
    return status(path)["pending"]


def drain_threads():
    """How many background drains run in this process: threads named
    session-search-drain (a thread's name is cut to 15 bytes)."""
    names = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                names.append(comm.read().strip())
        except FileNotFoundError:
            pass
    return names.count("session-search-")


def search(conn, query, caller="s0", **options):
    return json.loads(value(conn, "SELECT sessions_search(?, ?)",
                            (query, json.dumps({"caller": caller, "visibility": "all", **options}))))


class BacklogTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "sessions.db")

    def tearDown(self):
        self.dir.cleanup()

    def hold_lock(self, seconds):
        """Starts a process holding the write lock for `seconds`; returns it
        once it holds the lock."""
        holder = subprocess.Popen([sys.executable, "-c", HOLDER, self.path, EXTENSION, str(seconds)],
                                  stdout=subprocess.PIPE, text=True)
        self.assertEqual(holder.stdout.readline().strip(), "locked")
        self.addCleanup(holder.stdout.close)
        self.addCleanup(holder.wait)
        return holder

    def wait_drained(self, seconds=120):
        deadline = time.monotonic() + seconds
        while pending(self.path) > 0:
            self.assertLess(time.monotonic(), deadline, "the backlog did not drain")
            time.sleep(0.2)

    def test_searches_during_another_process_write_neither_wait_nor_fail(self):
        conn = adopted_backlog(self.path)
        conn.execute("PRAGMA busy_timeout = 5000")
        holder = self.hold_lock(2.0)
        for _ in range(10):
            started = time.monotonic()
            answer = search(conn, "staging deploy")
            self.assertLess(time.monotonic() - started, 0.5, "a search waited for the lock")
            self.assertTrue(answer["indexing"], answer)
            self.assertIn("warning", answer)
        self.assertIsNone(holder.poll(), "the writer finished before the searches did")
        holder.wait()
        # No host worker, no more calls: the drain the searches started
        # indexes everything.
        self.wait_drained()
        answer = search(conn, '"archived note 7 about"')
        self.assertNotIn("indexing", answer)
        self.assertEqual([hit["id"] for hit in answer["results"]], [8])

    def test_a_search_inside_the_host_read_transaction_after_another_commit(self):
        for mode in ("immediate", "deferred"):
            with self.subTest(mode=mode):
                path = os.path.join(self.dir.name, f"{mode}.db")
                conn = adopted_backlog(path, rows=2_000)
                conn.execute(f"SELECT sessions_set_indexing('{mode}')")
                other = connect(path)
                conn.execute("BEGIN")
                value(conn, "SELECT count(*) FROM messages")
                other.execute("INSERT INTO messages(session_key, role, content, created_at)"
                              " VALUES ('s1', 'user', 'committed meanwhile', 5)")
                answer = search(conn, "archived")
                self.assertTrue(answer["indexing"], answer)
                conn.execute("COMMIT")
                other.close()
                conn.close()

    def test_a_search_with_a_rollback_journal_never_waits_either(self):
        conn = adopted_backlog(self.path, journal="delete", rows=2_000)
        conn.execute("PRAGMA busy_timeout = 5000")
        self.hold_lock(1.5)
        started = time.monotonic()
        answer = search(conn, "archived")
        self.assertLess(time.monotonic() - started, 0.5)
        self.assertTrue(answer["indexing"], answer)
        time.sleep(1.6)
        # Without a background drain (a rollback journal blocks readers
        # while a writer commits) each search indexes a slice itself.
        before = pending(self.path)
        search(conn, "archived")
        self.assertLess(pending(self.path), before)

    def test_reads_hold_no_lock_once_they_return(self):
        # Each read function keeps one read transaction across its
        # statements; with a rollback journal a read lock left behind would
        # stop another connection's commit (busy timeout 0) after it.
        conn = adopted_backlog(self.path, journal="delete", rows=200)
        self.assertEqual(json.loads(value(conn, "SELECT sessions_reconcile(1000)"))["pending"], 0)
        other = connect(self.path)
        other.execute("PRAGMA busy_timeout = 0")
        reads = (
            ("SELECT sessions_search('archived', ?)", json.dumps({"caller": "s0", "visibility": "all"})),
            ("SELECT sessions_search('archived', ?)", json.dumps({"caller": "s0", "order": "recent"})),
            ("SELECT sessions_history('s0', ?)", json.dumps({"caller": "s0"})),
            ("SELECT sessions_list(?)", json.dumps({"caller": "s0", "visibility": "all"})),
        )
        for i, (sql, options) in enumerate(reads):
            with self.subTest(sql=sql, options=options):
                value(conn, sql, (options,))
                other.execute("INSERT INTO messages(session_key, role, content, created_at)"
                              " VALUES ('s1', 'user', ?, ?)", (f"written after read {i}", 1_000 + i))
        self.assertEqual([hit["id"] for hit in search(conn, '"written after read 3"')["results"]], [204])
        other.close()

    def test_reconcile_waits_as_long_as_the_busy_timeout_says(self):
        conn = adopted_backlog(self.path, rows=2_000)
        conn.execute("PRAGMA busy_timeout = 5000")
        self.hold_lock(1.0)
        started = time.monotonic()
        progress = json.loads(value(conn, "SELECT sessions_reconcile(100)"))
        self.assertGreater(time.monotonic() - started, 0.5, "it did not wait for the writer")
        self.assertEqual(progress["indexed"], 100)

    def test_reconcile_says_when_the_database_stayed_locked(self):
        conn = adopted_backlog(self.path, rows=2_000)
        conn.execute("PRAGMA busy_timeout = 100")
        self.hold_lock(1.5)
        with self.assertRaises(sqlite3.OperationalError) as raised:
            value(conn, "SELECT sessions_reconcile(100)")
        message = str(raised.exception)
        self.assertIn("sessions_reconcile: another connection is writing", message)
        self.assertIn("nothing was changed", message)
        time.sleep(1.6)
        self.assertEqual(pending(self.path), 2_000)

    def test_the_drain_outlives_the_connection_that_started_it(self):
        conn = adopted_backlog(self.path)
        self.assertTrue(search(conn, "archived")["indexing"])
        conn.close()
        self.wait_drained()
        conn = connect(self.path)
        self.assertEqual(json.loads(value(conn, "SELECT sessions_status()"))["integrity"], "ok")

    def test_a_connection_that_only_reads_never_starts_a_write(self):
        adopted_backlog(self.path, rows=2_000).close()
        readers = [connect(f"file:{self.path}?mode=ro", uri=True), connect(self.path)]
        readers[1].execute("PRAGMA query_only = 1")
        for reader in readers:
            found = search(reader, "archived")
            self.assertTrue(found["indexing"])
            self.assertEqual(found["results"], [])
        time.sleep(1.5)
        self.assertEqual(pending(self.path), 2_000)
        # A connection that may write starts the drain, which finishes.
        self.assertTrue(search(connect(self.path), "archived")["indexing"])
        self.wait_drained()
        self.assertEqual(len(search(readers[0], "archived")["results"]), 10)

    def test_a_host_that_locks_the_file_its_own_way_is_never_joined_by_a_drain(self):
        # The drain writes through a connection of its own, opened with
        # SQLite's default VFS and locking: it must not join a host that
        # holds the file in exclusive locking mode (whose WAL index is in
        # its own memory) or reaches it through another VFS (here one that
        # locks with a dot-file, which the default VFS does not see). Such
        # a host's searches index slices themselves instead.
        hosts = ["file:{}?vfs=unix-dotfile", "file:{}", "file:{}?vfs=unix-excl"]
        for n, uri in enumerate(hosts):
            with self.subTest(uri):
                path = os.path.join(self.dir.name, f"host{n}.db")
                adopted_backlog(path, rows=10_000).close()
                host = connect(uri.format(path), uri=True)
                if "excl" not in uri:
                    host.execute("PRAGMA locking_mode = EXCLUSIVE")
                drained = []
                for _ in range(30):
                    answer = search(host, "archived")
                    drained.append(drain_threads())
                    time.sleep(0.05)
                self.assertEqual(max(drained), 0, drained)
                self.assertEqual(json.loads(value(host, "SELECT sessions_status()"))["pending"],
                                 10_000 - 30 * SEARCH_SLICE)
                self.assertEqual(len(answer["results"]), 10)
                while answer.get("indexing"):
                    answer = search(host, "archived")
                self.assertEqual(value(host, "PRAGMA integrity_check"), "ok")
                host.close()
                self.assertEqual(status(path)["integrity"], "ok")
        # The same backlog on the default VFS and locking is drained in the
        # background, which the thread count above would have seen.
        adopted_backlog(self.path, rows=ROWS).close()
        host = connect(self.path)
        search(host, "archived")
        seen = 0
        for _ in range(20):
            seen = max(seen, drain_threads())
            time.sleep(0.05)
        self.assertEqual(seen, 1)
        self.wait_drained()

    def test_writers_with_a_busy_timeout_never_fail_while_the_backlog_drains(self):
        conn = adopted_backlog(self.path)
        self.assertTrue(search(conn, "archived")["indexing"])
        writer = subprocess.run([sys.executable, "-c", WRITER, self.path, EXTENSION, "300"],
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(writer.returncode, 0, writer.stderr)
        for _ in range(20):
            search(conn, "writer row")
        self.wait_drained()
        self.assertEqual(value(conn, "SELECT count(*) FROM messages"), ROWS + 300)
        found = search(conn, '"writer row 299"', caller="s1")
        self.assertEqual(len(found["results"]), 1, found)

    def test_the_drain_compacts_the_index_once_the_backlog_is_indexed(self):
        conn = adopted_backlog(self.path)
        self.assertTrue(search(conn, "archived")["indexing"])
        deadline = time.monotonic() + 120
        while (now := status(self.path))["pending"] > 0 or now["segments"] > 1:
            self.assertLess(time.monotonic(), deadline, f"the index was not compacted: {now}")
            time.sleep(0.2)
        self.assertEqual(now["integrity"], "ok")
        self.assertEqual(json.loads(value(conn, "SELECT sessions_reconcile(1)")),
                         {"indexed": 0, "pending": 0, "compacting": False, "done": True})
        self.assertEqual(len(search(conn, '"archived note 19999"')["results"]), 1)

    def test_the_drain_compacts_an_index_written_by_appends(self):
        # A host appends one message per transaction, indexed by the
        # triggers: FTS5's automerge leaves many segments, and a search,
        # finding the whole index written since its last compaction, has a
        # drain merge them.
        conn = connect(self.path)
        conn.execute("PRAGMA journal_mode = wal")
        value(conn, "SELECT sessions_init()")
        conn.execute("INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('s0', 'main', 1)")
        for i in range(2_000):
            conn.execute("INSERT INTO messages(session_key, role, content, created_at) VALUES ('s0', 'user', ?, ?)",
                         (f"appended note {i}", i))
        self.assertGreater(status(self.path)["segments"], 1)
        self.assertNotIn("indexing", search(conn, "appended"))
        deadline = time.monotonic() + 60
        while (now := status(self.path))["segments"] > 1:
            self.assertLess(time.monotonic(), deadline, f"the index was not compacted: {now}")
            time.sleep(0.1)
        self.assertEqual(now["integrity"], "ok")
        self.assertEqual(len(search(conn, '"appended note 1999"')["results"]), 1)
        # Appends of less than a quarter of the index leave it to automerge.
        for i in range(2_000, 2_400):
            conn.execute("INSERT INTO messages(session_key, role, content, created_at) VALUES ('s0', 'user', ?, ?)",
                         (f"appended note {i}", i))
        segments = status(self.path)["segments"]
        self.assertGreater(segments, 1)
        search(conn, "appended")
        time.sleep(0.5)
        self.assertEqual(status(self.path)["segments"], segments)

    def test_a_compaction_reuses_the_pages_it_frees(self):
        conn = connect(self.path)
        conn.execute("PRAGMA journal_mode = wal")
        value(conn, "SELECT sessions_init()")
        value(conn, "SELECT sessions_set_indexing('deferred')")
        conn.execute("INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('s0', 'main', 1)")
        rows = 60_000
        words = [f"term{i}" for i in range(5_000)]
        # 80 words a message: enough tokens for FTS5 to write the backlog
        # in several segments.
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO messages(session_key, role, content, created_at) VALUES ('s0', 'user', ?, ?)",
                         ((" ".join(words[(i * 7919 + j * 104729) % len(words)] for j in range(80)), i)
                          for i in range(rows)))
        conn.execute("COMMIT")
        # A slice that indexes everything, in many FTS5 segments, has no
        # budget left; the next merges them all at once.
        progress = json.loads(value(conn, f"SELECT sessions_reconcile({rows})"))
        self.assertEqual(progress, {"indexed": rows, "pending": 0, "compacting": True, "done": False})
        self.assertGreater(status(self.path)["segments"], 1)
        index_pages = value(conn, "SELECT count(*) FROM session_search_fts_data")
        before = value(conn, "PRAGMA page_count")
        progress = json.loads(value(conn, f"SELECT sessions_reconcile({rows})"))
        self.assertEqual(progress, {"indexed": 0, "pending": 0, "compacting": False, "done": True})
        self.assertEqual(status(self.path)["segments"], 1)
        grown = value(conn, "PRAGMA page_count") - before
        self.assertLess(grown, index_pages / 3, "the merge's freed pages were not reused as it went")

    def test_writers_with_a_busy_timeout_never_fail_while_the_index_is_compacted(self):
        conn = adopted_backlog(self.path)
        conn.execute("PRAGMA busy_timeout = 5000")
        value(conn, "SELECT sessions_set_indexing('deferred')")
        progress = json.loads(value(conn, f"SELECT sessions_reconcile({ROWS})"))
        self.assertEqual((progress["pending"], progress["compacting"]), (0, True), progress)
        self.assertGreater(status(self.path)["segments"], 1)
        stop = os.path.join(self.dir.name, "stop")
        writer = subprocess.Popen([sys.executable, "-c", WRITER, self.path, EXTENSION, "1000000", stop, "0.001"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(writer.stdout.readline().strip(), "writing")
        # The drain and this connection's slices compact side by side while
        # the writer appends.
        value(conn, "SELECT sessions_set_indexing('immediate')")
        deadline = time.monotonic() + 120
        while not json.loads(value(conn, "SELECT sessions_reconcile(100)"))["done"]:
            self.assertLess(time.monotonic(), deadline, "the compaction did not finish")
        open(stop, "w").close()
        out, err = writer.communicate(timeout=60)
        self.assertEqual(writer.returncode, 0, err)
        written = int(out.split()[-1])
        self.assertGreater(written, 0)
        self.assertEqual(value(conn, "SELECT count(*) FROM messages"), ROWS + written)
        after = status(self.path)
        self.assertEqual((after["pending"], after["integrity"]), (0, "ok"), after)
        found = search(conn, f'"writer row {written - 1}"', caller="s1")
        self.assertEqual(len(found["results"]), 1, found)


if __name__ == "__main__":
    unittest.main()
