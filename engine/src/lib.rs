//! The engine of session-search, shared by the SQLite extension (`ext/`) and
//! the Rust wrapper (`wrapper/`).
//!
//! The tokenizer, query compiler, redaction, excerpts and content parsing are
//! pure Rust, unit-tested without SQLite. The store, search and history run
//! their SQL (the `sql/*.sql` files, embedded) through [`db::Connection`], a
//! two-method trait each binding implements over its own SQLite API. The one
//! module with raw pointers is [`fts5`], the C ABI through which FTS5 calls
//! the tokenizer. Every SQL function is an entry of
//! [`sql_functions::FUNCTIONS`], registered the same way by both bindings,
//! which only convert values: no logic lives twice.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod bm25;
pub mod compaction;
pub mod content;
pub mod db;
pub mod drain;
pub mod error;
pub mod excerpt;
pub mod forms;
pub mod fts5;
pub mod history;
pub mod index_tokens;
pub mod list;
pub mod meta;
pub mod query;
pub mod question;
pub mod rank;
pub mod redact;
pub mod role;
pub mod scope;
pub mod search;
pub mod sql_functions;
pub mod store;
pub mod tokenizer;

/// The crate version, as reported by `sessions_version()`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
