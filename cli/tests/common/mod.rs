//! What the command-line tests share.

/// The variables that move the default locations (the tools' own, and the
/// data and config folders), removed so that a test's home is all a run
/// sees.
pub const LOCATION_VARIABLES: &[&str] = &[
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "OPENCLAW_STATE_DIR",
    "PI_CODING_AGENT_DIR",
    "GEMINI_CLI_HOME",
    "HERMES_HOME",
    "CLINE_DIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
];
