//! OpenCode sessions, in both of its stores, and those of Kilo, whose CLI
//! (and the editor extension built on it) is a fork of OpenCode keeping
//! them the same way under its own name.
//!
//! OpenCode keeps its data in `$XDG_DATA_HOME/opencode`, else
//! `~/.local/share/opencode`, on every system (Kilo in `…/kilo`). Since
//! version 1.2 its sessions are in a SQLite database there, `opencode.db`
//! (`opencode-<channel>.db` for a build of another channel, or where
//! `OPENCODE_DB` says; Kilo's `kilo.db`, `kilo-<channel>.db`, `KILO_DB`);
//! before, in a JSON storage, `storage/`, which OpenCode copies into the
//! database once when it first opens it, keeping every id. Both hold the
//! same records:
//!
//! - a session: `id`, `projectID`, `parentID` (the session that started
//!   this one as a sub-agent's task), `title`, `directory` (where it ran),
//!   `time.created` / `time.updated`, `revert` (`messageID`: the messages
//!   from there on were undone, and the tool no longer shows them);
//! - a message: `id`, `role` (`user` / `assistant`), `time.created`, and
//!   for an answer `time.completed`, `parentID` (the prompt it answers),
//!   `modelID`, `path.cwd`, `summary` (a compaction's summary), `error`;
//! - a part, what a message says, of a `type`: `text` (`synthetic` when
//!   OpenCode wrote it, such as a file it attached), `reasoning`, `tool`
//!   (`callID`, `tool`, `state` with `input` and `output` or `error`),
//!   `file`, `patch`, `snapshot`, `agent`, `subtask`, `compaction`,
//!   `retry`, `step-start` and `step-finish`.
//!
//! In the storage, each is a file: `session/<projectID>/<sessionID>.json`,
//! `message/<sessionID>/<messageID>.json`, `part/<messageID>/<partID>.json`
//! (a legacy layout keeps the parts flat, `part/<partID>.json` with a
//! `messageID`). The session file is what an import reads (a directory
//! import finds it by its name, `ses_*.json` in `session/<project>/`, and
//! its content); its messages and their parts are read from the `message/`
//! and `part/` folders beside `session/`. A message or part file that
//! cannot be read, is cut off or is not JSON is reported by its path and
//! left out; a message whose parts were not all read is written with the
//! rest and never rewritten from them.
//!
//! In the database, each is a row: tables `session` (`id`, `parent_id`,
//! `directory` — absent in some versions, empty for a session that had
//! none —, `time_created`, `revert` as JSON, …), `message` (`id`,
//! `session_id`, `time_created`, `data`: the message's JSON without its
//! ids) and `part` (`id`, `message_id`, `session_id`, `data`: the part's
//! JSON without its ids). The database is recognised by these tables and
//! read whole, each session one after the other; a message or part whose
//! `data` is not a JSON object is reported with the session's number (in
//! the order of creation) and its id, and left out, its message written
//! with the rest and never rewritten from them.
//!
//! Either way, the same rules: messages go in the order of `time.created`,
//! then id, one after the other: several answers name one prompt as their
//! `parentID` (one per step of the agent's loop), and OpenCode shows them
//! in sequence, not as branches. The active branch ends before the
//! session's `revert` message, where OpenCode hides the undone messages. A
//! message's parts go in the order of their ids, as OpenCode lists them:
//! text parts are the searchable text, synthetic ones stored as context;
//! reasoning, tool calls with their output, files, patches, snapshots and
//! the other parts are stored under their own types, not searchable;
//! `step-start` and `step-finish` (token counts) are counted, not stored.
//! Tool calls and their results stay in the answer that made them, as
//! OpenCode keeps them. A compaction's summary (an answer with `summary`)
//! is stored as `system`, so that it never repeats the hits of what it
//! summarises. The session's `directory`, else an answer's `path.cwd`, is
//! where it ran.
//!
//! The message ids are the same in both stores, so a session read from the
//! database and from the storage it was copied from is stored once: the
//! second read adds nothing.
//!
//! OpenCode writes an answer's parts as they come and its `time.completed`
//! last: an answer imported while it was being written gets its content
//! again at the next import.
//!
//! Kilo's sessions are told from OpenCode's by where they are: a database
//! named `kilo*.db`, or a database or storage in a data folder named
//! `kilo`. They are `kilo:<id>`, of the agent `kilo`.

use super::blocks::{unix_ms, user_message, CONTEXT_BLOCK};
use super::database::{self, DatabaseReader};
use super::locations::Tool;
use super::records::{Opened, RecordReader, Sessions};
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo};
use super::Open;
use super::{Format, Issue};
use rusqlite::Connection;
use serde_json::{json, Value};
use session_search::{Result, Role};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Part types that are bookkeeping (step boundaries with token counts):
/// counted, not stored.
const BOOKKEEPING_PARTS: [&str; 2] = ["step-start", "step-finish"];

/// The name of Kilo's data folder, and the start of its databases' names.
const KILO: &str = "kilo";

/// The columns of `session` read, by position; absent ones are read as
/// NULL.
const SESSION_COLUMNS: [&str; 5] = ["id", "parent_id", "directory", "time_created", "revert"];

/// Whether a directory import reads a file named `name`: a session file,
/// `ses_<id>.json`, or a database of OpenCode or Kilo.
pub(super) fn reads_file_named(name: &str) -> bool {
    is_session_file_name(name) || is_database_name(name)
}

/// The name of `path`'s file, or `""`.
fn file_name(path: &Path) -> &str {
    path.file_name()
        .and_then(|name| name.to_str())
        .unwrap_or_default()
}

/// Whether `name` is a session file's, `ses_<id>.json`.
fn is_session_file_name(name: &str) -> bool {
    name.starts_with("ses_") && name.ends_with(".json")
}

/// Whether `name` is one of an OpenCode or Kilo database: `opencode.db`,
/// `opencode-<channel>.db`, `kilo.db`, `kilo-<channel>.db`.
fn is_database_name(name: &str) -> bool {
    ["opencode", KILO].iter().any(|tool| {
        name.strip_prefix(tool)
            .and_then(|rest| rest.strip_suffix(".db"))
            .is_some_and(|channel| {
                channel.is_empty() || channel.len() > 1 && channel.starts_with('-')
            })
    })
}

/// Whether a directory import reads the file `path`: a database of the
/// names above, or a session file ([`is_session_path`]).
pub(super) fn reads_path(path: &Path) -> bool {
    let name = file_name(path);
    is_database_name(name) || is_session_path(path)
}

/// Whether `path` is named as a session file, in a `session/<project>/`
/// folder, where OpenCode keeps them (other folders hold files named after
/// sessions too).
pub(super) fn is_session_path(path: &Path) -> bool {
    let name = file_name(path);
    is_session_file_name(name)
        && path
            .ancestors()
            .nth(2)
            .and_then(Path::file_name)
            .is_some_and(|name| name == "session")
}

/// Which of the two tools the file at `path`, an OpenCode database or
/// session file, is of: Kilo's in a data folder named `kilo` (above a
/// database, or above `storage/session/<project>/`), or a database named
/// `kilo*.db`; else OpenCode's.
pub(super) fn member(path: &Path) -> Format {
    let name = file_name(path);
    let data_folder = match is_session_file_name(name) {
        true => path.ancestors().nth(4),
        false => path.parent(),
    };
    let in_kilo = data_folder
        .and_then(Path::file_name)
        .is_some_and(|folder| folder == KILO);
    match in_kilo || (name.starts_with(KILO) && !is_session_file_name(name)) {
        true => Format::Kilo,
        false => Format::OpenCode,
    }
}

/// Whether `record` is an OpenCode session.
pub(super) fn recognises(record: &Value) -> bool {
    record["id"].is_string()
        && record["projectID"].is_string()
        && record["time"]["created"].is_number()
        && record.get("role").is_none()
}

/// A reader of the session file at `path`, of `format` (OpenCode's or
/// Kilo's).
pub(super) fn open(path: &Path, format: Format) -> Opened {
    Opened {
        reader: Box::new(OpenCode {
            path: path.to_owned(),
        }),
        agent_id: format.name().to_owned(),
    }
}

/// A reader of a database of `format` (OpenCode's or Kilo's).
pub(super) fn open_database(format: Format) -> database::Opened {
    database::Opened {
        reader: Box::new(OpenCodeDb),
        agent_id: format.name().to_owned(),
    }
}

/// Whether `db` is an OpenCode database: `session`, `message` with
/// `session_id` and `data`, `part` with `message_id` and `data`.
pub(super) fn recognises_database(db: &Connection) -> bool {
    let has = |table: &str, wanted: &[&str]| {
        database::columns(db, table)
            .is_ok_and(|columns| wanted.iter().all(|w| columns.iter().any(|c| c == w)))
    };
    has("session", &["id", "parent_id"])
        && has("message", &["id", "session_id", "data"])
        && has("part", &["id", "message_id", "data"])
}

/// The message files of the session stored in the session file at `path`
/// (read for its id): the files whose changes are changes of the session.
/// Empty when `path` is not an OpenCode session file.
pub(super) fn message_files(path: &Path) -> Vec<PathBuf> {
    let session = std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .filter(recognises);
    let (Some(session), Some(storage)) = (session, storage_dir(path)) else {
        return Vec::new();
    };
    let id = session["id"].as_str().unwrap_or_default();
    json_files(&storage.join("message").join(id))
}

/// The `storage/` folder of a session file, `storage/session/<project>/<id>.json`.
fn storage_dir(path: &Path) -> Option<PathBuf> {
    path.ancestors().nth(3).map(Path::to_owned)
}

/// The `*.json` files in `dir`, by name; none when it cannot be read.
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "json") && path.is_file())
        .collect();
    files.sort();
    files
}

/// Reads a JSON object from `path`, or says why not.
fn read_object(path: &Path) -> std::result::Result<Value, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot be read ({e})"))?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(value @ Value::Object(_)) => Ok(value),
        Ok(_) => Err("not a JSON object".to_owned()),
        Err(e) if e.is_eof() => Err("cut off (incomplete JSON)".to_owned()),
        Err(e) => Err(format!("not JSON ({e})")),
    }
}

struct OpenCode {
    /// The session file.
    path: PathBuf,
}

/// A message file read, with its parts.
struct Message {
    info: Value,
    parts: Vec<Value>,
    /// Every part file of it was read.
    whole: bool,
}

impl OpenCode {
    /// The session's messages in order, with their parts; files that could
    /// not be read are reported in `skipped`.
    fn messages(&self, storage: &Path, id: &str, skipped: &mut Vec<Issue>) -> Vec<Message> {
        let mut report = |path: &Path, reason: String| {
            skipped.push(Issue::SkippedFile {
                path: path.to_owned(),
                reason,
            })
        };
        let mut messages = Vec::new();
        for path in json_files(&storage.join("message").join(id)) {
            match read_object(&path) {
                Ok(info) if info["id"].is_string() => messages.push(Message {
                    info,
                    parts: Vec::new(),
                    whole: true,
                }),
                Ok(_) => report(&path, "a message without an id".to_owned()),
                Err(reason) => report(&path, reason),
            }
        }
        let part_dir = storage.join("part");
        let mut flat: Option<HashMap<String, Vec<Value>>> = None;
        for message in &mut messages {
            let message_id = message.info["id"].as_str().unwrap_or_default().to_owned();
            let dir = part_dir.join(&message_id);
            if dir.is_dir() {
                for path in json_files(&dir) {
                    match read_object(&path) {
                        Ok(part) => message.parts.push(part),
                        Err(reason) => {
                            message.whole = false;
                            report(&path, reason);
                        }
                    }
                }
                continue;
            }
            // The legacy layout: every part in `part/`, naming its message.
            let flat = flat.get_or_insert_with(|| {
                let mut by_message: HashMap<String, Vec<Value>> = HashMap::new();
                for path in json_files(&part_dir) {
                    match read_object(&path) {
                        Ok(part) => {
                            let owner = part["messageID"].as_str().unwrap_or_default().to_owned();
                            by_message.entry(owner).or_default().push(part);
                        }
                        // Whose it is cannot be told: every session of the
                        // folder reports it, and rewrites no message.
                        Err(reason) => {
                            report(&path, reason);
                            by_message.entry(String::new()).or_default();
                        }
                    }
                }
                by_message
            });
            message.whole = !flat.contains_key("");
            message.parts = flat.remove(&message_id).unwrap_or_default();
        }
        messages
    }
}

impl RecordReader for OpenCode {
    fn record(&mut self, session: Value, out: &mut Sessions<'_>) -> Result<()> {
        let (true, Some(storage)) = (recognises(&session), storage_dir(&self.path)) else {
            out.issue(Issue::NotUnderstood {
                reason: "not an OpenCode session (id, projectID, time.created)".into(),
            });
            return Ok(());
        };
        let id = session["id"].as_str().unwrap_or_default().to_owned();
        let mut skipped = Vec::new();
        let messages = self.messages(&storage, &id, &mut skipped);
        for issue in skipped {
            out.issue(issue);
        }
        let session = Session {
            id,
            parent: session["parentID"].as_str().map(str::to_owned),
            directory: session["directory"].as_str().map(str::to_owned),
            created_at: unix_ms(&session["time"]["created"]),
            undone: session["revert"]["messageID"].as_str().map(str::to_owned),
        };
        write_session(session, messages, out)
    }
}

/// A session as OpenCode keeps it, in either of its stores.
struct Session {
    id: String,
    /// The session whose task started it (`parentID`, `parent_id`).
    parent: Option<String>,
    /// Where it ran; empty in a session moved from storage without one.
    directory: Option<String>,
    created_at: Option<i64>,
    /// The `revert` message: from it on, the messages were undone.
    undone: Option<String>,
}

/// Writes one session with its messages, read from either store: in the
/// order of `time.created`, then id; the active branch ending before the
/// `revert` message; the directory, else an answer's `path.cwd`, as where
/// it ran.
fn write_session(
    session: Session,
    mut messages: Vec<Message>,
    out: &mut Sessions<'_>,
) -> Result<()> {
    messages.sort_by_cached_key(|m| {
        let created = unix_ms(&m.info["time"]["created"]).unwrap_or(i64::MAX);
        (
            created,
            m.info["id"].as_str().unwrap_or_default().to_owned(),
        )
    });
    let shown = messages
        .iter()
        .take_while(|m| session.undone.as_deref() != m.info["id"].as_str())
        .last()
        .map(|m| m.info["id"].as_str().unwrap_or_default().to_owned());
    let info = SessionInfo {
        host_id: session.id.clone(),
        id: session.id,
        spawned_by: session.parent,
        created_at: session.created_at,
    };
    let directory = session.directory.filter(|d| !d.is_empty());
    out.session(info, |out| {
        if let Some(directory) = &directory {
            out.set_cwd(directory);
        }
        for message in messages {
            if let Some(cwd) = message.info["path"]["cwd"].as_str() {
                out.set_cwd(cwd);
            }
            for part in &message.parts {
                let kind = part["type"].as_str().unwrap_or_default();
                if BOOKKEEPING_PARTS.contains(&kind) {
                    out.skip_entry(&format!("part/{kind}"), None, Parent::Previous);
                }
            }
            let (role, content) = role_and_content(&message.info, message.parts);
            let host = HostMessage {
                id: message.info["id"].as_str().unwrap_or_default().to_owned(),
                parent: Parent::Previous,
                role,
                content,
                created_at: unix_ms(&message.info["time"]["created"]),
            };
            match message.whole {
                true => out.revised_message(host)?,
                false => out.message(host)?,
            }
        }
        if let Some(shown) = &shown {
            out.name_leaf(shown);
        }
        Ok(())
    })
}

/// Reads an OpenCode database.
struct OpenCodeDb;

/// A row of `session`.
struct SessionRow {
    id: String,
    parent: Option<String>,
    directory: Option<String>,
    created_at: Option<i64>,
    /// The `revert` column, JSON.
    revert: Option<String>,
}

impl OpenCodeDb {
    /// The sessions, in the order of creation, and the number of rows
    /// without an id.
    fn sessions(db: &Connection) -> rusqlite::Result<(Vec<SessionRow>, usize)> {
        let present = database::columns(db, "session")?;
        let sql = format!(
            "SELECT {} FROM session ORDER BY time_created, id",
            database::select_list(&present, &SESSION_COLUMNS)
        );
        let mut statement = db.prepare(&sql)?;
        let mut rows = statement.query([])?;
        let (mut sessions, mut without_id) = (Vec::new(), 0);
        while let Some(row) = rows.next()? {
            let text = |at: usize| row.get_ref(at).map(database::text);
            let Some(id) = text(0)?.filter(|id| !id.is_empty()) else {
                without_id += 1;
                continue;
            };
            sessions.push(SessionRow {
                id,
                parent: text(1)?.filter(|id| !id.is_empty()),
                directory: text(2)?,
                created_at: text(3)?.and_then(|ms| ms.parse().ok()),
                revert: text(4)?,
            });
        }
        Ok((sessions, without_id))
    }

    /// The messages of the session `id` with their parts; rows whose
    /// `data` is not a JSON object are reported in `skipped`.
    fn messages(
        db: &Connection,
        id: &str,
        skipped: &mut Vec<Issue>,
    ) -> rusqlite::Result<Vec<Message>> {
        let mut report = |what: String| {
            skipped.push(Issue::NotUnderstood {
                reason: format!("{what}: data is not a JSON object"),
            })
        };
        let mut messages = Vec::new();
        let mut statement = db.prepare_cached(
            "SELECT id, time_created, data FROM message WHERE session_id = ?1 ORDER BY time_created, id",
        )?;
        let mut rows = statement.query([id])?;
        while let Some(row) = rows.next()? {
            let Some(message_id) = database::text(row.get_ref(0)?) else {
                continue;
            };
            let Some(mut info) = object(row.get_ref(2)?) else {
                report(format!("message {message_id}"));
                continue;
            };
            info["id"] = json!(message_id);
            if !info["time"].is_object() {
                info["time"] = json!({});
            }
            if !info["time"]["created"].is_number() {
                let created = database::text(row.get_ref(1)?).and_then(|ms| ms.parse::<i64>().ok());
                info["time"]["created"] = json!(created);
            }
            messages.push(Message {
                info,
                parts: Vec::new(),
                whole: true,
            });
        }
        let at: HashMap<String, usize> = messages
            .iter()
            .enumerate()
            .map(|(at, m)| (m.info["id"].as_str().unwrap_or_default().to_owned(), at))
            .collect();
        let mut statement = db.prepare_cached(
            "SELECT id, message_id, data FROM part \
             WHERE message_id IN (SELECT id FROM message WHERE session_id = ?1) \
             ORDER BY message_id, id",
        )?;
        let mut rows = statement.query([id])?;
        while let Some(row) = rows.next()? {
            let owner = database::text(row.get_ref(1)?).unwrap_or_default();
            let Some(&message) = at.get(&owner) else {
                continue;
            };
            match object(row.get_ref(2)?) {
                Some(part) => messages[message].parts.push(part),
                None => {
                    let part = database::text(row.get_ref(0)?).unwrap_or_default();
                    report(format!("part {part} of message {owner}"));
                    messages[message].whole = false;
                }
            }
        }
        Ok(messages)
    }
}

/// A `data` column as a JSON object.
fn object(value: rusqlite::types::ValueRef<'_>) -> Option<Value> {
    database::text(value)
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .filter(Value::is_object)
}

impl DatabaseReader for OpenCodeDb {
    fn read(&mut self, db: &Connection, out: &mut Sessions<'_>) -> Result<rusqlite::Result<()>> {
        let (sessions, without_id) = match Self::sessions(db) {
            Ok(read) => read,
            Err(e) => return Ok(Err(e)),
        };
        if without_id > 0 {
            out.issue(Issue::NotUnderstood {
                reason: format!("{without_id} sessions without an id"),
            });
        }
        for (number, row) in sessions.into_iter().enumerate() {
            out.set_record(number + 1);
            let mut skipped = Vec::new();
            let messages = match Self::messages(db, &row.id, &mut skipped) {
                Ok(messages) => messages,
                Err(e) => return Ok(Err(e)),
            };
            for issue in skipped {
                out.issue(issue);
            }
            if messages.is_empty() {
                out.skip("session without messages");
                continue;
            }
            let revert = row
                .revert
                .and_then(|revert| serde_json::from_str::<Value>(&revert).ok());
            let session = Session {
                id: row.id,
                parent: row.parent,
                directory: row.directory,
                created_at: row.created_at,
                undone: revert
                    .as_ref()
                    .and_then(|revert| revert["messageID"].as_str())
                    .map(str::to_owned),
            };
            write_session(session, messages, out)?;
        }
        Ok(Ok(()))
    }
}

/// The role and content blocks of a message with its parts (bookkeeping
/// parts left out).
fn role_and_content(info: &Value, parts: Vec<Value>) -> (Role, Vec<Value>) {
    let mut blocks = Vec::with_capacity(parts.len());
    for mut part in parts {
        let kind = part["type"].as_str().unwrap_or_default().to_owned();
        if BOOKKEEPING_PARTS.contains(&kind.as_str()) {
            continue;
        }
        if let Value::Object(fields) = &mut part {
            for key in ["id", "sessionID", "messageID"] {
                fields.remove(key);
            }
        }
        let block = match kind.as_str() {
            "text" => {
                let text = part["text"].as_str().unwrap_or_default();
                match part["synthetic"].as_bool() == Some(true) {
                    true => json!({"type": CONTEXT_BLOCK, "text": text}),
                    false => json!({"type": "text", "text": text}),
                }
            }
            "tool" => {
                let mut state = part["state"].take();
                let result = match state["status"].as_str() {
                    Some("error") => state["error"].take(),
                    _ => state["output"].take(),
                };
                blocks.push(json!({
                    "type": "tool_use",
                    "id": part["callID"],
                    "name": part["tool"],
                    "input": state["input"].take(),
                }));
                json!({
                    "type": "tool_result",
                    "tool_use_id": part["callID"],
                    "status": state["status"],
                    "content": result,
                })
            }
            "" => json!({"type": "(no type)", "part": part}),
            _ => part,
        };
        blocks.push(block);
    }
    match info["role"].as_str() {
        Some("user") => {
            let (role, blocks) = user_message(blocks);
            // Only what OpenCode wrote (files it attached, a command's
            // expansion): its own message.
            let only_context =
                !blocks.is_empty() && blocks.iter().all(|block| block["type"] == CONTEXT_BLOCK);
            match only_context {
                true => (Role::System, blocks),
                false => (role, blocks),
            }
        }
        // A compaction's summary repeats what it summarises: stored, not
        // searchable.
        Some("assistant") if info["summary"] == true => (Role::System, blocks),
        Some("assistant") => (Role::Assistant, blocks),
        _ => (Role::System, blocks),
    }
}

/// Where OpenCode keeps its sessions: the database first, as it holds what
/// OpenCode copied from its older storage, whose sessions then add nothing.
pub(super) const OPENCODE_TOOLS: &[Tool] = &[Tool {
    name: "OpenCode",
    variable: Some("XDG_DATA_HOME"),
    home_folder: ".local/share",
    folders: &["opencode/opencode.db", "opencode/storage"],
}];

/// Where Kilo keeps its sessions, as OpenCode does.
pub(super) const KILO_TOOLS: &[Tool] = &[Tool {
    name: "Kilo",
    variable: Some("XDG_DATA_HOME"),
    home_folder: ".local/share",
    folders: &["kilo/kilo.db", "kilo/storage"],
}];

/// The importer of OpenCode's database and JSON storage; Kilo's, a fork
/// that writes the same, is its [`KiloImporter`].
pub(super) struct OpenCodeImporter;

impl Importer for OpenCodeImporter {
    /// `ses_*.json` in the storage, and the databases.
    fn reads_file_named(&self, name: &str) -> bool {
        reads_file_named(name)
    }

    /// OpenCode keeps other files named after sessions too
    /// (`session_diff/`, `todo/`, `session_share/`).
    fn reads_path(&self, path: &Path) -> bool {
        reads_path(path)
    }

    /// `opencode.db` and `opencode-<channel>.db`, read before the storage
    /// whose sessions they hold; Kilo's too.
    fn is_database_name(&self, name: &str) -> bool {
        is_database_name(name)
    }

    /// Kilo's too (see [`member`]).
    fn recognises(&self, record: &Value) -> bool {
        recognises(record)
    }

    /// Kilo's too (see [`member`]).
    fn recognises_database(&self, db: &Connection) -> bool {
        recognises_database(db)
    }

    fn member(&self, path: &Path) -> Option<Format> {
        Some(member(path))
    }

    fn open(&self, format: Format, path: &Path) -> Open {
        open_either(format, path)
    }

    /// Run in the session's working directory.
    fn resume_command(&self, format: Format, host_id: &str) -> Option<String> {
        Some(format!("{format} --session {host_id}"))
    }
}

/// The importer of Kilo's sessions, which [`OpenCodeImporter`] recognises
/// (see [`member`]).
pub(super) struct KiloImporter;

impl Importer for KiloImporter {
    fn reads_file_named(&self, name: &str) -> bool {
        reads_file_named(name)
    }

    fn reads_path(&self, path: &Path) -> bool {
        reads_path(path)
    }

    fn is_database_name(&self, name: &str) -> bool {
        is_database_name(name)
    }

    fn open(&self, format: Format, path: &Path) -> Open {
        open_either(format, path)
    }

    fn resume_command(&self, format: Format, host_id: &str) -> Option<String> {
        Some(format!("{format} --session {host_id}"))
    }
}

/// A reader of the file at `path`, a database or a session file, as
/// `format` (OpenCode's or Kilo's).
fn open_either(format: Format, path: &Path) -> Open {
    match database::is_database(path).unwrap_or(false) {
        true => Open::Database(open_database(format)),
        false => Open::Records(open(path, format)),
    }
}
