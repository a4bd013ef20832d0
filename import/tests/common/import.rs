//! Helpers of the importer tests: fixtures, imports, hits, branches and
//! columns.

use super::{history, history_options, options, search};
use session_search::{SearchOptions, Store, Visibility};
use session_search_import::{import_path, ImportOptions, ImportReport};
use std::path::{Path, PathBuf};

/// The Claude Code transcripts shared beside the repository.
pub fn claude_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/claude-code")
}

/// This repository's fixtures of one format.
pub fn fixtures(format: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(format)
}

pub fn import(store: &Store, path: &Path) -> ImportReport {
    import_path(store, path, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("import of {} failed: {e}", path.display()))
}

pub fn imported(path: &Path) -> (Store, ImportReport) {
    let store = Store::open_in_memory().unwrap();
    let report = import(&store, path);
    (store, report)
}

/// `(session, messageId)` of every hit of `query` in all sessions that
/// holds every word as typed (not the partial hits that top up a short page).
pub fn hits(store: &Store, query: &str) -> Vec<(String, String)> {
    let caller: String = store
        .connection()
        .query_row("SELECT min(session_key) FROM sessions", [], |row| {
            row.get(0)
        })
        .unwrap();
    let options = SearchOptions {
        visibility: Visibility::All,
        limit: Some(25),
        ..options(&caller)
    };
    search(store, query, &options)
        .results
        .into_iter()
        .filter(|hit| !hit.partial)
        .map(|hit| (hit.session_key, hit.message_id))
        .collect()
}

pub fn hit_sessions(store: &Store, query: &str) -> Vec<String> {
    hits(store, query).into_iter().map(|(key, _)| key).collect()
}

/// `(message_id, role, content)` of every message of session `key`, by
/// host id.
pub fn session_messages(store: &Store, key: &str) -> Vec<(String, String, String)> {
    let mut statement = store
        .connection()
        .prepare(
            "SELECT message_id, role, content FROM messages WHERE session_key = ?1 ORDER BY message_id",
        )
        .unwrap();
    statement
        .query_map([key], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// The host ids of a session's active branch, in order.
pub fn branch(store: &Store, key: &str) -> Vec<String> {
    let options = session_search::HistoryOptions {
        limit: Some(200),
        ..history_options(key)
    };
    history(store, key, &options)
        .messages
        .into_iter()
        .map(|m| m.message_id)
        .collect()
}

/// A column of the message with host id `message_id` (a unique prefix).
pub fn column(store: &Store, key: &str, message_id: &str, column: &str) -> String {
    store
        .connection()
        .query_row(
            &format!(
                "SELECT CAST({column} AS TEXT) FROM messages WHERE session_key = ?1 AND message_id LIKE ?2 || '%'"
            ),
            [key, message_id],
            |row| row.get(0),
        )
        .unwrap_or_else(|e| panic!("{column} of {message_id} in {key}: {e}"))
}

pub fn session_column(store: &Store, key: &str, column: &str) -> Option<String> {
    store
        .connection()
        .query_row(
            &format!("SELECT CAST({column} AS TEXT) FROM sessions WHERE session_key = ?1"),
            [key],
            |row| row.get(0),
        )
        .unwrap()
}

pub fn count(store: &Store, sql: &str) -> i64 {
    store
        .connection()
        .query_row(sql, [], |row| row.get(0))
        .unwrap()
}

pub fn file<'a>(report: &'a ImportReport, name: &str) -> &'a session_search_import::FileReport {
    report
        .files
        .iter()
        .find(|f| f.path.to_string_lossy().ends_with(name))
        .unwrap_or_else(|| panic!("no report for {name}: {report:#?}"))
}

pub fn skipped(report: &session_search_import::FileReport, kind: &str) -> usize {
    report.skipped_types.get(kind).copied().unwrap_or(0)
}

/// The shared fixtures of one format (`../shared/fixtures/<format>`).
pub fn shared_fixtures(format: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures")
        .join(format)
}

/// `(role, messages)` of the sessions whose key starts with `prefix`.
pub fn roles(store: &Store, prefix: &str) -> Vec<(String, i64)> {
    let mut statement = store
        .connection()
        .prepare("SELECT role, count(*) FROM messages WHERE session_key LIKE ?1 || '%' GROUP BY role ORDER BY role")
        .unwrap();
    statement
        .query_map([prefix], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Builds the SQLite database `target` (and the folders above it) from the
/// SQL text fixture `sql` of this repository (`tests/fixtures/<format>/`),
/// as a tool's own database; returns `target`.
pub fn database_from(format: &str, sql: &str, target: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixtures(format).join(sql)).unwrap();
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    rusqlite::Connection::open(target)
        .unwrap()
        .execute_batch(&text)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    target.to_owned()
}

/// The types of the blocks of a message's `content`, in order.
pub fn block_types(content: &serde_json::Value) -> Vec<String> {
    content
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["type"].as_str().unwrap().to_owned())
        .collect()
}
