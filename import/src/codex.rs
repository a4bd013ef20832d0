//! Codex CLI rollouts (`~/.codex/sessions/…/rollout-<time>-<id>.jsonl`).
//!
//! Each line is `{"timestamp", "type", "payload"}`: `session_meta` names the
//! session and its working directory (`cwd`); `response_item` payloads are
//! the conversation (`message` with role `user`, `assistant` or
//! `developer`, `reasoning`, `function_call`, `function_call_output` and
//! their custom and built-in tool kin);
//! `event_msg` entries repeat messages for the UI and `turn_context` entries
//! hold settings, so both are counted, not imported; but an `agent_message`
//! (or `user_message`) event whose text no `response_item` message repeats
//! (an answer cut off by an interrupted turn, inter-agent messages) is the
//! assistant's (the user's) message, imported at its line. Its twin may come
//! before the event (the user's prompt) or after it (the answer, up to a
//! minute later when tool calls run in between), so an event is held, with
//! what follows it, until its twin comes or the turn ends: a later turn
//! starts or this one ends (`turn_context`, `turn_aborted`,
//! `task_started`, `task_complete`, another `session_meta`), or the file
//! ends and has gone unwritten for [`super::QUIET_TIME`]. An event the
//! file ends with while it is still being written waits for a later import.
//! A twin that comes after an earlier import stored its event (the file
//! had been quiet, then grew) is that message, not a second one. Rollouts are linear and
//! their items have no ids: the line number (`L<n>`) stands in, stable as
//! the file only grows. Older rollouts without the wrapper (a first line
//! with `id` and `timestamp`, then bare items) are read too.

use super::blocks::{text_block, unix_ms, user_message};
use super::locations::Tool;
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo, Writer};
use super::{file_stem, quiet, Issue, Opened, Reader};
use super::{Format, Open};
use serde_json::{json, Value};
use session_search::{Result, Role};
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
    let named = stem
        .len()
        .checked_sub(36)
        .and_then(|start| stem.get(start..))
        .filter(|uuid| uuid.bytes().filter(|&b| b == b'-').count() == 4)
        .map(str::to_owned);
    let id = named.clone().unwrap_or(stem);
    Opened {
        session: SessionInfo {
            host_id: id.clone(),
            id: id.clone(),
            spawned_by: None,
            created_at: None,
        },
        agent_id: "codex".to_owned(),
        reader: Box::new(Codex {
            quiet: quiet(path),
            named,
            ..Codex::default()
        }),
    }
}

/// Event types that end a turn, or start one: an event waiting for its
/// twin has none.
const TURN_EVENTS: [&str; 3] = ["turn_aborted", "task_started", "task_complete"];

/// Messages read while an event waits for its twin, in file order.
#[derive(Default)]
struct Codex {
    held: Vec<Held>,
    /// The text of each `response_item` message of this turn that no event
    /// has matched yet, by role: the twin of an event still to come.
    unmatched: Vec<(Role, String)>,
    /// The file has gone unwritten long enough for its last turn to be over.
    quiet: bool,
    /// The id the file's name gives the session, when it has one.
    named: Option<String>,
}

/// A message kept back, with where it was read.
struct Held {
    at: (usize, usize),
    message: HostMessage,
    /// For an event: its role and text, the twin it waits for.
    waits_for: Option<(Role, String)>,
}

impl Codex {
    /// Writes `message`, or keeps it back behind an event that waits.
    fn write(
        &mut self,
        message: HostMessage,
        waits_for: Option<(Role, String)>,
        out: &mut Writer<'_>,
    ) -> Result<()> {
        if self.held.is_empty() && waits_for.is_none() {
            return out.message(message);
        }
        self.held.push(Held {
            at: out.position(),
            message,
            waits_for,
        });
        Ok(())
    }

    /// A `response_item` message of `role` with `text`; whether it is
    /// written. An event waiting for it is its twin and dropped (with the
    /// events before it of the same role: twins come in order, so theirs
    /// never will), unless an earlier import stored the event: then the
    /// event is the message and the item is not. Otherwise an event may
    /// still come for it.
    fn item_text(&mut self, role: Role, text: String, out: &mut Writer<'_>) -> Result<bool> {
        let twin = self.held.iter().position(|held| {
            held.waits_for
                .as_ref()
                .is_some_and(|(r, t)| *r == role && *t == text)
        });
        let Some(twin) = twin else {
            self.unmatched.push((role, text));
            return Ok(true);
        };
        let stored = out.stored(&self.held[twin].message)?;
        match stored {
            true => {
                self.held[twin].waits_for = None;
                out.skip_entry("response_item/message", None, Parent::Previous);
            }
            false => {
                self.held.remove(twin);
                out.skip_entry("event_msg", None, Parent::Previous);
            }
        }
        let earlier: Vec<usize> = (0..twin)
            .filter(|&at| {
                self.held[at]
                    .waits_for
                    .as_ref()
                    .is_some_and(|(r, _)| *r == role)
            })
            .collect();
        for at in earlier {
            self.held[at].waits_for = None;
        }
        self.write_settled(out)?;
        Ok(!stored)
    }

    /// An `agent_message` or `user_message` event.
    fn event(
        &mut self,
        role: Role,
        text: &str,
        time: Option<i64>,
        out: &mut Writer<'_>,
    ) -> Result<()> {
        let key = text.trim().to_owned();
        if let Some(at) = self
            .unmatched
            .iter()
            .position(|(r, t)| *r == role && *t == key)
        {
            self.unmatched.remove(at);
            out.skip_entry("event_msg", None, Parent::Previous);
            return Ok(());
        }
        let blocks = vec![text_block(text)];
        let (role_stored, content) = match role {
            Role::User => user_message(blocks),
            _ => (role, blocks),
        };
        let message = HostMessage {
            id: out.position_id(),
            parent: Parent::Previous,
            role: role_stored,
            content,
            created_at: time,
        };
        self.write(message, Some((role, key)), out)
    }

    /// Writes the messages kept back up to the first event that still waits.
    fn write_settled(&mut self, out: &mut Writer<'_>) -> Result<()> {
        let waiting = self
            .held
            .iter()
            .position(|held| held.waits_for.is_some())
            .unwrap_or(self.held.len());
        self.write_held(waiting, out)
    }

    /// The turn ended: no event waits any more.
    fn end_turn(&mut self, out: &mut Writer<'_>) -> Result<()> {
        self.unmatched.clear();
        self.write_held(self.held.len(), out)
    }

    /// Writes the first `count` messages kept back.
    fn write_held(&mut self, count: usize, out: &mut Writer<'_>) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        let now = out.position();
        for held in self.held.drain(..count).collect::<Vec<_>>() {
            out.set_position(held.at);
            out.message(held.message)?;
        }
        out.set_position(now);
        Ok(())
    }
}

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
            "session_meta" => {
                self.end_turn(out)?;
                match payload["id"].as_str() {
                    Some(id) => {
                        // A resumed session's rollout is named with a new
                        // id and stored under the first one: found by both.
                        if let Some(named) = self.named.as_deref().filter(|named| *named != id) {
                            out.also_named(named);
                        }
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
                }
            }
            "response_item" => {
                if let Some((message, said)) = item(payload, time, out) {
                    let written = match said {
                        Some((role, text)) => self.item_text(role, text, out)?,
                        None => true,
                    };
                    if written {
                        self.write(message, None, out)?;
                    }
                }
            }
            "event_msg" => {
                let event = payload["type"].as_str().unwrap_or_default();
                let role = match event {
                    "agent_message" => Some(Role::Assistant),
                    "user_message" => Some(Role::User),
                    _ => None,
                };
                match (role, payload["message"].as_str()) {
                    (Some(role), Some(text)) if !text.trim().is_empty() => {
                        self.event(role, text, time, out)?
                    }
                    _ => {
                        if TURN_EVENTS.contains(&event) {
                            self.end_turn(out)?;
                        }
                        out.skip_entry(&kind, None, Parent::Previous);
                    }
                }
            }
            "turn_context" | "compacted" => {
                self.end_turn(out)?;
                out.skip_entry(&kind, None, Parent::Previous);
            }
            _ => out.skip_entry(&kind, None, Parent::Previous),
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Writer<'_>) -> Result<()> {
        if self.quiet {
            return self.end_turn(out);
        }
        // An event the file ends with may get its twin on the next line
        // still to be written: it waits for a later import.
        self.held.retain(|held| held.waits_for.is_none());
        self.write_held(self.held.len(), out)
    }
}

/// A user's or the assistant's message's role and text, which an event
/// may repeat; `None` for other messages.
type Said = Option<(Role, String)>;

/// The message a response item holds (`None`: reported or counted), and
/// for a user's or the assistant's message, its text, which an event may
/// repeat.
fn item(
    mut payload: Value,
    time: Option<i64>,
    out: &mut Writer<'_>,
) -> Option<(HostMessage, Said)> {
    let kind = payload["type"].as_str().unwrap_or_default().to_owned();
    let mut said = None;
    let (role, content) = match kind.as_str() {
        "message" => {
            let (role, blocks, text) = message_item(&mut payload, out)?;
            said = text;
            (role, blocks)
        }
        "reasoning" => (Role::Assistant, vec![reasoning_block(&payload)]),
        "function_call" | "custom_tool_call" | "local_shell_call" | "web_search_call" => {
            (Role::Assistant, vec![tool_call_block(&kind, &payload)])
        }
        "function_call_output" | "custom_tool_call_output" => (
            Role::Tool,
            vec![json!({
                "type": "function_call_output",
                "call_id": payload["call_id"].as_str().unwrap_or_default(),
                "output": payload["output"].take(),
            })],
        ),
        _ => {
            let kind = if kind.is_empty() { "(no type)" } else { &kind };
            out.skip_entry(&format!("response_item/{kind}"), None, Parent::Previous);
            return None;
        }
    };
    let message = HostMessage {
        id: out.position_id(),
        parent: Parent::Previous,
        role,
        content,
        created_at: time,
    };
    Some((message, said))
}

/// A `message` item's role and blocks (`None`: reported), and for a user's
/// or the assistant's message its trimmed text.
fn message_item(payload: &mut Value, out: &mut Writer<'_>) -> Option<(Role, Vec<Value>, Said)> {
    let Some(blocks) = payload["content"].as_array_mut().map(std::mem::take) else {
        out.issue(Issue::NotUnderstood {
            reason: "a message without a content array".into(),
        });
        return None;
    };
    let blocks: Vec<Value> = blocks.into_iter().map(text_as_text_block).collect();
    let text = || {
        let texts: Vec<&str> = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
        texts.concat().trim().to_owned()
    };
    match payload["role"].as_str() {
        Some("user") => {
            let said = Some((Role::User, text()));
            let (role, blocks) = user_message(blocks);
            Some((role, blocks, said))
        }
        Some("assistant") => {
            let said = Some((Role::Assistant, text()));
            Some((Role::Assistant, blocks, said))
        }
        Some(_) => Some((Role::System, blocks, None)),
        None => {
            out.issue(Issue::NotUnderstood {
                reason: "a message without a role".into(),
            });
            None
        }
    }
}

/// A `reasoning` item's summary as one `reasoning` block.
fn reasoning_block(payload: &Value) -> Value {
    let summary: Vec<String> = payload["summary"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|part| part["text"].as_str().map(str::to_owned))
        .collect();
    json!({"type": "reasoning", "text": summary.join("\n")})
}

/// A tool call item of type `kind` as a `function_call` block: its name
/// (else the kind without `_call`), call id and arguments.
fn tool_call_block(kind: &str, payload: &Value) -> Value {
    let name = match payload["name"].as_str() {
        Some(name) => name.to_owned(),
        None => kind.trim_end_matches("_call").to_owned(),
    };
    let arguments = [&payload["arguments"], &payload["input"], &payload["action"]]
        .into_iter()
        .find(|v| !v.is_null())
        .cloned()
        .unwrap_or(Value::Null);
    json!({
        "type": "function_call",
        "name": name,
        "call_id": payload["call_id"].as_str().unwrap_or_default(),
        "arguments": arguments,
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

/// Where Codex keeps its rollouts.
pub(super) const TOOLS: &[Tool] = &[Tool {
    name: "Codex",
    variable: Some("CODEX_HOME"),
    home_folder: ".codex",
    folders: &["sessions", "archived_sessions"],
}];

/// The importer of Codex CLI rollouts.
pub(super) struct CodexImporter;

impl Importer for CodexImporter {
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
        Some(format!("codex resume {host_id}"))
    }

    /// An answer that only an `agent_message` event holds is stored once
    /// the file is quiet.
    fn waits_for_quiet(&self) -> bool {
        true
    }
}
