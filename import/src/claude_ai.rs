//! Claude.ai data exports: `conversations.json`, a JSON array of
//! conversations (`uuid`, `name`, `created_at`, `chat_messages`).
//!
//! Each chat message has a `uuid`, a `sender` (`human` or `assistant`), a
//! `created_at`, its `text` and, in newer exports, `content` blocks (`text`,
//! `thinking`, `tool_use`, `tool_result`), which are stored instead of
//! `text` when present. Files the user attached are stored as `attachment`
//! blocks (with the text Claude.ai extracted from them) and `file` blocks
//! (names only): kept, not searchable. Newer exports link messages with
//! `parent_message_uuid` (the all-zero uuid is the root), so edits and
//! retries are branches, and the active leaf is
//! `current_leaf_message_uuid` when the conversation names it, else the
//! latest message; older exports have no links and are one line of
//! messages in time order.

use super::blocks::{text_block, unix_ms, user_message};
use super::records::{tree_order, Opened, RecordReader, Sessions};
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo};
use super::Issue;
use super::{Format, Open};
use serde_json::{json, Value};
use session_search::{Result, Role};
use std::path::Path;

/// The parent Claude.ai gives a conversation's first message.
const ROOT: &str = "00000000-0000-4000-8000-000000000000";

/// Whether `record` is a conversation of a Claude.ai export.
pub(super) fn recognises(record: &Value) -> bool {
    record["uuid"].is_string() && record["chat_messages"].is_array()
}

pub(super) fn open() -> Opened {
    Opened {
        reader: Box::new(ClaudeAi),
        agent_id: "claude-ai".to_owned(),
    }
}

struct ClaudeAi;

impl RecordReader for ClaudeAi {
    fn record(&mut self, mut record: Value, out: &mut Sessions<'_>) -> Result<()> {
        let (Some(id), Value::Array(mut messages)) = (
            record["uuid"].as_str().map(str::to_owned),
            record["chat_messages"].take(),
        ) else {
            out.issue(Issue::NotUnderstood {
                reason: "not a Claude.ai conversation (no uuid or no chat_messages)".into(),
            });
            return Ok(());
        };
        // Time order (the export's order among equal times); a tree is
        // written parents first.
        messages.sort_by_key(|message| unix_ms(&message["created_at"]));
        let linked = messages
            .iter()
            .any(|message| message["parent_message_uuid"].is_string());
        let parents: Vec<Option<&str>> = messages
            .iter()
            .map(|message| {
                message["parent_message_uuid"]
                    .as_str()
                    .filter(|p| *p != ROOT)
            })
            .collect();
        let order = match linked {
            true => {
                let links: Vec<(&str, Option<&str>)> = messages
                    .iter()
                    .zip(&parents)
                    .map(|(message, parent)| {
                        (message["uuid"].as_str().unwrap_or_default(), *parent)
                    })
                    .collect();
                tree_order(&links)
            }
            false => (0..messages.len()).collect(),
        };
        let parents: Vec<Parent> = parents
            .into_iter()
            .map(|parent| match (linked, parent) {
                (false, _) => Parent::Previous,
                (true, Some(parent)) => Parent::Id(parent.to_owned()),
                (true, None) => Parent::Root,
            })
            .collect();
        let leaf = record["current_leaf_message_uuid"]
            .as_str()
            .or_else(|| messages.last().and_then(|last| last["uuid"].as_str()))
            .map(str::to_owned);
        let info = SessionInfo {
            host_id: id.clone(),
            id,
            spawned_by: None,
            created_at: unix_ms(&record["created_at"]),
        };
        let mut parents: Vec<Option<Parent>> = parents.into_iter().map(Some).collect();
        out.session(info, |out| {
            for at in order {
                let message = messages[at].take();
                let Some(id) = message["uuid"].as_str().map(str::to_owned) else {
                    out.issue(Issue::NotUnderstood {
                        reason: "a chat message without a uuid".into(),
                    });
                    continue;
                };
                let created_at = unix_ms(&message["created_at"]);
                let (role, content) = role_and_content(message);
                out.message(HostMessage {
                    id,
                    parent: parents[at].take().unwrap_or(Parent::Previous),
                    role,
                    content,
                    created_at,
                })?;
            }
            if let (true, Some(leaf)) = (linked, leaf) {
                out.name_leaf(&leaf);
            }
            Ok(())
        })
    }
}

/// The role and content blocks of a chat message.
fn role_and_content(mut message: Value) -> (Role, Vec<Value>) {
    let mut blocks: Vec<Value> = match message["content"].take() {
        Value::Array(blocks) if !blocks.is_empty() => blocks,
        _ => match message["text"].as_str() {
            Some("") | None => Vec::new(),
            Some(text) => vec![text_block(text)],
        },
    };
    for attachment in message["attachments"].as_array().into_iter().flatten() {
        blocks.push(json!({
            "type": "attachment",
            "file_name": attachment["file_name"],
            "file_type": attachment["file_type"],
            "text": attachment["extracted_content"],
        }));
    }
    // Newer exports list the files twice, `files_v2` with more detail.
    let files = match message["files_v2"].as_array() {
        Some(files) if !files.is_empty() => files,
        _ => message["files"].as_array().map_or(&[][..], Vec::as_slice),
    };
    for file in files {
        blocks.push(json!({"type": "file", "file_name": file["file_name"]}));
    }
    match message["sender"].as_str() {
        Some("human") => user_message(blocks),
        Some("assistant") => (Role::Assistant, blocks),
        _ => (Role::System, blocks),
    }
}

/// The importer of Claude.ai data exports.
pub(super) struct ClaudeAiImporter;

impl Importer for ClaudeAiImporter {
    /// Both exports name their conversations so.
    fn reads_file_named(&self, name: &str) -> bool {
        name == "conversations.json"
    }

    fn recognises(&self, record: &Value) -> bool {
        recognises(record)
    }

    fn open(&self, _format: Format, _path: &Path) -> Open {
        Open::Records(open())
    }
}
