//! Pair tokens: fast phrases with common words.
//!
//! FTS5 finds a phrase by walking the position lists of all its words, so a
//! phrase with a word in most messages (`"the error"`, `"failed to"`, `"fix
//! it now"`) costs as much as that word's whole list, whatever the phrase's
//! own matches. So when a message is indexed, each
//! [`COMMON_WORDS`](super::common_words::COMMON_WORDS) word that another
//! token follows also gets a pair token, colocated with it (so it counts
//! in no length): the marker, [`PAIRS_TAG`], the common word, a space and
//! the next. In a phrase the engine asks for pairs (see [`super::query`]),
//! each common word that another follows is then looked for as their
//! pair: the pair is at a position exactly when the first word is there
//! and the next right after it, so the phrase matches the same messages,
//! and FTS5 walks the pair's short list instead of the common word's long
//! one; a phrase's last word right after a pair is left out, as the pair
//! says it is there. Every word of a prefix term stays itself (its last
//! word matches any word it starts).

use super::common_words::is_common;
use super::encoding::{MARKER, PAIRS_TAG};
use crate::tokenizer::{Token, RUN_BOUNDARY};

/// Writes into `out` the pair token of `first` followed by `next`.
pub fn push_pair(out: &mut String, first: &str, next: &str) {
    out.clear();
    out.push(MARKER);
    out.push(PAIRS_TAG);
    out.push_str(first);
    out.push(' ');
    out.push_str(next);
}

/// Whether `first` followed by `next` has a pair token: `first` is a
/// common word and `next` not a run boundary. (A common word after another
/// word, `failed to`, gets none: such phrases found their rarer word's
/// list short enough, and those pairs took 40 bytes per message.)
pub fn pairs_with(first: &str, next: &str) -> bool {
    pairs_when((first, is_common(first)), next)
}

/// [`pairs_with`] for two tokens each given with whether it is common, so
/// that a document asks [`is_common`] once per token.
fn pairs_when((first, first_common): (&str, bool), next: &str) -> bool {
    first_common && !first.is_empty() && first != RUN_BOUNDARY && next != RUN_BOUNDARY
}

/// The pair stage of a document: remembers the word before (its text,
/// reused, its span and whether it is common; none at the start).
#[derive(Debug, Default)]
pub struct Pairs {
    previous: String,
    span: (usize, usize),
    previous_common: bool,
    pair: String,
}

impl Pairs {
    /// Emits, before `word` itself, the pair token of the word before and
    /// `word` when they have one, colocated with the word before (the pair
    /// comes right after that word's own colocated tokens, so it takes its
    /// position and span); `word` is then the word before the next.
    pub fn emit_pair<E>(
        &mut self,
        word: Token<'_>,
        emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
    ) -> Result<(), E> {
        let common = is_common(word.text);
        if pairs_when((&self.previous, self.previous_common), word.text) {
            push_pair(&mut self.pair, &self.previous, word.text);
            let (start, end) = self.span;
            emit(
                Token {
                    text: &self.pair,
                    start,
                    end,
                },
                true,
            )?;
        }
        self.previous.clear();
        self.previous.push_str(word.text);
        self.span = (word.start, word.end);
        self.previous_common = common;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::{Options, Tokenizer};

    /// The words of `text` with their pair tokens: text, span and whether
    /// colocated.
    fn stream(text: &str) -> Vec<(String, usize, usize, bool)> {
        let mut tokenizer = Tokenizer::new(Options {
            remove_diacritics: true,
            cjk: true,
            markers: false,
            ..Options::default()
        });
        let mut out = Vec::new();
        let mut pairs = Pairs::default();
        tokenizer
            .tokenize::<()>(text.as_bytes(), &mut |word| {
                pairs.emit_pair(word, &mut |t, colocated| {
                    out.push((t.text.to_owned(), t.start, t.end, colocated));
                    Ok(())
                })?;
                out.push((word.text.to_owned(), word.start, word.end, false));
                Ok(())
            })
            .unwrap();
        out
    }

    /// The tokens of `text` with whether each is colocated.
    fn document(text: &str) -> Vec<(String, bool)> {
        stream(text)
            .into_iter()
            .map(|(text, _, _, colocated)| (text, colocated))
            .collect()
    }

    /// The pair token of `first` followed by `next`.
    fn pair(first: &str, next: &str) -> String {
        let mut out = String::new();
        push_pair(&mut out, first, next);
        out
    }

    #[test]
    fn a_document_pairs_each_common_word_with_the_next() {
        assert_eq!(
            document("Fix the error in it now"),
            [
                ("fix".to_owned(), false),
                ("the".to_owned(), false),
                (pair("the", "error"), true),
                ("error".to_owned(), false),
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
        // A common word after another word: no pair.
        assert_eq!(
            document("failed to"),
            [("failed".to_owned(), false), ("to".to_owned(), false)]
        );
        assert_eq!(document("the"), [("the".to_owned(), false)]);
        assert!(document("").is_empty());
    }

    #[test]
    fn a_pair_has_the_span_of_its_first_token() {
        let spans: Vec<_> = stream("to fail")
            .into_iter()
            .map(|(_, start, end, colocated)| (start, end, colocated))
            .collect();
        assert_eq!(spans, [(0, 2, false), (0, 2, true), (3, 7, false)]);
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
}
