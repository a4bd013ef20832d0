"""Runs a scenario file of tests/scenarios through Python's sqlite3 module
with the extension loaded, printing what the sqlite3 shell would: for each
statement that returns rows, each row's columns joined by '|', one per line.

    /usr/bin/python3 tests/scenarios/run_scenario.py tests/scenarios/search.sql

Run from the repository root (it loads dist/session_search). Used by
wrapper/tests/cross_language.rs; exits non-zero on the first error.
"""

import sqlite3
import sys


def statements(sql):
    """The statements of `sql` in order, split where SQLite says a statement
    is complete (so semicolons inside strings and comments are kept)."""
    current = ""
    for char in sql:
        current += char
        if char == ";" and sqlite3.complete_statement(current):
            if current.strip(" \t\r\n;"):
                yield current
            current = ""
    if current.strip():
        raise SystemExit(f"incomplete statement at the end of the file: {current.strip()[:80]!r}")


def text(value):
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: run_scenario.py FILE.sql")
    with open(sys.argv[1], encoding="utf-8") as f:
        sql = f.read()
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension("dist/session_search")
    conn.enable_load_extension(False)
    out = open(sys.stdout.fileno(), "w", encoding="utf-8", newline="\n", closefd=False)
    for number, statement in enumerate(statements(sql), 1):
        try:
            cursor = conn.execute(statement)
            rows = cursor.fetchall() if cursor.description is not None else []
        except sqlite3.Error as e:
            print(f"statement {number} failed: {e}\n{statement.strip()}", file=sys.stderr)
            sys.exit(1)
        for row in rows:
            out.write("|".join(text(v) for v in row) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
