//! Pair tokens: fast phrases with common words.
//!
//! FTS5 finds a phrase by walking the position lists of all its words, so a
//! phrase with a word in most messages (`"the error"`, `"failed to"`, `"fix
//! it now"`) costs as much as that word's whole list, whatever the phrase's
//! own matches. So when a message is indexed, each token that another
//! token follows, when either of the two is a [`COMMON_WORDS`] word, also
//! gets a pair token, colocated with the first (so it counts in no
//! length): the marker, `+`, the first token, a space and the next. In a
//! phrase the engine asks for pairs ([`PAIRS_TAG`]), each word that
//! another follows, when either is common, is then looked for as their
//! pair: the pair is at a position exactly when the first word is there
//! and the next right after it, so the phrase matches the same messages,
//! and FTS5 walks the pair's short list instead of the common word's long
//! one; a phrase's last word right after a pair is left out, as the pair
//! says it is there. Every word of a prefix term stays itself (its last
//! word matches any word it starts).

use crate::index_tokens::tiers::MARKER;
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

/// The pair token of `first` followed by `next`.
fn push_pair(out: &mut String, first: &str, next: &str) {
    out.clear();
    out.push(MARKER);
    out.push(PAIRS_TAG);
    out.push_str(first);
    out.push(' ');
    out.push_str(next);
}

/// Tokenizes a document as `tokenizer` does, adding after each token that
/// another token follows, when either is a common word, their pair token
/// (`emit`'s second argument says the token is colocated with the one
/// before: the pair comes right after the first token's own colocated
/// tokens, so it takes the first token's position).
pub fn tokenize_with_pairs<E>(
    tokenizer: &mut Tokenizer,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Result<(), E> {
    // The token before (its text, reused, its span and whether it is
    // common), none at the start.
    let mut previous = String::new();
    let mut span = (0, 0);
    let mut previous_common = false;
    let mut pair = String::new();
    tokenizer.tokenize(text, &mut |token| {
        let common = is_common(token.text);
        if pairs_when((&previous, previous_common), (token.text, common)) {
            push_pair(&mut pair, &previous, token.text);
            let (start, end) = span;
            emit(
                Token {
                    text: &pair,
                    start,
                    end,
                },
                true,
            )?;
        }
        previous.clear();
        previous.push_str(token.text);
        span = (token.start, token.end);
        previous_common = common;
        emit(token, false)
    })
}

/// Whether `first` followed by `next` has a pair token: either is a common
/// word and neither is empty (no token before) or a run boundary.
fn pairs_with(first: &str, next: &str) -> bool {
    pairs_when((first, is_common(first)), (next, is_common(next)))
}

/// [`pairs_with`] for two tokens each given with whether it is common, so
/// that a document asks [`is_common`] once per token.
fn pairs_when((first, first_common): (&str, bool), (next, next_common): (&str, bool)) -> bool {
    (first_common || next_common)
        && !first.is_empty()
        && first != RUN_BOUNDARY
        && next != RUN_BOUNDARY
}

/// In a query, a string that starts with the marker and [`PAIRS_TAG`]: its
/// words as `tokenizer` gives them, each word that another follows, when
/// either is a common word, replaced by their pair token; emits them and
/// returns true. Anything else returns false and emits nothing.
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
            Some(next) if pairs_with(token, next) => {
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

/// Whether a phrase of `tokens` (as [`Tokenizer::tokens`] gives them) is
/// matched with pair tokens: two of them in a row have one.
pub fn phrase_has_pairs<T: AsRef<str>>(tokens: &[T]) -> bool {
    tokens
        .windows(2)
        .any(|w| pairs_with(w[0].as_ref(), w[1].as_ref()))
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

    fn pair(first: &str, next: &str) -> String {
        let mut out = String::new();
        push_pair(&mut out, first, next);
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
    fn a_document_pairs_each_token_next_to_a_common_word_with_the_next() {
        assert_eq!(
            document("Fix the error in it now"),
            [
                ("fix".to_owned(), false),
                (pair("fix", "the"), true),
                ("the".to_owned(), false),
                (pair("the", "error"), true),
                ("error".to_owned(), false),
                (pair("error", "in"), true),
                ("in".to_owned(), false),
                (pair("in", "it"), true),
                ("it".to_owned(), false),
                (pair("it", "now"), true),
                ("now".to_owned(), false),
            ]
        );
        assert_eq!(
            document("failed badly"),
            [("failed".to_owned(), false), ("badly".to_owned(), false)]
        );
        assert_eq!(document("the"), [("the".to_owned(), false)]);
        assert!(document("").is_empty());
    }

    #[test]
    fn a_pair_has_the_span_of_its_first_token() {
        let mut spans = Vec::new();
        tokenize_with_pairs::<()>(&mut tokenizer(), b"failed to", &mut |t, colocated| {
            spans.push((t.start, t.end, colocated));
            Ok(())
        })
        .unwrap();
        assert_eq!(spans, [(0, 6, false), (0, 6, true), (7, 9, false)]);
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
    fn a_tagged_query_string_replaces_words_next_to_a_common_one() {
        assert_eq!(
            query(&query_string("fix the error now")).unwrap(),
            [&pair("fix", "the"), &pair("the", "error"), "error", "now"]
        );
        assert_eq!(
            query(&query_string("to the end of")).unwrap(),
            [pair("to", "the"), pair("the", "end"), pair("end", "of")]
        );
        // The pair alone says the last word follows.
        assert_eq!(
            query(&query_string("the error")).unwrap(),
            [pair("the", "error")]
        );
        assert_eq!(
            query(&query_string("failed to")).unwrap(),
            [pair("failed", "to")]
        );
        assert_eq!(query(&query_string("of the")).unwrap(), [pair("of", "the")]);
        assert_eq!(
            query(&query_string("failed badly")).unwrap(),
            ["failed", "badly"]
        );
        assert_eq!(query("fix the error"), None);
    }

    #[test]
    fn phrases_with_a_common_word_next_to_another_have_pairs() {
        assert!(phrase_has_pairs(&["failed", "to"]));
        assert!(phrase_has_pairs(&["the", "error"]));
        assert!(!phrase_has_pairs(&["failed", "badly"]));
        assert!(!phrase_has_pairs(&["the"]));
        assert!(!phrase_has_pairs(&["the", RUN_BOUNDARY]));
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
