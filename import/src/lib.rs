//! Importers: transcripts that agents wrote as JSONL files, the data
//! exports of chat services, and the SQLite databases some tools keep
//! their history in, read into a [`Store`].
//!
//! [`import_path`] takes a file or a directory (searched recursively for
//! the names each format's files have: `*.jsonl`, OpenClaw's archives,
//! `conversations.json`, Gemini CLI's `session-*.json`,
//! `.aider.chat.history.md`, OpenCode's `ses_*.json`, `opencode.db` and
//! `opencode-<channel>.db` (Kilo's `kilo.db`, `kilo-<channel>.db`), a Cline task's
//! `api_conversation_history.json`, Hermes's `state.db` and
//! `session_*.json`, Cursor's `state.vscdb`, SpecStory's
//! `<date>_<time>-<title>.md`, see [`is_transcript_name`]), recognises each
//! file's [`Format`] from its first entries (or, for a JSON document, its
//! first record; for Markdown, its first line, or for Aider's the first
//! line of a run in its first 64 KB; for a database, the SQLite
//! header and its tables), and returns an [`ImportReport`]. These formats
//! are read:
//!
//! | format | files | session key | default `agent_id` |
//! | --- | --- | --- | --- |
//! | [`Format::ClaudeCode`] | `~/.claude/projects/<project>/<session>.jsonl`, and `<session>/subagents/agent-<id>.jsonl` | `claude-code:<sessionId>`; a subagent `claude-code:<sessionId>:agent-<id>`, spawned by its session | the project directory's name |
//! | [`Format::OpenClaw`] | OpenClaw and pi-agent session files (a `{"type":"session"}` header, then entries) | `openclaw:<id>`, spawned by `openclaw:<parentSession>` | `<agent>` for `agents/<agent>/sessions/`, else `openclaw` |
//! | [`Format::Codex`] | Codex CLI rollouts, `rollout-*.jsonl`; an `agent_message` / `user_message` event that no `response_item` message repeats is a message | `codex:<id>` | `codex` |
//! | [`Format::ChatGpt`] | a ChatGPT data export's `conversations.json`: an array of conversations, each a tree of nodes (`mapping`); the active branch ends at `current_node` | `chatgpt:<id>`, one per conversation | `chatgpt` |
//! | [`Format::ClaudeAi`] | a Claude.ai data export's `conversations.json`: an array of conversations with `chat_messages` (`sender` `human` / `assistant`), in time order, or a tree by `parent_message_uuid` | `claude-ai:<uuid>`, one per conversation | `claude-ai` |
//! | [`Format::GeminiCli`] | Gemini CLI sessions, `~/.gemini/tmp/<project>/chats/session-*.json` (one JSON object with `messages`) or `session-*.jsonl` (a header line, message records, `$set` updates; a record written again replaces the first) | `gemini-cli:<sessionId>` | `gemini-cli` |
//! | [`Format::Aider`] | Aider's `.aider.chat.history.md`: a session per run (`# aider chat started at <time>`), `#### ` lines the user's, `> ` block quotes aider's notes (`system`), the rest the answer; the run's start is every message's time | `aider:<directory>:<start>`, messages `L<line>` | the directory the file is in |
//! | [`Format::Hermes`] | Hermes Agent's session store `~/.hermes/state.db` (SQLite: `sessions`, `messages`); a session with a `parent_session_id` (continuation, branch, subagent) is spawned by it; a turn undone with `/undo` is off the active branch. Its JSON logs `sessions/session_<id>.json` and its gateway's transcripts `sessions/<id>.jsonl` (a `session_meta` line, then a message a line), unless `state.db` gave the session; a message in both a log and a transcript is stored once, and a turn Hermes rewrote (`/undo`) starts a branch | `hermes:<id>`, messages by row id (`m<n>-<fingerprint>` in a log or transcript) | `hermes`, or `hermes-<name>` for a profile |
//! | [`Format::Cursor`] | Cursor's `state.vscdb` (SQLite): `cursorDiskKV`'s `composerData:<id>` conversations and `bubbleId:<id>:<bubble>` messages, an older workspace's chat tabs in `ItemTable`; a composer's sub-composers are spawned by it | `cursor:<composerId>`, messages by bubble id | `cursor` |
//! | [`Format::SpecStory`] | SpecStory's Markdown exports, `.specstory/history/*.md`: a message per `_**User**_` / `_**Assistant**_` turn; thinking and tool use not searchable | `specstory:<session id>`, messages `L<line>` | the tool its header names (`cursor`) |
//! | [`Format::OpenCode`], [`Format::Kilo`] | OpenCode's database `opencode.db` (`opencode-<channel>.db`; SQLite: `session`, `message` and `part`, with each message's and part's JSON in `data`), and its older JSON storage: `storage/session/<project>/ses_*.json` (the file imported), its messages in `storage/message/<session>/`, their parts in `storage/part/<message>/` (or the legacy flat `storage/part/`); messages in time order, one after the other; the active branch ends before the session's `revert`; a session in both is stored once. Kilo's CLI, a fork, keeps `kilo.db` and `storage/` in its data folder `kilo`, which tells which tool | `opencode:<sessionID>` (`kilo:…`), spawned by `opencode:<parentID>` | `opencode`, `kilo` |
//! | [`Format::Cline`], [`Format::RooCode`], [`Format::KiloCode`] | a task folder, `<global storage>/tasks/<taskId>/`: its conversation `api_conversation_history.json` (an array of `user` / `assistant` messages, or Roo Code's `{"version": 2, "messages"}`), times from `ui_messages.json` or each message's `ts`, the working directory and parent task from `history_item.json` (else the first message's environment details); the global storage folder (`saoudrizwan.claude-dev`, `rooveterinaryinc.roo-cline`, `kilocode.kilo-code`) tells which tool; linear | `cline:<taskId>` (`roo-code:…`, `kilo-code:…`), a sub-task spawned by its `parentTaskId`; messages `t<ts>-<fingerprint>`, or `n<position>-<fingerprint>` | the working directory's name, else the tool's |
//!
//! [`ImportOptions::agent_id`] overrides the agent for every file.
//!
//! What is stored:
//!
//! - Content as a JSON array of blocks: text as `{"type":"text","text":…}`,
//!   everything else (thinking, reasoning, tool calls and results, images)
//!   with its type, stored and never searchable. Tool output is stored with
//!   role `tool`, instructions and other host messages with role `system`.
//! - Text that the host injected into a user message is not the user's:
//!   text starting with `<environment_context>`, `<user_instructions>`,
//!   `# AGENTS.md instructions`, `<permissions instructions>`,
//!   `<system-reminder>`, `<ide_opened_file>`, `<ide_selection>`,
//!   `<local-command-stdout>`, `<task-notification>`, `[Request interrupted
//!   by user]` and the like. A message made only of it gets role `system`;
//!   next to typed text it becomes a `{"type":"context"}` block (history
//!   shows `[context]`). Neither is searchable. A chat gateway's metadata
//!   before the user's words (`Conversation info (untrusted metadata):` and
//!   its JSON) becomes such a block too, and a slash command's wrapper
//!   (`<command-name>`, `<command-args>`) the command as typed.
//! - Data exports: ChatGPT's tool calls (an assistant message to a
//!   `recipient` other than `all`), tool messages (browsing, code output,
//!   plugins) and reasoning are stored, not searchable; custom instructions
//!   and hidden messages are `system`. Claude.ai's attachments (with their
//!   extracted text) and file names are stored, not searchable.
//! - Gemini CLI: a user message's `displayContent` is what the user typed
//!   (`/init`), searchable, its `content` (the prompt sent) context; one
//!   whose displayed form holds no text is the CLI's, `system`, as are
//!   `info`, `warning` and `error` notes. Thoughts and tool calls with
//!   their results are stored, not searchable.
//! - Cline, Roo Code and Kilo Code: what the user typed is what the
//!   extension wrapped in `<task>`, `<feedback>`, `<answer>` or
//!   `<user_message>` (searchable, without the tags, also inside a tool's
//!   result); the rest of a user message (`<environment_details>`,
//!   resumption notes, errors, file contents) is context, a message of tool
//!   output alone (`[<tool> …] Result:`, `tool_result`) is `tool`, of the
//!   extension's text alone `system`. The assistant's `<thinking>` and its
//!   tool calls written as XML (`<read_file>…</read_file>`) are stored as
//!   thinking and `tool_use`, not searchable, but what a call shows the
//!   user as the answer is: `attempt_completion`'s `result`,
//!   `ask_followup_question`'s `question`, `plan_mode_respond`'s
//!   `response`. A message the extension rewrote (on resuming, or after a
//!   checkpoint restore) has a new fingerprint in its id, so the
//!   conversation branches there and the file's is the active branch.
//! - Claude Code: the prompt and summary of a compaction's summariser
//!   (`subagents/agent-acompact-*.jsonl`) are stored as `system`, so that a
//!   summary never repeats the hits of what it summarises; a message typed
//!   while the agent was busy (a `queue-operation` enqueued it) follows the
//!   previous message, not the stale parent it was written with; a
//!   compaction boundary whose logical parent is not in the file continues
//!   after the previous message, silently.
//! - OpenCode and Kilo: text parts are searchable, `synthetic` ones (text OpenCode
//!   wrote, such as an attached file's content) context; reasoning, tool
//!   calls with their output (kept in the answer that made them), files,
//!   patches, snapshots and the other parts are stored under their types,
//!   not searchable; a compaction's summary is `system`. OpenCode writes an
//!   answer's parts as they come: one imported while it was being written
//!   takes the content of its files at the next import
//!   ([`FileReport::updated`]). A message or part file that cannot be read,
//!   is cut off or is not JSON is reported as [`Issue::SkippedFile`] and
//!   left out; its message is never rewritten from the rest. A session's
//!   message files are its [`companion_files`]. In the database, a message
//!   or part whose `data` is not JSON is reported with its session's
//!   number and its id, and left out the same way. The database holds what
//!   OpenCode copied from its storage, with the same ids: a session read
//!   from both is stored once.
//! - The host's entry id goes in `messages.message_id` (Codex rollouts have
//!   none: the line number, `L<n>`, stands in). Parents are mapped to
//!   `messages.id`, through entries that are not messages (progress, model
//!   changes, …). The active branch is the path to the last message, or to
//!   where a later entry naming a leaf (`leafId`) moved it.
//!   Tool results that parallel tool calls made siblings are chained
//!   instead, so that all of them stay on the active branch.
//!   A data export names the branch its service shows (ChatGPT's
//!   `current_node`, Claude.ai's `current_leaf_message_uuid`, else its
//!   latest message), and that holds even when a later export of the same
//!   conversations adds no message.
//! - Importing a file again adds only what is new: messages are looked up by
//!   `(session_key, message_id)` (an index that `sql/import.sql` adds). A
//!   message whose id is new but that the session holds under another id
//!   (the same role, time and content, not yet matched in this file) is
//!   that message: a host that rewrote its file with new ids (pi's format
//!   upgrade) adds nothing.
//! - Where each session came from, its [`Origin`]: format, the host's id for
//!   it and the working directory it ran in (Claude Code entries' `cwd`, the
//!   Codex `session_meta`, OpenClaw session header's, an OpenCode
//!   session's `directory` or its answers' `path.cwd`, Hermes's `sessions.cwd`, a Cline task's
//!   workspace), in a table of `sql/import.sql` that no SQL function needs;
//!   read it with [`origin`].
//!
//! A file that is one JSON document (a data export) is read record by record
//! (each conversation of its array), never whole; what follows the last
//! complete record, cut off or not JSON, is reported at that record's
//! number, and the records before it are imported.
//!
//! A database (Hermes's `state.db`, Cursor's `state.vscdb`, OpenCode's
//! `opencode.db`, Kilo's `kilo.db`) is opened read-only and never written,
//! even while its tool has it open in WAL mode (its log, `<name>-wal`, is
//! one of its [`companion_files`]); a row that cannot be read is reported
//! with its row id (Hermes), its conversation's number in key order and
//! its key (Cursor), or its session's number in the order of creation and
//! its id (OpenCode), and a
//! query of the database that fails ends the file with a
//! [`FileProblem::Unreadable`], what was read before imported.
//!
//! Nothing in a file stops the import: a line holding several JSON objects
//! (a botched write) is read as that many entries; lines that are not JSON, cut off,
//! longer than [`ImportOptions::max_line_bytes`], or not understood are
//! skipped and reported with their line numbers ([`LineIssue`]); entries that
//! are not conversation are counted by type; a parent that never appears
//! attaches the message to the previous one; of two entries with one id the
//! first wins. Each file is written in one transaction, with deferred
//! indexing for the whole import, reconciled at the end.
//!
//! # Example
//!
//! ```
//! use session_search_import::{import_path, ImportOptions};
//! use session_search::{SearchRequest, Store};
//!
//! let dir = tempfile::tempdir()?;
//! let file = dir.path().join("rollout-2025-06-01T10-00-00-demo.jsonl");
//! std::fs::write(&file, concat!(
//!     r#"{"timestamp":"2025-06-01T10:00:00Z","type":"session_meta","payload":{"id":"demo","cwd":"/src"}}"#, "\n",
//!     r#"{"timestamp":"2025-06-01T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Why is the staging deploy slow?"}]}}"#, "\n",
//! ))?;
//!
//! let store = Store::open_in_memory()?;
//! let report = import_path(&store, &file, &ImportOptions::default())?;
//! assert_eq!(report.imported(), 1);
//!
//! let found = store.search(&SearchRequest::new("staging deploy", "codex:demo"))?;
//! assert_eq!(found.results[0].message_id, "L2");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod aider;
mod blocks;
mod chatgpt;
mod claude_ai;
mod claude_code;
mod cline;
mod codex;
mod cursor;
mod database;
mod gemini_cli;
mod hermes;
mod lines;
mod locations;
mod openclaw;
mod opencode;
mod origin;
mod records;
mod registry;
mod resolve;
mod specstory;
mod writer;

use lines::{Line, Lines};
pub use locations::{default_locations, formats_without_default_location, Location};
pub use origin::{origin, Origin};
use registry::{registered, Importer};
pub use resolve::resolve_session_key;
use rusqlite::TransactionBehavior;
use serde::Serialize;
use serde_json::Value;
use session_search::{Error, IndexingMode, Result, Store};
use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;
use writer::{SessionInfo, Writer};

const IMPORT_SQL: &str = include_str!("../sql/import.sql");

/// Lines read to recognise a file's format.
const DETECT_LINES: usize = 64;

/// Bytes read to find the first run of an Aider history.
const DETECT_TEXT_BYTES: u64 = 64 << 10;

/// How long a transcript must have gone unwritten for its last turn to
/// count as finished: a Codex answer that only an `agent_message` event
/// holds is then stored, though no `task_complete` ended its turn.
/// `session-search sync --watch` waits as long after a change before it
/// reads, so a turn that a pass finds still quiet is over.
pub const QUIET_TIME: Duration = Duration::from_millis(300);

/// Rows per reconciliation slice after an import.
const RECONCILE_ROWS: i64 = 5000;

/// A transcript format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Claude Code session files.
    ClaudeCode,
    /// OpenClaw and pi-agent session files.
    OpenClaw,
    /// Codex CLI rollout files.
    Codex,
    /// ChatGPT data exports (`conversations.json`).
    ChatGpt,
    /// Claude.ai data exports (`conversations.json`).
    ClaudeAi,
    /// Gemini CLI sessions.
    GeminiCli,
    /// Aider chat histories (`.aider.chat.history.md`).
    Aider,
    /// Hermes Agent's session store (`state.db`), session logs
    /// (`session_<id>.json`) and gateway transcripts (`<id>.jsonl`).
    Hermes,
    /// Cursor's chat databases (`state.vscdb`).
    Cursor,
    /// SpecStory's Markdown exports of chats (`.specstory/history/*.md`).
    SpecStory,
    /// OpenCode sessions: its database (`opencode.db`) and its older JSON
    /// storage (`storage/session/<project>/ses_*.json`, with their messages
    /// and parts beside them).
    OpenCode,
    /// Kilo's sessions, as its CLI (a fork of OpenCode) and the editor
    /// extension built on it keep them: `kilo.db`, or a JSON storage like
    /// OpenCode's.
    Kilo,
    /// Cline tasks (`tasks/<id>/api_conversation_history.json`).
    Cline,
    /// Roo Code tasks (`tasks/<id>/api_conversation_history.json`).
    RooCode,
    /// Kilo Code tasks, as its VS Code extension kept them before its CLI
    /// (`tasks/<id>/api_conversation_history.json`).
    KiloCode,
}

impl Format {
    /// Every format, in the order files are tested against them (the
    /// importers' registry).
    pub const ALL: [Format; 15] = registry::FORMATS;

    /// The name of every format, in [`Format::ALL`]'s order, as a list for
    /// people: `claude-code, openclaw, …`.
    pub fn names() -> String {
        let names: Vec<&str> = Format::ALL.iter().map(|format| format.name()).collect();
        names.join(", ")
    }

    /// The name used in session keys and on the command line.
    pub fn name(self) -> &'static str {
        registered(self).name
    }

    /// Whether its importer holds back what ends a file until the file has
    /// gone unwritten for [`QUIET_TIME`] (a Codex answer that only an event
    /// holds): a program that follows transcripts must read such a file
    /// again once it is quiet, even if it has not changed.
    pub fn waits_for_quiet(self) -> bool {
        self.importer().waits_for_quiet()
    }

    /// Whether a directory import reads a file named `name` to see if it
    /// is of this format (its content decides, see [`is_transcript_name`]).
    pub fn reads_file_named(self, name: &str) -> bool {
        self.importer().reads_file_named(name)
    }

    /// Its importer.
    fn importer(self) -> &'static dyn Importer {
        registered(self).importer
    }

    /// The format whose entries (or records) look like `entry`: Markdown
    /// and databases are recognised otherwise (see [`detect`]), and the
    /// members of a family by the place of what their family's first
    /// recognises.
    fn recognise(entry: &Value) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|format| format.importer().recognises(entry))
    }

    /// A reader for the file at `path`.
    fn open(self, path: &Path) -> Open {
        self.importer().open(self, path)
    }
}

impl Serialize for Format {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// How a format reads its files.
pub(crate) enum Open {
    /// Line by line (JSONL), one session per file.
    Lines(Opened),
    /// As JSON records (a document, or a stream of them), any number of
    /// sessions per file; see [`records`].
    Records(records::Opened),
    /// As text (not JSON), any number of sessions per file.
    Text {
        reader: Box<dyn records::TextReader>,
        agent_id: String,
    },
    /// As a SQLite database, opened read-only, any number of sessions per
    /// file; see [`database`].
    Database(database::Opened),
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Format {
    type Err = UnknownFormatName;

    fn from_str(name: &str) -> std::result::Result<Format, UnknownFormatName> {
        Format::ALL
            .into_iter()
            .find(|format| format.name() == name)
            .ok_or_else(|| UnknownFormatName(name.to_owned()))
    }
}

/// A transcript format name that is not one the importers know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormatName(pub String);

impl fmt::Display for UnknownFormatName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown transcript format {:?}; known formats: {}",
            self.0,
            Format::names()
        )
    }
}

impl std::error::Error for UnknownFormatName {}

/// One line format's reading of a file's entries.
trait Reader {
    /// Reads one entry (a JSON object) and writes what it holds.
    fn entry(&mut self, entry: Value, out: &mut Writer<'_>) -> Result<()>;

    /// Called after the last line: writes what the reader kept back.
    fn finish(&mut self, _out: &mut Writer<'_>) -> Result<()> {
        Ok(())
    }
}

/// A line format's reader for one file, with what the file's path says.
struct Opened {
    reader: Box<dyn Reader>,
    /// The session as far as the path tells; entries may name it instead.
    session: SessionInfo,
    agent_id: String,
}

/// How [`import_path`] imports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// Read every file as this format instead of recognising it.
    pub format: Option<Format>,
    /// The `agent_id` of every session created, instead of the format's
    /// default (see [`crate`]).
    pub agent_id: Option<String>,
    /// Longer lines are skipped and reported (default 32 MiB).
    pub max_line_bytes: usize,
    /// Index everything imported before returning (default). Without it,
    /// call [`Store::reconcile`] afterwards, or let searches and the
    /// background thread do it.
    pub reconcile: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            format: None,
            agent_id: None,
            max_line_bytes: 32 << 20,
            reconcile: true,
        }
    }
}

/// What an import did, file by file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ImportReport {
    /// Every file looked at, in path order.
    pub files: Vec<FileReport>,
}

impl ImportReport {
    /// Sessions created.
    pub fn sessions_created(&self) -> usize {
        self.files.iter().map(|f| f.sessions_created).sum()
    }

    /// Messages written.
    pub fn imported(&self) -> usize {
        self.files.iter().map(|f| f.imported).sum()
    }

    /// Messages found in the database already (an earlier import).
    pub fn already_present(&self) -> usize {
        self.files.iter().map(|f| f.already_present).sum()
    }

    /// Messages rewritten because the host completed them since.
    pub fn updated(&self) -> usize {
        self.files.iter().map(|f| f.updated).sum()
    }

    /// Messages removed as split off another by a damaged earlier read.
    pub fn removed(&self) -> usize {
        self.files.iter().map(|f| f.removed).sum()
    }

    /// Entries that are not conversation, counted by type over all files.
    pub fn skipped_types(&self) -> BTreeMap<&str, usize> {
        let mut total = BTreeMap::new();
        for (kind, n) in self.files.iter().flat_map(|f| &f.skipped_types) {
            *total.entry(kind.as_str()).or_default() += n;
        }
        total
    }

    /// Every line issue, with its file.
    pub fn issues(&self) -> impl Iterator<Item = (&Path, &LineIssue)> {
        self.files
            .iter()
            .flat_map(|f| f.issues.iter().map(|issue| (f.path.as_path(), issue)))
    }

    /// Lines not imported, with their files.
    pub fn skipped_lines(&self) -> impl Iterator<Item = (&Path, &LineIssue)> {
        self.issues().filter(|(_, issue)| issue.issue.skips_line())
    }
}

/// What the import of one file did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileReport {
    /// The file.
    pub path: PathBuf,
    /// Its format; `None` when it was not recognised or could not be read.
    pub format: Option<Format>,
    /// The session its messages went to (for a file holding several, such
    /// as a data export, the first); `None` when it had none.
    pub session_key: Option<String>,
    /// The sessions it holds messages of.
    pub sessions: usize,
    /// Of those, the sessions created by this import.
    pub sessions_created: usize,
    /// Messages written.
    pub imported: usize,
    /// Messages the database had already.
    pub already_present: usize,
    /// Messages the database had already whose content the host has since
    /// completed (an OpenCode answer imported while it was being written),
    /// or that an earlier read of a damaged text transcript stored with
    /// other content or after another message: rewritten and indexed again.
    pub updated: usize,
    /// Messages an earlier read of this text transcript, damaged then,
    /// stored as turns of their own, and which this read found inside
    /// another message: removed (see [`FileReport::updated`] for the
    /// message that holds them now).
    pub removed: usize,
    /// Entries that are not conversation (progress, snapshots, model
    /// changes, unknown types, …), by type.
    pub skipped_types: BTreeMap<String, usize>,
    /// Lines skipped or repaired, in line order.
    pub issues: Vec<LineIssue>,
    /// Why the file, or its rest, was not read.
    pub problem: Option<FileProblem>,
}

impl FileReport {
    fn new(path: &Path) -> FileReport {
        FileReport {
            path: path.to_owned(),
            format: None,
            session_key: None,
            sessions: 0,
            sessions_created: 0,
            imported: 0,
            already_present: 0,
            updated: 0,
            removed: 0,
            skipped_types: BTreeMap::new(),
            issues: Vec::new(),
            problem: None,
        }
    }
}

/// Why a file was not imported, or not to its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum FileProblem {
    /// Reading failed (what was read before is imported).
    Unreadable(String),
    /// No entry of its first lines is one of a known format.
    UnknownFormat,
}

impl fmt::Display for FileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileProblem::Unreadable(error) => write!(f, "cannot read: {error}"),
            FileProblem::UnknownFormat => write!(
                f,
                "not a transcript of a known format ({})",
                Format::names()
            ),
        }
    }
}

/// A line skipped, or imported with a repair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LineIssue {
    /// Line number, from 1; in a file read as JSON records (a data export),
    /// the number of the record, e.g. the conversation, from 1.
    pub line: usize,
    /// What was wrong.
    pub issue: Issue,
}

/// What was wrong with a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Issue {
    /// Not JSON (a comment, binary data, a broken line); skipped.
    NotJson {
        /// The parser's complaint.
        error: String,
    },
    /// The last line has no newline and is not complete JSON: the file was
    /// cut off, or is still being written. Skipped; a later import of the
    /// grown file picks it up.
    Truncated,
    /// Longer than [`ImportOptions::max_line_bytes`]; skipped unread.
    TooLong {
        /// Its length.
        bytes: u64,
        /// The limit.
        limit: usize,
    },
    /// JSON, but not an entry of the file's format as expected; skipped.
    NotUnderstood {
        /// What is missing or wrong.
        reason: String,
    },
    /// An id seen on an earlier line; skipped, the first entry wins.
    DuplicateId {
        /// The id.
        id: String,
        /// The line of the entry kept.
        first_line: usize,
    },
    /// The parent id never appears; the message was imported after the
    /// previous message.
    UnknownParent {
        /// The parent id.
        parent: String,
    },
    /// A leaf entry names no message; ignored.
    UnknownLeaf {
        /// The leaf id.
        leaf: String,
    },
    /// A file the session is read from besides the one imported (an
    /// OpenCode message or part, a Cline task's `ui_messages.json` for its
    /// times) could not be read, is cut off or is not JSON; what it lacked
    /// is skipped, the rest of the session imported.
    SkippedFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

impl Issue {
    /// Whether the line was left out (all but a repaired parent).
    pub fn skips_line(&self) -> bool {
        !matches!(self, Issue::UnknownParent { .. })
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Issue::NotJson { error } => write!(f, "skipped: not JSON ({error})"),
            Issue::Truncated => write!(
                f,
                "skipped: the last line is cut off (no newline, incomplete JSON)"
            ),
            Issue::TooLong { bytes, limit } => write!(
                f,
                "skipped: the line has {bytes} bytes, over the limit of {limit}"
            ),
            Issue::NotUnderstood { reason } => write!(f, "skipped: {reason}"),
            Issue::DuplicateId { id, first_line } => write!(
                f,
                "skipped: id {id:?} was used on line {first_line} already"
            ),
            Issue::UnknownParent { parent } => write!(
                f,
                "parent {parent:?} never appears; attached to the previous message"
            ),
            Issue::UnknownLeaf { leaf } => {
                write!(f, "skipped: leaf {leaf:?} names no message")
            }
            Issue::SkippedFile { path, reason } => {
                write!(f, "skipped {}: {reason}", path.display())
            }
        }
    }
}

/// Imports the transcript at `path`, or every transcript under the
/// directory `path` ([`find_transcripts`]), like [`import_files`].
///
/// # Errors
///
/// [`Error::Io`] when `path` cannot be read; database failures. Problems
/// inside files are not errors: they are in the report.
pub fn import_path(store: &Store, path: &Path, options: &ImportOptions) -> Result<ImportReport> {
    let (files, mut report) = find_transcripts(path)?;
    report
        .files
        .extend(import_files(store, &files, options)?.files);
    report.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// Imports each of `files`, each in one transaction. Writes with deferred
/// indexing, then restores the indexing mode and, with
/// [`ImportOptions::reconcile`], indexes what was written.
///
/// # Errors
///
/// Database failures. Problems inside files are not errors: they are in the
/// report, one [`FileReport`] per file, in path order.
pub fn import_files(
    store: &Store,
    files: &[PathBuf],
    options: &ImportOptions,
) -> Result<ImportReport> {
    let mut report = ImportReport::default();
    store.connection().execute_batch(IMPORT_SQL)?;
    let previous = store.set_indexing(IndexingMode::Deferred)?;
    let written = files.iter().try_for_each(|file| -> Result<()> {
        report.files.push(import_file(store, file, options)?);
        Ok(())
    });
    let restored = store.set_indexing(previous);
    written?;
    restored?;
    if options.reconcile {
        while !store.reconcile(RECONCILE_ROWS)?.done {}
    }
    report.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(report)
}

/// The transcript at `path`, or the transcripts under the directory `path`
/// (recursively, in path order; see [`is_transcript_name`]), with a report
/// of the directories that could not be read. Symbolic links to
/// directories are not followed (they could loop).
///
/// # Errors
///
/// [`Error::Io`] when `path` cannot be read.
pub fn find_transcripts(path: &Path) -> Result<(Vec<PathBuf>, ImportReport)> {
    let mut report = ImportReport::default();
    let metadata = std::fs::metadata(path).map_err(|source| Error::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut files = Vec::new();
    if metadata.is_dir() {
        transcripts(path, &mut files, &mut report);
        // Databases first: a session that Hermes keeps in `state.db` and
        // in a JSON log is then read from the database.
        files.sort_by_cached_key(|file| (!is_database_name(file), file.clone()));
    } else {
        files.push(path.to_owned());
    }
    Ok((files, report))
}

/// Whether a directory import reads the file `path` (its content then
/// decides whether it is a transcript, and of which format): the names each
/// format's files have ([`Format::reads_file_named`]). That is `*.jsonl`;
/// an OpenClaw archive of one, `*.jsonl.reset.<time>` after `/new` or
/// `/reset` and `*.jsonl.deleted.<time>` after a deletion (an archive keeps
/// its session's header, so it imports into the same session as the file
/// it was renamed from); `conversations.json`, the conversations of a
/// ChatGPT or Claude.ai data export; `session-*.json`, a Gemini CLI
/// session; `.aider.chat.history.md`, Aider's chat history; `ses_*.json`
/// in a `session/<project>/` folder, an OpenCode session (whose messages and
/// parts, in other files, are read with it); `opencode.db` and
/// `opencode-<channel>.db`, OpenCode's database (`kilo.db`, `kilo-*.db`,
/// Kilo's); `api_conversation_history.json`,
/// a Cline, Roo Code or Kilo Code task's conversation (the task's
/// `ui_messages.json` and `history_item.json` are read beside it, not on
/// their own); `state.db`, `session_*.json` and `*.jsonl`, Hermes Agent's
/// session store, logs and gateway transcripts; `state.vscdb`, Cursor's
/// database; and `<YYYY-MM-DD>_<time>-<title>.md`, SpecStory's exports. No other `*.json`
/// file is read (Gemini CLI's `logs.json`, which repeats the prompts of its
/// sessions, neither). A directory import reads the databases first, so
/// that a session Hermes keeps in both is read from `state.db`, and one
/// OpenCode copied from its storage into its database, from the database.
pub fn is_transcript_name(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
        return false;
    };
    Format::ALL.into_iter().any(|format| {
        let importer = format.importer();
        importer.reads_file_named(name) && importer.reads_path(path)
    })
}

/// The files besides the transcript `path` that its session is read from,
/// whose changes are changes of the transcript (a program that follows
/// transcripts by their files' stamps must watch them too): an OpenCode
/// session file's message files, which a new message adds to and a
/// finished answer rewrites; a database's write-ahead log, `<name>-wal`,
/// where a tool that has it open in WAL mode writes (the database file
/// itself may keep its size and time until the log is copied into it),
/// when it holds something (a reader may leave an empty one). None for the
/// other formats, whose sessions are each one file.
pub fn companion_files(path: &Path) -> Vec<PathBuf> {
    let mut log = path.as_os_str().to_owned();
    log.push("-wal");
    let log = PathBuf::from(log);
    let written = std::fs::metadata(&log).is_ok_and(|log| log.is_file() && log.len() > 0);
    if written && database::is_database(path).unwrap_or(false) {
        return vec![log];
    }
    match opencode::is_session_path(path) {
        true => opencode::message_files(path),
        false => Vec::new(),
    }
}

/// Whether `path` is named as a database a directory import reads (see
/// [`Importer::is_database_name`]).
fn is_database_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| {
            Format::ALL
                .into_iter()
                .any(|format| format.importer().is_database_name(name))
        })
}

/// Adds the transcripts under `dir` to `files`; a directory that cannot be
/// read goes into the report.
fn transcripts(dir: &Path, files: &mut Vec<PathBuf>, report: &mut ImportReport) {
    let unreadable = |report: &mut ImportReport, path: &Path, e: std::io::Error| {
        let mut file = FileReport::new(path);
        file.problem = Some(FileProblem::Unreadable(e.to_string()));
        report.files.push(file);
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => return unreadable(report, dir, e),
    };
    for entry in entries {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => return unreadable(report, dir, e),
        };
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => transcripts(&path, files, report),
            Ok(_) if is_transcript_name(&path) && path.is_file() => files.push(path),
            Ok(_) => {}
            Err(e) => unreadable(report, &path, e),
        }
    }
}

/// The format of the file at `path`, from its first entries, else its first
/// JSON record (a document spread over lines), else its name. A Cline task's
/// conversation is Roo Code's or Kilo Code's when the folder it is in says
/// so ([`cline::member`]), an OpenCode database or session Kilo's when
/// its place does ([`opencode::member`]).
fn detect(path: &Path, max_line_bytes: usize) -> std::io::Result<Option<Format>> {
    let detected = match database::is_database(path)? {
        true => database::detect(path),
        false => detect_content(path, max_line_bytes)?,
    };
    Ok(detected.map(|format| format.importer().member(path).unwrap_or(format)))
}

/// [`detect`] by content alone.
fn detect_content(path: &Path, max_line_bytes: usize) -> std::io::Result<Option<Format>> {
    let from_lines = detect_lines(path, max_line_bytes)?;
    if from_lines.is_some() {
        return Ok(from_lines);
    }
    // Only formats read as records: a JSON array of another format's
    // entries is not one of its transcripts.
    let from_record = records::first_record(&mut BufReader::new(File::open(path)?))
        .and_then(|record| Format::recognise(&record))
        .filter(|format| matches!(format.open(path), Open::Records(_)));
    if from_record.is_some() {
        return Ok(from_record);
    }
    let from_text = detect_text(path, max_line_bytes)?;
    if from_text.is_some() {
        return Ok(from_text);
    }
    Ok(codex::named_like_a_rollout(path).then_some(Format::Codex))
}

/// The Markdown format of `path`: SpecStory's when its first line that is
/// not blank starts an export, Aider's when a line of its first
/// [`DETECT_TEXT_BYTES`] starts a run (a history may hold other lines
/// before its first run, which its import reports as skipped).
fn detect_text(path: &Path, max_line_bytes: usize) -> std::io::Result<Option<Format>> {
    let start = File::open(path)?.take(DETECT_TEXT_BYTES);
    let mut lines = Lines::new(BufReader::new(start), max_line_bytes);
    let mut first = true;
    while let Some((_, line)) = lines.next_line()? {
        let Line::Text { bytes, .. } = line else {
            first = false;
            continue;
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let recognised = Format::ALL
            .into_iter()
            .find(|format| format.importer().recognises_text(&text, first));
        if recognised.is_some() {
            return Ok(recognised);
        }
        first = false;
    }
    Ok(None)
}

/// The format of the first of the first lines of `path` that is recognised.
fn detect_lines(path: &Path, max_line_bytes: usize) -> std::io::Result<Option<Format>> {
    let mut lines = Lines::new(BufReader::new(File::open(path)?), max_line_bytes);
    for _ in 0..DETECT_LINES {
        let Some((_, line)) = lines.next_line()? else {
            break;
        };
        if let Line::Text { bytes, .. } = line {
            let recognised = serde_json::from_slice::<Value>(&bytes)
                .ok()
                .and_then(|entry| Format::recognise(&entry));
            if recognised.is_some() {
                return Ok(recognised);
            }
        }
    }
    Ok(None)
}

/// Imports one file in one transaction.
fn import_file(store: &Store, path: &Path, options: &ImportOptions) -> Result<FileReport> {
    let mut report = FileReport::new(path);
    let opened = options
        .format
        .map_or_else(|| detect(path, options.max_line_bytes), |f| Ok(Some(f)))
        .and_then(|format| Ok((format, File::open(path)?)));
    let (format, file) = match opened {
        Ok((Some(format), file)) => (format, file),
        Ok((None, _)) => {
            report.problem = Some(FileProblem::UnknownFormat);
            return Ok(report);
        }
        Err(e) => {
            report.problem = Some(FileProblem::Unreadable(e.to_string()));
            return Ok(report);
        }
    };
    report.format = Some(format);
    // Immediate: the file's first statements only read, and a deferred
    // transaction could not turn into a writer once another connection has
    // committed in between.
    let transaction =
        rusqlite::Transaction::new_unchecked(store.connection(), TransactionBehavior::Immediate)?;
    let failure = match format.open(path) {
        Open::Lines(opened) => read_lines(store, format, opened, file, options, &mut report)?,
        Open::Records(records::Opened {
            mut reader,
            agent_id,
        }) => {
            let agent_id = options.agent_id.clone().unwrap_or(agent_id);
            let mut sessions = records::Sessions::new(store, format, agent_id, &mut report);
            records::read(&mut BufReader::new(file), reader.as_mut(), &mut sessions)?
                .err()
                .map(|e| FileProblem::Unreadable(e.to_string()))
        }
        Open::Text {
            mut reader,
            agent_id,
        } => {
            let agent_id = options.agent_id.clone().unwrap_or(agent_id);
            let mut sessions = records::Sessions::new(store, format, agent_id, &mut report);
            reader
                .read(
                    &mut BufReader::new(file),
                    options.max_line_bytes,
                    &mut sessions,
                )?
                .err()
                .map(|e| FileProblem::Unreadable(e.to_string()))
        }
        Open::Database(database::Opened {
            mut reader,
            agent_id,
        }) => {
            let agent_id = options.agent_id.clone().unwrap_or(agent_id);
            let mut sessions = records::Sessions::new(store, format, agent_id, &mut report);
            match database::open_read_only(path) {
                Ok(db) => reader.read(&db, &mut sessions)?,
                Err(e) => Err(e),
            }
            .err()
            .map(|e| FileProblem::Unreadable(e.to_string()))
        }
    };
    transaction.commit()?;
    report.problem = failure;
    Ok(report)
}

/// Reads a line format's file into its one session; returns why the file
/// could not be read to its end.
fn read_lines(
    store: &Store,
    format: Format,
    opened: Opened,
    file: File,
    options: &ImportOptions,
    report: &mut FileReport,
) -> Result<Option<FileProblem>> {
    let Opened {
        mut reader,
        session,
        agent_id,
    } = opened;
    let agent_id = options.agent_id.clone().unwrap_or(agent_id);
    let mut failure = None;
    let mut writer = Writer::new(store, format, agent_id, session, report);
    let mut lines = Lines::new(BufReader::new(file), options.max_line_bytes);
    loop {
        match lines.next_line() {
            Ok(Some((number, line))) => {
                writer.set_line(number);
                read_line(line, options.max_line_bytes, reader.as_mut(), &mut writer)?;
            }
            Ok(None) => break,
            Err(e) => {
                failure = Some(FileProblem::Unreadable(e.to_string()));
                break;
            }
        }
    }
    reader.finish(&mut writer)?;
    writer.finish()?;
    Ok(failure)
}

/// Parses one line and hands it to the format's reader.
fn read_line(
    line: Line,
    limit: usize,
    reader: &mut dyn Reader,
    out: &mut Writer<'_>,
) -> Result<()> {
    let (bytes, complete) = match line {
        Line::TooLong { bytes } => {
            out.issue(Issue::TooLong { bytes, limit });
            return Ok(());
        }
        Line::Text { bytes, complete } => (bytes, complete),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    // A line normally holds one object; a botched write may have put two
    // or more on it without a newline between them: each is read.
    let objects = serde_json::Deserializer::from_slice(&bytes).into_iter::<Value>();
    for (part, object) in objects.enumerate() {
        out.set_part(part);
        match object {
            Ok(entry @ Value::Object(_)) => reader.entry(entry, out)?,
            Ok(_) => out.issue(Issue::NotUnderstood {
                reason: "not a JSON object".into(),
            }),
            Err(_) if !complete => {
                out.issue(Issue::Truncated);
                break;
            }
            Err(e) => {
                out.issue(Issue::NotJson {
                    error: e.to_string(),
                });
                break;
            }
        }
    }
    Ok(())
}

/// Whether the file at `path` has gone unwritten for [`QUIET_TIME`] (not
/// when its time cannot be read, or is in the future).
fn quiet(path: &Path) -> bool {
    std::fs::metadata(path)
        .and_then(|metadata| metadata.modified())
        .ok()
        .and_then(|modified| modified.elapsed().ok())
        .is_some_and(|age| age >= QUIET_TIME)
}

/// The name of `path`'s file without its extension, or `""`; for a
/// transcript, the name before `.jsonl`, so that an archived
/// `<id>.jsonl.reset.<time>` names the same session as `<id>.jsonl`.
fn file_stem(path: &Path) -> String {
    let Some(name) = path.file_name().map(|name| name.to_string_lossy()) else {
        return String::new();
    };
    match name.split_once(".jsonl") {
        Some((stem, _)) => stem.to_owned(),
        None => path
            .file_stem()
            .map(|stem| stem.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

/// The name of the directory `levels` above `path`'s file (1: the one it is
/// in), or `""`.
fn directory_name(path: &Path, levels: usize) -> String {
    path.ancestors()
        .nth(levels)
        .and_then(Path::file_name)
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}
