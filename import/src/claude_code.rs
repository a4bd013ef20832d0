//! Claude Code session files (`~/.claude/projects/<project>/<session>.jsonl`).
//!
//! Entries of type `user` and `assistant` carry a `message` whose `content`
//! is a string or an array of blocks; `uuid` and `parentUuid` make a tree.
//! Every other entry (`summary`, `progress`, hook and `system` entries,
//! `file-history-snapshot`, `queue-operation`, …) is not conversation: it is
//! counted by type and, having a `uuid`, lets the next message hang from its
//! parent. `isMeta` and `isCompactSummary` user entries are the host's, so
//! they are stored with role `system`. A subagent's own transcript,
//! `<session>/subagents/agent-<id>.jsonl` (or `agent-<id>.jsonl` beside the
//! session in older versions), is a session of its own, spawned by the
//! session whose `sessionId` it carries, and resumed with it. Entries carry
//! the working directory, `cwd`.

use super::blocks::{text_or_blocks, unix_ms, user_message};
use super::locations::Tool;
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo, Writer};
use super::{directory_name, file_stem, Issue, Opened, Reader};
use super::{Format, Open};
use serde_json::Value;
use session_search::{Result, Role};
use std::path::Path;

/// Entry types only Claude Code writes.
const OWN_TYPES: [&str; 3] = ["summary", "file-history-snapshot", "queue-operation"];

/// Whether `entry` is a Claude Code entry.
pub(super) fn recognises(entry: &Value) -> bool {
    ["sessionId", "parentUuid", "leafUuid"]
        .iter()
        .any(|key| entry.get(key).is_some())
        || entry["type"]
            .as_str()
            .is_some_and(|kind| OWN_TYPES.contains(&kind))
}

pub(super) fn open(path: &Path) -> Opened {
    let stem = file_stem(path);
    let in_subagents = directory_name(path, 1) == "subagents";
    let subagent = stem.starts_with("agent-").then(|| stem.clone());
    // A subagent's session is the directory above `subagents/`, or, in the
    // older layout, only known from its entries.
    let parent_session = match (&subagent, in_subagents) {
        (Some(_), true) => Some(directory_name(path, 2)),
        _ => None,
    };
    let project_levels = if in_subagents { 3 } else { 1 };
    Opened {
        session: SessionInfo {
            id: match &parent_session {
                Some(parent) => format!("{parent}:{stem}"),
                None => stem.clone(),
            },
            host_id: parent_session.clone().unwrap_or(stem),
            spawned_by: parent_session,
            created_at: None,
        },
        agent_id: directory_name(path, project_levels),
        reader: Box::new(ClaudeCode {
            summariser: subagent
                .as_deref()
                .is_some_and(|agent| agent.starts_with(COMPACTION_AGENT)),
            subagent,
            named: false,
            queued: Vec::new(),
        }),
    }
}

/// How the subagent that writes a compaction's summary is named.
const COMPACTION_AGENT: &str = "agent-acompact";

struct ClaudeCode {
    /// `agent-<id>` when the file is a subagent's.
    subagent: Option<String>,
    /// The file is a compaction summariser's: its prompt and summary repeat
    /// the session they summarise.
    summariser: bool,
    /// The session was named from an entry's `sessionId`.
    named: bool,
    /// The text of messages typed while the agent was busy (`enqueue`
    /// entries), not yet met as messages.
    queued: Vec<String>,
}

impl Reader for ClaudeCode {
    fn entry(&mut self, mut entry: Value, out: &mut Writer<'_>) -> Result<()> {
        if !self.named {
            if let Some(session_id) = entry["sessionId"].as_str() {
                self.named = true;
                out.set_session(SessionInfo {
                    id: match &self.subagent {
                        Some(agent) => format!("{session_id}:{agent}"),
                        None => session_id.to_owned(),
                    },
                    host_id: session_id.to_owned(),
                    spawned_by: self.subagent.as_ref().map(|_| session_id.to_owned()),
                    created_at: unix_ms(&entry["timestamp"]),
                });
            }
        }
        if let Some(cwd) = entry["cwd"].as_str() {
            out.set_cwd(cwd);
        }
        let kind = entry["type"].as_str().unwrap_or("(no type)").to_owned();
        let uuid = entry["uuid"].as_str().map(str::to_owned);
        let is_message =
            matches!(kind.as_str(), "user" | "assistant") && entry["message"].is_object();
        if !is_message {
            if kind == "queue-operation" && entry["operation"] == "enqueue" {
                self.queued.push(typed_text(&entry["content"]));
            }
            // A compaction boundary starts a new root but continues its
            // logical parent, or the previous message when that parent is
            // not in this file.
            let parent = match entry.get("parentUuid") {
                Some(Value::Null) => match entry["logicalParentUuid"].as_str() {
                    Some(logical) if out.knows(logical) => Parent::Id(logical.to_owned()),
                    Some(_) => Parent::Previous,
                    None => Parent::Root,
                },
                other => Parent::from_field(other),
            };
            out.skip_entry(&kind, uuid.as_deref(), parent);
            return Ok(());
        }
        let Some(id) = uuid else {
            out.issue(Issue::NotUnderstood {
                reason: format!("a {kind} entry without a uuid"),
            });
            return Ok(());
        };
        let Some(content) = text_or_blocks(entry["message"]["content"].take()) else {
            out.issue(Issue::NotUnderstood {
                reason: format!(
                    "message.content of {kind} entry {id:?} is neither text nor an array of blocks"
                ),
            });
            return Ok(());
        };
        let by_host = [&entry["isMeta"], &entry["isCompactSummary"]]
            .iter()
            .any(|flag| flag.as_bool() == Some(true));
        // A message typed while the agent was busy is written with the
        // parent it had when typed; it was sent after the previous message.
        let mut parent = Parent::from_field(entry.get("parentUuid"));
        if kind == "user" && !self.queued.is_empty() {
            let typed = typed_text(&Value::Array(content.clone()));
            if let Some(at) = self.queued.iter().position(|queued| *queued == typed) {
                self.queued.remove(at);
                parent = Parent::Previous;
            }
        }
        let (role, content) = match kind.as_str() {
            _ if self.summariser => (Role::System, content),
            "assistant" => (Role::Assistant, content),
            _ if by_host => (Role::System, content),
            _ => user_message(content),
        };
        out.message(HostMessage {
            id,
            parent,
            role,
            content,
            created_at: unix_ms(&entry["timestamp"]),
        })
    }
}

/// The text of message content (a string, or the text of its blocks), as a
/// queued message and the message it became are compared.
fn typed_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.trim().to_owned(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                Value::String(text) => Some(text.as_str()),
                _ => block["text"].as_str(),
            })
            .collect::<Vec<_>>()
            .join("\n")
            .trim()
            .to_owned(),
        _ => String::new(),
    }
}

/// Where Claude Code keeps its sessions.
pub(super) const TOOLS: &[Tool] = &[Tool {
    name: "Claude Code",
    variable: Some("CLAUDE_CONFIG_DIR"),
    home_folder: ".claude",
    folders: &["projects"],
}];

/// The importer of Claude Code session files.
pub(super) struct ClaudeCodeImporter;

impl Importer for ClaudeCodeImporter {
    fn reads_file_named(&self, name: &str) -> bool {
        name.ends_with(".jsonl")
    }

    fn recognises(&self, entry: &Value) -> bool {
        recognises(entry)
    }

    fn open(&self, _format: Format, path: &Path) -> Open {
        Open::Lines(open(path))
    }

    fn resume_command(&self, _format: Format, host_id: &str) -> Option<String> {
        Some(format!("claude --resume {host_id}"))
    }
}
