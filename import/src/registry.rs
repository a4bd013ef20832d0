//! The importers, one per format, in one table: the order files are tested
//! against them, their names, and through the [`Importer`] trait what each
//! knows of its files. A format is one file implementing [`Importer`] and
//! one line of [`REGISTRY`] (with its [`Format`] variant).

use super::{Format, Open};
use rusqlite::Connection;
use serde_json::Value;
use std::path::Path;

/// What one format's importer knows: which files it reads, how it
/// recognises them and how it opens them. Only [`Importer::open`] has no
/// default; a format recognised only by a file's place (a member of a
/// family, see [`Importer::member`]) recognises nothing itself.
pub(crate) trait Importer: Sync {
    /// Whether a directory import reads a file named `name` to see if it is
    /// of this format.
    fn reads_file_named(&self, name: &str) -> bool;

    /// Whether the file at `path`, whose name [`Importer::reads_file_named`]
    /// accepts, is one a directory import reads (a folder may keep other
    /// files so named).
    fn reads_path(&self, _path: &Path) -> bool {
        true
    }

    /// Whether a JSON entry (a line) or record (of a document) is this
    /// format's.
    fn recognises(&self, _entry: &Value) -> bool {
        false
    }

    /// Whether a line of a text file is this format's: its first line that
    /// is not blank when `first`.
    fn recognises_text(&self, _line: &str, _first: bool) -> bool {
        false
    }

    /// Whether a SQLite database, by its tables, is this format's.
    fn recognises_database(&self, _db: &Connection) -> bool {
        false
    }

    /// The format of the family this importer's formats make (tools that
    /// write one format) that the file at `path` belongs to, from its
    /// place; `None` for a format of its own.
    fn member(&self, _path: &Path) -> Option<Format> {
        None
    }

    /// A reader of the file at `path` as `format` (this importer's, or a
    /// member of its family).
    fn open(&self, format: Format, path: &Path) -> Open;

    /// The command that resumes a session of `format` whose host id is
    /// `host_id` in its host, when the host has one.
    fn resume_command(&self, _format: Format, _host_id: &str) -> Option<String> {
        None
    }

    /// Whether what ends a file is held back until the file has gone
    /// unwritten for [`super::QUIET_TIME`].
    fn waits_for_quiet(&self) -> bool {
        false
    }
}

/// One format in the registry.
#[derive(Clone, Copy)]
pub(crate) struct Registered {
    /// The format.
    pub format: Format,
    /// Its name, in session keys and on the command line.
    pub name: &'static str,
    /// Its importer.
    pub importer: &'static dyn Importer,
}

/// Every format, in the order files are tested against them.
pub(crate) const REGISTRY: [Registered; 15] = [
    entry(
        Format::OpenClaw,
        "openclaw",
        &super::openclaw::OpenClawImporter,
    ),
    entry(Format::Codex, "codex", &super::codex::CodexImporter),
    entry(Format::ChatGpt, "chatgpt", &super::chatgpt::ChatGptImporter),
    entry(
        Format::ClaudeAi,
        "claude-ai",
        &super::claude_ai::ClaudeAiImporter,
    ),
    // Before Claude Code, whose entries also carry a `sessionId`.
    entry(
        Format::GeminiCli,
        "gemini-cli",
        &super::gemini_cli::GeminiCliImporter,
    ),
    entry(Format::Hermes, "hermes", &super::hermes::HermesImporter),
    entry(
        Format::ClaudeCode,
        "claude-code",
        &super::claude_code::ClaudeCodeImporter,
    ),
    entry(Format::Aider, "aider", &super::aider::AiderImporter),
    entry(Format::Cursor, "cursor", &super::cursor::CursorImporter),
    entry(
        Format::SpecStory,
        "specstory",
        &super::specstory::SpecStoryImporter,
    ),
    // The two write one format; where a file is tells which (see
    // [`super::opencode::member`]).
    entry(
        Format::OpenCode,
        "opencode",
        &super::opencode::OpenCodeImporter,
    ),
    entry(Format::Kilo, "kilo", &super::opencode::KiloImporter),
    // The three write one format; the folder a task is in tells which (see
    // [`super::cline::member`]).
    entry(Format::Cline, "cline", &super::cline::ClineImporter),
    entry(Format::RooCode, "roo-code", &super::cline::MemberImporter),
    entry(Format::KiloCode, "kilo-code", &super::cline::MemberImporter),
];

/// A line of [`REGISTRY`].
const fn entry(format: Format, name: &'static str, importer: &'static dyn Importer) -> Registered {
    Registered {
        format,
        name,
        importer,
    }
}

/// Every format of [`REGISTRY`], in its order.
pub(crate) const FORMATS: [Format; REGISTRY.len()] = {
    let mut formats = [Format::OpenClaw; REGISTRY.len()];
    let mut i = 0;
    while i < REGISTRY.len() {
        formats[i] = REGISTRY[i].format;
        i += 1;
    }
    formats
};

/// The registry's line of `format`.
pub(crate) fn registered(format: Format) -> Registered {
    REGISTRY
        .into_iter()
        .find(|registered| registered.format == format)
        .expect("every format is registered")
}
