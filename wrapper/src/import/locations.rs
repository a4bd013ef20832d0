//! Where agent tools keep their transcripts when nobody moved them: the
//! folders and files that `session-search import` (with no path) and
//! `session-search sync` read.
//!
//! Each tool's folder is under a base directory that the tool's own
//! environment variable moves (the one the tool itself reads), else under
//! the home directory. The table is in [`TOOLS`]; [`default_locations`]
//! resolves it for an environment.

use std::ffi::OsString;
use std::path::PathBuf;

/// A folder (or file) where a tool writes its transcripts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The tool, for people.
    pub tool: &'static str,
    /// The folder or file.
    pub path: PathBuf,
}

/// One row of the table: a tool, its base directory (`$variable` when
/// set, else `home_folder` in the home directory) and its folders in it.
struct Tool {
    name: &'static str,
    variable: &'static str,
    home_folder: &'static str,
    folders: &'static [&'static str],
}

/// The default locations, tool by tool (the same on Linux, macOS and
/// Windows, where the home directory is `%USERPROFILE%`).
const TOOLS: &[Tool] = &[
    Tool {
        name: "Claude Code",
        variable: "CLAUDE_CONFIG_DIR",
        home_folder: ".claude",
        folders: &["projects"],
    },
    Tool {
        name: "Codex",
        variable: "CODEX_HOME",
        home_folder: ".codex",
        folders: &["sessions", "archived_sessions"],
    },
    Tool {
        name: "OpenClaw",
        variable: "OPENCLAW_STATE_DIR",
        home_folder: ".openclaw",
        folders: &["agents"],
    },
    Tool {
        name: "pi",
        variable: "PI_CODING_AGENT_DIR",
        home_folder: ".pi/agent",
        folders: &["sessions"],
    },
    // The variable stands for the home directory itself.
    Tool {
        name: "Gemini CLI",
        variable: "GEMINI_CLI_HOME",
        home_folder: "",
        folders: &[".gemini/tmp"],
    },
];

/// The default locations in the environment `var` reads (empty values
/// count as unset): every tool's folders, whether they exist or not. The
/// home directory is `HOME`, else `USERPROFILE`; to read another home
/// directory (a backup, another user's), answer only `HOME`.
///
/// # Errors
///
/// A message naming what to set when a tool's base directory depends on a
/// home directory that is not set.
///
/// # Example
///
/// ```
/// use session_search::import::default_locations;
///
/// let locations = default_locations(|name| (name == "HOME").then(|| "/home/ada".into()))?;
/// assert_eq!(locations[0].tool, "Claude Code");
/// assert_eq!(locations[0].path, std::path::Path::new("/home/ada/.claude/projects"));
/// # Ok::<(), String>(())
/// ```
pub fn default_locations(var: impl Fn(&str) -> Option<OsString>) -> Result<Vec<Location>, String> {
    let var = |name: &str| {
        var(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    let home = var("HOME").or_else(|| var("USERPROFILE"));
    let mut locations = Vec::new();
    for tool in TOOLS {
        let base = var(tool.variable)
            .or_else(|| home.as_ref().map(|home| home.join(tool.home_folder)))
            .ok_or_else(|| {
                format!(
                    "cannot find {}'s default folder: HOME is not set (set {} or HOME, or name the folders)",
                    tool.name, tool.variable
                )
            })?;
        locations.extend(tool.folders.iter().map(|folder| Location {
            tool: tool.name,
            path: base.join(folder),
        }));
    }
    Ok(locations)
}
