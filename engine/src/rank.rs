//! BM25 for `sessions_rank`, with FTS5's constants ([`crate::bm25`]) and
//! formula: a row's length is that of all its columns, as in FTS5's own
//! `bm25()`. The scope column (see `sql/schema.sql`) is one token in every
//! row, so a message's length is its text's plus one whatever its session's
//! depth. The C glue that feeds it is in [`crate::fts5`].

use crate::bm25::{B, K1};
use crate::db::Connection;
use crate::error::Result;

/// FTS5's floor for the IDF of a phrase found in most rows.
const MIN_IDF: f64 = 1e-6;

/// How much a phrase that matches another form of a term (`deployment` for
/// `deploy`) weighs against the form typed, whose IDF also caps its own: a
/// message holding the form typed always ranks above the same message
/// holding another form instead.
pub const OTHER_FORM_WEIGHT: f64 = 0.5;

/// BM25+'s lower bound (Lv and Zhai, 2011) on what a phrase found in a row
/// adds to its weight, however long the row, in the scoring of
/// [`Bm25::with_other_forms`]: a long message holding more of a question's
/// words is not buried under a short one holding fewer (a long run of CJK
/// text, one token per character, most of all).
pub const FOUND_DELTA: f64 = 1.0;

/// How many tokens apart two of a question's words may stand for
/// [`Bm25::proximity`] to count them as found together: FTS5's own default
/// for `NEAR`, about a sentence.
pub const NEAR_TOKENS: i32 = 10;

/// What a question's word found near another adds to a score, times the
/// smaller of its weight and that other word's (see [`Bm25::proximity`]).
pub const PROXIMITY_WEIGHT: f64 = 0.5;

/// What the fill's score of a message is multiplied by when the question
/// asks about its role's words (`what did I say about …` for the user's,
/// `what did you suggest …` for the assistant's; see
/// [`crate::question::Question::speaker`]).
pub const SPEAKER_WEIGHT: f64 = 1.25;

/// The most phrases a query can mark as other forms (bits of an `i64`).
pub const MOST_MARKED_PHRASES: usize = 63;

/// Totals of the index, read once per query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RankTotals {
    /// Rows in the index.
    pub rows: i64,
    /// Tokens of every column in all rows.
    pub tokens: i64,
}

impl RankTotals {
    /// The totals of the index (`session_search_fts`), from FTS5's
    /// averages record; `None` before anything was indexed.
    ///
    /// # Errors
    ///
    /// SQL errors.
    pub fn read(db: &dyn Connection) -> Result<Option<RankTotals>> {
        let record = db.query_value(
            "SELECT block FROM session_search_fts_data WHERE id = 1",
            &[],
        )?;
        Ok(record.as_blob().and_then(RankTotals::from_averages))
    }

    /// The totals stored in FTS5's averages record (the `_data` row with id
    /// 1): SQLite varints, the row count and then each column's token count,
    /// summed.
    pub fn from_averages(record: &[u8]) -> Option<RankTotals> {
        let mut values = Vec::new();
        let mut rest = record;
        while !rest.is_empty() {
            let (value, tail) = varint(rest)?;
            values.push(i64::try_from(value).ok()?);
            rest = tail;
        }
        let (&rows, columns) = values.split_first()?;
        if columns.is_empty() {
            return None;
        }
        let tokens = columns
            .iter()
            .try_fold(0i64, |sum, &column| sum.checked_add(column))?;
        Some(RankTotals { rows, tokens })
    }

    /// Tokens per row (1 for an empty index).
    pub fn average_length(self) -> f64 {
        if self.rows <= 0 || self.tokens <= 0 {
            1.0
        } else {
            self.tokens as f64 / self.rows as f64
        }
    }
}

/// The SQLite varint at the start of `bytes`, and the bytes after it.
fn varint(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let mut value: u64 = 0;
    for (n, &byte) in bytes.iter().enumerate().take(9) {
        if n == 8 {
            return Some((value << 8 | u64::from(byte), &bytes[9..]));
        }
        value = value << 7 | u64::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            return Some((value, &bytes[n + 1..]));
        }
    }
    None
}

/// The per-query state of BM25: the totals and, per phrase, its IDF once
/// known (a phrase's row count is only looked up when a row contains it).
#[derive(Debug, Clone, PartialEq)]
pub struct Bm25 {
    rows: f64,
    average_length: f64,
    idf: Vec<Option<f64>>,
    /// With [`Bm25::with_other_forms`], bit `i` set when phrase `i` is
    /// another form of the term whose phrase comes before it.
    other_forms: Option<u64>,
}

impl Bm25 {
    /// The state for a query of `phrases` phrases over an index with `totals`.
    pub fn new(totals: RankTotals, phrases: usize) -> Bm25 {
        let rows = totals.rows.max(1) as f64;
        Bm25 {
            rows,
            average_length: (totals.tokens.max(1) as f64 / rows).max(f64::MIN_POSITIVE),
            idf: vec![None; phrases],
            other_forms: None,
        }
    }

    /// The state for a query whose phrases each count by their own IDF
    /// (as the fill of a question needs, where rows hold different terms),
    /// with the phrases whose bit is set in `other_forms` being other forms
    /// of a term: such a phrase weighs [`OTHER_FORM_WEIGHT`] and its IDF is
    /// at most that of the nearest phrase before it whose bit is clear (the
    /// form typed).
    pub fn with_other_forms(mut self, other_forms: u64) -> Bm25 {
        self.other_forms = Some(other_forms);
        self
    }

    /// The form typed that phrase `phrase` is another form of, if it is one.
    fn typed_form(&self, phrase: usize) -> Option<usize> {
        let marks = self.other_forms?;
        let marked = |p: usize| p < 64 && marks >> p & 1 == 1;
        if !marked(phrase) {
            return None;
        }
        (0..phrase).rev().find(|&p| !marked(p))
    }

    /// Number of phrases of the query.
    pub fn phrases(&self) -> usize {
        self.idf.len()
    }

    /// Whether the row count of `phrase` has been given.
    pub fn knows_hits(&self, phrase: usize) -> bool {
        self.idf.get(phrase).is_some_and(Option::is_some)
    }

    /// Records that `phrase` occurs in `hits` rows (at most all of them).
    pub fn set_hits(&mut self, phrase: usize, hits: f64) {
        if let Some(idf) = self.idf.get_mut(phrase) {
            let hits = hits.clamp(0.0, self.rows);
            *idf = Some(((self.rows - hits + 0.5) / (hits + 0.5)).ln().max(MIN_IDF));
        }
    }

    /// The phrases of a row holding each phrase `frequencies[i]` times
    /// whose row counts [`Bm25::rank`] still needs. With a single phrase in
    /// the row (a one-term query, since every term must match) none: its IDF
    /// would scale every row's score alike, so it is left out, which spares
    /// a pass over the phrase's rows. Called for every ranked row: once the
    /// counts are known it returns an empty vector, which allocates nothing.
    ///
    /// With [`Bm25::with_other_forms`], every phrase in the row needs its
    /// count, and another form also that of its form typed.
    pub fn phrases_needing_hits(&self, frequencies: &[u32]) -> Vec<usize> {
        if self.other_forms.is_none() && frequencies.iter().filter(|&&tf| tf > 0).count() < 2 {
            return Vec::new();
        }
        let mut needed: Vec<usize> = (0..frequencies.len())
            .filter(|&phrase| frequencies[phrase] > 0)
            .flat_map(|phrase| std::iter::once(phrase).chain(self.typed_form(phrase)))
            .filter(|&phrase| !self.knows_hits(phrase))
            .collect();
        needed.sort_unstable();
        needed.dedup();
        needed
    }

    /// The rank of a row whose text has `length` tokens and holds each
    /// phrase `frequencies[i]` times: BM25 negated, so lower is better, as
    /// FTS5's `rank`. A phrase whose row count is unknown weighs 1 alone in
    /// its row (see [`Bm25::phrases_needing_hits`]) and nothing otherwise.
    ///
    /// With [`Bm25::with_other_forms`], a phrase weighs its IDF always (an
    /// other form [`OTHER_FORM_WEIGHT`] times the smaller of its IDF and its
    /// form typed's) and adds [`FOUND_DELTA`] to its weight (BM25+).
    pub fn rank(&self, frequencies: &[u32], length: i32) -> f64 {
        let norm = K1 * (1.0 - B + B * f64::from(length.max(0)) / self.average_length);
        let alone =
            self.other_forms.is_none() && frequencies.iter().filter(|&&tf| tf > 0).count() == 1;
        let score: f64 = frequencies
            .iter()
            .zip(&self.idf)
            .enumerate()
            .filter(|&(_, (&tf, _))| tf > 0)
            .filter_map(|(phrase, (&tf, idf))| {
                let tf = f64::from(tf);
                let idf = if self.other_forms.is_some() {
                    self.weight(phrase)?
                } else {
                    idf.or(alone.then_some(1.0))?
                };
                let delta = if self.other_forms.is_some() {
                    FOUND_DELTA
                } else {
                    0.0
                };
                Some(idf * ((tf * (K1 + 1.0)) / (tf + norm) + delta))
            })
            .sum();
        -score
    }
}

impl Bm25 {
    /// With [`Bm25::with_other_forms`], what the words of a row found
    /// together add to its score: for each term (a phrase as typed with its
    /// other forms) that stands within [`NEAR_TOKENS`] tokens of another
    /// (not at one position), [`PROXIMITY_WEIGHT`] times the smaller of its
    /// weight and that other's (each its IDF, an other form's as in
    /// [`Bm25::rank`]; the best such neighbour counts). Each term adds once,
    /// so the bonus is at most half the terms' own weights: proximity adds
    /// to a score and never outweighs the words found. `found` holds each
    /// phrase found in the row's text and its position. Nothing without
    /// other forms.
    pub fn proximity(&self, found: &[(usize, i32)]) -> f64 {
        if self.other_forms.is_none() {
            return 0.0;
        }
        // Per term: its positions, with the weight of the phrase found there.
        let mut terms: Vec<(usize, Vec<(i32, f64)>)> = Vec::new();
        for &(phrase, position) in found {
            let Some(weight) = self.weight(phrase) else {
                continue;
            };
            let term = self.typed_form(phrase).unwrap_or(phrase);
            match terms.iter_mut().find(|(t, _)| *t == term) {
                Some((_, positions)) => positions.push((position, weight)),
                None => terms.push((term, vec![(position, weight)])),
            }
        }
        let mut bonus = 0.0;
        for (i, (_, positions)) in terms.iter().enumerate() {
            let others = terms
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .flat_map(|(_, (_, other))| other);
            let together = positions
                .iter()
                .flat_map(|a| others.clone().map(move |b| (a, b)))
                .filter(|((p, _), (q, _))| (1..=NEAR_TOKENS).contains(&(p - q).abs()));
            if let Some(weight) = together.map(|((_, a), (_, b))| a.min(*b)).reduce(f64::max) {
                bonus += PROXIMITY_WEIGHT * weight;
            }
        }
        bonus
    }

    /// The IDF phrase `phrase` scores by with [`Bm25::with_other_forms`]:
    /// its own, or for another form [`OTHER_FORM_WEIGHT`] times the smaller
    /// of its own and its form typed's; `None` while unknown.
    fn weight(&self, phrase: usize) -> Option<f64> {
        let idf = (*self.idf.get(phrase)?)?;
        Some(match self.typed_form(phrase) {
            Some(typed) => {
                let cap = self.idf.get(typed).copied().flatten().unwrap_or(idf);
                OTHER_FORM_WEIGHT * idf.min(cap)
            }
            None => idf,
        })
    }
}

/// The best ranks of the rows one query has ranked so far, at most `keep`
/// of them: a row that cannot rank as well as the worst of them once there
/// are `keep` cannot be among the query's best `keep`, so its exact rank
/// (which needs its length, a lookup per row) is not worth computing.
#[derive(Debug, Clone, PartialEq)]
pub struct BestRanks {
    keep: usize,
    /// Ascending (best first), at most `keep`.
    ranks: Vec<f64>,
    /// The row ranked last, which is not counted twice.
    last_row: Option<i64>,
}

impl BestRanks {
    /// Room for the best `keep` ranks.
    pub fn new(keep: usize) -> BestRanks {
        BestRanks {
            keep,
            ranks: Vec::new(),
            last_row: None,
        }
    }

    /// How many ranks it keeps.
    pub fn keep(&self) -> usize {
        self.keep
    }

    /// Whether a row whose rank is `best_possible` at best may still be
    /// among the best `keep`: a tie with the worst kept may, as ties are
    /// told apart later.
    pub fn may_hold(&self, best_possible: f64) -> bool {
        self.ranks.len() < self.keep
            || self
                .ranks
                .last()
                .is_some_and(|&worst| best_possible <= worst)
    }

    /// Records the exact rank of `row`; the row just recorded again (the
    /// same row ranked twice in a row) is not counted again.
    pub fn add(&mut self, row: i64, rank: f64) {
        if self.last_row.replace(row) == Some(row) {
            return;
        }
        let at = self.ranks.partition_point(|&r| r <= rank);
        if at < self.keep {
            self.ranks.insert(at, rank);
            self.ranks.truncate(self.keep);
        }
    }
}

/// The rows of a phrase, estimated from its first `seen` rows, whose rowids
/// span `sample`, when the index's rowids end at `last_rowid`: the phrase is
/// assumed as frequent after the sample as within it. xQueryPhrase reads
/// rowids in ascending order, which session-search's index makes newest
/// first, so this is the density of the phrase's newest uses carried back.
pub fn estimate_hits(seen: u64, sample: std::ops::RangeInclusive<i64>, last_rowid: i64) -> f64 {
    let sampled = (*sample.end() as f64 - *sample.start() as f64 + 1.0).max(1.0);
    let whole = (last_rowid as f64 - *sample.start() as f64 + 1.0).max(sampled);
    seen as f64 * whole / sampled
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bm25(rows: i64, tokens: i64, hits: &[i64]) -> Bm25 {
        let mut bm25 = Bm25::new(RankTotals { rows, tokens }, hits.len());
        for (phrase, &h) in hits.iter().enumerate() {
            bm25.set_hits(phrase, h as f64);
        }
        bm25
    }

    #[test]
    fn the_averages_record_gives_the_totals() {
        // 300 rows (a two-byte varint), 70 000 tokens of text (three
        // bytes), 5 of scope.
        let record = [0x82, 0x2c, 0x84, 0xa2, 0x70, 0x05];
        let totals = RankTotals::from_averages(&record).unwrap();
        assert_eq!(
            totals,
            RankTotals {
                rows: 300,
                tokens: 70_005
            }
        );
        assert!((totals.average_length() - 70_005.0 / 300.0).abs() < 1e-9);
        assert_eq!(RankTotals::from_averages(&[0x82]), None);
    }

    #[test]
    fn matches_the_bm25_formula() {
        // 10 rows of 5 tokens on average; the phrase is in 2 of them.
        let b = bm25(10, 50, &[2]);
        let idf = ((10.0 - 2.0 + 0.5) / 2.5f64).ln();
        let expected = idf * 1.0 * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * 4.0 / 5.0));
        assert!((b.rank(&[1], 4) + expected).abs() < 1e-12);
    }

    #[test]
    fn rarer_phrases_more_occurrences_and_shorter_rows_rank_first() {
        let b = bm25(1000, 10_000, &[10, 500]);
        assert!(b.rank(&[1, 0], 10) < b.rank(&[0, 1], 10));
        assert!(b.rank(&[2, 0], 10) < b.rank(&[1, 0], 10));
        assert!(b.rank(&[1, 0], 5) < b.rank(&[1, 0], 50));
    }

    #[test]
    fn a_phrase_in_most_rows_keeps_a_tiny_positive_weight() {
        let b = bm25(10, 100, &[9]);
        assert!(b.rank(&[1], 10) < 0.0);
        assert!(b.rank(&[1], 10) > -1e-5);
    }

    #[test]
    fn hits_are_extrapolated_from_the_sample_density() {
        // 100 hits in rowids 1..=1000 of an index ending at 10 000.
        assert_eq!(estimate_hits(100, 1..=1000, 10_000), 1000.0);
        // A sample reaching the end is the whole count.
        assert_eq!(estimate_hits(100, 50..=900, 900), 100.0);
        // A last rowid before the sample's end (a stale argument) never
        // shrinks the count below what was seen.
        assert_eq!(estimate_hits(100, 50..=900, 10), 100.0);
    }

    #[test]
    fn estimated_counts_are_clamped_to_the_rows() {
        let mut b = Bm25::new(
            RankTotals {
                rows: 10,
                tokens: 100,
            },
            1,
        );
        b.set_hits(0, 1e9);
        assert!(b.rank(&[1], 10) < 0.0);
    }

    #[test]
    fn a_lone_phrase_needs_no_row_count_and_keeps_the_bm25_order() {
        let fresh = Bm25::new(
            RankTotals {
                rows: 1000,
                tokens: 10_000,
            },
            2,
        );
        assert!(fresh.phrases_needing_hits(&[2, 0]).is_empty());
        assert_eq!(fresh.phrases_needing_hits(&[2, 1]), [0, 1]);
        let counted = bm25(1000, 10_000, &[40, 7]);
        let idf = ((1000.0 - 40.0 + 0.5) / 40.5f64).ln();
        for (tf, length) in [(1, 5), (3, 20), (2, 50)] {
            let lone = fresh.rank(&[tf, 0], length);
            assert!((lone * idf - counted.rank(&[tf, 0], length)).abs() < 1e-12);
        }
        assert!(fresh.rank(&[3, 0], 10) < fresh.rank(&[1, 0], 10));
    }

    #[test]
    fn a_row_is_ranked_exactly_while_it_may_still_be_among_the_best() {
        let mut best = BestRanks::new(2);
        assert!(best.may_hold(0.0));
        best.add(1, -3.0);
        // The same row ranked twice (two calls in one statement) is one row.
        best.add(1, -3.0);
        assert!(best.may_hold(0.0));
        best.add(2, -1.0);
        // Full: -3, -1. A row at best -1 ties the worst kept.
        assert!(best.may_hold(-1.0));
        assert!(!best.may_hold(-0.5));
        best.add(3, -2.0);
        // -3, -2: the -1 is gone.
        assert!(!best.may_hold(-1.0));
        assert!(best.may_hold(-2.0));
        best.add(4, -0.1);
        assert!(!best.may_hold(-1.5));
    }

    #[test]
    fn other_forms_rank_below_the_form_typed_and_every_phrase_counts_alone() {
        let counts = [40.0, 3.0, 400.0];
        // Phrase 1 is another form of phrase 0; phrase 2 a term of its own.
        let mut b = Bm25::new(
            RankTotals {
                rows: 1000,
                tokens: 10_000,
            },
            3,
        )
        .with_other_forms(0b010);
        assert_eq!(b.phrases_needing_hits(&[0, 1, 0]), [0, 1]);
        assert_eq!(b.phrases_needing_hits(&[0, 0, 2]), [2]);
        for (phrase, hits) in counts.into_iter().enumerate() {
            b.set_hits(phrase, hits);
        }
        assert!(b.phrases_needing_hits(&[1, 1, 1]).is_empty());
        // The rare other form is worth half the form typed, not its own IDF.
        let idf = |hits: f64| ((1000.0 - hits + 0.5) / (hits + 0.5)).ln();
        // BM25+: a found phrase's weight is at least FOUND_DELTA.
        let w = 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * 10.0 / 10.0)) + FOUND_DELTA;
        assert!((b.rank(&[1, 0, 0], 10) + idf(40.0) * w).abs() < 1e-12);
        assert!((b.rank(&[0, 1, 0], 10) + 0.5 * idf(40.0) * w).abs() < 1e-12);
        assert!(b.rank(&[1, 0, 0], 10) < b.rank(&[0, 1, 0], 10));
        // Alone in its row, a common term still counts by its IDF.
        assert!((b.rank(&[0, 0, 1], 10) + idf(400.0) * w).abs() < 1e-12);
        assert!(b.rank(&[0, 1, 0], 10) < b.rank(&[0, 0, 1], 10));
    }

    #[test]
    fn words_found_together_add_to_the_score_in_a_question_only() {
        let mut b = Bm25::new(
            RankTotals {
                rows: 1000,
                tokens: 10_000,
            },
            3,
        )
        .with_other_forms(0b010);
        for (phrase, hits) in [10.0, 3.0, 100.0].into_iter().enumerate() {
            b.set_hits(phrase, hits);
        }
        let idf = |hits: f64| ((1000.0 - hits + 0.5) / (hits + 0.5)).ln();
        // Terms 0 (with its other form, phrase 1) and 2, 4 tokens apart:
        // each adds half the smaller weight.
        assert!((b.proximity(&[(0, 3), (2, 7)]) - idf(100.0)).abs() < 1e-12);
        // Through the other form, which weighs half the form typed.
        let other = 0.5 * idf(10.0);
        assert!((b.proximity(&[(1, 3), (2, 7)]) - other.min(idf(100.0))).abs() < 1e-12);
        // A term found near another at several places adds once: the bonus
        // never exceeds half the weights of the words found.
        let crowded = b.proximity(&[(0, 3), (2, 5), (2, 7), (2, 9)]);
        assert!((crowded - idf(100.0)).abs() < 1e-12);
        assert!(crowded <= 0.5 * (idf(10.0) + idf(100.0)));
        // Too far apart, a term with its own form, one position: nothing.
        assert_eq!(b.proximity(&[(0, 3), (2, 30)]), 0.0);
        assert_eq!(b.proximity(&[(0, 3), (1, 4)]), 0.0);
        assert_eq!(b.proximity(&[(0, 3), (2, 3)]), 0.0);
        let plain = bm25(1000, 10_000, &[10, 100]);
        assert_eq!(plain.proximity(&[(0, 3), (1, 4)]), 0.0);
    }

    #[test]
    fn keeping_none_holds_nothing() {
        let mut best = BestRanks::new(0);
        best.add(1, -3.0);
        assert!(!best.may_hold(-9.0));
    }

    #[test]
    fn a_shorter_row_never_ranks_worse() {
        let b = bm25(1000, 20_000, &[30, 300]);
        for tf in [[1, 1], [4, 1], [1, 9]] {
            for length in 1..200 {
                assert!(b.rank(&tf, length) >= b.rank(&tf, length - 1));
            }
        }
    }

    #[test]
    fn unknown_phrases_and_empty_indexes_are_harmless() {
        let b = Bm25::new(RankTotals { rows: 0, tokens: 0 }, 2);
        assert_eq!(b.rank(&[3, 1], 0), 0.0);
        assert!(!b.knows_hits(5));
        assert_eq!(b.phrases(), 2);
    }
}
