//! Where an imported session came from: the row the importers keep in
//! `session_search_origins` (see `sql/import.sql`).

use super::Format;
use rusqlite::OptionalExtension;
use session_search::{Result, Store};

/// Where an imported session came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The format of its transcript.
    pub format: Format,
    /// The host's own id for the session: the one its resume command takes
    /// (for a Claude Code subagent, the id of the session it ran in).
    pub host_id: String,
    /// The working directory it ran in, when the transcript names one.
    pub cwd: Option<String>,
}

impl Origin {
    /// The command that resumes the session in its host, for the formats
    /// that have one: `claude --resume <id>` (run in [`Origin::cwd`]: Claude
    /// Code finds sessions by project directory), `codex resume <id>`,
    /// `hermes --resume <id>`.
    /// `opencode --session <id>` (run in [`Origin::cwd`] too), `kilo
    /// --session <id>`.
    pub fn resume_command(&self) -> Option<String> {
        self.format
            .importer()
            .resume_command(self.format, &self.host_id)
    }
}

/// Where the session `session_key` came from; `None` for a session no
/// importer wrote (or imported before origins were recorded: importing its
/// transcript again records it), and for a row of a format unknown here.
///
/// # Errors
///
/// Database failures.
pub fn origin(store: &Store, session_key: &str) -> Result<Option<Origin>> {
    let conn = store.connection();
    let recorded = conn
        .prepare_cached(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_search_origins'",
        )?
        .exists([])?;
    if !recorded {
        return Ok(None);
    }
    let row = conn
        .prepare_cached(
            "SELECT format, host_id, cwd FROM session_search_origins WHERE session_key = ?1",
        )?
        .query_row([session_key], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, Option<String>>(2)?,
            ))
        })
        .optional()?;
    Ok(row.and_then(|(format, host_id, cwd)| {
        Some(Origin {
            format: format.parse().ok()?,
            host_id,
            cwd,
        })
    }))
}
