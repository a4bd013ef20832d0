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

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use std::collections::HashMap;

/// The literals of a set of patterns, searched together.
#[derive(Debug)]
pub(super) struct Prefilter {
    /// Every distinct literal, lower-cased; `None` when there are none.
    searcher: Option<AhoCorasick>,
    /// For each literal of `searcher`, the patterns that may start with it.
    owners: Vec<Vec<usize>>,
    /// For each pattern, whether it is scanned whatever the text holds.
    always: Vec<bool>,
}

impl Prefilter {
    /// The prefilter of `patterns`, in the syntax of the `regex` crate.
    pub(super) fn new<'p>(patterns: impl IntoIterator<Item = &'p str>) -> Prefilter {
        let mut ids: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        for (pattern, syntax) in patterns.into_iter().enumerate() {
            let Some(literals) = prefix_literals(syntax) else {
                always.push(true);
                continue;
            };
            always.push(false);
            for literal in literals {
                let next = ids.len();
                let id = *ids.entry(literal.to_ascii_lowercase()).or_insert(next);
                if id == owners.len() {
                    owners.push(Vec::new());
                }
                if !owners[id].contains(&pattern) {
                    owners[id].push(pattern);
                }
            }
        }
        let mut literals: Vec<(Vec<u8>, usize)> = ids.into_iter().collect();
        literals.sort_by_key(|&(_, id)| id);
        let searcher = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(AhoCorasickKind::DFA))
            .build(literals.iter().map(|(literal, _)| literal));
        match searcher {
            Ok(searcher) if !literals.is_empty() => Prefilter {
                searcher: Some(searcher),
                owners,
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

    /// For each pattern, whether it may match `text`.
    pub(super) fn candidates(&self, text: &str) -> Vec<bool> {
        let mut may = self.always.clone();
        if let Some(searcher) = &self.searcher {
            for found in searcher.find_overlapping_iter(text) {
                for &pattern in &self.owners[found.pattern().as_usize()] {
                    may[pattern] = true;
                }
            }
        }
        may
    }
}

/// Literals one of which starts every match of `pattern`, or `None` when
/// no finite set of non-empty literals does.
fn prefix_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    let syntax = regex_syntax::parse(pattern).ok()?;
    let sequence = Extractor::new().kind(ExtractKind::Prefix).extract(&syntax);
    let literals = sequence.literals()?;
    if literals.is_empty() || literals.iter().any(|literal| literal.as_bytes().is_empty()) {
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
    fn look_arounds_and_empty_matches_are_always_scanned() {
        let prefilter = Prefilter::new([r"(?:\s|^)-u", r"x*", r"\bkey"]);
        assert_eq!(prefilter.candidates("none"), [true, true, false]);
    }

    #[test]
    fn unicode_case_folds_stay_candidates() {
        // (?i)k also matches the Kelvin sign, (?i)s the long s.
        let prefilter = Prefilter::new([r"(?i:key)=\S+", r"(?i:secret)"]);
        assert_eq!(prefilter.candidates("\u{212A}ey=1"), [true, false]);
        assert_eq!(prefilter.candidates("\u{17F}ecret"), [false, true]);
    }
}
