//! Long texts: tokenized on a second thread while the caller's thread
//! hands the tokens to FTS5.
//!
//! Indexing a message's text is two halves of about the same cost: making
//! its tokens (words, pairs, prefixes, tier markers; see [`document`]) and
//! FTS5 adding each to its in-memory index. For a text of a megabyte or
//! more the halves run on two threads, the tokens crossing in batches, so
//! the text costs about the longer half rather than their sum.

use super::document;
use crate::tokenizer::{Options, Token, Tokenizer};
use std::sync::mpsc;

/// Texts at least this long are tokenized on a second thread.
pub const SECOND_THREAD_BYTES: usize = 1 << 20;

/// Tokens in a batch.
const BATCH_TOKENS: usize = 4096;

/// Batches made but not yet taken, at most: the memory in transit is a few
/// batches whatever the document's length.
const BATCHES_AHEAD: usize = 2;

/// Tokens in transit: their texts end to end and, for each, where its text
/// ends in `texts`, its span in the document and whether it is colocated
/// with the token before.
#[derive(Default)]
struct Batch {
    texts: String,
    tokens: Vec<(usize, usize, usize, bool)>,
}

/// Tokenizes `text` as [`document::tokenize_text`] does with a tokenizer
/// of `options`, on a second thread, and gives `emit` every token on this
/// one, in the same order (all on this thread when no other can be
/// started). `emit`'s first error stops both threads and is returned; a
/// panic on the second thread panics this one.
pub fn tokenize_text<E>(
    options: Options,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Result<(), E> {
    let (full, made) = mpsc::sync_channel::<Batch>(BATCHES_AHEAD);
    let (empty, emptied) = mpsc::channel::<Batch>();
    std::thread::scope(|scope| {
        let second = std::thread::Builder::new().spawn_scoped(scope, move || {
            let mut tokenizer = Tokenizer::new(options);
            let mut batch = Batch::default();
            // Fails only when the receiving side has stopped.
            let made = document::tokenize_text(&mut tokenizer, text, &mut |token, colocated| {
                batch.texts.push_str(token.text);
                let end = batch.texts.len();
                batch.tokens.push((end, token.start, token.end, colocated));
                if batch.tokens.len() < BATCH_TOKENS {
                    return Ok(());
                }
                let next = emptied.try_recv().unwrap_or_default();
                full.send(std::mem::replace(&mut batch, next))
            });
            if made.is_ok() {
                // Nobody to tell if the receiving side has stopped.
                let _ = full.send(batch);
            }
        });
        if second.is_err() {
            // No thread to be had: tokenize on this one.
            return document::tokenize_text(&mut Tokenizer::new(options), text, emit);
        }
        // Returning early drops `made`, which stops the second thread.
        for mut batch in made {
            let mut start = 0;
            for &(end, token_start, token_end, colocated) in &batch.tokens {
                let token = Token {
                    text: &batch.texts[start..end],
                    start: token_start,
                    end: token_end,
                };
                emit(token, colocated)?;
                start = end;
            }
            batch.texts.clear();
            batch.tokens.clear();
            // The second thread may have finished: the batch is then dropped.
            let _ = empty.send(batch);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> Options {
        Options {
            remove_diacritics: true,
            cjk: true,
            markers: true,
            ..Options::default()
        }
    }

    fn text() -> String {
        (0..30_000)
            .map(|i| format!("the deploy {i} of 東京 failed in it, café {} ", i % 97))
            .collect()
    }

    #[test]
    fn gives_the_tokens_of_one_thread_in_the_same_order() {
        let text = text();
        let mut alone = Vec::new();
        document::tokenize_text::<()>(
            &mut Tokenizer::new(options()),
            text.as_bytes(),
            &mut |token, colocated| {
                alone.push((token.text.to_owned(), token.start, token.end, colocated));
                Ok(())
            },
        )
        .unwrap();
        let mut piped = Vec::new();
        tokenize_text::<()>(options(), text.as_bytes(), &mut |token, colocated| {
            piped.push((token.text.to_owned(), token.start, token.end, colocated));
            Ok(())
        })
        .unwrap();
        assert!(alone.len() > 10 * BATCH_TOKENS);
        assert_eq!(piped, alone);
    }

    #[test]
    fn the_first_error_stops_both_threads() {
        let text = text();
        let mut seen = 0;
        let stopped = tokenize_text(options(), text.as_bytes(), &mut |_, _| {
            seen += 1;
            if seen == 3 * BATCH_TOKENS + 5 {
                Err("full")
            } else {
                Ok(())
            }
        });
        assert_eq!(stopped, Err("full"));
        assert_eq!(seen, 3 * BATCH_TOKENS + 5);
    }
}
