//! Pair tokens: fast phrases with common words.
//!
//! FTS5 finds a phrase by walking the position lists of all its words, so a
//! phrase with a word in most messages (`"the error"`, `"fix it now"`)
//! costs as much as that word's whole list, whatever the phrase's own
//! matches. So when a message is indexed, each [`COMMON_WORDS`] token that
//! another token follows also gets a pair token, colocated with it (so it
//! counts in no length): the marker, `+`, the common word, a space and the
//! next token. In a phrase the engine asks for pairs ([`PAIRS_TAG`]), each
//! common word that another word follows is then looked for as that pair:
//! the pair is at a position exactly when the common word is there and the
//! next word right after it, so the phrase matches the same messages, and
//! FTS5 walks the pair's short list instead of the common word's long one;
//! a phrase's last word right after a pair is left out, as the pair says
//! it is there. A common word that ends a phrase stays itself, as does
//! every word of a prefix term (its last word matches any word it starts).

use crate::tiers::MARKER;
use crate::tokenizer::{Token, Tokenizer, RUN_BOUNDARY};

/// The words whose pairs are indexed: English words found in a large share
/// of messages, sorted. Changing the list changes the token stream (bump
/// [`crate::tokenizer::TOKENIZER_VERSION`]).
pub const COMMON_WORDS: [&str; 20] = [
    "a", "and", "are", "as", "be", "for", "i", "in", "is", "it", "not", "of", "on", "or", "that",
    "the", "this", "to", "we", "you",
];

/// Starts a query string whose words are matched with pair tokens: the
/// marker, then this character.
pub const PAIRS_TAG: char = '+';

/// Whether `token` is one of [`COMMON_WORDS`]: asked of every indexed
/// token, so words are compared as numbers: their length and bytes.
pub fn is_common(token: &str) -> bool {
    token.len() <= 4 && COMMON_KEYS.contains(&packed(token.as_bytes()))
}

/// [`COMMON_WORDS`], each [`packed`].
const COMMON_KEYS: [u64; COMMON_WORDS.len()] = {
    let mut keys = [0; COMMON_WORDS.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = packed(COMMON_WORDS[i].as_bytes());
        i += 1;
    }
    keys
};

/// A word of at most four bytes as one number: its length, then its bytes.
const fn packed(word: &[u8]) -> u64 {
    let mut key = word.len() as u64;
    let mut i = 0;
    while i < word.len() {
        key = key << 8 | word[i] as u64;
        i += 1;
    }
    key
}

/// The pair token of `common` followed by `next`.
fn push_pair(out: &mut String, common: &str, next: &str) {
    out.clear();
    out.push(MARKER);
    out.push(PAIRS_TAG);
    out.push_str(common);
    out.push(' ');
    out.push_str(next);
}

/// Tokenizes a document as `tokenizer` does, adding after each common word
/// that another token follows its pair token (`emit`'s second argument
/// says the token is colocated with the one before).
pub fn tokenize_with_pairs<E>(
    tokenizer: &mut Tokenizer,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Result<(), E> {
    // The common word waiting for the token after it (its text is kept in
    // `common`, reused), and the pair's text.
    let mut waiting: Option<(usize, usize)> = None;
    let mut common = String::new();
    let mut pair = String::new();
    tokenizer.tokenize(text, &mut |token| {
        if let Some(span) = waiting.take() {
            emit_waiting(&common, span, Some(token.text), &mut pair, emit)?;
        }
        if is_common(token.text) {
            common.clear();
            common.push_str(token.text);
            waiting = Some((token.start, token.end));
            return Ok(());
        }
        emit(token, false)
    })?;
    match waiting {
        Some(span) => emit_waiting(&common, span, None, &mut pair, emit),
        None => Ok(()),
    }
}

/// Emits the common word that waited for the token after it (`next`, none
/// at the end of the text) and, unless that is a run boundary, their pair.
fn emit_waiting<E>(
    common: &str,
    (start, end): (usize, usize),
    next: Option<&str>,
    pair: &mut String,
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Result<(), E> {
    let word = Token {
        text: common,
        start,
        end,
    };
    emit(word, false)?;
    match next.filter(|next| *next != RUN_BOUNDARY) {
        Some(next) => {
            push_pair(pair, common, next);
            emit(Token { text: pair, ..word }, true)
        }
        None => Ok(()),
    }
}

/// In a query, a string that starts with the marker and [`PAIRS_TAG`]: its
/// words as `tokenizer` gives them, each common word that another word
/// follows replaced by their pair token; emits them and returns true.
/// Anything else returns false and emits nothing.
pub fn tokenize_query_pairs<E>(
    tokenizer: &mut Tokenizer,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>) -> Result<(), E>,
) -> Result<bool, E> {
    let tag = query_string("");
    let Some(rest) = text.strip_prefix(tag.as_bytes()) else {
        return Ok(false);
    };
    let tokens = tokenizer.tokens(rest);
    let shift = tag.len();
    let mut pair = String::new();
    let mut paired = false;
    for (i, (token, start, end)) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(|(next, ..)| next.as_str());
        let text = match next {
            Some(next) if next != RUN_BOUNDARY && is_common(token) => {
                push_pair(&mut pair, token, next);
                pair.as_str()
            }
            // The last word after a pair: the pair says it is there.
            None if paired => break,
            _ => token.as_str(),
        };
        paired = next.is_some() && text.starts_with(MARKER);
        emit(Token {
            text,
            start: start + shift,
            end: end + shift,
        })?;
    }
    Ok(true)
}

/// `phrase`'s words written for a query string matched with pair tokens.
pub fn query_string(phrase: &str) -> String {
    format!("{MARKER}{PAIRS_TAG}{phrase}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::Options;

    fn tokenizer() -> Tokenizer {
        Tokenizer::new(Options {
            remove_diacritics: true,
            cjk: true,
            markers: false,
        })
    }

    fn document(text: &str) -> Vec<(String, bool)> {
        let mut out = Vec::new();
        tokenize_with_pairs::<()>(&mut tokenizer(), text.as_bytes(), &mut |t, colocated| {
            out.push((t.text.to_owned(), colocated));
            Ok(())
        })
        .unwrap();
        out
    }

    fn query(text: &str) -> Option<Vec<String>> {
        let mut out = Vec::new();
        let pairs = tokenize_query_pairs::<()>(&mut tokenizer(), text.as_bytes(), &mut |t| {
            out.push(t.text.to_owned());
            Ok(())
        })
        .unwrap();
        pairs.then_some(out)
    }

    fn pair(common: &str, next: &str) -> String {
        let mut out = String::new();
        push_pair(&mut out, common, next);
        out
    }

    #[test]
    fn the_list_is_sorted_lower_case_and_short() {
        assert!(COMMON_WORDS.windows(2).all(|w| w[0] < w[1]));
        for word in COMMON_WORDS {
            assert!(is_common(word), "{word}");
            assert_eq!(word, word.to_lowercase());
        }
        for other in [
            "error", "them", "", "th", "thes", "ae", "t", "\u{1}", "ı", "the\0",
        ] {
            assert!(!is_common(other), "{other:?}");
        }
    }

    #[test]
    fn a_document_pairs_each_common_word_with_the_next_token() {
        assert_eq!(
            document("Fix the error in it"),
            [
                ("fix".to_owned(), false),
                ("the".to_owned(), false),
                (pair("the", "error"), true),
                ("error".to_owned(), false),
                ("in".to_owned(), false),
                (pair("in", "it"), true),
                ("it".to_owned(), false),
            ]
        );
        assert_eq!(document("the"), [("the".to_owned(), false)]);
        assert!(document("").is_empty());
    }

    #[test]
    fn a_run_boundary_is_never_paired() {
        let tokens = document("the 東京 and");
        assert!(tokens.contains(&(pair("the", "東"), true)));
        assert!(tokens.contains(&(RUN_BOUNDARY.to_owned(), false)));
        assert!(!tokens
            .iter()
            .any(|(t, _)| t.starts_with(MARKER) && t.contains(RUN_BOUNDARY)));
    }

    #[test]
    fn a_tagged_query_string_replaces_common_words_that_have_a_next() {
        assert_eq!(
            query(&query_string("fix the error now")).unwrap(),
            ["fix", &pair("the", "error"), "error", "now"]
        );
        assert_eq!(
            query(&query_string("to the end of")).unwrap(),
            [&pair("to", "the"), &pair("the", "end"), "end", "of"]
        );
        // The pair alone says the last word follows.
        assert_eq!(
            query(&query_string("fix the error")).unwrap(),
            ["fix", &pair("the", "error")]
        );
        assert_eq!(query(&query_string("of the")).unwrap(), [pair("of", "the")]);
        assert_eq!(query("fix the error"), None);
    }

    #[test]
    fn offsets_point_into_the_tagged_string() {
        let text = query_string("the end now");
        let mut spans = Vec::new();
        tokenize_query_pairs::<()>(&mut tokenizer(), text.as_bytes(), &mut |t| {
            spans.push(text[t.start..t.end].to_owned());
            Ok(())
        })
        .unwrap();
        assert_eq!(spans, ["the", "end", "now"]);
    }
}
