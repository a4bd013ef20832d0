//! Codex CLI rollouts (`~/.codex/sessions/…/rollout-<time>-<id>.jsonl`).
//!
//! Each line is `{"timestamp", "type", "payload"}`: `session_meta` names the
//! session and its working directory (`cwd`); `response_item` payloads are
//! the conversation (`message` with role `user`, `assistant` or
//! `developer`, `reasoning`, `function_call`, `function_call_output` and
//! their custom and built-in tool kin);
//! `event_msg` entries repeat messages for the UI and `turn_context` entries
//! hold settings, so both are counted, not imported. Rollouts are linear and
//! their items have no ids: the line number (`L<n>`) stands in, stable as
//! the file only grows. Older rollouts without the wrapper (a first line
//! with `id` and `timestamp`, then bare items) are read too.

use super::blocks::{text_block, unix_ms, user_message};
use super::writer::{HostMessage, Parent, SessionInfo, Writer};
use super::{file_stem, Issue, Opened, Reader};
use crate::{Result, Role};
use serde_json::{json, Value};
use std::path::Path;

/// Entry types of the wrapped format.
const WRAPPED_TYPES: [&str; 5] = [
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "compacted",
];

/// Whether `entry` is a line of a Codex rollout.
pub(super) fn recognises(entry: &Value) -> bool {
    entry["type"]
        .as_str()
        .is_some_and(|kind| WRAPPED_TYPES.contains(&kind))
        && entry.get("payload").is_some()
}

/// Whether the file is named like a rollout (for rollouts in the old format,
/// whose lines alone do not say so).
pub(super) fn named_like_a_rollout(path: &Path) -> bool {
    file_stem(path).starts_with("rollout-")
}

pub(super) fn open(path: &Path) -> Opened {
    // `rollout-2025-06-01T10-00-00-<uuid>`: the id is the trailing UUID.
    let stem = file_stem(path);
    let id = match stem
        .len()
        .checked_sub(36)
        .and_then(|start| stem.get(start..))
    {
        Some(uuid) if uuid.bytes().filter(|&b| b == b'-').count() == 4 => uuid.to_owned(),
        _ => stem,
    };
    Opened {
        session: SessionInfo {
            host_id: id.clone(),
            id,
            spawned_by: None,
            created_at: None,
        },
        agent_id: "codex".to_owned(),
        reader: Box::new(Codex),
    }
}

struct Codex;

impl Reader for Codex {
    fn entry(&mut self, mut entry: Value, out: &mut Writer<'_>) -> Result<()> {
        let time = unix_ms(&entry["timestamp"]);
        let kind = entry["type"].as_str().unwrap_or("(no type)").to_owned();
        let (kind, payload) = if let Some(payload) = entry.get_mut("payload") {
            (kind, payload.take())
        } else if entry.get("record_type").is_some() {
            // The old format: a bare header, state records, bare items.
            ("state".to_owned(), Value::Null)
        } else if entry.get("type").is_none() && entry["id"].is_string() {
            ("session_meta".to_owned(), entry)
        } else {
            ("response_item".to_owned(), entry)
        };
        match kind.as_str() {
            "session_meta" => match payload["id"].as_str() {
                Some(id) => {
                    out.set_session(SessionInfo {
                        id: id.to_owned(),
                        host_id: id.to_owned(),
                        spawned_by: None,
                        created_at: unix_ms(&payload["timestamp"]).or(time),
                    });
                    if let Some(cwd) = payload["cwd"].as_str() {
                        out.set_cwd(cwd);
                    }
                }
                None => out.issue(Issue::NotUnderstood {
                    reason: "session_meta without an id".into(),
                }),
            },
            "response_item" => item(payload, time, out)?,
            _ => out.skip_entry(&kind, None, Parent::Previous),
        }
        Ok(())
    }
}

/// Writes one response item.
fn item(mut payload: Value, time: Option<i64>, out: &mut Writer<'_>) -> Result<()> {
    let kind = payload["type"].as_str().unwrap_or_default().to_owned();
    let string = |value: &Value| value.as_str().unwrap_or_default().to_owned();
    let (role, content) = match kind.as_str() {
        "message" => {
            let Some(blocks) = payload["content"].as_array_mut().map(std::mem::take) else {
                out.issue(Issue::NotUnderstood {
                    reason: "a message without a content array".into(),
                });
                return Ok(());
            };
            let blocks: Vec<Value> = blocks.into_iter().map(text_as_text_block).collect();
            match payload["role"].as_str() {
                Some("user") => user_message(blocks),
                Some("assistant") => (Role::Assistant, blocks),
                Some(_) => (Role::System, blocks),
                None => {
                    out.issue(Issue::NotUnderstood {
                        reason: "a message without a role".into(),
                    });
                    return Ok(());
                }
            }
        }
        "reasoning" => {
            let summary: Vec<String> = payload["summary"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|part| part["text"].as_str().map(str::to_owned))
                .collect();
            (
                Role::Assistant,
                vec![json!({"type": "reasoning", "text": summary.join("\n")})],
            )
        }
        "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
            let name = match payload["name"].as_str() {
                Some(name) => name.to_owned(),
                None => kind.trim_end_matches("_call").to_owned(),
            };
            let arguments = [&payload["arguments"], &payload["input"], &payload["action"]]
                .into_iter()
                .find(|v| !v.is_null())
                .cloned()
                .unwrap_or(Value::Null);
            (
                Role::Assistant,
                vec![json!({
                    "type": "function_call",
                    "name": name,
                    "call_id": string(&payload["call_id"]),
                    "arguments": arguments,
                })],
            )
        }
        "function_call_output" | "custom_tool_call_output" => (
            Role::Tool,
            vec![json!({
                "type": "function_call_output",
                "call_id": string(&payload["call_id"]),
                "output": payload["output"].take(),
            })],
        ),
        _ => {
            let kind = if kind.is_empty() { "(no type)" } else { &kind };
            out.skip_entry(&format!("response_item/{kind}"), None, Parent::Previous);
            return Ok(());
        }
    };
    out.message(HostMessage {
        id: out.position_id(),
        parent: Parent::Previous,
        role,
        content,
        created_at: time,
    })
}

/// `input_text` and `output_text` blocks as `text` blocks.
fn text_as_text_block(block: Value) -> Value {
    match block["type"].as_str() {
        Some("input_text" | "output_text") => {
            text_block(block["text"].as_str().unwrap_or_default())
        }
        _ => block,
    }
}
