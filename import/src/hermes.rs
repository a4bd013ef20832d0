//! Hermes Agent (Nous Research): its session store, the SQLite database
//! `state.db` in its home (`~/.hermes`, or `$HERMES_HOME`), the JSON logs
//! it also writes, `sessions/session_<id>.json`, and its messaging
//! gateway's transcripts, `sessions/<id>.jsonl`.
//!
//! The database has a `sessions` table (`id`, `source` — the platform:
//! `cli`, `telegram`, … —, `parent_session_id`, `started_at` in seconds,
//! `cwd` in newer versions, …) and a `messages` table (`id`, `session_id`,
//! `role`, `content`, `tool_calls` as JSON, `tool_call_id`, `tool_name`,
//! `reasoning`, `timestamp` in seconds, …); columns that an older version
//! lacks are read as absent. Each session is `hermes:<id>`; its messages
//! have their row `id` as `message_id`, in row order.
//!
//! `parent_session_id` links a session to the one it came from: a
//! continuation after context compression, a `/branch`, a reset, or a
//! delegated subagent run. Each of them was started by its parent, so the
//! child is stored as spawned by it (`spawned_by`), and a search over the
//! parent's tree finds them all. A continuation starts with the compaction
//! summary Hermes wrote (`[CONTEXT COMPACTION …`, `[CONTEXT SUMMARY]:`):
//! it is stored as `system`, so a summary never repeats the hits of what
//! it summarises; so are rows Hermes marks as hidden scaffolding
//! (`display_kind` `hidden`).
//!
//! A user turn undone with `/undo` or `/retry` stays in the table, no
//! longer active (`active` 0, not `compacted`): it is stored off the
//! active branch, and what followed hangs from the message before it, so
//! only what Hermes still shows is searchable. Reasoning, tool calls and
//! tool output (role `tool`) are stored, not searchable.
//!
//! A JSON log is one object: `session_id`, `platform`, `session_start`,
//! `cwd` (or `model_config.cwd`) and `messages`, in the same shape as the
//! rows but without ids, usually without times (then at the session's
//! start).
//!
//! The messaging gateway's transcript, `sessions/<id>.jsonl`, holds the
//! same messages one a line, each with its `timestamp` (ISO 8601, local
//! time without a zone, read as UTC; or seconds), after a
//! `{"role": "session_meta", …}` line whose time is the session's start.
//! Older versions write it beside `state.db`, newer ones only when the
//! database fails.
//!
//! In a log and a transcript alike, message `n` (from 1, counting every
//! entry but `session_meta`) is `m<n>-<f>`, `f` a fingerprint of its role
//! and content: a message read from both is stored once, whichever comes
//! first, and a turn Hermes rewrote (`/undo`, `/retry`, which rewrite both
//! files) starts a branch where it differs, the file's the active one. A
//! session that the store already holds from `state.db` is skipped
//! (counted), as the database has it with its own ids; a directory import
//! reads databases first.
//!
//! The agent is `hermes`, or `hermes-<name>` for a profile's home
//! (`profiles/<name>/`).

use super::blocks::{fingerprint, text_block, unix_ms, user_message};
use super::database::{self, DatabaseReader};
use super::locations::Tool;
use super::records::{self, RecordReader, Sessions};
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo, Writer};
use super::{directory_name, file_stem, Issue, Opened, Reader};
use super::{Format, Open};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension};
use serde_json::{json, Value};
use session_search::{Result, Role, Store};
use std::path::Path;

/// The database's file name.
const DATABASE_NAME: &str = "state.db";

/// How a compaction summary starts (the current and the first wording),
/// and the delimiter before one merged into a message.
const COMPACTION_PREFIXES: [&str; 2] = ["[CONTEXT COMPACTION", "[CONTEXT SUMMARY]:"];
const MERGED_SUMMARY: &str = "[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]";

/// The columns read, by position; absent ones are read as NULL.
const SESSION_COLUMNS: [&str; 5] = ["id", "source", "parent_session_id", "started_at", "cwd"];
const MESSAGE_COLUMNS: [&str; 13] = [
    "id",
    "role",
    "content",
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "timestamp",
    "reasoning",
    "reasoning_content",
    "active",
    "compacted",
    "display_kind",
    "_compressed_summary",
];

/// Whether `db` is Hermes's session store: `sessions` with `started_at`,
/// `messages` with `session_id` (this store's own tables have neither).
pub(super) fn recognises_database(db: &Connection) -> bool {
    let has = |table: &str, column: &str| {
        database::columns(db, table).is_ok_and(|columns| columns.iter().any(|c| c == column))
    };
    has("sessions", "started_at") && has("messages", "session_id")
}

/// Whether `record` is a Hermes session log, or a line of a gateway
/// transcript: its `session_meta` line, or a chat message with a role and
/// a `timestamp` (and no `type`, which other formats' entries have).
pub(super) fn recognises(record: &Value) -> bool {
    let log = record["session_id"].is_string()
        && record["messages"].is_array()
        && (record.get("platform").is_some() || record.get("session_start").is_some());
    let line = match record["role"].as_str() {
        Some("session_meta") => true,
        Some("user" | "assistant" | "tool" | "system") => {
            record.get("timestamp").is_some() && record.get("type").is_none()
        }
        _ => false,
    };
    log || line
}

/// Whether a directory import reads the file named `name`.
pub(super) fn reads_file_named(name: &str) -> bool {
    name == DATABASE_NAME
        || (name.starts_with("session_") && name.ends_with(".json"))
        || is_transcript_name(name)
}

/// Whether the file named `name` is read as a gateway transcript (one
/// message a line) rather than as a session log.
pub(super) fn is_transcript_name(name: &str) -> bool {
    name.ends_with(".jsonl")
}

/// The agent of a file `levels` below a Hermes home (1: in it).
fn agent_id(path: &Path, levels: usize) -> String {
    match directory_name(path, levels + 1) == "profiles" {
        true => format!("hermes-{}", directory_name(path, levels)),
        false => "hermes".to_owned(),
    }
}

pub(super) fn open_database(path: &Path) -> database::Opened {
    database::Opened {
        reader: Box::new(StateDb),
        agent_id: agent_id(path, 1),
    }
}

pub(super) fn open_log(path: &Path) -> records::Opened {
    records::Opened {
        reader: Box::new(Log),
        // `<home>/sessions/session_<id>.json`
        agent_id: agent_id(path, 2),
    }
}

/// A reader of the gateway transcript at `path`, whose name is its
/// session's id.
pub(super) fn open_transcript(path: &Path) -> Opened {
    // `<home>/sessions/<id>.jsonl`
    let id = file_stem(path);
    Opened {
        session: transcript_session(&id, None),
        reader: Box::new(Transcript {
            id,
            in_database: None,
            messages: 0,
        }),
        agent_id: agent_id(path, 2),
    }
}

/// A message of either source, as Hermes keeps it.
struct Message {
    role: String,
    content: Option<String>,
    reasoning: Option<String>,
    tool_calls: Option<Value>,
    tool_call_id: Option<String>,
    tool_name: Option<String>,
    /// Marked as hidden scaffolding, or as a compaction summary.
    scaffolding: bool,
}

/// Whether `text` is (or holds) a compaction summary.
fn is_compaction(text: &str) -> bool {
    let start = text.trim_start();
    COMPACTION_PREFIXES
        .iter()
        .any(|prefix| start.starts_with(prefix))
        || text.contains(MERGED_SUMMARY)
}

/// Content as blocks: a JSON array of parts (a message with images) as
/// those parts, other text as one text block.
fn content_blocks(content: Option<&str>) -> Vec<Value> {
    let Some(content) = content.filter(|text| !text.trim().is_empty()) else {
        return Vec::new();
    };
    if content.starts_with('[') {
        if let Ok(Value::Array(parts)) = serde_json::from_str::<Value>(content) {
            if !parts.is_empty() && parts.iter().all(|part| part["type"].is_string()) {
                return parts;
            }
        }
    }
    vec![text_block(content)]
}

impl Message {
    /// Its role and content blocks; `None` for a role that is not
    /// conversation.
    fn role_and_content(self) -> Option<(Role, Vec<Value>)> {
        let hidden = self.scaffolding || self.content.as_deref().is_some_and(is_compaction);
        let mut blocks = Vec::new();
        let role = match self.role.as_str() {
            "user" => {
                blocks = content_blocks(self.content.as_deref());
                match hidden {
                    true => Role::System,
                    false => return Some(user_message(blocks)),
                }
            }
            "assistant" => {
                if let Some(reasoning) = self.reasoning.filter(|r| !r.trim().is_empty()) {
                    blocks.push(json!({"type": "thinking", "thinking": reasoning}));
                }
                blocks.extend(content_blocks(self.content.as_deref()));
                let calls = match self.tool_calls {
                    Some(Value::Array(calls)) => calls,
                    _ => Vec::new(),
                };
                for mut call in calls {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": call["id"].take(),
                        "name": call["function"]["name"].take(),
                        "input": call["function"]["arguments"].take(),
                    }));
                }
                match hidden {
                    true => Role::System,
                    false => Role::Assistant,
                }
            }
            "tool" => {
                blocks.push(json!({
                    "type": "tool_result",
                    "tool_use_id": self.tool_call_id,
                    "name": self.tool_name,
                    "content": self.content,
                }));
                Role::Tool
            }
            "system" => {
                blocks = content_blocks(self.content.as_deref());
                Role::System
            }
            _ => return None,
        };
        Some((role, blocks))
    }
}

/// Seconds (Hermes's `REAL` timestamps) as milliseconds; a value already
/// in milliseconds is kept.
fn seconds_to_ms(seconds: f64) -> Option<i64> {
    if !seconds.is_finite() || seconds < 0.0 {
        return None;
    }
    let ms = match seconds > 1e11 {
        true => seconds,
        false => seconds * 1000.0,
    };
    (ms < 1e15).then(|| ms.round() as i64)
}

/// A column as a number, from a number or numeric text.
fn real(value: ValueRef<'_>) -> Option<f64> {
    match value {
        ValueRef::Integer(n) => Some(n as f64),
        ValueRef::Real(x) => Some(x),
        ValueRef::Text(text) => std::str::from_utf8(text).ok()?.trim().parse().ok(),
        ValueRef::Blob(_) | ValueRef::Null => None,
    }
}

/// A row of `sessions`.
struct SessionRow {
    id: String,
    parent: Option<String>,
    started_at: Option<i64>,
    cwd: Option<String>,
}

/// A row of `messages`.
struct MessageRow {
    id: i64,
    message: Message,
    created_at: Option<i64>,
    /// Still what Hermes shows (not undone).
    shown: bool,
}

/// Reads `state.db`.
struct StateDb;

impl StateDb {
    /// The sessions, oldest first, and the number of rows without an id.
    fn sessions(db: &Connection) -> rusqlite::Result<(Vec<SessionRow>, usize)> {
        let present = database::columns(db, "sessions")?;
        let sql = format!(
            "SELECT {} FROM sessions ORDER BY started_at, id",
            database::select_list(&present, &SESSION_COLUMNS)
        );
        let mut statement = db.prepare(&sql)?;
        let mut rows = statement.query([])?;
        let (mut sessions, mut without_id) = (Vec::new(), 0);
        while let Some(row) = rows.next()? {
            let Some(id) = database::text(row.get_ref(0)?).filter(|id| !id.is_empty()) else {
                without_id += 1;
                continue;
            };
            sessions.push(SessionRow {
                id,
                parent: database::text(row.get_ref(2)?).filter(|id| !id.is_empty()),
                started_at: real(row.get_ref(3)?).and_then(seconds_to_ms),
                cwd: database::text(row.get_ref(4)?).filter(|cwd| !cwd.is_empty()),
            });
        }
        Ok((sessions, without_id))
    }

    /// The messages of the session `id`, in row order.
    fn messages(
        statement: &mut rusqlite::Statement<'_>,
        id: &str,
    ) -> rusqlite::Result<Vec<MessageRow>> {
        let mut rows = statement.query([id])?;
        let mut messages = Vec::new();
        while let Some(row) = rows.next()? {
            let text = |at: usize| row.get_ref(at).map(database::text);
            let flag = |at: usize| row.get_ref(at).map(|value| real(value).map(|n| n != 0.0));
            let Some(id) = real(row.get_ref(0)?) else {
                continue;
            };
            let tool_calls = text(4)?.and_then(|calls| serde_json::from_str(&calls).ok());
            let reasoning = text(7)?.or(text(8)?);
            let hidden = text(11)?.as_deref() == Some("hidden") || flag(12)? == Some(true);
            messages.push(MessageRow {
                id: id as i64,
                message: Message {
                    role: text(1)?.unwrap_or_default(),
                    content: text(2)?,
                    reasoning,
                    tool_calls,
                    tool_call_id: text(3)?,
                    tool_name: text(5)?,
                    scaffolding: hidden,
                },
                created_at: real(row.get_ref(6)?).and_then(seconds_to_ms),
                shown: flag(9)?.unwrap_or(true) || flag(10)?.unwrap_or(false),
            });
        }
        Ok(messages)
    }
}

impl DatabaseReader for StateDb {
    fn read(&mut self, db: &Connection, out: &mut Sessions<'_>) -> Result<rusqlite::Result<()>> {
        let read = Self::sessions(db).and_then(|sessions| {
            let present = database::columns(db, "messages")?;
            let sql = format!(
                "SELECT {} FROM messages WHERE session_id = ?1 ORDER BY id",
                database::select_list(&present, &MESSAGE_COLUMNS)
            );
            Ok((sessions, db.prepare(&sql)?))
        });
        let ((sessions, without_id), mut statement) = match read {
            Ok(read) => read,
            Err(e) => return Ok(Err(e)),
        };
        if without_id > 0 {
            out.issue(Issue::NotUnderstood {
                reason: format!("{without_id} sessions without an id"),
            });
        }
        for session in sessions {
            let messages = match Self::messages(&mut statement, &session.id) {
                Ok(messages) => messages,
                Err(e) => return Ok(Err(e)),
            };
            if messages.is_empty() {
                out.skip("session without messages");
                continue;
            }
            write_rows(session, messages, out)?;
        }
        Ok(Ok(()))
    }
}

/// Writes one session of the database.
fn write_rows(
    session: SessionRow,
    messages: Vec<MessageRow>,
    out: &mut Sessions<'_>,
) -> Result<()> {
    let info = SessionInfo {
        host_id: session.id.clone(),
        id: session.id,
        spawned_by: session.parent,
        created_at: session.started_at,
    };
    let cwd = session.cwd;
    out.session(info, |out| {
        if let Some(cwd) = &cwd {
            out.set_cwd(cwd);
        }
        // The last message Hermes still shows: what comes after an undone
        // turn hangs from it.
        let mut last_shown: Option<String> = None;
        let mut undone = false;
        for row in messages {
            out.set_line(usize::try_from(row.id).unwrap_or_default());
            let id = row.id.to_string();
            let kind = row.message.role.clone();
            let Some((role, content)) = row.message.role_and_content() else {
                skip_role(out, &kind);
                continue;
            };
            let parent = match (row.shown, &last_shown) {
                (false, _) => Parent::Previous,
                (true, Some(shown)) => Parent::Id(shown.clone()),
                (true, None) => Parent::Root,
            };
            out.message(HostMessage {
                id: id.clone(),
                parent,
                role,
                content,
                created_at: row.created_at,
            })?;
            match row.shown {
                true => last_shown = Some(id),
                false => undone = true,
            }
        }
        if let (true, Some(shown)) = (undone, last_shown) {
            out.name_leaf(&shown);
        }
        Ok(())
    })
}

/// Counts a message whose role is not conversation (an empty role is
/// reported).
fn skip_role(out: &mut Writer<'_>, role: &str) {
    match role.is_empty() {
        true => out.issue(Issue::NotUnderstood {
            reason: "a message without a role".into(),
        }),
        false => out.skip_entry(role, None, Parent::Previous),
    }
}

/// Reads a JSON session log.
struct Log;

impl RecordReader for Log {
    fn record(&mut self, record: Value, out: &mut Sessions<'_>) -> Result<()> {
        let Some(id) = record["session_id"].as_str().filter(|id| !id.is_empty()) else {
            out.issue(Issue::NotUnderstood {
                reason: "a session without a session_id".into(),
            });
            return Ok(());
        };
        if in_database(out.store(), id)? {
            out.skip(FROM_DATABASE);
            return Ok(());
        }
        let cwd = record["cwd"]
            .as_str()
            .or(record["model_config"]["cwd"].as_str())
            .map(str::to_owned);
        let info = SessionInfo {
            id: id.to_owned(),
            host_id: id.to_owned(),
            spawned_by: record["parent_session_id"].as_str().map(str::to_owned),
            created_at: time(&record["session_start"]),
        };
        let messages = record["messages"].as_array().cloned().unwrap_or_default();
        out.session(info, |out| {
            if let Some(cwd) = &cwd {
                out.set_cwd(cwd);
            }
            let mut number = 0;
            for entry in messages {
                write_entry(entry, &mut number, out)?;
            }
            Ok(())
        })
    }
}

/// Reads a gateway transcript, `sessions/<id>.jsonl`.
struct Transcript {
    /// The session's id, the file's name.
    id: String,
    /// Whether the store has the session from `state.db`; known at the
    /// first entry.
    in_database: Option<bool>,
    /// The messages numbered so far.
    messages: usize,
}

impl Reader for Transcript {
    fn entry(&mut self, entry: Value, out: &mut Writer<'_>) -> Result<()> {
        let in_database = match self.in_database {
            Some(known) => known,
            None => {
                let known = in_database(out.store(), &self.id)?;
                if known {
                    out.skip_entry(FROM_DATABASE, None, Parent::Previous);
                }
                *self.in_database.insert(known)
            }
        };
        if in_database {
            return Ok(());
        }
        if entry["role"] == "session_meta" {
            out.set_session(transcript_session(&self.id, time(&entry["timestamp"])));
        }
        write_entry(entry, &mut self.messages, out)
    }
}

/// The session of the transcript `id`, started at `created_at`.
fn transcript_session(id: &str, created_at: Option<i64>) -> SessionInfo {
    SessionInfo {
        id: id.to_owned(),
        host_id: id.to_owned(),
        spawned_by: None,
        created_at,
    }
}

/// Why a log or transcript adds nothing: `state.db` gave its session.
const FROM_DATABASE: &str = "session imported from state.db";

/// Writes a message of a log or a transcript, `entry`; `number` counts the
/// entries so far that are not `session_meta`. The message's id is
/// `m<number>-<fingerprint of its role and content>`.
fn write_entry(mut entry: Value, number: &mut usize, out: &mut Writer<'_>) -> Result<()> {
    let kind = entry["role"].as_str().unwrap_or_default().to_owned();
    if kind != "session_meta" {
        *number += 1;
    }
    let id = format!(
        "m{number}-{}",
        fingerprint([&entry["role"], &entry["content"]])
    );
    let message = Message {
        role: kind.clone(),
        content: text_field(&entry["content"]),
        reasoning: entry["reasoning"]
            .as_str()
            .or(entry["reasoning_content"].as_str())
            .map(str::to_owned),
        tool_calls: Some(entry["tool_calls"].take()),
        tool_call_id: entry["tool_call_id"].as_str().map(str::to_owned),
        tool_name: entry["tool_name"].as_str().map(str::to_owned),
        scaffolding: entry["_compressed_summary"] == true || entry["display_kind"] == "hidden",
    };
    let Some((role, content)) = message.role_and_content() else {
        skip_role(out, &kind);
        return Ok(());
    };
    out.message(HostMessage {
        id,
        parent: Parent::Previous,
        role,
        content,
        created_at: time(&entry["timestamp"]),
    })
}

/// A time as Hermes writes it: ISO 8601 text (without a zone, UTC), or
/// seconds.
fn time(value: &Value) -> Option<i64> {
    match value {
        Value::String(_) => unix_ms(value),
        other => other.as_f64().and_then(seconds_to_ms),
    }
}

/// Content as text: a string as it is, parts as their JSON.
fn text_field(content: &Value) -> Option<String> {
    match content {
        Value::String(text) => Some(text.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Whether the store holds the session `id` with messages read from
/// `state.db` (whose ids are numbers).
fn in_database(store: &Store, id: &str) -> Result<bool> {
    let found = store
        .connection()
        .query_row(
            "SELECT 1 FROM messages WHERE session_key = ?1 AND message_id GLOB '[0-9]*' LIMIT 1",
            [format!("hermes:{id}")],
            |_| Ok(()),
        )
        .optional()?;
    Ok(found.is_some())
}

/// Where Hermes Agent keeps its sessions: the database first, as a session
/// log of a session it holds adds nothing.
pub(super) const TOOLS: &[Tool] = &[Tool {
    name: "Hermes Agent",
    variable: Some("HERMES_HOME"),
    home_folder: ".hermes",
    folders: &["state.db", "sessions"],
}];

/// The importer of Hermes Agent's session store, session logs and gateway
/// transcripts.
pub(super) struct HermesImporter;

impl Importer for HermesImporter {
    /// `state.db`, `sessions/session_<id>.json` and `sessions/<id>.jsonl`.
    fn reads_file_named(&self, name: &str) -> bool {
        reads_file_named(name)
    }

    /// `state.db`, read before the logs of the sessions it holds.
    fn is_database_name(&self, name: &str) -> bool {
        name == DATABASE_NAME
    }

    /// Its session logs and gateway transcripts.
    fn recognises(&self, record: &Value) -> bool {
        recognises(record)
    }

    fn recognises_database(&self, db: &Connection) -> bool {
        recognises_database(db)
    }

    fn open(&self, _format: Format, path: &Path) -> Open {
        if database::is_database(path).unwrap_or(false) {
            Open::Database(open_database(path))
        } else if is_transcript_name(&path.to_string_lossy()) {
            Open::Lines(open_transcript(path))
        } else {
            Open::Records(open_log(path))
        }
    }

    fn resume_command(&self, _format: Format, host_id: &str) -> Option<String> {
        Some(format!("hermes --resume {host_id}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compaction_summaries_in_their_forms() {
        assert!(is_compaction(
            "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns"
        ));
        assert!(is_compaction("  [CONTEXT SUMMARY]: the user asked"));
        assert!(is_compaction(
            "[PRIOR CONTEXT — for reference only; not a new message]\nhi\n[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]\n..."
        ));
        assert!(!is_compaction("what is a [CONTEXT SUMMARY]: block?"));
    }

    #[test]
    fn seconds_become_milliseconds() {
        assert_eq!(seconds_to_ms(1_777_000_000.25), Some(1_777_000_000_250));
        assert_eq!(seconds_to_ms(1_777_000_000_250.0), Some(1_777_000_000_250));
        assert_eq!(seconds_to_ms(f64::NAN), None);
        assert_eq!(seconds_to_ms(-1.0), None);
    }

    #[test]
    fn profiles_are_agents_of_their_own() {
        let agent = |path: &str, levels| agent_id(Path::new(path), levels);
        assert_eq!(agent("/home/u/.hermes/state.db", 1), "hermes");
        assert_eq!(
            agent("/home/u/.hermes/profiles/work/state.db", 1),
            "hermes-work"
        );
        assert_eq!(
            agent("/home/u/.hermes/profiles/work/sessions/session_1.json", 2),
            "hermes-work"
        );
        assert_eq!(
            agent("/home/u/.hermes/sessions/session_1.json", 2),
            "hermes"
        );
    }
}
