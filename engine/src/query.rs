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

use crate::pairs;
use crate::prefixes;
use crate::tiers;
use crate::tokenizer::{Options, Tokenizer};
use std::collections::VecDeque;
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

/// How many tokens apart a question's content words may be in the messages
/// the any-term fill puts first (see [`Query::near_pairs_ranked_by`]): FTS5's
/// own default for `NEAR`, about a sentence.
pub const NEAR_TOKENS: usize = 10;

/// The most terms whose pairs [`Query::near_pairs_ranked_by`] joins (28
/// pairs): the groups grow with the square of the terms, and a query may
/// hold hundreds of words.
pub const NEAR_MOST_TERMS: usize = 8;

/// Words that frame a question rather than say what it is about
/// (interrogatives, auxiliaries, pronouns, function words, the verbs of
/// asking about a conversation or a decision and words of when: "where did
/// we discuss…", "did we decide to use…", "last week"), sorted. The
/// any-term fill leaves them out unless the query has nothing else.
const FRAMING_WORDS: [&str; 126] = [
    "a",
    "about",
    "again",
    "ago",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "ask",
    "asked",
    "at",
    "be",
    "been",
    "before",
    "being",
    "by",
    "can",
    "chat",
    "chats",
    "choose",
    "chose",
    "chosen",
    "conversation",
    "conversations",
    "could",
    "day",
    "decide",
    "decided",
    "did",
    "discuss",
    "discussed",
    "discussing",
    "do",
    "does",
    "doing",
    "done",
    "earlier",
    "ever",
    "find",
    "for",
    "from",
    "had",
    "has",
    "have",
    "he",
    "here",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "last",
    "look",
    "looked",
    "may",
    "me",
    "mention",
    "mentioned",
    "might",
    "must",
    "my",
    "of",
    "on",
    "or",
    "our",
    "pick",
    "picked",
    "recall",
    "remember",
    "remind",
    "said",
    "say",
    "see",
    "seen",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "talk",
    "talked",
    "talking",
    "tell",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "time",
    "to",
    "today",
    "told",
    "up",
    "us",
    "use",
    "used",
    "using",
    "was",
    "we",
    "week",
    "were",
    "what",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "yesterday",
    "you",
    "your",
];

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
                    if c.is_control() || c == '"' || c == tiers::MARKER {
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
    /// those tokens' strings (see [`prefixes`]); a phrase (not a prefix)
    /// with a common word next to another word is matched with pair tokens
    /// (see [`pairs`]).
    fn fts5_phrases(&self, index: usize) -> Vec<String> {
        let term = &self.terms[index];
        let pairs = pairs::phrase_has_pairs(&term.tokens);
        let one = if term.prefix {
            if let [token] = term.tokens.as_slice() {
                if let Some(alternatives) = prefixes::query_alternatives(&term.text, token) {
                    return alternatives;
                }
            }
            format!("\"{}\"*", term.text)
        } else if pairs {
            format!("\"{}\"", pairs::query_string(&term.text))
        } else {
            format!("\"{}\"", term.text)
        };
        vec![one]
    }

    /// A term in an FTS5 expression: its strings, in parentheses joined by
    /// `OR` when they are several.
    fn fts5_term(&self, index: usize) -> String {
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
    /// [`crate::tiers`]): its marker of that tier alone, which a message
    /// holds as often as the word, so it scores as the word does and FTS5
    /// reads only the marker's list, not the word's.
    pub fn tier_expression(&self, tier: usize, scope: Option<&str>) -> Option<String> {
        let word = self.single_word()?;
        let terms = format!("\"{}\"", tiers::marker(tier, &word.text));
        Some(Self::scoped(terms, scope))
    }

    /// Whether the term at `index` is one word that only frames a
    /// question (an interrogative, auxiliary, pronoun, function word or verb
    /// of asking about a conversation).
    pub fn frames_question(&self, index: usize) -> bool {
        let term = &self.terms[index];
        match term.tokens.as_slice() {
            [word] if !term.prefix => FRAMING_WORDS.binary_search(&word.as_str()).is_ok(),
            _ => false,
        }
    }

    /// Whether some hits of [`Query::fts5_expression`] may miss a term, so
    /// that an any-term search can find more: two clauses or more.
    pub fn has_partial_matches(&self) -> bool {
        self.clauses.len() > 1
    }

    /// An expression that matches any of the terms at `indices` (all terms
    /// for a plain any-term search).
    pub fn any_term_expression(&self, indices: &[usize], scope: Option<&str>) -> String {
        Self::scoped(self.alternatives(indices), scope)
    }

    /// An expression that matches any of the terms at `required` and puts
    /// the terms at `scored` first, and how many phrases those are, so that
    /// ranking the leading phrases scores a match by all of those terms:
    /// the messages that hold a rare term, ranked by every term they hold.
    pub fn any_term_ranked_by(
        &self,
        scored: &[usize],
        required: &[usize],
        scope: Option<&str>,
    ) -> (String, usize) {
        self.ranked_by(scored, &self.alternatives(required), scope)
    }

    /// The messages matching FTS5 expression `required` that hold one of
    /// the terms at `scored`, those terms' phrases first, and how many
    /// phrases those are.
    fn ranked_by(&self, scored: &[usize], required: &str, scope: Option<&str>) -> (String, usize) {
        let terms = format!("({}) AND ({required})", self.alternatives(scored));
        let phrases = scored.iter().map(|&i| self.fts5_phrases(i).len()).sum();
        (Self::scoped(terms, scope), phrases)
    }

    /// Like [`Query::any_term_ranked_by`], the messages holding two of the
    /// terms at `scored` within [`NEAR_TOKENS`] tokens of each other (one
    /// `NEAR` group per pair), ranked by every one of those terms they
    /// hold: where a question's content words are discussed together. Terms
    /// that are several FTS5 strings (a prefix read through its prefix
    /// tokens) join no group, as `NEAR` cannot hold them, and only the first
    /// [`NEAR_MOST_TERMS`] of the others do; `None` when fewer than two
    /// remain.
    pub fn near_pairs_ranked_by(
        &self,
        scored: &[usize],
        scope: Option<&str>,
    ) -> Option<(String, usize)> {
        let phrases: Vec<String> = scored
            .iter()
            .filter_map(|&index| match self.fts5_phrases(index).as_slice() {
                [one] => Some(one.clone()),
                _ => None,
            })
            .take(NEAR_MOST_TERMS)
            .collect();
        let mut groups = Vec::new();
        for (i, first) in phrases.iter().enumerate() {
            for second in &phrases[i + 1..] {
                groups.push(format!("NEAR({first} {second}, {NEAR_TOKENS})"));
            }
        }
        if groups.is_empty() {
            return None;
        }
        Some(self.ranked_by(scored, &groups.join(" OR "), scope))
    }

    fn alternatives(&self, indices: &[usize]) -> String {
        let terms: Vec<String> = indices.iter().map(|&i| self.fts5_term(i)).collect();
        terms.join(" OR ")
    }

    /// `terms` limited to the text column, and to `scope` when given.
    fn scoped(terms: String, scope: Option<&str>) -> String {
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
        self.scan_matches(text, &mut |_, _, span| {
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
        let longest = self.terms.iter().map(|t| t.tokens.len()).max()?;
        let mut best: Option<(usize, Range<usize>)> = None;
        self.scan_matches(text, &mut |first, last, span| {
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

    /// Calls `found` with the indices of its first and last tokens and the
    /// byte range of each match of a term in `text`, in the order the
    /// matches end, until it breaks. Holds only the last tokens, as many as
    /// the longest term.
    fn scan_matches(
        &self,
        text: &str,
        found: &mut dyn FnMut(usize, usize, Range<usize>) -> ControlFlow<()>,
    ) {
        let longest = self.terms.iter().map(|t| t.tokens.len()).max().unwrap_or(0);
        if longest == 0 {
            return;
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
            for term in &self.terms {
                let n = term.tokens.len();
                if n == 0 || n > recent.len() {
                    continue;
                }
                let window = recent.range(recent.len() - n..);
                let last = n - 1;
                let matches = window
                    .zip(&term.tokens)
                    .enumerate()
                    .all(|(i, (doc, query))| {
                        if i == last && term.prefix {
                            doc.0.starts_with(query.as_str())
                        } else {
                            doc.0 == *query
                        }
                    });
                let start = recent[recent.len() - n].1;
                if matches && found(count - n, count - 1, start..token.end).is_break() {
                    return Err(());
                }
            }
            Ok(())
        });
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
    fn phrases_with_a_common_word_next_to_another_are_matched_with_pairs() {
        assert_eq!(
            expression(r#""fix the error" "the""#),
            format!(r#""{}" AND "the""#, pairs::query_string("fix the error"))
        );
        assert_eq!(
            expression(r#""failed to""#),
            format!(r#""{}""#, pairs::query_string("failed to"))
        );
        assert_eq!(expression(r#""failed badly""#), r#""failed badly""#);
        assert_eq!(
            expression(r#"the*"#),
            format!(r#"("{}*the" OR "the")"#, tiers::MARKER)
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
            expression("conf*"),
            format!(r#"("{}*conf" OR "conf")"#, tiers::MARKER)
        );
        assert_eq!(
            expression("confi*"),
            format!(r#"("{}*confi" OR "confi")"#, tiers::MARKER)
        );
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
        let q = Query::parse("staging OR prod deploy").unwrap();
        assert!(q.has_partial_matches());
        let question = Query::parse("Where did we DISCUSS \"the deploy\" of Ünicode the*").unwrap();
        let framing: Vec<bool> = (0..question.terms.len())
            .map(|t| question.frames_question(t))
            .collect();
        // where, did, we, discuss frame it; a phrase, a prefix and a word
        // that says what it is about do not.
        assert_eq!(framing, [true, true, true, true, false, true, false, false]);
        assert!(FRAMING_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(!Query::parse("staging OR prod")
            .unwrap()
            .has_partial_matches());
        assert_eq!(
            q.any_term_expression(&[0, 1, 2], None),
            r#"{text} : ("staging" OR "prod" OR "deploy")"#
        );
    }

    #[test]
    fn near_pairs_join_every_two_single_string_terms_and_score_them_all() {
        let q = Query::parse("staging \"the deploy\" web* rollback").unwrap();
        let (expression, scored) = q.near_pairs_ranked_by(&[0, 3], Some("t61")).unwrap();
        assert_eq!(
            expression,
            r#"{text} : (("staging" OR "rollback") AND (NEAR("staging" "rollback", 10))) AND {scope} : "t61""#
        );
        assert_eq!(scored, 2);
        // A prefix read through its prefix tokens joins no group; a phrase
        // with pairs does.
        let (expression, scored) = q.near_pairs_ranked_by(&[0, 1, 2], None).unwrap();
        let phrase = format!("\"{}\"", pairs::query_string("the deploy"));
        let (_, groups) = expression.split_once(") AND (").unwrap();
        assert_eq!(groups, format!("NEAR(\"staging\" {phrase}, 10)))"));
        assert_eq!(scored, 2 + q.fts5_phrases(2).len());
        assert!(q.near_pairs_ranked_by(&[0], None).is_none());
        assert!(q.near_pairs_ranked_by(&[0, 2], None).is_none());
        // However long the query, the groups stay few.
        let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        let long = Query::parse(&words.join(" ")).unwrap();
        let all: Vec<usize> = (0..40).collect();
        let (expression, _) = long.near_pairs_ranked_by(&all, None).unwrap();
        let pairs = NEAR_MOST_TERMS * (NEAR_MOST_TERMS - 1) / 2;
        assert_eq!(expression.matches("NEAR(").count(), pairs);
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
