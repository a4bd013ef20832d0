//! Impact tiers: exact BM25 ranking of a one-word query without ranking
//! every message that holds the word.
//!
//! For one word, a message's BM25 is its weight `tf·(k1+1) / (tf +
//! k1·(1-b+b·len/avg))`, which depends only on how often the word occurs
//! (`tf`) and the message's length. When a message is indexed, each word
//! whose weight against a fixed [`REFERENCE_LENGTH`] reaches a tier's floor
//! ([`TIER_FLOORS`], best first) also gets a marker token of that tier,
//! once per occurrence of the word, all colocated with the message's last
//! token (so they count in no length). A marker thus occurs as often as its
//! word: ranking a tier is a search for its marker alone, which scores
//! each message as the word would, without FTS5 reading the word's own
//! (long) list to find the marker's few messages in it. A search ranks the
//! messages of the best tier, then of the best two, and so on, and stops
//! as soon as the page's last hit scores at least
//! [`bound`]: the best score any message outside those tiers can have under
//! the index's real average length. Its page is then exactly the top of
//! exhaustive BM25; if no tier proves it, the search ranks as before. The
//! reference length is a constant, so the markers of a text never change:
//! deleting or re-indexing it removes exactly what was written, on every
//! replica.

use crate::bm25::{B, K1};
use crate::index_tokens::pairs;
use crate::index_tokens::prefixes;
use crate::tokenizer::{Token, Tokenizer, RUN_BOUNDARY};
use foldhash::fast::RandomState;
use std::collections::HashMap;

/// Starts a marker token; never part of an indexed word (a private-use
/// character, which is no word character), and taken out of queries.
pub const MARKER: char = '\u{E000}';

/// The message length, in tokens, that tier weights are computed against.
pub const REFERENCE_LENGTH: f64 = 64.0;

/// The lowest weight of each tier, best first (a weight is at most
/// `k1 + 1` = 2.2; one occurrence in an empty message weighs 1.69). The
/// top tiers are narrow: the ten best hits of a word found in most messages
/// (`the`, in 683 000 of a million) weigh 2.01 to 2.03, and a page is
/// proven by ranking the tiers down to just below its last hit.
pub const TIER_FLOORS: [f64; 10] = [2.05, 2.0, 1.95, 1.9, 1.85, 1.75, 1.6, 1.45, 1.3, 1.15];

/// A word's BM25 weight without IDF: `tf` occurrences in a message of
/// `length` tokens, when the average is `average`.
pub fn weight(tf: f64, length: f64, average: f64) -> f64 {
    tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * length / average))
}

/// The best tier whose floor the weight against [`REFERENCE_LENGTH`]
/// reaches, if any.
pub fn tier(tf: u32, length: usize) -> Option<usize> {
    let weight = weight(f64::from(tf), length as f64, REFERENCE_LENGTH);
    TIER_FLOORS.iter().position(|&floor| weight >= floor)
}

/// The marker token of `token` in `tier`.
pub fn marker(tier: usize, token: &str) -> String {
    let mut marker = String::with_capacity(token.len() + 4);
    push_marker(&mut marker, tier, token);
    marker
}

/// Appends the marker of `token` in `tier`: the tiers are told apart by
/// one character from `1` on (`:` after `9`).
fn push_marker(out: &mut String, tier: usize, token: &str) {
    out.push(MARKER);
    out.push(char::from(b'1' + tier as u8));
    out.push_str(token);
}

/// The largest score (weight under `average`) of a message outside the
/// tiers down to `floor`: any `tf` with a length long enough that its
/// weight against [`REFERENCE_LENGTH`] stays below `floor`. (BM25 counts a
/// message one token longer than its text, for its scope column, which
/// only lowers its weight: the bound holds.)
pub fn bound(floor: f64, average: f64) -> f64 {
    let average = average.max(f64::MIN_POSITIVE);
    // The shortest length below the floor for `tf`, as a real number.
    let shortest = |tf: f64| {
        (REFERENCE_LENGTH * (tf * ((K1 + 1.0) / floor - 1.0) - K1 * (1.0 - B)) / (K1 * B)).max(0.0)
    };
    // For large tf the score tends to (k1+1)/c; in between, the maximum is
    // at a small tf, as the score is monotonic in tf once `shortest` > 0.
    let ratio = REFERENCE_LENGTH / average;
    let limit = (K1 + 1.0) / (1.0 + ratio * ((K1 + 1.0) / floor - 1.0));
    (1..=64)
        .map(|tf| {
            let tf = f64::from(tf);
            weight(tf, shortest(tf), average)
        })
        .fold(limit, f64::max)
}

/// Tokenizes a document as `tokenizer` does, with its pair tokens and the
/// prefix tokens of each word where it first occurs (see [`pairs`] and
/// [`prefixes`]), and adds the tier markers: `emit` gets each token with
/// `false` and each pair or prefix token with `true` (colocated with the
/// token before), then, colocated with the last token, the marker of each
/// word whose weight reaches a tier, as many times as the word occurs, in
/// the order the words first occur. A marker's position matters to no
/// query, and only the distinct words and their counts are kept meanwhile,
/// so a document costs memory for its vocabulary, not for its tokens.
pub fn tokenize_document<E>(
    tokenizer: &mut Tokenizer,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Result<(), E> {
    // Word → (order of first occurrence, occurrences); a fast hasher, as
    // every token of every indexed message is looked up, seeded per process
    // so that no text can be written to collide.
    let mut counts: HashMap<Box<str>, (usize, u32), RandomState> = HashMap::default();
    let mut length = 0;
    let mut last = None;
    let mut prefix = String::new();
    pairs::tokenize_with_pairs(tokenizer, text, &mut |token, pair| {
        emit(token, pair)?;
        if pair {
            return Ok(());
        }
        length += 1;
        last = Some((token.start, token.end));
        if token.text != RUN_BOUNDARY {
            match counts.get_mut(token.text) {
                Some((_, tf)) => *tf += 1,
                None => {
                    let first = counts.len();
                    counts.insert(token.text.into(), (first, 1));
                    prefixes::emit_prefixes(token, &mut prefix, emit)?;
                }
            }
        }
        Ok(())
    })?;
    let Some((start, end)) = last else {
        return Ok(());
    };
    let mut marked: Vec<(usize, usize, u32, &str)> = counts
        .iter()
        .filter_map(|(word, &(first, tf))| Some((first, tier(tf, length)?, tf, &**word)))
        .collect();
    marked.sort_unstable_by_key(|&(first, ..)| first);
    let mut marker_text = String::new();
    for (_, tier, tf, word) in marked {
        marker_text.clear();
        push_marker(&mut marker_text, tier, word);
        for _ in 0..tf {
            emit(
                Token {
                    text: &marker_text,
                    start,
                    end,
                },
                true,
            )?;
        }
    }
    Ok(())
}

/// In a query, a string that starts with a marker (`MARKER`, then a tag: a
/// tier's character, `1` for the first and on in code-point order, or
/// [`prefixes::PREFIX_TAG`]; then one word) is that marker or prefix token:
/// emits it and returns true. Anything else returns false and emits
/// nothing.
pub fn tokenize_query_marker<E>(
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
    let is_tier = |c: char| {
        u32::from(c)
            .checked_sub(u32::from('1'))
            .is_some_and(|t| (t as usize) < TIER_FLOORS.len())
    };
    let Some(tag) = chars
        .next()
        .filter(|&c| is_tier(c) || c == prefixes::PREFIX_TAG)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::Options;

    fn document(text: &str) -> Vec<(String, bool)> {
        let mut tokenizer = Tokenizer::new(Options {
            remove_diacritics: true,
            cjk: true,
            markers: false,
        });
        let mut out = Vec::new();
        tokenize_document::<()>(&mut tokenizer, text.as_bytes(), &mut |t, colocated| {
            out.push((t.text.to_owned(), colocated));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn short_messages_mark_each_occurrence_of_their_words_after_the_last_token() {
        let tokens = document("Deploy deploy now");
        assert_eq!(
            tokens,
            [
                ("deploy".to_owned(), false),
                (format!("{MARKER}*dep"), true),
                (format!("{MARKER}*depl"), true),
                (format!("{MARKER}*deplo"), true),
                ("deploy".to_owned(), false),
                ("now".to_owned(), false),
                (marker(tier(2, 3).unwrap(), "deploy"), true),
                (marker(tier(2, 3).unwrap(), "deploy"), true),
                (marker(tier(1, 3).unwrap(), "now"), true),
            ]
        );
        assert!(document("").is_empty());
        assert!(tier(2, 3).unwrap() < tier(1, 3).unwrap());
    }

    #[test]
    fn long_messages_mark_only_words_they_repeat() {
        let text = format!("{} once release release release", "word ".repeat(60));
        let marked: Vec<String> = document(&text)
            .into_iter()
            .filter(|(t, colocated)| *colocated && !t.starts_with(&format!("{MARKER}*")))
            .map(|(t, _)| t)
            .collect();
        let mut expected = vec![marker(tier(60, 64).unwrap(), "word"); 60];
        expected.extend(vec![marker(tier(3, 64).unwrap(), "release"); 3]);
        assert_eq!(marked, expected);
        assert!(tier(1, 64).is_none());
    }

    #[test]
    fn the_bound_is_above_every_weight_outside_the_tiers() {
        for average in [8.0, 40.0, 64.0, 100.0, 900.0] {
            for (index, &floor) in TIER_FLOORS.iter().enumerate() {
                let bound = bound(floor, average);
                for tf in 1..300u32 {
                    for length in 0..3000usize {
                        if tier(tf, length).is_none_or(|t| t > index) {
                            let w = weight(f64::from(tf), length as f64, average);
                            assert!(w <= bound + 1e-12, "{tf} {length} {average} {floor}");
                        }
                    }
                }
                // And not far above: some message outside reaches near it.
                assert!(bound < K1 + 1.0);
            }
        }
    }

    #[test]
    fn query_markers_fold_their_word() {
        let mut tokenizer = Tokenizer::new(Options::default());
        let mut out = Vec::new();
        let text = format!("{MARKER}2Café");
        let found = tokenize_query_marker::<()>(&mut tokenizer, text.as_bytes(), &mut |t| {
            out.push(t.text.to_owned());
            Ok(())
        })
        .unwrap();
        assert!(found);
        assert_eq!(out, [marker(1, "cafe")]);
        for plain in ["café", "\u{E000}Zx", "\u{E000}0x", "\u{E000}1two words"] {
            assert!(!tokenize_query_marker::<()>(
                &mut tokenizer,
                plain.as_bytes(),
                &mut |_| Ok(())
            )
            .unwrap());
        }
    }
}
