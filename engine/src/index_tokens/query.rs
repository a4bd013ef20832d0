//! The query side of the index's tokens, mirror of [`super::document`]:
//! what the query compiler ([`crate::query`]) writes to ask for each
//! family, and how the tokenizer reads it back at query time.
//!
//! | family | the compiler writes | the tokenizer reads it as |
//! | --- | --- | --- |
//! | pair tokens | a phrase with a common word next to another as [`pair_string`] (see [`phrase_has_pairs`]) | [`tokenize_pair_string`]: each word that another follows, when either is common, as their pair token; a last word after a pair left out |
//! | prefix tokens | a one-word prefix of a length in [`PREFIX_LENGTHS`] as [`prefix_alternatives`]: the prefix token's string, the word, and each longer common word it starts | [`tokenize_marker_string`]: the prefix token, its characters folded |
//! | tier markers | a one-word query ranked by tiers as [`tiers::marker`] of the word as typed | [`tokenize_marker_string`]: the marker, its word folded |

use super::common_words::COMMON_WORDS;
use super::encoding::{MARKER, PAIRS_TAG, PREFIX_TAG};
use super::pairs::{pairs_with, push_pair};
use super::prefixes::PREFIX_LENGTHS;
use super::tiers;
use crate::tokenizer::{Token, Tokenizer};

/// `phrase`'s words written for a query string matched with pair tokens:
/// [`MARKER`], [`PAIRS_TAG`], then the phrase.
pub fn pair_string(phrase: &str) -> String {
    format!("{MARKER}{PAIRS_TAG}{phrase}")
}

/// Whether a phrase of `tokens` (as [`Tokenizer::tokens`] gives them) is
/// matched with pair tokens: two of them in a row have one.
pub fn phrase_has_pairs<T: AsRef<str>>(tokens: &[T]) -> bool {
    tokens
        .windows(2)
        .any(|w| pairs_with(w[0].as_ref(), w[1].as_ref()))
}

/// The FTS5 strings that, as alternatives, match the prefix term of one
/// token `token`, typed as `text`, when its length is one of
/// [`PREFIX_LENGTHS`]: its prefix token, the word itself, and each common
/// word longer than it that it starts; `None` for any other length.
pub fn prefix_alternatives(text: &str, token: &str) -> Option<Vec<String>> {
    if !PREFIX_LENGTHS.contains(&token.chars().count()) {
        return None;
    }
    let mut alternatives = vec![
        format!("\"{MARKER}{PREFIX_TAG}{text}\""),
        format!("\"{text}\""),
    ];
    alternatives.extend(
        COMMON_WORDS
            .iter()
            .filter(|word| word.len() > token.len() && word.starts_with(token))
            .map(|word| format!("\"{word}\"")),
    );
    Some(alternatives)
}

/// In a query, a string that starts with [`MARKER`] and a tag (a tier's,
/// see [`tiers::tier_of_tag`], or [`PREFIX_TAG`]) and then one word is
/// that tier marker or prefix token, its word folded: emits it and returns
/// true. Anything else returns false and emits nothing.
pub fn tokenize_marker_string<E>(
    tokenizer: &mut Tokenizer,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>) -> Result<(), E>,
) -> Result<bool, E> {
    let Ok(text) = std::str::from_utf8(text) else {
        return Ok(false);
    };
    let Some(rest) = text.strip_prefix(MARKER) else {
        return Ok(false);
    };
    let mut chars = rest.chars();
    let Some(tag) = chars
        .next()
        .filter(|&c| tiers::tier_of_tag(c).is_some() || c == PREFIX_TAG)
    else {
        return Ok(false);
    };
    let tokens = tokenizer.tokens(chars.as_str().as_bytes());
    let [(word, ..)] = tokens.as_slice() else {
        return Ok(false);
    };
    emit(Token {
        text: &format!("{MARKER}{tag}{word}"),
        start: 0,
        end: text.len(),
    })?;
    Ok(true)
}

/// In a query, a [`pair_string`]: its words as `tokenizer` gives them, each
/// word that another follows, when either is a common word, replaced by
/// their pair token; emits them and returns true. Anything else returns
/// false and emits nothing.
pub fn tokenize_pair_string<E>(
    tokenizer: &mut Tokenizer,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>) -> Result<(), E>,
) -> Result<bool, E> {
    let tag = pair_string("");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::{Options, RUN_BOUNDARY};

    fn tokenizer() -> Tokenizer {
        Tokenizer::new(Options {
            remove_diacritics: true,
            cjk: true,
            markers: false,
        })
    }

    fn query(text: &str) -> Option<Vec<String>> {
        let mut out = Vec::new();
        let pairs = tokenize_pair_string::<()>(&mut tokenizer(), text.as_bytes(), &mut |t| {
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
    fn a_tagged_query_string_replaces_words_next_to_a_common_one() {
        assert_eq!(
            query(&pair_string("fix the error now")).unwrap(),
            [&pair("fix", "the"), &pair("the", "error"), "error", "now"]
        );
        assert_eq!(
            query(&pair_string("to the end of")).unwrap(),
            [pair("to", "the"), pair("the", "end"), pair("end", "of")]
        );
        // The pair alone says the last word follows.
        assert_eq!(
            query(&pair_string("the error")).unwrap(),
            [pair("the", "error")]
        );
        assert_eq!(
            query(&pair_string("failed to")).unwrap(),
            [pair("failed", "to")]
        );
        assert_eq!(query(&pair_string("of the")).unwrap(), [pair("of", "the")]);
        assert_eq!(
            query(&pair_string("failed badly")).unwrap(),
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
        let text = pair_string("the end now");
        let mut spans = Vec::new();
        tokenize_pair_string::<()>(&mut tokenizer(), text.as_bytes(), &mut |t| {
            spans.push(text[t.start..t.end].to_owned());
            Ok(())
        })
        .unwrap();
        assert_eq!(spans, ["the", "end", "now"]);
    }

    #[test]
    fn a_query_of_a_prefix_length_asks_for_its_token_the_word_and_common_words() {
        assert_eq!(
            prefix_alternatives("Dep", "dep").unwrap(),
            [format!("\"{MARKER}*Dep\""), "\"Dep\"".to_owned()]
        );
        assert_eq!(
            prefix_alternatives("tha", "tha").unwrap(),
            [
                format!("\"{MARKER}*tha\""),
                "\"tha\"".to_owned(),
                "\"that\"".to_owned()
            ]
        );
        assert!(prefix_alternatives("de", "de").is_none());
        assert!(prefix_alternatives("deployme", "deployme").is_some());
        assert!(prefix_alternatives("deploymen", "deploymen").is_none());
    }

    #[test]
    fn query_markers_fold_their_word() {
        let mut tokenizer = Tokenizer::new(Options::default());
        let mut out = Vec::new();
        let text = format!("{MARKER}2Café");
        let found = tokenize_marker_string::<()>(&mut tokenizer, text.as_bytes(), &mut |t| {
            out.push(t.text.to_owned());
            Ok(())
        })
        .unwrap();
        assert!(found);
        assert_eq!(out, [tiers::marker(1, "cafe")]);
        for plain in ["café", "\u{E000}Zx", "\u{E000}0x", "\u{E000}1two words"] {
            assert!(
                !tokenize_marker_string::<()>(&mut tokenizer, plain.as_bytes(), &mut |_| Ok(()))
                    .unwrap()
            );
        }
    }
}
