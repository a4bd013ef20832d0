// The package from CommonJS: require() gets the "require" entry of its
// exports map (index.js), as in a project without "type": "module".
"use strict";
const assert = require("node:assert/strict");
const { realpathSync } = require("node:fs");
const test = require("node:test");
const Database = require("better-sqlite3");
const sessionSearch = require("sqlite-session-search");

test("require: the CommonJS entry point loads into better-sqlite3", () => {
  assert.equal(realpathSync(require.resolve("sqlite-session-search")).endsWith("/sqlite-session-search/index.js"), true);
  const db = sessionSearch.load(new Database(":memory:"));
  db.prepare("SELECT sessions_init()").get();
  db.prepare("INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('s', 'main', 10)").run();
  db.prepare("INSERT INTO messages(session_key, role, content, created_at) VALUES ('s', 'user', ?, 11)")
    .run(JSON.stringify([{ type: "text", text: "where is the café invoice" }]));
  const found = JSON.parse(db.prepare("SELECT sessions_search('cafe invoice', '{\"caller\":\"s\"}')").pluck().get());
  assert.deepEqual(found.results.map((r) => [r.sessionKey, r.role, r.snippet]), [["s", "user", "where is the café invoice"]]);
  db.close();
});
