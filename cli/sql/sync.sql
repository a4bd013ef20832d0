-- What `session-search sync` has read: one row per transcript file, with the
-- file's identity (device and inode, 0 where the system has none), size and
-- modification time (ns) when it was last read. A file whose row still
-- matches is not read again; a row whose file vanished while a file with the
-- same stamp appeared elsewhere was a rename. Idempotent.
CREATE TABLE IF NOT EXISTS session_search_sync_files(
  path     TEXT PRIMARY KEY,
  device   INTEGER NOT NULL,
  inode    INTEGER NOT NULL,
  size     INTEGER NOT NULL,
  modified INTEGER NOT NULL
) WITHOUT ROWID;
