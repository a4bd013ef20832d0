//! Every reserved encoding of the index's own tokens, as constants: the
//! characters that start a token no text can spell and the tags that tell
//! the families apart. The table in the [module doc](super) says what each
//! means, with an example; the word tokenizer's own reserved strings
//! ([`RUN_BOUNDARY`](crate::tokenizer::RUN_BOUNDARY) and
//! [`REDACTED`](crate::tokenizer::REDACTED)) are defined there, below this
//! module, as the tokenizer reads and writes them in every table. Changing
//! any of these changes the token stream (bump
//! [`crate::tokenizer::TOKENIZER_VERSION`]).

/// Starts every auxiliary token (tier marker, pair token, prefix token): a
/// private-use character, which is no word character, so no word starts
/// with it; the query compiler takes it out of what users type.
pub const MARKER: char = '\u{E000}';

/// Follows [`MARKER`] in the marker of the best tier; the marker of tier
/// `n` (from 0) has the character `n` code points after it: `1` to `7`.
pub const FIRST_TIER_TAG: char = '1';

/// Follows [`MARKER`] in a pair token (`+the error`), and in a query
/// string whose words are matched with pair tokens.
pub const PAIRS_TAG: char = '+';

/// Follows [`MARKER`] in a prefix token (`*dep`).
pub const PREFIX_TAG: char = '*';

/// Follows [`MARKER`] in a prefix tail token (`~de`): a word here starts
/// with these two ASCII letters or digits and then another character.
pub const PREFIX_TAIL_TAG: char = '~';

/// Starts the text of the index's scope column (`session_search_scopes` in
/// `sql/schema.sql`, which writes it as `char(57345)`); a private-use
/// character, which is no word character. `sessions_text` never starts a
/// message's text with it.
pub const SCOPE_MARKER: &str = "\u{E001}";

/// Starts an agent's scope word, before the lower-case hex of its
/// `agent_id`.
pub const AGENT_SCOPE_TAG: char = 'a';

/// Starts a spawn tree's scope word, before the lower-case hex of a session
/// key.
pub const TREE_SCOPE_TAG: char = 't';

/// The scope word of the sessions whose `spawned_by` chain has no top (a
/// cycle, or a chain of 1000 steps or more): hex spells no `z`, so no key's
/// word is this one.
pub const NO_TOP_SCOPE_WORD: &str = "tz";

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA_SQL: &str = include_str!("../../sql/schema.sql");
    const SCOPE_WORD_SQL: &str = include_str!("../../sql/scope_word.sql");

    #[test]
    fn the_sql_writes_scope_words_as_the_constants_say() {
        let marker = SCOPE_MARKER.chars().map(u32::from).collect::<Vec<_>>();
        assert_eq!(marker, [57345]);
        let agent = format!("char(57345) || '{AGENT_SCOPE_TAG}' || lower(hex(s.agent_id))");
        assert!(SCHEMA_SQL.contains(&agent), "{agent}");
        let tree = format!(
            "THEN '{NO_TOP_SCOPE_WORD}'\n                       ELSE replace(group_concat('{TREE_SCOPE_TAG}' || lower(hex(key)))"
        );
        assert!(SCHEMA_SQL.contains(&tree), "{tree}");
        let caller =
            format!("THEN '{NO_TOP_SCOPE_WORD}' ELSE '{TREE_SCOPE_TAG}' || lower(hex(key)) END");
        assert!(SCOPE_WORD_SQL.contains(&caller), "{caller}");
    }

    #[test]
    fn the_markers_are_private_use_characters_and_the_tags_ascii() {
        for marker in [MARKER, SCOPE_MARKER.chars().next().unwrap_or_default()] {
            assert!(('\u{E000}'..='\u{F8FF}').contains(&marker));
            assert!(!marker.is_alphanumeric());
        }
        for tag in [FIRST_TIER_TAG, PAIRS_TAG, PREFIX_TAG] {
            assert!(tag.is_ascii());
        }
    }
}
