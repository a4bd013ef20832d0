//! The scope column's words: who may see a message, as words a search adds
//! to its FTS5 query so that the index itself skips what the caller cannot
//! see (`session_search_scopes` in `sql/schema.sql` writes them, and
//! [`crate::scope`] finds the one a search asks for).
//!
//! The column's text is [`SCOPE_MARKER`][marker], then the words
//! separated by spaces: [`AGENT_SCOPE_TAG`][agent] and the hex of the
//! session's `agent_id`, then [`TREE_SCOPE_TAG`][tree] and the hex of each
//! key of its `spawned_by` chain (or [`NO_TOP_SCOPE_WORD`][no top] alone
//! when the chain has no top). Its words share one position, so every
//! message's scope column is one token long whatever its session's depth,
//! and BM25 counts a message's length as its text's plus one, the same for
//! every session.
//!
//! [marker]: super::encoding::SCOPE_MARKER
//! [agent]: super::encoding::AGENT_SCOPE_TAG
//! [tree]: super::encoding::TREE_SCOPE_TAG
//! [no top]: super::encoding::NO_TOP_SCOPE_WORD

use crate::tokenizer::{Token, Tokenizer};

/// Tokenizes the scope column's `text` (which starts with
/// [`SCOPE_MARKER`](super::encoding::SCOPE_MARKER)) as `tokenizer` does,
/// every word after the first colocated with it: the column is one token
/// long, so a session's depth (how many scope words its messages carry)
/// never changes their length in BM25.
pub fn tokenize_scope<E>(
    tokenizer: &mut Tokenizer,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Result<(), E> {
    let mut first = true;
    tokenizer.tokenize(text, &mut |token| {
        let colocated = !first;
        first = false;
        emit(token, colocated)
    })
}

/// The scope word of `key` under `tag`
/// ([`AGENT_SCOPE_TAG`](super::encoding::AGENT_SCOPE_TAG) or
/// [`TREE_SCOPE_TAG`](super::encoding::TREE_SCOPE_TAG)): the tag, then the
/// lower-case hex of the key's UTF-8 bytes, as SQLite's `lower(hex(key))`
/// spells it in a UTF-8 database.
pub fn word(tag: char, key: &str) -> String {
    std::iter::once(tag)
        .chain(key.bytes().flat_map(|b| {
            [b >> 4, b & 0xf].map(|nibble| char::from_digit(u32::from(nibble), 16).unwrap_or('0'))
        }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::encoding::{SCOPE_MARKER, TREE_SCOPE_TAG};
    use super::*;

    #[test]
    fn the_words_of_a_scope_share_one_position() {
        let mut tokenizer = Tokenizer::default();
        let text = format!("{SCOPE_MARKER}a6f7073 t6d31 t6d32");
        let mut out = Vec::new();
        tokenize_scope::<()>(&mut tokenizer, text.as_bytes(), &mut |t, colocated| {
            out.push((t.text.to_owned(), colocated));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            out,
            [
                ("a6f7073".to_owned(), false),
                ("t6d31".to_owned(), true),
                ("t6d32".to_owned(), true)
            ]
        );
    }

    #[test]
    fn a_word_is_its_tag_and_the_hex_of_the_key() {
        assert_eq!(word(TREE_SCOPE_TAG, "m1"), "t6d31");
        assert_eq!(word(TREE_SCOPE_TAG, "é"), "tc3a9");
    }
}
