//! `sessions_history(session_key, options_json)`: the active branch of a
//! session, in order, redacted, with the same visibility rules as search.

use crate::content::history_text;
use crate::db::{Connection, Value};
use crate::error::{Error, Result};
use crate::redact::{Redactor, REDACTION_WINDOW};
use crate::role::Role;
use crate::scope::{self, Visibility};
use crate::search::bounded;
use crate::store;
use serde::{Deserialize, Serialize};
use std::ops::Range;

const VISIBLE_SQL: &str = concat!(
    include_str!("../sql/visible.sql"),
    include_str!("../sql/history_visible.sql")
);
const PATH_SQL: &str = concat!(
    include_str!("../sql/visible.sql"),
    include_str!("../sql/history_path.sql")
);
const MESSAGES_SQL: &str = include_str!("../sql/history_messages.sql");

/// The smallest, largest and default `limit` of a history window.
pub const LIMIT: (i64, i64, i64) = (1, 200, 50);

/// The smallest, largest and default `before` and `after` of a window
/// around a message.
pub const AROUND: (i64, i64, i64) = (0, 100, 5);

/// A message id as a host passes it back: the `messageId` string of a search
/// hit, or the numeric `messages.id`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MessageRef {
    /// `messages.id`.
    Id(i64),
    /// `messages.message_id`, or an id written as text.
    Text(String),
}

impl std::fmt::Display for MessageRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MessageRef::Id(id) => write!(f, "{id}"),
            MessageRef::Text(text) => write!(f, "{text:?}"),
        }
    }
}

/// The options of `sessions_history` (docs/sql.md).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryOptions {
    /// The session asking; required.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// As for search; default `tree`.
    #[serde(default)]
    pub visibility: Visibility,
    /// A sandboxed caller is clamped to `tree`.
    #[serde(default)]
    pub sandboxed: bool,
    /// Centre the window on this message; without it, the newest messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub around: Option<MessageRef>,
    /// Messages before `around`, 0–100 (default 5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<i64>,
    /// Messages after `around`, 0–100 (default 5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<i64>,
    /// Most messages returned, 1–200 (default 50).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    /// Longest text per message in characters, 1–20000 (default 2000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<i64>,
    /// Largest `messages` array in bytes of JSON, ≤ 65536 (default 32768).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<i64>,
    /// Extra redaction patterns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redact: Option<Vec<String>>,
}

/// One message of the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryMessage {
    /// `messages.id`.
    pub id: i64,
    /// The host's `message_id`, or `id` as text.
    pub message_id: String,
    /// Who wrote it.
    pub role: Role,
    /// `created_at`, unix ms.
    pub timestamp: i64,
    /// Redacted text; blocks that are not text summarised by type.
    pub text: String,
}

/// The answer of `sessions_history`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryResponse {
    /// The session.
    pub session_key: String,
    /// The window, oldest first.
    pub messages: Vec<HistoryMessage>,
    /// Messages of the active branch before the window.
    pub before: usize,
    /// Messages of the active branch after the window.
    pub after: usize,
    /// A message's text was cut, or messages were left out to fit `maxBytes`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// An invalid-argument error of `sessions_history`.
fn invalid(message: String) -> Error {
    Error::InvalidArgument(format!("sessions_history: {message}"))
}

/// Reads a window of a session's active branch.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for a bad option, a missing or unknown caller,
/// a session not visible to the caller (whether or not it exists), or an
/// `around` message not on the active branch.
pub fn history(
    db: &dyn Connection,
    session_key: &str,
    options: &HistoryOptions,
) -> Result<HistoryResponse> {
    let bounds = Bounds::new(options)?;
    // Only reads: one snapshot for its statements.
    let _snapshot = db.hold_read();
    store::require_schema(db, "sessions_history")?;
    let redactor = store::redactor(
        db,
        "sessions_history",
        options.redact.as_deref().unwrap_or_default(),
    )?;
    let path = visible_path(db, session_key, options)?;
    let (anchor, mut window) =
        anchored_window(db, session_key, options.around.as_ref(), &bounds, &path)?;
    let (mut messages, mut truncated) = messages(
        db,
        &path[window.clone()],
        &redactor,
        bounds.max_chars as usize,
    )?;
    truncated |= fit_bytes(
        &mut messages,
        &mut window,
        anchor,
        bounds.max_bytes as usize,
    );
    Ok(HistoryResponse {
        session_key: session_key.to_owned(),
        before: window.start,
        after: path.len() - window.end,
        messages,
        truncated,
    })
}

/// The numeric options of a history request, each checked against its
/// range or defaulted.
struct Bounds {
    before: i64,
    after: i64,
    limit: i64,
    max_chars: i64,
    max_bytes: i64,
}

impl Bounds {
    /// Checks the options' numbers, in the order they are documented.
    fn new(options: &HistoryOptions) -> Result<Bounds> {
        let bound = |name: &str, value: Option<i64>, range: (i64, i64, i64)| {
            bounded("sessions_history", name, value, range)
        };
        Ok(Bounds {
            before: bound("before", options.before, AROUND)?,
            after: bound("after", options.after, AROUND)?,
            limit: bound("limit", options.limit, LIMIT)?,
            max_chars: bound("maxChars", options.max_chars, (1, 20000, 2000))?,
            max_bytes: bound("maxBytes", options.max_bytes, (2, 65536, 32768))?,
        })
    }
}

/// The ids of the session's active branch, oldest first, once the caller is
/// known to see the session.
fn visible_path(
    db: &dyn Connection,
    session_key: &str,
    options: &HistoryOptions,
) -> Result<Vec<i64>> {
    let caller = scope::caller(db, "sessions_history", options.caller.as_deref())?;
    let visibility = scope::effective(options.visibility, options.sandboxed);
    let mut params = vec![
        (":caller", caller.as_str().into()),
        (":visibility", visibility.name().into()),
        (":session_key", session_key.into()),
    ];
    // Walking up from the session shows most visible ones in a few lookups;
    // only when it does not is the caller's visible set built.
    let seen = scope::sees(db, &caller, visibility, session_key)?;
    if !seen
        && db
            .query_named(VISIBLE_SQL, &params)?
            .first()
            .and_then(|row| row[0].as_i64())
            != Some(1)
    {
        return Err(invalid(format!(
            "no session {session_key:?} is visible to caller {caller:?}"
        )));
    }
    params.push((":seen", i64::from(seen).into()));
    let mut path: Vec<i64> = db
        .query_named(PATH_SQL, &params)?
        .iter()
        .filter_map(|row| row[0].as_i64())
        .collect();
    path.reverse();
    Ok(path)
}

/// The anchor, the position on `path` the window is about (`around`, or the
/// newest message), and the window around it cut to `limit`. Cuts (for
/// `limit`, then `maxBytes`) remove the message farthest from the anchor
/// first, so the anchor always stays.
fn anchored_window(
    db: &dyn Connection,
    session_key: &str,
    around: Option<&MessageRef>,
    bounds: &Bounds,
    path: &[i64],
) -> Result<(usize, Range<usize>)> {
    let (anchor, mut window) = match around {
        None => {
            let end = path.len();
            (
                end.saturating_sub(1),
                end.saturating_sub(bounds.limit as usize)..end,
            )
        }
        Some(around) => {
            let centre = find(db, session_key, around, path)?;
            let start = centre.saturating_sub(bounds.before as usize);
            let end = (centre + 1 + bounds.after as usize).min(path.len());
            (centre, start..end)
        }
    };
    while window.len() > bounds.limit as usize {
        shrink_away_from(&mut window, anchor);
    }
    Ok((anchor, window))
}

/// The messages `ids` in that order, summarised, redacted and cut to
/// `max_chars`, and whether any text was cut.
fn messages(
    db: &dyn Connection,
    ids: &[i64],
    redactor: &Redactor,
    max_chars: usize,
) -> Result<(Vec<HistoryMessage>, bool)> {
    let json = Value::Text(serde_json::to_string(ids).unwrap_or_default());
    let rows = db.query_named(MESSAGES_SQL, &[(":ids", json)])?;
    let mut truncated = false;
    let messages = ids
        .iter()
        .filter_map(|id| rows.iter().find(|row| row[0].as_i64() == Some(*id)))
        .filter_map(|row| message(row, redactor, max_chars))
        .map(|(message, cut)| {
            truncated |= cut;
            message
        })
        .collect();
    Ok((messages, truncated))
}

/// Drops the messages farthest from `anchor` until the messages' JSON fits
/// in `max_bytes`, keeping `window` in step; returns whether any was dropped.
fn fit_bytes(
    messages: &mut Vec<HistoryMessage>,
    window: &mut Range<usize>,
    anchor: usize,
    max_bytes: usize,
) -> bool {
    let size = |m: &HistoryMessage| serde_json::to_string(m).map_or(usize::MAX, |j| j.len() + 1);
    let mut dropped = false;
    while !messages.is_empty() && 1 + messages.iter().map(size).sum::<usize>() > max_bytes {
        if shrink_away_from(window, anchor) {
            messages.remove(0);
        } else {
            messages.pop();
        }
        dropped = true;
    }
    dropped
}

/// Drops one message from whichever end of `window` is farther from
/// `anchor` (the older end on a tie); returns whether it was the older end.
fn shrink_away_from(window: &mut Range<usize>, anchor: usize) -> bool {
    let older = anchor - window.start >= window.end - 1 - anchor;
    if older {
        window.start += 1;
    } else {
        window.end -= 1;
    }
    older
}

/// One history message from a row of `history_messages.sql`: summarised,
/// redacted, then cut to `max_chars`. A text longer than what is shown is
/// redacted only up to well past the cut, which no secret pattern spans.
/// Also says whether the text was cut.
fn message(row: &[Value], redactor: &Redactor, max_chars: usize) -> Option<(HistoryMessage, bool)> {
    let (id, role, timestamp) = (row[0].as_i64()?, row[2].as_str()?, row[3].as_i64()?);
    let content = match &row[4] {
        Value::Text(t) => t.as_bytes(),
        Value::Blob(b) => b,
        _ => &[],
    };
    let full = history_text(role, content);
    let mut end = full.len().min(max_chars * 4 + REDACTION_WINDOW);
    while !full.is_char_boundary(end) {
        end -= 1;
    }
    let (text, cut) = shorten(&redactor.redact(&full[..end]), max_chars);
    let cut = cut || end < full.len();
    let text = if cut && !text.ends_with('…') {
        format!("{text}…")
    } else {
        text
    };
    let message = HistoryMessage {
        id,
        message_id: row[1]
            .as_str()
            .map_or_else(|| id.to_string(), str::to_owned),
        role: role.parse().ok()?,
        timestamp,
        text,
    };
    Some((message, cut))
}

/// The position of `around` on the active branch.
fn find(
    db: &dyn Connection,
    session_key: &str,
    around: &MessageRef,
    path: &[i64],
) -> Result<usize> {
    let (text, id) = match around {
        MessageRef::Id(id) => (Value::Null, Value::Integer(*id)),
        MessageRef::Text(text) => (
            text.as_str().into(),
            text.parse::<i64>().map_or(Value::Null, Value::Integer),
        ),
    };
    let candidates = db.query(
        "SELECT id FROM messages WHERE session_key = ?1 AND (message_id = ?2 OR id = ?3)
         ORDER BY message_id = ?2 DESC",
        &[session_key.into(), text, id],
    )?;
    candidates
        .iter()
        .filter_map(|row| row[0].as_i64())
        .find_map(|id| path.iter().position(|p| *p == id))
        .ok_or_else(|| {
            invalid(format!(
                "message {around} is not on the active branch of session {session_key:?}"
            ))
        })
}

/// `text` cut to `max` characters with an ellipsis, and whether it was cut.
pub(crate) fn shorten(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max.saturating_sub(1)) {
        Some((end, _)) if text.chars().count() > max => (format!("{}…", &text[..end]), true),
        _ => (text.to_owned(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn shorten_counts_characters() {
        assert_eq!(shorten("東京大阪", 3), ("東京…".to_owned(), true));
        assert_eq!(shorten("東京", 2), ("東京".to_owned(), false));
    }
}
