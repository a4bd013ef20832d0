//! The query compiler: what a user typed, turned into an FTS5 expression that
//! cannot be a syntax error, and into token sequences for finding the matches
//! in a hit's text.
//!
//! A query is words and `"quoted phrases"`; a word ending in `*` is a prefix.
//! Every term must match (AND). Each term goes to FTS5 as a quoted string,
//! which FTS5 hands to the `sessions` tokenizer as a phrase, so punctuation,
//! paths (`src/main.py`), e-mail addresses, `#123`, `C#`, FTS5 keywords and
//! unbalanced quotes are all just text. Terms with no letters or digits are
//! dropped.

use crate::tokenizer::{Options, Tokenizer};
use std::fmt;
use std::ops::Range;

/// Longest accepted query, in characters.
pub const MAX_QUERY_CHARS: usize = 4096;

/// The tokenizer options of the index the queries run against
/// (`tokenize = 'sessions cjk 1'` in `sql/schema.sql`).
pub const INDEX_OPTIONS: Options = Options {
    remove_diacritics: true,
    cjk: true,
};

/// A query that cannot be run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// Nothing but white space.
    Empty,
    /// More than [`MAX_QUERY_CHARS`] characters.
    TooLong(usize),
    /// No term has a letter or digit to search for.
    NoWords,
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::Empty => write!(f, "the query is empty"),
            QueryError::TooLong(n) => write!(
                f,
                "the query is {n} characters long; the limit is {MAX_QUERY_CHARS}"
            ),
            QueryError::NoWords => write!(f, "the query has no letters or digits to search for"),
        }
    }
}

impl std::error::Error for QueryError {}

/// One word or phrase of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The text as typed, without quotes or the prefix `*`.
    pub text: String,
    /// Its tokens under [`INDEX_OPTIONS`].
    pub tokens: Vec<String>,
    /// The last token matches any token it starts.
    pub prefix: bool,
}

/// A compiled query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The terms, each of which must match.
    pub terms: Vec<Term>,
}

impl Query {
    /// Compiles what a user typed.
    ///
    /// # Errors
    ///
    /// [`QueryError`] for an empty or too long query, or one without any
    /// letter or digit.
    pub fn parse(input: &str) -> Result<Query, QueryError> {
        let length = input.chars().count();
        if length > MAX_QUERY_CHARS {
            return Err(QueryError::TooLong(length));
        }
        if input.trim().is_empty() {
            return Err(QueryError::Empty);
        }
        let mut tokenizer = Tokenizer::new(INDEX_OPTIONS);
        let mut terms: Vec<Term> = Vec::new();
        for (raw, quoted) in split_terms(input) {
            let prefix = !quoted && raw.ends_with('*');
            let raw = if prefix {
                raw.trim_end_matches('*')
            } else {
                raw
            };
            let text: String = raw
                .chars()
                .map(|c| if c.is_control() || c == '"' { ' ' } else { c })
                .collect();
            let tokens: Vec<String> = tokenizer
                .tokens(text.as_bytes())
                .into_iter()
                .map(|(token, ..)| token)
                .collect();
            let term = Term {
                text,
                tokens,
                prefix,
            };
            if !term.tokens.is_empty() && !terms.contains(&term) {
                terms.push(term);
            }
        }
        if terms.is_empty() {
            return Err(QueryError::NoWords);
        }
        Ok(Query { terms })
    }

    /// The FTS5 `MATCH` expression: every term as a quoted string, `*` after
    /// prefix terms, joined by `AND`, searched in the `text` column only;
    /// with a `scope` word (see `sql/schema.sql`), only rows that have it in
    /// the `scope` column.
    pub fn fts5_expression(&self, scope: Option<&str>) -> String {
        let terms = self
            .terms
            .iter()
            .map(|term| {
                let star = if term.prefix { "*" } else { "" };
                format!("\"{}\"{star}", term.text)
            })
            .collect::<Vec<_>>()
            .join(" AND ");
        match scope {
            Some(scope) => format!(
                "{{text}} : ({terms}) AND {{scope}} : \"{}\"",
                scope.replace('"', "")
            ),
            None => format!("{{text}} : ({terms})"),
        }
    }

    /// Byte ranges of `text` where a term matches, in order of position. A
    /// phrase match spans from its first token to its last.
    pub fn match_spans(&self, text: &str) -> Vec<Range<usize>> {
        let tokens = Tokenizer::new(INDEX_OPTIONS).tokens(text.as_bytes());
        let mut spans: Vec<Range<usize>> = Vec::new();
        for term in &self.terms {
            let n = term.tokens.len();
            for window in tokens.windows(n) {
                let last = n - 1;
                let matches =
                    window
                        .iter()
                        .zip(&term.tokens)
                        .enumerate()
                        .all(|(i, (doc, query))| {
                            if i == last && term.prefix {
                                doc.0.starts_with(query.as_str())
                            } else {
                                doc.0 == *query
                            }
                        });
                if matches {
                    spans.push(window[0].1..window[last].2);
                }
            }
        }
        spans.sort_by_key(|span| (span.start, span.end));
        spans
    }
}

/// Splits a query into `(text, quoted)` terms: `"…"` phrases (an unclosed
/// quote runs to the end) and white-space separated words.
fn split_terms(input: &str) -> Vec<(&str, bool)> {
    let mut terms = Vec::new();
    let mut rest = input;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return terms;
        }
        if let Some(inner) = rest.strip_prefix('"') {
            let end = inner.find('"').unwrap_or(inner.len());
            terms.push((&inner[..end], true));
            rest = inner.get(end + 1..).unwrap_or("");
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '"')
                .unwrap_or(rest.len());
            terms.push((&rest[..end], false));
            rest = &rest[end..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expression(input: &str) -> String {
        let expression = Query::parse(input).unwrap().fts5_expression(None);
        let inner = expression.strip_prefix("{text} : (").unwrap();
        inner.strip_suffix(')').unwrap().to_owned()
    }

    #[test]
    fn terms_search_the_text_column_and_the_scope_narrows() {
        let q = Query::parse("deploy \"staging box\"").unwrap();
        assert_eq!(
            q.fts5_expression(None),
            r#"{text} : ("deploy" AND "staging box")"#
        );
        assert_eq!(
            q.fts5_expression(Some("t6162")),
            r#"{text} : ("deploy" AND "staging box") AND {scope} : "t6162""#
        );
    }

    #[test]
    fn words_and_phrases_become_quoted_strings() {
        assert_eq!(expression("staging deploy"), r#""staging" AND "deploy""#);
        assert_eq!(
            expression(r#""staging deploy" failed"#),
            r#""staging deploy" AND "failed""#
        );
        assert_eq!(expression("conf*"), r#""conf"*"#);
    }

    #[test]
    fn punctuation_paths_and_keywords_are_text() {
        assert_eq!(expression("src/main.py"), r#""src/main.py""#);
        assert_eq!(
            expression("alice@example.com #123"),
            r##""alice@example.com" AND "#123""##
        );
        assert_eq!(
            expression("NOT AND OR NEAR(a b)"),
            r#""NOT" AND "AND" AND "OR" AND "NEAR(a" AND "b)""#
        );
        assert_eq!(expression(r#"say "hello"#), r#""say" AND "hello""#);
    }

    #[test]
    fn terms_without_words_are_dropped_and_duplicates_merged() {
        assert_eq!(expression("??? deploy !!! deploy"), r#""deploy""#);
        assert_eq!(Query::parse("?!# *"), Err(QueryError::NoWords));
    }

    #[test]
    fn empty_and_too_long_queries_are_errors() {
        assert_eq!(Query::parse("  \n"), Err(QueryError::Empty));
        let long = "a".repeat(MAX_QUERY_CHARS + 1);
        assert_eq!(
            Query::parse(&long),
            Err(QueryError::TooLong(MAX_QUERY_CHARS + 1))
        );
        assert!(Query::parse(&"é".repeat(MAX_QUERY_CHARS)).is_ok());
    }

    #[test]
    fn control_characters_cannot_escape_the_string() {
        let q = Query::parse("a\"b\u{0}c\nd").unwrap();
        for term in &q.terms {
            assert!(!term.text.contains('"') && !term.text.contains('\0'));
        }
    }

    #[test]
    fn match_spans_cover_original_characters() {
        let q = Query::parse("cafe \"main py\" 東京 conf*").unwrap();
        let text = "Le Café, src/main.py, 東京都, config";
        let found: Vec<&str> = q.match_spans(text).into_iter().map(|s| &text[s]).collect();
        assert_eq!(found, ["Café", "main.py", "東京", "config"]);
    }
}
