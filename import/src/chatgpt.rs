//! ChatGPT data exports: `conversations.json`, a JSON array of
//! conversations (`id`, `title`, `create_time` in seconds, `mapping`,
//! `current_node`).
//!
//! `mapping` is the conversation's tree: node id → `{id, message, parent,
//! children}`. Every node is written under its parent, parents first, so
//! regenerated answers and edited prompts are branches; `current_node`, the
//! node ChatGPT shows the conversation up to, is the active leaf. A message
//! has an `author.role` (`user`, `assistant`, `system`, `tool`), a
//! `recipient` (`all`, or the tool an assistant message calls) and
//! `content` by `content_type`:
//!
//! - `text` and `multimodal_text`: `parts`, text (searchable for the user
//!   and the assistant) or attachments such as images (stored, not
//!   searchable);
//! - an assistant message to a tool (`recipient` not `all`: `code` for the
//!   browser or Python, plugin calls) is a `tool_use` block; `tool` messages
//!   (`execution_output`, `tether_browsing_display`, `tether_quote`,
//!   `system_error`, plugin answers) are tool results; `thoughts` and
//!   `reasoning_recap` are reasoning;
//! - `user_editable_context` (custom instructions) and messages marked
//!   `is_visually_hidden_from_conversation` are stored as `system`.
//!
//! Nodes without a message (the tree's root) and system messages with no
//! text are counted, not stored; messages hang from their parents through
//! them.

use super::blocks::{text_block, user_message};
use super::records::{tree_order, Opened, RecordReader, Sessions};
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo};
use super::Issue;
use super::{Format, Open};
use serde_json::{json, Value};
use session_search::{Result, Role};
use std::path::Path;

/// Whether `record` is a conversation of a ChatGPT export.
pub(super) fn recognises(record: &Value) -> bool {
    record["mapping"].is_object() && record.get("current_node").is_some()
}

pub(super) fn open() -> Opened {
    Opened {
        reader: Box::new(ChatGpt),
        agent_id: "chatgpt".to_owned(),
    }
}

struct ChatGpt;

impl RecordReader for ChatGpt {
    fn record(&mut self, mut record: Value, out: &mut Sessions<'_>) -> Result<()> {
        let id = record["id"]
            .as_str()
            .or_else(|| record["conversation_id"].as_str())
            .map(str::to_owned);
        let (Some(id), Value::Object(mapping)) = (id, record["mapping"].take()) else {
            out.issue(Issue::NotUnderstood {
                reason: "not a ChatGPT conversation (no id or no mapping)".into(),
            });
            return Ok(());
        };
        let mut nodes: Vec<(String, Value)> = mapping.into_iter().collect();
        // Siblings in time order; parents first.
        nodes.sort_by(|(_, a), (_, b)| {
            seconds(&a["message"]["create_time"]).cmp(&seconds(&b["message"]["create_time"]))
        });
        let links: Vec<(&str, Option<&str>)> = nodes
            .iter()
            .map(|(id, node)| (id.as_str(), node["parent"].as_str()))
            .collect();
        let order = tree_order(&links);
        let info = SessionInfo {
            host_id: id.clone(),
            id,
            spawned_by: None,
            created_at: seconds(&record["create_time"]),
        };
        let current = record["current_node"].as_str();
        out.session(info, |out| {
            for at in order {
                let (id, node) = &mut nodes[at];
                let parent = match node["parent"].as_str() {
                    Some(parent) => Parent::Id(parent.to_owned()),
                    None => Parent::Root,
                };
                let message = node["message"].take();
                let created_at = seconds(&message["create_time"]);
                match role_and_content(message) {
                    Ok((role, content)) => out.message(HostMessage {
                        id: id.clone(),
                        parent,
                        role,
                        content,
                        created_at,
                    })?,
                    Err(kind) => out.skip_entry(kind, Some(id), parent),
                }
            }
            if let Some(current) = current {
                out.name_leaf(current);
            }
            Ok(())
        })
    }
}

/// Seconds since the epoch, as the export writes times, in milliseconds.
fn seconds(value: &Value) -> Option<i64> {
    value.as_f64().map(|s| (s * 1000.0).round() as i64)
}

/// The role and content blocks of a node's message, or the kind of node
/// it is when it is not stored.
fn role_and_content(mut message: Value) -> Result<(Role, Vec<Value>), &'static str> {
    if message.is_null() {
        return Err("node without a message");
    }
    let role = message["author"]["role"].as_str().unwrap_or_default();
    let kind = message["content"]["content_type"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let recipient = message["recipient"].as_str().unwrap_or("all");
    let hidden = message["metadata"]["is_visually_hidden_from_conversation"] == true;
    let author = message["author"]["name"].clone();
    let calls_a_tool = role == "assistant" && recipient != "all";
    let recipient = recipient.to_owned();
    let role = role.to_owned();
    let mut content = message["content"].take();
    let text = parts_text(&content);
    Ok(match role.as_str() {
        _ if calls_a_tool => (
            Role::Assistant,
            vec![json!({
                "type": "tool_use",
                "name": recipient,
                "input": content["text"].as_str().map_or(text, str::to_owned),
            })],
        ),
        "tool" => (
            Role::Tool,
            vec![json!({"type": "tool_result", "name": author, "content": content})],
        ),
        "user" | "assistant" if kind == "user_editable_context" || hidden => (
            Role::System,
            vec![json!({"type": kind, "content": content})],
        ),
        "user" | "assistant" => {
            let blocks = match kind.as_str() {
                "text" | "multimodal_text" => parts(content["parts"].take()),
                "thoughts" => content["thoughts"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|thought| json!({"type": "thinking", "thinking": thought["content"]}))
                    .collect(),
                "reasoning_recap" => {
                    vec![json!({"type": "reasoning", "text": content["content"]})]
                }
                _ => vec![json!({"type": kind, "content": content})],
            };
            match role.as_str() {
                "user" => user_message(blocks),
                _ => (Role::Assistant, blocks),
            }
        }
        _ if text.trim().is_empty() => return Err("system message without text"),
        _ => (Role::System, vec![text_block(&text)]),
    })
}

/// The blocks of a message's `parts`: text, and attachments (images,
/// audio, …) by their content type.
fn parts(parts: Value) -> Vec<Value> {
    let Value::Array(parts) = parts else {
        return Vec::new();
    };
    parts
        .into_iter()
        .filter_map(|part| match part {
            Value::String(text) if text.is_empty() => None,
            Value::String(text) => Some(text_block(&text)),
            part => {
                let kind = match part["content_type"].as_str().unwrap_or_default() {
                    "image_asset_pointer" => "image".to_owned(),
                    "" => "attachment".to_owned(),
                    other => other.to_owned(),
                };
                Some(json!({"type": kind, "part": part}))
            }
        })
        .collect()
}

/// The text parts of a message's content, joined.
fn parts_text(content: &Value) -> String {
    content["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The importer of ChatGPT data exports.
pub(super) struct ChatGptImporter;

impl Importer for ChatGptImporter {
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
