//! The engine of session-search, shared by the SQLite extension (`ext/`) and
//! the Rust wrapper (`wrapper/`).
//!
//! Everything here is pure Rust and unit-tested without SQLite, except
//! [`fts5`], the small C ABI module through which FTS5 calls the tokenizer.
//! Neither binding crate holds logic of its own: they fetch SQLite handles,
//! call into this crate, and turn its results into SQL values.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod content;
pub mod db;
pub mod error;
pub mod excerpt;
pub mod fts5;
pub mod history;
pub mod query;
pub mod redact;
pub mod scope;
pub mod search;
pub mod sql_functions;
pub mod store;
pub mod tokenizer;

/// The crate version, as reported by `sessions_version()`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
