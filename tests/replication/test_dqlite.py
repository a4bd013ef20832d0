"""A replicated primary: a 3-node dqlite cluster on loopback with the
extension loaded on every node, through leader failovers (issue 16 item 3).

dqlite (Debian's libdqlite0 and go-dqlite: `dqlite-demo` nodes, the `dqlite`
shell) keeps one database replicated by Raft: the leader runs each
statement and its WAL pages are replicated, so every node that can lead
needs the extension. It is loaded into each node by dqlite_shim.c
(LD_PRELOAD), as dqlite's own VFS cannot load extensions.

The test writes transcripts through the cluster (sessions with a spawn
chain, messages in several statements, a rewind, a secret, CJK text), asks
a battery of searches, histories, lists and sessions_status(), then kills
the leader with SIGKILL and asks again of the new leader; it writes more
(a session deleted, a redaction change reconciled in the same way as on
any replicated engine, a rewind), and then kills leaders and restarts them
until each of the three nodes has answered the battery as leader. Every
answer must be identical, FTS5's integrity check ok on each.

Needs `dqlite-demo`, `dqlite`, a C compiler and sqlite3.h (Debian:
go-dqlite, gcc, libsqlite3-dev; make test-replication installs them when run
as root). Skipped without them.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = [shutil.which(t) for t in ("dqlite-demo", "dqlite", "cc")]
HEADER = os.path.exists("/usr/include/sqlite3.h")
WORDS = "staging deploy rollback replica snapshot restore nginx postgres incident flaky upgrade tokenizer".split()
SECRET = "sk-proj-Zt8qLm3Rv9XwB2nK7pQd4Hs6Yj1Fc5Ga0Ue8Wi3Oy7Tr2Mb9Nx4Lk6Jh1"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@unittest.skipUnless(all(TOOLS) and HEADER,
                     "dqlite-demo, dqlite, cc or sqlite3.h missing (Debian: go-dqlite gcc libsqlite3-dev)")
class DqliteClusterTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.TemporaryDirectory()
        self.dir = self.scratch.name
        shim = os.path.join(self.dir, "dqlite_shim.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", shim, os.path.join(HERE, "dqlite_shim.c"),
                        "-ldl", "-lsqlite3"], check=True)
        extension = os.path.join(self.dir, "session_search.so")
        shutil.copy(os.path.join(ROOT, "dist", "session_search.so"), extension)
        self.env = dict(os.environ, LD_PRELOAD=shim, SESSION_SEARCH_SO=extension)
        self.addresses = [f"127.0.0.1:{free_port()}" for _ in range(3)]
        self.apis = [f"127.0.0.1:{free_port()}" for _ in range(3)]
        self.nodes = [None, None, None]
        self.servers = ",".join(self.addresses)

    def tearDown(self):
        for node in self.nodes:
            if node is not None and node.poll() is None:
                node.kill()
            if node is not None:
                node.wait()
        self.scratch.cleanup()

    def start(self, n, join=None):
        data = os.path.join(self.dir, f"node{n}")
        os.makedirs(data, exist_ok=True)
        args = ["dqlite-demo", "--api", self.apis[n], "--db", self.addresses[n], "--dir", data]
        if join:
            args += ["--join", join]
        log = open(os.path.join(self.dir, f"node{n}.log"), "a", encoding="utf-8")
        self.nodes[n] = subprocess.Popen(args, env=self.env, stdout=log, stderr=subprocess.STDOUT, cwd=data)
        log.close()

    def sql(self, statement):
        result = subprocess.run(["dqlite", "-s", self.servers, "demo", statement],
                                capture_output=True, text=True, timeout=30)
        if result.returncode != 0 or result.stderr.strip():
            raise AssertionError(f"{statement[:100]}: {result.stdout}{result.stderr}\n{self.logs()}")
        return result.stdout.strip()

    def logs(self):
        out = []
        for n in range(3):
            path = os.path.join(self.dir, f"node{n}.log")
            if os.path.exists(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    out.append(f"node {n}: {f.read()[-1500:]}")
        return "\n".join(out)

    def leader(self, not_this=None, timeout=30):
        """The leader's index, once there is one (other than `not_this`)
        that answers."""
        deadline = time.monotonic() + timeout
        while True:
            result = subprocess.run(["dqlite", "-s", self.servers, "demo", ".leader"],
                                    capture_output=True, text=True, timeout=30)
            address = result.stdout.strip()
            if result.returncode == 0 and address in self.addresses:
                n = self.addresses.index(address)
                if n != not_this:
                    probe = subprocess.run(["dqlite", "-s", self.servers, "demo", "SELECT 1"],
                                           capture_output=True, text=True, timeout=30)
                    if probe.returncode == 0 and probe.stdout.strip() == "1":
                        return n
            if time.monotonic() > deadline:
                self.fail(f"no leader within {timeout} s\n{self.logs()}")
            time.sleep(0.2)

    def messages(self, first, count):
        rows = []
        for i in range(first, first + count):
            words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(8)]
            if i % 7 == 0:
                words.append("東京の天気は晴れ")
            if i % 5 == 0:
                words.append("Café")
            if i % 11 == 0:
                words += ["token", SECRET]
            role = "user" if i % 2 else "assistant"
            rows.append(f"('agent:main:cli:{i % 3}', '{role}', '{' '.join(words)}', {1700000001000 + i})")
        self.sql("INSERT INTO messages(session_key, role, content, created_at) VALUES " + ", ".join(rows))

    def battery(self):
        out = []
        for caller in ("agent:main:cli:0", "agent:main:cli:1"):
            for query in WORDS[:6] + ["東京", "cafe", SECRET[:12], '"deploy rollback"', "depl*", "ACME"]:
                for visibility in ("self", "tree", "all"):
                    options = json.dumps({"caller": caller, "visibility": visibility})
                    out.append(self.sql(f"SELECT sessions_search('{query}', '{options}')"))
            options = json.dumps({"caller": caller, "limit": 200})
            out.append(self.sql(f"SELECT sessions_history('{caller}', '{options}')"))
            out.append(self.sql("SELECT sessions_list('%s')" % json.dumps({"caller": caller, "visibility": "all"})))
        status = json.loads(self.sql("SELECT sessions_status()"))
        self.assertEqual(status["integrity"], "ok")
        self.assertEqual(status["pending"], 0)
        return out, status

    def fail_over(self, leader):
        """Kills the leader; returns the new one once it answers."""
        self.nodes[leader].kill()
        self.nodes[leader].wait()
        return self.leader(not_this=leader)

    def test_searches_agree_on_every_leader(self):
        self.start(0)
        self.leader()
        self.start(1, join=self.addresses[0])
        self.start(2, join=self.addresses[0])
        deadline = time.monotonic() + 30
        while self.sql(".cluster").count("voter") < 3:
            self.assertLess(time.monotonic(), deadline, self.sql(".cluster"))
            time.sleep(0.2)
        self.assertIn('"tokenizer"', self.sql("SELECT sessions_version()"))
        self.sql("SELECT sessions_init()")
        self.sql("INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES "
                 "('agent:main:cli:0', 'main', NULL, 1), ('agent:main:cli:1', 'main', 'agent:main:cli:0', 2), "
                 "('agent:main:cli:2', 'ops', NULL, 3)")
        for first in range(0, 100, 20):
            self.messages(first, 20)
        self.sql("UPDATE sessions SET leaf_id = (SELECT id FROM messages WHERE session_key = 'agent:main:cli:1'"
                 " ORDER BY id LIMIT 1 OFFSET 10) WHERE session_key = 'agent:main:cli:1'")

        first = self.leader()
        before, status = self.battery()
        self.assertGreater(sum('"results":[{' in answer for answer in before), 30)
        second = self.fail_over(first)
        self.assertEqual(self.battery()[0], before, "the new leader answers as the old one did")
        self.start(first)  # rejoins from its data

        self.messages(1000, 30)
        self.sql("DELETE FROM sessions WHERE session_key = 'agent:main:cli:2'")
        # A redaction change leaves a backlog; on a replicated engine it is
        # drained by a statement, which every node then has.
        self.sql("""SELECT sessions_set_redaction('["ACME-[0-9]{4}"]')""")
        self.sql("SELECT sessions_reconcile(1000000000)")
        self.sql("INSERT INTO messages(session_key, role, content, created_at) VALUES "
                 "('agent:main:cli:0', 'user', 'the ACME-1234 key and the ACME ticket', 1700000009000)")
        self.sql("UPDATE sessions SET leaf_id = (SELECT id FROM messages WHERE session_key = 'agent:main:cli:0'"
                 " ORDER BY id DESC LIMIT 1 OFFSET 3) WHERE session_key = 'agent:main:cli:0'")

        answered = {}
        leader = self.leader()
        for _ in range(8):
            if leader not in answered:
                answered[leader], status = self.battery()
                self.assertEqual(status["redaction_patterns"], 1)
            if len(answered) == 3:
                break
            previous = leader
            leader = self.fail_over(previous)
            self.start(previous)
        self.assertEqual(sorted(answered), [0, 1, 2], "every node has led after the last write")
        self.assertEqual(answered[0], answered[1])
        self.assertEqual(answered[1], answered[2])
        self.assertNotEqual(answered[0], before)
        print(f"\ndqlite: {len(before)} answers identical on leaders {first} and {second}, "
              f"then {len(answered[0])} identical on each of the three nodes as leader "
              f"({status['messages']} messages, {status['indexed']} indexed)", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
