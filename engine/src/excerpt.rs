//! Excerpts: the few hundred characters of a hit shown to the agent.
//!
//! The order is fixed by the contract: secrets are redacted first, then the
//! excerpt is cut around a match, so a cut can never expose part of a secret.
//! The text comes from the index already redacted; it is redacted again here
//! (with any patterns of the request) in a bounded window around the match,
//! so an excerpt costs the same whatever the message size.

use crate::redact::{Redactor, REDACTED, REDACTION_WINDOW};
use std::ops::Range;

/// Marks text cut off at either end of an excerpt.
const ELLIPSIS: char = '…';

/// The excerpt of `text` around `first_match` (a byte range; the start of
/// the text without one): redacted, white space collapsed to single spaces,
/// at most `max_chars` characters including ellipses.
pub fn excerpt(
    text: &str,
    first_match: Option<Range<usize>>,
    redactor: &Redactor,
    max_chars: usize,
) -> String {
    let m = first_match.unwrap_or(0..0);
    let window = window_around(text, &m);
    let secrets: Vec<Range<usize>> = redactor
        .secret_spans(&text[window.clone()])
        .into_iter()
        .map(|s| s.start + window.start..s.end + window.start)
        .collect();
    cut(text, window, &secrets, &m, max_chars)
}

/// The part of `text` redaction looks at for a match: all of it, or for long
/// texts [`REDACTION_WINDOW`] bytes that are not white space on either side
/// of the match. White space is collapsed in the excerpt, so counting it
/// could bring a secret cut at the window's edge next to the match.
fn window_around(text: &str, m: &Range<usize>) -> Range<usize> {
    let reach = |chars: &mut dyn Iterator<Item = (usize, char)>, limit: usize| {
        let mut seen = 0;
        for (at, c) in chars {
            if seen >= REDACTION_WINDOW {
                return at;
            }
            seen += if c.is_whitespace() { 0 } else { c.len_utf8() };
        }
        limit
    };
    let start = reach(
        &mut text[..m.start]
            .char_indices()
            .rev()
            .map(|(i, c)| (i + c.len_utf8(), c)),
        0,
    );
    let end = reach(
        &mut text[m.end..].char_indices().map(|(i, c)| (m.end + i, c)),
        text.len(),
    );
    start..end
}

/// Builds the redacted, collapsed characters of `window` and cuts
/// `max_chars` of them around the match.
fn cut(
    text: &str,
    window: Range<usize>,
    secrets: &[Range<usize>],
    m: &Range<usize>,
    max_chars: usize,
) -> String {
    let mut chars: Vec<char> = Vec::new();
    let (mut match_start, mut match_end) = (0, 0);
    let mut secrets = secrets.iter().peekable();
    let mut at = window.start;
    let push = |chars: &mut Vec<char>, c: char| {
        if !(c.is_whitespace() && chars.last().is_none_or(|last| *last == ' ')) {
            chars.push(if c.is_whitespace() { ' ' } else { c });
        }
    };
    while at < window.end {
        if at == m.start {
            match_start = chars.len();
        }
        if at == m.end {
            match_end = chars.len();
        }
        if let Some(secret) = secrets.next_if(|s| s.start <= at) {
            REDACTED.chars().for_each(|c| push(&mut chars, c));
            at = secret.end.max(at + 1);
            continue;
        }
        let c = text[at..].chars().next().expect("at is a char boundary");
        push(&mut chars, c);
        at += c.len_utf8();
    }
    if m.end >= window.end {
        match_end = chars.len();
    }
    while chars.last() == Some(&' ') {
        chars.pop();
    }
    let match_end = match_end.clamp(match_start, chars.len());
    let match_start = match_start.min(match_end);
    window_text(&chars, match_start..match_end, max_chars.max(1))
}

/// At most `max` of `chars` around `m`, with an ellipsis on each cut side
/// when the budget leaves room for text besides them.
fn window_text(chars: &[char], m: Range<usize>, max: usize) -> String {
    if chars.len() <= max {
        return chars.iter().collect();
    }
    let marks = max >= 5;
    let budget = if marks { max - 2 } else { max };
    let context = budget.saturating_sub(m.len()) / 3;
    let mut end = (m.start.saturating_sub(context) + budget).min(chars.len());
    let mut start = end.saturating_sub(budget);
    // A side that is not cut needs no ellipsis: its slot goes to text.
    if marks && end == chars.len() {
        start = start.saturating_sub(1);
    } else if marks && start == 0 {
        end = (end + 1).min(chars.len());
    }
    let lead = marks && start > 0;
    let trail = marks && end < chars.len();
    let mut out = String::new();
    if lead {
        out.push(ELLIPSIS);
    }
    out.extend(&chars[start..end.max(start)]);
    if trail {
        out.push(ELLIPSIS);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor() -> Redactor {
        Redactor::new::<&str>(&[]).unwrap()
    }

    fn span(text: &str, word: &str) -> Range<usize> {
        let start = text.find(word).unwrap();
        start..start + word.len()
    }

    #[test]
    fn short_text_is_whole_with_white_space_collapsed() {
        let text = "deploy\n\n  the   staging\tserver";
        let m = span(text, "staging");
        assert_eq!(
            excerpt(text, Some(m), &redactor(), 300),
            "deploy the staging server"
        );
    }

    #[test]
    fn long_text_is_cut_around_the_match_within_the_budget() {
        let text = format!("{} needle {}", "before ".repeat(100), "after ".repeat(100));
        let m = span(&text, "needle");
        let out = excerpt(&text, Some(m), &redactor(), 60);
        assert!(out.chars().count() <= 60, "{out}");
        assert!(
            out.contains("needle") && out.starts_with('…') && out.ends_with('…'),
            "{out}"
        );
    }

    #[test]
    fn secrets_are_redacted_before_the_cut() {
        let secret = "ghp_0123456789abcdefghijABCDEFGHIJ";
        let text = format!("{} token {secret} deploy", "x ".repeat(40));
        let m = span(&text, "deploy");
        for max in 10..80 {
            let out = excerpt(&text, Some(m.clone()), &redactor(), max);
            assert!(
                !out.contains("ghp_0123") && !out.contains("ABCDEFGH"),
                "{max}: {out}"
            );
            assert!(out.chars().count() <= max, "{max}: {out}");
        }
    }

    #[test]
    fn a_match_inside_a_request_pattern_is_still_redacted() {
        let text = "ticket ACME-123456 and nothing else";
        let acme = Redactor::new(&["ACME-[0-9]{6}"]).unwrap();
        assert_eq!(
            excerpt(text, Some(span(text, "123456")), &acme, 300),
            "ticket [REDACTED] and nothing else"
        );
        assert_eq!(excerpt(text, None, &acme, 12), "ticket [RED…");
    }

    #[test]
    fn tiny_budgets_show_text_not_ellipses() {
        let text = format!("{} needle {}", "x ".repeat(50), "y ".repeat(50));
        for max in 1..8 {
            let out = excerpt(&text, Some(span(&text, "needle")), &redactor(), max);
            assert!(out.chars().count() <= max, "{max}: {out:?}");
            assert!(out.starts_with('n') || out.contains("ne"), "{max}: {out:?}");
        }
    }

    #[test]
    fn never_splits_a_character() {
        let text = "東京".repeat(200) + "大阪" + &"東京".repeat(200);
        let m = span(&text, "大阪");
        let out = excerpt(&text, Some(m), &redactor(), 21);
        assert_eq!(out.chars().count(), 21);
        assert!(out.contains("大阪"));
    }
}
