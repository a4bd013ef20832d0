//! Where agent tools keep their transcripts when nobody moved them: the
//! folders and files that `session-search import` (with no path) and
//! `session-search sync` read.
//!
//! Each tool's folder is under a base directory that the tool's own
//! environment variable moves (the one the tool itself reads), else under
//! the home directory. Each format's line of the registry names the tools
//! that write it and their folders ([`Tool`], in the order
//! [`super::registry::tools`] gives); [`default_locations`] resolves them
//! for an environment.

use super::registry::{registered, tools};
use super::Format;
use std::ffi::OsString;
use std::path::PathBuf;

/// The formats whose files have no default folder (a data export, a
/// transcript kept in each project): `import` and `sync` read them where
/// they are named.
pub fn formats_without_default_location() -> Vec<Format> {
    Format::ALL
        .into_iter()
        .filter(|format| registered(*format).tools.is_empty())
        .collect()
}

/// A folder (or file) where a tool writes its transcripts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The tool, for people.
    pub tool: &'static str,
    /// The folder or file.
    pub path: PathBuf,
}

/// A tool's default folders: its base directory (`$variable` when set,
/// else `home_folder` in the home directory) and its folders in it.
pub(crate) struct Tool {
    /// The tool, for people.
    pub name: &'static str,
    /// The environment variable that moves its base directory.
    pub variable: Option<&'static str>,
    /// Its base directory in the home directory.
    pub home_folder: &'static str,
    /// Its folders (or files) in its base directory, in the order read.
    pub folders: &'static [&'static str],
}

/// Where editors built on VS Code (VS Code, its Insiders build, VSCodium,
/// Cursor) keep their settings and extension data
/// (Electron's application data folder): its variable and its folder in the
/// home directory. The other tools' folders are the same on Linux, macOS
/// and Windows, where the home directory is `%USERPROFILE%`.
#[cfg(target_os = "macos")]
pub(crate) const EDITOR_DATA: (Option<&str>, &str) = (None, "Library/Application Support");
#[cfg(windows)]
pub(crate) const EDITOR_DATA: (Option<&str>, &str) = (Some("APPDATA"), "AppData/Roaming");
#[cfg(not(any(target_os = "macos", windows)))]
pub(crate) const EDITOR_DATA: (Option<&str>, &str) = (Some("XDG_CONFIG_HOME"), ".config");

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
/// use session_search_import::default_locations;
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
    for tool in tools() {
        let base = tool
            .variable
            .and_then(var)
            .or_else(|| home.as_ref().map(|home| home.join(tool.home_folder)))
            .ok_or_else(|| {
                let set = tool.variable.map_or("HOME".to_owned(), |v| format!("{v} or HOME"));
                format!(
                    "cannot find {}'s default folder: HOME is not set (set {set}, or name the folders)",
                    tool.name
                )
            })?;
        locations.extend(tool.folders.iter().map(|folder| Location {
            tool: tool.name,
            path: base.join(folder),
        }));
    }
    Ok(locations)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn paths(env: &[(&str, &str)]) -> Vec<(String, PathBuf)> {
        let env: Vec<(String, OsString)> = env
            .iter()
            .map(|(name, value)| (name.to_string(), OsString::from(value)))
            .collect();
        default_locations(|name| {
            env.iter()
                .find(|(n, _)| n == name)
                .map(|(_, value)| value.clone())
        })
        .unwrap()
        .into_iter()
        .map(|location| (location.tool.to_owned(), location.path))
        .collect()
    }

    fn of(locations: &[(String, PathBuf)], tool: &str) -> Vec<PathBuf> {
        locations
            .iter()
            .filter(|(name, _)| name == tool)
            .map(|(_, path)| path.clone())
            .collect()
    }

    #[test]
    fn each_tool_under_home_or_where_its_variable_moves_it() {
        let home = paths(&[("HOME", "/home/ada")]);
        assert_eq!(
            of(&home, "Hermes Agent"),
            [
                Path::new("/home/ada/.hermes/state.db"),
                Path::new("/home/ada/.hermes/sessions")
            ]
        );
        assert_eq!(
            of(&home, "Gemini CLI"),
            [Path::new("/home/ada/.gemini/tmp")]
        );
        assert_eq!(
            of(&home, "OpenCode"),
            [
                Path::new("/home/ada/.local/share/opencode/opencode.db"),
                Path::new("/home/ada/.local/share/opencode/storage")
            ]
        );
        #[cfg(target_os = "linux")]
        assert_eq!(
            of(&home, "Roo Code")[0],
            Path::new("/home/ada/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks")
        );
        #[cfg(target_os = "linux")]
        assert_eq!(
            of(&home, "Cursor")[0],
            Path::new("/home/ada/.config/Cursor/User/globalStorage/state.vscdb")
        );

        let moved = paths(&[
            ("HOME", "/home/ada"),
            ("CODEX_HOME", "/data/codex"),
            ("GEMINI_CLI_HOME", "/data/g"),
            ("XDG_CONFIG_HOME", "/cfg"),
            ("XDG_DATA_HOME", "/data/share"),
            ("CLAUDE_CONFIG_DIR", ""),
        ]);
        assert_eq!(
            of(&moved, "Codex"),
            [
                Path::new("/data/codex/sessions"),
                Path::new("/data/codex/archived_sessions")
            ]
        );
        assert_eq!(of(&moved, "Gemini CLI"), [Path::new("/data/g/.gemini/tmp")]);
        assert_eq!(of(&moved, "Kilo")[0], Path::new("/data/share/kilo/kilo.db"));
        // An empty variable is unset.
        assert_eq!(
            of(&moved, "Claude Code"),
            [Path::new("/home/ada/.claude/projects")]
        );
        #[cfg(target_os = "linux")]
        assert_eq!(
            of(&moved, "Cursor")[1],
            Path::new("/cfg/Cursor/User/workspaceStorage")
        );
    }

    #[test]
    fn formats_without_a_folder_are_those_kept_in_projects_or_downloaded() {
        assert_eq!(
            formats_without_default_location(),
            [
                Format::ChatGpt,
                Format::ClaudeAi,
                Format::Aider,
                Format::SpecStory
            ]
        );
    }

    #[test]
    fn without_a_home_the_error_names_what_to_set() {
        let error = default_locations(|_| None).unwrap_err();
        assert!(
            error.contains("Claude Code") && error.contains("CLAUDE_CONFIG_DIR or HOME"),
            "{error}"
        );
    }
}
