//! The background reconciliation thread of a file-backed [`crate::Store`].

use crate::functions::Rusqlite;
use crate::Result;
use session_search_engine::store;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// Rows per slice: small enough that a writer never waits long for the lock.
const SLICE_ROWS: i64 = 500;

/// The worker's wait for another connection's lock: short, since it retries
/// anyway and must notice a stop request quickly.
const BUSY_TIMEOUT: Duration = Duration::from_millis(100);

/// Pause between polls once the backlog is empty.
const IDLE_POLL: Duration = Duration::from_millis(500);

/// A thread that reconciles the database on its own connection until
/// dropped; dropping it stops the thread and waits for it.
#[derive(Debug)]
pub(crate) struct Reconciler {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Reconciler {
    /// Opens a second connection to `path` and starts reconciling.
    pub(crate) fn start(path: PathBuf) -> Result<Reconciler> {
        let conn = crate::open(&path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("session-search-reconcile".into())
            .spawn(move || loop {
                // An error (a busy database, say) is retried after the pause;
                // searches report the backlog meanwhile.
                let busy = store::background_slice(&Rusqlite(&conn), SLICE_ROWS).unwrap_or(false);
                let pause = if busy { Duration::ZERO } else { IDLE_POLL };
                match stopped.recv_timeout(pause) {
                    Err(RecvTimeoutError::Timeout) => {}
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
                }
            })
            .map_err(|e| crate::Error::Worker(e.to_string()))?;
        Ok(Reconciler {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Reconciler {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
