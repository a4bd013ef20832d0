//! Background reconciliation: at most one thread per database file and
//! process indexes the backlog on a connection of its own until none is
//! left, so a host without a worker converges while its searches stay as
//! fast as idle ones (a search only asks for a drain,
//! [`store::request_drain`]).
//!
//! Each slice is a write transaction of [`DRAIN_ROWS`] rows that waits for
//! the write lock as its connection's busy timeout says. Between slices the
//! thread pauses as long as the slice took, so writers of the host that wait
//! for the lock get it: the drain holds the lock at most half the time.

use crate::db::Connection;
use crate::error::Error;
use crate::store;
use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Rows per slice: about ten milliseconds of the write lock.
pub const DRAIN_ROWS: i64 = 500;

/// How long a drain waits for the write lock before trying again, and how
/// many times in a row it tries before it stops (a later search starts
/// another).
pub const BUSY_TIMEOUT: Duration = Duration::from_millis(200);
const BUSY_ATTEMPTS: u32 = 150;

/// The databases being drained by this process, by file name.
static RUNNING: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// Starts draining `database` (a file name) on a thread with the connection
/// `open` returns (opened there, with the session-search functions and
/// [`BUSY_TIMEOUT`]), unless this process drains it already. Returns whether
/// a drain is running.
pub fn start<C, F>(database: &str, open: F) -> bool
where
    C: Connection,
    F: FnOnce() -> Option<C> + Send + 'static,
{
    let mut running = RUNNING.lock().unwrap_or_else(PoisonError::into_inner);
    if running.contains(database) {
        return true;
    }
    let name = database.to_owned();
    let spawned = std::thread::Builder::new()
        .name("session-search-drain".into())
        .spawn(move || {
            if let Some(conn) = open() {
                drain(&conn);
            }
            RUNNING
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&name);
        });
    match spawned {
        Ok(_) => running.insert(database.to_owned()),
        Err(_) => false,
    }
}

/// Reconciles slice after slice until no work is left, indexing is
/// deferred, or the database stays locked or fails.
fn drain(db: &dyn Connection) {
    // A slice lost to a power cut is indexed again later, so the commits of
    // a drain need not wait for the disk (WAL mode stays consistent).
    if db.execute_batch("PRAGMA synchronous = NORMAL").is_err() {
        return;
    }
    let mut busy = 0;
    loop {
        let started = Instant::now();
        match store::background_slice(db, DRAIN_ROWS) {
            Ok(true) => {
                busy = 0;
                std::thread::sleep(started.elapsed());
            }
            Err(Error::Sql(e)) if e.is_busy() && busy < BUSY_ATTEMPTS => busy += 1,
            Ok(false) | Err(_) => return,
        }
    }
}
