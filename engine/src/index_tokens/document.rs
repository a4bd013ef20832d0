//! A message's text as the index holds it: one pass over the words the
//! tokenizer gives (stage 1 of the [pipeline](super)), which for each word
//! emits, in this order:
//!
//! - its **pair token** with the word before, when they have one
//!   ([`Pairs::emit_pair`], stage 2), colocated with the word before;
//! - the **word** itself, at a position of its own;
//! - where the word first occurs, its **prefix tokens**
//!   ([`prefixes::emit_prefixes`], stage 3), colocated with it;
//!
//! and once every word is counted ([`Vocabulary::count`]), the **tier
//! markers** ([`Vocabulary::emit_markers`], stage 4), colocated with the
//! last token. The tokenizer's `pairs 0`, `prefixes 0` and `tiers 0` leave
//! a family out.

use super::pairs::Pairs;
use super::prefixes;
use super::tiers::Vocabulary;
use crate::tokenizer::{Token, Tokenizer};

/// Tokenizes a message's text as `tokenizer` does, with the pair tokens,
/// prefix tokens and tier markers of the stages above, in their order:
/// `emit` gets each word with `false` and each other token with `true`
/// (colocated with the token before).
pub fn tokenize_text<E>(
    tokenizer: &mut Tokenizer,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Result<(), E> {
    let families = tokenizer.options();
    let mut pairs = Pairs::default();
    let mut vocabulary = Vocabulary::default();
    let mut prefix = String::new();
    tokenizer.tokenize(text, &mut |word| {
        if families.pairs {
            pairs.emit_pair(word, emit)?;
        }
        emit(word, false)?;
        if vocabulary.count(word) && families.prefixes {
            prefixes::emit_prefixes(word, &mut prefix, emit)?;
        }
        Ok(())
    })?;
    if families.tiers {
        vocabulary.emit_markers(emit)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::encoding::MARKER;
    use super::super::tiers::{marker, tier};
    use super::*;
    use crate::tokenizer::Options;

    /// The tokens of `text` with whether each is colocated.
    fn document(text: &str) -> Vec<(String, bool)> {
        let mut tokenizer = Tokenizer::new(Options {
            remove_diacritics: true,
            cjk: true,
            markers: false,
            ..Options::default()
        });
        let mut out = Vec::new();
        tokenize_text::<()>(&mut tokenizer, text.as_bytes(), &mut |t, colocated| {
            out.push((t.text.to_owned(), colocated));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn short_messages_mark_each_occurrence_of_their_words_after_the_last_token() {
        let tokens = document("Depot depot now");
        assert_eq!(
            tokens,
            [
                ("depot".to_owned(), false),
                (format!("{MARKER}*dep"), true),
                ("depot".to_owned(), false),
                ("now".to_owned(), false),
                (marker(tier(2, 3).unwrap(), "depot"), true),
                (marker(tier(2, 3).unwrap(), "depot"), true),
                (marker(tier(1, 3).unwrap(), "now"), true),
            ]
        );
        assert!(document("").is_empty());
        assert!(tier(2, 3).unwrap() < tier(1, 3).unwrap());
    }

    #[test]
    fn long_messages_mark_only_words_they_repeat() {
        let text = format!(
            "{} once release release release release",
            "word ".repeat(60)
        );
        let marked: Vec<String> = document(&text)
            .into_iter()
            .filter(|(t, colocated)| *colocated && !t.starts_with(&format!("{MARKER}*")))
            .map(|(t, _)| t)
            .collect();
        let mut expected = vec![marker(tier(60, 65).unwrap(), "word"); 60];
        expected.extend(vec![marker(tier(4, 65).unwrap(), "release"); 4]);
        assert_eq!(marked, expected);
        assert!(tier(1, 65).is_none());
    }
}
