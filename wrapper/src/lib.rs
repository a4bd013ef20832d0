//! session-search for Rust: the engine registered in-process into a
//! [`rusqlite::Connection`] (bundled SQLite unless the `bundled` feature is
//! off), so a Rust program needs no loadable extension at run time. Any
//! rusqlite from 0.31 to 0.43 works: the project's own is used.
//!
//! # Example
//!
//! ```
//! let conn = session_search::open_in_memory()?;
//! conn.execute_batch(
//!     "CREATE VIRTUAL TABLE notes USING fts5(body, tokenize = 'sessions cjk 1');
//!      INSERT INTO notes VALUES ('Déploiement de staging à 東京');",
//! )?;
//! let hits: i64 = conn.query_row(
//!     "SELECT count(*) FROM notes WHERE notes MATCH 'deploiement 東京'",
//!     [],
//!     |row| row.get(0),
//! )?;
//! assert_eq!(hits, 1);
//! # Ok::<(), session_search::Error>(())
//! ```

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

use rusqlite::config::DbConfig;
use rusqlite::{ffi, Connection};
use session_search_engine::fts5;
use session_search_sqlite::{routines, RawConnection, Routines};
use std::path::Path;
use std::sync::OnceLock;

/// The README's Rust examples, compiled and run as doctests so they cannot
/// drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;

/// The Rust examples of docs/rust.md, run as doctests like the README's.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
struct RustGuideExamples;

mod functions;
mod store;
pub mod timestamp;

pub use session_search_engine::history::{
    HistoryMessage, HistoryOptions, HistoryResponse, MessageRef,
};
pub use session_search_engine::list::{ListOptions, ListResponse, SessionSummary};
pub use session_search_engine::role::{Role, UnknownRole};
pub use session_search_engine::scope::Visibility;
pub use session_search_engine::search::{
    GroupBy, Hit, Order, SearchOptions, SearchResponse, TermCount,
};
pub use session_search_engine::store::{IndexingMode, Progress, RedactionChange, Status};
pub use session_search_engine::tokenizer;
pub use store::{NewMessage, NewSession, SearchRequest, Store, StoreOptions};

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// SQLite reported an error.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The `sessions` tokenizer could not be registered with FTS5.
    #[error("cannot register the sessions tokenizer: {0}")]
    Register(#[from] fts5::RegisterError),
    /// The engine refused an operation (bad argument, unusable schema).
    #[error(transparent)]
    Store(#[from] session_search_engine::store::Error),
    /// No session has this key.
    #[error("no session with key {0:?}")]
    UnknownSession(String),
    /// No session key is, or starts with, this text (when resolving a key
    /// as people type one).
    #[error("no session key is or starts with {0:?}")]
    NoSessionMatches(String),
    /// More than one session key starts with this text (when resolving a
    /// key as people type one).
    #[error(
        "{prefix:?} starts {count} session keys, such as {}; give more of the key",
        examples.join(", ")
    )]
    AmbiguousSession {
        /// The text given.
        prefix: String,
        /// How many keys start with it.
        count: i64,
        /// The first few of them, in key order.
        examples: Vec<String>,
    },
    /// `parent_id` does not name a message of the same session.
    #[error(
        "message {parent_id} is not in session {session_key:?}, so it cannot be a parent there"
    )]
    InvalidParent {
        /// The session appended to.
        session_key: String,
        /// The parent asked for.
        parent_id: i64,
    },
    /// `leaf_id` does not name a message of the same session.
    #[error("message {leaf_id} is not in session {session_key:?}, so it cannot be its leaf")]
    InvalidLeaf {
        /// The session rewound.
        session_key: String,
        /// The leaf asked for.
        leaf_id: i64,
    },
    /// A date or time is not ISO 8601 (`2025-01-31`, `2025-01-31T12:00:00Z`).
    #[error(
        "{0:?} is not an ISO 8601 date or date-time such as 2025-01-31 or 2025-01-31T12:00:00Z"
    )]
    InvalidTimestamp(String),
    /// A file or directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: std::path::PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
}

/// Result type of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The page cache of the connections this crate opens, in KiB (SQLite's
/// default is 2 000); memory is only taken as pages are read.
pub const CACHE_KIB: i64 = 32 * 1024;

/// Opens (or creates, readable and writable by its owner only) the database
/// at `path` with session-search registered (and the query planner stability
/// guarantee on, see [`register`]).
///
/// # Errors
///
/// [`Error::Sqlite`] when the file cannot be opened.
pub fn open(path: impl AsRef<Path>) -> Result<Connection> {
    connect(open_private(path.as_ref())?, true)
}

/// Opens the database at `path`; a file it creates is readable and writable
/// by its owner only (mode 0600 on Unix), as it holds unredacted
/// transcripts. SQLite would create it with mode 0644, and it gives the
/// `-wal`, `-shm` and `-journal` files the database file's mode. An existing
/// file keeps its mode, and `:memory:`, an empty path and `file:` URIs are
/// left to SQLite.
pub(crate) fn open_private(path: &Path) -> rusqlite::Result<Connection> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let name = path.as_os_str();
        if !name.is_empty() && name != ":memory:" && !name.as_encoded_bytes().starts_with(b"file:")
        {
            // An empty file is an empty database. Creating it fails when the
            // file exists, which then keeps its mode; any other failure is
            // SQLite's to report as it opens the path.
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path);
        }
    }
    Connection::open(path)
}

/// Opens a private in-memory database with session-search registered.
///
/// # Errors
///
/// As for [`open`].
pub fn open_in_memory() -> Result<Connection> {
    connect(Connection::open_in_memory()?, true)
}

/// Registers the `sessions` tokenizer, the `sessions_rank` FTS5 function and
/// the SQL functions into `conn`, as loading the extension does. A search
/// on a file database in WAL mode with a reconciliation backlog starts a
/// background thread with its own connection that indexes it. The
/// connections this crate opens also turn on the query planner stability
/// guarantee (`SQLITE_DBCONFIG_ENABLE_QPSG`), which makes searches with few
/// matches about twice as fast on SQLite 3.54, keep temporary files in
/// memory (`PRAGMA temp_store = MEMORY`), which makes appends about a sixth
/// faster, and have a page cache of [`CACHE_KIB`]; `register` leaves
/// `conn`'s settings as they are.
///
/// # Errors
///
/// [`Error::Register`] if FTS5 is missing or refuses the tokenizer,
/// [`Error::Sqlite`] if a function cannot be created.
pub fn register(conn: &Connection) -> Result<()> {
    register_with(conn, true)
}

/// `conn`, a connection this crate opened, with session-search registered;
/// searches start background drains when `drains` says so. Its query
/// planner stability guarantee is on: plans never depend on bound values,
/// so a statement is not prepared again when a search binds a new window or
/// FTS5 looks up another segment (SQLite 3.54 otherwise re-prepares them,
/// which doubled the cost of a search with few matches). Its temporary
/// files are kept in memory (`temp_store = MEMORY`): each statement of the
/// triggers that index a message journals the pages it changes for its own
/// rollback, and in a file those writes took a sixth of an append. Its page
/// cache holds up to [`CACHE_KIB`]: a search that ranks a thousand
/// candidates reads each one's length from FTS5's `_docsize` table, and
/// with SQLite's default 2 MiB those pages were read from the file again by
/// every search.
pub(crate) fn connect(conn: Connection, drains: bool) -> Result<Connection> {
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.pragma_update(None, "temp_store", "memory")?;
    conn.pragma_update(None, "cache_size", -CACHE_KIB)?;
    register_with(&conn, drains)?;
    Ok(conn)
}

fn register_with(conn: &Connection, drains: bool) -> Result<()> {
    let api = fts5_api(conn)?;
    // SAFETY: `api` was just returned by this open connection's FTS5.
    unsafe { fts5::register_tokenizer(api) }?;
    // SAFETY: as above; the routines are those of the same bundled SQLite.
    unsafe { fts5::register_rank_function(api, &self::api().aux) }?;
    functions::register_functions(conn, drains)?;
    Ok(())
}

/// The routines of the SQLite rusqlite links, for the shared layer.
pub(crate) fn api() -> &'static Routines {
    static API: OnceLock<Routines> = OnceLock::new();
    API.get_or_init(|| {
        macro_rules! address {
            ($field:ident, $name:ident) => {
                ffi::$name as *const ()
            };
        }
        // SAFETY: each address is that of the routine of its name, of the
        // library rusqlite links, as `routines!` takes it.
        unsafe { routines!(address) }
    })
}

/// The shared layer's view of `conn`, for one operation.
pub(crate) fn raw(conn: &Connection) -> RawConnection {
    // SAFETY: the handle is of an open connection of the library of
    // `api()`, which the caller uses only while `conn` is borrowed, on its
    // thread.
    unsafe { RawConnection::new(api(), conn.handle().cast()) }
}

/// Fetches the connection's `fts5_api` with `SELECT fts5(?1)`.
fn fts5_api(conn: &Connection) -> Result<*mut fts5::Fts5Api> {
    raw(conn).fts5_api().map_err(|e| {
        // Say what SQLite said (a file that is not a database, a locked or
        // unreadable one), unless it is the missing fts5() function itself.
        if e.message.contains("no such function") {
            Error::Register(fts5::RegisterError::NoFts5)
        } else {
            Error::Sqlite(rusqlite::Error::SqliteFailure(
                ffi::Error::new(e.code),
                Some(e.message),
            ))
        }
    })
}
