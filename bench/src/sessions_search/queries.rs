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
use session_search_engine::query::INDEX_OPTIONS;

/// Queries per set.
pub const QUERIES_PER_SET: usize = 100;

/// Shortest word of the word sets, in characters (phrases take any).
pub const MIN_WORD_CHARS: usize = 3;

/// Seed of the sampler.
const SEED: u64 = 0x5E55_0302;

/// A kind of query set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SetKind {
    /// One word.
    Word,
    /// Two words of the same message.
    TwoWords,
    /// Two or three consecutive words of a message, as a quoted phrase.
    Phrase,
    /// Two consecutive characters of a CJK run.
    Cjk,
}

impl SetKind {
    /// Every set, in the order they are run.
    pub const ALL: [SetKind; 4] = [
        SetKind::Word,
        SetKind::TwoWords,
        SetKind::Phrase,
        SetKind::Cjk,
    ];

    /// Its name, as printed.
    pub fn label(self) -> &'static str {
        match self {
            SetKind::Word => "1 word",
            SetKind::TwoWords => "2 words",
            SetKind::Phrase => "phrase",
            SetKind::Cjk => "2 CJK chars",
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

impl Query {
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
        let text = self.message(kind == SetKind::Cjk)?;
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
            SetKind::Cjk => {
                let mut at = self.rng.below(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                let pair: String = text[at..].chars().take(2).collect();
                (pair.chars().count() == 2 && pair.chars().all(is_spaceless))
                    .then(|| Query::new(&[&pair], false))
            }
            _ => None,
        })
    }
}
