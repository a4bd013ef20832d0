"""What replication costs per message written: WAL bytes per message with
session-search, with plain tables and with a plain FTS5 trigger, and the
bytes Litestream uploads (its level-0 LTX files) per message at a few write
rates. A measurement, not a test: the capacity table of docs/operations.md quotes it.

    target/replication-venv/bin/python tests/replication/bandwidth.py

Needs `litestream` on PATH or next to the Python running it (make
test-replication makes target/replication-venv with it). About a minute.
"""

import glob
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from stream import EXTENSION, WORDS

LITESTREAM = shutil.which("litestream", path=os.pathsep.join([os.path.dirname(sys.executable),
                                                              os.environ.get("PATH", "")]))
PAGE = 4096
SIZE = 640  # bytes of text per message, as the store benchmark's


class Text:
    def __init__(self):
        self.rng = random.Random(5)

    def __call__(self):
        words = []
        while sum(len(w) + 1 for w in words) < SIZE:
            words.append(self.rng.choice(WORDS))
        return " ".join(words)[:SIZE]


def plain(path, fts):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE sessions(session_key TEXT PRIMARY KEY, agent_id TEXT NOT NULL, spawned_by TEXT,"
                 " created_at INTEGER NOT NULL, leaf_id INTEGER)")
    conn.execute("CREATE TABLE messages(id INTEGER PRIMARY KEY, session_key TEXT NOT NULL, parent_id INTEGER,"
                 " role TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL, message_id TEXT)")
    conn.execute("CREATE INDEX by_session ON messages(session_key, id, created_at)")
    conn.execute("CREATE INDEX by_time ON messages(created_at)")
    if fts:
        conn.execute("CREATE VIRTUAL TABLE f USING fts5(content, content='messages', content_rowid='id')")
        conn.execute("CREATE TRIGGER t AFTER INSERT ON messages WHEN new.role IN ('user', 'assistant') BEGIN"
                     " INSERT INTO f(rowid, content) VALUES (new.id, new.content); END")
    return conn


def indexed(path):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(EXTENSION)
    conn.execute("SELECT sessions_init()")
    return conn


def fill(conn, text, count=2000):
    conn.execute("PRAGMA journal_mode = wal")
    for i in range(20):
        conn.execute("INSERT INTO sessions(session_key, agent_id, created_at) VALUES (?, 'main', 1)", (f"s{i}",))
    conn.execute("BEGIN")
    for i in range(count):
        append(conn, text, i)
    conn.execute("COMMIT")


def append(conn, text, i):
    conn.execute("INSERT INTO messages(session_key, role, content, created_at) VALUES (?, ?, ?, ?)",
                 (f"s{i % 20}", "user" if i % 2 else "assistant", text(), 1_700_000_000_000 + i))


def wal_per_message(make, batch, count=2000):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "agent.db")
        conn = make(path)
        text = Text()
        fill(conn, text)
        conn.execute("PRAGMA wal_autocheckpoint = 0")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        for first in range(0, count, batch):
            conn.execute("BEGIN")
            for i in range(first, first + batch):
                append(conn, text, 10_000 + i)
            conn.execute("COMMIT")
        size = os.path.getsize(path + "-wal")
        conn.close()
    return size / count


def uploaded_per_message(rate, seconds=10):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "agent.db")
        conn = indexed(path)
        text = Text()
        fill(conn, text, 5000)
        config = os.path.join(folder, "litestream.yml")
        with open(config, "w", encoding="utf-8") as f:
            f.write(f"dbs:\n  - path: {path}\n    replica:\n      type: file\n"
                    f"      path: {folder}/replica\n      sync-interval: 1s\n")
        litestream = subprocess.Popen([LITESTREAM, "replicate", "-config", config],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            def level0():
                return sum(os.path.getsize(f) for f in glob.glob(f"{folder}/replica/ltx/0/*.ltx"))
            time.sleep(3)
            before = level0()
            written = 0
            started = time.monotonic()
            while time.monotonic() - started < seconds:
                append(conn, text, 10_000 + written)
                written += 1
                time.sleep(1 / rate)
            time.sleep(3)
            return (level0() - before) / written, written / seconds
        finally:
            litestream.terminate()
            litestream.wait()


def main():
    print(f"WAL bytes per {SIZE}-byte message (pages of {PAGE} bytes):")
    for name, make in (("plain tables", lambda p: plain(p, False)),
                       ("plain tables + FTS5 trigger", lambda p: plain(p, True)),
                       ("session-search", indexed)):
        for batch in (1, 10, 100):
            per = wal_per_message(make, batch)
            print(f"  {name:28} {batch:4} per transaction: {per:8.0f} B ({per / (PAGE + 24):.1f} pages)")
    if not LITESTREAM:
        print("litestream not found: upload figures skipped")
        return
    print("Litestream upload (level-0 LTX files, sync-interval 1s), one message per transaction:")
    for rate in (1, 10, 100):
        per, actual = uploaded_per_message(rate)
        print(f"  {actual:6.1f} messages/s: {per:8.0f} B per message, {per * actual / 1024:7.1f} KiB/s")


if __name__ == "__main__":
    main()
