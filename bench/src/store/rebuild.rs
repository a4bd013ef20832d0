//! Search during a rebuild: a large store, fully indexed, is searched with
//! `sessions_search`; then a tokenizer version change makes reconciliation
//! rebuild the index: slices of `sessions_reconcile` are timed, then a store
//! opened with its background drain rebuilds the rest while the same
//! searches run.

use super::databases::{self, Database, Variant, TRANSACTION_ROWS};
use super::transcript::{self, Transcript};
use crate::corpus::Lengths;
use crate::index_cost;
use crate::memory;
use crate::search::fts5_string;
use crate::stats::sorted;
use crate::stats::{spent, timed_ms};
use serde::{Deserialize, Serialize};
use session_search::{IndexingMode, Store};
use std::error::Error;
use std::path::Path;
use std::time::Instant;

/// Messages in the store at scale 1.
const MESSAGES: f64 = 1_000_000.0;

/// Sessions the messages are spread over.
pub const SESSIONS: usize = 1000;

/// Message lengths: shorter than the corpus', to keep the load quick.
pub const LENGTHS: Lengths = Lengths { min: 40, max: 400 };

/// Seed of the messages.
const SEED: u64 = 0x5E55_0203;

/// Rows per reconciliation slice while loading.
pub const LOAD_SLICE_ROWS: i64 = 50_000;

/// Rows per reconciliation slice during the rebuild.
pub const SLICE_ROWS: i64 = 5000;

/// Slices of [`SLICE_ROWS`] timed at the start of the rebuild.
pub const SLICES: usize = 10;

/// Most passes over [`WORDS`] while the background drain rebuilds.
pub const DURING_PASSES: usize = 20;

/// Timed passes over [`WORDS`] before the rebuild.
pub const BEFORE_PASSES: usize = 20;

/// The words searched for, from very common to less common ones.
pub const WORDS: [&str; 5] = ["the", "error", "deploy", "staging", "timeout"];

/// The timed query, with [`search_options`].
pub const SEARCH_SQL: &str = "SELECT sessions_search(?1, ?2)";

/// The query counting every match (untimed).
const COUNT_SQL: &str = "SELECT count(*) FROM session_search_fts WHERE session_search_fts MATCH ?1";

/// The latencies of one word.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WordRun {
    /// The word.
    pub word: String,
    /// Matching messages in the full index.
    pub matches_before: u64,
    /// Matching messages after the measured slices.
    pub matches_after: u64,
    /// Sorted latencies on the full index, in milliseconds.
    pub before_ms: Vec<f64>,
    /// Sorted latencies while the background drain rebuilds, in
    /// milliseconds.
    pub during_ms: Vec<f64>,
}

/// What happened while the background drain rebuilt.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Drain {
    /// Messages it indexed while the searches ran.
    pub rows: i64,
    /// Seconds the searches ran.
    pub seconds: f64,
    /// Searches timed.
    pub searches: usize,
    /// Searches that said `indexing: true`.
    pub indexing: usize,
}

/// Everything the rebuild benchmark measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rebuild {
    /// Messages in the store.
    pub messages: usize,
    /// Their total content, in bytes.
    pub bytes: usize,
    /// Seconds of the deferred inserts of the load.
    pub load_insert_seconds: f64,
    /// Seconds of reconciling the whole load.
    pub load_reconcile_seconds: f64,
    /// Size of the database after the load (`page_count * page_size`).
    pub db_bytes: u64,
    /// Milliseconds of the `reconcile(1)` that detected the tokenizer
    /// change, emptied the index and queued every message.
    pub start_ms: f64,
    /// Messages queued by the rebuild.
    pub backlog: i64,
    /// Milliseconds of each measured slice.
    pub slice_ms: Vec<f64>,
    /// Messages the measured slices indexed.
    pub slice_rows: i64,
    /// The searches while the background drain rebuilt.
    pub drain: Drain,
    /// One entry per word of [`WORDS`].
    pub words: Vec<WordRun>,
    /// The index after the load against the OpenClaw-style anchor over
    /// the same rows, built then (and dropped before the searches).
    pub cost: index_cost::Cost,
    /// Peak RSS of the benchmark's process, in KiB.
    pub peak_rss_kib: u64,
}

/// The corpus, as the index cost names it (the part's legend says what
/// it is).
pub fn corpus(messages: usize) -> String {
    format!("short turns {}k", messages / 1000)
}

/// The number of messages at `scale`.
pub fn messages(scale: f64) -> usize {
    ((MESSAGES * scale) as usize).max(10 * TRANSACTION_ROWS)
}

/// Loads the store in `work`, queries it, then starts a rebuild and
/// queries it between slices (the child's side).
///
/// # Errors
///
/// Any I/O, SQLite or session-search error.
pub fn run(scale: f64, work: &Path) -> Result<Rebuild, Box<dyn Error>> {
    let path = work.join("rebuild.db");
    let database = Database::create(Variant::SessionSearch(IndexingMode::Deferred), &path)?;
    let store = database.store().expect("a session-search store");
    let keys: Vec<String> = (0..SESSIONS).map(transcript::session_key).collect();
    database.create_sessions(&keys)?;
    let load = database.fill(&mut Transcript::new(SEED, LENGTHS), &keys, messages(scale))?;
    let mut load_reconcile_seconds = 0.0;
    let ((), indexing) = spent(|| -> session_search::Result<()> {
        while !reconcile(store, LOAD_SLICE_ROWS, &mut load_reconcile_seconds)?.done {}
        Ok(())
    })?;
    store.set_indexing(IndexingMode::Immediate)?;
    let db_bytes = database.connection().query_row(
        "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size",
        [],
        |row| row.get(0),
    )?;
    let cost = index_cost::measure(database.connection(), indexing)?;
    index_cost::drop_anchor(database.connection())?;
    let mut words = query_full_index(&database)?;
    database.connection().execute(
        "UPDATE session_search_meta SET value = 0 WHERE key = 'tokenizer_version'",
        [],
    )?;
    let (start, start_ms) = timed_ms(|| store.reconcile(1))?;
    let (slice_ms, slice_rows) = time_slices(store)?;
    let drain = search_during_drain(&path, &mut words)?;
    for word in &mut words {
        word.matches_after = count(&database, &word.word)?;
    }
    let peak_rss_kib = memory::peak_rss_kib()?;
    drop(database);
    databases::remove(&path)?;
    Ok(Rebuild {
        messages: messages(scale),
        bytes: load.bytes,
        load_insert_seconds: load.seconds,
        load_reconcile_seconds,
        db_bytes,
        start_ms,
        backlog: start.pending + start.indexed,
        slice_ms,
        slice_rows,
        drain,
        words,
        cost,
        peak_rss_kib,
    })
}

/// One reconciliation slice of `rows`; adds its seconds to `seconds`.
fn reconcile(
    store: &Store,
    rows: i64,
    seconds: &mut f64,
) -> session_search::Result<session_search::Progress> {
    let (progress, ms) = timed_ms(|| store.reconcile(rows))?;
    *seconds += ms / 1e3;
    Ok(progress)
}

/// Counts, warms up and then times every word on the full index.
fn query_full_index(database: &Database) -> rusqlite::Result<Vec<WordRun>> {
    let conn = database.connection();
    let mut words = Vec::with_capacity(WORDS.len());
    for word in WORDS {
        words.push(WordRun {
            word: word.to_owned(),
            matches_before: count(database, word)?,
            matches_after: 0,
            before_ms: Vec::new(),
            during_ms: Vec::new(),
        });
        time_search(conn, word)?;
    }
    let mut before: Vec<Vec<f64>> = vec![Vec::new(); WORDS.len()];
    for _ in 0..BEFORE_PASSES {
        for (latencies, word) in before.iter_mut().zip(WORDS) {
            latencies.push(time_search(conn, word)?.1);
        }
    }
    for (run, latencies) in words.iter_mut().zip(before) {
        run.before_ms = sorted(latencies);
    }
    Ok(words)
}

/// Times [`SLICES`] slices of [`SLICE_ROWS`]; returns their milliseconds
/// and the rows they indexed.
fn time_slices(store: &Store) -> session_search::Result<(Vec<f64>, i64)> {
    let mut slice_ms = Vec::with_capacity(SLICES);
    let mut rows = 0;
    for _ in 0..SLICES {
        let (progress, ms) = timed_ms(|| store.reconcile(SLICE_ROWS))?;
        slice_ms.push(ms);
        rows += progress.indexed;
        if progress.done {
            break;
        }
    }
    Ok((slice_ms, rows))
}

/// Opens the store at `path` as a host does (its searches start the
/// background drain) and times every word until [`DURING_PASSES`] passes
/// ran or nothing is pending.
fn search_during_drain(path: &Path, words: &mut [WordRun]) -> Result<Drain, Box<dyn Error>> {
    let store = Store::open(path)?;
    let started = Instant::now();
    let pending_at_start = store.status()?.pending;
    let mut during: Vec<Vec<f64>> = vec![Vec::new(); words.len()];
    let mut indexing = 0;
    for _ in 0..DURING_PASSES {
        let before_pass = indexing;
        for (latencies, word) in during.iter_mut().zip(words.iter()) {
            let (said_indexing, ms) = time_search(store.connection(), &word.word)?;
            latencies.push(ms);
            indexing += usize::from(said_indexing);
        }
        if indexing == before_pass {
            break;
        }
    }
    let searches = during.iter().map(Vec::len).sum();
    for (word, latencies) in words.iter_mut().zip(during) {
        word.during_ms = sorted(latencies);
    }
    Ok(Drain {
        rows: pending_at_start - store.status()?.pending,
        seconds: started.elapsed().as_secs_f64(),
        searches,
        indexing,
    })
}

/// The options of every timed search: the first session asks, at `all`.
fn search_options() -> String {
    serde_json::json!({ "caller": transcript::session_key(0), "visibility": "all" }).to_string()
}

/// One [`SEARCH_SQL`] for `word`: whether it said `indexing: true`, and its
/// milliseconds.
fn time_search(conn: &rusqlite::Connection, word: &str) -> rusqlite::Result<(bool, f64)> {
    let options = search_options();
    let (response, ms) = timed_ms(|| {
        conn.prepare_cached(SEARCH_SQL)?
            .query_row((word, &options), |row| row.get::<_, String>(0))
    })?;
    Ok((response.contains("\"indexing\":true"), ms))
}

/// Messages matching `word` ([`COUNT_SQL`]).
fn count(database: &Database, word: &str) -> rusqlite::Result<u64> {
    database
        .connection()
        .prepare_cached(COUNT_SQL)?
        .query_row([fts5_string(word)], |row| row.get(0))
}
