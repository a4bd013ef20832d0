//! The little the engine needs from a SQLite connection, so its logic is
//! written once for both bindings: the extension implements [`Connection`]
//! over the loadable-extension API, the wrapper over rusqlite.

use std::fmt;

/// A value bound to or read from a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A 64-bit integer.
    Integer(i64),
    /// A double.
    Real(f64),
    /// UTF-8 text (invalid bytes replaced).
    Text(String),
    /// A blob.
    Blob(Vec<u8>),
}

impl Value {
    /// The integer, if this is one.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }

    /// The text, if this is text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Integer(i)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_owned())
    }
}

/// An error SQLite reported, with its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError(pub String);

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SqlError {}

/// A connection with the session-search functions registered.
pub trait Connection {
    /// Runs `sql`, which may hold several statements without parameters.
    fn execute_batch(&self, sql: &str) -> Result<(), SqlError>;

    /// Runs one statement with `params` bound to `?1`, `?2`, … and returns all
    /// result rows.
    fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, SqlError>;

    /// The first column of the first row, or `Null` when there is no row.
    fn query_value(&self, sql: &str, params: &[Value]) -> Result<Value, SqlError> {
        Ok(self
            .query(sql, params)?
            .into_iter()
            .next()
            .and_then(|row| row.into_iter().next())
            .unwrap_or(Value::Null))
    }
}
