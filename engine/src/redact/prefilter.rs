//! One pass over a text that rules out the default patterns it cannot hold,
//! so that a short text is not scanned by every pattern in turn.
//!
//! A pattern's prefix literals are taken from its syntax (`regex_syntax`'s
//! literal extractor): when they are a finite set without the empty string,
//! every match of the pattern starts with one of them, so a text that holds
//! none of them holds no match. The literals are searched for ASCII case
//! insensitively, which can only add candidates. A pattern without such a
//! set (one that starts with a wide character class, say) is always
//! scanned. The prefilter decides only which patterns run: what a pattern
//! finds is unchanged.

use aho_corasick::{AhoCorasick, AhoCorasickKind, Input, MatchKind};
use regex_syntax::hir::literal::{ExtractKind, Extractor};
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
            let literals = prefix_literals(syntax);
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

/// Literals one of which starts every match of `pattern`, or `None` when
/// no finite set of literals of at least [`SHORTEST_LITERAL`] bytes does.
fn prefix_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    let syntax = regex_syntax::parse(pattern).ok()?;
    let sequence = Extractor::new().kind(ExtractKind::Prefix).extract(&syntax);
    let literals = sequence.literals()?;
    if literals.is_empty()
        || literals
            .iter()
            .any(|l| l.as_bytes().len() < SHORTEST_LITERAL)
    {
        return None;
    }
    Some(literals.iter().map(|l| l.as_bytes().to_vec()).collect())
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
