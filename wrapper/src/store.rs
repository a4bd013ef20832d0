//! [`Store`]: typed calls over the SQL schema of session-search.

use crate::functions::Rusqlite;
use crate::{Error, Result, Role};
use rusqlite::{params, Connection, OptionalExtension};
use session_search_engine::history::{self, HistoryOptions, HistoryResponse};
use session_search_engine::list::{self, ListOptions, ListResponse};
use session_search_engine::search::{self, SearchOptions, SearchResponse};
use session_search_engine::store::{self, IndexingMode, Progress, RedactionChange, Status};
use std::path::Path;
use std::time::Duration;

/// How long a statement waits for another connection's lock.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// How [`Store::open_with`] opens a database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreOptions {
    /// Run reconciliation on a background thread with its own connection
    /// (default). Without it, searches and [`Store::reconcile`] still
    /// reconcile in slices.
    pub background_reconcile: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            background_reconcile: true,
        }
    }
}

/// A search: the query text and the options of `sessions_search`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchRequest {
    /// Words and "quoted phrases", as a user typed them.
    pub query: String,
    /// Caller, visibility, filters and limits.
    pub options: SearchOptions,
}

impl SearchRequest {
    /// A search by `caller` with the default options.
    pub fn new(query: impl Into<String>, caller: impl Into<String>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            options: SearchOptions {
                caller: Some(caller.into()),
                ..SearchOptions::default()
            },
        }
    }
}

/// A session to create.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewSession {
    /// Its key, e.g. `agent:main:telegram:42`.
    pub session_key: String,
    /// The agent that owns it.
    pub agent_id: String,
    /// The session that spawned it, if any.
    pub spawned_by: Option<String>,
    /// Creation time, unix milliseconds.
    pub created_at: i64,
}

/// A message to append.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewMessage {
    /// The session it belongs to.
    pub session_key: String,
    /// `None` appends after the session's leaf; `Some(id)` starts a branch
    /// after message `id`.
    pub parent_id: Option<i64>,
    /// Who wrote it.
    pub role: Role,
    /// Plain text, or a JSON array of content blocks.
    pub content: String,
    /// Unix milliseconds.
    pub created_at: i64,
    /// The host's own id for the message.
    pub message_id: Option<String>,
}

/// A session-search database: a rusqlite connection with the engine
/// registered and the schema initialised.
///
/// # Example
///
/// ```
/// use session_search::{NewMessage, NewSession, Role, Store};
///
/// let store = Store::open_in_memory()?;
/// store.create_session(&NewSession {
///     session_key: "agent:main:cli:1".into(),
///     agent_id: "main".into(),
///     created_at: 1_700_000_000_000,
///     ..Default::default()
/// })?;
/// let first = store.append(&NewMessage {
///     session_key: "agent:main:cli:1".into(),
///     role: Role::User,
///     content: "Deploy staging to 東京".into(),
///     created_at: 1_700_000_000_001,
///     ..Default::default()
/// })?;
/// store.append(&NewMessage {
///     session_key: "agent:main:cli:1".into(),
///     role: Role::Assistant,
///     content: r#"[{"type":"text","text":"Rolled back the deploy"}]"#.into(),
///     created_at: 1_700_000_000_002,
///     ..Default::default()
/// })?;
/// assert_eq!(store.status()?.indexed, 2);
///
/// store.rewind("agent:main:cli:1", Some(first))?;
/// assert_eq!(store.status()?.indexed, 1);
/// # Ok::<(), session_search::Error>(())
/// ```
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    /// Whether reconciliation runs on a background thread.
    background: bool,
}

impl Store {
    /// Opens (or creates, readable by its owner only) the database at `path`
    /// in WAL mode, runs
    /// `sessions_init()`, and starts reconciliation on a background thread
    /// with its own connection.
    ///
    /// # Errors
    ///
    /// [`Error::Sqlite`] when the file cannot be opened, [`Error::Store`] when
    /// its schema cannot be used.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        Store::open_with(path, &StoreOptions::default())
    }

    /// [`Store::open`] with options.
    ///
    /// # Errors
    ///
    /// As for [`Store::open`].
    pub fn open_with(path: impl AsRef<Path>, options: &StoreOptions) -> Result<Store> {
        let background = options.background_reconcile;
        let conn = crate::connect(crate::open_private(path.as_ref())?, background)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "journal_mode", "wal")?;
        let engine = Rusqlite::new(&conn, background);
        if store::init(&engine)?.pending > 0 {
            store::request_drain(&engine);
        }
        Ok(Store { conn, background })
    }

    /// A private in-memory database, reconciled only by searches and
    /// [`Store::reconcile`] (no other connection can reach it).
    ///
    /// # Errors
    ///
    /// As for [`Store::open`].
    pub fn open_in_memory() -> Result<Store> {
        let conn = crate::open_in_memory()?;
        store::init(&Rusqlite::new(&conn, false))?;
        Ok(Store {
            conn,
            background: false,
        })
    }

    /// The engine's view of the connection.
    fn engine(&self) -> Rusqlite<&Connection> {
        Rusqlite::new(&self.conn, self.background)
    }

    /// The underlying connection, for plain SQL.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Creates a session.
    ///
    /// # Errors
    ///
    /// [`Error::Sqlite`] when the key exists already.
    pub fn create_session(&self, session: &NewSession) -> Result<()> {
        self.conn.execute(
            "INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![session.session_key, session.agent_id, session.spawned_by, session.created_at],
        )?;
        Ok(())
    }

    /// Appends a message, which becomes the session's leaf, and returns its
    /// `messages.id`. User and assistant text is indexed in the same
    /// statement.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownSession`], [`Error::InvalidParent`].
    pub fn append(&self, message: &NewMessage) -> Result<i64> {
        // Cached: preparing the statement compiles the triggers it fires,
        // which costs more than the insert itself.
        let inserted = self
            .conn
            .prepare_cached(
                "INSERT INTO messages(session_key, parent_id, role, content, created_at, message_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                message.session_key,
                message.parent_id,
                message.role.as_str(),
                message.content,
                message.created_at,
                message.message_id
            ],
        );
        match inserted {
            Ok(_) => Ok(self.conn.last_insert_rowid()),
            Err(e) if trigger_error(&e, "messages.session_key") => {
                Err(Error::UnknownSession(message.session_key.clone()))
            }
            Err(e) if trigger_error(&e, "messages.parent_id") => Err(Error::InvalidParent {
                session_key: message.session_key.clone(),
                parent_id: message.parent_id.unwrap_or_default(),
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// Moves the session's leaf: `Some(id)` rewinds or switches to the branch
    /// ending at message `id`, `None` rewinds to empty. Only the new active
    /// branch is searchable afterwards.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownSession`], [`Error::InvalidLeaf`].
    pub fn rewind(&self, session_key: &str, leaf_id: Option<i64>) -> Result<()> {
        let updated = self.conn.execute(
            "UPDATE sessions SET leaf_id = ?2 WHERE session_key = ?1",
            params![session_key, leaf_id],
        );
        match updated {
            Ok(0) => Err(Error::UnknownSession(session_key.to_owned())),
            Ok(_) => Ok(()),
            Err(e) if trigger_error(&e, "sessions.leaf_id") => Err(Error::InvalidLeaf {
                session_key: session_key.to_owned(),
                leaf_id: leaf_id.unwrap_or_default(),
            }),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes a session with its messages and their index entries; returns
    /// whether it existed.
    ///
    /// # Errors
    ///
    /// [`Error::Sqlite`] on database failure.
    pub fn delete_session(&self, session_key: &str) -> Result<bool> {
        Ok(self
            .conn
            .execute("DELETE FROM sessions WHERE session_key = ?1", [session_key])?
            > 0)
    }

    /// The leaf of a session, `None` for an empty one.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownSession`].
    pub fn leaf(&self, session_key: &str) -> Result<Option<i64>> {
        self.conn
            .query_row(
                "SELECT leaf_id FROM sessions WHERE session_key = ?1",
                [session_key],
                |row| row.get(0),
            )
            .optional()?
            .ok_or_else(|| Error::UnknownSession(session_key.to_owned()))
    }

    /// Searches the sessions visible to the caller (`sessions_search`).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] for a bad query or option, or a missing or unknown
    /// caller.
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResponse> {
        Ok(search::search(
            &self.engine(),
            &request.query,
            &request.options,
        )?)
    }

    /// A window of a session's active branch (`sessions_history`).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] for a bad option, a caller that cannot see the
    /// session, or an `around` message off the active branch.
    pub fn history(&self, session_key: &str, options: &HistoryOptions) -> Result<HistoryResponse> {
        Ok(history::history(&self.engine(), session_key, options)?)
    }

    /// The caller's visible sessions, newest activity first (`sessions_list`).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] for a bad option, or a missing or unknown caller.
    pub fn list(&self, options: &ListOptions) -> Result<ListResponse> {
        Ok(list::list(&self.engine(), options)?)
    }

    /// Runs one bounded slice of reconciliation (`sessions_reconcile`).
    ///
    /// # Errors
    ///
    /// [`Error::Store`] when `max_rows` < 1.
    pub fn reconcile(&self, max_rows: i64) -> Result<Progress> {
        Ok(store::reconcile(&self.engine(), max_rows)?)
    }

    /// Counts, versions and the FTS5 integrity check (`sessions_status`).
    ///
    /// # Errors
    ///
    /// [`Error::Sqlite`] on database failure.
    pub fn status(&self) -> Result<Status> {
        Ok(store::status(&self.engine())?)
    }

    /// Switches between immediate and deferred indexing; returns the previous
    /// mode. Use [`IndexingMode::Deferred`] around bulk imports, then
    /// [`Store::reconcile`].
    ///
    /// # Errors
    ///
    /// [`Error::Sqlite`] on database failure.
    pub fn set_indexing(&self, mode: IndexingMode) -> Result<IndexingMode> {
        Ok(store::set_indexing(&self.engine(), mode)?)
    }

    /// Stores the host's redaction patterns (`sessions_set_redaction`):
    /// regular expressions, a group named `secret` redacting only itself.
    /// A change re-indexes every message through reconciliation.
    ///
    /// # Errors
    ///
    /// [`Error::Store`] naming a pattern that does not compile.
    pub fn set_redaction(&self, patterns: &[&str]) -> Result<RedactionChange> {
        let patterns = patterns.iter().map(|p| (*p).to_owned()).collect();
        Ok(store::set_redaction(&self.engine(), patterns)?)
    }
}

/// Whether `e` is the RAISE of a session-search trigger about `column`.
fn trigger_error(e: &rusqlite::Error, column: &str) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(_, Some(message))
        if message.starts_with("session_search:") && message.contains(column))
}
