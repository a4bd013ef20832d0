//! Redaction: finding secrets in text before any of it leaves the engine.
//!
//! A [`Redactor`] holds the default patterns (API keys and tokens by their
//! known shapes, private keys, credentials in assignments, URLs, JSON fields
//! and command-line flags) plus patterns a host adds. A pattern with a group
//! named `secret` redacts only that group (the value of `PASSWORD=…`), any
//! other pattern its whole match. The patterns run on the text with
//! hard-wrapped tokens joined (a line that ends in a run of 8 or more token
//! characters continues on the next line when that starts with one), so a
//! secret split across lines is found whole; the price is that a word
//! starting the line after a long token may be redacted with it.

use regex::Regex;
use std::ops::Range;

/// What replaces every secret in excerpts and history.
pub const REDACTED: &str = "[REDACTED]";

/// The default patterns, one shape per line. Keep each in a form where a
/// fragment of 8 or more characters of the secret cannot survive. Word
/// boundaries are ASCII ones (`(?-u:\b)`), so a token glued to CJK text
/// (`密钥是ghp_…`) still starts at one.
const DEFAULT_PATTERNS: &[&str] = &[
    // OpenAI, Anthropic and other `sk-` keys (project, admin, service accounts)
    r"(?-u:\b)sk-[A-Za-z0-9_\-]{16,}",
    // Stripe secret, restricted and publishable keys
    r"(?-u:\b)(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
    // GitHub tokens
    r"(?-u:\b)gh[pousr]_[A-Za-z0-9]{20,}",
    r"(?-u:\b)github_pat_[A-Za-z0-9_]{20,}",
    // GitLab tokens
    r"(?-u:\b)gl(?:pat|ptt|dt|rt|cbt|soat|ft|imt|agent)-[A-Za-z0-9_\-]{16,}",
    // Slack tokens and webhooks
    r"(?-u:\b)xox[abposre]-[A-Za-z0-9\-]{10,}",
    r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+",
    // AWS access key ids
    r"(?-u:\b)(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[0-9A-Z]{16}",
    // Google API keys and OAuth access tokens
    r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}",
    r"(?-u:\b)ya29\.[0-9A-Za-z_\-]{20,}",
    // Hugging Face, npm, PyPI, DigitalOcean, Databricks, Shopify, SendGrid
    r"(?-u:\b)hf_[A-Za-z0-9]{30,}",
    r"(?-u:\b)npm_[A-Za-z0-9]{36}",
    r"(?-u:\b)pypi-[A-Za-z0-9_\-]{50,}",
    r"(?-u:\b)do[opr]_v1_[a-f0-9]{64}",
    r"(?-u:\b)dapi[a-f0-9]{32}",
    r"(?-u:\b)shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
    r"(?-u:\b)SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}",
    // Telegram bot tokens, Discord bot tokens
    r"\d{8,10}:AA[A-Za-z0-9_\-]{33}",
    r"(?-u:\b)[MN][A-Za-z\d]{23,25}\.[A-Za-z\d_\-]{6}\.[A-Za-z\d_\-]{27,}",
    // age secret keys
    r"(?-u:\b)AGE-SECRET-KEY-1[0-9A-Z]{58}",
    // JSON Web Tokens
    r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    // PEM private keys, up to their end line or the end of the text
    r"(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
    // Authorization headers
    r"(?i)(?-u:\b)bearer\s+(?P<secret>[A-Za-z0-9._~+/=\-]{8,})",
    r"(?i)(?-u:\b)authorization\s*[:=]\s*(?:basic|token|digest)\s+(?P<secret>[A-Za-z0-9._~+/=\-]{6,})",
    // Passwords in URLs
    r"(?-u:\b)[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]*:(?P<secret>[^@/\s]+)@",
    // JSON fields named like secrets
    r#"(?i)"[A-Za-z0-9_\-]*(?:password|passwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|credentials?|auth)[A-Za-z0-9_\-]*"\s*:\s*"(?P<secret>(?:[^"\\]|\\.)*)""#,
    // Command-line flags, also with the value after a shell line continuation
    r"(?i)--(?:token|password|passwd|pass|api[-_]?key|secret|access[-_]?token|auth[-_]?token|client[-_]?secret)(?:=|\s+)(?:\\\r?\n\s*)?(?P<secret>\S+)",
    // Assignments: PASSWORD=…, api_key: …, export GITHUB_TOKEN=…
    r#"(?i)(?-u:\b)[A-Z0-9_.\-]*(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key|accountkey|sharedaccesskey|credentials?)[A-Z0-9_.\-]*'?\s*[:=]\s*(?P<secret>"[^"\n]*"|'[^'\n]*'|[^\s"',;]+)"#,
    // .netrc entries
    r"(?i)(?-u:\b)login\s+\S+\s+password\s+(?P<secret>\S+)",
];

/// Texts longer than this are redacted only in a window around the excerpt
/// position, wide enough for any pattern above (PEM keys are a few KB).
pub const REDACTION_WINDOW: usize = 64 * 1024;

/// A set of secret patterns.
#[derive(Debug, Clone)]
pub struct Redactor {
    patterns: Vec<Regex>,
}

impl Redactor {
    /// The default patterns plus `extra`, regular expressions in the syntax
    /// of the `regex` crate.
    ///
    /// # Errors
    ///
    /// The first extra pattern that does not compile, with the reason.
    pub fn new<S: AsRef<str>>(extra: &[S]) -> Result<Redactor, String> {
        let defaults = default_patterns().iter().cloned();
        let extra = extra.iter().map(|p| {
            Regex::new(p.as_ref())
                .map_err(|e| format!("redaction pattern {:?} is invalid: {e}", p.as_ref()))
        });
        Ok(Redactor {
            patterns: defaults.map(Ok).chain(extra).collect::<Result<_, _>>()?,
        })
    }

    /// The byte ranges of `text` that are secret, sorted and merged.
    pub fn secret_spans(&self, text: &str) -> Vec<Range<usize>> {
        let joined = Dewrapped::new(text);
        let mut spans: Vec<Range<usize>> = Vec::new();
        for pattern in &self.patterns {
            for captures in pattern.captures_iter(&joined.text) {
                let found = captures.name("secret").or_else(|| captures.get(0));
                if let Some(m) = found.filter(|m| !m.is_empty()) {
                    spans.push(joined.original(m.start()..m.end()));
                }
            }
        }
        merge(spans)
    }

    /// `text` with every secret replaced by [`REDACTED`].
    pub fn redact(&self, text: &str) -> String {
        replace_spans(text, &self.secret_spans(text))
    }
}

/// The default patterns, compiled once.
fn default_patterns() -> &'static [Regex] {
    static COMPILED: std::sync::OnceLock<Vec<Regex>> = std::sync::OnceLock::new();
    COMPILED.get_or_init(|| {
        DEFAULT_PATTERNS
            .iter()
            .map(|p| Regex::new(p).expect("default redaction patterns compile"))
            .collect()
    })
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-+/=.".contains(c)
}

/// A text with its hard-wrapped tokens joined, and the way back to the
/// original offsets.
struct Dewrapped {
    text: String,
    /// For each byte of `text`, its offset in the original.
    offsets: Vec<usize>,
}

impl Dewrapped {
    fn new(original: &str) -> Dewrapped {
        let mut text = String::with_capacity(original.len());
        let mut offsets = Vec::with_capacity(original.len());
        let mut run = 0;
        let mut rest = original;
        while let Some(c) = rest.chars().next() {
            let at = original.len() - rest.len();
            if run >= 8 && (c == '\n' || c == '\r') {
                let after_break = rest
                    .strip_prefix("\r\n")
                    .or_else(|| rest.strip_prefix('\n'));
                let next = after_break.map(|next| next.trim_start_matches([' ', '\t']));
                if let Some(next) = next.filter(|next| next.starts_with(is_token_char)) {
                    rest = next;
                    continue;
                }
            }
            run = if is_token_char(c) { run + 1 } else { 0 };
            text.push(c);
            offsets.extend(std::iter::repeat_n(at, c.len_utf8()));
            rest = &rest[c.len_utf8()..];
        }
        Dewrapped { text, offsets }
    }

    /// The original byte range of `text[range]`.
    fn original(&self, range: Range<usize>) -> Range<usize> {
        let mut last = range.end - 1;
        while !self.text.is_char_boundary(last) {
            last -= 1;
        }
        let width = self.text[last..].chars().next().map_or(1, char::len_utf8);
        self.offsets[range.start]..self.offsets[last] + width
    }
}

/// Sorts ranges and merges overlapping or touching ones.
fn merge(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.sort_by_key(|s| s.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    merged
}

/// `text` with each of the sorted, disjoint `spans` replaced by [`REDACTED`].
pub fn replace_spans(text: &str, spans: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        out.push_str(&text[at..span.start]);
        out.push_str(REDACTED);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(text: &str) -> String {
        Redactor::new::<&str>(&[]).unwrap().redact(text)
    }

    #[test]
    fn token_shapes_are_replaced_whole() {
        assert_eq!(
            redact("use sk-proj-AbCdEf0123456789XyZ0123 now"),
            "use [REDACTED] now"
        );
        assert_eq!(redact("AKIAIOSFODNN7EXAMPLE ok"), "[REDACTED] ok");
    }

    #[test]
    fn assignments_keep_their_name() {
        assert_eq!(redact("PASSWORD=hunter2hunter2"), "PASSWORD=[REDACTED]");
        assert_eq!(
            redact(r#"{"api_key": "abc\"def"}"#),
            r#"{"api_key": "[REDACTED]"}"#
        );
        assert_eq!(
            redact("curl --token abcdefgh123 x"),
            "curl --token [REDACTED] x"
        );
        assert_eq!(
            redact("postgres://admin:s3cretpass@db:5432"),
            "postgres://admin:[REDACTED]@db:5432"
        );
    }

    #[test]
    fn hard_wrapped_tokens_are_followed_to_the_next_line() {
        let text = "key ghp_0123456789abcdefghijABCDEF\nGHIJKLMNOP0123\n\nnext words";
        assert_eq!(redact(text), "key [REDACTED]\n\nnext words");
        let glued = "密钥是ghp_0123456789abcdefghijABCDEFGH请保管好";
        assert_eq!(redact(glued), "密钥是[REDACTED]请保管好");
        let cjk = "鍵は ghp_0123456789abcdefghijABCDEFGH。終わり";
        assert_eq!(redact(cjk), "鍵は [REDACTED]。終わり");
        let narrow = "token ghp_012345678\n  9abcdefghijABCD\n  EFGH done";
        assert_eq!(redact(narrow), "token [REDACTED] done");
    }

    #[test]
    fn host_patterns_add_to_the_defaults() {
        let redactor = Redactor::new(&[r"ACME-[0-9]{6}", r"pin (?P<secret>\d{4})"]).unwrap();
        assert_eq!(
            redactor.redact("ACME-123456 pin 1234"),
            "[REDACTED] pin [REDACTED]"
        );
        let err = Redactor::new(&["("]).unwrap_err();
        assert!(err.contains("redaction pattern \"(\" is invalid"), "{err}");
    }

    #[test]
    fn overlapping_spans_are_merged() {
        assert_eq!(merge(vec![5..9, 0..3, 2..6, 12..13]), vec![0..9, 12..13]);
    }
}
