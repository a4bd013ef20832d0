//! Who may read what: the caller check and the visibility levels. The visible
//! set itself is computed inside each read query (`sql/visible.sql`), before
//! any limit, never as a list of sessions in Rust.

use crate::db::Connection;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Which sessions a caller may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// The caller's own session.
    #[serde(rename = "self")]
    Own,
    /// The caller and every session it spawned, transitively.
    #[default]
    Tree,
    /// Every session of the caller's agent.
    Agent,
    /// Every session in the database.
    All,
}

impl Visibility {
    /// The name `visible.sql` expects.
    pub fn name(self) -> &'static str {
        match self {
            Visibility::Own => "self",
            Visibility::Tree => "tree",
            Visibility::Agent => "agent",
            Visibility::All => "all",
        }
    }
}

/// The visibility actually applied: a sandboxed caller sees at most its tree.
pub fn effective(requested: Visibility, sandboxed: bool) -> Visibility {
    match requested {
        Visibility::Agent | Visibility::All if sandboxed => Visibility::Tree,
        other => other,
    }
}

/// The caller's session key, checked to exist (fail closed).
///
/// # Errors
///
/// [`Error::InvalidArgument`] when the caller is missing or names no session.
pub fn caller(db: &dyn Connection, function: &str, caller: Option<&str>) -> Result<String> {
    let Some(caller) = caller.filter(|c| !c.is_empty()) else {
        return Err(Error::InvalidArgument(format!(
            "{function}: options.caller is required: the session_key of the session asking"
        )));
    };
    let known = db.query_value(
        "SELECT EXISTS (SELECT 1 FROM sessions WHERE session_key = ?1)",
        &[caller.into()],
    )?;
    if known.as_i64() != Some(1) {
        return Err(Error::InvalidArgument(format!(
            "{function}: caller {caller:?} names no session"
        )));
    }
    Ok(caller.to_owned())
}

const TREE_SCOPE_WORD_SQL: &str = include_str!("../sql/scope_word.sql");

/// The word a search adds to its FTS5 query so that the index itself skips
/// what `visibility` hides from `caller` (see `session_search_scopes` in
/// `sql/schema.sql`); `None` for `all`. It only narrows the work:
/// `visible.sql` still decides what is visible.
///
/// # Errors
///
/// SQL errors.
pub fn scope_word(
    db: &dyn Connection,
    caller: &str,
    visibility: Visibility,
) -> Result<Option<String>> {
    let sql = match visibility {
        Visibility::All => return Ok(None),
        // A session deeper than the scope words go carries its ancestor's
        // word, not its own: `self` asks for the same word as `tree`.
        Visibility::Own | Visibility::Tree => TREE_SCOPE_WORD_SQL,
        Visibility::Agent => {
            "SELECT 'a' || lower(hex(agent_id)) FROM sessions WHERE session_key = ?1"
        }
    };
    let word = db.query_value(sql, &[caller.into()])?;
    Ok(word.as_str().map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sandboxed_callers_are_clamped_to_their_tree() {
        assert_eq!(effective(Visibility::All, true), Visibility::Tree);
        assert_eq!(effective(Visibility::Agent, true), Visibility::Tree);
        assert_eq!(effective(Visibility::Own, true), Visibility::Own);
        assert_eq!(effective(Visibility::All, false), Visibility::All);
    }

    #[test]
    fn visibility_names_parse_back() {
        for v in [
            Visibility::Own,
            Visibility::Tree,
            Visibility::Agent,
            Visibility::All,
        ] {
            let parsed: Visibility = serde_json::from_str(&format!("\"{}\"", v.name())).unwrap();
            assert_eq!(parsed, v);
        }
    }
}
