// The installed package with node:sqlite, run by tests/npm/run.sh under Node
// binaries from the npm registry (tests/npm/tools): the oldest release whose
// node:sqlite has FTS5 (22.16.0), and the one before it (22.15.0), which can
// load extensions but has no FTS5, for the error that says so.

import assert from "node:assert/strict";
import test from "node:test";
import { DatabaseSync } from "node:sqlite";
import { getLoadablePath, load } from "sqlite-session-search";

const [major, minor] = process.versions.node.split(".").map(Number);
const hasFts5 = major >= 24 || (major === 22 && minor >= 16);
const withFts5 = { skip: !hasFts5 && `node:sqlite of Node ${process.versions.node} has no FTS5` };
const withoutFts5 = { skip: hasFts5 && `node:sqlite of Node ${process.versions.node} has FTS5` };

test("this Node's node:sqlite is what the test expects of it", () => {
  const db = new DatabaseSync(":memory:");
  const options = db.prepare("PRAGMA compile_options").all().map((row) => row.compile_options);
  assert.equal(options.includes("ENABLE_FTS5"), hasFts5, `Node ${process.versions.node}: ${options.join(" ")}`);
  db.close();
});

test("node:sqlite with allowExtension: load(db), write a transcript, search it", withFts5, () => {
  const db = new DatabaseSync(":memory:", { allowExtension: true });
  assert.equal(load(db), db);
  db.prepare("SELECT sessions_init()").get();
  db.prepare("INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES (?, ?, NULL, ?)")
    .run("agent:main:node-sqlite:1", "main", 1700000000000);
  db.prepare("INSERT INTO messages(session_key, role, content, created_at, message_id) VALUES (?, ?, ?, ?, ?)")
    .run("agent:main:node-sqlite:1", "assistant",
      JSON.stringify([{ type: "text", text: "The 東京 replica finished its Straße migration" }]),
      1700000000002, "a-1");
  const search = (query) => JSON.parse(db.prepare("SELECT sessions_search(?, ?) AS r")
    .get(query, JSON.stringify({ caller: "agent:main:node-sqlite:1" })).r);
  const found = search("strasse migration");
  assert.equal(found.results.length, 1);
  const [hit] = found.results;
  assert.ok(hit.score > 0);
  delete hit.score;
  assert.deepEqual(found, {
    results: [{
      sessionKey: "agent:main:node-sqlite:1",
      messageId: "a-1",
      id: 1,
      role: "assistant",
      timestamp: 1700000000002,
      snippet: "The 東京 replica finished its Straße migration",
    }],
    // Fewer full matches than the limit: what each word matched.
    terms: [{ term: "strasse", messages: 1 }, { term: "migration", messages: 1 }],
  });
  assert.deepEqual(search("東京").results.map((r) => r.messageId), ["a-1"]);
  assert.deepEqual(search("backup").results, []);
  db.close();
});

test("node:sqlite without allowExtension: an error telling how to open it", () => {
  const db = new DatabaseSync(":memory:");
  assert.throws(() => load(db), (e) => {
    assert.match(e.message, /does not allow extensions/);
    assert.match(e.message, /new DatabaseSync\(path, \{ allowExtension: true \}\)/);
    assert.equal(e.cause.code, "ERR_INVALID_STATE");
    return true;
  });
  db.close();
});

test("node:sqlite after enableLoadExtension(false): the same advice", () => {
  const db = new DatabaseSync(":memory:", { allowExtension: true });
  db.enableLoadExtension(false);
  assert.throws(() => load(db), /allowExtension: true.*enableLoadExtension\(false\)/);
  db.close();
});

test("node:sqlite without FTS5: an error naming FTS5 and the Node that has it", withoutFts5, () => {
  const db = new DatabaseSync(":memory:", { allowExtension: true });
  assert.throws(() => load(db), (e) => {
    assert.match(e.message, /needs SQLite's FTS5, and this connection's SQLite 3\.[0-9.]+ is built without it/);
    assert.match(e.message, /node:sqlite has FTS5 from Node 22\.16 and 24\.0 on; this is Node 22\.15\.0/);
    assert.equal(e.cause.code, "ERR_LOAD_SQLITE_EXTENSION");
    return true;
  });
  db.close();
});

test("getLoadablePath: the same file node:sqlite can load itself", withFts5, () => {
  const db = new DatabaseSync(":memory:", { allowExtension: true });
  db.loadExtension(getLoadablePath());
  assert.match(db.prepare("SELECT sessions_version() AS v").get().v, /"version":"0\.1\.0"/);
  db.close();
});
