// The extension loaded into Node's better-sqlite3 (which bundles its own,
// newer SQLite), as a Node host would use it.
//
// 1. tests/scenarios/search.sql, run statement by statement, prints exactly
//    what the sqlite3 shell and /usr/bin/python3 print for it. The Rust test
//    wrapper/tests/cross_language.rs holds Rust to the same shell and Python
//    output, so all four languages answer byte-identical JSON.
// 2. A transcript written with prepared statements and bound values: content
//    blocks, a spawned sub-session, a rewind by `UPDATE sessions SET leaf_id = ?`.
// 3. A bad call surfaces as a JavaScript exception that says what is wrong.
//
// Run from the repository root after `make build`: `make test-node`, or
// `node --test tests/node/` once tests/node/node_modules is installed.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import test from "node:test";
import Database from "better-sqlite3";

const root = fileURLToPath(new URL("../..", import.meta.url));
const scenarioPath = join(root, "tests/scenarios/search.sql");
const SQLITE3 = process.env.SQLITE3 || "sqlite3";
const PYTHON = process.env.PYTHON || "/usr/bin/python3";

function open() {
  const db = new Database(":memory:");
  db.loadExtension(join(root, "dist/session_search.so"));
  return db;
}

// The statements of a script, split at semicolons outside quotes and
// comments (enough for the scenario, which has no triggers).
function statements(sql) {
  const out = [];
  let start = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    let end = i;
    if (c === "'" || c === '"') end = sql.indexOf(c, i + 1);
    else if (sql.startsWith("--", i)) end = sql.indexOf("\n", i);
    else if (sql.startsWith("/*", i)) end = sql.indexOf("*/", i + 2);
    else if (c === ";") {
      out.push(sql.slice(start, i + 1));
      start = i + 1;
    }
    if (end < 0) throw new Error(`unterminated quote or comment after: ${sql.slice(start, start + 80)}`);
    i = end;
  }
  assert.equal(sql.slice(start).replace(/--.*$/gm, "").trim(), "", "text after the last statement");
  return out;
}

// Each row a line, columns joined by '|', as the sqlite3 shell prints them.
function runNode(sql) {
  const db = open();
  const lines = [];
  for (const text of statements(sql)) {
    const stmt = db.prepare(text);
    if (!stmt.reader) stmt.run();
    else for (const row of stmt.raw().all()) lines.push(row.map((v) => v ?? "").join("|"));
  }
  db.close();
  return lines;
}

function runProcess(command, args, input) {
  const result = spawnSync(command, args, { cwd: root, input, encoding: "utf8", maxBuffer: 64 << 20 });
  assert.ifError(result.error);
  assert.equal(result.stderr, "", `${command} wrote to stderr`);
  assert.equal(result.status, 0, `${command} exited with ${result.status}`);
  return result.stdout.split("\n").slice(0, -1);
}

test("the shared scenario prints the same JSON as the sqlite3 shell and Python", () => {
  const sql = readFileSync(scenarioPath, "utf8");
  const node = runNode(sql);
  const shell = runProcess(SQLITE3, ["-batch", "-bail", "-cmd", ".load dist/session_search", ":memory:"], sql);
  const python = runProcess(PYTHON, ["tests/scenarios/run_scenario.py", scenarioPath]);
  const selects = sql.split("\n").filter((line) => line.startsWith("SELECT ")).length;
  assert.ok(selects >= 50, `the scenario has ${selects} SELECTs`);
  assert.equal(node.length, selects, "one line per SELECT from Node");
  assert.deepEqual(node, shell, "Node and the sqlite3 shell differ");
  assert.deepEqual(node, python, "Node and Python differ");
  assert.ok(node.some((line) => line.includes("東京") && line.includes('"score":')));
});

test("a transcript written from Node: content blocks, a sub-session, a rewind", () => {
  const db = open();
  db.prepare("SELECT sessions_init()").get();
  const addSession = db.prepare(
    "INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES (?, ?, ?, ?)",
  );
  const addMessage = db.prepare(
    "INSERT INTO messages(session_key, role, content, created_at, message_id) VALUES (?, ?, ?, ?, ?)",
  );
  const main = "agent:ops:node:1";
  const sub = "agent:ops:sub:backup";
  const t = 1700000000000;
  db.transaction(() => {
    addSession.run(main, "ops", null, t);
    addSession.run(sub, "ops", main, t + 500);
    addMessage.run(main, "user", "Please migrate the staging database tonight.", t + 1, "n-1");
    addMessage.run(main, "assistant", JSON.stringify([
      { type: "thinking", thinking: "check the replicas first" },
      { type: "text", text: "Starting the blue-green cutover now." },
      { type: "tool_use", id: "call_1", name: "bash", input: { command: "./migrate.sh" } },
    ]), t + 2, "n-2");
    addMessage.run(sub, "assistant", "Backups of the Straße cluster in 東京 are verified.", t + 501, "s-1");
  })();

  // Rewind to the first message and take another branch: n-2 leaves it.
  const first = db.prepare("SELECT id FROM messages WHERE message_id = ?").pluck().get("n-1");
  db.prepare("UPDATE sessions SET leaf_id = ? WHERE session_key = ?").run(first, main);
  addMessage.run(main, "assistant", JSON.stringify([
    { type: "text", text: "Running a rolling migration instead; 東京 goes first." },
  ]), t + 3, "n-3");

  const call = (fn, arg, options) =>
    JSON.parse(db.prepare(`SELECT ${fn}(?, ?)`).pluck().get(arg, JSON.stringify(options)));
  const ids = (query, options) => call("sessions_search", query, options).results.map((r) => r.messageId);

  assert.deepEqual(ids("blue-green cutover", { caller: main }), []);
  assert.deepEqual(ids("replicas", { caller: main }), []);
  assert.deepEqual(ids("rolling migration", { caller: main }), ["n-3", "n-1"]);
  // n-1 holds only another form of one word (migrate): a partial match.
  const rolling = call("sessions_search", "rolling migration", { caller: main });
  assert.deepEqual(rolling.results.map((r) => [r.partial ?? false, r.matched ?? []]), [
    [false, []],
    [true, ["migration"]],
  ]);
  assert.deepEqual(ids("東京", { caller: main, order: "recent" }), ["s-1", "n-3"]);
  assert.deepEqual(ids("strasse", { caller: main }), ["s-1"]);
  assert.deepEqual(ids("strasse", { caller: main, visibility: "self" }), []);
  assert.deepEqual(ids("strasse", { caller: sub }), ["s-1"]);
  assert.deepEqual(ids("migrate", { caller: sub }), [], "a sub-session does not see its parent");

  const history = call("sessions_history", main, { caller: main });
  assert.deepEqual(history.messages.map((m) => [m.messageId, m.role, m.text]), [
    ["n-1", "user", "Please migrate the staging database tonight."],
    ["n-3", "assistant", "Running a rolling migration instead; 東京 goes first."],
  ]);
  db.close();
});

test("an unknown caller is an exception naming it", () => {
  const db = open();
  db.prepare("SELECT sessions_init()").get();
  const search = db.prepare("SELECT sessions_search(?, ?)");
  assert.throws(() => search.get("deploy", JSON.stringify({ caller: "agent:nobody:1" })), {
    name: "SqliteError",
    code: "SQLITE_ERROR",
    message: 'sessions_search: caller "agent:nobody:1" names no session',
  });
  assert.throws(() => search.get("deploy", "{}"), /caller/);
  db.close();
});
