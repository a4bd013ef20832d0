//! Aider chat histories: `.aider.chat.history.md` in a project's directory,
//! Markdown that aider appends to as it runs.
//!
//! Each run starts with `# aider chat started at <YYYY-MM-DD HH:MM:SS>` and
//! is a session of its own. In it, what the user typed is lines starting
//! with `#### ` (one message; a slash command such as `/add` too, as
//! typed); aider's own notes, prompts and command output are block quotes,
//! `> ` lines, stored as `system` (a note whose first line does not end in
//! aider's two-space line break runs on to the line that does); everything
//! else is the assistant's answer. Runs with neither a prompt nor an answer
//! (aider started and quit) are counted, not stored.
//!
//! A last line without its newline (aider is writing it, or the file was
//! cut off) is left out and reported, so a later import reads it whole.
//!
//! The file has no ids and no times but each run's start, the local time of
//! the machine, read as UTC: every message has its run's time, and its
//! first line's number, `L<n>`, as its id (stable as aider only appends).
//! The session is `aider:<directory>:<start>`, the directory being the
//! project the file is in; its agent that directory's name. Sessions are
//! linear.

use super::blocks::{text_block, user_message};
use super::records::{Sessions, TextLines, TextReader};
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo};
use super::{directory_name, Issue};
use super::{Format, Open};
use session_search::timestamp::parse_iso8601;
use session_search::{Result, Role};
use std::io::{self, BufRead};
use std::path::Path;

/// How a run starts.
const STARTED: &str = "# aider chat started at ";

/// The file name aider writes its history to.
pub(super) const FILE_NAME: &str = ".aider.chat.history.md";

/// Whether `line` starts a run (see [`super::detect_text`] for where).
pub(super) fn recognises(line: &str) -> bool {
    line.starts_with(STARTED)
}

/// A reader for the file at `path`, and its sessions' agent.
pub(super) fn open(path: &Path) -> (Box<dyn TextReader>, String) {
    let project = directory_name(path, 1);
    let agent_id = match project.is_empty() {
        true => "aider".to_owned(),
        false => project.clone(),
    };
    (Box::new(Aider { project }), agent_id)
}

/// The reader of one history file.
struct Aider {
    /// The name of the project directory the file is in.
    project: String,
}

/// What a line is part of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    User,
    Note,
    Answer,
}

/// A message being read: its kind, first line and text.
struct Message {
    part: Part,
    line: usize,
    text: String,
}

/// A run being read.
struct Run {
    start: String,
    line: usize,
    messages: Vec<Message>,
    /// A note whose last line had no line break yet: it goes on.
    note_open: bool,
    /// Inside a fenced code block of an answer, where `> ` and `#### `
    /// lines are the answer's.
    in_fence: bool,
}

impl Run {
    /// Appends a line to the last message when it is the same part, else
    /// starts a message with it.
    fn add(&mut self, part: Part, line: usize, text: &str) {
        match self.messages.last_mut() {
            Some(last) if last.part == part => {
                last.text.push('\n');
                last.text.push_str(text);
            }
            _ => self.messages.push(Message {
                part,
                line,
                text: text.to_owned(),
            }),
        }
    }

    /// Adds a line of the run to the message it is part of: what the user
    /// typed, a note, or the answer.
    fn read_line(&mut self, number: usize, line: &str) {
        // Aider ends each line of a prompt and of a note with a
        // two-space line break, and quotes a note with `> `; inside an
        // answer's code fence, only a line with the break is not the
        // answer's.
        let broken = line.ends_with("  ");
        let quoted =
            line.starts_with("> ") || (line.starts_with('>') && line[1..].trim().is_empty());
        let typed = line.starts_with("####") && broken;
        let note = quoted && (broken || !self.in_fence);
        if typed {
            self.note_open = false;
            self.in_fence = false;
            let text = line.strip_prefix("#### ").unwrap_or(&line[4..]);
            self.add(Part::User, number, text.trim_end());
        } else if note {
            self.in_fence = false;
            let text = line[1..].strip_prefix(' ').unwrap_or(&line[1..]);
            self.note_open = !broken && !text.trim().is_empty();
            self.add(Part::Note, number, text.trim_end());
        } else if self.note_open {
            self.note_open = !broken;
            self.add(Part::Note, number, line.trim_end());
        } else if !line.trim().is_empty() || self.in_fence {
            if line.trim_start().starts_with("```") {
                self.in_fence = !self.in_fence;
            }
            self.add(Part::Answer, number, line);
        } else if let Some(last) = self.messages.last_mut() {
            // A blank line belongs to the answer it is in.
            if last.part == Part::Answer {
                last.text.push('\n');
            }
        }
    }
}

impl TextReader for Aider {
    fn read(
        &mut self,
        input: &mut dyn BufRead,
        limit: usize,
        out: &mut Sessions<'_>,
    ) -> Result<io::Result<()>> {
        let mut lines = TextLines::new(input, limit);
        let mut run: Option<Run> = None;
        let mut before = 0;
        loop {
            let (number, line, complete) = match lines.next(out) {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => {
                    if let Some(run) = run.take() {
                        self.write(run, out)?;
                    }
                    return Ok(Err(e));
                }
            };
            // Aider ends every line it writes: one without its newline is
            // being written, or was cut off. Read again once whole.
            if !complete {
                out.set_record(number);
                out.issue(Issue::Truncated);
                continue;
            }
            let line = line.as_str();
            if let Some(start) = line.strip_prefix(STARTED) {
                if let Some(done) = run.take() {
                    self.write(done, out)?;
                }
                run = Some(Run {
                    start: start.trim().to_owned(),
                    line: number,
                    messages: Vec::new(),
                    note_open: false,
                    in_fence: false,
                });
                continue;
            }
            let Some(run) = run.as_mut() else {
                before += usize::from(!line.trim().is_empty());
                continue;
            };
            run.read_line(number, line);
        }
        if let Some(run) = run.take() {
            self.write(run, out)?;
        }
        if before > 0 {
            out.set_record(1);
            out.issue(Issue::NotUnderstood {
                reason: format!("{before} lines before the first \"{}\"", STARTED.trim()),
            });
        }
        Ok(Ok(()))
    }
}

impl Aider {
    /// Writes a run as a session.
    fn write(&self, run: Run, out: &mut Sessions<'_>) -> Result<()> {
        out.set_record(run.line);
        if !run.messages.iter().any(|m| m.part != Part::Note) {
            out.skip("run without conversation");
            return Ok(());
        }
        // `2025-07-15 11:38:37`, local time without a zone: read as UTC.
        let time = parse_iso8601(&format!("{}Z", run.start.replacen(' ', "T", 1))).ok();
        if time.is_none() {
            out.issue(Issue::NotUnderstood {
                reason: format!("the start time {:?} is not a date and time", run.start),
            });
        }
        let stamp = run.start.replacen(' ', "T", 1);
        let id = match self.project.is_empty() {
            true => stamp,
            false => format!("{}:{stamp}", self.project),
        };
        let info = SessionInfo {
            host_id: id.clone(),
            id,
            spawned_by: None,
            created_at: time,
        };
        out.session(info, |out| {
            for message in run.messages {
                out.set_line(message.line);
                let text = message.text.trim_end();
                let (role, content) = match message.part {
                    Part::User => user_message(vec![text_block(text)]),
                    Part::Answer => (Role::Assistant, vec![text_block(text)]),
                    Part::Note => (Role::System, vec![text_block(text)]),
                };
                // A file cut at a line's end may have cut a message that
                // the next import reads longer: it then takes that text.
                out.positional_message(HostMessage {
                    id: format!("L{}", message.line),
                    parent: Parent::Previous,
                    role,
                    content,
                    created_at: time,
                })?;
            }
            Ok(())
        })
    }
}

/// The importer of Aider's chat histories.
pub(super) struct AiderImporter;

impl Importer for AiderImporter {
    fn reads_file_named(&self, name: &str) -> bool {
        name == FILE_NAME
    }

    /// A line of the file's first [`super::DETECT_TEXT_BYTES`] that starts a
    /// run (a history may hold other lines before its first run, which its
    /// import reports as skipped).
    fn recognises_text(&self, line: &str, _first: bool) -> bool {
        recognises(line)
    }

    fn open(&self, _format: Format, path: &Path) -> Open {
        let (reader, agent_id) = open(path);
        Open::Text { reader, agent_id }
    }
}
