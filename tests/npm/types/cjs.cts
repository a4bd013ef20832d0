// A CommonJS consumer of the package's types (the "require" condition:
// index.d.ts). Checked by tsc --noEmit.
import Database = require("better-sqlite3");
import sessionSearch = require("sqlite-session-search");

const db: Database.Database = sessionSearch.load(new Database(":memory:"));
const path: string = sessionSearch.getLoadablePath();
db.loadExtension(path);
// @ts-expect-error load takes one connection
sessionSearch.load();
