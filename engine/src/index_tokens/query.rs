//! The query side of the index's tokens, mirror of [`super::document`]:
//! what the query compiler ([`crate::query`]) writes to ask for each
//! family, and how the tokenizer reads it back at query time.
//!
//! | family | the compiler writes | the tokenizer reads it as |
//! | --- | --- | --- |
//! | pair tokens | a phrase with a common word before another as [`pair_string`] (see [`phrase_has_pairs`]) | [`pair_tokens`]: each common word that another follows, as their pair token; a last word after a pair left out |
//! | prefix tokens | a one-word prefix of a length in [`PREFIX_LENGTHS`], or of two ASCII letters or digits, as [`prefix_alternatives`]: the prefix tokens' strings, the words, and each frequent word it starts | [`marker_token`]: the prefix token, its characters folded |
//! | tier markers | a one-word query ranked by tiers as [`tiers::marker`] of the word as typed | [`marker_token`]: the marker, its word folded |

use super::common_words::FREQUENT_WORDS;
use super::encoding::{MARKER, PAIRS_TAG, PREFIX_TAG, PREFIX_TAIL_TAG};
use super::pairs::{pairs_with, push_pair};
use super::prefixes::PREFIX_LENGTHS;
use super::tiers;
use crate::tokenizer::Tokenizer;

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
/// token `token`, typed as `text`:
///
/// - when its length is one of [`PREFIX_LENGTHS`], its prefix token, the
///   word itself, and each frequent word longer than it that it starts;
/// - when it is two ASCII letters or digits, the word itself, its prefix
///   tail token, each word and prefix token of three characters it starts
///   (one more ASCII letter or digit), and the frequent words it
///   starts (see [`super::prefixes`]);
///
/// `None` for any other token.
pub fn prefix_alternatives(text: &str, token: &str) -> Option<Vec<String>> {
    let ascii = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    let mut alternatives = if PREFIX_LENGTHS.contains(&token.chars().count()) {
        vec![
            format!("\"{MARKER}{PREFIX_TAG}{text}\""),
            format!("\"{text}\""),
        ]
    } else if token.len() == 2 && token.chars().all(ascii) {
        let mut alternatives = vec![
            format!("\"{token}\""),
            format!("\"{MARKER}{PREFIX_TAIL_TAG}{token}\""),
        ];
        for next in ('a'..='z').chain('0'..='9') {
            alternatives.push(format!("\"{token}{next}\""));
            alternatives.push(format!("\"{MARKER}{PREFIX_TAG}{token}{next}\""));
        }
        alternatives
    } else {
        return None;
    };
    let longest = token.chars().count().max(PREFIX_LENGTHS[0]);
    alternatives.extend(
        FREQUENT_WORDS
            .iter()
            .filter(|word| word.len() > longest && word.starts_with(token))
            .map(|word| format!("\"{word}\"")),
    );
    Some(alternatives)
}

/// In a query, a string that starts with [`MARKER`] and a tag (a tier's,
/// see [`tiers::tier_of_tag`], [`PREFIX_TAG`] or [`PREFIX_TAIL_TAG`]) and
/// then one word: that tier marker, prefix token or prefix tail token, its
/// word folded. `None` for anything else.
pub fn marker_token(tokenizer: &mut Tokenizer, text: &[u8]) -> Option<String> {
    let rest = std::str::from_utf8(text).ok()?.strip_prefix(MARKER)?;
    let mut chars = rest.chars();
    let tag = chars
        .next()
        .filter(|&c| tiers::tier_of_tag(c).is_some() || c == PREFIX_TAG || c == PREFIX_TAIL_TAG)?;
    let tokens = tokenizer.tokens(chars.as_str().as_bytes());
    let [(word, ..)] = tokens.as_slice() else {
        return None;
    };
    Some(format!("{MARKER}{tag}{word}"))
}

/// In a query, a [`pair_string`]: its words as `tokenizer` gives them, as
/// `(text, start, end)` in `text`, each common word that another follows
/// replaced by their pair token. `None` for anything else.
pub fn pair_tokens(tokenizer: &mut Tokenizer, text: &[u8]) -> Option<Vec<(String, usize, usize)>> {
    let tag = pair_string("");
    let rest = text.strip_prefix(tag.as_bytes())?;
    let tokens = tokenizer.tokens(rest);
    let shift = tag.len();
    let mut out = Vec::with_capacity(tokens.len());
    let mut paired = false;
    for (i, (token, start, end)) in tokens.iter().enumerate() {
        let next = tokens.get(i + 1).map(|(next, ..)| next.as_str());
        let text = match next {
            Some(next) if pairs_with(token, next) => {
                let mut pair = String::new();
                push_pair(&mut pair, token, next);
                pair
            }
            // The last word after a pair: the pair says it is there.
            None if paired => break,
            _ => token.clone(),
        };
        paired = next.is_some() && text.starts_with(MARKER);
        out.push((text, start + shift, end + shift));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::{Options, RUN_BOUNDARY};

    /// The tokenizer of the index, with `cjk 1`.
    fn tokenizer() -> Tokenizer {
        Tokenizer::new(Options {
            remove_diacritics: true,
            cjk: true,
            markers: false,
            ..Options::default()
        })
    }

    /// The token texts of `text` if it is a pair string.
    fn query(text: &str) -> Option<Vec<String>> {
        let tokens = pair_tokens(&mut tokenizer(), text.as_bytes())?;
        Some(tokens.into_iter().map(|(text, ..)| text).collect())
    }

    /// The pair token of `first` followed by `next`, spelt out.
    fn pair(first: &str, next: &str) -> String {
        format!("{MARKER}{PAIRS_TAG}{first} {next}")
    }

    #[test]
    fn a_tagged_query_string_pairs_each_common_word_with_the_next() {
        assert_eq!(
            query(&pair_string("fix the error now")).unwrap(),
            ["fix", &pair("the", "error"), "error", "now"]
        );
        assert_eq!(
            query(&pair_string("to the end of")).unwrap(),
            [&pair("to", "the"), &pair("the", "end"), "end", "of"]
        );
        // The pair alone says the last word follows.
        assert_eq!(
            query(&pair_string("the error")).unwrap(),
            [pair("the", "error")]
        );
        // A common word after another is itself.
        assert_eq!(query(&pair_string("failed to")).unwrap(), ["failed", "to"]);
        assert_eq!(query(&pair_string("of the")).unwrap(), [pair("of", "the")]);
        assert_eq!(
            query(&pair_string("failed badly")).unwrap(),
            ["failed", "badly"]
        );
        assert_eq!(query("fix the error"), None);
    }

    #[test]
    fn phrases_with_a_common_word_before_another_have_pairs() {
        assert!(!phrase_has_pairs(&["failed", "to"]));
        assert!(phrase_has_pairs(&["the", "error"]));
        assert!(!phrase_has_pairs(&["failed", "badly"]));
        assert!(!phrase_has_pairs(&["the"]));
        assert!(!phrase_has_pairs(&["the", RUN_BOUNDARY]));
    }

    #[test]
    fn offsets_point_into_the_tagged_string() {
        let text = pair_string("the end now");
        let spans: Vec<&str> = pair_tokens(&mut tokenizer(), text.as_bytes())
            .unwrap()
            .into_iter()
            .map(|(_, start, end)| &text[start..end])
            .collect();
        assert_eq!(spans, ["the", "end", "now"]);
    }

    #[test]
    fn a_query_of_three_characters_asks_for_its_token_the_word_and_frequent_words() {
        assert_eq!(
            prefix_alternatives("Dep", "dep").unwrap(),
            [
                format!("\"{MARKER}*Dep\""),
                "\"Dep\"".to_owned(),
                "\"deploy\"".to_owned()
            ]
        );
        assert_eq!(
            prefix_alternatives("tha", "tha").unwrap(),
            [
                format!("\"{MARKER}*tha\""),
                "\"tha\"".to_owned(),
                "\"than\"".to_owned(),
                "\"thanks\"".to_owned(),
                "\"that\"".to_owned()
            ]
        );
        assert!(prefix_alternatives("depl", "depl").is_none());
    }

    #[test]
    fn a_query_of_two_ascii_characters_spells_every_word_it_starts() {
        let found = prefix_alternatives("Th", "th").unwrap();
        for wanted in [
            "\"th\"".to_owned(),
            format!("\"{MARKER}~th\""),
            "\"tha\"".to_owned(),
            format!("\"{MARKER}*tha\""),
            "\"th9\"".to_owned(),
            format!("\"{MARKER}*th9\""),
            "\"that\"".to_owned(),
            "\"this\"".to_owned(),
            "\"things\"".to_owned(),
        ] {
            assert!(found.contains(&wanted), "{wanted} not in {found:?}");
        }
        // `the` is a word of three characters, asked for once.
        assert_eq!(found.iter().filter(|a| *a == "\"the\"").count(), 1);
        for other in ["d", "дe", "d\u{e9}"] {
            assert!(prefix_alternatives(other, other).is_none(), "{other}");
        }
    }

    #[test]
    fn query_markers_fold_their_word() {
        let mut tokenizer = Tokenizer::new(Options::default());
        let text = format!("{MARKER}2Café");
        let found = marker_token(&mut tokenizer, text.as_bytes());
        assert_eq!(found, Some(tiers::marker(1, "cafe")));
        for plain in ["café", "\u{E000}Zx", "\u{E000}0x", "\u{E000}1two words"] {
            assert!(marker_token(&mut tokenizer, plain.as_bytes()).is_none());
        }
    }
}
