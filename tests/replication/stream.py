"""A seeded stream of SQL statements that an agent host would send to its
database, and a replayer that runs one on a database file and records what
every statement answered.

Statement-replicating engines (rqlite and the like) run the same statements
on every node, so every trigger and function of session-search must give
the same result wherever it runs (docs/operations.md, "Determinism"). test_determinism.py
replays one stream on several independent databases and compares what they
recorded.

    /usr/bin/python3 tests/replication/stream.py generate SEED STREAM.json STEPS
    /usr/bin/python3 tests/replication/stream.py replay STREAM.json DB OUT.json MODE

MODE is one of
  twin        rollback journal; every statement, reads included, in order
  writes      rollback journal; only the writes and the checkpoints (a node
              that served no reads: in deferred mode a search indexes a
              slice itself, so the two write different amounts in between)
  background  WAL, so searches start the extension's background drain, plus
              a second connection on a thread reconciling random slices at
              random moments: the writes of reconciliation land at times no
              other replica shares

Each operation of a stream is a dict:
  {"op": "exec", "sql", "params", "cmp"}   a write (or a function that writes)
  {"op": "read", "sql", "params", "cmp"}   a search, history, list or status
  {"op": "tx", "stmts": [[sql, params]...], "end": "COMMIT" | "ROLLBACK"}
  {"op": "check"}                          drain the backlog with
                                           sessions_reconcile, then record the
                                           database's logical content
"cmp" says which replicas must agree on the answer: "all" (a result that is
a function of the statements alone) or "twins" (one that also depends on how
much reconciliation happened before it: counts of indexed and pending rows,
and searches that may say "indexing": true).
"""

import hashlib
import json
import os
import random
import sqlite3
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXTENSION = os.environ.get("SESSION_SEARCH_EXTENSION", os.path.join(ROOT, "dist", "session_search"))
SHAPES = os.path.join(ROOT, "tests", "secrets", "shapes.json")

WORDS = """deploy staging production rollback migration database replica index
query latency timeout retry cache nginx kubernetes docker terraform ansible
backup restore snapshot checkpoint schema trigger branch rewind merge commit
review release version upgrade tokenizer redaction secret password token
config pipeline build test failure flaky regression benchmark profile memory
leak thread lock deadlock queue worker cron schedule alert incident outage
postmortem dashboard metric log trace span request response header cookie
session agent spawn caller visibility search history list excerpt snippet
unicode folding diacritic accent cjk segment grapheme offset prefix phrase
""".split()
ACCENTED = ["Café", "Straße", "Ærøskøbing", "naïve", "résumé", "Ｃｏｎｆｉｇ", "Łódź", "Þórr"]
CJK = ["東京の天気", "ラーメン屋", "서울시에서", "数据库迁移", "部署到生产环境", "ภาษาไทย", "かがみ"]
ODD = ["src/main.py", "alice@example.com", "#123", "C#", "NEAR(", "v1.2.3", "--force", "a_b-c"]
# The host's redaction patterns, set in turn: the second time the same
# patterns (no change), then two more, then none.
HOST_PATTERNS = [["ACME-[0-9A-Z]{12}"], ["ACME-[0-9A-Z]{12}"],
                 ["ACME-[0-9A-Z]{12}", "employee id (?P<secret>[0-9]{6})"], []]


def load_secrets():
    with open(SHAPES, encoding="utf-8") as f:
        return [s for shape in json.load(f) for s in shape["secrets"]]


class Generator:
    """Builds a stream. It keeps a rough model of the sessions it created
    (keys, agents, spawners, whether deleted) to aim its statements; ids and
    positions are resolved by the statements themselves (subqueries), so the
    stream is valid whatever the model gets wrong."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.ops = []
        self.sessions = []  # keys, in creation order
        self.agent_of = {}
        self.deleted = set()
        self.clock = 1_700_000_000_000
        self.secrets = load_secrets()
        self.messages = 0
        self.checked_at = None

    # -- helpers ---------------------------------------------------------

    def tick(self):
        self.clock += self.rng.randint(1, 5000)
        return self.clock

    def exec(self, sql, params=(), cmp="all"):
        self.ops.append({"op": "exec", "sql": sql, "params": list(params), "cmp": cmp})

    def read(self, sql, params=(), cmp="twins"):
        self.ops.append({"op": "read", "sql": sql, "params": list(params), "cmp": cmp})

    def live(self):
        return [k for k in self.sessions if k not in self.deleted]

    def pick_session(self, include_deleted=0.03):
        keys = self.sessions if self.rng.random() < include_deleted else self.live()
        return self.rng.choice(keys) if keys else None

    def words(self, n):
        rng = self.rng
        out = []
        for _ in range(n):
            r = rng.random()
            if r < 0.80:
                out.append(rng.choice(WORDS))
            elif r < 0.86:
                out.append(rng.choice(ACCENTED))
            elif r < 0.93:
                out.append(rng.choice(CJK))
            else:
                out.append(rng.choice(ODD))
        return out

    def prose(self):
        rng = self.rng
        parts = self.words(rng.randint(3, 40))
        r = rng.random()
        if r < 0.15:
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(self.secrets))
        elif r < 0.20:
            secret = rng.choice(self.secrets)
            width = rng.choice([4, 8, 60])
            parts.insert(rng.randrange(len(parts) + 1),
                         "\n".join(secret[i:i + width] for i in range(0, len(secret), width)))
        elif r < 0.26:
            parts.insert(rng.randrange(len(parts) + 1),
                         "ACME-" + "".join(rng.choice("0123456789ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(12)))
        elif r < 0.29:
            parts.insert(rng.randrange(len(parts) + 1), f"employee id {rng.randint(100000, 999999)}")
        sep = rng.choice([" ", " ", " ", "\n", ", "])
        return sep.join(parts)

    def content(self, role):
        rng = self.rng
        r = rng.random()
        if r < 0.55:
            return self.prose()
        blocks = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice(["text", "text", "input_text", "output_text", "thinking", "tool_use",
                               "toolCall", "tool_result", "image"])
            if kind in ("text", "input_text", "output_text"):
                blocks.append({"type": kind, "text": self.prose()})
            elif kind == "thinking":
                blocks.append({"type": "thinking", "thinking": self.prose()})
            elif kind in ("tool_use", "toolCall"):
                blocks.append({"type": kind, "name": "bash", "input": {"command": self.prose()}})
            elif kind == "tool_result":
                blocks.append({"type": "tool_result", "content": self.prose()})
            else:
                blocks.append({"type": "image", "source": {"type": "base64", "data": "iVBORw0KGgo="}})
        if r < 0.60:
            return json.dumps(blocks)[:-3]  # broken JSON: stored and indexed as plain text
        return json.dumps(blocks, ensure_ascii=rng.random() < 0.5)

    def big_content(self):
        """Over a megabyte, so redaction scans its two views on two threads.
        Words of its own (and CJK runs and secrets), so that searches for the
        stream's words are not all answered from it."""
        rng = self.rng
        lines = []
        size = 0
        while size < 1_060_000:
            line = " ".join(f"bulk{rng.randint(0, 20000)}" for _ in range(rng.randint(5, 15)))
            if rng.random() < 0.05:
                line += " " + rng.choice(CJK)
            if rng.random() < 0.01:
                line += " token=" + rng.choice(self.secrets)
            lines.append(line)
            size += len(line.encode()) + 1
        return "\n".join(lines)

    def position(self, key):
        """A subquery for a message of session `key`, by position."""
        return ("(SELECT id FROM messages WHERE session_key = ? ORDER BY id LIMIT 1 OFFSET ?)",
                [key, self.rng.randint(0, 12)])

    # -- writes ----------------------------------------------------------

    def new_session(self):
        rng = self.rng
        n = len(self.sessions)
        live = self.live()
        spawner = rng.choice(live) if live and rng.random() < 0.6 else None
        agent = self.agent_of[spawner] if spawner and rng.random() < 0.9 else rng.choice(["main", "ops", "research"])
        key = f"agent:{agent}:s{n}"
        self.sessions.append(key)
        self.agent_of[key] = agent
        self.exec("INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES (?, ?, ?, ?)",
                  [key, agent, spawner, self.tick()])
        return key

    def append(self, key=None, content=None, explicit_id=None, role=None):
        rng = self.rng
        key = key or self.pick_session()
        if key is None:
            return
        role = role or rng.choices(["user", "assistant", "tool", "system"], [40, 40, 15, 5])[0]
        content = content if content is not None else self.content(role)
        message_id = f"m{self.messages}" if rng.random() < 0.5 else None
        self.messages += 1
        self.exec("INSERT INTO messages(id, session_key, role, content, created_at, message_id)"
                  " VALUES (?, ?, ?, ?, ?, ?)",
                  [explicit_id, key, role, content, self.tick(), message_id])

    def branch(self):
        key = self.pick_session()
        if key is None:
            return
        sub, params = self.position(key)
        self.exec(f"INSERT INTO messages(session_key, parent_id, role, content, created_at) VALUES (?, {sub}, ?, ?, ?)",
                  [key, *params, self.rng.choice(["user", "assistant"]), self.prose(), self.tick()])

    def rewind(self):
        key = self.pick_session()
        if key is None:
            return
        if self.rng.random() < 0.05:
            self.exec("UPDATE sessions SET leaf_id = NULL WHERE session_key = ?", [key])
            return
        sub, params = self.position(key)
        self.exec(f"UPDATE sessions SET leaf_id = {sub} WHERE session_key = ?", [*params, key])

    def edit(self):
        key = self.pick_session()
        if key is None:
            return
        sub, params = self.position(key)
        if self.rng.random() < 0.7:
            self.exec(f"UPDATE messages SET content = ? WHERE id = {sub}", [self.prose(), *params])
        else:
            role = self.rng.choice(["user", "assistant", "tool", "system", "robot"])
            self.exec(f"UPDATE messages SET role = ? WHERE id = {sub}", [role, *params])

    def delete_message(self):
        key = self.pick_session()
        if key is None:
            return
        sub, params = self.position(key)
        self.exec(f"DELETE FROM messages WHERE id = {sub}", params)

    def delete_session(self):
        key = self.pick_session()
        if key is None:
            return
        self.deleted.add(key)
        self.exec("DELETE FROM sessions WHERE session_key = ?", [key])

    def move_session(self):
        key = self.pick_session()
        if key is None:
            return
        if self.rng.random() < 0.5:
            other = self.pick_session()
            # A spawned_by cycle is allowed; the scopes cope with it.
            self.exec("UPDATE sessions SET spawned_by = ? WHERE session_key = ?", [other, key])
        else:
            agent = self.rng.choice(["main", "ops", "research"])
            self.agent_of[key] = agent
            self.exec("UPDATE sessions SET agent_id = ? WHERE session_key = ?", [agent, key])

    def replace_session(self):
        key = self.pick_session()
        if key is None:
            return
        self.exec("INSERT OR REPLACE INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES (?, ?, NULL, ?)",
                  [key, self.agent_of[key], self.tick()])

    def transaction(self):
        rng = self.rng
        key = self.pick_session()
        if key is None:
            return
        stmts = []
        for _ in range(rng.randint(2, 6)):
            stmts.append(["INSERT INTO messages(session_key, role, content, created_at) VALUES (?, ?, ?, ?)",
                          [key, rng.choice(["user", "assistant"]), self.prose(), self.tick()]])
        if rng.random() < 0.3:
            sub, params = self.position(key)
            stmts.append([f"UPDATE sessions SET leaf_id = {sub} WHERE session_key = ?", [*params, key]])
        self.ops.append({"op": "tx", "stmts": stmts, "end": rng.choice(["COMMIT", "COMMIT", "ROLLBACK"])})

    def bad_write(self):
        rng = self.rng
        key = self.pick_session() or "nobody"
        choice = rng.randrange(4)
        if choice == 0:
            self.exec("INSERT INTO messages(session_key, role, content, created_at) VALUES (?, 'robot', 'x', 1)", [key])
        elif choice == 1:
            self.exec("INSERT INTO messages(session_key, role, content, created_at) VALUES ('no such session', 'user', 'x', 1)")
        elif choice == 2:
            self.exec("UPDATE sessions SET leaf_id = -424242 WHERE session_key = ?", [key])
        else:
            self.exec("INSERT INTO messages(session_key, role, content, created_at) VALUES (?, 'user', 'x', 'soon')", [key])

    # -- reads -----------------------------------------------------------

    def query_text(self):
        rng = self.rng
        r = rng.random()
        if r < 0.35:
            return rng.choice(WORDS)
        if r < 0.55:
            return " ".join(rng.sample(WORDS, 2))
        if r < 0.62:
            return '"' + " ".join(rng.sample(WORDS, 2)) + '"'
        if r < 0.67:
            return rng.choice(WORDS)[:4] + "*"
        if r < 0.71:
            return f"{rng.choice(WORDS)} OR {rng.choice(WORDS)} {rng.choice(WORDS)}"
        if r < 0.78:
            run = rng.choice(CJK)
            i = rng.randrange(len(run) - 1)
            return run[i:i + rng.choice([1, 2])]
        if r < 0.82:
            return rng.choice(ACCENTED).lower().replace("é", "e").replace("ß", "ss")
        if r < 0.86:
            return rng.choice(ODD)
        if r < 0.90:
            secret = rng.choice(self.secrets)
            return secret[:rng.randint(6, 14)] + rng.choice(["", "*"])
        if r < 0.93:
            return "where did we talk about the " + " ".join(rng.sample(WORDS, 2)) + "?"
        if r < 0.95:
            return '"unbalanced ' + rng.choice(WORDS)
        if r < 0.97:
            return ""
        return "ACME"

    def common_options(self, caller):
        rng = self.rng
        options = {"caller": caller}
        if rng.random() < 0.8:
            options["visibility"] = rng.choice(["self", "tree", "agent", "all"])
        if rng.random() < 0.1:
            options["sandboxed"] = True
        if rng.random() < 0.05:
            options["redact"] = ["staging"]
        return options

    def search(self, cmp="twins", caller=None, query=None):
        rng = self.rng
        caller = caller or self.pick_session(include_deleted=0.05) or "nobody"
        options = self.common_options(caller)
        if rng.random() < 0.3:
            options["limit"] = rng.randint(1, 25)
        if rng.random() < 0.25:
            options["order"] = "recent"
        if rng.random() < 0.15:
            options["groupBy"] = "session"
        if rng.random() < 0.1:
            options["roles"] = [rng.choice(["user", "assistant"])]
        if rng.random() < 0.1:
            options["since"] = self.clock - rng.randint(0, 10_000_000)
        if rng.random() < 0.05:
            options["until"] = self.clock - rng.randint(0, 10_000_000)
        if rng.random() < 0.05:
            options["sessionKeys"] = [self.pick_session() or "x"]
        if rng.random() < 0.1:
            options["snippetChars"] = rng.randint(1, 300)
        if rng.random() < 0.05:
            options["maxBytes"] = rng.randint(2, 2000)
        if rng.random() < 0.05:
            options["rankWindow"] = rng.choice([1, 10, 100000000])
        self.read("SELECT sessions_search(?, ?)", [query if query is not None else self.query_text(),
                                                  json.dumps(options)], cmp)

    def history(self, cmp="twins", key=None, caller=None):
        rng = self.rng
        key = key or self.pick_session() or "nobody"
        caller = caller or (key if rng.random() < 0.5 else self.pick_session()) or key
        options = self.common_options(caller)
        if rng.random() < 0.4:
            options["around"] = rng.randint(1, self.messages + 5)
        if rng.random() < 0.3:
            options["before"] = rng.randint(0, 10)
            options["after"] = rng.randint(0, 10)
        if rng.random() < 0.2:
            options["limit"] = rng.randint(1, 200)
        if rng.random() < 0.2:
            options["maxChars"] = rng.randint(1, 500)
        self.read("SELECT sessions_history(?, ?)", [key, json.dumps(options)], cmp)

    def list(self, cmp="twins", caller=None):
        rng = self.rng
        caller = caller or self.pick_session(include_deleted=0.05) or "nobody"
        options = self.common_options(caller)
        if rng.random() < 0.2:
            options["agent"] = rng.choice(["main", "ops", "research"])
        if rng.random() < 0.2:
            options["prefix"] = "agent:" + rng.choice(["main", "ops", "research"])
        if rng.random() < 0.2:
            options["limit"] = rng.randint(1, 100)
        if rng.random() < 0.2:
            options["offset"] = rng.randint(0, 20)
        if rng.random() < 0.1:
            options["since"] = self.clock - rng.randint(0, 10_000_000)
        self.read("SELECT sessions_list(?)", [json.dumps(options)], cmp)

    def checkpoint(self):
        """Drain, record the content, and ask every replica the same
        questions, whose answers must then agree everywhere."""
        self.ops.append({"op": "check"})
        live = self.live()
        callers = self.rng.sample(live, min(len(live), 6))
        for caller in callers:
            for visibility in ("self", "tree", "agent", "all"):
                self.read("SELECT sessions_list(?)", [json.dumps({"caller": caller, "visibility": visibility})], "all")
            self.read("SELECT sessions_history(?, ?)", [caller, json.dumps({"caller": caller, "limit": 200})], "all")
        for _ in range(40):
            self.search("all", caller=self.rng.choice(callers) if callers else None)
        for _ in range(6):
            self.history("all")
            self.list("all")
        self.checked_at = len(self.ops)

    # -- the stream ------------------------------------------------------

    def generate(self, steps):
        rng = self.rng
        self.exec("SELECT sessions_init()", cmp="twins")
        for _ in range(6):
            self.new_session()
        bulk = "agent:bulk:import"
        self.agent_of[bulk] = "bulk"
        self.exec("INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES (?, 'bulk', NULL, ?)",
                  [bulk, self.tick()])
        self.append(key=bulk, content="imported history follows", role="user")
        big_at = {steps // 3, (2 * steps) // 3}
        # Phases, each at its position in the stream: a redaction change, a
        # bulk import in deferred mode, a tokenizer-version rebuild, the host
        # patterns removed again.
        phases = {
            steps // 5: "redaction",
            (2 * steps) // 5: "deferred",
            steps // 2: "immediate",
            (3 * steps) // 5: "tokenizer",
            (4 * steps) // 5: "redaction",
        }
        patterns = iter(HOST_PATTERNS)
        for step in range(steps):
            if step in big_at:
                # In a session of its own, after a short first message (its
                # title), so that not every list redacts a megabyte.
                self.append(key=bulk, content=self.big_content(), role="user")
            phase = phases.get(step)
            if phase == "redaction":
                self.exec("SELECT sessions_set_redaction(?)", [json.dumps(next(patterns))], cmp="twins")
                self.exec("SELECT sessions_set_redaction(?)", [json.dumps(next(patterns))], cmp="twins")
            elif phase == "deferred":
                self.exec("SELECT sessions_set_indexing('deferred')")
            elif phase == "immediate":
                self.exec("SELECT sessions_set_indexing('immediate')")
            elif phase == "tokenizer":
                # The only way to make an index look built by another
                # tokenizer version without another build of the extension:
                # what an upgrade does, by its internal table.
                self.exec("UPDATE session_search_meta SET value = 0 WHERE key = 'tokenizer_version'")
                self.exec("SELECT sessions_init()", cmp="twins")
            if step % (steps // 8) == steps // 8 - 1:
                self.checkpoint()
                continue
            r = rng.random()
            if r < 0.05:
                self.new_session()
            elif r < 0.30:
                self.append()
            elif r < 0.33:
                self.append(explicit_id=rng.choice([10_000_000 + step, -step - 1]))
            elif r < 0.36:
                self.branch()
            elif r < 0.40:
                self.rewind()
            elif r < 0.42:
                self.edit()
            elif r < 0.44:
                self.delete_message()
            elif r < 0.45:
                self.delete_session()
            elif r < 0.47:
                self.move_session()
            elif r < 0.48:
                self.replace_session()
            elif r < 0.51:
                self.transaction()
            elif r < 0.52:
                self.bad_write()
            elif r < 0.55:
                self.exec("SELECT sessions_reconcile(?)", [rng.randint(1, 60)], cmp="twins")
            elif r < 0.56:
                self.read("SELECT sessions_status()")
            elif r < 0.80:
                self.search()
            elif r < 0.90:
                self.history()
            else:
                self.list()
        if len(self.ops) != self.checked_at:
            self.checkpoint()
        return self.ops


# -- replay ---------------------------------------------------------------


def connect(path):
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.enable_load_extension(True)
    conn.load_extension(EXTENSION)
    conn.enable_load_extension(False)
    return conn


def answer(conn, sql, params):
    """What a statement answered: its first row, or its error."""
    try:
        rows = conn.execute(sql, params).fetchall()
    except sqlite3.Error as e:
        return ["error", str(e)]
    return ["ok", list(rows[0]) if rows else None]


def digest(conn, sql):
    """The number of rows `sql` returns and a hash of them."""
    rows = conn.execute(sql).fetchall()
    return [len(rows), hashlib.sha256(repr(rows).encode()).hexdigest()]


def content(conn):
    """The logical content of a database: the public tables, the engine's
    own tables, the index term by term and position by position (fts5vocab
    reads what FTS5 holds, not how its segments are laid out, which depends
    on when merges ran), and sessions_status() with FTS5's integrity check.
    The segment layout is left out: the status's segment count and the
    compaction bookkeeping in the meta table, which follow how the backlog
    was sliced (a search indexes a slice on one replica and not on another)."""
    conn.execute("BEGIN")
    try:
        out = {
            "sessions": digest(conn, "SELECT * FROM sessions ORDER BY session_key"),
            "messages": digest(conn, "SELECT * FROM messages ORDER BY id"),
            "nodes": digest(conn, "SELECT * FROM session_search_nodes ORDER BY id"),
            "scopes": digest(conn, "SELECT * FROM session_search_scopes ORDER BY session_key"),
            "meta": conn.execute("SELECT key, value FROM session_search_meta"
                                 " WHERE key NOT LIKE 'compaction%' ORDER BY key").fetchall(),
            "vocab_rows": digest(conn, "SELECT term, doc, cnt FROM temp.vocab_row ORDER BY term"),
            "vocab_cols": digest(conn, "SELECT term, col, doc, cnt FROM temp.vocab_col ORDER BY term, col"),
            "vocab_instances": digest(conn, "SELECT term, doc, col, offset FROM temp.vocab_instance"
                                            " ORDER BY term, doc, col, offset"),
        }
    finally:
        conn.execute("COMMIT")
    # Outside the read transaction: the integrity check is written as an
    # INSERT, which must not find its snapshot outdated.
    out["status"] = json.loads(conn.execute("SELECT sessions_status()").fetchone()[0])
    del out["status"]["segments"]
    out["vocab_sample"] = conn.execute("SELECT term, doc, cnt FROM temp.vocab_row ORDER BY doc DESC, term LIMIT 25").fetchall()
    return out


class Reconciler(threading.Thread):
    """A second connection that reconciles random slices at random moments,
    as a host's worker would, racing the replayed statements for the lock."""

    def __init__(self, path):
        super().__init__(daemon=True)
        self.path = path
        self.stop = threading.Event()
        self.slices = 0
        self.rows = 0
        self.errors = []

    def run(self):
        rng = random.Random()  # unseeded on purpose
        conn = connect(self.path)
        conn.execute("PRAGMA busy_timeout = 50")
        while not self.stop.is_set():
            try:
                progress = json.loads(conn.execute("SELECT sessions_reconcile(?)", [rng.randint(1, 300)]).fetchone()[0])
                self.slices += 1
                self.rows += progress["indexed"]
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) and "busy" not in str(e):
                    self.errors.append(str(e))
            time.sleep(rng.random() * 0.004)
        conn.close()


def drain_running():
    """Whether the extension's background drain thread is running in this
    process (Linux names threads in /proc)."""
    try:
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/comm", encoding="utf-8") as f:
                if f.read().startswith("session-search"):
                    return True
    except OSError:
        pass
    return False


def replay(stream_path, db_path, out_path, mode):
    with open(stream_path, encoding="utf-8") as f:
        ops = json.load(f)
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(db_path + suffix):
            os.remove(db_path + suffix)
    conn = connect(db_path)
    conn.execute("PRAGMA journal_mode = " + ("wal" if mode == "background" else "delete"))
    for kind in ("row", "col", "instance"):
        conn.execute(f"CREATE VIRTUAL TABLE temp.vocab_{kind} USING fts5vocab(main, session_search_fts, {kind})")
    reconciler = None
    drains = 0
    records = []
    started = time.monotonic()
    for number, op in enumerate(ops):
        if reconciler is None and mode == "background" and number == 1:
            # After sessions_init(), so it never races the schema's creation.
            reconciler = Reconciler(db_path)
            reconciler.start()
        kind = op["op"]
        if kind == "read" and mode == "writes" and op["cmp"] != "all":
            continue
        if kind in ("exec", "read"):
            records.append([number, answer(conn, op["sql"], op["params"])])
        elif kind == "tx":
            results = [answer(conn, "BEGIN IMMEDIATE", [])]
            for sql, params in op["stmts"]:
                results.append(answer(conn, sql, params))
            results.append(answer(conn, op["end"], []))
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            records.append([number, results])
        elif kind == "check":
            while True:
                progress = answer(conn, "SELECT sessions_reconcile(1000000000)", [])
                if progress[0] == "ok" and json.loads(progress[1][0])["done"]:
                    break
            records.append([number, content(conn)])
        if mode == "background":
            drains += drain_running()
    stats = {"seconds": round(time.monotonic() - started, 2), "mode": mode}
    if reconciler is not None:
        reconciler.stop.set()
        reconciler.join()
        stats.update(slices=reconciler.slices, rows=reconciler.rows, errors=reconciler.errors,
                     drain_seen=drains)
    conn.close()
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"records": records, "stats": stats}, f, ensure_ascii=False)


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "generate" and len(sys.argv) == 5:
        ops = Generator(int(sys.argv[2])).generate(int(sys.argv[4]))
        with open(sys.argv[3], "w", encoding="utf-8") as f:
            json.dump(ops, f, ensure_ascii=False)
    elif len(sys.argv) == 6 and sys.argv[1] == "replay":
        replay(*sys.argv[2:6])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
