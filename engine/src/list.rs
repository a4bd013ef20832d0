//! `sessions_list(options_json)`: the sessions a caller may see, newest
//! activity first, with the same visibility rules as search and history.

use crate::content::searchable_text;
use crate::db::{Connection, Value};
use crate::error::Result;
use crate::history::shorten;
use crate::redact::Redactor;
use crate::scope::{self, Visibility};
use crate::search::bounded;
use crate::store;
use serde::{Deserialize, Serialize};

const LIST_SQL: &str = concat!(
    include_str!("../sql/visible.sql"),
    include_str!("../sql/list.sql")
);

/// Longest title in characters.
pub const TITLE_CHARS: usize = 100;

/// The smallest, largest and default `limit` of a list.
pub const LIMIT: (i64, i64, i64) = (1, 100, 20);

/// The options of `sessions_list` (docs/sql.md).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListOptions {
    /// The session asking; required.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// As for search; default `tree`.
    #[serde(default)]
    pub visibility: Visibility,
    /// A sandboxed caller is clamped to `tree`.
    #[serde(default)]
    pub sandboxed: bool,
    /// Only sessions of this agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// Only sessions last active at or after this time (unix ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
    /// Only sessions last active at or before this time (unix ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// Only sessions whose key starts with this text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// 1–100 sessions, default 20.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    /// Sessions skipped first, for the next page (default 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<i64>,
    /// Extra redaction patterns for the titles.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redact: Option<Vec<String>>,
}

/// One session of the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// Its key.
    pub session_key: String,
    /// Its agent.
    pub agent_id: String,
    /// The session that spawned it, if any.
    pub spawned_by: Option<String>,
    /// `sessions.created_at`, unix ms.
    pub created_at: i64,
    /// The newest message's `created_at`, or `createdAt` without messages.
    pub last_activity: i64,
    /// How many messages it stores (every branch and role).
    pub messages: i64,
    /// The first user text, redacted, on one line, at most [`TITLE_CHARS`]
    /// characters; empty when the session has none.
    pub title: String,
}

/// The answer of `sessions_list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListResponse {
    /// The page, newest activity first.
    pub sessions: Vec<SessionSummary>,
    /// More sessions follow this page (ask again with a larger `offset`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// Lists the caller's visible sessions.
///
/// # Errors
///
/// [`crate::error::Error::InvalidArgument`] for a bad option or a missing or
/// unknown caller.
pub fn list(db: &dyn Connection, options: &ListOptions) -> Result<ListResponse> {
    let limit = bounded("sessions_list", "limit", options.limit, LIMIT)?;
    let offset = bounded(
        "sessions_list",
        "offset",
        options.offset,
        (0, 1_000_000_000, 0),
    )?;
    // Only reads: one snapshot for its statements.
    let _snapshot = db.hold_read();
    store::require_schema(db, "sessions_list")?;
    let redactor = store::redactor(
        db,
        "sessions_list",
        options.redact.as_deref().unwrap_or_default(),
    )?;
    let caller = scope::caller(db, "sessions_list", options.caller.as_deref())?;
    let visibility = scope::effective(options.visibility, options.sandboxed);
    let text = |value: &Option<String>| value.as_deref().map_or(Value::Null, Value::from);
    let number = |value: Option<i64>| value.map_or(Value::Null, Value::Integer);
    let rows = db.query_named(
        LIST_SQL,
        &[
            (":caller", caller.as_str().into()),
            (":visibility", visibility.name().into()),
            (":agent", text(&options.agent)),
            (":since", number(options.since)),
            (":until", number(options.until)),
            (":prefix", text(&options.prefix)),
            (":rows", Value::Integer(limit + 1)),
            (":offset", Value::Integer(offset)),
        ],
    )?;
    let truncated = rows.len() > limit as usize;
    let sessions = rows
        .iter()
        .take(limit as usize)
        .filter_map(|row| summary(row, &redactor))
        .collect();
    Ok(ListResponse {
        sessions,
        truncated,
    })
}

/// A row of `list.sql` as a summary with its title.
fn summary(row: &[Value], redactor: &Redactor) -> Option<SessionSummary> {
    let title = match &row[6] {
        Value::Text(t) => title(t.as_bytes(), redactor),
        Value::Blob(b) => title(b, redactor),
        _ => String::new(),
    };
    Some(SessionSummary {
        session_key: row[0].as_str()?.to_owned(),
        agent_id: row[1].as_str()?.to_owned(),
        spawned_by: row[2].as_str().map(str::to_owned),
        created_at: row[3].as_i64()?,
        last_activity: row[4].as_i64()?,
        messages: row[5].as_i64()?,
        title,
    })
}

/// The searchable text of `content`, redacted, its whitespace runs made one
/// space, cut to [`TITLE_CHARS`] with an ellipsis.
fn title(content: &[u8], redactor: &Redactor) -> String {
    let text = searchable_text(content).unwrap_or_default();
    let one_line = redactor
        .redact(&text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    shorten(&one_line, TITLE_CHARS).0
}
