//! One pass over a text that rules out the default patterns it cannot hold,
//! so that a short text is not scanned by every pattern in turn.
//!
//! A pattern's required literals are taken from its syntax: a finite set
//! of literals, none empty, one of which occurs in every match (the
//! prefixes of a concatenation's tail, say, or the keywords of an
//! alternation every match goes through). A text that holds none of them
//! holds no match. The literals are searched for ASCII case
//! insensitively, which can only add candidates. A pattern without such a
//! set (one made of wide character classes, say) is always scanned. The
//! prefilter decides only which patterns run: what a pattern finds is
//! unchanged.

use aho_corasick::{AhoCorasick, AhoCorasickKind, Input, MatchKind};
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Class, ClassBytesRange, ClassUnicodeRange, Hir, HirKind};
use std::collections::BTreeMap;

/// The literals of a set of patterns, searched together.
#[derive(Debug)]
pub(super) struct Prefilter {
    /// Every literal, lower-cased, none a prefix of another; `None` when
    /// there are none.
    searcher: Option<AhoCorasick>,
    /// For each literal of `searcher`, the patterns that may start with it.
    owners: Vec<Vec<usize>>,
    /// For each pattern, whether it is scanned whatever the text holds.
    always: Vec<bool>,
}

impl Prefilter {
    /// The prefilter of `patterns`, in the syntax of the `regex` crate.
    pub(super) fn new<'p>(patterns: impl IntoIterator<Item = &'p str>) -> Prefilter {
        let mut owners: BTreeMap<Vec<u8>, Vec<usize>> = BTreeMap::new();
        let mut always = Vec::new();
        for (pattern, syntax) in patterns.into_iter().enumerate() {
            let literals = required_literals(syntax);
            always.push(literals.is_none());
            for literal in literals.into_iter().flatten() {
                owners
                    .entry(literal.to_ascii_lowercase())
                    .or_default()
                    .push(pattern);
            }
        }
        // A literal that starts with a shorter one is found only where that
        // one is: its patterns go to the shorter one, a smaller automaton.
        let mut kept: Vec<(Vec<u8>, Vec<usize>)> = Vec::new();
        for (literal, patterns) in owners {
            match kept.last_mut() {
                Some((shorter, to)) if literal.starts_with(shorter) => to.extend(patterns),
                _ => kept.push((literal, patterns)),
            }
        }
        let searcher = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostFirst)
            .kind(Some(AhoCorasickKind::DFA))
            .build(kept.iter().map(|(literal, _)| literal));
        match searcher {
            Ok(searcher) if !kept.is_empty() => Prefilter {
                searcher: Some(searcher),
                owners: kept.into_iter().map(|(_, patterns)| patterns).collect(),
                always,
            },
            // Without a searcher every pattern is scanned.
            _ => Prefilter {
                searcher: None,
                owners: Vec::new(),
                always: vec![true; always.len()],
            },
        }
    }

    /// For each pattern, whether it may match `text`. No literal starts
    /// another, so at most one starts at each position: searching again
    /// from just after each one's start finds every occurrence of every
    /// literal, overlapping or not, each search skipping ahead with the
    /// searcher's own prefilter.
    pub(super) fn candidates(&self, text: &str) -> Vec<bool> {
        let mut may = self.always.clone();
        let Some(searcher) = &self.searcher else {
            return may;
        };
        let mut at = 0;
        while let Some(found) = searcher.find(Input::new(text).span(at..text.len())) {
            for &pattern in &self.owners[found.pattern().as_usize()] {
                may[pattern] = true;
            }
            at = found.start() + 1;
        }
        may
    }
}

/// Shortest literal worth searching for: a shorter one (`"`, `<`, two
/// digits) is in most texts, and searching for it costs more than the
/// pattern's own scan.
const SHORTEST_LITERAL: usize = 3;

/// Case variants a literal set may hold before the extractor shortens its
/// literals (still sound, less selective): a case-insensitive keyword of
/// eight letters has 256, more with the Kelvin sign and the long s (which
/// `(?i)` also matches).
const MOST_VARIANTS: usize = 2048;

/// Lower-cased literals, one of which occurs in every match of `pattern`,
/// or `None` when no finite set of literals of at least
/// [`SHORTEST_LITERAL`] bytes does.
pub(super) fn required_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    required(&regex_syntax::parse(pattern).ok()?)
}

/// The best set of literals one of which every match of `hir` holds.
fn required(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Capture(capture) => required(&capture.sub),
        HirKind::Repetition(repetition) if repetition.min > 0 => required(&repetition.sub),
        // Each branch's own best set: the branches' prefixes together
        // would be a product of their case variants, which the extractor
        // cuts short (`clie` for `client_secret`).
        HirKind::Alternation(branches) => {
            let mut all = branches.iter().try_fold(Vec::new(), |mut all, b| {
                all.extend(required(b)?);
                Some(all)
            })?;
            all.sort();
            all.dedup();
            Some(all)
        }
        // What starts a run of literal parts and the parts after it, or
        // what any part holds. (A tail that starts inside such a run holds
        // no literal that the run's start does not hold within a longer
        // one.)
        HirKind::Concat(parts) => (0..parts.len())
            .flat_map(|i| {
                let starts_run =
                    may_start_literals(&parts[i]) && (i == 0 || !may_start_literals(&parts[i - 1]));
                let tail = starts_run.then(|| prefixes(&Hir::concat(parts[i..].to_vec())));
                [tail.flatten(), required(&parts[i])]
            })
            .flatten()
            .reduce(better),
        _ => prefixes(hir),
    }
}

/// Whether every match of `hir` starts with a literal or one of a few
/// characters (a letter in either case, say): only a tail that starts so
/// may start with literals worth searching for, and extracting the others'
/// (a wide class, something that may be empty) would cost most of the
/// prefilter's making for nothing.
fn may_start_literals(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Literal(_) => true,
        HirKind::Alternation(branches) => branches.iter().all(may_start_literals),
        HirKind::Concat(parts) => parts.first().is_some_and(may_start_literals),
        HirKind::Class(Class::Unicode(class)) => {
            let size = |r: &ClassUnicodeRange| u32::from(r.end()) - u32::from(r.start()) + 1;
            class.ranges().iter().map(size).sum::<u32>() <= 3
        }
        HirKind::Class(Class::Bytes(class)) => {
            let size = |r: &ClassBytesRange| u32::from(r.end() - r.start()) + 1;
            class.ranges().iter().map(size).sum::<u32>() <= 3
        }
        HirKind::Capture(capture) => may_start_literals(&capture.sub),
        HirKind::Repetition(repetition) => {
            repetition.min > 0 && may_start_literals(&repetition.sub)
        }
        HirKind::Empty | HirKind::Look(_) => false,
    }
}

/// The literals one of which starts every match of `hir`, lower-cased and
/// without repeats, or `None` when they are not a finite set of at least
/// [`SHORTEST_LITERAL`] bytes each.
fn prefixes(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let sequence = Extractor::new()
        .kind(ExtractKind::Prefix)
        .limit_total(MOST_VARIANTS)
        .extract(hir);
    let literals = sequence.literals()?;
    if literals.is_empty()
        || literals
            .iter()
            .any(|l| l.as_bytes().len() < SHORTEST_LITERAL)
    {
        return None;
    }
    let mut lowered: Vec<Vec<u8>> = literals
        .iter()
        .map(|l| l.as_bytes().to_ascii_lowercase())
        .collect();
    lowered.sort();
    lowered.dedup();
    Some(lowered)
}

/// The set a text holds less often, by a rough measure: each literal
/// counts as often as a random string of its bytes when one byte in four
/// fits (up to eight bytes), and a literal with bytes beyond ASCII (the
/// Kelvin sign, the long s) as rarely as the longest.
fn better(a: Vec<Vec<u8>>, b: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let frequency = |set: &[Vec<u8>]| -> f64 {
        set.iter()
            .map(|literal| {
                let bytes = if literal.is_ascii() {
                    literal.len().min(8)
                } else {
                    8
                };
                0.25f64.powi(bytes as i32)
            })
            .sum()
    };
    if frequency(&b) < frequency(&a) {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_runs_only_where_one_of_its_prefixes_is() {
        let prefilter =
            Prefilter::new([r"ghp_[A-Za-z0-9]{20,}", r"(?i:bearer)\s+\S+", r"[A-Z]{4}\d"]);
        assert_eq!(prefilter.candidates("nothing here"), [false, false, true]);
        assert_eq!(prefilter.candidates("x ghp_abc"), [true, false, true]);
        assert_eq!(prefilter.candidates("BeArEr abc"), [false, true, true]);
    }

    #[test]
    fn a_pattern_runs_only_where_a_literal_inside_every_match_is() {
        let prefilter = Prefilter::new([
            r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9]{40,}",
            r"[a-z]*(?:Token|Secret)=\S+",
            r"_*(?:[a-z]+_)*(?i:pass|key)s?=\S+",
            r"[0-9]+(?:x|yz)[0-9]+",
        ]);
        for (text, may) in [
            ("abc.atlasv1", [false, false, false, true]),
            ("x.ATLASV1.y", [true, false, false, true]),
            ("mySecret", [false, false, false, true]),
            ("mySecret=", [false, true, false, true]),
            ("the KEYS", [false, false, false, true]),
            ("the KEYS=x", [false, false, true, true]),
        ] {
            assert_eq!(prefilter.candidates(text), may, "{text}");
        }
    }

    #[test]
    fn the_literals_of_a_pattern_come_from_where_they_are_rarest() {
        let words = |pattern| {
            required_literals(pattern)
                .unwrap()
                .into_iter()
                .map(|l| String::from_utf8(l).unwrap())
                .collect::<Vec<_>>()
        };
        // A required word beats the short prefixes that start the match.
        assert_eq!(words(r"(?:ab|cd)[0-9]+\.secretword"), [".secretword"]);
        // Each branch of an alternation gives its own best literals.
        // Each branch of an alternation gives its own best literals: the
        // branches' prefixes together would be cut shorter (`clie`).
        assert_eq!(
            words(r"[a-z]*(?i:client_?secret|pwd)"),
            [
                "client_sec",
                "client_\u{17F}ec",
                "clientsec",
                "client\u{17F}ec",
                "pwd"
            ]
        );
    }

    #[test]
    fn overlapping_literals_are_all_found() {
        let prefilter = Prefilter::new([r"abcd\s", r"cdef\s", r"bcx\s"]);
        assert_eq!(prefilter.candidates("xABCDEFx"), [true, true, false]);
        assert_eq!(prefilter.candidates("abcdef"), [true, true, false]);
        assert_eq!(prefilter.candidates("abcd bcx"), [true, false, true]);
    }

    #[test]
    fn look_arounds_empty_matches_and_short_prefixes_are_always_scanned() {
        let prefilter = Prefilter::new([r"(?:\s|^)-u", r"x*", r"\bkey", r"<\w+>"]);
        assert_eq!(prefilter.candidates("none"), [true, true, false, true]);
    }

    #[test]
    fn unicode_case_folds_stay_candidates() {
        // (?i)k also matches the Kelvin sign, (?i)s the long s.
        let prefilter = Prefilter::new([r"(?i:key)=\S+", r"(?i:secret)"]);
        assert_eq!(prefilter.candidates("\u{212A}ey=1"), [true, false]);
        assert_eq!(prefilter.candidates("\u{17F}ecret"), [false, true]);
    }
}
