//! Compaction of the FTS5 index after much of it was written.
//!
//! FTS5 keeps its index as a set of segments (b-trees) and looks every term
//! of every query up in each, so a search's fixed cost grows with their
//! number. Its own automerge keeps about three segments per fourfold of the
//! rows written, whether they came from a bulk import reconciled slice by
//! slice, a rebuild, or the triggers' appends one transaction at a time.
//! Once at least `1 / SHARE` of the index was written since the last
//! compaction was decided (the larger of the rows reconciled and the rows
//! it gained), and no backlog is left, the steps of reconciliation that
//! may wait for the write lock (`sessions_reconcile` and the background
//! drain, which a search asks for when it finds a compaction due or the
//! index grown; never a search itself) merge the segments into one, a
//! bounded number of pages per step, with FTS5's `merge` command: a
//! negative page count first puts every segment on one level, a positive
//! one then carries that merge on.
//!
//! Each compaction rewrites the index once, and at least a quarter of it was
//! written since the last one, so the rewriting costs a bounded multiple of
//! what is written. Merging after every small write instead would rewrite
//! the whole index for a few rows.

use crate::db::{Connection, Value};
use crate::error::Result;
use crate::meta::{meta, set_meta};
use crate::rank::RankTotals;

/// Compaction is due once this fraction (one over it) of the index's rows
/// was written since the last compaction was decided.
const SHARE: i64 = 4;

/// Rows of FTS5's tables a compaction may write or delete for each message
/// of a slice's budget: indexing a message costs about three times as much
/// (on the bench corpus ~70 µs, against ~25 µs per row a merge changes).
const CHANGES_PER_MESSAGE: i64 = 3;

/// Pages one `merge` command writes at most. FTS5 frees the input pages a
/// merge consumed only when the command ends, so the database file grows
/// by up to this many pages before they are reused.
const PAGES_PER_MERGE: i64 = 1024;

/// Meta key: rows reconciliation indexed since the last compaction was
/// decided.
const RECONCILED: &str = "compaction_reconciled";

/// Meta key: the index's rows when the last compaction was decided; absent
/// when none was since the index was created or emptied.
const DECIDED_AT: &str = "compaction_rows";

/// Meta key: `'due'` when a compaction should start, `'running'` while one
/// goes on; absent (or NULL) otherwise.
const STATE: &str = "compaction";

/// Counts `indexed` rows that a reconciliation slice just indexed. Runs in
/// the slice's transaction.
pub(crate) fn count_reconciled(db: &dyn Connection, indexed: i64) -> Result<()> {
    if indexed == 0 {
        return Ok(());
    }
    let reconciled = meta(db, RECONCILED)?.as_i64().unwrap_or(0) + indexed;
    set_meta(db, RECONCILED, reconciled.into())
}

/// The index's averages record (its row count first) and the meta values
/// ?1, ?2 and ?3: one statement, as every search asks.
const STATE_SQL: &str = "SELECT (SELECT block FROM session_search_fts_data WHERE id = 1), \
     (SELECT value FROM session_search_meta WHERE key = ?1), \
     (SELECT value FROM session_search_meta WHERE key = ?2), \
     (SELECT value FROM session_search_meta WHERE key = ?3)";

/// Where compaction stands.
struct Standing {
    /// A compaction is due or running.
    remains: bool,
    /// At least `1 / SHARE` of the index was written since the last
    /// compaction was decided: the larger of the rows reconciled and the
    /// rows it gained.
    written: bool,
    /// Rows in the FTS5 index (one per indexed message).
    rows: i64,
}

/// Reads where compaction stands, in one statement.
fn standing(db: &dyn Connection) -> Result<Standing> {
    let row = db.query(
        STATE_SQL,
        &[STATE.into(), RECONCILED.into(), DECIDED_AT.into()],
    )?;
    let value = |i: usize| {
        row.first()
            .and_then(|row| row.get(i))
            .unwrap_or(&Value::Null)
    };
    let rows = value(0)
        .as_blob()
        .and_then(RankTotals::from_averages)
        .map_or(0, |totals| totals.rows);
    let reconciled = value(2).as_i64().unwrap_or(0);
    let gained = rows - value(3).as_i64().unwrap_or(0);
    Ok(Standing {
        remains: value(1).as_str().is_some(),
        written: rows > 0 && reconciled.max(gained) * SHARE >= rows,
        rows,
    })
}

/// Whether a compaction remains, or enough of the index was written since
/// the last one to decide another (see [`decide`]): a search asks for a
/// drain then.
pub(crate) fn wanted(db: &dyn Connection) -> Result<bool> {
    let standing = standing(db)?;
    Ok(standing.remains || standing.written)
}

/// Decides a compaction when at least `1 / SHARE` of the index was written
/// since the last one was decided; runs in a slice's transaction, with no
/// backlog left.
pub(crate) fn decide(db: &dyn Connection) -> Result<()> {
    let standing = standing(db)?;
    if standing.remains || !standing.written {
        return Ok(());
    }
    set_meta(db, STATE, "due".into())?;
    set_meta(db, RECONCILED, 0.into())?;
    set_meta(db, DECIDED_AT, standing.rows.into())
}

/// Forgets the last compaction, for an index that was just emptied: it is
/// compacted once it has been filled again.
pub(crate) fn forget(db: &dyn Connection) -> Result<()> {
    set_meta(db, STATE, Value::Null)?;
    set_meta(db, RECONCILED, Value::Null)?;
    set_meta(db, DECIDED_AT, Value::Null)
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
