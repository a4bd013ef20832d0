//! The importers, one per format, in one table: the order files are tested
//! against them, their names, and through the [`Importer`] trait what each
//! knows of its files and where its tools keep them. A format is one file
//! implementing [`Importer`] and one line of [`REGISTRY`] (with its
//! [`Format`] variant).

use super::locations::Tool;
use super::{aider, chatgpt, claude_ai, claude_code, cline, codex, cursor};
use super::{gemini_cli, hermes, openclaw, opencode, specstory};
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

    /// Whether a file named `name` is a database of this format, which a
    /// directory import reads before the other files.
    fn is_database_name(&self, _name: &str) -> bool {
        false
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
    /// The tools that write it, each with its default folders (none for a
    /// format kept in each project or downloaded).
    pub tools: &'static [Tool],
}

/// Every format, in the order files are tested against them.
pub(crate) const REGISTRY: [Registered; 15] = [
    entry(
        Format::OpenClaw,
        "openclaw",
        &openclaw::OpenClawImporter,
        openclaw::TOOLS,
    ),
    entry(Format::Codex, "codex", &codex::CodexImporter, codex::TOOLS),
    entry(Format::ChatGpt, "chatgpt", &chatgpt::ChatGptImporter, &[]),
    entry(
        Format::ClaudeAi,
        "claude-ai",
        &claude_ai::ClaudeAiImporter,
        &[],
    ),
    // Before Claude Code, whose entries also carry a `sessionId`.
    entry(
        Format::GeminiCli,
        "gemini-cli",
        &gemini_cli::GeminiCliImporter,
        gemini_cli::TOOLS,
    ),
    entry(
        Format::Hermes,
        "hermes",
        &hermes::HermesImporter,
        hermes::TOOLS,
    ),
    entry(
        Format::ClaudeCode,
        "claude-code",
        &claude_code::ClaudeCodeImporter,
        claude_code::TOOLS,
    ),
    entry(Format::Aider, "aider", &aider::AiderImporter, &[]),
    entry(
        Format::Cursor,
        "cursor",
        &cursor::CursorImporter,
        cursor::TOOLS,
    ),
    entry(
        Format::SpecStory,
        "specstory",
        &specstory::SpecStoryImporter,
        &[],
    ),
    // The two write one format; where a file is tells which (see
    // [`super::opencode::member`]).
    entry(
        Format::OpenCode,
        "opencode",
        &opencode::OpenCodeImporter,
        opencode::OPENCODE_TOOLS,
    ),
    entry(
        Format::Kilo,
        "kilo",
        &opencode::KiloImporter,
        opencode::KILO_TOOLS,
    ),
    // The three write one format; the folder a task is in tells which (see
    // [`super::cline::member`]).
    entry(
        Format::Cline,
        "cline",
        &cline::ClineImporter,
        cline::CLINE_TOOLS,
    ),
    entry(
        Format::RooCode,
        "roo-code",
        &cline::MemberImporter,
        cline::ROO_CODE_TOOLS,
    ),
    entry(
        Format::KiloCode,
        "kilo-code",
        &cline::MemberImporter,
        cline::KILO_CODE_TOOLS,
    ),
];

/// A line of [`REGISTRY`].
const fn entry(
    format: Format,
    name: &'static str,
    importer: &'static dyn Importer,
    tools: &'static [Tool],
) -> Registered {
    Registered {
        format,
        name,
        importer,
        tools,
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

/// The formats that have default folders, in the order `import` (with no
/// path) and `sync` read and list their tools' folders.
const FOLDER_ORDER: [Format; 11] = [
    Format::ClaudeCode,
    Format::Codex,
    Format::OpenClaw,
    Format::GeminiCli,
    Format::OpenCode,
    Format::Kilo,
    Format::Cline,
    Format::RooCode,
    Format::KiloCode,
    Format::Hermes,
    Format::Cursor,
];

/// Every tool with default folders, in [`FOLDER_ORDER`] (a format's tools
/// in its line's order).
pub(crate) fn tools() -> impl Iterator<Item = &'static Tool> {
    FOLDER_ORDER
        .into_iter()
        .flat_map(|format| registered(format).tools)
}

/// The registry's line of `format`.
pub(crate) fn registered(format: Format) -> Registered {
    REGISTRY
        .into_iter()
        .find(|registered| registered.format == format)
        .expect("every format is registered")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_order_holds_each_format_with_folders_once() {
        for registered in REGISTRY {
            let places = FOLDER_ORDER
                .iter()
                .filter(|format| **format == registered.format)
                .count();
            assert_eq!(
                places,
                usize::from(!registered.tools.is_empty()),
                "{}",
                registered.name
            );
        }
    }
}
