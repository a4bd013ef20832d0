//! Cline, Roo Code and Kilo Code tasks: a folder per task,
//! `<global storage>/tasks/<taskId>/`, under the VS Code extension's global
//! storage (`saoudrizwan.claude-dev`, `rooveterinaryinc.roo-cline`,
//! `kilocode.kilo-code`; Cline's own `~/.cline/data/tasks/` too).
//!
//! The conversation is `api_conversation_history.json`: a JSON array of
//! messages as the model got them (`role` `user` / `assistant`, `content` a
//! string or Anthropic blocks: `text`, `image`, `tool_use`, `tool_result`,
//! `thinking`), with a `ts` in milliseconds in Roo Code and Kilo Code.
//! Newer Roo Code writes `{"version": 2, "messages": […]}` instead, with
//! `tool` messages and `tool-call` / `tool-result` / `reasoning` parts; both
//! are read. Each message is one of the session's, in order (linear).
//! Beside it, `ui_messages.json` (what the panel shows, each with its `ts`
//! and, in Cline, the `conversationHistoryIndex` it was shown at) gives
//! Cline's messages their times: a message takes the time of the last
//! thing the panel showed before it joined the conversation (the request
//! that sent it, the answer as it streamed), the task its first panel
//! message's. `history_item.json` (newer Roo Code) names the
//! working directory (`workspace`) and the task that started it
//! (`parentTaskId`, a `new_task` sub-task): the session is spawned by it.
//! Without that file, the working directory is the one the first message's
//! environment details name (`# Current Working Directory (…) Files`).
//!
//! What is searchable:
//!
//! - The extension wraps what the user typed: the task in `<task>`, later
//!   messages in `<feedback>`, `<answer>` (to a question) or
//!   `<user_message>` (on resuming). Those words, without the tags, are the
//!   user's and searchable; everything else in a user message is the
//!   extension's (`<environment_details>`, `[TASK RESUMPTION]` notes,
//!   errors, file contents, slash commands' `<explicit_instructions>`, the
//!   `<previous_message>` it repeats): kept as context. A message with none
//!   of the user's words is a tool's output (`[<tool> …] Result:` text,
//!   `tool_result` blocks) with role `tool`, or else `system`. The feedback
//!   and answers inside a tool's result are the user's words too.
//! - The assistant's text is its answer, except `<thinking>` (and
//!   `<think>`), stored as thinking, and tool calls written as XML
//!   (`<read_file><path>…</path></read_file>`, for the tools the extensions
//!   know), stored as `tool_use` with their parameters. What a tool call
//!   shows the user as the assistant's words is searchable: the `result` of
//!   `attempt_completion`, the `question` of `ask_followup_question`, the
//!   `response` of `plan_mode_respond` / `act_mode_respond`, whether written
//!   as XML or as a native tool call.
//! - Summaries the extension wrote (`isSummary`) and truncation markers are
//!   `system`.
//!
//! Messages have no ids: a message's id is its `ts` (`t<ts>-…`, or
//! without one its place in the conversation, `n<k>-…`, from 1) and a
//! fingerprint of its role and content, so that a
//! message the extension rewrote (on resuming, or after a checkpoint
//! restore) starts a branch where it differs, and the file as it is now is
//! the active branch.

use super::blocks::{fingerprint, text_block, text_or_blocks, CONTEXT_BLOCK};
use super::locations::{Tool, EDITOR_DATA};
use super::records::{each_record_of, first_record, Opened, RecordReader, Sessions};
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo};
use super::Open;
use super::{directory_name, Format, Issue};
use serde_json::{json, Map, Value};
use session_search::{Result, Role};
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// The conversation of a task.
pub(super) const FILE_NAME: &str = "api_conversation_history.json";

/// What the extension's panel shows of a task, with times.
const UI_MESSAGES: &str = "ui_messages.json";

/// A task's history entry (newer Roo Code).
const HISTORY_ITEM: &str = "history_item.json";

/// The folders each tool keeps its tasks under: VS Code's (lower-cased)
/// extension ids, and Cline's own data folder.
const STORAGE: [(&str, Format); 4] = [
    ("saoudrizwan.claude-dev", Format::Cline),
    (".cline", Format::Cline),
    ("rooveterinaryinc.roo-cline", Format::RooCode),
    ("kilocode.kilo-code", Format::KiloCode),
];

/// The tags around what the user typed.
const TYPED: [&str; 4] = ["task", "feedback", "answer", "user_message"];

/// Of those, the ones a tool's result carries (feedback on a denied or
/// completed step, the answer to a question, the reply to a plan).
const TYPED_IN_RESULTS: [&str; 3] = ["feedback", "answer", "user_message"];

/// The tag around an earlier message the extension repeats on resuming.
const REPEATED: &str = "previous_message";

/// Instructions a slash command puts among what the user typed.
const EXPLICIT: (&str, &str) = ("<explicit_instructions", "</explicit_instructions>");

/// The block of context the extension appends to user messages.
const ENVIRONMENT: &str = "<environment_details>";

/// The headers naming the working directory in the environment details.
const WORKING_DIRECTORY: [&str; 2] = [
    "# Current Working Directory (",
    "# Current Workspace Directory (",
];

/// Tags around reasoning in the assistant's text.
const THINKING: [&str; 2] = ["thinking", "think"];

/// The tools Cline, Roo Code and Kilo Code call with XML in the assistant's
/// text.
const TOOLS: [&str; 34] = [
    "execute_command",
    "read_file",
    "write_to_file",
    "replace_in_file",
    "apply_diff",
    "insert_content",
    "search_and_replace",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "codebase_search",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "load_mcp_documentation",
    "ask_followup_question",
    "attempt_completion",
    "plan_mode_respond",
    "act_mode_respond",
    "new_task",
    "switch_mode",
    "fetch_instructions",
    "web_fetch",
    "web_search",
    "condense",
    "summarize_task",
    "report_bug",
    "new_rule",
    "update_todo_list",
    "run_slash_command",
    "generate_image",
    "edit_file",
    "apply_patch",
    "use_skill",
];

/// The parameter of a tool call that the panel shows as the assistant's
/// words.
fn answer_of<'a>(tool: &str, input: &'a Value) -> Option<&'a str> {
    let parameter = match tool {
        "attempt_completion" => "result",
        "ask_followup_question" => "question",
        "plan_mode_respond" | "act_mode_respond" => "response",
        _ => return None,
    };
    input[parameter]
        .as_str()
        .map(str::trim)
        .filter(|text| !text.is_empty())
}

/// Whether `record` is the first message of a task (or the versioned
/// conversation holding it): the user's, starting with `<task>`.
pub(super) fn recognises(record: &Value) -> bool {
    let first = match record["messages"].as_array() {
        Some(messages) if record.get("version").is_some() => messages.first(),
        _ => Some(record),
    };
    first.is_some_and(|message| {
        message["role"] == "user"
            && texts(&message["content"])
                .first()
                .is_some_and(|text| text.trim_start().starts_with("<task>"))
    })
}

/// Which of the tools wrote the task at `path`: the folder it is kept in
/// says; elsewhere (a copy), Roo Code when its messages carry times or it
/// is versioned, else Cline.
pub(super) fn member(path: &Path) -> Format {
    let kept_in = path
        .ancestors()
        .filter_map(Path::file_name)
        .find_map(|name| {
            let name = name.to_string_lossy().to_lowercase();
            STORAGE
                .iter()
                .find(|(folder, _)| name == *folder)
                .map(|&(_, format)| format)
        });
    kept_in.unwrap_or_else(|| match first_message(path) {
        Some((message, versioned)) if versioned || message.get("ts").is_some() => Format::RooCode,
        _ => Format::Cline,
    })
}

/// The first message of the conversation at `path`, and whether the file
/// is versioned (`{"version", "messages"}`).
fn first_message(path: &Path) -> Option<(Value, bool)> {
    let mut record = first_record(&mut BufReader::new(File::open(path).ok()?))?;
    match record["messages"].take() {
        Value::Array(messages) => Some((messages.into_iter().next()?, true)),
        _ => Some((record, false)),
    }
}

/// A JSON file beside the conversation, when it can be read.
fn read_beside(path: &Path) -> Option<Value> {
    serde_json::from_reader(BufReader::new(File::open(path).ok()?)).ok()
}

pub(super) fn open(path: &Path, format: Format) -> Opened {
    let dir = path.parent().map(Path::to_owned).unwrap_or_default();
    let item = read_beside(&dir.join(HISTORY_ITEM)).unwrap_or(Value::Null);
    let cwd = item["workspace"]
        .as_str()
        .filter(|cwd| !cwd.is_empty())
        .map(str::to_owned)
        .or_else(|| first_message(path).and_then(|(message, _)| working_directory(&message)));
    let agent_id = cwd
        .as_deref()
        .and_then(last_component)
        .unwrap_or(format.name())
        .to_owned();
    let id = match directory_name(path, 1) {
        id if id.is_empty() => format.name().to_owned(),
        id => id,
    };
    Opened {
        reader: Box::new(Task {
            dir,
            id,
            parent: item["parentTaskId"].as_str().map(str::to_owned),
            cwd,
            messages: Vec::new(),
        }),
        agent_id,
    }
}

/// The working directory the environment details of `message` name.
fn working_directory(message: &Value) -> Option<String> {
    texts(&message["content"]).into_iter().find_map(|text| {
        WORKING_DIRECTORY.iter().find_map(|header| {
            let start = text.find(header)? + header.len();
            let line = text[start..].lines().next()?.trim_end();
            let path = line
                .strip_suffix(" Files")
                .unwrap_or(line)
                .strip_suffix(')')?;
            (!path.is_empty()).then(|| path.to_owned())
        })
    })
}

/// The last name in `path` (either separator), if any.
fn last_component(path: &str) -> Option<&str> {
    path.trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .filter(|name| !name.is_empty())
}

/// The texts of content: the string, or its text blocks'.
fn texts(content: &Value) -> Vec<&str> {
    match content {
        Value::String(text) => vec![text],
        Value::Array(blocks) => blocks
            .iter()
            .filter(|block| block["type"] == "text")
            .filter_map(|block| block["text"].as_str())
            .collect(),
        _ => Vec::new(),
    }
}

struct Task {
    /// The task's folder.
    dir: PathBuf,
    id: String,
    /// The task that started this one.
    parent: Option<String>,
    cwd: Option<String>,
    /// The messages, with the numbers of the records they were in and
    /// their places in the conversation (from 0).
    messages: Vec<(usize, usize, Value)>,
}

impl RecordReader for Task {
    fn record(&mut self, mut record: Value, out: &mut Sessions<'_>) -> Result<()> {
        let number = out.record();
        let Some(fields) = record.as_object_mut() else {
            out.issue(Issue::NotUnderstood {
                reason: "not a message (a JSON object)".into(),
            });
            return Ok(());
        };
        if fields.contains_key("version") {
            if let Some(Value::Array(messages)) = fields.remove("messages") {
                self.messages.extend(
                    (messages.into_iter().enumerate()).map(|(at, message)| (number, at, message)),
                );
                return Ok(());
            }
        }
        // An element of the conversation's array: its place is its number's.
        self.messages
            .push((number, number.saturating_sub(1), record));
        Ok(())
    }

    fn finish(&mut self, out: &mut Sessions<'_>) -> Result<()> {
        let messages = std::mem::take(&mut self.messages);
        if messages.is_empty() {
            return Ok(());
        }
        let panel = Panel::read(&self.dir.join(UI_MESSAGES));
        if let Some(record) = panel.ends_at {
            out.issue(Issue::SkippedFile {
                path: self.dir.join(UI_MESSAGES),
                reason: format!(
                    "cut off or not JSON at its record {record}: later messages take earlier times"
                ),
            });
        }
        let places = messages.iter().map(|&(_, at, _)| at + 1).max().unwrap_or(0);
        let times = panel.times(places);
        let info = SessionInfo {
            id: self.id.clone(),
            host_id: self.id.clone(),
            spawned_by: self.parent.clone(),
            // Cline's task ids are the time they started.
            created_at: panel.first.or_else(|| {
                self.id
                    .parse::<i64>()
                    .ok()
                    .filter(|ms| *ms > 1_000_000_000_000)
            }),
        };
        let cwd = self.cwd.clone();
        out.session(info, |out| {
            if let Some(cwd) = &cwd {
                out.set_cwd(cwd);
            }
            for (number, at, message) in messages {
                out.set_line(number);
                let ts = message["ts"].as_i64();
                let id = message_id(at, ts, &message);
                let Some((role, content)) = convert(message) else {
                    out.issue(Issue::NotUnderstood {
                        reason: format!("message {} has no role and content", at + 1),
                    });
                    continue;
                };
                out.message(HostMessage {
                    id,
                    parent: Parent::Previous,
                    role,
                    content,
                    created_at: ts.or(times.get(at).copied().flatten()),
                })?;
            }
            Ok(())
        })
    }
}

/// The times `ui_messages.json` gives.
#[derive(Default)]
struct Panel {
    /// The first panel message's (the task's).
    first: Option<i64>,
    /// `(conversationHistoryIndex, ts)` of the panel messages that have
    /// both, in order.
    shown: Vec<(i64, i64)>,
    /// The record the file ends early at (cut off, or not JSON).
    ends_at: Option<usize>,
}

impl Panel {
    /// The panel messages' times; nothing when the file is missing.
    fn read(path: &Path) -> Panel {
        let mut panel = Panel::default();
        let Ok(file) = File::open(path) else {
            return panel;
        };
        let (count, complete) = each_record_of(&mut BufReader::new(file), &mut |message| {
            let Some(ts) = message["ts"].as_i64() else {
                return;
            };
            panel.first.get_or_insert(ts);
            if let Some(index) = message["conversationHistoryIndex"].as_i64() {
                panel.shown.push((index, ts));
            }
        });
        if !complete {
            panel.ends_at = Some(count + 1);
        }
        panel
    }

    /// The times of `n` messages: each the time of the last panel message
    /// shown before it joined the conversation (whose index, that of the
    /// conversation's last message then, is below the message's): the
    /// request that sent it, the answer as it streamed. None without
    /// indexes.
    fn times(&self, n: usize) -> Vec<Option<i64>> {
        // By the number of messages the conversation had: the last panel
        // message (its place in the file, its time) shown then.
        let mut last: Vec<Option<(usize, i64)>> = vec![None; n];
        for (place, &(index, ts)) in self.shown.iter().enumerate() {
            match usize::try_from(index.saturating_add(1)) {
                Ok(had) if had < n => last[had] = Some((place, ts)),
                _ => {}
            }
        }
        let mut latest: Option<(usize, i64)> = None;
        last.into_iter()
            .map(|shown| {
                if shown.map(|(place, _)| place) > latest.map(|(place, _)| place) {
                    latest = shown;
                }
                latest.map(|(_, ts)| ts)
            })
            .collect()
    }
}

/// A message's id: its time, else its position (from 1), and a fingerprint
/// of its role and content.
fn message_id(at: usize, ts: Option<i64>, message: &Value) -> String {
    let fingerprint =
        fingerprint(["role", "type", "content", "summary"].map(|part| &message[part]));
    match ts {
        Some(ts) => format!("t{ts}-{fingerprint}"),
        None => format!("n{}-{fingerprint}", at + 1),
    }
}

/// The role and content blocks of a message; `None` when it has neither.
fn convert(mut message: Value) -> Option<(Role, Vec<Value>)> {
    if message.get("role").is_none() && message["type"] == "reasoning" {
        // A reasoning item of its own (newer Roo Code).
        return Some((Role::Assistant, vec![message]));
    }
    let host = message["isSummary"] == true || message["isTruncationMarker"] == true;
    let role = message["role"].as_str()?.to_owned();
    let content = text_or_blocks(message["content"].take())?;
    match role.as_str() {
        _ if host => Some((Role::System, content)),
        "assistant" => Some((Role::Assistant, assistant(content))),
        "user" | "tool" => Some(user(content)),
        "system" => Some((Role::System, content)),
        _ => None,
    }
}

/// The assistant's blocks: text split into answer, thinking and XML tool
/// calls; what a tool call shows as the assistant's words as text too.
fn assistant(blocks: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::new();
    for mut block in blocks {
        match block["type"].as_str().unwrap_or_default() {
            "text" => {
                if let Some(details) = block.get_mut("reasoning_details").map(Value::take) {
                    out.push(json!({"type": "reasoning", "reasoning_details": details}));
                }
                split_answer(block["text"].as_str().unwrap_or_default(), &mut out);
            }
            "tool_use" | "tool-call" => {
                let name = block["name"].as_str().or(block["toolName"].as_str());
                if let Some(answer) = name.and_then(|name| answer_of(name, &block["input"])) {
                    out.push(text_block(answer));
                }
                out.push(block);
            }
            _ => out.push(block),
        }
    }
    out
}

/// The earliest of `tags` opened in `text`: where, and which.
fn earliest<'t>(text: &str, tags: impl Iterator<Item = &'t str>) -> Option<(usize, &'t str)> {
    tags.filter_map(|tag| text.find(&format!("<{tag}>")).map(|at| (at, tag)))
        .min_by_key(|&(at, _)| at)
}

/// What is inside the tag `tag` opened at `at`, and where the text after
/// its closing tag starts (the end, when it is not closed).
fn inside<'a>(text: &'a str, at: usize, tag: &str) -> (&'a str, usize) {
    let start = at + tag.len() + 2;
    let close = format!("</{tag}>");
    match text[start..].find(&close) {
        Some(end) => (&text[start..start + end], start + end + close.len()),
        None => (&text[start..], text.len()),
    }
}

/// The assistant's text as blocks: its words, `<thinking>` as thinking, XML
/// tool calls as `tool_use` (preceded by what they show as the answer).
fn split_answer(mut text: &str, out: &mut Vec<Value>) {
    let words = |text: &str, out: &mut Vec<Value>| {
        if !text.trim().is_empty() {
            out.push(text_block(text.trim()));
        }
    };
    while let Some((at, tag)) = earliest(text, THINKING.into_iter().chain(TOOLS)) {
        words(&text[..at], out);
        let (body, next) = inside(text, at, tag);
        if THINKING.contains(&tag) {
            out.push(json!({"type": "thinking", "thinking": body.trim()}));
        } else {
            let input = parameters(body);
            if let Some(answer) = answer_of(tag, &input) {
                out.push(text_block(answer));
            }
            out.push(json!({"type": "tool_use", "name": tag, "input": input}));
        }
        text = &text[next..];
    }
    words(text, out);
}

/// The parameters of an XML tool call, `<name>value</name>` each; a body
/// without any is kept as `text`.
fn parameters(body: &str) -> Value {
    let mut parameters = Map::new();
    let mut rest = body;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let Some(end) = after.find('>') else {
            break;
        };
        let name = &after[..end];
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            rest = after;
            continue;
        }
        let value = &after[end + 1..];
        let close = format!("</{name}>");
        // A file's content may hold the tag itself: the last one closes it.
        let stop = match name {
            "content" | "diff" => value.rfind(&close),
            _ => value.find(&close),
        };
        let (value, next) = match stop {
            Some(stop) => (&value[..stop], &value[stop + close.len()..]),
            None => (value, ""),
        };
        let value = match name {
            "content" | "diff" => value.trim_matches('\n'),
            _ => value.trim(),
        };
        parameters.insert(name.to_owned(), Value::from(value));
        rest = next;
    }
    if parameters.is_empty() && !body.trim().is_empty() {
        parameters.insert("text".to_owned(), Value::from(body.trim()));
    }
    Value::Object(parameters)
}

/// Part of a user message's text.
enum Piece<'a> {
    /// What the user typed.
    Typed(&'a str),
    /// The extension's.
    Other(&'a str),
}

/// `text` cut into what the user typed (inside `tags`) and the rest.
fn pieces<'a>(mut text: &'a str, tags: &[&str], out: &mut Vec<Piece<'a>>) {
    let all = tags.iter().copied().chain([REPEATED]);
    while let Some((at, tag)) = earliest(text, all.clone()) {
        out.push(Piece::Other(&text[..at]));
        let (inner, next) = inside(text, at, tag);
        if tag == REPEATED {
            out.push(Piece::Other(&text[at..next]));
        } else {
            typed(inner, out);
        }
        text = &text[next..];
    }
    out.push(Piece::Other(text));
}

/// What is inside a tag around the user's words: theirs, but for a slash
/// command's instructions.
fn typed<'a>(mut inner: &'a str, out: &mut Vec<Piece<'a>>) {
    while let Some(at) = inner.find(EXPLICIT.0) {
        out.push(Piece::Typed(&inner[..at]));
        let end = inner[at..]
            .find(EXPLICIT.1)
            .map_or(inner.len(), |end| at + end + EXPLICIT.1.len());
        out.push(Piece::Other(&inner[at..end]));
        inner = &inner[end..];
    }
    out.push(Piece::Typed(inner));
}

/// The tool whose result a text starts with (`[read_file for 'a.rs']
/// Result:`).
fn result_header(text: &str) -> Option<&str> {
    let line = text.trim_start().lines().next()?.trim_end();
    let inner = line.strip_prefix('[')?.strip_suffix("] Result:")?;
    let name = inner.split(' ').next()?;
    let tool_like = name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-');
    (!name.is_empty() && tool_like).then_some(name)
}

/// Calls `each` with every string in `value`.
fn each_string<'a>(value: &'a Value, each: &mut dyn FnMut(&'a str)) {
    match value {
        Value::String(text) => each(text),
        Value::Array(values) => values.iter().for_each(|value| each_string(value, each)),
        Value::Object(fields) => fields.values().for_each(|value| each_string(value, each)),
        _ => {}
    }
}

/// A user (or tool) message's role and blocks.
#[derive(Default)]
struct UserMessage {
    blocks: Vec<Value>,
    /// The user typed words in it.
    typed: bool,
    /// It holds a tool's output.
    tool: bool,
    /// The user gave an image or a file outside a tool's output.
    given: bool,
    /// The tool result block that text goes to (after a `[…] Result:`
    /// header, until the environment details).
    run: Option<usize>,
}

impl UserMessage {
    fn typed(&mut self, words: &str) {
        let words = words.trim();
        if !words.is_empty() {
            self.blocks.push(text_block(words));
            self.typed = true;
        }
    }

    /// Text of the extension's: the current tool result's, or context.
    fn other(&mut self, text: &str) {
        if let Some(at) = text.find(ENVIRONMENT).filter(|&at| at > 0) {
            self.other(&text[..at]);
            return self.other(&text[at..]);
        }
        if text.trim().is_empty() {
            return;
        }
        if text.trim_start().starts_with(ENVIRONMENT) {
            self.run = None;
        }
        match self.run.and_then(|at| self.blocks[at].get_mut("content")) {
            Some(Value::String(content)) => {
                if !content.is_empty() && !content.ends_with('\n') && !text.starts_with('\n') {
                    content.push('\n');
                }
                content.push_str(text);
            }
            _ => self
                .blocks
                .push(json!({"type": CONTEXT_BLOCK, "text": text.trim()})),
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(tool) = result_header(text) {
            self.blocks
                .push(json!({"type": "tool_result", "name": tool, "content": ""}));
            self.run = Some(self.blocks.len() - 1);
            self.tool = true;
        }
        let tags: &[&str] = match self.run {
            Some(_) => &TYPED_IN_RESULTS,
            None => &TYPED,
        };
        let mut parts = Vec::new();
        pieces(text, tags, &mut parts);
        for part in parts {
            match part {
                Piece::Typed(words) => self.typed(words),
                Piece::Other(text) => self.other(text),
            }
        }
    }

    fn block(&mut self, block: Value) {
        match block["type"].as_str().unwrap_or_default() {
            "text" => self.text(block["text"].as_str().unwrap_or_default()),
            "tool_result" | "tool-result" => {
                self.run = None;
                self.tool = true;
                let mut parts = Vec::new();
                each_string(&block, &mut |text| {
                    pieces(text, &TYPED_IN_RESULTS, &mut parts)
                });
                let words: Vec<String> = parts
                    .into_iter()
                    .filter_map(|part| match part {
                        Piece::Typed(words) => Some(words.to_owned()),
                        Piece::Other(_) => None,
                    })
                    .collect();
                self.blocks.push(block);
                words.iter().for_each(|words| self.typed(words));
            }
            "image" | "document" | "file" => {
                self.given |= self.run.is_none();
                self.blocks.push(block);
            }
            _ => self.blocks.push(block),
        }
    }
}

/// The role and blocks of a user (or tool) message: `user` when it holds
/// words the user typed, else `tool` for a tool's output, `user` for an
/// image the user gave, `system` for the extension's text alone.
fn user(blocks: Vec<Value>) -> (Role, Vec<Value>) {
    let mut message = UserMessage::default();
    blocks.into_iter().for_each(|block| message.block(block));
    let role = match (message.typed, message.tool, message.given) {
        (true, _, _) | (false, false, true) => Role::User,
        (false, true, _) => Role::Tool,
        (false, false, false) => Role::System,
    };
    (role, message.blocks)
}

/// Where Cline keeps its tasks: in the editors' data folder, and for its
/// command line in `~/.cline`.
pub(super) const CLINE_TOOLS: &[Tool] = &[
    Tool {
        name: "Cline",
        variable: EDITOR_DATA.0,
        home_folder: EDITOR_DATA.1,
        folders: &[
            "Code/User/globalStorage/saoudrizwan.claude-dev/tasks",
            "Code - Insiders/User/globalStorage/saoudrizwan.claude-dev/tasks",
            "VSCodium/User/globalStorage/saoudrizwan.claude-dev/tasks",
            "Cursor/User/globalStorage/saoudrizwan.claude-dev/tasks",
        ],
    },
    Tool {
        name: "Cline",
        variable: Some("CLINE_DIR"),
        home_folder: ".cline",
        folders: &["data/tasks"],
    },
];

/// Where Roo Code keeps its tasks, in the editors' data folder.
pub(super) const ROO_CODE_TOOLS: &[Tool] = &[Tool {
    name: "Roo Code",
    variable: EDITOR_DATA.0,
    home_folder: EDITOR_DATA.1,
    folders: &[
        "Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
        "Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
        "VSCodium/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
        "Cursor/User/globalStorage/rooveterinaryinc.roo-cline/tasks",
    ],
}];

/// Where Kilo Code keeps its tasks, in the editors' data folder.
pub(super) const KILO_CODE_TOOLS: &[Tool] = &[Tool {
    name: "Kilo Code",
    variable: EDITOR_DATA.0,
    home_folder: EDITOR_DATA.1,
    folders: &[
        "Code/User/globalStorage/kilocode.kilo-code/tasks",
        "Code - Insiders/User/globalStorage/kilocode.kilo-code/tasks",
        "VSCodium/User/globalStorage/kilocode.kilo-code/tasks",
        "Cursor/User/globalStorage/kilocode.kilo-code/tasks",
    ],
}];

/// The importer of Cline tasks; Roo Code's and Kilo Code's, which write
/// the same, are its [`MemberImporter`].
pub(super) struct ClineImporter;

impl Importer for ClineImporter {
    /// The task's other files are read beside it.
    fn reads_file_named(&self, name: &str) -> bool {
        name == FILE_NAME
    }

    /// Roo Code's and Kilo Code's too (see [`member`]).
    fn recognises(&self, record: &Value) -> bool {
        recognises(record)
    }

    fn member(&self, path: &Path) -> Option<Format> {
        Some(member(path))
    }

    fn open(&self, format: Format, path: &Path) -> Open {
        Open::Records(open(path, format))
    }
}

/// The importer of Roo Code's and Kilo Code's tasks, which
/// [`ClineImporter`] recognises (see [`member`]).
pub(super) struct MemberImporter;

impl Importer for MemberImporter {
    fn reads_file_named(&self, name: &str) -> bool {
        name == FILE_NAME
    }

    fn open(&self, format: Format, path: &Path) -> Open {
        Open::Records(open(path, format))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(blocks: &[Value]) -> Vec<&str> {
        blocks.iter().map(|b| b["type"].as_str().unwrap()).collect()
    }

    #[test]
    fn the_assistants_text_into_answer_thinking_and_tool_calls() {
        let mut out = Vec::new();
        split_answer(
            "<thinking>\nThe config is in src.\n</thinking>\n\nLet me read it.\n\n<read_file>\n<path>src/config.rs</path>\n</read_file>",
            &mut out,
        );
        assert_eq!(types(&out), ["thinking", "text", "tool_use"]);
        assert_eq!(out[0]["thinking"], "The config is in src.");
        assert_eq!(out[1]["text"], "Let me read it.");
        assert_eq!(out[2]["input"], json!({"path": "src/config.rs"}));

        let mut out = Vec::new();
        split_answer(
            "<attempt_completion>\n<result>\nThe retry cap is now applied.\n</result>\n<command>cargo test</command>\n</attempt_completion>",
            &mut out,
        );
        assert_eq!(types(&out), ["text", "tool_use"]);
        assert_eq!(out[0]["text"], "The retry cap is now applied.");
        assert_eq!(out[1]["input"]["command"], "cargo test");

        // Unknown tags are the answer's; a tool call cut off runs to the end.
        let mut out = Vec::new();
        split_answer(
            "Use a <div> here.\n<write_to_file>\n<path>a.html</path>\n<content>\n<div></div>\n",
            &mut out,
        );
        assert_eq!(types(&out), ["text", "tool_use"]);
        assert_eq!(out[0]["text"], "Use a <div> here.");
        assert_eq!(out[1]["input"]["content"], "<div></div>");
    }

    #[test]
    fn the_users_words_out_of_the_extensions_wrappers() {
        let (role, blocks) = user(vec![
            text_block("<task>\nWhy is the deploy slow?\n</task>"),
            text_block("<environment_details>\n# Current Working Directory (/src/app) Files\n</environment_details>"),
        ]);
        assert_eq!(role, Role::User);
        assert_eq!(types(&blocks), ["text", "context"]);
        assert_eq!(blocks[0]["text"], "Why is the deploy slow?");

        let (role, blocks) = user(vec![
            text_block("[read_file for 'src/a.rs'] Result:"),
            text_block("fn main() {}"),
            text_block("<environment_details>\nx\n</environment_details>"),
        ]);
        assert_eq!(role, Role::Tool);
        assert_eq!(types(&blocks), ["tool_result", "context"]);
        assert_eq!(blocks[0]["name"], "read_file");
        assert!(blocks[0]["content"].as_str().unwrap().contains("fn main"));

        let (role, blocks) = user(vec![
            text_block("[attempt_completion] Result:"),
            text_block("The user has provided feedback on the results.\n<feedback>\nMake it blue\n</feedback>"),
        ]);
        assert_eq!(role, Role::User);
        assert_eq!(types(&blocks), ["tool_result", "text"]);
        assert_eq!(blocks[1]["text"], "Make it blue");

        let (role, blocks) = user(vec![text_block(
            "[TASK RESUMPTION] This task was interrupted 3 hours ago.\n\nNew instructions for task continuation:\n<user_message>\nAlso fix the tests\n</user_message>\n\n<environment_details>\ny\n</environment_details>",
        )]);
        assert_eq!(role, Role::User);
        assert_eq!(types(&blocks), ["context", "text", "context"]);
        assert_eq!(blocks[1]["text"], "Also fix the tests");

        let (role, _) = user(vec![text_block(
            "[ERROR] You did not use a tool in your previous response!",
        )]);
        assert_eq!(role, Role::System);

        let answer = json!({"type": "tool_result", "tool_use_id": "t1", "content": "<answer>\nUse port 8080\n</answer>"});
        let (role, blocks) = user(vec![answer]);
        assert_eq!(role, Role::User);
        assert_eq!(types(&blocks), ["tool_result", "text"]);
        assert_eq!(blocks[1]["text"], "Use port 8080");

        let (_, blocks) = user(vec![text_block(
            "<task>\n<explicit_instructions type=\"new_task\">\nMake a new task.\n</explicit_instructions>\nhand over the cache work\n</task>",
        )]);
        assert_eq!(types(&blocks), ["context", "text"]);
        assert_eq!(blocks[1]["text"], "hand over the cache work");
    }

    #[test]
    fn panel_times_by_conversation_index() {
        let panel = Panel {
            first: Some(100),
            shown: vec![
                (-1, 100),
                (-1, 110),
                (0, 200),
                (0, 210),
                (2, 400),
                (3, 500),
                (9, 900),
            ],
            ends_at: None,
        };
        assert_eq!(
            panel.times(6),
            [
                Some(110),
                Some(210),
                Some(210),
                Some(400),
                Some(500),
                Some(500)
            ]
        );
        assert_eq!(Panel::default().times(2), [None, None]);
    }

    #[test]
    fn working_directories_and_agents() {
        let message = json!({"role": "user", "content": [{"type": "text", "text": "<environment_details>\n# Current Workspace Directory (c:/Users/ann/shop) Files\n</environment_details>"}]});
        assert_eq!(
            working_directory(&message).as_deref(),
            Some("c:/Users/ann/shop")
        );
        assert_eq!(last_component("c:/Users/ann/shop"), Some("shop"));
        assert_eq!(last_component("/home/ann/src/"), Some("src"));
        assert_eq!(last_component("/"), None);
    }
}
