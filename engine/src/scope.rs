//! Who may read what: the caller check and the visibility levels. The visible
//! set itself is computed inside each read query (`sql/visible.sql`), before
//! any limit, never as a list of sessions in Rust.

use crate::db::Connection;
use crate::error::{Error, Result};
use crate::index_tokens::encoding::{AGENT_SCOPE_TAG, TREE_SCOPE_TAG};
use crate::index_tokens::scope_words;
use crate::tokenizer::MAX_TOKEN_BYTES;
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

/// Whether every session belongs to one agent: the two ends of the agent
/// index, two lookups however many sessions there are.
const ONE_AGENT_SQL: &str =
    "SELECT (SELECT min(agent_id) FROM sessions) IS (SELECT max(agent_id) FROM sessions)";

/// The visibility that selects the same sessions as `visibility` at least
/// cost, in the snapshot the caller reads: `agent` is `all` when every
/// session belongs to one agent (the caller's, as the caller exists),
/// which is the common case of one database per agent. A search at `all`
/// reads the index without the agent's scope word, which holds every
/// message then, and checks no candidate's session.
///
/// # Errors
///
/// SQL errors.
pub fn cheapest(db: &dyn Connection, visibility: Visibility) -> Result<Visibility> {
    if visibility == Visibility::Agent && db.query_value(ONE_AGENT_SQL, &[])?.as_i64() == Some(1) {
        return Ok(Visibility::All);
    }
    Ok(visibility)
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

/// The agent of caller ?1 and its scope word (see
/// [`scope_words`]): [`AGENT_SCOPE_TAG`] and the hex of its `agent_id`.
const AGENT_SCOPE_WORD_SQL: &str =
    "SELECT agent_id, 'a' || lower(hex(agent_id)) FROM sessions WHERE session_key = ?1";
const IN_TREE_SQL: &str = include_str!("../sql/in_tree.sql");

/// Whether session ?1 is caller ?2 and exists.
const SAME_SQL: &str = "SELECT ?1 = ?2 AND EXISTS (SELECT 1 FROM sessions WHERE session_key = ?1)";

/// Whether session ?1 and caller ?2 exist.
const EXISTS_SQL: &str = "SELECT EXISTS (SELECT 1 FROM sessions WHERE session_key = ?1) \
     AND EXISTS (SELECT 1 FROM sessions WHERE session_key = ?2)";

/// Whether session ?1 belongs to the agent of caller ?2.
const OF_AGENT_SQL: &str = "SELECT EXISTS (SELECT 1 FROM sessions s JOIN sessions c \
     ON c.agent_id = s.agent_id WHERE s.session_key = ?1 AND c.session_key = ?2)";

/// The word a search adds to its FTS5 query so that the index itself skips
/// what a visibility hides from the caller (see `session_search_scopes` in
/// `sql/schema.sql`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeWord {
    /// The word, as the scope column holds it.
    pub word: String,
    /// The messages holding the word are exactly those the caller may see:
    /// at `tree`, it is the caller's own word (the caller is at most 3
    /// levels below the top of its spawn chain); at `agent`, the agent's;
    /// and it is short enough that no other key's word can share it. A
    /// search then need not check each candidate's session; it checks the
    /// sessions of the rows it returns ([`sees`]) instead.
    pub decides: bool,
}

/// The scope word of a search by `caller` at `visibility`; `None` for
/// `all`. Unless [`ScopeWord::decides`], it only narrows the work:
/// `visible.sql` still decides what is visible.
///
/// # Errors
///
/// SQL errors.
pub fn scope_word(
    db: &dyn Connection,
    caller: &str,
    visibility: Visibility,
) -> Result<Option<ScopeWord>> {
    let (sql, tag) = match visibility {
        Visibility::All => return Ok(None),
        // A session deeper than the scope words go carries its ancestor's
        // word, not its own: `self` asks for the same word as `tree`.
        Visibility::Own | Visibility::Tree => (TREE_SCOPE_WORD_SQL, TREE_SCOPE_TAG),
        Visibility::Agent => (AGENT_SCOPE_WORD_SQL, AGENT_SCOPE_TAG),
    };
    let row = db.query(sql, &[caller.into()])?;
    let Some([key, word]) = row.first().map(Vec::as_slice) else {
        return Ok(None);
    };
    let Some(word) = word.as_str().map(str::to_owned) else {
        return Ok(None);
    };
    // The word the key spells in a UTF-8 database; in a UTF-16 one hex()
    // spells other bytes: the words then differ and each candidate's
    // session is checked, as for any word not the caller's own.
    let own = key.as_str().map(|key| scope_words::word(tag, key));
    let decides = matches!(visibility, Visibility::Tree | Visibility::Agent)
        && own.as_deref() == Some(word.as_str())
        && word.len() <= MAX_TOKEN_BYTES;
    Ok(Some(ScopeWord { word, decides }))
}

/// Whether `caller` may see `session` at `visibility`, found from the
/// session itself (for `tree`, by walking up from it, at most 1 000
/// levels): when true, `visible.sql` says so too; a session more than
/// 1 000 levels below the caller is visible there but not found here.
///
/// # Errors
///
/// SQL errors.
pub fn sees(
    db: &dyn Connection,
    caller: &str,
    visibility: Visibility,
    session: &str,
) -> Result<bool> {
    let sql = match visibility {
        Visibility::Own => SAME_SQL,
        Visibility::Tree => IN_TREE_SQL,
        Visibility::Agent => OF_AGENT_SQL,
        Visibility::All => EXISTS_SQL,
    };
    let found = db.query_value(sql, &[session.into(), caller.into()])?;
    Ok(found.as_i64() == Some(1))
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
    fn the_agent_scope_word_is_spelt_as_the_index_holds_it() {
        let word = format!("'{AGENT_SCOPE_TAG}' || lower(hex(agent_id))");
        assert!(AGENT_SCOPE_WORD_SQL.contains(&word), "{word}");
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
