"""The redaction promise, attacked through SQL.

Every synthetic secret shape of tests/secrets/shapes.json is written into
one session as plain-SQL messages, in several placements (prose, a code
fence, CJK text, hard-wrapped, wrapped by textwrap, repeated, inside JSON,
name and value on separate lines), each with unique neighbour words right
before and after it. Then, through sessions_search and sessions_history:

  (a) no 8-character fragment of a secret (whitespace and line breaks inside
      the secret removed, and within each of its pieces) appears in any
      excerpt or in the history text;
  (b) neither the secret, nor any 8-character fragment of it, nor any prefix
      of it (`prefix*`, 3 characters and up), nor a prefix of what follows a
      token start inside it (after punctuation or a line break: `abc*`),
      searched together with a neighbour word, finds the message (a query the function rejects counts
      as no hit; a hit marked "partial" matched the neighbour alone and does
      not count); a fragment or prefix is skipped only when it could match
      the message's text outside the secret, or has no letter or digit;
  (c) each neighbour word still finds the message, and the history still
      shows it.

Each placement is its own test and reports every failure at once, one line
per message. Fragments and prefixes are sampled deterministically (random
generators seeded by shape, placement and secret) to keep the whole file
within about a minute. A last test replays a sample of the same queries
through the sqlite3 shell ($SQLITE3, else `sqlite3` on PATH).

Run with the system Python, whose sqlite3 can load extensions:

    /usr/bin/python3 -m unittest discover -s tests/python -v

Needs dist/session_search.so (make build).
"""

import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import tempfile
import textwrap
import unittest
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTENSION = os.path.join(ROOT, "dist", "session_search")
SHAPES_PATH = os.path.join(ROOT, "tests", "secrets", "shapes.json")

SESSION = "agent:main:secrets"
CALLER = {"caller": SESSION, "visibility": "self"}
FRAGMENT = 8
T0 = 1_700_000_000_000

# Whitespace, or a JSON escape of a line break (`\n`, also escaped again
# when the text sits inside JSON), between two characters of a secret.
SEPARATOR = r"(?:\s|\\+[nrt])"
SEPARATORS = re.compile(SEPARATOR + "+")

FAMILIES = {
    "openai", "anthropic", "github", "gitlab", "slack", "slack-webhook", "aws", "google", "gcp",
    "fcm", "huggingface", "stripe", "npm", "pypi", "sendgrid", "digitalocean", "databricks",
    "shopify", "telegram", "discord", "twilio", "mailgun", "vault", "terraform", "doppler",
    "atlassian", "age", "jwt", "pem", "putty", "kubeconfig", "azure-connstr", "azure-sas",
    "dotnet-connstr", "pgpass", "netrc", "xml", "dotenv", "shell", "yaml", "ini", "toml",
    "json-field", "cli-password", "url-password", "auth-header", "prose-password", "positional",
}


def load_shapes():
    with open(SHAPES_PATH, encoding="utf-8") as f:
        return json.load(f)


def connect(path=":memory:"):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.enable_load_extension(True)
    conn.load_extension(EXTENSION)
    conn.enable_load_extension(False)
    return conn


def pieces(secret):
    """The secret's pieces between whitespace (or escaped line breaks)."""
    return [p for p in SEPARATORS.split(secret) if p]


def squeeze(secret):
    """The secret with whitespace and escaped line breaks removed."""
    return "".join(pieces(secret))


def has_word_char(text):
    return any(c.isalnum() for c in text)


def short(text, n=40):
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------------------
# Neighbour words: pseudo-words of 4 syllables from letters that cannot spell
# "key", "pass", "token", "secret", "auth", "pwd" or "cred", so no pattern
# has a reason to take them for a secret's name or value.

class Words:
    CONSONANTS = "bdfglmnrvz"
    VOWELS = "aeiou"

    def __init__(self, forbidden_text):
        self.rng = random.Random("session-search neighbour words")
        self.forbidden = forbidden_text.lower()
        self.used = set()

    def __call__(self):
        while True:
            word = "".join(self.rng.choice(self.CONSONANTS) + self.rng.choice(self.VOWELS) for _ in range(4))
            if word not in self.used and word not in self.forbidden:
                self.used.add(word)
                return word


FILLER = ("the team reviewed logs and restarted workers before lunch while ops "
          "checked graphs then wrote a short summary for everyone on call").split()


# ---------------------------------------------------------------------------
# Messages

class Message:
    def __init__(self, shape, placement, variant, text, words, content=None, role="user", budget="reduced",
                 hidden=()):
        self.shape = shape
        self.placement = placement
        self.variant = variant
        self.text = text                      # what the message says (its text blocks)
        self.content = text if content is None else content
        self.role = role
        self.words = words                    # neighbour words: [(word, where)]
        self.budget = budget
        self.secrets = shape["secrets"]
        self.hidden = hidden                  # what history adds to the text (`[tool call: bash]`)
        self.id = None

    @property
    def label(self):
        return f"{self.shape['name']} [{self.variant}] #{self.id}"

    @property
    def before(self):
        return self.words[0][0]


def secret_regex(secret):
    return re.compile((SEPARATOR + "*").join(re.escape(c) for c in squeeze(secret)))


class Corpus:
    """One database holding every (shape, placement) message."""

    def __init__(self, shapes):
        self.shapes = shapes
        everything = " ".join(s["text"] + " " + s.get("split", "") for s in shapes) + " " + " ".join(FILLER)
        self.word = Words(everything)
        self.messages = []
        for shape in shapes:
            self.place(shape)
        self.place_controls()
        self.conn = connect()
        self.conn.execute("SELECT sessions_init()")
        self.conn.execute("INSERT INTO sessions(session_key, agent_id, created_at) VALUES (?, 'main', 0)", (SESSION,))
        self.conn.execute("BEGIN")
        for i, m in enumerate(self.messages):
            cur = self.conn.execute(
                "INSERT INTO messages(session_key, role, content, created_at) VALUES (?, ?, ?, ?)",
                (SESSION, m.role, m.content, T0 + 1000 * i))
            m.id = cur.lastrowid
        self.conn.execute("COMMIT")
        self.by_id = {m.id: m for m in self.messages}
        self.regexes = {}
        for m in self.messages:
            self.analyse(m)

    # -- placements --------------------------------------------------------

    def add(self, shape, placement, variant, build, **kw):
        """build(b, a) -> the text, with b and a two fresh neighbour words."""
        b, a = self.word(), self.word()
        text = build(b, a)
        role = "user" if len(self.messages) % 2 == 0 else "assistant"
        m = Message(shape, placement, variant, text, [(b, "before"), (a, "after")], role=role, **kw)
        self.messages.append(m)
        return m

    def place(self, shape):
        t = shape["text"]
        self.add(shape, "prose", "prose",
                 lambda b, a: f"Yesterday I pasted {b} {t} {a} into the deploy notes by mistake, can you check?",
                 budget="full")
        self.add(shape, "fence", "fence",
                 lambda b, a: f"This is what I ran, {b}\n```sh\n{t}\n```\n{a} and it printed nothing.")
        # CJK around it, with spaces and glued to it
        self.add(shape, "cjk", "cjk-zh-spaced", lambda b, a: f"昨天我们在服务器上配置了 {b} {t} {a} 然后重启了服务。")
        self.add(shape, "cjk", "cjk-zh-tight", lambda b, a: f"昨天我们在服务器上配置了{b}：{t}，然后{a}重启了服务。")
        self.add(shape, "cjk", "cjk-ja-spaced", lambda b, a: f"昨日 サーバーに {b} {t} {a} を設定しました。")
        self.add(shape, "cjk", "cjk-ja-tight", lambda b, a: f"昨日サーバーに{b}の{t}を設定して、{a}を再起動しました。")
        self.place_boundary(shape)
        # Hard-wrapped: every secret value broken into lines
        longest = max(len(squeeze(s)) for s in shape["secrets"])
        for width, newline, indent in ((4, "\n", ""), (8, "\n", ""), (60, "\n", ""), (8, "\r\n", ""),
                                       (4, "\n", "    "), (60, "\r\n", "  ")):
            if longest <= width:
                continue
            wrapped = t
            for s in shape["secrets"]:
                flat = squeeze(s)
                lines = [flat[i:i + width] for i in range(0, len(flat), width)]
                wrapped = wrapped.replace(s, (newline + indent).join(lines))
            name = f"wrap-{width}" + ("-crlf" if newline == "\r\n" else "") + ("-indent" if indent else "")
            self.add(shape, "wrapped", name,
                     lambda b, a, w=wrapped: f"Copied from the terminal: {b} {w} {a} end of output.")
        self.add(shape, "fill", "textwrap-60", lambda b, a: textwrap.fill(
            f"Notes from the incident call: {b} {t} {a} and then we rotated everything before the weekend.",
            width=60, break_long_words=True))
        self.add(shape, "repeated", "repeated-3",
                 lambda b, a: f"{b} {t} then again {t} and once more {t} {a}")
        m = self.add(shape, "json", "json-blocks", lambda b, a: f"{b} {t} {a}")
        m.content = json.dumps([{"type": "text", "text": m.text}], ensure_ascii=False)
        m = self.add(shape, "json", "json-blocks-with-tool", lambda b, a: f"Running it now {b}\n{t} {a}",
                     hidden=("[tool call: bash]",))
        first, second = m.text.split("\n", 1)
        m.role = "assistant"
        m.content = json.dumps([
            {"type": "text", "text": first},
            {"type": "tool_use", "id": "toolu_01", "name": "bash", "input": {"command": f"echo {t}"}},
            {"type": "text", "text": second},
        ], ensure_ascii=False)
        self.add(shape, "json", "json-object-in-text", lambda b, a: "{} the tool returned {} {}".format(
            b, json.dumps({"exit_code": 0, "stdout": t}, indent=2, ensure_ascii=False), a))
        if "split" in shape:
            split = shape["split"]
            self.add(shape, "split", "split", lambda b, a: f"Here it is {b}\n{split}\n{a} thanks", budget="full")
            self.add(shape, "split", "split-fence", lambda b, a: f"{b}\n```\n{split}\n```\n{a}")

    def place_boundary(self, shape):
        """Neighbour words at several distances before and after the secret."""
        t = shape["text"]
        distances = (1, 12, 40, 120)
        rng = random.Random("boundary " + shape["name"])

        def side(words):
            out = []          # from the secret outwards
            length = 0
            for d, w in zip(distances, words):
                while length + 1 < d:
                    f = rng.choice(FILLER)
                    out.append(f)
                    length += len(f) + 1
                out.append(w)
                length += len(w) + 1
            return out

        before = [self.word() for _ in distances]
        after = [self.word() for _ in distances]
        text = " ".join(reversed(side(before))) + " " + t + " " + " ".join(side(after))
        role = "user" if len(self.messages) % 2 == 0 else "assistant"
        words = [(w, f"{d} before") for d, w in zip(distances, before)] + \
                [(w, f"{d} after") for d, w in zip(distances, after)]
        self.messages.append(Message(shape, "boundary", "boundary", text, words, role=role))

    def place_controls(self):
        """Random words no redactor knows as secrets: the harness must report them."""
        rng = random.Random("controls")
        for i in range(2):
            value = "".join(rng.choice("bcdfghjkmnpqrstvwxz23456789") for _ in range(16))
            shape = {"name": f"control-{i}", "family": "control", "text": value, "secrets": [value]}
            self.add(shape, "control", "control", lambda b, a: f"The word of the day {b} {value} {a} is here",
                     budget="full")

    # -- what each message holds ------------------------------------------

    def analyse(self, m):
        """Where each secret lies in the text, the text outside the secrets
        (their spans replaced by [REDACTED]), its tokens, and the fragments
        that would reveal a secret."""
        searchable = m.text
        spans = []
        for s in m.secrets:
            rx = self.regexes.get(s) or self.regexes.setdefault(s, secret_regex(s))
            spans += [(x.start(), x.end(), s) for x in rx.finditer(searchable)]
        if not spans:
            raise AssertionError(f"harness bug: no secret found in {m.label}")
        spans.sort()
        outside, at = [], 0
        for start, end, _ in spans:
            outside.append(searchable[at:start] if start >= at else "")
            outside.append(" [REDACTED] ")
            at = max(at, end)
        outside.append(searchable[at:])
        m.outside = "".join(outside) + " " + " ".join(m.hidden)
        m.outside_lower = m.outside.lower()
        m.outside_squeezed = re.sub(SEPARATOR, "", m.outside).lower()
        m.outside_tokens = self.tokens(m.outside)
        # Token starts inside each secret: after punctuation in the secret,
        # or after a line break / space in the message (wrapping).
        m.starts = {}
        for s in m.secrets:
            flat = squeeze(s)
            starts = {j for j in range(1, len(flat)) if flat[j].isalnum() and not flat[j - 1].isalnum()}
            for start, end, s2 in spans:
                if s2 != s:
                    continue
                j, i, sep, chunk = 0, 0, False, searchable[start:end]
                while i < len(chunk):
                    c = chunk[i]
                    if c.isspace():
                        i, sep = i + 1, True
                    elif c == "\\":
                        while i < len(chunk) and chunk[i] == "\\":
                            i += 1
                        i, sep = i + 1, True      # past the n, r or t of the escape
                    else:
                        if sep and 0 < j < len(flat):
                            starts.add(j)
                        j, i, sep = j + 1, i + 1, False
            m.starts[s] = sorted(starts)
        m.fragments = {}
        for s in m.secrets:
            flat = squeeze(s)
            grams = {flat[i:i + FRAGMENT] for i in range(len(flat) - FRAGMENT + 1)}
            for p in pieces(s):
                grams |= {p[i:i + FRAGMENT] for i in range(len(p) - FRAGMENT + 1)}
            m.fragments[s] = {g for g in grams if g.lower() not in m.outside_lower
                              and g.lower() not in m.outside_squeezed}

    def tokens(self, text):
        row = self.conn.execute("SELECT sessions_tokenize(?, 'cjk 1')", (text,)).fetchone()
        return [t["token"] for t in json.loads(row[0])]

    def could_match_outside(self, m, term):
        """Whether the query term (a word, `prefix*`) can match the message's
        text outside its secrets: by the brief's rule (it appears there,
        case-insensitively) or by its tokens (the same tokens in a row, the
        last one as a prefix for `prefix*`)."""
        prefix = term.endswith("*")
        raw = term.rstrip("*")
        if raw.lower() in m.outside_lower:
            return True
        q = self.tokens(raw)
        if not q:
            return True
        toks = m.outside_tokens
        n = len(q)
        for i in range(len(toks) - n + 1):
            last = toks[i + n - 1]
            if toks[i:i + n - 1] == q[:-1] and (last.startswith(q[-1]) if prefix else last == q[-1]):
                return True
        return False

    # -- leaks ---------------------------------------------------------------

    def leaked(self, m, output):
        """The secret characters `output` shows: [(secret, shown run)], the
        runs merged from the 8-character fragments found."""
        forms = {output, re.sub(r"\s+", "", output), re.sub(SEPARATOR, "", output)}
        grams = set()
        for f in forms:
            grams.update(f[i:i + FRAGMENT] for i in range(len(f) - FRAGMENT + 1))
        found = []
        for s in m.secrets:
            hit = m.fragments[s] & grams
            if not hit:
                continue
            flat = squeeze(s)
            covered = [False] * len(flat)
            for i in range(len(flat) - FRAGMENT + 1):
                if flat[i:i + FRAGMENT] in hit:
                    covered[i:i + FRAGMENT] = [True] * FRAGMENT
            runs, i = [], 0
            while i < len(flat):
                if covered[i]:
                    j = i
                    while j < len(flat) and covered[j]:
                        j += 1
                    runs.append(flat[i:j])
                    i = j
                else:
                    i += 1
            if not runs:   # a fragment only within a piece (not of the squeezed secret)
                runs = sorted(hit)[:1]
            shown = sum(len(r) for r in runs)
            found.append((s, f"{short(max(runs, key=len))!r} ({shown}/{len(flat)} chars)"))
        return found


# ---------------------------------------------------------------------------
# Query plans

FULL = {"fragments": 8, "prefixes": None, "starts": 6}
REDUCED = {"fragments": 3, "prefixes": 3, "starts": 3}
PREFIX_LENGTHS = (3, 4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 64, 96)


class Query:
    __slots__ = ("message", "kind", "text", "options", "secret")

    def __init__(self, message, kind, text, options, secret=None):
        self.message, self.kind, self.text, self.options, self.secret = message, kind, text, options, secret


def search_options(**extra):
    return json.dumps({**CALLER, **extra})


def attack_queries(corpus, m):
    """(b): the queries that must not find message m."""
    budget = FULL if m.budget == "full" else REDUCED
    out = []
    opts = search_options(limit=25)
    nb = m.before
    for si, s in enumerate(m.secrets):
        flat = squeeze(s)
        rng = random.Random(f"{m.shape['name']}/{m.variant}/{si}")
        whole = " ".join(pieces(s))
        out.append(Query(m, "secret", whole, opts, s))
        out.append(Query(m, "secret+neighbour", f"{nb} {whole}", opts, s))

        def usable(term):
            return has_word_char(term.rstrip("*")) and not corpus.could_match_outside(m, term)

        # 8-character fragments, half starting where a token starts
        starts = set(m.starts[s])
        positions = [i for i in range(len(flat) - FRAGMENT + 1)]
        at_start = [i for i in positions if i in starts]
        others = [i for i in positions if i not in starts]
        k = budget["fragments"]
        chosen = rng.sample(at_start, min(len(at_start), (k + 1) // 2))
        chosen += rng.sample(others, min(len(others), k - len(chosen)))
        for i in sorted(chosen):
            frag = flat[i:i + FRAGMENT]
            if usable(frag):
                out.append(Query(m, "fragment", f"{nb} {frag}", opts, s))
        # prefixes of the secret
        lengths = [n for n in PREFIX_LENGTHS if n < len(flat)] + [len(flat)]
        if budget["prefixes"] is not None:
            lengths = sorted(set([lengths[0]] + rng.sample(lengths[1:], min(len(lengths) - 1, budget["prefixes"] - 1))))
        for n in lengths:
            term = flat[:n] + "*"
            if usable(term):
                out.append(Query(m, "prefix", f"{nb} {term}", opts, s))
        # prefixes of what follows each token start inside the secret
        for j in sorted(rng.sample(sorted(starts), min(len(starts), budget["starts"]))):
            for n in (3, 8):
                if j + n <= len(flat):
                    term = flat[j:j + n] + "*"
                    if usable(term):
                        out.append(Query(m, "inner-prefix", f"{nb} {term}", opts, s))
    return out


def neighbour_queries(m):
    """(c): each neighbour word must find m (and (a) on its excerpts)."""
    if m.placement == "boundary":
        return [Query(m, f"neighbour {where}", w, search_options(snippetChars=n))
                for w, where in m.words for n in (16, 40, 100, 220)]
    return [Query(m, f"neighbour {where}", w, search_options()) for w, where in m.words]


def history_options(m):
    return json.dumps({**CALLER, "around": m.id, "before": 0, "after": 0, "maxChars": 20000})


# ---------------------------------------------------------------------------
# Running and judging

class Findings:
    """Failures per message, reported as one line each."""

    def __init__(self):
        self.by_message = defaultdict(lambda: defaultdict(list))

    def add(self, m, check, detail):
        self.by_message[m][check].append(detail)

    def report(self, placement, total):
        if not self.by_message:
            return None
        counts = Counter()
        lines = []
        for m in sorted(self.by_message, key=lambda m: m.id):
            checks = self.by_message[m]
            parts = []
            for check in ("a", "b", "c"):
                details = checks.get(check)
                if not details:
                    continue
                counts[check] += 1
                uniq = list(dict.fromkeys(details))
                more = f" (+{len(uniq) - 3} more)" if len(uniq) > 3 else ""
                parts.append(f"({check}) " + "; ".join(uniq[:3]) + more)
            lines.append(f"  {m.label}: " + " | ".join(parts))
        head = (f"{placement}: {len(self.by_message)} of {total} messages fail — "
                f"(a) shown: {counts['a']}, (b) searchable: {counts['b']}, (c) neighbour lost: {counts['c']}")
        return head + "\n" + "\n".join(lines)


def judge_search(corpus, q, answer, findings, check_hits=True):
    """answer: the decoded JSON, or an Exception for a rejected query."""
    m = q.message
    if isinstance(answer, Exception):
        if q.kind.startswith("neighbour"):
            findings.add(m, "c", f"{q.text!r} failed: {answer}")
        return
    hits = answer.get("results", [])
    for r in hits:
        other = corpus.by_id.get(r.get("id"))
        if other is None or other.placement != m.placement:
            continue
        for s, run in corpus.leaked(other, r.get("snippet", "")):
            where = f"snippet of {q.text[:60]!r}"
            if "snippetChars" in q.options:
                where += f" (snippetChars {json.loads(q.options)['snippetChars']})"
            findings.add(other, "a", f"{where} shows {run}")
    ids = {r.get("id") for r in hits if not r.get("partial")}
    if q.kind.startswith("neighbour"):
        if m.id not in {r.get("id") for r in hits}:
            findings.add(m, "c", f"{q.kind} {q.text!r} does not find it")
    elif check_hits and m.id in ids:
        findings.add(m, "b", f"{q.kind} {short(q.text, 50)!r} finds it")


def judge_history(corpus, m, answer, findings):
    if isinstance(answer, Exception):
        findings.add(m, "c", f"history failed: {answer}")
        return
    msgs = [x for x in answer.get("messages", []) if x.get("id") == m.id]
    if not msgs:
        findings.add(m, "c", "history does not return the message")
        return
    text = msgs[0].get("text", "")
    for s, run in corpus.leaked(m, text):
        findings.add(m, "a", f"history shows {run}")
    for w, where in m.words:
        if w not in text:
            findings.add(m, "c", f"history no longer shows the neighbour {w!r} ({where})")


def run_search(conn, q):
    try:
        row = conn.execute("SELECT sessions_search(?, ?)", (q.text, q.options)).fetchone()
        return json.loads(row[0])
    except sqlite3.Error as e:
        return e


def run_history(conn, m):
    try:
        row = conn.execute("SELECT sessions_history(?, ?)", (SESSION, history_options(m))).fetchone()
        return json.loads(row[0])
    except sqlite3.Error as e:
        return e


_CORPUS = None


def corpus():
    global _CORPUS
    if _CORPUS is None:
        _CORPUS = Corpus(load_shapes())
    return _CORPUS


def setUpModule():
    if not os.path.exists(EXTENSION + ".so"):
        raise unittest.SkipTest("dist/session_search.so is missing; run make build")
    corpus()


class ShapesFileTest(unittest.TestCase):
    """The corpus itself is well formed."""

    def test_shapes_are_well_formed(self):
        shapes = load_shapes()
        self.assertGreaterEqual(len(shapes), 110)
        names = [s["name"] for s in shapes]
        self.assertEqual(len(names), len(set(names)), "shape names are unique")
        for s in shapes:
            with self.subTest(shape=s["name"]):
                self.assertLessEqual(set(s), {"name", "family", "text", "secrets", "split"})
                self.assertIn(s["family"], FAMILIES)
                self.assertTrue(s["secrets"])
                for secret in s["secrets"]:
                    self.assertGreaterEqual(len(secret), 10)
                    self.assertIn(secret, s["text"])
                    if "split" in s:
                        self.assertIn(secret, s["split"])
                    self.assertFalse(set(squeeze(secret)) & set('"*'), "no quote or star inside a secret")
        self.assertEqual({s["family"] for s in shapes}, FAMILIES, "every family has shapes")


class RedactionTest(unittest.TestCase):
    """(a), (b), (c) per placement."""

    maxDiff = None

    def check_placement(self, placement):
        c = corpus()
        findings = Findings()
        messages = [m for m in c.messages if m.placement == placement]
        self.assertTrue(messages)
        for m in messages:
            judge_history(c, m, run_history(c.conn, m), findings)
            for q in neighbour_queries(m):
                judge_search(c, q, run_search(c.conn, q), findings)
            for q in attack_queries(c, m):
                judge_search(c, q, run_search(c.conn, q), findings)
        return findings, len(messages)

    def assertPlacement(self, placement):
        findings, total = self.check_placement(placement)
        report = findings.report(placement, total)
        if report:
            self.fail("\n" + report)

    def test_prose(self):
        self.assertPlacement("prose")

    def test_code_fence(self):
        self.assertPlacement("fence")

    def test_cjk(self):
        self.assertPlacement("cjk")

    def test_excerpt_boundaries(self):
        self.assertPlacement("boundary")

    def test_hard_wrapped(self):
        self.assertPlacement("wrapped")

    def test_textwrap_fill(self):
        self.assertPlacement("fill")

    def test_repeated(self):
        self.assertPlacement("repeated")

    def test_json(self):
        self.assertPlacement("json")

    def test_split_name_and_value(self):
        self.assertPlacement("split")

    def test_harness_reports_unredacted_words(self):
        """Control: random words no redactor treats as secrets are shown and
        found, so the harness reports them under (a) and (b) — and their
        neighbours are found, so (c) holds."""
        findings, total = self.check_placement("control")
        self.assertEqual(total, 2)
        for m in (m for m in corpus().messages if m.placement == "control"):
            checks = findings.by_message.get(m, {})
            self.assertIn("a", checks, f"the harness missed the shown control word of {m.label}")
            self.assertIn("b", checks, f"the harness missed the searchable control word of {m.label}")
            self.assertNotIn("c", checks, f"{m.label}: {checks.get('c')}")


class ShellTest(unittest.TestCase):
    """A sample of the same queries through the sqlite3 shell binary, on a
    temp-file copy of the database."""

    SAMPLE_QUERIES = 400
    SAMPLE_HISTORY = 60

    def test_sqlite3_shell_agrees(self):
        shell = shutil.which(os.environ.get("SQLITE3", "sqlite3"))
        if not shell:
            self.skipTest("no sqlite3 shell (set SQLITE3 or install sqlite3)")
        c = corpus()
        rng = random.Random("shell sample")
        attackable = [m for m in c.messages if m.placement != "control"]
        queries = []
        for m in rng.sample(attackable, min(len(attackable), self.SAMPLE_QUERIES // 4)):
            queries += rng.sample(attack_queries(c, m), 3) if len(attack_queries(c, m)) >= 3 else attack_queries(c, m)
            queries += neighbour_queries(m)[:1]
        histories = rng.sample(attackable, self.SAMPLE_HISTORY)

        def lit(text):
            return "'" + text.replace("'", "''") + "'"

        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "secrets.db")
            dest = sqlite3.connect(path)
            c.conn.backup(dest)
            dest.close()
            script = [f'.load "{EXTENSION}"', ".mode list", ".separator \"\\t\""]
            for i, q in enumerate(queries):
                script.append(f"SELECT 'q{i}', sessions_search({lit(q.text)}, {lit(q.options)});")
            for i, m in enumerate(histories):
                script.append(f"SELECT 'h{i}', sessions_history({lit(SESSION)}, {lit(history_options(m))});")
            run = subprocess.run([shell, "-batch", path], input="\n".join(script) + "\n",
                                 capture_output=True, text=True, timeout=300)
        answers = {}
        for line in run.stdout.splitlines():
            tag, _, payload = line.partition("\t")
            answers[tag] = json.loads(payload)
        errors = [e for e in run.stderr.splitlines() if e.strip()]
        self.assertFalse([e for e in errors if "sessions_search" not in e and "sessions_history" not in e],
                         f"the shell failed: {run.stderr[:2000]}")
        self.assertGreater(len(answers), 0, run.stderr[:2000])
        findings = Findings()
        for i, q in enumerate(queries):
            judge_search(c, q, answers.get(f"q{i}", sqlite3.Error("rejected")), findings)
        for i, m in enumerate(histories):
            judge_history(c, m, answers.get(f"h{i}", sqlite3.Error("rejected")), findings)
        # The Python answers to the same calls, for comparison.
        same = Findings()
        for q in queries:
            judge_search(c, q, run_search(c.conn, q), same)
        for m in histories:
            judge_history(c, m, run_history(c.conn, m), same)
        report = findings.report(f"sqlite3 shell ({len(queries)} searches, {len(histories)} histories)",
                                 len({q.message.id for q in queries} | {m.id for m in histories}))
        if report:
            agree = {m.id for m in findings.by_message} == {m.id for m in same.by_message}
            self.fail("\n" + report + ("\n  (the Python connection reports the same messages)" if agree else
                                       "\n  (the Python connection reports different messages!)"))


if __name__ == "__main__":
    unittest.main()
