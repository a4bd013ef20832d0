#!/usr/bin/env python3
"""Checks README.md, CHANGELOG.md, ARCHITECTURE.md and docs/*.md: their links, and that every
example that shows output is run.

    python3 tests/docs/check_docs.py [path/to/sqlite3]

Run from anywhere after `make build` and the CLI's build; `make test-docs`
runs it. What it checks:

- Links: every relative link names a file or folder that exists, and every
  `#anchor` a heading of the page it points to (GitHub's anchors: the
  heading in lower case, without punctuation but `-` and `_`, spaces as `-`).
- ```sql blocks of a page run in that order in one sqlite3 shell, on one
  in-memory database with the extension loaded (so a page's examples build
  on each other). The `-- ` comment lines right after a statement are its
  output, exactly; a statement with none must print nothing. An output line
  whose text starts with a space continues the line before it, so that long
  JSON can be wrapped (the spaces are dropped). An error shows as
  `-- Error: <message>`.
- ```console blocks run their `$ ` lines in bash with the CLI built in
  target/release first on PATH, a database of their own
  (`SESSION_SEARCH_DB`), `TZ=UTC` and `NO_COLOR=1`; the lines up to the next
  `$ ` are the output, stdout and stderr together, and a line `…` stands for
  any lines. `console demo` starts from the transcripts of demo/transcripts
  imported, as `make demo` does.
- ```rust blocks are doctests: the page must be included in
  wrapper/src/lib.rs (`include_str!`), which `cargo test --doc` runs.
- A ```text block that starts with a prompt (`sqlite>`, `$ `) shows output
  nothing runs: write it as ```sql or ```console, or mark it as an
  illustration (```` ```text illustration ````), which nothing runs.

Prints one line per page and a total; exits 1 if anything failed.
"""

import difflib
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SQLITE3 = sys.argv[1] if len(sys.argv) > 1 else "sqlite3"
CLI_DIR = ROOT / "target" / "release"
LIB_RS = ROOT / "wrapper" / "src" / "lib.rs"


def pages():
    found = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "ARCHITECTURE.md"]
    found += sorted((ROOT / "docs").glob("*.md"))
    return [p for p in found if p.exists()]


class Block:
    def __init__(self, page, line, lang, flags, lines):
        self.page, self.line, self.lang, self.flags, self.lines = page, line, lang, flags, lines

    def where(self):
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_and_prose(page):
    """The fenced blocks of a page, and its lines outside them (for links)."""
    blocks, prose = [], []
    fence = None
    for number, line in enumerate(page.read_text().split("\n"), 1):
        if fence is None:
            m = re.match(r"^(`{3,})(.*)$", line)
            if m:
                info = m.group(2).split()
                fence = Block(page, number, info[0] if info else "", info[1:], [])
                fence.marker = m.group(1)
            else:
                prose.append((number, line))
        elif line.strip() == fence.marker:
            blocks.append(fence)
            fence = None
        else:
            fence.lines.append(line)
    return blocks, prose


# --- links -------------------------------------------------------------------

def anchors(page):
    seen, out = {}, set()
    for _, line in blocks_and_prose(page)[1]:
        m = re.match(r"^#{1,6} +(.*?) *#* *$", line)
        if not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1)).lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def check_links(page):
    problems = []
    for number, line in blocks_and_prose(page)[1]:
        line = re.sub(r"`[^`]*`", "", line)
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                problems.append(f"{page.relative_to(ROOT)}:{number}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                problems.append(f"{page.relative_to(ROOT)}:{number}: {target}: no such heading")
    return problems


# --- sql ---------------------------------------------------------------------

def sql_examples(blocks):
    """(block, statement, expected output lines) of every ```sql block."""
    examples = []
    for block in blocks:
        if block.lang != "sql" or "illustration" in block.flags:
            continue
        statement, expected = None, []
        lines = block.lines + [""]
        i = 0
        while i < len(lines):
            line = lines[i]
            if statement is None and (not line.strip() or line.startswith("--")):
                i += 1
                continue
            if line.startswith("."):
                statement = line
            else:
                statement = line
                while not sqlite3.complete_statement(statement) and i + 1 < len(lines):
                    i += 1
                    statement += "\n" + lines[i]
            i += 1
            expected = []
            while i < len(lines) and lines[i].startswith("--"):
                text = lines[i][3:] if lines[i].startswith("-- ") else lines[i][2:]
                if text.startswith(" ") and expected:
                    expected[-1] += text.strip()
                else:
                    expected.append(text)
                i += 1
            examples.append((block, statement, expected))
            statement = None
    return examples


def normalize_error(line):
    line = re.sub(r"^(?:Runtime|Parse) error near line \d+: ", "Error: ", line)
    return re.sub(r"^Error: near line \d+: ", "Error: ", line)


def check_sql(page, blocks):
    examples = sql_examples(blocks)
    if not examples:
        return []
    script = [".load dist/session_search"]
    for n, (_, statement, _) in enumerate(examples):
        script.append(f".print @@{n}")
        script.append(statement)
    cmd = [SQLITE3, "-batch", ":memory:"]
    if subprocess.run(["sh", "-c", "command -v stdbuf"], capture_output=True).returncode == 0:
        cmd = ["stdbuf", "-oL"] + cmd
    out = subprocess.run(cmd, input="\n".join(script) + "\n", stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    actual = {}
    current = None
    for line in out.stdout.split("\n"):
        m = re.match(r"^@@(\d+)$", line)
        if m:
            current = int(m.group(1))
            actual[current] = []
        elif current is not None:
            actual[current].append(normalize_error(line))
        elif line:
            return [f"{page.relative_to(ROOT)}: before the first example: {line}"]
    problems = []
    for n, (block, statement, expected) in enumerate(examples):
        got = actual.get(n, [])
        while got and got[-1] == "":
            got.pop()
        if got != expected:
            diff = "\n".join(difflib.unified_diff(expected, got, "shown", "actual", lineterm=""))
            first = statement.split("\n")[0]
            problems.append(f"{block.where()}: {first}\n{diff}")
    return problems


# --- console -------------------------------------------------------------------

def matches(expected, got):
    pattern = "\n".join(".*?" if line == "…" else re.escape(line) for line in expected)
    pattern = pattern.replace("\n.*?\n", "(?:\n.*?)?\n")
    return re.fullmatch(pattern, "\n".join(got), re.S) is not None


def check_console(block):
    commands = []
    for line in block.lines:
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands:
            commands[-1][1].append(line)
        elif line.strip():
            return [f"{block.where()}: output before the first `$ ` command"]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, PATH=f"{CLI_DIR}:{os.environ['PATH']}", HOME=tmp, TZ="UTC",
                   NO_COLOR="1", SESSION_SEARCH_DB=str(Path(tmp) / "sessions.db"))
        for var in ("XDG_DATA_HOME", "SESSION_SEARCH_CALLER", "SESSION_SEARCH_VISIBILITY"):
            env.pop(var, None)
        if "demo" in block.flags:
            subprocess.run(["session-search", "-q", "import", "demo/transcripts"], env=env, cwd=ROOT,
                           check=True)
        problems = []
        for command, expected in commands:
            out = subprocess.run(["bash", "-c", command], env=env, cwd=ROOT,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            got = out.stdout.rstrip("\n").split("\n") if out.stdout.strip() else []
            got = [line.rstrip() for line in got]
            while expected and not expected[-1].strip():
                expected = expected[:-1]
            if not matches([line.rstrip() for line in expected], got):
                diff = "\n".join(difflib.unified_diff(expected, got, "shown", "actual", lineterm=""))
                problems.append(f"{block.where()}: $ {command}\n{diff}")
        return problems


# --- the rest ------------------------------------------------------------------

def check_blocks(page, blocks):
    problems = []
    included = LIB_RS.read_text()
    rel = page.relative_to(ROOT).as_posix()
    for block in blocks:
        illustration = "illustration" in block.flags
        first = next((line for line in block.lines if line.strip()), "")
        if block.lang == "console" and not illustration:
            problems += check_console(block)
        elif block.lang == "rust" and f'include_str!("../../{rel}")' not in included:
            problems.append(f"{block.where()}: a Rust example of a page that wrapper/src/lib.rs "
                            "does not include as doctests")
        elif block.lang in ("text", "") and not illustration and re.match(r"^(sqlite>|\$ )", first):
            problems.append(f"{block.where()}: an example with output that nothing runs: "
                            "write it as ```sql or ```console, or mark it ```text illustration")
    return problems


def main():
    if not (ROOT / "dist" / "session_search.so").exists():
        sys.exit("check_docs: dist/session_search.so is missing; run make build")
    if not (CLI_DIR / "session-search").exists():
        sys.exit("check_docs: target/release/session-search is missing; "
                 "run cargo build --release -p session-search-cli")
    failed = 0
    for page in pages():
        blocks, _ = blocks_and_prose(page)
        problems = check_links(page) + check_sql(page, blocks) + check_blocks(page, blocks)
        name = page.relative_to(ROOT)
        if problems:
            failed += 1
            print(f"FAIL {name}")
            for problem in problems:
                print("    " + problem.replace("\n", "\n    "))
        else:
            runs = len(sql_examples(blocks)) + sum(b.lang == "console" for b in blocks)
            print(f"ok   {name} ({runs} run)")
    print(f"docs: {len(pages()) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
