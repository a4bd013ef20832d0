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

use super::encoding::{FIRST_TIER_TAG, MARKER};
use crate::bm25::{B, K1};
use crate::tokenizer::{Token, RUN_BOUNDARY};
use foldhash::fast::RandomState;
use std::collections::HashMap;

/// The message length, in tokens, that tier weights are computed against.
pub const REFERENCE_LENGTH: f64 = 64.0;

/// The lowest weight of each tier, best first (a weight is at most
/// `k1 + 1` = 2.2; one occurrence in an empty message weighs 1.69). The
/// top tiers are narrow: the ten best hits of a word found in most messages
/// (`the`, in 683 000 of a million) weigh 2.01 to 2.03, and a page is
/// proven by ranking the tiers down to just below its last hit. Tiers below
/// 1.6 (one occurrence in a message of more than five tokens) held most of
/// the markers, a sixth of the index of short chat turns, and proved no
/// page of the benchmark's words: their pages are proven by the tiers
/// above, or every match is ranked.
pub const TIER_FLOORS: [f64; 7] = [2.05, 2.0, 1.95, 1.9, 1.85, 1.75, 1.6];

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
/// their tag, [`tag`].
fn push_marker(out: &mut String, tier: usize, token: &str) {
    out.push(MARKER);
    out.push(tag(tier));
    out.push_str(token);
}

/// The character after [`MARKER`] in the markers of `tier`: from
/// [`FIRST_TIER_TAG`] on, `1` for the best (`:` after `9`).
fn tag(tier: usize) -> char {
    char::from(FIRST_TIER_TAG as u8 + tier as u8)
}

/// The tier whose markers have the tag `tag`, if any.
pub fn tier_of_tag(tag: char) -> Option<usize> {
    u32::from(tag)
        .checked_sub(u32::from(FIRST_TIER_TAG))
        .map(|tier| tier as usize)
        .filter(|&tier| tier < TIER_FLOORS.len())
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

/// The tier stage of a document: its distinct words, each with the order
/// of its first occurrence and how often it occurs, its length in tokens
/// and the span of its last token. Only the distinct words and their counts
/// are kept, so a document costs memory for its vocabulary, not for its
/// tokens.
#[derive(Debug, Default)]
pub struct Vocabulary {
    /// Word → (order of first occurrence, occurrences); a fast hasher, as
    /// every token of every indexed message is looked up, seeded per
    /// process so that no text can be written to collide.
    counts: HashMap<Box<str>, (usize, u32), RandomState>,
    length: usize,
    last: Option<(usize, usize)>,
}

impl Vocabulary {
    /// Counts `word`, the document's next token; returns whether it is the
    /// word's first occurrence (never for a run boundary, which is no
    /// word).
    pub fn count(&mut self, word: Token<'_>) -> bool {
        self.length += 1;
        self.last = Some((word.start, word.end));
        if word.text == RUN_BOUNDARY {
            return false;
        }
        match self.counts.get_mut(word.text) {
            Some((_, tf)) => {
                *tf += 1;
                false
            }
            None => {
                let first = self.counts.len();
                self.counts.insert(word.text.into(), (first, 1));
                true
            }
        }
    }

    /// Emits, colocated with the document's last token, the marker of each
    /// word whose weight reaches a tier, as many times as the word occurs,
    /// in the order the words first occur (a marker's position matters to
    /// no query). Nothing for a document without tokens.
    pub fn emit_markers<E>(
        &self,
        emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
    ) -> Result<(), E> {
        let Some((start, end)) = self.last else {
            return Ok(());
        };
        let mut marked: Vec<(usize, usize, u32, &str)> = self
            .counts
            .iter()
            .filter_map(|(word, &(first, tf))| Some((first, tier(tf, self.length)?, tf, &**word)))
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
