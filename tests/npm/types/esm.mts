// An ES module consumer of the package's types (the "import" condition:
// index.d.mts), with the drivers' own types. Checked by tsc --noEmit.
import Database from "better-sqlite3";
import { DatabaseSync } from "node:sqlite";
import { getLoadablePath, load, type SqliteDatabase } from "sqlite-session-search";

const path: string = getLoadablePath();

// load returns the connection it was given, with its driver's type.
const db: Database.Database = load(new Database(":memory:"));
db.prepare("SELECT sessions_init()").get();
const sync: DatabaseSync = load(new DatabaseSync(":memory:", { allowExtension: true }));
sync.exec("SELECT sessions_init()");

// Any connection with loadExtension(path), as bun:sqlite's Database.
const duck: SqliteDatabase = { loadExtension(file: string): void { void file; } };
load(duck);
new Database(":memory:").loadExtension(path);

// @ts-expect-error a file name is not a connection
load("agent.db");
// @ts-expect-error an object without loadExtension
load({ prepare() {} });
// @ts-expect-error getLoadablePath takes no platform
getLoadablePath("linux");
