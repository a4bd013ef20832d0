// The npm package as a project installs it: tests/npm/run.sh packs it,
// installs the tarball into a scratch project and runs this file there, so
// "sqlite-session-search" resolves to the installed copy. better-sqlite3 is
// tests/node's build, linked into the scratch project's node_modules.
//
// SESSION_SEARCH_ROOT is the repository, SESSION_SEARCH_TARBALL the tarball.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join } from "node:path";
import test from "node:test";
import Database from "better-sqlite3";
import { getLoadablePath, load } from "sqlite-session-search";

const require = createRequire(import.meta.url);
const root = process.env.SESSION_SEARCH_ROOT;
const tarball = process.env.SESSION_SEARCH_TARBALL;
assert.ok(root && tarball, "run by tests/npm/run.sh (SESSION_SEARCH_ROOT, SESSION_SEARCH_TARBALL)");
const installed = join(process.cwd(), "node_modules", "sqlite-session-search");
const manifest = require("sqlite-session-search/package.json");

test("the tarball holds the package files and the extension, nothing else", () => {
  const entries = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n").sort();
  assert.deepEqual(entries, [
    "package/README.md",
    "package/index.d.mts",
    "package/index.d.ts",
    "package/index.js",
    "package/index.mjs",
    "package/package.json",
    "package/session_search.so",
  ]);
});

test("package.json: version of the Rust workspace, license, platform", () => {
  const cargo = readFileSync(join(root, "Cargo.toml"), "utf8");
  const workspaceVersion = cargo.match(/\[workspace\.package\][^[]*?\nversion = "([^"]+)"/)[1];
  assert.equal(manifest.name, "sqlite-session-search");
  assert.equal(manifest.version, workspaceVersion);
  assert.equal(manifest.license, "MIT OR Apache-2.0");
  assert.deepEqual([manifest.os, manifest.cpu, manifest.libc], [["linux"], ["x64"], ["glibc"]]);
});

test("getLoadablePath: the installed copy of the built extension", () => {
  const file = getLoadablePath();
  assert.ok(isAbsolute(file), file);
  assert.equal(realpathSync(file), realpathSync(join(installed, "session_search.so")));
  assert.ok(
    readFileSync(file).equals(readFileSync(join(root, "dist/session_search.so"))),
    "the packed extension is dist/session_search.so",
  );
});

test("the packed extension needs glibc 2.34 at most (docs/node.md)", () => {
  const symbols = execFileSync("objdump", ["-T", getLoadablePath()], { encoding: "utf8", maxBuffer: 64 << 20 });
  const versions = [...new Set(symbols.match(/GLIBC_[0-9.]+/g))].map((v) => v.slice(6).split(".").map(Number));
  assert.ok(versions.length > 0);
  const newest = versions.reduce((a, b) => (a[0] - b[0] || a[1] - b[1]) > 0 ? a : b);
  assert.ok(newest[0] === 2 && newest[1] <= 34, `needs GLIBC_${newest.join(".")}`);
});

test("ES module and CommonJS entry points are the same functions", () => {
  const cjs = require("sqlite-session-search");
  assert.deepEqual(Object.keys(cjs).sort(), ["getLoadablePath", "load"]);
  assert.equal(cjs.load, load);
  assert.equal(cjs.getLoadablePath, getLoadablePath);
  assert.equal(require.resolve("sqlite-session-search"), realpathSync(join(installed, "index.js")));
});

test("better-sqlite3: load(db), write a transcript, search it", () => {
  const db = new Database(":memory:");
  assert.equal(load(db), db, "load returns the connection");
  const version = JSON.parse(db.prepare("SELECT sessions_version()").pluck().get());
  assert.equal(version.version, manifest.version, "the extension's version is the package's");

  db.prepare("SELECT sessions_init()").get();
  db.prepare("INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES (?, ?, NULL, ?)")
    .run("agent:main:npm:1", "main", 1700000000000);
  db.prepare("INSERT INTO messages(session_key, role, content, created_at, message_id) VALUES (?, ?, ?, ?, ?)")
    .run("agent:main:npm:1", "user", "Deploy the Straße branch to staging in 東京 tonight", 1700000000001, "m-1");

  const search = (query) =>
    JSON.parse(db.prepare("SELECT sessions_search(?, ?)").pluck().get(query, JSON.stringify({ caller: "agent:main:npm:1" })));
  const found = search("strasse staging");
  assert.equal(found.results.length, 1);
  const [hit] = found.results;
  assert.ok(hit.score > 0, `score ${hit.score}`);
  delete hit.score;
  assert.deepEqual(found, {
    results: [{
      sessionKey: "agent:main:npm:1",
      messageId: "m-1",
      id: 1,
      role: "user",
      timestamp: 1700000000001,
      snippet: "Deploy the Straße branch to staging in 東京 tonight",
    }],
    // Fewer full matches than the limit: what each word matched.
    terms: [{ term: "strasse", messages: 1 }, { term: "staging", messages: 1 }],
  });
  assert.deepEqual(search("東京").results.map((r) => r.messageId), ["m-1"]);
  assert.deepEqual(search("production").results, []);
  db.close();
});

test("better-sqlite3: a file database loaded again by a second connection", (t) => {
  const dir = execFileSync("mktemp", ["-d"], { encoding: "utf8" }).trim();
  t.after(() => execFileSync("rm", ["-rf", dir]));
  const file = join(dir, "agent.db");
  const writer = load(new Database(file));
  writer.prepare("SELECT sessions_init()").get();
  writer.prepare("INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('k', 'main', 1)").run();
  writer.prepare("INSERT INTO messages(session_key, role, content, created_at) VALUES ('k', 'assistant', 'rolling restart done', 2)").run();
  writer.close();
  const reader = new Database(file, { readonly: true });
  assert.throws(() => reader.prepare("INSERT INTO messages(session_key, role, content, created_at) VALUES ('k', 'user', 'x', 3)").run());
  load(reader);
  const found = JSON.parse(reader.prepare("SELECT sessions_search('rolling restart', '{\"caller\":\"k\"}')").pluck().get());
  assert.deepEqual(found.results.map((r) => [r.role, r.snippet]), [["assistant", "rolling restart done"]]);
  reader.close();
});

test("load: an object that cannot load extensions is an error saying what to pass", () => {
  const names = /better-sqlite3 Database.*node:sqlite DatabaseSync.*allowExtension: true.*bun:sqlite Database/;
  for (const value of [null, undefined, "agent.db", 42]) {
    assert.throws(() => load(value), (e) => e instanceof TypeError && names.test(e.message), String(value));
  }
  class Pool { query() {} }
  assert.throws(() => load(new Pool()), (e) => e instanceof TypeError && names.test(e.message)
    && /a Pool has none/.test(e.message) && /getLoadablePath\(\)/.test(e.message));
  // The sqlite3 package's Database: loadExtension(path, callback).
  let called = false;
  const callbackStyle = { serialize() {}, parallelize() {}, loadExtension() { called = true; } };
  assert.throws(() => load(callbackStyle), /db\.loadExtension\(getLoadablePath\(\), callback\)/);
  assert.equal(called, false);
});

test("load: a closed better-sqlite3 connection keeps the driver's error", () => {
  const db = new Database(":memory:");
  db.close();
  assert.throws(() => load(db), /not open/);
});

test("load: duck typing, as for bun:sqlite's Database (loadExtension(path))", () => {
  class Database {
    constructor() { this.loaded = []; }
    loadExtension(file, ...rest) { this.loaded.push([file, rest.length]); }
  }
  const db = new Database();
  assert.equal(load(db), db);
  assert.deepEqual(db.loaded, [[getLoadablePath(), 0]]);
});

test("load: node:sqlite of a Node without loadExtension names the Node it needs", () => {
  class DatabaseSync { prepare() {} exec() {} }
  assert.throws(() => load(new DatabaseSync()), /node:sqlite of Node [0-9.]+ cannot load extensions; use Node 22\.16 or newer/);
});
