"""What reaches the WAL is what Litestream ships: a reconciliation slice
that finds nothing to do must add nothing to it, while still taking the
write lock first (so it waits for another writer as the busy timeout says).

A host worker that calls sessions_reconcile every second on an idle
database used to append a page to the WAL each time, and so make Litestream
upload a new file every sync interval for ever.
"""

import json
import os
import sqlite3
import tempfile
import unittest

from stream import EXTENSION


def connect(path, timeout=5.0):
    conn = sqlite3.connect(path, isolation_level=None, timeout=timeout)
    conn.enable_load_extension(True)
    conn.load_extension(EXTENSION)
    conn.enable_load_extension(False)
    return conn


class IdleSliceTest(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.folder.name, "agent.db")
        self.conn = connect(self.path)
        self.conn.execute("PRAGMA journal_mode = wal")
        self.conn.execute("SELECT sessions_init()")
        self.conn.execute("INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('s', 'main', 1)")
        self.conn.execute("INSERT INTO messages(session_key, role, content, created_at) VALUES ('s', 'user', 'deploy', 2)")

    def tearDown(self):
        self.conn.close()
        self.folder.cleanup()

    def wal(self):
        return os.path.getsize(self.path + "-wal")

    def test_idle_slices_write_nothing(self):
        # The first slice compacts the index the append wrote; after it
        # nothing is left to do.
        self.conn.execute("SELECT sessions_reconcile(100)").fetchone()
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.assertEqual(self.wal(), 0)
        for _ in range(5):
            progress = json.loads(self.conn.execute("SELECT sessions_reconcile(100)").fetchone()[0])
            self.assertEqual(progress, {"indexed": 0, "pending": 0, "compacting": False, "done": True})
        self.conn.execute("""SELECT sessions_search('deploy', '{"caller":"s"}')""").fetchone()
        self.conn.execute("SELECT sessions_set_redaction('[]')").fetchone()  # unchanged
        self.assertEqual(self.wal(), 0, "an idle slice wrote to the WAL")

    def test_a_slice_still_waits_for_the_write_lock(self):
        other = connect(self.path, timeout=0.2)
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            with self.assertRaises(sqlite3.OperationalError) as ctx:
                other.execute("SELECT sessions_reconcile(100)").fetchone()
            self.assertIn("another connection is writing", str(ctx.exception))
        finally:
            self.conn.execute("ROLLBACK")
            other.close()


if __name__ == "__main__":
    unittest.main()
