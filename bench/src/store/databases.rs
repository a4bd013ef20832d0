//! The databases compared: a session-search store and two anchors built
//! from plain SQL, all opened the same way and written with the same
//! statements.

use super::transcript::{Row, Transcript};
use crate::stats::thread_cpu_seconds;
use rusqlite::Connection;
use session_search::{IndexingMode, NewSession, Store, StoreOptions};
use std::error::Error;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

/// The public tables and their indexes, exactly as `sessions_init()` creates
/// them, without any FTS or trigger.
const PLAIN_TABLES_SQL: &str = session_search_engine::store::PUBLIC_TABLES_SQL;

/// An OpenClaw-style index over the plain tables: an external-content FTS5
/// table over `messages`, filled by a trigger in the same transaction with
/// exactly the rows session-search indexes (user and assistant text), so
/// both do the same work.
const OPENCLAW_FTS_SQL: &str = "
CREATE VIRTUAL TABLE oc_fts USING fts5(
  content, content = 'messages', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER oc_fts_insert AFTER INSERT ON messages
WHEN NEW.role IN ('user', 'assistant') BEGIN
  INSERT INTO oc_fts(rowid, content) VALUES (NEW.id, NEW.content);
END;
";

/// The least any index filled with each message can cost: the messages are
/// the rows of an FTS5 table (`unicode61`), with no other table, index or
/// trigger, so an append is one FTS5 insert and nothing else.
const FTS5_ALONE_SQL: &str = "
CREATE TABLE sessions(session_key TEXT PRIMARY KEY, agent_id TEXT NOT NULL, created_at INTEGER);
CREATE VIRTUAL TABLE messages USING fts5(
  session_key UNINDEXED, role UNINDEXED, content, created_at UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2'
);
";

/// The statement every benchmark appends messages with, as hosts do.
pub const INSERT_SQL: &str =
    "INSERT INTO messages(session_key, role, content, created_at) VALUES (?1, ?2, ?3, ?4)";

/// `created_at` of every session a benchmark creates.
const SESSION_CREATED_AT: i64 = 1_700_000_000_000;

/// Messages per transaction of a bulk write.
pub const TRANSACTION_ROWS: usize = 1000;

/// What [`Database::fill`] wrote.
#[derive(Debug, Clone, Copy)]
pub struct Fill {
    /// Bytes of message content.
    pub bytes: usize,
    /// Seconds of the transactions.
    pub seconds: f64,
    /// Seconds this thread ran on a CPU during the transactions (see
    /// [`thread_cpu_seconds`]), if the system tells.
    pub cpu_seconds: Option<f64>,
}

/// A kind of database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// [`PLAIN_TABLES_SQL`] only.
    Plain,
    /// [`PLAIN_TABLES_SQL`] plus [`OPENCLAW_FTS_SQL`].
    OpenClaw,
    /// [`FTS5_ALONE_SQL`]: the cost of FTS5 itself.
    Fts5Alone,
    /// A session-search store in this indexing mode, without the wrapper's
    /// background reconciliation thread, so that the benchmark alone
    /// decides when reconciliation runs.
    SessionSearch(IndexingMode),
}

impl Variant {
    /// Its name, as printed.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Plain => "plain tables (no FTS, no triggers)",
            Variant::OpenClaw => "openclaw-style (unicode61 + trigger)",
            Variant::Fts5Alone => "fts5 alone (messages are FTS5 rows)",
            Variant::SessionSearch(IndexingMode::Immediate) => "session-search, immediate",
            Variant::SessionSearch(IndexingMode::Deferred) => "session-search, deferred+reconcile",
        }
    }

    /// The shadow table holding its FTS5 index's blocks, if it has one.
    pub fn fts_data_table(self) -> Option<&'static str> {
        match self {
            Variant::Plain => None,
            Variant::OpenClaw => Some("oc_fts_data"),
            Variant::Fts5Alone => Some("messages_data"),
            Variant::SessionSearch(_) => Some("session_search_fts_data"),
        }
    }
}

/// An open database of some [`Variant`].
#[derive(Debug)]
pub enum Database {
    /// An anchor, opened with plain rusqlite.
    Plain(Connection),
    /// A session-search store.
    Store(Store),
}

impl Database {
    /// Creates a new database of `variant` at `path`, in WAL mode with
    /// `synchronous = NORMAL`, and `temp_store = MEMORY` and the page cache
    /// of the wrapper's stores, the same for every variant.
    ///
    /// # Errors
    ///
    /// Any SQLite or session-search error.
    pub fn create(variant: Variant, path: &Path) -> Result<Database, Box<dyn Error>> {
        let database = match variant {
            Variant::Plain => Database::plain(path, PLAIN_TABLES_SQL)?,
            Variant::OpenClaw => {
                Database::plain(path, &format!("{PLAIN_TABLES_SQL}{OPENCLAW_FTS_SQL}"))?
            }
            Variant::Fts5Alone => Database::plain(path, FTS5_ALONE_SQL)?,
            Variant::SessionSearch(mode) => {
                let options = StoreOptions {
                    background_reconcile: false,
                };
                let store = Store::open_with(path, &options)?;
                store.set_indexing(mode)?;
                Database::Store(store)
            }
        };
        database.connection().execute_batch(&format!(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;
             PRAGMA cache_size = -{};",
            session_search::CACHE_KIB
        ))?;
        Ok(database)
    }

    /// A plain database created by `ddl`.
    fn plain(path: &Path, ddl: &str) -> rusqlite::Result<Database> {
        let conn = Connection::open(path)?;
        conn.execute_batch(ddl)?;
        Ok(Database::Plain(conn))
    }

    /// The connection.
    pub fn connection(&self) -> &Connection {
        match self {
            Database::Plain(conn) => conn,
            Database::Store(store) => store.connection(),
        }
    }

    /// The session-search store, if this is one.
    pub fn store(&self) -> Option<&Store> {
        match self {
            Database::Plain(_) => None,
            Database::Store(store) => Some(store),
        }
    }

    /// Inserts a `sessions` row for each of `keys`.
    ///
    /// # Errors
    ///
    /// Any SQLite error.
    pub fn create_sessions(&self, keys: &[String]) -> rusqlite::Result<()> {
        let conn = self.connection();
        let tx = conn.unchecked_transaction()?;
        {
            let mut insert = tx.prepare(
                "INSERT INTO sessions(session_key, agent_id, created_at) VALUES (?1, 'main', ?2)",
            )?;
            for key in keys {
                insert.execute((key, SESSION_CREATED_AT))?;
            }
        }
        tx.commit()
    }

    /// Creates a chain of `depth` sessions, each spawned by the one before,
    /// then a session for each of `keys` spawned by the chain's last one, all
    /// with [`Store::create_session`], so that each of `keys` is `depth`
    /// levels below the top of its spawn chain. With `depth` 0 there is no
    /// chain and the sessions are those of [`Database::create_sessions`].
    ///
    /// # Errors
    ///
    /// Any session-search error, or a chain asked of a database that is not
    /// a session-search store.
    pub fn create_sessions_at_depth(
        &self,
        keys: &[String],
        depth: usize,
    ) -> Result<(), Box<dyn Error>> {
        if depth == 0 {
            return Ok(self.create_sessions(keys)?);
        }
        let store = self
            .store()
            .ok_or("spawn chains are built in session-search stores only")?;
        let tx = store.connection().unchecked_transaction()?;
        let chain = (0..depth).map(|level| format!("agent:main:bench:chain:{level}"));
        let mut spawned_by = None;
        for key in chain {
            store.create_session(&NewSession {
                session_key: key.clone(),
                agent_id: "main".to_owned(),
                spawned_by: spawned_by.replace(key),
                created_at: SESSION_CREATED_AT,
            })?;
        }
        for key in keys {
            store.create_session(&NewSession {
                session_key: key.clone(),
                agent_id: "main".to_owned(),
                spawned_by: spawned_by.clone(),
                created_at: SESSION_CREATED_AT,
            })?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Bytes of its FTS5 index: the blocks of its `_data` shadow table (0
    /// without an index).
    ///
    /// # Errors
    ///
    /// Any SQLite error.
    pub fn fts_bytes(&self, variant: Variant) -> rusqlite::Result<u64> {
        let Some(table) = variant.fts_data_table() else {
            return Ok(0);
        };
        self.connection().query_row(
            &format!("SELECT coalesce(sum(length(block)), 0) FROM {table}"),
            [],
            |row| row.get(0),
        )
    }

    /// Appends `count` messages of `transcript`, round-robin over the
    /// sessions `keys`, with [`INSERT_SQL`] in transactions of
    /// [`TRANSACTION_ROWS`]. Each transaction's messages are generated
    /// before it, untimed.
    ///
    /// # Errors
    ///
    /// Any SQLite error.
    pub fn fill(
        &self,
        transcript: &mut Transcript,
        keys: &[String],
        count: usize,
    ) -> rusqlite::Result<Fill> {
        self.fill_in(transcript, keys, count, TRANSACTION_ROWS)
    }

    /// As [`Database::fill`], in transactions of `rows_per_transaction`
    /// messages; with 1, each statement is its own (autocommit)
    /// transaction, as an agent writes a conversation turn by turn.
    ///
    /// # Errors
    ///
    /// Any SQLite error.
    pub fn fill_in(
        &self,
        transcript: &mut Transcript,
        keys: &[String],
        count: usize,
        rows_per_transaction: usize,
    ) -> rusqlite::Result<Fill> {
        let mut fill = Fill {
            bytes: 0,
            seconds: 0.0,
            cpu_seconds: Some(0.0),
        };
        let mut left = count;
        while left > 0 {
            let rows = transcript.interleaved(left.min(TRANSACTION_ROWS), keys);
            fill.bytes += rows.iter().map(|row| row.content.len()).sum::<usize>();
            let cpu_start = thread_cpu_seconds();
            for chunk in rows.chunks(rows_per_transaction.max(1)) {
                fill.seconds += self.insert(chunk)?.as_secs_f64();
            }
            fill.cpu_seconds = match (fill.cpu_seconds, cpu_start, thread_cpu_seconds()) {
                (Some(sum), Some(start), Some(end)) => Some(sum + end - start),
                _ => None,
            };
            left -= rows.len();
        }
        Ok(fill)
    }

    /// Appends `rows` in one transaction (a single row without BEGIN, in
    /// autocommit) and returns its wall-clock time, commit included.
    fn insert(&self, rows: &[Row]) -> rusqlite::Result<Duration> {
        let start = Instant::now();
        if let [row] = rows {
            self.append(row)?;
            return Ok(start.elapsed());
        }
        let tx = self.connection().unchecked_transaction()?;
        {
            let mut insert = tx.prepare_cached(INSERT_SQL)?;
            for row in rows {
                insert.execute((&row.session_key, row.role, &row.content, row.created_at))?;
            }
        }
        tx.commit()?;
        Ok(start.elapsed())
    }

    /// Appends one row in its own (autocommit) transaction and returns its
    /// `messages.id`.
    ///
    /// # Errors
    ///
    /// Any SQLite error.
    pub fn append(&self, row: &Row) -> rusqlite::Result<i64> {
        let conn = self.connection();
        conn.prepare_cached(INSERT_SQL)?.execute((
            &row.session_key,
            row.role,
            &row.content,
            row.created_at,
        ))?;
        Ok(conn.last_insert_rowid())
    }
}

/// Deletes the database at `path` with its WAL and shared-memory files.
///
/// # Errors
///
/// When a file that exists cannot be removed.
pub fn remove(path: &Path) -> std::io::Result<()> {
    for suffix in ["", "-wal", "-shm"] {
        let mut file = path.as_os_str().to_owned();
        file.push(suffix);
        match fs::remove_file(&file) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}
