//! Query sampling and latency measurement.
//!
//! Queries are drawn at uniformly random positions of the corpus text, so
//! frequent words and characters are asked for as often as they occur.

use super::indexing::TABLE;
use crate::corpus::{Corpus, Kind};
use crate::rng::Rng;
use crate::search::{fts5_string, search};
use crate::stats::{mean, median, percentile, sorted};
use rusqlite::Connection;
use session_search::tokenizer::is_spaceless;
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// Queries per set.
const QUERIES_PER_SET: usize = 200;

/// Seed of the query sampler.
const SEED: u64 = 0x5E55_0100;

/// A set of queries of one kind.
#[derive(Debug)]
pub struct QuerySet {
    /// What the queries are, as printed: `word`, `1 char`…
    pub label: String,
    /// The queries, unquoted.
    queries: Vec<String>,
    /// For substring queries: how many messages contain each query, by a
    /// scan of the corpus, to check the index against.
    truth: Option<Vec<u64>>,
}

impl QuerySet {
    /// Number of queries.
    pub fn len(&self) -> usize {
        self.queries.len()
    }
}

/// What one tokenizer did with one [`QuerySet`].
#[derive(Debug, Clone, Copy)]
pub struct Latency {
    /// Median latency of the timed statement, in milliseconds.
    pub median_ms: f64,
    /// 95th percentile (nearest rank), in milliseconds.
    pub p95_ms: f64,
    /// Mean number of rows the timed statement returned (at most 10).
    pub mean_rows: f64,
    /// Queries that returned at least one row.
    pub found: usize,
    /// Mean number of matching rows (`count(*)`, untimed).
    pub mean_matches: f64,
    /// Queries whose match count equals the corpus scan's, when known.
    pub exact: Option<usize>,
}

/// The query sets for `corpus`: words for English and Latin, substrings of
/// 1, 2 and 3 characters of CJK runs for CJK.
pub fn sample(corpus: &Corpus) -> Vec<QuerySet> {
    let mut rng = Rng::new(SEED);
    match corpus.kind {
        Kind::English | Kind::Latin => vec![QuerySet {
            label: "word".to_owned(),
            queries: draw(corpus, &mut rng, word_at),
            truth: None,
        }],
        Kind::Cjk => (1..=3)
            .map(|chars| {
                let queries = draw(corpus, &mut rng, |text, at| spaceless_at(text, at, chars));
                let truth = Some(substring_counts(corpus, &queries));
                QuerySet {
                    label: format!("{chars} char"),
                    queries,
                    truth,
                }
            })
            .collect(),
    }
}

/// Mean match count of the corpus scan for `set`, when it has one.
pub fn true_mean_matches(set: &QuerySet) -> Option<f64> {
    set.truth.as_ref().map(|truth| mean(truth.iter().copied()))
}

/// Draws [`QUERIES_PER_SET`] queries: `extract` picks one at a random byte
/// position of a message, or declines.
fn draw(
    corpus: &Corpus,
    rng: &mut Rng,
    extract: impl Fn(&str, usize) -> Option<&str>,
) -> Vec<String> {
    let mut queries = Vec::with_capacity(QUERIES_PER_SET);
    while queries.len() < QUERIES_PER_SET {
        let (text, at) = corpus.random_position(rng);
        if let Some(query) = extract(text, at) {
            queries.push(query.to_owned());
        }
    }
    queries
}

/// The run of letters and digits around byte `at`, if there is one.
fn word_at(text: &str, at: usize) -> Option<&str> {
    let at = floor_char_boundary(text, at);
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| c.is_alphanumeric())
        .last()
        .map_or(at, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .find(|&(_, c)| !c.is_alphanumeric())
        .map_or(text.len(), |(i, _)| at + i);
    (end > start).then(|| &text[start..end])
}

/// The `chars` characters from byte `at` on, if all of them belong to
/// scripts written without spaces.
fn spaceless_at(text: &str, at: usize, chars: usize) -> Option<&str> {
    let start = floor_char_boundary(text, at);
    let mut end = start;
    let mut rest = text[start..].chars();
    for _ in 0..chars {
        let c = rest.next().filter(|&c| is_spaceless(c))?;
        end += c.len_utf8();
    }
    Some(&text[start..end])
}

/// The largest character boundary of `text` at or before `at`.
fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// For each query, the number of messages that contain it.
fn substring_counts(corpus: &Corpus, queries: &[String]) -> Vec<u64> {
    let mut known: HashMap<&str, u64> = HashMap::new();
    queries
        .iter()
        .map(|query| {
            *known.entry(query).or_insert_with(|| {
                corpus
                    .messages
                    .iter()
                    .filter(|m| m.contains(query.as_str()))
                    .count() as u64
            })
        })
        .collect()
}

/// Runs every set against the database `db`: one warm-up pass, then the
/// timed pass, then the untimed match counts.
///
/// # Errors
///
/// Any SQLite error.
pub fn measure(db: &Path, sets: &[QuerySet]) -> session_search::Result<Vec<Latency>> {
    let conn = session_search::open(db)?;
    sets.iter()
        .map(|set| Ok(measure_set(&conn, set)?))
        .collect()
}

/// The timed statement.
pub fn search_sql() -> String {
    format!("SELECT rowid FROM {TABLE} WHERE {TABLE} MATCH ?1 ORDER BY rank LIMIT 10")
}

/// Measures one set.
fn measure_set(conn: &Connection, set: &QuerySet) -> rusqlite::Result<Latency> {
    let quoted: Vec<String> = set.queries.iter().map(|q| fts5_string(q)).collect();
    let search_sql = search_sql();
    let count_sql = format!("SELECT count(*) FROM {TABLE} WHERE {TABLE} MATCH ?1");
    for query in &quoted {
        search(conn, &search_sql, query)?;
    }
    let mut micros = Vec::with_capacity(quoted.len());
    let mut rows = Vec::with_capacity(quoted.len());
    for query in &quoted {
        let start = Instant::now();
        let n = search(conn, &search_sql, query)?;
        micros.push(start.elapsed().as_secs_f64() * 1e6);
        rows.push(n);
    }
    let matches = quoted
        .iter()
        .map(|query| {
            conn.prepare_cached(&count_sql)?
                .query_row([query], |row| row.get(0))
        })
        .collect::<rusqlite::Result<Vec<u64>>>()?;
    let micros = sorted(micros);
    Ok(Latency {
        median_ms: median(&micros) / 1e3,
        p95_ms: percentile(&micros, 0.95) / 1e3,
        mean_rows: mean(rows.iter().copied()),
        found: rows.iter().filter(|&&n| n > 0).count(),
        mean_matches: mean(matches.iter().copied()),
        exact: set
            .truth
            .as_ref()
            .map(|truth| truth.iter().zip(&matches).filter(|(t, m)| t == m).count()),
    })
}
