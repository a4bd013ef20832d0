//! Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-*.json`,
//! and `session-*.jsonl` in newer versions).
//!
//! Two layouts of one record: a single JSON object (`sessionId`,
//! `projectHash`, `startTime`, `lastUpdated`, `messages`), or JSONL whose
//! first line is that object without `messages`, followed by message
//! records and `{"$set": {…}}` updates of the header. A message record
//! written again with the same `id` (an answer whose tool calls finished)
//! replaces the earlier one, in its place, so the file is read to its end
//! before its session is written. (A message imported before it was
//! written again, from a file still growing, keeps its first form: the
//! later one adds tool calls, which are not searchable.)
//!
//! A message has an `id`, a `timestamp` and a `type`: `user`, `gemini`
//! (the assistant), or the CLI's own `info`, `warning` and `error` notes
//! (stored as `system`). `content` is text or a list of parts (`text`,
//! `functionCall`, `functionResponse`, `inlineData`, …). When a user
//! message has a `displayContent`, that is what the user typed (a slash
//! command such as `/init`, whose expanded prompt is the `content`): it is
//! searchable and the content is kept as context; a message whose
//! displayed form holds no text was the CLI's, and is stored as `system`.
//! Gemini's `thoughts` are reasoning, its `toolCalls` (with their results)
//! tool calls: stored, not searchable. The sessions are linear.

use super::blocks::{text_block, unix_ms, user_message, CONTEXT_BLOCK};
use super::locations::Tool;
use super::records::{Opened, RecordReader, Sessions};
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo};
use super::Issue;
use super::{Format, Open};
use serde_json::{json, Value};
use session_search::{Result, Role};
use std::collections::HashMap;
use std::path::Path;

/// Whether `record` is a Gemini CLI session, or the header of one.
pub(super) fn recognises(record: &Value) -> bool {
    record["sessionId"].is_string() && record["projectHash"].is_string()
}

pub(super) fn open() -> Opened {
    Opened {
        reader: Box::new(GeminiCli::default()),
        agent_id: "gemini-cli".to_owned(),
    }
}

#[derive(Default)]
struct GeminiCli {
    /// The session's id and start, from its header.
    session: Option<(String, Option<i64>)>,
    /// The message records, the latest of each id, with their record
    /// numbers, in the order the ids first appeared.
    messages: Vec<(usize, Value)>,
    /// Message id → its place in `messages`.
    places: HashMap<String, usize>,
}

impl GeminiCli {
    fn header(&mut self, record: &Value, out: &mut Sessions<'_>) {
        if self.session.is_some() {
            return;
        }
        match record["sessionId"].as_str() {
            Some(id) => self.session = Some((id.to_owned(), unix_ms(&record["startTime"]))),
            None => out.issue(Issue::NotUnderstood {
                reason: "a session without a sessionId".into(),
            }),
        }
    }

    fn message(&mut self, number: usize, message: Value, out: &mut Sessions<'_>) {
        let Some(id) = message["id"].as_str().map(str::to_owned) else {
            out.issue(Issue::NotUnderstood {
                reason: "a message without an id".into(),
            });
            return;
        };
        match self.places.get(&id) {
            Some(&at) => self.messages[at] = (number, message),
            None => {
                self.places.insert(id, self.messages.len());
                self.messages.push((number, message));
            }
        }
    }
}

impl RecordReader for GeminiCli {
    fn record(&mut self, mut record: Value, out: &mut Sessions<'_>) -> Result<()> {
        let number = out.record();
        if let Value::Array(messages) = record["messages"].take() {
            self.header(&record, out);
            for message in messages {
                self.message(number, message, out);
            }
        } else if record.get("$set").is_some() {
            out.skip("$set");
        } else if record["sessionId"].is_string() && record.get("type").is_none() {
            self.header(&record, out);
        } else if record["type"].is_string() {
            self.message(number, record, out);
        } else {
            out.issue(Issue::NotUnderstood {
                reason: "neither a session header nor a message".into(),
            });
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Sessions<'_>) -> Result<()> {
        let Some((id, created_at)) = self.session.take() else {
            if !self.messages.is_empty() {
                out.issue(Issue::NotUnderstood {
                    reason: "messages without a session header".into(),
                });
            }
            return Ok(());
        };
        let info = SessionInfo {
            host_id: id.clone(),
            id,
            spawned_by: None,
            created_at,
        };
        let messages = std::mem::take(&mut self.messages);
        out.session(info, |out| {
            for (number, message) in messages {
                out.set_line(number);
                let id = message["id"].as_str().unwrap_or_default().to_owned();
                let created_at = unix_ms(&message["timestamp"]);
                let (role, content) = role_and_content(message);
                out.message(HostMessage {
                    id,
                    parent: Parent::Previous,
                    role,
                    content,
                    created_at,
                })?;
            }
            Ok(())
        })
    }
}

/// The role and content blocks of a message record.
fn role_and_content(mut message: Value) -> (Role, Vec<Value>) {
    let kind = message["type"].as_str().unwrap_or_default().to_owned();
    let content = parts(message["content"].take());
    match kind.as_str() {
        "user" => match message["displayContent"].take() {
            Value::Null => user_message(content),
            shown => {
                let mut blocks = parts(shown);
                let typed = blocks.iter().any(|block| block["type"] == "text");
                let sent: Vec<&str> = content
                    .iter()
                    .filter_map(|block| block["text"].as_str())
                    .collect();
                if !sent.is_empty() {
                    blocks.push(json!({"type": CONTEXT_BLOCK, "text": sent.join("\n")}));
                }
                match typed {
                    true => user_message(blocks),
                    false => (Role::System, blocks),
                }
            }
        },
        "gemini" => {
            let mut blocks: Vec<Value> = message["thoughts"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|thought| {
                    let subject = thought["subject"].as_str().unwrap_or_default();
                    let description = thought["description"].as_str().unwrap_or_default();
                    json!({"type": "thinking", "thinking": format!("{subject}\n{description}")})
                })
                .collect();
            blocks.extend(content);
            for call in message["toolCalls"].as_array_mut().into_iter().flatten() {
                blocks.push(json!({
                    "type": "tool_use",
                    "id": call["id"],
                    "name": call["name"],
                    "input": call["args"].take(),
                }));
                blocks.push(json!({
                    "type": "tool_result",
                    "tool_use_id": call["id"],
                    "status": call["status"],
                    "content": call["result"].take(),
                }));
            }
            (Role::Assistant, blocks)
        }
        _ => (Role::System, content),
    }
}

/// Content as blocks: text as a text block; parts as text blocks, function
/// calls and responses as tool blocks, anything else under its own kind.
fn parts(content: Value) -> Vec<Value> {
    let parts = match content {
        Value::String(text) if text.is_empty() => return Vec::new(),
        Value::String(text) => return vec![text_block(&text)],
        Value::Array(parts) => parts,
        Value::Null => return Vec::new(),
        part => vec![part],
    };
    parts
        .into_iter()
        .filter_map(|mut part| {
            if let Some(text) = part.as_str().or_else(|| part["text"].as_str()) {
                return (!text.is_empty()).then(|| text_block(text));
            }
            let Value::Object(fields) = &mut part else {
                return None;
            };
            let (kind, value) = fields.iter_mut().next()?;
            let kind = match kind.as_str() {
                "functionCall" => "tool_use",
                "functionResponse" => "tool_result",
                "inlineData" => "image",
                "fileData" => "file",
                other => other,
            }
            .to_owned();
            Some(json!({"type": kind, "part": value.take()}))
        })
        .collect()
}

/// Where Gemini CLI keeps its sessions: the variable stands for the home
/// directory itself.
pub(super) const TOOLS: &[Tool] = &[Tool {
    name: "Gemini CLI",
    variable: Some("GEMINI_CLI_HOME"),
    home_folder: "",
    folders: &[".gemini/tmp"],
}];

/// The importer of Gemini CLI sessions.
pub(super) struct GeminiCliImporter;

impl Importer for GeminiCliImporter {
    /// `chats/session-<time>-<id>.json`, or `.jsonl` in newer versions.
    fn reads_file_named(&self, name: &str) -> bool {
        name.ends_with(".jsonl") || (name.starts_with("session-") && name.ends_with(".json"))
    }

    fn recognises(&self, record: &Value) -> bool {
        recognises(record)
    }

    fn open(&self, _format: Format, _path: &Path) -> Open {
        Open::Records(open())
    }
}
