//! OpenCode sessions, as its JSON storage keeps them
//! (`~/.local/share/opencode/storage/`): one small file per session, per
//! message and per part.
//!
//! - `session/<projectID>/<sessionID>.json`: `id`, `projectID`, `parentID`
//!   (the session that started this one as a sub-agent's task), `title`,
//!   `directory` (where it ran), `time.created` / `time.updated`,
//!   `revert` (`messageID`: the messages from there on were undone, and the
//!   tool no longer shows them).
//! - `message/<sessionID>/<messageID>.json`: `id`, `role` (`user` /
//!   `assistant`), `time.created`, and for an answer `time.completed`,
//!   `parentID` (the prompt it answers), `modelID`, `path.cwd`, `error`.
//! - `part/<messageID>/<partID>.json`: what a message says, in parts of a
//!   `type`: `text` (`synthetic` when OpenCode wrote it, such as a file it
//!   attached), `reasoning`, `tool` (`callID`, `tool`, `state` with
//!   `input` and `output` or `error`), `file`, `patch`, `snapshot`,
//!   `agent`, `subtask`, `compaction`, `retry`, `step-start` and
//!   `step-finish`. A legacy layout keeps the parts flat,
//!   `part/<partID>.json` with a `messageID`.
//!
//! The session file is what an import reads (a directory import finds it by
//! its name, `ses_*.json` in `session/<project>/`, and its content); its messages and their parts
//! are read from the `message/` and `part/` folders beside `session/`. A
//! message or part file that cannot be read, is cut off or is not JSON is
//! reported by its path and left out; a message whose parts were not all
//! read is written with the rest and never rewritten from them.
//!
//! Messages go in the order of `time.created`, then id, one after the
//! other: several answers name one prompt as their `parentID` (one per step
//! of the agent's loop), and OpenCode shows them in sequence, not as
//! branches. The active branch ends before the session's `revert` message,
//! where OpenCode hides the undone messages. A message's parts go in the
//! order of their file names (ascending ids), as OpenCode lists them: text
//! parts are the searchable text, synthetic ones stored as context;
//! reasoning, tool calls with their output, files, patches, snapshots and
//! the other parts are stored under their own types, not searchable;
//! `step-start` and `step-finish` (token counts) are counted, not stored.
//! Tool calls and their results stay in the answer that made them, as
//! OpenCode keeps them. A compaction's summary (an answer with `summary`)
//! is stored as `system`, so that it never repeats the hits of what it
//! summarises.
//!
//! OpenCode writes an answer's parts as they come and its `time.completed`
//! last: an answer imported while it was being written gets the content of
//! its files again at the next import.

use super::blocks::{unix_ms, user_message, CONTEXT_BLOCK};
use super::records::{Opened, RecordReader, Sessions};
use super::writer::{HostMessage, Parent, SessionInfo};
use super::Issue;
use crate::{Result, Role};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Part types that are bookkeeping (step boundaries with token counts):
/// counted, not stored.
const BOOKKEEPING_PARTS: [&str; 2] = ["step-start", "step-finish"];

/// Whether a directory import reads a file named `name`: a session file,
/// `ses_<id>.json`.
pub(super) fn reads_file_named(name: &str) -> bool {
    name.starts_with("ses_") && name.ends_with(".json")
}

/// Whether `path` is in a `session/<project>/` folder, where OpenCode keeps
/// its session files (other folders hold files named after sessions too).
pub(super) fn in_session_folder(path: &Path) -> bool {
    path.ancestors()
        .nth(2)
        .and_then(Path::file_name)
        .is_some_and(|name| name == "session")
}

/// Whether `record` is an OpenCode session.
pub(super) fn recognises(record: &Value) -> bool {
    record["id"].is_string()
        && record["projectID"].is_string()
        && record["time"]["created"].is_number()
        && record.get("role").is_none()
}

pub(super) fn open(path: &Path) -> Opened {
    Opened {
        reader: Box::new(OpenCode {
            path: path.to_owned(),
        }),
        agent_id: "opencode".to_owned(),
    }
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
        let key = |m: &Message| {
            let created = unix_ms(&m.info["time"]["created"]).unwrap_or(i64::MAX);
            (
                created,
                m.info["id"].as_str().unwrap_or_default().to_owned(),
            )
        };
        messages.sort_by_cached_key(key);

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
        let undone = session["revert"]["messageID"].as_str();
        let shown = messages
            .iter()
            .take_while(|m| undone != m.info["id"].as_str())
            .last()
            .map(|m| m.info["id"].as_str().unwrap_or_default().to_owned());
        let info = SessionInfo {
            host_id: id.clone(),
            id,
            spawned_by: session["parentID"].as_str().map(str::to_owned),
            created_at: unix_ms(&session["time"]["created"]),
        };
        let directory = session["directory"].as_str().filter(|d| !d.is_empty());
        out.session(info, |out| {
            if let Some(directory) = directory {
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
