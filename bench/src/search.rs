//! The FTS5 query every part times.

use rusqlite::Connection;

/// Runs `sql` (a prepared, cached statement with one parameter) for `query`
/// and returns the number of rows it yields.
///
/// # Errors
///
/// Any SQLite error.
pub fn search(conn: &Connection, sql: &str, query: &str) -> rusqlite::Result<u64> {
    let mut statement = conn.prepare_cached(sql)?;
    let mut rows = statement.query([query])?;
    let mut n = 0;
    while rows.next()?.is_some() {
        n += 1;
    }
    Ok(n)
}

/// `query` as an FTS5 string: in double quotes, inner quotes doubled.
pub fn fts5_string(query: &str) -> String {
    format!("\"{}\"", query.replace('"', "\"\""))
}
