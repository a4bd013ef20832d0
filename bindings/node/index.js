"use strict";
// sqlite-session-search: the session-search SQLite extension (the `sessions`
// FTS5 tokenizer and the sessions_* SQL functions), bundled as
// session_search.so, with a loader for the SQLite drivers of Node and Bun.

const fs = require("node:fs");
const path = require("node:path");

const NAME = "sqlite-session-search";
const FILE = "session_search.so";

const DRIVERS =
  "a better-sqlite3 Database, a node:sqlite DatabaseSync opened with " +
  "{ allowExtension: true } (Node 22.16 or newer), or a bun:sqlite Database";

// Absolute path of the bundled extension, for a driver's own
// extension-loading call.
function getLoadablePath() {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `${NAME}: the bundled ${FILE} is built for Linux on x86-64 (glibc), ` +
        `not for ${process.platform}-${process.arch}; build session-search ` +
        "from source for this platform and load the file it makes",
    );
  }
  const file = path.join(__dirname, FILE);
  if (!fs.existsSync(file)) {
    throw new Error(`${NAME}: ${file} is missing: the package is incomplete, reinstall it`);
  }
  return file;
}

// Loads the extension into an open connection and returns the connection.
function load(db) {
  if (db === null || (typeof db !== "object" && typeof db !== "function")) {
    throw new TypeError(`${NAME}: load(db) takes a database connection (${DRIVERS}); got ${describe(db)}`);
  }
  if (isNodeSqlite(db)) {
    loadNodeSqlite(db);
    return db;
  }
  if (typeof db.serialize === "function" && typeof db.parallelize === "function") {
    // The `sqlite3` package: its loadExtension works through a callback.
    throw new TypeError(
      `${NAME}: load(db) loads synchronously, and the sqlite3 package's ` +
        "Database loads extensions through a callback: call " +
        "db.loadExtension(getLoadablePath(), callback) instead",
    );
  }
  if (typeof db.loadExtension !== "function") {
    throw new TypeError(
      `${NAME}: load(db) needs a connection with a loadExtension(path) method ` +
        `(${DRIVERS}); ${describe(db)} has none. With another driver, pass ` +
        "getLoadablePath() to its own way of loading a SQLite extension",
    );
  }
  // better-sqlite3 and bun:sqlite enable extension loading themselves.
  const file = getLoadablePath();
  try {
    db.loadExtension(file);
  } catch (error) {
    throw explainFailure(db, error);
  }
  return db;
}

// node:sqlite's DatabaseSync, also on a Node too old to load extensions.
function isNodeSqlite(db) {
  return (
    typeof db.enableLoadExtension === "function" ||
    (db.constructor != null && db.constructor.name === "DatabaseSync")
  );
}

function loadNodeSqlite(db) {
  if (typeof db.loadExtension !== "function") {
    throw new Error(
      `${NAME}: node:sqlite of Node ${process.versions.node} cannot load ` +
        "extensions; use Node 22.16 or newer (24 or newer on the current line), " +
        "or better-sqlite3",
    );
  }
  const file = getLoadablePath();
  try {
    db.loadExtension(file);
  } catch (error) {
    if (error && error.code === "ERR_INVALID_STATE" && /extension/i.test(String(error.message))) {
      throw new Error(
        `${NAME}: this node:sqlite connection does not allow extensions ` +
          `(${error.message}): open it with new DatabaseSync(path, { allowExtension: true }), ` +
          "and do not call enableLoadExtension(false) before load(db)",
        { cause: error },
      );
    }
    throw explainFailure(db, error);
  }
}

// A failed load: when the connection's SQLite has no FTS5, which the
// extension is built on, say so, since SQLite's own message may not.
function explainFailure(db, error) {
  let version;
  try {
    version = db.prepare("SELECT sqlite_version() AS v").get().v;
    db.prepare("SELECT fts5(NULL)").get();
    return error;
  } catch (probe) {
    if (version === undefined || !/no such function: fts5/i.test(String(probe && probe.message))) {
      return error;
    }
  }
  const hint = isNodeSqlite(db)
    ? ` (node:sqlite has FTS5 from Node 22.16 and 24.0 on; this is Node ${process.versions.node})`
    : "";
  return new Error(
    `${NAME}: the extension needs SQLite's FTS5, and this connection's ` +
      `SQLite ${version} is built without it${hint}`,
    { cause: error },
  );
}

function describe(value) {
  if (value === null) return "null";
  if (typeof value !== "object" && typeof value !== "function") return typeof value;
  const name = value.constructor && value.constructor.name;
  return name ? `a ${name}` : "an object";
}

module.exports = { getLoadablePath, load };
