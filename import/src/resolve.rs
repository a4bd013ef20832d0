//! The session key that text people type stands for, knowing the keys
//! importers make (`<format>:<id>`) and the other ids they record.

use super::Format;
use rusqlite::types::Value;
use rusqlite::{params, OptionalExtension};
use session_search::{Error, Result, Store};

/// Keys named by [`Error::AmbiguousSession`].
const AMBIGUOUS_EXAMPLES: usize = 3;

/// The session key that `text` stands for, as people type one: the key
/// itself; else the key an importer made of it, `<format>:<text>` (so
/// the session id Claude Code shows finds `claude-code:<id>`); else the
/// session an importer recorded `text` as another id of (the id in a
/// resumed Codex rollout's name); else the only key that starts with `text`, with or without such a prefix, or
/// the one session all the others that do were spawned from (its
/// subagents). Each candidate is a range of the primary key, so this
/// reads only the keys it names.
///
/// # Errors
///
/// [`Error::NoSessionMatches`], [`Error::AmbiguousSession`].
pub fn resolve_session_key(store: &Store, text: &str) -> Result<String> {
    let conn = store.connection();
    let mut exists = conn.prepare_cached("SELECT 1 FROM sessions WHERE session_key = ?1")?;
    if exists.exists([text])? {
        return Ok(text.to_owned());
    }
    if text.is_empty() {
        return Err(Error::NoSessionMatches(String::new()));
    }
    let with_format: Vec<String> = Format::ALL
        .iter()
        .map(|format| format!("{format}:{text}"))
        .collect();
    // An importer's key made of the text wins over the longer keys that
    // start with it (a Claude Code session over its subagents').
    let mut exact = Vec::new();
    for key in &with_format {
        if exists.exists([key])? {
            exact.push(key.clone());
        }
    }
    if !exact.is_empty() {
        return only_key(text, exact.len() as i64, exact);
    }
    // Another id an importer recorded for a session (a resumed Codex
    // rollout's), typed whole.
    let aliased = conn
        .prepare_cached("SELECT 1 FROM sqlite_master WHERE name = 'session_search_aliases'")?
        .exists([])?;
    if aliased {
        let mut alias =
            conn.prepare_cached("SELECT session_key FROM session_search_aliases WHERE alias = ?1")?;
        for name in std::iter::once(text).chain(with_format.iter().map(String::as_str)) {
            if let Some(key) = alias.query_row([name], |row| row.get(0)).optional()? {
                return Ok(key);
            }
        }
    }
    // The text, and the text after each format's prefix unless that
    // range lies inside the text's own (`c` takes in `codex:c`).
    let prefixes = std::iter::once(text.to_owned()).chain(
        with_format
            .into_iter()
            .filter(|prefix| !prefix.starts_with(text)),
    );
    let mut count_keys = conn.prepare_cached(
        "SELECT count(*) FROM sessions WHERE session_key >= ?1 AND session_key < ?2",
    )?;
    let mut first_keys = conn.prepare_cached(
        "SELECT session_key FROM sessions WHERE session_key >= ?1 AND session_key < ?2
         ORDER BY session_key LIMIT ?3",
    )?;
    let ranges: Vec<(String, Value)> = prefixes
        .map(|prefix| {
            let end = prefix_end(&prefix);
            (prefix, end)
        })
        .collect();
    let mut count = 0;
    let mut keys = Vec::new();
    for (prefix, end) in &ranges {
        count += count_keys.query_row(params![prefix, end], |row| row.get::<_, i64>(0))?;
        for key in first_keys.query_map(params![prefix, end, AMBIGUOUS_EXAMPLES as i64], |row| {
            row.get::<_, String>(0)
        })? {
            keys.push(key?);
        }
    }
    // A session and the sessions it spawned (a Claude Code session and
    // its subagents, whose keys start with its own) stand for the
    // session.
    if let Some(first) = keys.iter().min().filter(|_| count > 1) {
        let mut in_tree = conn.prepare_cached(
            "WITH RECURSIVE tree(key) AS (
               SELECT ?1
               UNION SELECT s.session_key FROM sessions s JOIN tree ON s.spawned_by = tree.key)
             SELECT count(*) FROM tree WHERE key >= ?2 AND key < ?3",
        )?;
        let mut spawned = 0;
        for (prefix, end) in &ranges {
            spawned +=
                in_tree.query_row(params![first, prefix, end], |row| row.get::<_, i64>(0))?;
        }
        if spawned == count {
            return Ok(first.clone());
        }
    }
    only_key(text, count, keys)
}

/// The one session key `text` stands for, among `count` candidates of
/// which `keys` are the first.
fn only_key(text: &str, count: i64, mut keys: Vec<String>) -> Result<String> {
    match count {
        0 => Err(Error::NoSessionMatches(text.to_owned())),
        1 => keys
            .pop()
            .ok_or_else(|| Error::NoSessionMatches(text.to_owned())),
        _ => {
            keys.sort();
            keys.truncate(AMBIGUOUS_EXAMPLES);
            Err(Error::AmbiguousSession {
                prefix: text.to_owned(),
                count,
                examples: keys,
            })
        }
    }
}

/// The end of the range of keys that start with `prefix` (`key >= prefix
/// AND key < end`, which the primary key answers; `LIKE` would need its
/// wildcards escaped and could not use it with them): `prefix` with its
/// last character raised by one, after dropping trailing characters that
/// are the highest already. SQLite compares text as UTF-8 bytes, which sort
/// as code points do. Without such a text (every character is the highest)
/// the end is a blob, which sorts above every text.
fn prefix_end(prefix: &str) -> Value {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = match last {
            '\u{D7FF}' => Some('\u{E000}'),
            _ => char::from_u32(u32::from(last) + 1),
        };
        if let Some(next) = next {
            chars.push(next);
            return Value::Text(chars.into_iter().collect());
        }
    }
    Value::Blob(Vec::new())
}
