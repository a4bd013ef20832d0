//! Compaction of the FTS5 index after a large backlog.
//!
//! FTS5 keeps its index as a set of segments (b-trees) and looks every term
//! of every query up in each, so a search's fixed cost grows with their
//! number. Appends one transaction at a time are kept in few segments by
//! FTS5's own automerge, but reconciling a bulk import or a rebuild slice by
//! slice leaves a dozen or more. Once reconciliation has indexed at least
//! `1 / SHARE` of the index since the last compaction, and the backlog is
//! empty, the steps of reconciliation that may wait for the write lock
//! (`sessions_reconcile` and the background drain, never a search) merge
//! the segments into one, a bounded number of pages per step, with FTS5's
//! `merge` command: a negative page count first puts every segment on one
//! level, a positive one then carries that merge on.
//!
//! Each compaction rewrites the index once, and at least a quarter of it was
//! written since the last one, so the rewriting costs a bounded multiple of
//! what reconciliation writes. Merging after every small backlog instead
//! would rewrite the whole index for a few rows.

use crate::db::{Connection, Value};
use crate::error::Result;
use crate::store::{meta, set_meta};

/// Compaction starts once reconciliation has indexed at least this
/// fraction (one over it) of the index's rows since the last compaction.
const SHARE: i64 = 4;

/// Rows of FTS5's tables a compaction may write or delete for each message
/// of a slice's budget: indexing a message costs about three times as much
/// (on the bench corpus ~70 µs, against ~25 µs per row a merge changes).
const CHANGES_PER_MESSAGE: i64 = 3;

/// Pages one `merge` command writes at most. FTS5 frees the input pages a
/// merge consumed only when the command ends, so the database file grows
/// by up to this many pages before they are reused.
const PAGES_PER_MERGE: i64 = 1024;

/// Meta key: rows reconciliation indexed since the last compaction started.
const RECONCILED: &str = "compaction_reconciled";

/// Meta key: `'due'` when a compaction should start, `'running'` while one
/// goes on; absent (or NULL) otherwise.
const STATE: &str = "compaction";

/// Counts `indexed` rows that a reconciliation slice just indexed and, when
/// that emptied the backlog (`backlog_left` is false), decides whether the
/// index is due for compaction. Runs in the slice's transaction.
pub(crate) fn count_reconciled(
    db: &dyn Connection,
    indexed: i64,
    backlog_left: bool,
) -> Result<()> {
    if indexed == 0 {
        return Ok(());
    }
    let reconciled = meta(db, RECONCILED)?.as_i64().unwrap_or(0) + indexed;
    if !backlog_left && reconciled * SHARE >= index_rows(db)? {
        set_meta(db, STATE, "due".into())?;
        return set_meta(db, RECONCILED, 0.into());
    }
    set_meta(db, RECONCILED, reconciled.into())
}

/// Rows in the FTS5 index (one per indexed message).
fn index_rows(db: &dyn Connection) -> Result<i64> {
    Ok(db
        .query_value("SELECT count(*) FROM session_search_fts_docsize", &[])?
        .as_i64()
        .unwrap_or(0))
}

/// Merges the index's segments when a compaction is due or running, for
/// about as long as indexing `messages` messages would take (FTS5 finishes
/// the term it is writing, so a very common term may take longer); call it
/// with the write lock held and no backlog left. Returns whether compaction
/// work remains.
pub(crate) fn step(db: &dyn Connection, messages: i64) -> Result<bool> {
    let mut starting = match meta(db, STATE)?.as_str() {
        Some("due") => true,
        Some("running") => false,
        _ => return Ok(false),
    };
    let mut left = messages.saturating_mul(CHANGES_PER_MESSAGE);
    while left > 0 {
        // A negative page count first puts every segment on one level.
        let pages = left.min(PAGES_PER_MERGE);
        let argument = if starting { -pages } else { pages };
        let before = total_changes(db)?;
        db.query(
            "INSERT INTO session_search_fts(session_search_fts, rank) VALUES('merge', ?1)",
            &[argument.into()],
        )?;
        // FTS5 documents that a merge which did any work changes the total
        // change count by two or more.
        let changed = total_changes(db)? - before;
        if changed < 2 {
            set_meta(db, STATE, Value::Null)?;
            return Ok(false);
        }
        starting = false;
        left -= changed;
    }
    set_meta(
        db,
        STATE,
        match starting {
            true => "due",
            false => "running",
        }
        .into(),
    )?;
    Ok(true)
}

fn total_changes(db: &dyn Connection) -> Result<i64> {
    Ok(db
        .query_value("SELECT total_changes()", &[])?
        .as_i64()
        .unwrap_or(0))
}

/// Whether a compaction is due or running.
pub(crate) fn remains(db: &dyn Connection) -> Result<bool> {
    Ok(meta(db, STATE)?.as_str().is_some())
}

/// The number of segments the index lies in (reads FTS5's small segment
/// index, one row per leaf page that starts a term run).
pub(crate) fn segments(db: &dyn Connection) -> Result<i64> {
    Ok(db
        .query_value(
            "SELECT count(DISTINCT segid) FROM session_search_fts_idx",
            &[],
        )?
        .as_i64()
        .unwrap_or(0))
}
