//! The engine's error type, shared by every SQL function.

use crate::db::SqlError;
use std::fmt;

/// Why an engine operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// SQLite reported an error.
    Sql(SqlError),
    /// An argument was out of range or of the wrong type.
    InvalidArgument(String),
    /// The database cannot be used with this version.
    Schema(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Sql(e) => write!(f, "{e}"),
            Error::InvalidArgument(message) | Error::Schema(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for Error {}

impl From<SqlError> for Error {
    fn from(e: SqlError) -> Error {
        Error::Sql(e)
    }
}

/// Result of the engine functions.
pub type Result<T> = std::result::Result<T, Error>;
