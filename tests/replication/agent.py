"""The processes of the Litestream tests: an agent host writing its
transcripts, one searching them meanwhile, a read replica through the
Litestream VFS, and a dump of what a database holds and answers.

    python agent.py write DB TRANSACTIONS SEED     writes, prints each committed transaction's number
    python agent.py crash-write DB SEED ARM        writes until killed, printing "commit N"; every
                                                   third transaction is large (1.4 MB, with a 400 KB
                                                   page cache: it spills to the WAL before its
                                                   commit); once the file ARM exists, the next large
                                                   one prints "inside N" before its commit and
                                                   waits there to be killed
    python agent.py search DB SECONDS              searches while others write; prints the count
    python agent.py vfs-follow NAME WORD SECONDS OUT
                                                   through the Litestream VFS (LITESTREAM_REPLICA_URL):
                                                   searches until WORD is found, then writes what
                                                   the replica answers to OUT (JSON)
    python agent.py dump DB                        prints the content and the answers (JSON)
    python agent.py transactions DB                prints the transactions found (JSON)

Each transaction n writes PARTS messages with message_id "t<n>.<part>", so a
restored copy can tell whether a transaction came whole.
"""

import json
import os
import random
import sqlite3
import sys
import time

from stream import EXTENSION, content, load_secrets

PARTS = 4
# Seconds a read replica waits before it reopens a connection that sees no
# new transaction (it normally sees the last one within 1-2 s).
REOPEN_AFTER = 15
AGENTS = ["main", "ops"]
WORDS = """staging deploy rollback replica snapshot checkpoint restore backup
latency nginx postgres terraform incident flaky regression upgrade tokenizer
branch rewind cache queue worker alert""".split()
CJK = ["数据库迁移", "東京の天気", "서울시에서"]
SESSIONS = [f"agent:{a}:{i}" for a in AGENTS for i in range(3)]


def connect(path, **kw):
    conn = sqlite3.connect(path, isolation_level=None, timeout=30, **kw)
    conn.enable_load_extension(True)
    conn.load_extension(EXTENSION)
    conn.enable_load_extension(False)
    return conn


def prepare(conn):
    conn.execute("PRAGMA journal_mode = wal")
    conn.execute("SELECT sessions_init()")
    for key in SESSIONS:
        agent, n = key.split(":")[1], int(key.split(":")[2])
        spawner = f"agent:{agent}:0" if n else None
        conn.execute("INSERT OR IGNORE INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES (?, ?, ?, ?)",
                     (key, agent, spawner, 1_700_000_000_000 + n))


def transaction(conn, rng, n, secrets, big=False, hold=False):
    """Transaction n: PARTS messages in random sessions, now and then a
    rewind or a branch; a big one carries 1.4 MB. With `hold`, it prints
    "inside N" after its big message and waits to be killed."""
    conn.execute("BEGIN IMMEDIATE")
    for part in range(PARTS):
        key = rng.choice(SESSIONS)
        words = rng.choices(WORDS, k=rng.randint(4, 20))
        if rng.random() < 0.2:
            words.append(rng.choice(CJK))
        if rng.random() < 0.1:
            words.append(rng.choice(secrets))
        text = f"txn{n} " + " ".join(words)
        if big and part == 0:
            # Words of its own, so that searches are not all answered from it.
            text += "\n" + "\n".join(" ".join(f"bulk{rng.randint(0, 9999)}" for _ in range(12))
                                      for _ in range(16_000))
        role = rng.choice(["user", "assistant", "assistant", "tool"])
        content = text if rng.random() < 0.6 else json.dumps([{"type": "text", "text": text}])
        parent = None
        if rng.random() < 0.05:
            parent = conn.execute("SELECT min(id) FROM messages WHERE session_key = ?", (key,)).fetchone()[0]
        conn.execute("INSERT INTO messages(session_key, parent_id, role, content, created_at, message_id)"
                     " VALUES (?, ?, ?, ?, ?, ?)",
                     (key, parent, role, content, 1_700_000_100_000 + n * 10 + part, f"t{n}.{part}"))
        if hold and part == 0:
            print("inside", n, flush=True)
            time.sleep(60)
    if rng.random() < 0.05:
        key = rng.choice(SESSIONS)
        conn.execute("UPDATE sessions SET leaf_id = (SELECT id FROM messages WHERE session_key = ?"
                     " ORDER BY id DESC LIMIT 1 OFFSET 2) WHERE session_key = ?", (key, key))
    conn.execute("COMMIT")


def write(path, transactions, seed):
    conn = connect(path)
    prepare(conn)
    rng = random.Random(int(seed))
    secrets = load_secrets()
    for n in range(int(transactions)):
        transaction(conn, rng, n, secrets)
        print(n, flush=True)
        time.sleep(0.002)


def crash_write(path, seed, arm):
    conn = connect(path)
    prepare(conn)
    # A small page cache (400 KB), so that a big transaction spills pages
    # into the WAL before its commit.
    conn.execute("PRAGMA cache_size = 100")
    rng = random.Random(int(seed))
    secrets = load_secrets()
    n = 0
    while True:
        big = n % 3 == 2
        transaction(conn, rng, n, secrets, big=big, hold=big and os.path.exists(arm))
        print("commit", n, flush=True)
        n += 1


def search(path, seconds):
    conn = connect(path)
    deadline = time.monotonic() + float(seconds)
    rng = random.Random()
    count = 0
    while time.monotonic() < deadline:
        query = " ".join(rng.sample(WORDS, rng.randint(1, 2)))
        options = {"caller": rng.choice(SESSIONS), "visibility": rng.choice(["tree", "agent", "all"])}
        try:
            result = json.loads(conn.execute("SELECT sessions_search(?, ?)", (query, json.dumps(options))).fetchone()[0])
        except sqlite3.OperationalError as e:
            if "no such table" in str(e) or "no session-search schema" in str(e):
                time.sleep(0.01)  # before the writer's sessions_init()
                continue
            raise
        if "results" not in result:
            raise SystemExit(f"bad answer: {result}")
        count += 1
    print(count)


def answers(conn):
    """What the database answers: every session's history, lists, and
    searches at every visibility."""
    out = []
    callers = [row[0] for row in conn.execute("SELECT session_key FROM sessions ORDER BY session_key")]
    for caller in callers:
        out.append(conn.execute("SELECT sessions_history(?, ?)",
                                (caller, json.dumps({"caller": caller, "limit": 200}))).fetchone()[0])
        out.append(conn.execute("SELECT sessions_list(?)", (json.dumps({"caller": caller, "visibility": "all"}),)).fetchone()[0])
        for query in WORDS + CJK + ["txn1", "txn7 staging", '"deploy rollback"', "re*"]:
            for visibility in ("tree", "all"):
                options = {"caller": caller, "visibility": visibility, "limit": 5}
                out.append(conn.execute("SELECT sessions_search(?, ?)", (query, json.dumps(options))).fetchone()[0])
    return out


def committed(conn):
    """The transactions found, and those found in part."""
    parts = {}
    for (message_id,) in conn.execute("SELECT message_id FROM messages WHERE message_id LIKE 't%'"):
        n = int(message_id[1:].split(".")[0])
        parts[n] = parts.get(n, 0) + 1
    return sorted(parts), sorted(n for n, count in parts.items() if count != PARTS)


def dump(path):
    conn = connect(path)
    for kind in ("row", "col", "instance"):
        conn.execute(f"CREATE VIRTUAL TABLE temp.vocab_{kind} USING fts5vocab(main, session_search_fts, {kind})")
    found, torn = committed(conn)
    return {
        "transactions": found,
        "torn": torn,
        "status": json.loads(conn.execute("SELECT sessions_status()").fetchone()[0]),
        "integrity": conn.execute("PRAGMA integrity_check").fetchone()[0],
        "answers": answers(conn),
        "content": content(conn),
    }


def vfs_follow(name, word, seconds, out):
    """A read replica: the Litestream VFS serves the database from the
    replica, this process searches it until `word` appears."""
    import litestream_vfs

    # The VFS registers itself when loaded into any connection; after that,
    # connections of this process must use it (it fails the others).
    boot = sqlite3.connect(":memory:")
    litestream_vfs.load(boot)
    def replica():
        return connect(f"file:{name}?vfs=litestream", uri=True)

    def finds(connection):
        result = connection.execute("SELECT sessions_search(?, ?)",
                                    (word, json.dumps({"caller": SESSIONS[0], "visibility": "all"}))).fetchone()[0]
        return bool(json.loads(result)["results"])

    conn = replica()
    started = time.monotonic()
    searches = 0
    reopened = False
    while not finds(conn):
        searches += 1
        waited = time.monotonic() - started
        if waited > float(seconds):
            raise SystemExit(f"{word} not found through the VFS after {seconds} s")
        if waited > REOPEN_AFTER and not reopened:
            # The VFS's tailer can stop advancing and serve an old position
            # for good (benbjohnson/litestream#1460 describes one cause);
            # a new connection starts a new one.
            conn, reopened = replica(), True
        time.sleep(0.05)
    searches += 1
    lag = time.monotonic() - started
    found, torn = committed(conn)
    # To a file: the VFS writes to this process's standard output from its
    # own threads (a long JSON line printed there came back interleaved).
    with open(out, "w", encoding="utf-8") as f:
        json.dump({
            "seconds": round(lag, 2),
            "searches": searches,
            "reopened": reopened,
            "transactions": found,
            "torn": torn,
            "status": json.loads(conn.execute("SELECT sessions_status()").fetchone()[0]),
            "answers": answers(conn),
        }, f, ensure_ascii=False)


def main():
    args = sys.argv[1:]
    if args[:1] == ["write"] and len(args) == 4:
        write(*args[1:])
    elif args[:1] == ["crash-write"] and len(args) == 4:
        crash_write(*args[1:])
    elif args[:1] == ["search"] and len(args) == 3:
        search(*args[1:])
    elif args[:1] == ["vfs-follow"] and len(args) == 5:
        vfs_follow(*args[1:])
    elif args[:1] == ["transactions"] and len(args) == 2:
        found, torn = committed(connect(args[1]))
        print(json.dumps({"transactions": found, "torn": torn}))
    elif args[:1] == ["dump"] and len(args) == 2:
        print(json.dumps(dump(args[1]), ensure_ascii=False))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
