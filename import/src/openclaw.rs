//! OpenClaw and pi-agent session files: a `{"type":"session"}` header (`id`,
//! `timestamp`, `cwd`, maybe `parentSession`), then entries with `id` and
//! `parentId` that form a tree. `message` entries hold a `message` with a
//! `role` (`user`, `assistant`, `toolResult`, and the agent's own roles) and
//! `content` blocks (`text`, `thinking`, `toolCall`, `image`). Any entry
//! that names a leaf (`leafId`, or a `leaf` entry's `targetId`) moves the
//! active leaf; every other entry (model and
//! thinking-level changes, compactions, branch summaries, labels, …) is
//! counted by type and lets messages hang from its parent.

use super::blocks::{text_block, text_or_blocks, unix_ms, user_message};
use super::locations::Tool;
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo, Writer};
use super::{directory_name, file_stem, Issue, Opened, Reader};
use super::{Format, Open};
use serde_json::Value;
use session_search::{Result, Role};
use std::path::Path;

/// Whether `entry` is an OpenClaw entry: the header, or a message in a tree.
pub(super) fn recognises(entry: &Value) -> bool {
    match entry["type"].as_str() {
        Some("session") => entry["id"].is_string(),
        Some("message") => entry.get("parentId").is_some() && entry["message"].is_object(),
        _ => false,
    }
}

/// The session id in a file name or path: pi names files
/// `<timestamp>_<id>.jsonl`, OpenClaw `<id>.jsonl`.
fn session_id(reference: &str) -> String {
    let stem = if reference.ends_with(".jsonl") || reference.contains('/') {
        file_stem(Path::new(reference))
    } else {
        reference.to_owned()
    };
    match stem.rsplit_once('_') {
        Some((_, id)) if !id.is_empty() => id.to_owned(),
        _ => stem,
    }
}

pub(super) fn open(path: &Path) -> Opened {
    // OpenClaw keeps an agent's sessions in `agents/<agent>/sessions/`.
    let agent_id =
        match directory_name(path, 1) == "sessions" && directory_name(path, 3) == "agents" {
            true => directory_name(path, 2),
            false => "openclaw".to_owned(),
        };
    let id = session_id(&file_stem(path));
    Opened {
        session: SessionInfo {
            host_id: id.clone(),
            id,
            spawned_by: None,
            created_at: None,
        },
        agent_id,
        reader: Box::new(OpenClaw),
    }
}

struct OpenClaw;

impl Reader for OpenClaw {
    fn entry(&mut self, mut entry: Value, out: &mut Writer<'_>) -> Result<()> {
        let kind = entry["type"].as_str().unwrap_or("(no type)").to_owned();
        let id = entry["id"].as_str().map(str::to_owned);
        match kind.as_str() {
            "session" => match id {
                Some(id) => {
                    out.set_session(SessionInfo {
                        host_id: id.clone(),
                        id,
                        spawned_by: entry["parentSession"].as_str().map(session_id),
                        created_at: unix_ms(&entry["timestamp"]),
                    });
                    if let Some(cwd) = entry["cwd"].as_str() {
                        out.set_cwd(cwd);
                    }
                }
                None => out.issue(Issue::NotUnderstood {
                    reason: "a session header without an id".into(),
                }),
            },
            "message" | "custom_message" => {
                // Session format v1 (pi before its entry tree) has neither
                // `id` nor `parentId`: each entry follows the one before.
                let id = match (id, entry.get("parentId")) {
                    (Some(id), _) => id,
                    (None, None) => out.position_id(),
                    (None, Some(_)) => {
                        out.issue(Issue::NotUnderstood {
                            reason: format!("a {kind} entry without an id"),
                        });
                        return Ok(());
                    }
                };
                let parent = Parent::from_field(entry.get("parentId"));
                let created_at = unix_ms(&entry["timestamp"])
                    .or_else(|| unix_ms(&entry["message"]["timestamp"]));
                let message = match kind.as_str() {
                    "message" => entry["message"].take(),
                    _ => serde_json::json!({"role": "custom", "content": entry["content"].take()}),
                };
                match role_and_content(message) {
                    Ok((role, content)) => out.message(HostMessage {
                        id,
                        parent,
                        role,
                        content,
                        created_at,
                    })?,
                    Err(reason) => out.issue(Issue::NotUnderstood {
                        reason: format!("message {id:?}: {reason}"),
                    }),
                }
            }
            _ => {
                if let Some(leaf) = leaf_target(&entry, &kind) {
                    out.move_leaf(leaf.as_str());
                }
                out.skip_entry(
                    &kind,
                    id.as_deref(),
                    Parent::from_field(entry.get("parentId")),
                );
            }
        }
        Ok(())
    }
}

/// The entry a leaf move names: `leafId` (or `leaf_id`) of any entry, or
/// the `targetId` of a `leaf` entry; `null` empties the branch.
fn leaf_target<'a>(entry: &'a Value, kind: &str) -> Option<&'a Value> {
    entry
        .get("leafId")
        .or_else(|| entry.get("leaf_id"))
        .or_else(|| (kind == "leaf").then(|| entry.get("targetId")).flatten())
}

/// The role and content blocks of an agent message.
fn role_and_content(mut message: Value) -> Result<(Role, Vec<Value>), String> {
    let role = message["role"].as_str().unwrap_or_default().to_owned();
    let content = |message: &mut Value| {
        text_or_blocks(message["content"].take()).ok_or_else(|| {
            format!("the content of a {role:?} message is neither text nor an array of blocks")
        })
    };
    Ok(match role.as_str() {
        "user" => user_message(content(&mut message)?),
        "assistant" => (Role::Assistant, content(&mut message)?),
        "toolResult" => (Role::Tool, content(&mut message)?),
        // A shell command the user ran, with its output.
        "bashExecution" => {
            let command = message["command"].as_str().unwrap_or_default();
            let output = message["output"].as_str().unwrap_or_default();
            (
                Role::Tool,
                vec![text_block(&format!("$ {command}\n{output}"))],
            )
        }
        "branchSummary" | "compactionSummary" => (
            Role::System,
            vec![text_block(message["summary"].as_str().unwrap_or_default())],
        ),
        "" => return Err("no role".into()),
        _ => (Role::System, content(&mut message)?),
    })
}

/// Where OpenClaw and pi keep their sessions.
pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "OpenClaw",
        variable: Some("OPENCLAW_STATE_DIR"),
        home_folder: ".openclaw",
        folders: &["agents"],
    },
    Tool {
        name: "pi",
        variable: Some("PI_CODING_AGENT_DIR"),
        home_folder: ".pi/agent",
        folders: &["sessions"],
    },
];

/// The importer of OpenClaw and pi-agent session files.
pub(super) struct OpenClawImporter;

impl Importer for OpenClawImporter {
    /// `*.jsonl`; an archive of a session keeps its header (see
    /// [`super::is_transcript_name`]).
    fn reads_file_named(&self, name: &str) -> bool {
        name.ends_with(".jsonl")
            || [".jsonl.reset.", ".jsonl.deleted."]
                .iter()
                .any(|archive| name.contains(archive))
    }

    fn recognises(&self, entry: &Value) -> bool {
        recognises(entry)
    }

    fn open(&self, _format: Format, path: &Path) -> Open {
        Open::Lines(open(path))
    }
}
