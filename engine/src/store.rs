//! The transcript store: schema creation and migration, reconciliation,
//! status. The schema and triggers are the `.sql` files of `sql/`, embedded
//! here; these functions run them through a [`Connection`].

use crate::compaction;
use crate::db::{Connection, Value};
pub use crate::error::{Error, Result};
use crate::meta::{meta, set_meta};
use crate::rank::RankTotals;
use crate::redact::patterns::REDACTION_VERSION;
use crate::redact::{Redactor, Settings};
use crate::tokenizer::TOKENIZER_VERSION;
use serde::{Deserialize, Serialize};

/// The schema version this build creates and understands.
pub const SCHEMA_VERSION: i64 = 14;

/// The public tables `sessions` and `messages` with their indexes, as
/// `sessions_init()` creates them.
pub const PUBLIC_TABLES_SQL: &str = include_str!("../sql/tables.sql");
const SCHEMA_SQL: &str = include_str!("../sql/schema.sql");
const ADOPT_SQL: &str = include_str!("../sql/adopt.sql");
const UPGRADE_SQL: &str = include_str!("../sql/upgrade.sql");
const TRIGGERS_SQL: &str = include_str!("../sql/triggers.sql");
const RECONCILE_INDEX_SQL: &str = include_str!("../sql/reconcile_index.sql");
const RECONCILE_MARK_SQL: &str = include_str!("../sql/reconcile_mark.sql");
/// Writes every session's scope that differs from the one it should have
/// (the scope-change trigger re-indexes its messages under it).
const RESCOPE_SQL: &str = "INSERT INTO session_search_scopes(session_key, scope) \
     SELECT session_key, scope FROM session_search_scope_of WHERE true \
     ON CONFLICT(session_key) DO UPDATE SET scope = excluded.scope WHERE scope IS NOT excluded.scope";

/// Columns the public tables must have (docs/sql.md, "Schema and write
/// path"), checked when adopting tables that existed before
/// `sessions_init()`.
const REQUIRED_COLUMNS: [(&str, &[&str]); 2] = [
    (
        "sessions",
        &[
            "session_key",
            "agent_id",
            "spawned_by",
            "created_at",
            "leaf_id",
        ],
    ),
    (
        "messages",
        &[
            "id",
            "session_key",
            "parent_id",
            "role",
            "content",
            "created_at",
            "message_id",
        ],
    ),
];

/// What `sessions_status()` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// Schema version of the database.
    pub schema_version: i64,
    /// Version of the loaded tokenizer (the index is rebuilt when it changes).
    pub tokenizer_version: u32,
    /// Version of the default redaction patterns (the index is rebuilt when
    /// it changes).
    pub redaction_version: u32,
    /// Redaction patterns the host added (`sessions_set_redaction`).
    pub redaction_patterns: usize,
    /// Rows in `messages`.
    pub messages: i64,
    /// Messages whose text is in the index.
    pub indexed: i64,
    /// Messages whose text belongs in the index and is not there yet.
    pub pending: i64,
    /// How writes reach the index.
    pub indexing: IndexingMode,
    /// `"ok"`, FTS5's integrity-check error, or why it was not checked (a
    /// read-only connection, an index built by an earlier or a newer
    /// version); absent from `sessions_init()`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub integrity: Option<String>,
    /// The FTS5 segments (b-trees) the index lies in: each search looks
    /// every term up in each; absent from `sessions_init()`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub segments: Option<i64>,
}

/// What one `sessions_reconcile(max_rows)` slice did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// Messages indexed by this slice.
    pub indexed: i64,
    /// Messages still waiting: exact for a queue of up to 20 per row the
    /// slice may index (at least 10 000), a larger one estimated from its
    /// newest part, so that the count never costs the whole queue
    /// ([`Status::pending`] is exact).
    pub pending: i64,
    /// The index is being merged into one segment after a large backlog
    /// (see [`crate::compaction`]); searches are complete meanwhile.
    #[serde(default)]
    pub compacting: bool,
    /// No work is left: nothing pending and no compaction.
    pub done: bool,
}

/// How writes reach the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexingMode {
    /// Triggers index every write in its own transaction (the default).
    Immediate,
    /// Triggers only queue writes; `sessions_reconcile` indexes them. For
    /// bulk imports.
    Deferred,
}

impl IndexingMode {
    /// The name stored in the database and used in SQL.
    pub fn name(self) -> &'static str {
        match self {
            IndexingMode::Immediate => "immediate",
            IndexingMode::Deferred => "deferred",
        }
    }

    /// Parses `immediate` or `deferred`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for any other text.
    pub fn parse(name: &str) -> Result<IndexingMode> {
        match name {
            "immediate" => Ok(IndexingMode::Immediate),
            "deferred" => Ok(IndexingMode::Deferred),
            other => Err(Error::InvalidArgument(format!(
                "sessions_set_indexing: mode must be 'immediate' or 'deferred', not '{other}'"
            ))),
        }
    }
}

/// The pause between attempts of `sessions_init()` that another
/// connection's write interrupts, and the least time they go on for (see
/// [`init`]).
const INIT_PAUSE: std::time::Duration = std::time::Duration::from_millis(20);
const INIT_PATIENCE: std::time::Duration = std::time::Duration::from_millis(200);

/// Runs `body` inside a savepoint: released on success, rolled back on error.
fn atomically<T>(db: &dyn Connection, body: impl FnOnce() -> Result<T>) -> Result<T> {
    db.execute_batch("SAVEPOINT session_search")?;
    match body() {
        Ok(value) => {
            db.execute_batch("RELEASE session_search")?;
            Ok(value)
        }
        Err(e) => {
            db.execute_batch("ROLLBACK TO session_search; RELEASE session_search")?;
            Err(e)
        }
    }
}

/// How a write transaction gets the write lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lock {
    /// Take it first, waiting as long as the connection's busy timeout
    /// says: SQLite calls the busy handler when a transaction starts by
    /// writing.
    Wait,
    /// Only if it is free now: SQLite never waits to turn a read
    /// transaction into a write one, it reports `SQLITE_BUSY` at once, so a
    /// body that reads first never waits.
    IfFree,
}

/// Takes the write lock, changing nothing: a write statement that matches
/// no row takes the lock without touching a page, so a slice that finds
/// nothing to do adds no frame to the WAL (which Litestream would ship).
fn take_write_lock(db: &dyn Connection) -> Result<()> {
    Ok(db.execute_batch("DELETE FROM session_search_moves WHERE 0")?)
}

/// The error of a write that found the database locked by another
/// connection, said plainly.
fn locked(function: &str, e: crate::db::SqlError) -> Error {
    Error::Sql(crate::db::SqlError {
        code: e.code,
        message: format!(
            "{function}: another connection is writing to the database ({}); nothing was changed: try again, or give this connection a longer busy timeout",
            e.message
        ),
    })
}

/// The schema version recorded in the database; 0 when it has none.
fn schema_version(db: &dyn Connection) -> Result<i64> {
    let has_meta = db.query_value(
        "SELECT count(*) FROM sqlite_master WHERE name = 'session_search_meta'",
        &[],
    )?;
    if has_meta.as_i64() == Some(0) {
        return Ok(0);
    }
    Ok(meta(db, "schema_version")?.as_i64().unwrap_or(0))
}

fn check_columns(db: &dyn Connection) -> Result<()> {
    for (table, columns) in REQUIRED_COLUMNS {
        let present: Vec<String> = db
            .query("SELECT name FROM pragma_table_info(?1)", &[table.into()])?
            .into_iter()
            .filter_map(|row| row[0].as_str().map(str::to_owned))
            .collect();
        // A table that does not exist yet is created whole.
        if present.is_empty() {
            continue;
        }
        if let Some(missing) = columns.iter().find(|c| !present.iter().any(|p| p == *c)) {
            return Err(Error::Schema(format!(
                "sessions_init: table {table} has no column {missing}; add it (see the schema in docs/sql.md) and run sessions_init() again"
            )));
        }
    }
    Ok(())
}

/// `sessions_init()`: creates the schema, or migrates it in place, and
/// returns the [`Status`] (without the integrity check). Idempotent.
///
/// Transcripts already in `sessions`/`messages` are adopted: their rows are
/// queued for reconciliation, not indexed here, so this stays quick.
///
/// # Errors
///
/// [`Error::Schema`] when the database was made by a newer version or a
/// pre-existing public table lacks a column; SQL errors otherwise. Nothing is
/// changed on error.
pub fn init(db: &dyn Connection) -> Result<Status> {
    if up_to_date(db)? {
        return read_status(db, false);
    }
    // Migrating reads before it writes, and SQLite reports a busy database
    // at once to a read transaction that wants to write: so the attempts go
    // on for as long as the connection's busy timeout would have waited.
    let busy_timeout = db
        .query_value("PRAGMA busy_timeout", &[])?
        .as_i64()
        .unwrap_or(0);
    let patience = std::time::Duration::from_millis(busy_timeout.max(0) as u64).max(INIT_PATIENCE);
    let started = std::time::Instant::now();
    loop {
        match atomically(db, || migrate(db)) {
            Err(Error::Sql(e)) if e.is_busy() && started.elapsed() < patience => {
                std::thread::sleep(INIT_PAUSE);
            }
            Err(Error::Sql(e)) if e.is_busy() => return Err(locked("sessions_init", e)),
            result => break result?,
        }
    }
    read_status(db, false)
}

/// Whether the schema, triggers and index are those of this build, so
/// `sessions_init()` has nothing to write (and works on a read-only
/// connection).
fn up_to_date(db: &dyn Connection) -> Result<bool> {
    Ok(schema_version(db)? == SCHEMA_VERSION
        && meta(db, "triggers")?.as_str() == Some(triggers_hash().as_str())
        && index_current(db)?)
}

/// Creates or migrates the schema. It reads before it writes, so a write of
/// another connection makes it fail at once with `SQLITE_BUSY` (also
/// `SQLITE_BUSY_SNAPSHOT`, when that write committed in between); [`init`]
/// tries again on a fresh snapshot.
fn migrate(db: &dyn Connection) -> Result<()> {
    let version = schema_version(db)?;
    if version > SCHEMA_VERSION {
        return Err(Error::Schema(format!(
                "sessions_init: the database has schema version {version}, newer than this session-search ({SCHEMA_VERSION}); upgrade session-search"
            )));
    }
    match version {
        0 => {
            check_columns(db)?;
            db.execute_batch(PUBLIC_TABLES_SQL)?;
            db.execute_batch(SCHEMA_SQL)?;
            db.execute_batch(ADOPT_SQL)?;
            set_meta(db, "tokenizer_version", i64::from(TOKENIZER_VERSION).into())?;
            set_meta(
                db,
                "redaction",
                Settings::current(Vec::new()).to_json().as_str().into(),
            )?;
        }
        1..=13 => {
            if version <= 12 {
                // Version 7 bounds the scope words by depth, version 8 leaves a
                // deep session's own word out: sessions scoped before keep their
                // longer scopes, which hold every word a search asks for now,
                // until their spawn chain changes. Version 12 gives a chain with
                // no top (a cycle) one word, which its searches now ask for: the
                // scopes that differ are written again below.
                db.execute_batch("DROP VIEW IF EXISTS session_search_scope_of")?;
                if version <= 8 {
                    if version <= 3 {
                        db.execute_batch(UPGRADE_SQL)?;
                    }
                    // Version 5 added the time index, version 6 widened the session
                    // index with created_at: both are indexes of the public tables.
                    db.execute_batch("DROP INDEX IF EXISTS session_search_messages_by_session")?;
                    db.execute_batch(PUBLIC_TABLES_SQL)?;
                    if version >= 4 {
                        // Version 9 marks each scope so that its words take one
                        // position: the index is rebuilt, and the scopes are
                        // written again by schema.sql (none is indexed any more, so
                        // no index row is removed with its old scope). Before
                        // version 4, UPGRADE_SQL has dropped the index already.
                        start_rebuild(db)?;
                        db.execute_batch("DELETE FROM session_search_scopes")?;
                    }
                }
                // Version 11 gives the index's tokenizer `markers 1`, which
                // only it needs: the index is dropped, and schema.sql creates it
                // again, empty, for reconciliation to fill (before version 4
                // UPGRADE_SQL ran above).
                if (4..=10).contains(&version) {
                    db.execute_batch(UPGRADE_SQL)?;
                }
                // Version 13 indexes only the backlog, the nodes of generation 0
                // (schema.sql creates `session_search_backlog`), and finds a
                // deleted message's children through its session's messages.
                db.execute_batch(
                    "DROP INDEX IF EXISTS session_search_nodes_to_index;
                     DROP INDEX IF EXISTS session_search_nodes_by_parent;",
                )?;
                let old = db.query_value(
                    &format!("SELECT count(*) FROM session_search_nodes WHERE {OLD_GENERATION}"),
                    &[],
                )?;
                mark_old_generations(db, old.as_i64().unwrap_or(0))?;
                // Version 10 adds the time blocks of `order: recent`, which
                // schema.sql fills.
                db.execute_batch(SCHEMA_SQL)?;
                db.execute_batch(RESCOPE_SQL)?;
            }
            // Version 14 drops the index of messages by time: `order:
            // recent` reads session_search_time_blocks instead.
            db.execute_batch("DROP INDEX IF EXISTS session_search_messages_by_time")?;
        }
        _ => {}
    }
    if version != SCHEMA_VERSION {
        set_meta(db, "schema_version", SCHEMA_VERSION.into())?;
    }
    install_triggers(db)?;
    ensure_index_current(db)?;
    Ok(())
}

/// (Re)installs the triggers when the database holds another version of
/// them, recognised by a hash of `triggers.sql`, so upgrading the extension
/// upgrades the triggers of existing databases.
fn install_triggers(db: &dyn Connection) -> Result<()> {
    let hash = triggers_hash();
    if meta(db, "triggers")?.as_str() == Some(hash.as_str()) {
        return Ok(());
    }
    let installed = db.query(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'session\\_search\\_%' ESCAPE '\\'",
        &[],
    )?;
    for row in installed {
        if let Some(name) = row[0].as_str() {
            db.execute_batch(&format!("DROP TRIGGER \"{name}\""))?;
        }
    }
    db.execute_batch(TRIGGERS_SQL)?;
    set_meta(db, "triggers", Value::Text(hash))
}

/// The fingerprint of this build's triggers.
fn triggers_hash() -> String {
    fnv1a(TRIGGERS_SQL.as_bytes()).to_string()
}

/// 64-bit FNV-1a: a stable fingerprint (std's hasher may change).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Fails unless `sessions_init()` has run on this database.
pub(crate) fn require_schema(db: &dyn Connection, function: &str) -> Result<()> {
    match schema_version(db)? {
        0 => Err(Error::Schema(format!(
            "{function}: no session-search schema in this database; run SELECT sessions_init() first"
        ))),
        _ => Ok(()),
    }
}

/// The stored redaction settings; the defaults alone when there are none
/// (a database made before version 4, until `sessions_init()` upgrades it).
fn redaction_settings(db: &dyn Connection) -> Result<Settings> {
    match meta(db, "redaction")? {
        Value::Text(json) => Settings::from_json(&json).map_err(Error::Schema),
        _ => Ok(Settings {
            version: 0,
            patterns: Vec::new(),
        }),
    }
}

/// The redactor for what leaves the engine: the defaults, the host's stored
/// patterns and `extra` (a request's own patterns).
pub(crate) fn redactor(db: &dyn Connection, function: &str, extra: &[String]) -> Result<Redactor> {
    let stored = match meta(db, "redaction")? {
        Value::Text(json) => Settings::redactor(&json).map_err(Error::Schema)?,
        _ => std::sync::Arc::new(Redactor::new::<&str>(&[]).map_err(Error::Schema)?),
    };
    stored
        .with(extra)
        .map_err(|e| Error::InvalidArgument(format!("{function}: {e}")))
}

/// Whether the index was built by this tokenizer and default redaction set
/// (`false`: by an earlier build, so this one rebuilds it).
///
/// # Errors
///
/// [`Error::Schema`] when either is newer: the index is a newer build's,
/// which this one can neither read nor write, and rebuilding it back would
/// undo it for every host sharing the database.
fn index_current(db: &dyn Connection) -> Result<bool> {
    let tokenizer = meta(db, "tokenizer_version")?.as_i64().unwrap_or(0);
    let redaction = redaction_settings(db)?.version;
    if tokenizer > i64::from(TOKENIZER_VERSION) || redaction > REDACTION_VERSION {
        return Err(Error::Schema(format!(
            "the search index was built by a newer session-search (tokenizer version {tokenizer}, redaction set {redaction}; this one has {TOKENIZER_VERSION} and {REDACTION_VERSION}); upgrade session-search to use this database"
        )));
    }
    Ok(tokenizer == i64::from(TOKENIZER_VERSION) && redaction == REDACTION_VERSION)
}

/// Empties the index and starts a new generation: every node becomes
/// backlog for reconciliation, and nothing indexed the old way can be
/// returned meanwhile.
fn start_rebuild(db: &dyn Connection) -> Result<()> {
    // The nodes of the index emptied here, and those an unfinished reset
    // has still to reach, keep old generations.
    let indexed = RankTotals::read(db)?.map_or(0, |totals| totals.rows);
    let unreset = meta(db, RESET_LEFT)?.as_i64().unwrap_or(0);
    db.execute_batch(
        "INSERT INTO session_search_fts(session_search_fts) VALUES('delete-all');
         UPDATE session_search_meta SET value = value + 1 WHERE key = 'generation';",
    )?;
    mark_old_generations(db, indexed + unreset)?;
    compaction::forget(db)
}

/// Meta key: the nodes with a smaller id may still carry the generation of
/// an index that a rebuild emptied, which the triggers and searches treat
/// as not indexed; NULL (absent) when none may. Reconciliation resets them
/// to 0, which puts those on a branch with searchable text in the backlog
/// (`session_search_backlog`), newest first, a bounded number each slice
/// ([`reset_old_generations`]): a new generation starts without a pass over
/// every node under the write lock.
const RESET_BELOW: &str = "reset_below";

/// Meta key: how many nodes below [`RESET_BELOW`] have an old generation,
/// as counted when it was set, less those reset since (a message edited,
/// moved off its branch or deleted before its reset is still counted).
const RESET_LEFT: &str = "reset_left";

/// Marks every node as possibly of an old generation, `left` of them
/// indeed (see [`RESET_BELOW`]).
fn mark_old_generations(db: &dyn Connection, left: i64) -> Result<()> {
    let below = db.query_value("SELECT max(id) + 1 FROM session_search_nodes", &[])?;
    set_meta(db, RESET_BELOW, below)?;
    set_meta(db, RESET_LEFT, left.into())
}

/// Nodes whose generation a slice resets for each row it may index: a
/// reset costs about 1 µs against the ~70 µs of indexing a row.
const RESET_PER_ROW: i64 = 20;

/// Sets to 0 the old generations of the `max_rows × RESET_PER_ROW` newest
/// nodes below [`RESET_BELOW`], and moves that bound below them.
fn reset_old_generations(db: &dyn Connection, max_rows: i64) -> Result<()> {
    let Some(below) = meta(db, RESET_BELOW)?.as_i64() else {
        return Ok(());
    };
    // The lowest id this slice resets, or none when fewer nodes are left
    // than it may reset: then it resets them all and the bound goes.
    let lowest = db
        .query_value(
            "SELECT id FROM session_search_nodes WHERE id < ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2",
            &[
                below.into(),
                (max_rows.saturating_mul(RESET_PER_ROW) - 1).into(),
            ],
        )?
        .as_i64();
    db.query(
        &format!(
            "UPDATE session_search_nodes SET indexed_gen = 0
             WHERE id >= ?1 AND id < ?2 AND {OLD_GENERATION}"
        ),
        &[lowest.unwrap_or(i64::MIN).into(), below.into()],
    )?;
    let reset = db
        .query_value("SELECT changes()", &[])?
        .as_i64()
        .unwrap_or(0);
    let left = meta(db, RESET_LEFT)?.as_i64().unwrap_or(0) - reset;
    set_meta(db, RESET_BELOW, lowest.map_or(Value::Null, Value::from))?;
    set_meta(
        db,
        RESET_LEFT,
        lowest.map_or(Value::Null, |_| left.max(0).into()),
    )
}

/// The condition of a node of an old generation: only a node on its branch with
/// searchable text is ever indexed, and one that leaves the branch or
/// changes gets generation 0, so each of them is a message its reset will
/// put in the backlog.
const OLD_GENERATION: &str = "indexed_gen <> 0
     AND indexed_gen <> (SELECT value FROM session_search_meta WHERE key = 'generation')";

/// When the database was indexed by an earlier tokenizer version or
/// default redaction set, starts a rebuild under the current ones (keeping
/// the host's patterns). Returns whether it did; fails on a newer index
/// (see [`index_current`]).
fn ensure_index_current(db: &dyn Connection) -> Result<bool> {
    if index_current(db)? {
        return Ok(false);
    }
    let host_patterns = redaction_settings(db)?.patterns;
    start_rebuild(db)?;
    set_meta(db, "tokenizer_version", i64::from(TOKENIZER_VERSION).into())?;
    set_meta(
        db,
        "redaction",
        Settings::current(host_patterns).to_json().as_str().into(),
    )?;
    Ok(true)
}

/// What `sessions_set_redaction(patterns_json)` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedactionChange {
    /// Version of the default patterns.
    pub version: u32,
    /// The host patterns now stored.
    pub patterns: usize,
    /// Whether they differ from the ones before, so the index is rebuilt.
    pub changed: bool,
    /// Messages waiting to be (re-)indexed.
    pub pending: i64,
}

/// `sessions_set_redaction(patterns_json)`: stores the host's redaction
/// patterns in the database, so every connection and replica redacts alike.
/// A change empties the index and reconciliation re-indexes every message
/// under the new patterns; until then searches return only what has been
/// re-indexed (with `indexing: true`), never text redacted the old way.
///
/// # Errors
///
/// [`Error::InvalidArgument`] naming a pattern that does not compile;
/// [`Error::Schema`] before `sessions_init()`.
pub fn set_redaction(db: &dyn Connection, patterns: Vec<String>) -> Result<RedactionChange> {
    Redactor::new(&patterns)
        .map_err(|e| Error::InvalidArgument(format!("sessions_set_redaction: {e}")))?;
    require_schema(db, "sessions_set_redaction")?;
    let count = patterns.len();
    let settings = Settings::current(patterns);
    let changed = atomically(db, || {
        take_write_lock(db)?;
        ensure_index_current(db)?;
        if redaction_settings(db)? == settings {
            return Ok(false);
        }
        start_rebuild(db)?;
        set_meta(db, "redaction", settings.to_json().as_str().into())?;
        Ok(true)
    })
    .map_err(|e| match e {
        Error::Sql(e) if e.is_busy() => locked("sessions_set_redaction", e),
        e => e,
    })?;
    request_drain(db);
    Ok(RedactionChange {
        version: REDACTION_VERSION,
        patterns: count,
        changed,
        pending: pending(db)?,
    })
}

/// Asks `db`'s binding for a background drain ([`crate::drain`]) when the
/// database is in WAL mode, where the drain's writes never block the
/// host's reads; the host may write through `db` (no `PRAGMA query_only`;
/// a read-only connection is refused by the binding): a host that only
/// reads never causes a write; and `db` is in the normal locking mode,
/// since a host in exclusive mode keeps WAL's index in its own memory,
/// where the drain's connection would not see it (the binding refuses a
/// host on another VFS for the same reason). Returns whether a drain runs.
pub fn request_drain(db: &dyn Connection) -> bool {
    let drainable = db
        .query_value(DRAINABLE_SQL, &[])
        .is_ok_and(|drainable| drainable.as_i64() == Some(1));
    drainable && db.reconcile_elsewhere()
}

/// Whether the connection is in WAL mode, writable and in the normal
/// locking mode (see [`request_drain`]): the three pragmas in one
/// statement, as a search may ask.
const DRAINABLE_SQL: &str = "SELECT (SELECT journal_mode FROM pragma_journal_mode) = 'wal' \
     AND (SELECT query_only FROM pragma_query_only) = 0 \
     AND (SELECT locking_mode FROM pragma_locking_mode) = 'normal'";

/// The backlog: nodes whose text belongs in the index and is not in it
/// (read through `session_search_backlog`, of which it is the condition).
const BACKLOG: &str =
    "FROM session_search_nodes WHERE on_branch = 1 AND indexable = 1 AND indexed_gen = 0";

/// Number of nodes waiting to be indexed, those an old generation still
/// keeps out of the backlog included.
fn pending(db: &dyn Connection) -> Result<i64> {
    Ok(db
        .query_value(
            &format!(
                "SELECT (SELECT count(*) {BACKLOG}) + (SELECT count(*) FROM session_search_nodes WHERE {OLD_GENERATION}
                   AND id < (SELECT value FROM session_search_meta WHERE key = '{RESET_BELOW}'))"
            ),
            &[],
        )?
        .as_i64()
        .unwrap_or(0))
}

/// Backlog nodes that [`pending_within`] counts one by one, for each row
/// the slice may index: about 1 µs against the ~70 µs of indexing a row.
const PENDING_COUNTED_PER_ROW: i64 = 20;

/// Backlog nodes that [`pending_within`] counts one by one however small
/// the slice: a backlog of fewer is counted exactly (in about half a
/// millisecond).
const PENDING_COUNTED_AT_LEAST: i64 = 10_000;

/// The number of nodes waiting to be indexed, read at a cost that does not
/// grow with the backlog: it is counted one by one, newest first, up to
/// `max_rows × PENDING_COUNTED_PER_ROW` nodes (at least
/// `PENDING_COUNTED_AT_LEAST`), so it is exact for a backlog of fewer; a
/// larger one's count is its counted nodes scaled by the span of ids it
/// covers against the span of those counted, exact when the queued
/// messages are spread evenly over the ids. The nodes of an old generation
/// not yet reset are added as [`RESET_LEFT`] counts them.
fn pending_within(db: &dyn Connection, max_rows: i64) -> Result<i64> {
    let counted_at_most = max_rows
        .saturating_mul(PENDING_COUNTED_PER_ROW)
        .max(PENDING_COUNTED_AT_LEAST);
    let backlog = db.query(
        &format!(
            "SELECT count(*), max(id), min(id), (SELECT min(id) {BACKLOG})
             FROM (SELECT id {BACKLOG} ORDER BY id DESC LIMIT ?1)"
        ),
        &[counted_at_most.into()],
    )?;
    let number = |i: usize| backlog[0].get(i).and_then(Value::as_i64).unwrap_or(0);
    let (counted, newest, last_counted, oldest) = (number(0), number(1), number(2), number(3));
    let unreset = meta(db, RESET_LEFT)?.as_i64().unwrap_or(0);
    if counted < counted_at_most {
        return Ok(counted + unreset);
    }
    let spread = (newest - oldest + 1) as f64 / (newest - last_counted + 1) as f64;
    Ok((counted as f64 * spread).round() as i64 + unreset)
}

/// Whether any node waits to be indexed (reads one index entry), or may
/// (an old generation's reset is unfinished).
fn has_pending(db: &dyn Connection) -> Result<bool> {
    Ok(db
        .query_value(
            &format!(
                "SELECT EXISTS (SELECT 1 {BACKLOG}) OR (SELECT value IS NOT NULL
                   FROM session_search_meta WHERE key = '{RESET_BELOW}')"
            ),
            &[],
        )?
        .as_i64()
        == Some(1))
}

/// What a search finds of the index when it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Index {
    /// Every message that belongs in it is in it.
    Complete,
    /// Reconciliation has work left: results may be incomplete.
    Building,
    /// Built by another tokenizer or default redaction set, and the rebuild
    /// could not start (the database is locked or read-only): nothing may
    /// be read from it.
    Stale,
}

/// Brings the index up to date as far as a search may without waiting or
/// slowing down: it never waits for a lock and leaves the backlog to a
/// background drain ([`crate::drain`]) when the connection can start one
/// and indexing is immediate. Otherwise it indexes up to `max_rows` rows
/// itself if the write lock is free.
pub(crate) fn catch_up(db: &dyn Connection, max_rows: i64) -> Result<Index> {
    let unwritable = |e: &Error| matches!(e, Error::Sql(e) if e.is_busy() || e.is_read_only());
    if !index_current(db)? {
        match atomically(db, || ensure_index_current(db)) {
            Err(e) if unwritable(&e) => return Ok(Index::Stale),
            result => result?,
        };
    }
    if !has_pending(db)? {
        // A drain compacts an index much written since its last compaction
        // (by appends, say) and takes up a compaction left unfinished by a
        // drain that ended with its process.
        if compaction::wanted(db)? && indexing_mode(db)? == IndexingMode::Immediate {
            request_drain(db);
        }
        return Ok(Index::Complete);
    }
    if indexing_mode(db)? == IndexingMode::Deferred || !request_drain(db) {
        match reconcile_slice(db, max_rows, Lock::IfFree) {
            Err(e) if unwritable(&e) => {}
            result => {
                result?;
            }
        }
    }
    Ok(match has_pending(db)? {
        true => Index::Building,
        false => Index::Complete,
    })
}

/// One slice for a background drain: idle in deferred mode, which asks
/// that nothing be indexed until the host calls `sessions_reconcile` (a
/// bulk import is running). Waits for the write lock as the connection's
/// busy timeout says. Returns whether work remains that the drain should
/// continue with (a backlog or a compaction).
///
/// # Errors
///
/// SQL errors (a busy database, say), for the drain to retry later.
pub fn background_slice(db: &dyn Connection, max_rows: i64) -> Result<bool> {
    if indexing_mode(db)? == IndexingMode::Deferred {
        return Ok(false);
    }
    reconcile_slice(db, max_rows, Lock::Wait)?;
    Ok(has_pending(db)? || compaction::remains(db)?)
}

/// Indexes up to `max_rows` backlog nodes, newest first, and returns how
/// many it indexed. Its reads and writes are one transaction, so the slice
/// reads the rows it indexes, never the whole backlog (see
/// `session_search_backlog`).
///
/// A slice that waits for the lock (`sessions_reconcile`, the drain; not a
/// search's) spends what is left of its budget once the backlog is empty
/// on compaction ([`compaction::step`]), as long as indexing the messages
/// it did not index would have taken.
fn reconcile_slice(db: &dyn Connection, max_rows: i64, lock: Lock) -> Result<i64> {
    atomically(db, || {
        if lock == Lock::Wait {
            take_write_lock(db)?;
        }
        ensure_index_current(db)?;
        reset_old_generations(db, max_rows)?;
        db.query(RECONCILE_INDEX_SQL, &[max_rows.into()])?;
        db.query(RECONCILE_MARK_SQL, &[max_rows.into()])?;
        let indexed = db
            .query_value("SELECT changes()", &[])?
            .as_i64()
            .unwrap_or(0);
        let backlog_left = has_pending(db)?;
        compaction::count_reconciled(db, indexed)?;
        if !backlog_left {
            compaction::decide(db)?;
            if lock == Lock::Wait {
                compaction::step(db, max_rows - indexed)?;
            }
        }
        Ok(indexed)
    })
}

/// `sessions_reconcile(max_rows)`: one bounded slice of reconciliation. It
/// waits for another connection's write as long as this connection's busy
/// timeout says, then fails saying so, having changed nothing.
///
/// # Errors
///
/// [`Error::InvalidArgument`] unless `max_rows` ≥ 1; [`Error::Schema`] before
/// `sessions_init()`; [`Error::Sql`] naming the lock when the database stayed
/// locked.
pub fn reconcile(db: &dyn Connection, max_rows: i64) -> Result<Progress> {
    if max_rows < 1 {
        return Err(Error::InvalidArgument(format!(
            "sessions_reconcile: max_rows must be a positive integer, not {max_rows}"
        )));
    }
    require_schema(db, "sessions_reconcile")?;
    let indexed = reconcile_slice(db, max_rows, Lock::Wait).map_err(|e| match e {
        Error::Sql(e) if e.is_busy() => locked("sessions_reconcile", e),
        e => e,
    })?;
    // An unfinished reset of old generations is work left even when none
    // of the nodes it has still to look at turns out to wait.
    let left = has_pending(db)?;
    let pending = pending_within(db, max_rows)?.max(i64::from(left));
    let compacting = compaction::remains(db)?;
    Ok(Progress {
        indexed,
        pending,
        compacting,
        done: !left && !compacting,
    })
}

/// `sessions_set_indexing(mode)`: switches between immediate and deferred
/// indexing and returns the previous mode.
///
/// # Errors
///
/// [`Error::Schema`] before `sessions_init()`.
pub fn set_indexing(db: &dyn Connection, mode: IndexingMode) -> Result<IndexingMode> {
    require_schema(db, "sessions_set_indexing")?;
    let previous = indexing_mode(db)?;
    set_meta(db, "indexing", mode.name().into())?;
    if mode == IndexingMode::Immediate && (has_pending(db)? || compaction::remains(db)?) {
        request_drain(db);
    }
    Ok(previous)
}

fn indexing_mode(db: &dyn Connection) -> Result<IndexingMode> {
    match meta(db, "indexing")?.as_str() {
        Some("deferred") => Ok(IndexingMode::Deferred),
        _ => Ok(IndexingMode::Immediate),
    }
}

/// `sessions_status()`: counts, versions and the FTS5 integrity check.
///
/// # Errors
///
/// [`Error::Schema`] before `sessions_init()`.
pub fn status(db: &dyn Connection) -> Result<Status> {
    require_schema(db, "sessions_status")?;
    read_status(db, true)
}

/// `integrity` of an index built by an earlier version of session-search.
const STALE_INTEGRITY: &str = "not checked: the index was built by an earlier version of session-search; sessions_init() or a search on a writable connection rebuilds it";

fn read_status(db: &dyn Connection, check_integrity: bool) -> Result<Status> {
    let count = |sql: &str| -> Result<i64> { Ok(db.query_value(sql, &[])?.as_i64().unwrap_or(0)) };
    let integrity = match check_integrity {
        false => None,
        // An index built by an earlier version is emptied before it is
        // read, and what was written to it since does not match its tokens;
        // one of a newer version this build cannot read.
        true => Some(match index_current(db) {
            Ok(true) => match db.execute_batch(
                "INSERT INTO session_search_fts(session_search_fts) VALUES('integrity-check')",
            ) {
                Ok(()) => "ok".to_owned(),
                Err(e) if e.is_read_only() => "not checked: read-only connection".to_owned(),
                Err(e) => e.message,
            },
            Ok(false) => STALE_INTEGRITY.to_owned(),
            Err(Error::Schema(newer)) => format!("not checked: {newer}"),
            Err(e) => return Err(e),
        }),
    };
    Ok(Status {
        schema_version: meta(db, "schema_version")?.as_i64().unwrap_or(0),
        tokenizer_version: TOKENIZER_VERSION,
        redaction_version: REDACTION_VERSION,
        redaction_patterns: redaction_settings(db)?.patterns.len(),
        // One node per message (the triggers keep them one for one), in a
        // b-tree smaller than any index of `messages`.
        messages: count("SELECT count(*) FROM session_search_nodes")?,
        // The index's own row count (the integrity check holds it to the
        // rows it should hold): counting the indexed nodes instead took
        // 150 ms at 3 M messages, on every `sessions_init()`.
        indexed: RankTotals::read(db)?.map_or(0, |totals| totals.rows),
        pending: pending(db)?,
        indexing: indexing_mode(db)?,
        integrity,
        segments: match check_integrity {
            true => Some(compaction::segments(db)?),
            false => None,
        },
    })
}
