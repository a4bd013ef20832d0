//! Tokens made ahead: a message's tokens, made on another thread than the
//! one where FTS5 asks for them, kept until it does.
//!
//! Reconciliation makes the next messages' tokens on a second thread while
//! this one hands the one before to FTS5 ([`crate::backlog`]). FTS5 asks
//! the tokenizer for a document's tokens itself, from inside the `INSERT`:
//! so the tokens wait in a slot of the inserting thread ([`offer`]), and the
//! tokenizer replays them when it is asked for exactly that text with
//! exactly those options ([`replay`]), instead of making them again. Any
//! other document is tokenized as usual, so a slot that is not taken
//! changes nothing but the time.

use super::document;
use crate::tokenizer::{Options, Token, Tokenizer};
use std::cell::RefCell;

/// Tokens in order: their texts end to end and, for each, where its text
/// ends in `texts`, its span in the document and whether it is colocated
/// with the token before.
#[derive(Debug, Default)]
pub struct Tokens {
    texts: String,
    tokens: Vec<(usize, usize, usize, bool)>,
}

impl Tokens {
    /// Adds `token` after the others.
    pub fn push(&mut self, token: Token<'_>, colocated: bool) {
        self.texts.push_str(token.text);
        let end = self.texts.len();
        self.tokens.push((end, token.start, token.end, colocated));
    }

    /// How many tokens there are.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// Forgets every token, keeping the memory.
    pub fn clear(&mut self) {
        self.texts.clear();
        self.tokens.clear();
    }

    /// Gives `emit` every token, in order; its first error stops.
    pub fn replay<E>(
        &self,
        emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut start = 0;
        for &(end, token_start, token_end, colocated) in &self.tokens {
            let token = Token {
                text: &self.texts[start..end],
                start: token_start,
                end: token_end,
            };
            emit(token, colocated)?;
            start = end;
        }
        Ok(())
    }
}

/// A message's text with the tokens [`document::tokenize_text`] makes of
/// it with a tokenizer of `options`.
#[derive(Debug)]
pub struct Prepared {
    options: Options,
    text: String,
    tokens: Tokens,
}

impl Prepared {
    /// Tokenizes `text` with `tokenizer`.
    pub fn new(tokenizer: &mut Tokenizer, text: String) -> Prepared {
        let mut tokens = Tokens::default();
        // Pushing never fails.
        let _ =
            document::tokenize_text::<()>(tokenizer, text.as_bytes(), &mut |token, colocated| {
                tokens.push(token, colocated);
                Ok(())
            });
        Prepared {
            options: tokenizer.options(),
            text,
            tokens,
        }
    }

    /// The text that was tokenized.
    pub fn text(&self) -> &str {
        &self.text
    }
}

thread_local! {
    /// The tokens offered to this thread's tokenizer, if any.
    static OFFERED: RefCell<Option<Prepared>> = const { RefCell::new(None) };
}

/// Runs `f` with `prepared` offered to the tokenizer on this thread: the
/// first document it is asked for in `f` with the same options and text
/// gets the tokens made ahead. The offer ends with `f`, taken or not.
pub fn offer<T>(prepared: Prepared, f: impl FnOnce() -> T) -> T {
    OFFERED.with(|slot| *slot.borrow_mut() = Some(prepared));
    let result = f();
    OFFERED.with(|slot| slot.borrow_mut().take());
    result
}

/// Gives `emit` the tokens offered on this thread for `text` made with
/// `options`, taking them, and returns what `emit` returned; `None`, the
/// offer left in place, when none was made for exactly that.
pub(super) fn replay<E>(
    options: Options,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Option<Result<(), E>> {
    let prepared = OFFERED.with(|slot| {
        let mut slot = slot.borrow_mut();
        let matches = slot
            .as_ref()
            .is_some_and(|p| p.options == options && p.text.as_bytes() == text);
        if matches {
            slot.take()
        } else {
            None
        }
    })?;
    // The slot is released: a tokenizer that `emit` calls finds it empty.
    Some(prepared.tokens.replay(emit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Options {
        Options {
            cjk: true,
            markers: true,
            ..Options::default()
        }
    }

    fn tokens_of(options: Options, text: &str) -> Vec<(String, usize, usize, bool)> {
        let mut out = Vec::new();
        let mut tokenizer = Tokenizer::new(options);
        super::super::tokenize_document::<()>(&mut tokenizer, text.as_bytes(), &mut |t, c| {
            out.push((t.text.to_owned(), t.start, t.end, c));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn an_offered_document_gives_the_tokens_it_would_have_given() {
        let text = "The deploy of 東京 failed, the deploy café again";
        let alone = tokens_of(options(), text);
        let prepared = Prepared::new(&mut Tokenizer::new(options()), text.to_owned());
        assert_eq!(prepared.tokens.len(), alone.len());
        let replayed = offer(prepared, || {
            let first = tokens_of(options(), text);
            // Taken by the first request: the second tokenizes.
            let taken = OFFERED.with(|slot| slot.borrow().is_none());
            (first, taken, tokens_of(options(), text))
        });
        assert_eq!(replayed, (alone.clone(), true, alone));
    }

    #[test]
    fn another_text_or_other_options_leave_the_offer() {
        let text = "deploy staging now";
        let prepared = Prepared::new(&mut Tokenizer::new(options()), text.to_owned());
        let other_options = Options {
            pairs: false,
            ..options()
        };
        let (other_text, other, left) = offer(prepared, || {
            (
                tokens_of(options(), "deploy staging later"),
                tokens_of(other_options, text),
                OFFERED.with(|slot| slot.borrow().is_some()),
            )
        });
        assert_eq!(other_text, tokens_of(options(), "deploy staging later"));
        assert_eq!(other, tokens_of(other_options, text));
        assert!(left);
        assert!(
            OFFERED.with(|slot| slot.borrow().is_none()),
            "the offer ends with its call"
        );
    }
}
