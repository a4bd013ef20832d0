//! One index build: a fresh on-disk database, one FTS5 table, every message
//! inserted in one transaction. Each build runs in a child process (this
//! executable, re-invoked with [`CHILD_FLAG`]) so that the peak memory it
//! reports is its own.

use crate::child;
use crate::corpus::MessageFile;
use crate::memory::peak_rss_kib;
use rusqlite::Connection;
use serde_json::{json, Value};
use std::error::Error;
use std::ffi::OsStr;
use std::path::Path;
use std::time::Instant;

/// The hidden first argument that makes this executable run one build.
pub const CHILD_FLAG: &str = "--build-one";

/// Name of the FTS5 table, in the build and in the queries.
pub const TABLE: &str = "t";

/// What one build measured.
#[derive(Debug, Clone, Copy)]
pub struct Build {
    /// Rows inserted.
    pub rows: u64,
    /// Wall-clock seconds of the inserts plus the commit.
    pub seconds: f64,
    /// Peak resident set (VmHWM) of the building process, in KiB.
    pub peak_rss_kib: u64,
    /// Bytes of the FTS5 index: `sum(length(block))` of `t_data` plus the
    /// payload bytes of `t_idx` (from `dbstat`).
    pub index_bytes: u64,
    /// Size of the whole database file, stored text included.
    pub db_bytes: u64,
    /// Token occurrences in the index (`sum(cnt)` of `fts5vocab` `row`).
    pub postings: u64,
    /// Distinct terms in the index.
    pub terms: u64,
}

impl Build {
    /// The one-line JSON report the child prints.
    fn to_json(self) -> String {
        json!({
            "rows": self.rows,
            "seconds": self.seconds,
            "peak_rss_kib": self.peak_rss_kib,
            "index_bytes": self.index_bytes,
            "db_bytes": self.db_bytes,
            "postings": self.postings,
            "terms": self.terms,
        })
        .to_string()
    }

    /// Parses [`Build::to_json`]'s output.
    fn from_json(line: &str) -> Option<Build> {
        let value: Value = serde_json::from_str(line).ok()?;
        let int = |key: &str| value.get(key)?.as_u64();
        Some(Build {
            rows: int("rows")?,
            seconds: value.get("seconds")?.as_f64()?,
            peak_rss_kib: int("peak_rss_kib")?,
            index_bytes: int("index_bytes")?,
            db_bytes: int("db_bytes")?,
            postings: int("postings")?,
            terms: int("terms")?,
        })
    }
}

/// Builds the index of the messages in `corpus` into a new database `db`
/// with `tokenizer`, in a child process, and returns what it measured.
///
/// # Errors
///
/// When the child cannot be started, fails, or prints no report.
pub fn build_in_child(corpus: &Path, db: &Path, tokenizer: &str) -> Result<Build, Box<dyn Error>> {
    let args = [
        OsStr::new(CHILD_FLAG),
        corpus.as_os_str(),
        db.as_os_str(),
        OsStr::new(tokenizer),
    ];
    let report = child::report(&args)?;
    Build::from_json(&report)
        .ok_or_else(|| format!("build with {tokenizer} printed no report: {report}").into())
}

/// The child's side: `args` are the corpus file, the database path and the
/// tokenizer; prints the [`Build`] report as one JSON line.
///
/// # Errors
///
/// Wrong arguments, or any I/O or SQLite error of the build.
pub fn child_main(args: &[String]) -> Result<(), Box<dyn Error>> {
    let [corpus, db, tokenizer] = args else {
        return Err(format!("usage: {CHILD_FLAG} CORPUS_FILE DATABASE TOKENIZER").into());
    };
    let build = build(Path::new(corpus), Path::new(db), tokenizer)?;
    println!("{}", build.to_json());
    Ok(())
}

/// Creates the table, inserts and commits every message, and measures.
fn build(corpus: &Path, db: &Path, tokenizer: &str) -> Result<Build, Box<dyn Error>> {
    let mut conn = session_search::open(db)?;
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE {TABLE} USING fts5(body, tokenize = '{tokenizer}')"
    ))?;
    let mut messages = MessageFile::open(corpus)?;
    let start = Instant::now();
    let rows = insert_all(&mut conn, &mut messages)?;
    let seconds = start.elapsed().as_secs_f64();
    let peak_rss_kib = peak_rss_kib()?;
    let index_bytes = index_bytes(&conn)?;
    let (postings, terms) = vocabulary(&conn)?;
    drop(conn);
    Ok(Build {
        rows,
        seconds,
        peak_rss_kib,
        index_bytes,
        db_bytes: std::fs::metadata(db)?.len(),
        postings,
        terms,
    })
}

/// Inserts every message in one transaction with one prepared statement.
fn insert_all(conn: &mut Connection, messages: &mut MessageFile) -> Result<u64, Box<dyn Error>> {
    let tx = conn.transaction()?;
    let mut rows = 0;
    {
        let mut insert = tx.prepare(&format!("INSERT INTO {TABLE}(body) VALUES (?1)"))?;
        while let Some(message) = messages.next_message()? {
            insert.execute([message])?;
            rows += 1;
        }
    }
    tx.commit()?;
    Ok(rows)
}

/// Bytes of the FTS5 index: the segment blocks in `t_data` and the records
/// of the `t_idx` b-tree, the stored text in `t_content` excluded.
fn index_bytes(conn: &Connection) -> rusqlite::Result<u64> {
    conn.query_row(
        &format!(
            "SELECT (SELECT coalesce(sum(length(block)), 0) FROM {TABLE}_data)
                  + (SELECT coalesce(sum(payload), 0) FROM dbstat WHERE name = '{TABLE}_idx')"
        ),
        [],
        |row| row.get(0),
    )
}

/// Token occurrences and distinct terms of the index, from `fts5vocab`.
fn vocabulary(conn: &Connection) -> rusqlite::Result<(u64, u64)> {
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE temp.vocabulary USING fts5vocab(main, {TABLE}, row)"
    ))?;
    conn.query_row(
        "SELECT coalesce(sum(cnt), 0), count(*) FROM temp.vocabulary",
        [],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
}
