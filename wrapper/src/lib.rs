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
use std::ffi::{c_int, c_void};
use std::path::Path;

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
mod kept;
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
    unsafe { fts5::register_rank_function(api, &AUX_ROUTINES) }?;
    functions::register_functions(conn, drains)?;
    Ok(())
}

/// The routines the engine's FTS5 auxiliary functions call.
static AUX_ROUTINES: fts5::Routines = fts5::Routines {
    value_type: aux_value_type,
    value_int64: aux_value_int64,
    result_double: aux_result_double,
    result_error_code: aux_result_error_code,
};

unsafe extern "C" fn aux_value_type(value: *mut c_void) -> c_int {
    // SAFETY: FTS5 passes the protected values of the running call.
    unsafe { ffi::sqlite3_value_type(value.cast()) }
}

unsafe extern "C" fn aux_value_int64(value: *mut c_void) -> i64 {
    // SAFETY: as in `aux_value_type`.
    unsafe { ffi::sqlite3_value_int64(value.cast()) }
}

unsafe extern "C" fn aux_result_double(context: *mut c_void, value: f64) {
    // SAFETY: FTS5 passes the sqlite3_context of the running call.
    unsafe { ffi::sqlite3_result_double(context.cast(), value) }
}

unsafe extern "C" fn aux_result_error_code(context: *mut c_void, code: c_int) {
    // SAFETY: as in `aux_result_double`.
    unsafe { ffi::sqlite3_result_error_code(context.cast(), code) }
}

/// Fetches the connection's `fts5_api` with `SELECT fts5(?1)`.
///
/// rusqlite cannot bind a pointer, so this one statement goes through the C
/// API directly.
fn fts5_api(conn: &Connection) -> Result<*mut fts5::Fts5Api> {
    let mut api: *mut fts5::Fts5Api = std::ptr::null_mut();
    // SAFETY: `conn.handle()` is open for the whole block; the statement is
    // prepared, used and finalized here; `api` outlives the step, during which
    // FTS5 writes the pointer into it; the strings are static and
    // NUL-terminated.
    let rc = unsafe {
        let db = conn.handle();
        let mut stmt = std::ptr::null_mut();
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut stmt,
            std::ptr::null_mut(),
        );
        if rc == ffi::SQLITE_OK {
            ffi::sqlite3_bind_pointer(
                stmt,
                1,
                (&mut api as *mut *mut fts5::Fts5Api).cast::<c_void>(),
                c"fts5_api_ptr".as_ptr(),
                None,
            );
            ffi::sqlite3_step(stmt);
        }
        ffi::sqlite3_finalize(stmt);
        rc
    };
    if rc != ffi::SQLITE_OK {
        // Say what SQLite said (a file that is not a database, a locked or
        // unreadable one), unless it is the missing fts5() function itself.
        return Err(match conn.prepare("SELECT fts5(?1)") {
            Err(e) if !e.to_string().contains("no such function") => Error::Sqlite(e),
            _ => Error::Register(fts5::RegisterError::NoFts5),
        });
    }
    Ok(api)
}
