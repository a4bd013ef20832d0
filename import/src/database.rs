//! Formats whose history is a SQLite database (Hermes Agent's `state.db`,
//! Cursor's `state.vscdb`, OpenCode's `opencode.db` and Kilo's `kilo.db`): the file is recognised by the SQLite header
//! and the tables it has, opened read-only (the tool may have it open, in
//! WAL mode; nothing is ever written to it), and read by the format's
//! [`DatabaseReader`] into as many sessions as it holds, through
//! [`Sessions`].

use super::records::Sessions;
use super::Format;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use session_search::Result;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The first bytes of every SQLite database file.
const HEADER: &[u8; 16] = b"SQLite format 3\0";

/// One database format's reading of a database.
pub(super) trait DatabaseReader {
    /// Reads the sessions of `db` and writes them. Returns how reading the
    /// database went: a query of it that failed is the file's problem (what
    /// was read before is imported), not an error of the import.
    ///
    /// # Errors
    ///
    /// Failures of the store being written.
    fn read(&mut self, db: &Connection, out: &mut Sessions<'_>) -> Result<rusqlite::Result<()>>;
}

/// A format's database reader for one file.
pub(super) struct Opened {
    pub(super) reader: Box<dyn DatabaseReader>,
    /// The `agent_id` of the sessions the database holds.
    pub(super) agent_id: String,
}

/// Whether the file at `path` starts with the SQLite header.
pub(super) fn is_database(path: &Path) -> io::Result<bool> {
    let mut start = [0u8; 16];
    let mut file = File::open(path)?;
    let mut read = 0;
    while read < start.len() {
        match file.read(&mut start[read..]) {
            Ok(0) => return Ok(false),
            Ok(n) => read += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(&start == HEADER)
}

/// Opens the database at `path` read-only.
pub(super) fn open_read_only(path: &Path) -> rusqlite::Result<Connection> {
    let db = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    // A tool writing the database at the same moment holds its lock only
    // briefly.
    db.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(db)
}

/// The format of the database at `path`, from the tables it has.
pub(super) fn detect(path: &Path) -> Option<Format> {
    let db = open_read_only(path).ok()?;
    Format::ALL
        .into_iter()
        .find(|format| format.importer().recognises_database(&db))
}

/// Whether `db` has the table `table`.
pub(super) fn has_table(db: &Connection, table: &str) -> bool {
    db.query_row(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [table],
        |_| Ok(()),
    )
    .optional()
    .ok()
    .flatten()
    .is_some()
}

/// The names of the columns of `table` (none when it does not exist).
pub(super) fn columns(db: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut statement = db.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let names = statement.query_map([table], |row| row.get::<_, String>(0))?;
    names.collect()
}

/// A select list naming each of `wanted` that `table` has, and `NULL` for
/// each it lacks (older versions of a tool have fewer columns), so rows
/// can be read by position.
pub(super) fn select_list(present: &[String], wanted: &[&str]) -> String {
    wanted
        .iter()
        .map(|name| match present.iter().any(|column| column == name) {
            true => format!("\"{name}\""),
            false => format!("NULL AS \"{name}\""),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A column value as text: text as it is, a blob when it is UTF-8, a
/// number written out; `None` for NULL or a blob that is not text.
pub(super) fn text(value: rusqlite::types::ValueRef<'_>) -> Option<String> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(bytes) | ValueRef::Blob(bytes) => {
            std::str::from_utf8(bytes).ok().map(str::to_owned)
        }
        ValueRef::Integer(n) => Some(n.to_string()),
        ValueRef::Real(x) => Some(x.to_string()),
        ValueRef::Null => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_columns_are_selected_as_null() {
        let present = vec!["id".to_owned(), "role".to_owned()];
        assert_eq!(
            select_list(&present, &["id", "active", "role"]),
            "\"id\", NULL AS \"active\", \"role\""
        );
    }

    #[test]
    fn the_header_decides_what_is_a_database() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("state.db");
        Connection::open(&db)
            .unwrap()
            .execute_batch("CREATE TABLE t(x)")
            .unwrap();
        assert!(is_database(&db).unwrap());
        let text = dir.path().join("short");
        std::fs::write(&text, "SQLite").unwrap();
        assert!(!is_database(&text).unwrap());
        assert_eq!(detect(&db), None);
    }
}
