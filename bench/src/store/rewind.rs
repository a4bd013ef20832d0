//! Rewind cost against session size: one store holding a long linear
//! session of each size, rewound by a few messages and switched back, next
//! to single appends into the same session.

use super::databases::{self, Database, Variant};
use super::transcript::{self, Transcript};
use crate::corpus::Lengths;
use crate::memory;
use crate::stats::timed_ms;
use crate::stats::{median, sorted};
use serde::{Deserialize, Serialize};
use session_search::IndexingMode;
use std::error::Error;
use std::path::Path;

/// Session sizes at scale 1, in messages.
const SIZES: [f64; 3] = [1_000.0, 10_000.0, 100_000.0];

/// Smallest session size at any scale.
const MIN_SIZE: usize = 100;

/// Messages a rewind leaves behind.
pub const REWIND_BY: usize = 10;

/// Timed repetitions per session; medians are reported.
pub const REPEATS: usize = 50;

/// Untimed repetitions before them.
const WARM_UP: usize = 3;

/// Message lengths, as in the English corpus.
const LENGTHS: Lengths = Lengths {
    min: 100,
    max: 2000,
};

/// Seed of the messages.
const SEED: u64 = 0x5E55_0202;

/// The leaf move the benchmark times.
pub const REWIND_SQL: &str = "UPDATE sessions SET leaf_id = ?2 WHERE session_key = ?1";

/// Medians measured in one session.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct SessionRun {
    /// Messages in the session before the first repetition.
    pub messages: usize,
    /// Median of one append, in milliseconds.
    pub append_ms: f64,
    /// Median of one rewind by [`REWIND_BY`] messages, in milliseconds.
    pub rewind_ms: f64,
    /// Median of switching back to the leaf before the rewind, in
    /// milliseconds.
    pub switch_back_ms: f64,
}

/// Everything the rewind benchmark measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rewind {
    /// Messages in the store.
    pub messages: usize,
    /// Seconds to fill the store (immediate indexing).
    pub build_seconds: f64,
    /// One entry per session, smallest first.
    pub sessions: Vec<SessionRun>,
    /// `sessions_status()` at the end: whether the index still equals the
    /// active branches, and the backlog.
    pub integrity: String,
    /// Messages waiting for reconciliation at the end (should be 0).
    pub pending: i64,
    /// Peak RSS of the benchmark's process, in KiB.
    pub peak_rss_kib: u64,
}

/// The session sizes at `scale`.
pub fn sizes(scale: f64) -> Vec<usize> {
    SIZES
        .iter()
        .map(|&size| ((size * scale) as usize).max(MIN_SIZE))
        .collect()
}

/// Builds the store in `work`, then times appends, rewinds and switches back
/// in each session (the child's side).
///
/// # Errors
///
/// Any I/O, SQLite or session-search error.
pub fn run(scale: f64, work: &Path) -> Result<Rewind, Box<dyn Error>> {
    let path = work.join("rewind.db");
    let database = Database::create(Variant::SessionSearch(IndexingMode::Immediate), &path)?;
    let sizes = sizes(scale);
    let keys: Vec<String> = (0..sizes.len()).map(transcript::session_key).collect();
    database.create_sessions(&keys)?;
    let mut transcript = Transcript::new(SEED, LENGTHS);
    let mut build_seconds = 0.0;
    for (key, &size) in keys.iter().zip(&sizes) {
        let session = std::slice::from_ref(key);
        build_seconds += database.fill(&mut transcript, session, size)?.seconds;
    }
    let sessions = keys
        .iter()
        .zip(&sizes)
        .map(|(key, &size)| measure_session(&database, &mut transcript, key, size))
        .collect::<Result<Vec<_>, _>>()?;
    let store = database.store().expect("a session-search store");
    let status = store.status()?;
    let peak_rss_kib = memory::peak_rss_kib()?;
    drop(database);
    databases::remove(&path)?;
    Ok(Rewind {
        messages: sizes.iter().sum(),
        build_seconds,
        sessions,
        integrity: status.integrity.unwrap_or_default(),
        pending: status.pending,
        peak_rss_kib,
    })
}

/// Times [`REPEATS`] rounds of: append one message, rewind by
/// [`REWIND_BY`], switch back to the leaf, in the linear session `key` of
/// `size` messages.
fn measure_session(
    database: &Database,
    transcript: &mut Transcript,
    key: &str,
    size: usize,
) -> rusqlite::Result<SessionRun> {
    let conn = database.connection();
    let mut branch: Vec<i64> = conn
        .prepare("SELECT id FROM messages WHERE session_key = ?1 ORDER BY id")?
        .query_map([key], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let (mut appends, mut rewinds, mut switches) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..WARM_UP + REPEATS {
        let row = transcript.row(key);
        let (id, append) = timed_ms(|| database.append(&row))?;
        branch.push(id);
        let leaf = branch[branch.len() - 1];
        let earlier = branch[branch.len() - 1 - REWIND_BY];
        let ((), rewind) = timed_ms(|| move_leaf(database, key, earlier))?;
        let ((), switch) = timed_ms(|| move_leaf(database, key, leaf))?;
        if round >= WARM_UP {
            appends.push(append);
            rewinds.push(rewind);
            switches.push(switch);
        }
    }
    Ok(SessionRun {
        messages: size,
        append_ms: median(&sorted(appends)),
        rewind_ms: median(&sorted(rewinds)),
        switch_back_ms: median(&sorted(switches)),
    })
}

/// Moves the leaf of session `key` to message `leaf` with [`REWIND_SQL`].
fn move_leaf(database: &Database, key: &str, leaf: i64) -> rusqlite::Result<()> {
    let changed = database
        .connection()
        .prepare_cached(REWIND_SQL)?
        .execute((key, leaf))?;
    debug_assert_eq!(changed, 1, "session {key} exists");
    Ok(())
}
