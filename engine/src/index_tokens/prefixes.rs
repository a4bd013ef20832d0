//! Prefix tokens: prefix queries that read only what their page needs.
//!
//! FTS5 answers `dep*` by merging the lists of every indexed word that
//! starts with `dep` into one, in memory, before it returns a row: the cost
//! of a short prefix grows with the whole history, whatever the page. So
//! when a message is indexed, each distinct word longer than a length of
//! [`PREFIX_LENGTHS`] also gets, colocated with its first occurrence, a
//! prefix token of that many characters: the marker, [`PREFIX_TAG`] and the
//! word's first characters (once per word: no phrase holds a prefix token,
//! so more positions would only take room). The frequent words
//! ([`FREQUENT_WORDS`](super::common_words::FREQUENT_WORDS): `file`,
//! `should`) get none: their lists are the longest, so their prefix tokens
//! would take the most room (a third of them in real transcripts), while a
//! query can name them. A prefix term that is one word of such a length is
//! asked for as its prefix token, the word itself and each frequent word it
//! starts, as alternatives (see [`super::query::prefix_alternatives`]): the
//! same messages, read as ordinary lists that FTS5 walks lazily, so a page
//! of the newest matches stops early. Other prefix terms stay FTS5
//! prefixes.
//!
//! Only three characters get tokens: a prefix of three characters starts
//! the most words of the prefixes FTS5 can merge at reasonable cost, while
//! a longer one starts fewer words, whose lists FTS5 merges in a few
//! milliseconds even on a million messages (tokens of 4 to 8 characters
//! took 130 bytes per message and bought no measurable speed there; see
//! docs/benchmarks.md).
//!
//! A prefix of two ASCII letters or digits (`de*`) is asked for as the
//! alternatives that spell every word it starts: the word itself, each
//! three-character word and prefix token it starts with one more ASCII
//! letter or digit (`dea`, `*dea`, … `de9`, `*de9`), the frequent words
//! it starts, and its **prefix tail token**: a word whose first two
//! characters are ASCII letters or digits and whose third is neither
//! (`deλta`, rare) also gets, where it first occurs, the marker,
//! [`PREFIX_TAIL_TAG`] and those two characters. One character (`a*`), or
//! two of another script, stay FTS5 prefixes.

use super::common_words::is_frequent;
use super::encoding::{MARKER, PREFIX_TAG, PREFIX_TAIL_TAG};
use crate::tokenizer::Token;

/// The lengths, in characters, of the prefixes that get tokens. Changing
/// them changes the token stream (bump
/// [`crate::tokenizer::TOKENIZER_VERSION`]).
pub const PREFIX_LENGTHS: [usize; 1] = [3];

/// Emits, colocated with `token` (just emitted), its prefix tokens;
/// `buffer` holds each one's text in turn.
pub fn emit_prefixes<E>(
    token: Token<'_>,
    buffer: &mut String,
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Result<(), E> {
    if is_frequent(token.text) {
        return Ok(());
    }
    if let Some(head) = tail_head(token.text) {
        emit_marked(token, PREFIX_TAIL_TAG, head, buffer, emit)?;
    }
    // The byte offset of character n is the end of the first n characters:
    // it exists when the token is longer than n.
    for (n, end) in token.text.char_indices().map(|(at, _)| at).enumerate() {
        if n > PREFIX_LENGTHS[PREFIX_LENGTHS.len() - 1] {
            break;
        }
        if PREFIX_LENGTHS.contains(&n) {
            emit_marked(token, PREFIX_TAG, &token.text[..end], buffer, emit)?;
        }
    }
    Ok(())
}

/// Emits, colocated with `token`, the token of [`MARKER`], `tag` and
/// `text`, spelled in `buffer`.
fn emit_marked<E>(
    token: Token<'_>,
    tag: char,
    text: &str,
    buffer: &mut String,
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Result<(), E> {
    buffer.clear();
    buffer.push(MARKER);
    buffer.push(tag);
    buffer.push_str(text);
    emit(
        Token {
            text: buffer,
            ..token
        },
        true,
    )
}

/// The first two characters of `word` when they are ASCII letters or
/// digits and a third follows that is neither: the word's prefix tail.
fn tail_head(word: &str) -> Option<&str> {
    let bytes = word.as_bytes();
    let ascii = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    match bytes {
        [a, b, c, ..] if ascii(a) && ascii(b) && !ascii(c) => Some(&word[..2]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefixes(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let token = Token {
            text,
            start: 0,
            end: text.len(),
        };
        emit_prefixes::<()>(token, &mut String::new(), &mut |t, colocated| {
            assert!(colocated);
            out.push(t.text.trim_start_matches(MARKER).to_owned());
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn a_token_longer_than_three_characters_gets_its_first_three() {
        assert_eq!(prefixes("depot"), ["*dep"]);
        assert_eq!(prefixes("deployments"), ["*dep"]);
        assert_eq!(prefixes("depl"), ["*dep"]);
        assert!(prefixes("dep").is_empty());
        assert_eq!(prefixes("привет"), ["*при"]);
    }

    #[test]
    fn two_ascii_characters_then_another_get_a_tail_token() {
        assert_eq!(prefixes("deλta"), ["~de", "*deλ"]);
        assert_eq!(prefixes("deλ"), ["~de"]);
        assert_eq!(prefixes("x2日"), ["~x2"]);
        for word in ["de", "de9", "deploy", "дelta", "dé"] {
            assert!(!prefixes(word).iter().any(|p| p.starts_with('~')), "{word}");
        }
    }

    #[test]
    fn frequent_words_get_no_prefixes() {
        for word in ["that", "this", "file", "files", "should"] {
            assert!(prefixes(word).is_empty(), "{word}");
        }
        assert_eq!(prefixes("filter"), ["*fil"]);
    }
}
