//! The index's own state and settings, in the key-value table
//! `session_search_meta` (see `sql/schema.sql`): schema and tokenizer
//! versions, redaction settings, indexing mode, compaction state. Read and
//! written by [`crate::store`] and [`crate::compaction`].

use crate::db::{Connection, Value};
use crate::error::Result;

/// A value of `session_search_meta`; NULL when the key is absent.
pub(crate) fn meta(db: &dyn Connection, key: &str) -> Result<Value> {
    Ok(db.query_value(
        "SELECT value FROM session_search_meta WHERE key = ?1",
        &[key.into()],
    )?)
}

/// Stores a value of `session_search_meta`.
pub(crate) fn set_meta(db: &dyn Connection, key: &str, value: Value) -> Result<()> {
    db.query(
        "INSERT OR REPLACE INTO session_search_meta(key, value) VALUES (?1, ?2)",
        &[key.into(), value],
    )?;
    Ok(())
}
