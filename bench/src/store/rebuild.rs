//! Search during a rebuild: a large store, fully indexed, is queried; then a
//! tokenizer version change makes reconciliation rebuild the index, and the
//! same queries run between reconciliation slices.

use super::databases::{self, Database, Variant, TRANSACTION_ROWS};
use super::timed_ms;
use super::transcript::{self, Transcript};
use crate::corpus::Lengths;
use crate::memory;
use crate::search::{fts5_string, search};
use crate::stats::sorted;
use serde::{Deserialize, Serialize};
use session_search::{IndexingMode, Store};
use std::error::Error;
use std::path::Path;

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

/// Slices measured during the rebuild.
pub const SLICES: usize = 20;

/// Timed passes over [`WORDS`] before the rebuild.
pub const BEFORE_PASSES: usize = 20;

/// The words searched for, from very common to less common ones.
pub const WORDS: [&str; 5] = ["the", "error", "deploy", "staging", "timeout"];

/// The timed query.
pub const SEARCH_SQL: &str =
    "SELECT rowid FROM session_search_fts WHERE session_search_fts MATCH ?1 ORDER BY rank LIMIT 10";

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
    /// Sorted latencies between slices of the rebuild, in milliseconds.
    pub during_ms: Vec<f64>,
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
    /// One entry per word of [`WORDS`].
    pub words: Vec<WordRun>,
    /// Peak RSS of the benchmark's process, in KiB.
    pub peak_rss_kib: u64,
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
    while !reconcile(store, LOAD_SLICE_ROWS, &mut load_reconcile_seconds)?.done {}
    store.set_indexing(IndexingMode::Immediate)?;
    let db_bytes = database.connection().query_row(
        "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size",
        [],
        |row| row.get(0),
    )?;
    let mut words = query_full_index(&database)?;
    database.connection().execute(
        "UPDATE session_search_meta SET value = 0 WHERE key = 'tokenizer_version'",
        [],
    )?;
    let (start, start_ms) = timed_ms(|| store.reconcile(1))?;
    let (slice_ms, slice_rows) = query_during_rebuild(&database, &mut words)?;
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
        words,
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
    let mut words = Vec::with_capacity(WORDS.len());
    for word in WORDS {
        words.push(WordRun {
            word: word.to_owned(),
            matches_before: count(database, word)?,
            matches_after: 0,
            before_ms: Vec::new(),
            during_ms: Vec::new(),
        });
        time_search(database, word)?;
    }
    let mut before: Vec<Vec<f64>> = vec![Vec::new(); WORDS.len()];
    for _ in 0..BEFORE_PASSES {
        for (latencies, word) in before.iter_mut().zip(WORDS) {
            latencies.push(time_search(database, word)?);
        }
    }
    for (run, latencies) in words.iter_mut().zip(before) {
        run.before_ms = sorted(latencies);
    }
    Ok(words)
}

/// Runs up to [`SLICES`] slices of [`SLICE_ROWS`], timing every word after
/// each; returns the slices' milliseconds and the rows they indexed.
fn query_during_rebuild(
    database: &Database,
    words: &mut [WordRun],
) -> Result<(Vec<f64>, i64), Box<dyn Error>> {
    let store = database.store().expect("a session-search store");
    let mut slice_ms = Vec::with_capacity(SLICES);
    let mut rows = 0;
    let mut during: Vec<Vec<f64>> = vec![Vec::new(); words.len()];
    for _ in 0..SLICES {
        let (progress, ms) = timed_ms(|| store.reconcile(SLICE_ROWS))?;
        slice_ms.push(ms);
        rows += progress.indexed;
        for (latencies, word) in during.iter_mut().zip(words.iter()) {
            latencies.push(time_search(database, &word.word)?);
        }
        if progress.done {
            break;
        }
    }
    for (word, latencies) in words.iter_mut().zip(during) {
        word.during_ms = sorted(latencies);
    }
    Ok((slice_ms, rows))
}

/// Milliseconds of one [`SEARCH_SQL`] for `word`.
fn time_search(database: &Database, word: &str) -> rusqlite::Result<f64> {
    let query = fts5_string(word);
    let (_, ms) = timed_ms(|| search(database.connection(), SEARCH_SQL, &query))?;
    Ok(ms)
}

/// Messages matching `word` ([`COUNT_SQL`]).
fn count(database: &Database, word: &str) -> rusqlite::Result<u64> {
    database
        .connection()
        .prepare_cached(COUNT_SQL)?
        .query_row([fts5_string(word)], |row| row.get(0))
}
