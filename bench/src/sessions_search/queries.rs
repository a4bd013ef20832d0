//! The query sets, sampled from the database's own messages with a fixed
//! seed, so that every child process draws the same ones and frequent words
//! are asked for as often as they occur.
//!
//! A message is drawn with a probability proportional to its length (a
//! uniform position in the text), among the searchable ones (user and
//! assistant); then a token of it, by the engine's own tokenizer, so that a
//! query word is a whole token for session-search as well as for
//! `unicode61` and the `LIKE` scan.

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use session_search::tokenizer::{is_spaceless, Tokenizer};
use session_search_engine::query::{Query as EngineQuery, INDEX_OPTIONS};

/// Queries per set.
pub const QUERIES_PER_SET: usize = 100;

/// Shortest word of the word sets, in characters (phrases take any).
pub const MIN_WORD_CHARS: usize = 3;

/// Seed of the sampler.
const SEED: u64 = 0x5E55_0302;

/// Most matches in the whole index of a word of the rare set.
pub const RARE_MATCHES: u64 = 100;

/// A kind of query set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SetKind {
    /// One word (drawn as it occurs, so mostly common ones).
    Word,
    /// One word found in at most [`RARE_MATCHES`] messages.
    Rare,
    /// Two words of the same message.
    TwoWords,
    /// Two or three consecutive words of a message, as a quoted phrase.
    Phrase,
    /// The first characters of a word of at least 4, 3 of them or more
    /// and fewer than the word's (`dep*`, `deploym*`), as a prefix.
    Prefix,
    /// The first 2 characters of a word of at least 3 (`de*`), as a prefix.
    ShortPrefix,
    /// One character of a CJK run.
    Cjk1,
    /// Two consecutive characters of a CJK run.
    Cjk,
    /// A drawn word with letters added that no message holds.
    NoMatch,
}

impl SetKind {
    /// Every set, in the order they are run.
    pub const ALL: [SetKind; 9] = [
        SetKind::Word,
        SetKind::Rare,
        SetKind::TwoWords,
        SetKind::Phrase,
        SetKind::Prefix,
        SetKind::ShortPrefix,
        SetKind::Cjk1,
        SetKind::Cjk,
        SetKind::NoMatch,
    ];

    /// Its name, as printed.
    pub fn label(self) -> &'static str {
        match self {
            SetKind::Word => "1 word",
            SetKind::Rare => "rare word",
            SetKind::TwoWords => "2 words",
            SetKind::Phrase => "phrase",
            SetKind::Prefix => "prefix",
            SetKind::ShortPrefix => "2-char prefix",
            SetKind::Cjk1 => "1 CJK char",
            SetKind::Cjk => "2 CJK chars",
            SetKind::NoMatch => "no match",
        }
    }
}

/// One query in the three forms the searches take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Query {
    /// What `sessions_search` is asked: words, or a "quoted phrase".
    pub text: String,
    /// The `LIKE` patterns that must all match.
    pub like: Vec<String>,
    /// The FTS5 expression of the OpenClaw-style query: each word or phrase
    /// quoted, joined by `AND`.
    pub fts: String,
}

/// Whether the engine's index holds `text` in at most `n` messages.
fn matches_at_most(conn: &Connection, text: &str, n: u64) -> rusqlite::Result<bool> {
    let Ok(query) = EngineQuery::parse(text) else {
        return Ok(false);
    };
    let count: u64 = conn
        .prepare_cached(
            "SELECT count(*) FROM (SELECT 1 FROM session_search_fts WHERE session_search_fts MATCH ?1 LIMIT ?2)",
        )?
        .query_row((query.fts5_expression(None), n + 1), |row| row.get(0))?;
    Ok(count <= n)
}

impl Query {
    /// A query for the words that start with `stem`.
    fn prefix(stem: &str) -> Query {
        Query {
            text: format!("{stem}*"),
            like: vec![format!("%{stem}%")],
            fts: format!("\"{stem}\"*"),
        }
    }

    /// A query for all of `terms`, each a word or (when `phrase`) words
    /// separated by single spaces.
    fn new(terms: &[&str], phrase: bool) -> Query {
        let quoted: Vec<String> = terms.iter().map(|t| format!("\"{t}\"")).collect();
        Query {
            text: if phrase {
                quoted.join(" ")
            } else {
                terms.join(" ")
            },
            like: terms.iter().map(|t| format!("%{t}%")).collect(),
            fts: quoted.join(" AND "),
        }
    }
}

/// A set of queries.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QuerySet {
    /// Which set.
    pub kind: SetKind,
    /// The queries.
    pub queries: Vec<Query>,
}

/// Draws every set from the messages of `conn`.
///
/// # Errors
///
/// Any SQLite error.
pub fn sample(conn: &Connection) -> rusqlite::Result<Vec<QuerySet>> {
    let mut sampler = Sampler::new(conn)?;
    SetKind::ALL
        .into_iter()
        .map(|kind| {
            let mut queries = Vec::with_capacity(QUERIES_PER_SET);
            while queries.len() < QUERIES_PER_SET {
                if let Some(query) = sampler.query(kind)? {
                    queries.push(query);
                }
            }
            Ok(QuerySet { kind, queries })
        })
        .collect()
}

/// Draws messages and the queries in them.
struct Sampler<'c> {
    conn: &'c Connection,
    rng: crate::rng::Rng,
    tokenizer: Tokenizer,
    max_id: i64,
    max_bytes: usize,
}

impl<'c> Sampler<'c> {
    fn new(conn: &'c Connection) -> rusqlite::Result<Sampler<'c>> {
        let (max_id, max_bytes): (i64, i64) = conn.query_row(
            "SELECT max(id), max(length(CAST(content AS BLOB))) FROM messages",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        Ok(Sampler {
            conn,
            rng: crate::rng::Rng::new(SEED),
            tokenizer: Tokenizer::new(INDEX_OPTIONS),
            max_id,
            max_bytes: usize::try_from(max_bytes).unwrap_or(1).max(1),
        })
    }

    /// A searchable message, drawn with a probability proportional to its
    /// length; one with a CJK character when `cjk`.
    fn message(&mut self, cjk: bool) -> rusqlite::Result<String> {
        loop {
            let id = 1 + self.rng.below(usize::try_from(self.max_id).unwrap_or(1)) as i64;
            let (role, content): (String, String) = self
                .conn
                .prepare_cached("SELECT role, content FROM messages WHERE id = ?1")?
                .query_row([id], |row| Ok((row.get(0)?, row.get(1)?)))?;
            if role != "user" && role != "assistant" {
                continue;
            }
            if !self
                .rng
                .chance(content.len() as f64 / self.max_bytes as f64)
            {
                continue;
            }
            if cjk && !content.chars().any(is_spaceless) {
                continue;
            }
            return Ok(content);
        }
    }

    /// One query of `kind` from a drawn message, or `None` when that
    /// message has none.
    fn query(&mut self, kind: SetKind) -> rusqlite::Result<Option<Query>> {
        let text = self.message(matches!(kind, SetKind::Cjk | SetKind::Cjk1))?;
        let tokens = self.tokenizer.tokens(text.as_bytes());
        let ascii = |token: &str| token.bytes().all(|b| b.is_ascii_alphanumeric());
        let words: Vec<&str> = tokens
            .iter()
            .map(|(token, ..)| token.as_str())
            .filter(|token| ascii(token) && token.len() >= MIN_WORD_CHARS)
            .collect();
        Ok(match kind {
            SetKind::Word if !words.is_empty() => {
                Some(Query::new(&[words[self.rng.below(words.len())]], false))
            }
            SetKind::Rare if !words.is_empty() => {
                let word = words[self.rng.below(words.len())];
                matches_at_most(self.conn, word, RARE_MATCHES)?.then(|| Query::new(&[word], false))
            }
            SetKind::NoMatch if !words.is_empty() => {
                let word = format!(
                    "{}qz{}",
                    words[self.rng.below(words.len())],
                    self.rng.below(1000)
                );
                matches_at_most(self.conn, &word, 0)?.then(|| Query::new(&[&word], false))
            }
            SetKind::Prefix | SetKind::ShortPrefix => {
                let shortest = if kind == SetKind::Prefix { 4 } else { 3 };
                let long: Vec<&str> = words
                    .iter()
                    .copied()
                    .filter(|w| w.len() >= shortest)
                    .collect();
                if long.is_empty() {
                    return Ok(None);
                }
                let word = long[self.rng.below(long.len())];
                let length = if kind == SetKind::Prefix {
                    self.rng.between(3, word.len() - 1)
                } else {
                    2
                };
                Some(Query::prefix(&word[..length]))
            }
            SetKind::TwoWords if words.len() >= 2 => {
                let first = words[self.rng.below(words.len())];
                let second = words[self.rng.below(words.len())];
                (first != second).then(|| Query::new(&[first, second], false))
            }
            SetKind::Phrase => {
                let n = self.rng.between(2, 3);
                if tokens.len() < n {
                    return Ok(None);
                }
                let window = &tokens[self.rng.below(tokens.len() - n + 1)..][..n];
                let consecutive = window.iter().all(|(token, ..)| ascii(token))
                    && window
                        .windows(2)
                        .all(|pair| &text[pair[0].2..pair[1].1] == " ");
                consecutive.then(|| {
                    let phrase: Vec<&str> = window.iter().map(|(t, ..)| t.as_str()).collect();
                    Query::new(&[&phrase.join(" ")], true)
                })
            }
            SetKind::Cjk | SetKind::Cjk1 => {
                let n = if kind == SetKind::Cjk { 2 } else { 1 };
                let mut at = self.rng.below(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                let run: String = text[at..].chars().take(n).collect();
                (run.chars().count() == n && run.chars().all(is_spaceless))
                    .then(|| Query::new(&[&run], false))
            }
            _ => None,
        })
    }
}
