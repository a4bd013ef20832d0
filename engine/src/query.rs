//! The query compiler: what a user typed, turned into an FTS5 expression that
//! cannot be a syntax error, and into token sequences for finding the matches
//! in a hit's text.
//!
//! A query is words and `"quoted phrases"`; a word ending in `*` is a prefix.
//! Every term must match (AND), except that a bare `OR` between two terms
//! makes them alternatives. Each term goes to FTS5 as a quoted string,
//! which FTS5 hands to the `sessions` tokenizer as a phrase, so punctuation,
//! paths (`src/main.py`), e-mail addresses, `#123`, `C#`, FTS5 keywords and
//! unbalanced quotes are all just text. Terms with no letters or digits are
//! dropped.

use crate::index_tokens::encoding::MARKER;
use crate::index_tokens::query::{pair_string, phrase_has_pairs, prefix_alternatives};
use crate::index_tokens::tiers;
use crate::tokenizer::{Options, Tokenizer};
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::ops::{ControlFlow, Range};

/// Longest accepted query, in characters.
pub const MAX_QUERY_CHARS: usize = 4096;

/// The tokenizer options of the index the queries run against
/// (`tokenize = 'sessions cjk 1 markers 1'` in `sql/schema.sql`).
pub const INDEX_OPTIONS: Options = Options {
    remove_diacritics: true,
    cjk: true,
    markers: true,
    pairs: true,
    prefixes: true,
    tiers: true,
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
    /// Typed in quotes: matched as typed, also by the fill of a question.
    pub quoted: bool,
}

impl Term {
    /// The term as a response names it: as typed, without the punctuation
    /// that ends a sentence or a clause around it (`deploy?` is `deploy`).
    pub fn shown(&self) -> &str {
        self.text.trim_matches(|c: char| {
            c.is_whitespace() || ".,;:!?()[]{}'`<>。、，；：！？（）「」『』【】".contains(c)
        })
    }
}

/// A compiled query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// Every term, in the order typed, each once.
    pub terms: Vec<Term>,
    /// What must match: each clause is indices into `terms` of which one
    /// must match (one term, or terms joined by `OR`).
    pub clauses: Vec<Vec<usize>>,
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
        let mut clauses: Vec<Vec<usize>> = Vec::new();
        let raw_terms = split_terms(input);
        let mut joined = false;
        for (n, &(raw, quoted)) in raw_terms.iter().enumerate() {
            // A bare OR with terms on both sides joins them.
            if raw == "OR" && !quoted && !clauses.is_empty() && n + 1 < raw_terms.len() {
                joined = true;
                continue;
            }
            let prefix = !quoted && raw.ends_with('*');
            let raw = if prefix {
                raw.trim_end_matches('*')
            } else {
                raw
            };
            let text: String = raw
                .chars()
                .map(|c| {
                    if c.is_control() || c == '"' || c == MARKER {
                        ' '
                    } else {
                        c
                    }
                })
                .collect();
            let tokens: Vec<String> = tokenizer
                .tokens(text.as_bytes())
                .into_iter()
                .map(|(token, ..)| token)
                .collect();
            if tokens.is_empty() {
                continue;
            }
            let term = Term {
                text,
                tokens,
                prefix,
                quoted,
            };
            let index = terms.iter().position(|t| *t == term).unwrap_or_else(|| {
                terms.push(term);
                terms.len() - 1
            });
            if joined {
                if let Some(clause) = clauses.last_mut().filter(|c| !c.contains(&index)) {
                    clause.push(index);
                }
            } else if !clauses.iter().any(|c| c == &[index]) {
                clauses.push(vec![index]);
            }
            joined = false;
        }
        if terms.is_empty() {
            return Err(QueryError::NoWords);
        }
        Ok(Query { terms, clauses })
    }

    /// A term as FTS5 strings, alternatives of one another: one, `*` after
    /// a prefix, or for a one-word prefix of a length that has prefix tokens
    /// those tokens' strings (see [`prefix_alternatives`]); a phrase (not a
    /// prefix) with a common word next to another word is matched with pair
    /// tokens (see [`phrase_has_pairs`]).
    pub(crate) fn fts5_phrases(&self, index: usize) -> Vec<String> {
        let term = &self.terms[index];
        let pairs = phrase_has_pairs(&term.tokens);
        let one = if term.prefix {
            if let [token] = term.tokens.as_slice() {
                if let Some(alternatives) = prefix_alternatives(&term.text, token) {
                    return alternatives;
                }
            }
            format!("\"{}\"*", term.text)
        } else if pairs {
            format!("\"{}\"", pair_string(&term.text))
        } else {
            format!("\"{}\"", term.text)
        };
        vec![one]
    }

    /// A term in an FTS5 expression: its strings, in parentheses joined by
    /// `OR` when they are several.
    pub(crate) fn fts5_term(&self, index: usize) -> String {
        match self.fts5_phrases(index).as_slice() {
            [one] => one.clone(),
            many => format!("({})", many.join(" OR ")),
        }
    }

    /// The FTS5 `MATCH` expression: every term as a quoted string, `*` after
    /// prefix terms, clauses joined by `AND` (alternatives of a clause by
    /// `OR`), searched in the `text` column only; with a `scope` word (see
    /// `sql/schema.sql`), only rows that have it in the `scope` column.
    pub fn fts5_expression(&self, scope: Option<&str>) -> String {
        let terms = self
            .clauses
            .iter()
            .map(|clause| match clause.as_slice() {
                [one] => self.fts5_term(*one),
                many => {
                    let alternatives: Vec<String> =
                        many.iter().map(|&i| self.fts5_term(i)).collect();
                    format!("({})", alternatives.join(" OR "))
                }
            })
            .collect::<Vec<_>>()
            .join(" AND ");
        Self::scoped(terms, scope)
    }

    /// The one word of a query that is a single word (no phrase, prefix or
    /// alternative): the queries the impact tiers rank exactly.
    pub fn single_word(&self) -> Option<&Term> {
        match (self.terms.as_slice(), self.clauses.as_slice()) {
            ([term], [_]) if term.tokens.len() == 1 && !term.prefix => Some(term),
            _ => None,
        }
    }

    /// The expression of [`Query::single_word`] limited to the messages in
    /// which it weighs enough for `tier` and no better one (see
    /// [`tiers`]): its marker of that tier alone, which a message holds as
    /// often as the word, so it scores as the word does and FTS5 reads only
    /// the marker's list, not the word's.
    pub fn tier_expression(&self, tier: usize, scope: Option<&str>) -> Option<String> {
        let word = self.single_word()?;
        let terms = format!("\"{}\"", tiers::marker(tier, &word.text));
        Some(Self::scoped(terms, scope))
    }

    /// `terms` limited to the text column, and to `scope` when given.
    pub(crate) fn scoped(terms: String, scope: Option<&str>) -> String {
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
        let mut spans = Vec::new();
        scan(&self.patterns(), text, &mut |_, _, _, span| {
            spans.push(span);
            ControlFlow::Continue(())
        });
        spans.sort_by_key(|span| (span.start, span.end));
        spans
    }

    /// The first of [`Query::match_spans`], found without collecting them:
    /// the scan stops as soon as no later match can start before it, and
    /// holds only the last few tokens meanwhile, so a long text costs no
    /// memory.
    pub fn first_match(&self, text: &str) -> Option<Range<usize>> {
        let patterns = self.patterns();
        let longest = patterns.iter().map(|p| p.tokens.len()).max()?;
        let mut best: Option<(usize, Range<usize>)> = None;
        scan(&patterns, text, &mut |_, first, last, span| {
            if let Some((best_first, best_span)) = &best {
                if last >= best_first + longest {
                    // This and every later match start after the best one.
                    return ControlFlow::Break(());
                }
                if (span.start, span.end) >= (best_span.start, best_span.end) {
                    return ControlFlow::Continue(());
                }
            }
            best = Some((first, span));
            ControlFlow::Continue(())
        });
        best.map(|(_, span)| span)
    }

    /// Each term as a pattern of tokens.
    fn patterns(&self) -> Vec<Pattern<'_>> {
        self.terms
            .iter()
            .map(|term| Pattern {
                tokens: &term.tokens,
                prefix: term.prefix,
            })
            .collect()
    }
}

/// Tokens a text is matched against, as a term's (see [`scan`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pattern<'a> {
    /// The tokens, in order.
    pub tokens: &'a [String],
    /// The last token matches any token it starts.
    pub prefix: bool,
}

/// Calls `found` with the index of the pattern, the indices of its first
/// and last tokens and the byte range of each match of one of `patterns`
/// in `text`, in the order the matches end, until it breaks. Holds only the
/// last tokens, as many as the longest pattern.
pub(crate) fn scan(
    patterns: &[Pattern<'_>],
    text: &str,
    found: &mut dyn FnMut(usize, usize, usize, Range<usize>) -> ControlFlow<()>,
) {
    let longest = patterns.iter().map(|p| p.tokens.len()).max().unwrap_or(0);
    if longest == 0 {
        return;
    }
    // The patterns a token may end: by their last token, prefixes always.
    let mut ending: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut prefixes = Vec::new();
    for (index, pattern) in patterns.iter().enumerate() {
        match pattern.tokens.last() {
            Some(_) if pattern.prefix => prefixes.push(index),
            Some(last) => ending.entry(last.as_str()).or_default().push(index),
            None => {}
        }
    }
    let mut recent: VecDeque<(String, usize, usize)> = VecDeque::with_capacity(longest);
    let mut count = 0;
    let _ = Tokenizer::new(INDEX_OPTIONS).tokenize(text.as_bytes(), &mut |token| {
        // The oldest entry's buffer is reused: no allocation per token.
        let mut entry = if recent.len() == longest {
            recent.pop_front().unwrap_or_default()
        } else {
            Default::default()
        };
        entry.0.clear();
        entry.0.push_str(token.text);
        (entry.1, entry.2) = (token.start, token.end);
        recent.push_back(entry);
        count += 1;
        let candidates = ending
            .get(token.text)
            .into_iter()
            .flatten()
            .chain(&prefixes);
        for &index in candidates {
            let pattern = patterns[index];
            let n = pattern.tokens.len();
            if n > recent.len() {
                continue;
            }
            let window = recent.range(recent.len() - n..);
            let last = n - 1;
            let matches = window
                .zip(pattern.tokens)
                .enumerate()
                .all(|(i, (doc, query))| {
                    if i == last && pattern.prefix {
                        doc.0.starts_with(query.as_str())
                    } else {
                        doc.0 == *query
                    }
                });
            let start = recent[recent.len() - n].1;
            if matches && found(index, count - n, count - 1, start..token.end).is_break() {
                return Err(());
            }
        }
        Ok(())
    });
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
    fn phrases_with_a_common_word_before_another_are_matched_with_pairs() {
        assert_eq!(
            expression(r#""fix the error" "the""#),
            format!(r#""{}" AND "the""#, pair_string("fix the error"))
        );
        assert_eq!(expression(r#""failed to""#), r#""failed to""#);
        assert_eq!(
            expression(r#""failed to start""#),
            format!(r#""{}""#, pair_string("failed to start"))
        );
        assert_eq!(expression(r#""failed badly""#), r#""failed badly""#);
        assert_eq!(
            expression(r#"the*"#),
            format!(
                r#"("{}*the" OR "the" OR "their" OR "them" OR "then" OR "there" OR "these" OR "they")"#,
                MARKER
            )
        );
        assert_eq!(expression(r#"fix.the.err*"#), r#""fix.the.err"*"#);
    }

    #[test]
    fn words_and_phrases_become_quoted_strings() {
        assert_eq!(expression("staging deploy"), r#""staging" AND "deploy""#);
        assert_eq!(
            expression(r#""staging deploy" failed"#),
            r#""staging deploy" AND "failed""#
        );
        assert_eq!(
            expression("dep*"),
            format!(r#"("{}*dep" OR "dep" OR "deploy")"#, MARKER)
        );
        assert_eq!(expression("conf*"), r#""conf"*"#);
        // Longer prefixes stay FTS5 prefixes.
        assert_eq!(expression("confi*"), r#""confi"*"#);
        assert_eq!(expression("configura*"), r#""configura"*"#);
    }

    #[test]
    fn punctuation_paths_and_keywords_are_text() {
        assert_eq!(expression("src/main.py"), r#""src/main.py""#);
        assert_eq!(
            expression("alice@example.com #123"),
            r##""alice@example.com" AND "#123""##
        );
        assert_eq!(
            expression("NOT AND NEAR(x b)"),
            r#""NOT" AND "AND" AND "NEAR(x" AND "b)""#
        );
        assert_eq!(expression(r#"say "hello"#), r#""say" AND "hello""#);
    }

    #[test]
    fn a_bare_or_between_terms_makes_alternatives() {
        assert_eq!(
            expression("staging OR prod deploy"),
            r#"("staging" OR "prod") AND "deploy""#
        );
        assert_eq!(
            expression(r#"a OR "b c" OR d*"#),
            r#"("a" OR "b c" OR "d"*)"#
        );
        // At either end, quoted or in lower case, it is a word.
        assert_eq!(
            expression("OR deploy OR x"),
            r#""OR" AND ("deploy" OR "x")"#
        );
        assert_eq!(expression("deploy OR"), r#""deploy" AND "OR""#);
        assert_eq!(
            expression(r#"a "OR" b or c"#),
            r#""a" AND "OR" AND "b" AND "or" AND "c""#
        );
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

    proptest::proptest! {
        #[test]
        fn the_first_match_is_the_first_of_all_matches(
            text in proptest::collection::vec(0..6usize, 0..40),
            query in proptest::collection::vec((0..6usize, 1..3usize, proptest::bool::ANY), 1..4),
        ) {
            const WORDS: [&str; 6] = ["deploy", "de", "staging", "東京", "deployment", "x"];
            let text: Vec<&str> = text.iter().map(|&w| WORDS[w]).collect();
            let text = text.join(" ");
            let terms: Vec<String> = query
                .iter()
                .map(|&(w, n, prefix)| match (n, prefix) {
                    (1, true) => format!("{}*", WORDS[w]),
                    (1, false) => WORDS[w].to_owned(),
                    _ => format!("\"{} {}\"", WORDS[w], WORDS[(w + 1) % WORDS.len()]),
                })
                .collect();
            let query = Query::parse(&terms.join(" ")).unwrap();
            proptest::prop_assert_eq!(
                query.first_match(&text),
                query.match_spans(&text).into_iter().next()
            );
        }
    }
}
