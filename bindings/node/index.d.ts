/**
 * A SQLite connection that can load an extension synchronously:
 * better-sqlite3's `Database`, node:sqlite's `DatabaseSync` (opened with
 * `{ allowExtension: true }`) or bun:sqlite's `Database`.
 */
export interface SqliteDatabase {
  loadExtension(path: string): unknown;
}

/**
 * The absolute path of the bundled extension (`session_search.so`, Linux
 * x86-64, glibc), for a driver's own extension-loading call.
 *
 * @throws Error on another platform, or when the file is missing.
 */
export declare function getLoadablePath(): string;

/**
 * Loads the extension into `db` and returns `db`: then `sessions_init()`,
 * `sessions_search(query, options)` and the other SQL functions work on it.
 *
 * @throws TypeError when `db` cannot load extensions, and Error when the
 * load fails (a node:sqlite connection opened without `allowExtension`, a
 * SQLite without FTS5), saying what to do.
 */
export declare function load<T extends SqliteDatabase>(db: T): T;
