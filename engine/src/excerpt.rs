//! Excerpts: the few hundred characters of a hit shown to the agent.
//!
//! The order is fixed by the contract: secrets are redacted first, then the
//! excerpt is cut around a match, so a cut can never expose part of a secret.
//! The text is the message's own; it is redacted here, with the stored
//! patterns and any of the request, in a bounded window around the match, so
//! an excerpt costs the same whatever the message size.

use crate::redact::{replace_spans, Redactor, REDACTION_WINDOW};
use crate::tokenizer::REDACTED;
use std::ops::Range;

/// Marks text cut off at either end of an excerpt.
const ELLIPSIS: char = '…';

/// The excerpt of `text` around the first match `find` reports (the start
/// of the text without one): redacted, white space collapsed to single
/// spaces, at most `max_chars` characters including ellipses. A first match
/// that lies in a secret is looked for again in the redacted text, so that
/// the excerpt shows a match the agent can read.
pub fn excerpt(
    text: &str,
    find: &dyn Fn(&str) -> Option<Range<usize>>,
    redactor: &Redactor,
    max_chars: usize,
) -> String {
    let m = find(text).unwrap_or(0..0);
    let window = window_around(text, &m);
    let secrets = redactor.secret_spans(&text[window.clone()]);
    let shifted = |s: &Range<usize>| s.start + window.start..s.end + window.start;
    if secrets
        .iter()
        .map(shifted)
        .any(|s| s.start < m.end && m.start < s.end)
    {
        let redacted = replace_spans(&text[window], &secrets);
        let m = find(&redacted).unwrap_or(0..0);
        return cut(&redacted, 0..redacted.len(), &[], &m, max_chars);
    }
    let secrets: Vec<Range<usize>> = secrets.iter().map(shifted).collect();
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

    /// Finds the first `word` in the text it is given.
    fn finds(word: &str) -> impl Fn(&str) -> Option<Range<usize>> + '_ {
        move |text| text.find(word).map(|start| start..start + word.len())
    }

    #[test]
    fn short_text_is_whole_with_white_space_collapsed() {
        let text = "deploy\n\n  the   staging\tserver";
        assert_eq!(
            excerpt(text, &finds("staging"), &redactor(), 300),
            "deploy the staging server"
        );
    }

    #[test]
    fn long_text_is_cut_around_the_match_within_the_budget() {
        let text = format!("{} needle {}", "before ".repeat(100), "after ".repeat(100));
        let out = excerpt(&text, &finds("needle"), &redactor(), 60);
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
        for max in 10..80 {
            let out = excerpt(&text, &finds("deploy"), &redactor(), max);
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
            excerpt(text, &finds("123456"), &acme, 300),
            "ticket [REDACTED] and nothing else"
        );
        assert_eq!(excerpt(text, &|_| None, &acme, 12), "ticket [RED…");
    }

    #[test]
    fn a_first_match_inside_a_secret_gives_way_to_a_readable_one() {
        let text = format!("ACME-deploy {} deploy now", "filler ".repeat(60));
        let acme = Redactor::new(&["ACME-[a-z]+"]).unwrap();
        let out = excerpt(&text, &finds("deploy"), &acme, 40);
        assert!(out.ends_with("deploy now") && out.starts_with('…'), "{out}");
        let out = excerpt(&text, &finds("ACME"), &acme, 40);
        assert!(out.starts_with("[REDACTED] filler"), "{out}");
    }

    #[test]
    fn tiny_budgets_show_text_not_ellipses() {
        let text = format!("{} needle {}", "x ".repeat(50), "y ".repeat(50));
        for max in 1..8 {
            let out = excerpt(&text, &finds("needle"), &redactor(), max);
            assert!(out.chars().count() <= max, "{max}: {out:?}");
            assert!(out.starts_with('n') || out.contains("ne"), "{max}: {out:?}");
        }
    }

    #[test]
    fn never_splits_a_character() {
        let text = "東京".repeat(200) + "大阪" + &"東京".repeat(200);
        let out = excerpt(&text, &finds("大阪"), &redactor(), 21);
        assert_eq!(out.chars().count(), 21);
        assert!(out.contains("大阪"));
    }
}
