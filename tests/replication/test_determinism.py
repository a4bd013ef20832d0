"""Statement replication: the same stream of SQL statements replayed on
independent databases gives the same answers and the same index.

rqlite and other engines that replicate SQL statements run every write on
every node, each with the extension loaded, so the triggers and the
functions they call must give the same result everywhere (docs/operations.md, "Determinism").
A seeded stream (stream.py) creates sessions (spawned ones and spawn chains
among them), appends (plain text, content blocks, broken JSON, secrets,
hard-wrapped secrets, CJK, two messages over a megabyte), branches, rewinds,
edits, deletes messages and sessions, moves and replaces sessions, commits
and rolls back transactions, sends writes the triggers refuse, changes the
host's redaction patterns, switches to deferred indexing and back, makes the
index look built by another tokenizer version and runs sessions_init(), and
reconciles in slices; between them it searches, reads histories and lists
sessions with random options. It is replayed, each in a process of its own,
on:

- twins A and A2: rollback journal, every statement in order. Every answer
  must be byte-identical, reads included.
- W: the writes only (a node that served no reads; in deferred mode a
  search indexes a slice itself, so W and A write different amounts of
  reconciliation in between).
- B: WAL, so searches start the extension's background drain, with a second
  connection reconciling random slices at random moments on a thread.

At each checkpoint every replica drains its backlog with sessions_reconcile;
then the public and internal tables, the index read through fts5vocab (row,
col and instance: every term at every position), sessions_status() with
FTS5's integrity check, and the answers of a battery of searches, histories
and lists must be identical on all four. Between checkpoints W and B must
agree with A on every write's outcome (the refused ones fail with the same
message).

Run with a Python whose sqlite3 can load extensions (make test-replication).
SESSION_SEARCH_SEEDS=2,3,4 replays other streams (default: seed 1).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STREAM = os.path.join(HERE, "stream.py")
STEPS = 1600
MODES = {"A": "twin", "A2": "twin", "W": "writes", "B": "background"}


def seeds():
    return [int(s) for s in os.environ.get("SESSION_SEARCH_SEEDS", "1").split(",") if s.strip()]


class DeterminismTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The replays load a copy, so that a `make build` elsewhere in the
        # tree (which rewrites dist/session_search.so) cannot pull the
        # library from under them.
        cls.folder = tempfile.TemporaryDirectory()
        copy = os.path.join(cls.folder.name, "session_search.so")
        shutil.copy(os.path.join(ROOT, "dist", "session_search.so"), copy)
        cls.env = dict(os.environ, SESSION_SEARCH_EXTENSION=copy)

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def replay_all(self, seed, folder):
        stream = os.path.join(folder, "stream.json")
        subprocess.run([sys.executable, STREAM, "generate", str(seed), stream, str(STEPS)], check=True)
        with open(stream, encoding="utf-8") as f:
            ops = json.load(f)
        processes = {}
        for name, mode in MODES.items():
            processes[name] = subprocess.Popen(
                [sys.executable, "-X", "faulthandler", STREAM, "replay", stream,
                 os.path.join(folder, f"{name}.db"), os.path.join(folder, f"{name}.json"), mode],
                stderr=subprocess.PIPE, text=True, env=self.env)
        out = {}
        for name, process in processes.items():
            _, err = process.communicate(timeout=300)
            self.assertEqual(process.returncode, 0, f"replay {name} failed:\n{err}")
            with open(os.path.join(folder, f"{name}.json"), encoding="utf-8") as f:
                out[name] = json.load(f)
        return ops, out

    def describe(self, ops, number):
        op = ops[number]
        if op["op"] in ("exec", "read"):
            return f"op {number} {op['op']}: {op['sql'][:120]} {json.dumps(op['params'], ensure_ascii=False)[:300]}"
        return f"op {number} {op['op']}"

    def test_replicas_agree(self):
        for seed in seeds():
            with self.subTest(seed=seed), tempfile.TemporaryDirectory() as folder:
                ops, out = self.replay_all(seed, folder)
                records = {name: dict((n, r) for n, r in result["records"]) for name, result in out.items()}
                a = records["A"]

                # The twins: every answer of every statement.
                self.assertEqual(sorted(a), sorted(records["A2"]))
                for number, answer in a.items():
                    self.assertEqual(answer, records["A2"][number], self.describe(ops, number))

                checks = [n for n, op in enumerate(ops) if op["op"] == "check"]
                self.assertGreaterEqual(len(checks), 8)
                compared = 0
                for name in ("W", "B"):
                    other = records[name]
                    for number, op in enumerate(ops):
                        if op["op"] == "check" or op.get("cmp") == "all" or op["op"] == "tx":
                            self.assertIn(number, other, f"{name} did not run {self.describe(ops, number)}")
                            self.assertEqual(a[number], other[number], f"{name}: {self.describe(ops, number)}")
                            compared += 1
                        elif op["op"] == "exec":
                            # Counts of indexed rows may differ; success or
                            # the error may not.
                            self.assertEqual(a[number][0], other[number][0], f"{name}: {self.describe(ops, number)}")
                            if a[number][0] == "error":
                                self.assertEqual(a[number], other[number], f"{name}: {self.describe(ops, number)}")

                # The stream did what it is meant to: the checkpoints saw an
                # index with content, rebuilds happened, reads found things.
                last = a[checks[-1]]
                self.assertEqual(last["status"]["integrity"], "ok")
                self.assertEqual(last["status"]["pending"], 0)
                self.assertGreater(last["status"]["indexed"], 150)
                self.assertGreater(last["vocab_instances"][0], 100_000)
                generation = dict(map(tuple, last["meta"]))["generation"]
                self.assertGreaterEqual(generation, 4, "redaction changes and the tokenizer rebuild")
                hits = sum(1 for n in checks for m in range(n + 1, len(ops))
                           if ops[m].get("cmp") == "all" and "sessions_search" in ops[m]["sql"]
                           and a[m][0] == "ok" and '"results":[{' in a[m][1][0]
                           and all(ops[k].get("cmp") == "all" for k in range(n + 1, m)))
                self.assertGreater(hits, 100, "checkpoint searches that found something")
                background = out["B"]["stats"]
                self.assertEqual(background["errors"], [])
                self.assertGreater(background["slices"], 0)
                self.assertGreater(background["drain_seen"], 0, "the extension's background drain never ran in B")
                print(f"\nseed {seed}: {len(ops)} operations, {len(checks)} checkpoints, "
                      f"{compared} answers compared with W and B, {hits} checkpoint searches with hits, "
                      f"index {last['vocab_instances'][0]} term positions; "
                      f"B's reconciling thread ran {background['slices']} slices ({background['rows']} rows), "
                      f"its drain thread was seen after {background['drain_seen']} operations; "
                      + ", ".join(f"{n} {r['stats']['seconds']} s" for n, r in out.items()),
                      file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
