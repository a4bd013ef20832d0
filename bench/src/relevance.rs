//! Part `relevance`: the questions people type, on real transcripts.
//!
//! Every real fixture beside the repository (`../shared/fixtures`) is
//! imported into one database, as `session-search import` does. The target
//! messages of `bench/relevance/targets.json` were chosen from them, and
//! each was given three queries before any search was run: its exact words
//! (identifiers, phrases), a question using a few of its words, and a
//! question in other words. A target is found by a substring of its text
//! (its needle), which names its session.
//!
//! Each query is searched with `sessions_search` (visibility `all`, limit
//! 10, every other option default) and, on exactly the rows its index
//! holds (the redacted searchable text), with plain FTS5 tables ranked by
//! `bm25()`, limit 10:
//!
//! - `AND`: `unicode61 remove_diacritics 2` with every word of the query
//!   (OpenClaw's `sessions_search`);
//! - `OR`: the same table with any word of the query that is not a stop
//!   word;
//! - `trigram`: a `trigram` table with any word of at least three
//!   characters that is not a stop word, a run of CJK characters as its
//!   overlapping three-character pieces.
//!
//! A query's rank is that of the first hit in its target's session; hit@1,
//! hit@10 and MRR (over the first 10) are reported per query style, and
//! for the CJK targets' questions apart.

use crate::report::Target;
use crate::stats::{median, sorted};
use crate::store::databases;
use rusqlite::Connection;
use serde::Deserialize;
use session_search::{SearchOptions, SearchRequest, Store, Visibility};
use session_search_engine::content;
use session_search_import::{import_files, import_path, ImportOptions};
use std::collections::HashSet;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Results per search: the first page.
const LIMIT: usize = 10;

/// The share of the questions in other words whose session must be on the
/// first page.
const OTHER_WORDS_HIT10: f64 = 0.75;

/// One target message of `bench/relevance/targets.json` and its queries.
#[derive(Debug, Clone, Deserialize)]
struct Case {
    id: String,
    needle: String,
    kind: String,
    exact: String,
    question: String,
    other: String,
}

/// The query styles, in the order printed.
const STYLES: [&str; 3] = [
    "exact words",
    "question, its words",
    "question, other words",
];

/// The searches compared.
const SEARCHES: [&str; 4] = [
    "sessions_search",
    "AND of words",
    "OR minus stop words",
    "trigram",
];

/// English stop words the `OR` and `trigram` anchors leave out.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "being", "between", "both", "but", "by", "can", "could", "did", "do", "does",
    "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has", "have",
    "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into", "is",
    "it", "its", "itself", "just", "me", "more", "most", "my", "no", "nor", "not", "now", "of",
    "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own", "same", "she",
    "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "then",
    "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
    "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why",
    "will", "with", "would", "you", "your", "yours",
];

/// Runs the part and returns its targets.
///
/// # Errors
///
/// A fixture or the targets file that cannot be read, a needle that names
/// no session, SQLite errors.
pub fn run(work: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures = root.join("../../shared/fixtures");
    let targets: Vec<Case> = serde_json::from_str(&std::fs::read_to_string(
        root.join("relevance/targets.json"),
    )?)?;
    let path = work.join("relevance.db");
    let store = Store::open(&path)?;
    import_every_fixture(&store, &fixtures)?;
    let rows = indexed_rows(&store)?;
    let written = written_rows(&store)?;
    let anchors = Anchors::build(&rows)?;
    let caller: String =
        store
            .connection()
            .query_row("SELECT min(session_key) FROM sessions", [], |row| {
                row.get(0)
            })?;
    println!(
        "\n=== part relevance: {} target messages of the real fixtures, 3 queries each ===",
        targets.len()
    );
    println!("{}", legend(rows.len(), &store)?);
    let mut outcomes = Vec::new();
    let mut latencies = Vec::new();
    for target in &targets {
        let sessions = sessions_holding(&written, &target.needle);
        if sessions.is_empty() {
            return Err(format!(
                "{}: no searchable message holds {:?}",
                target.id, target.needle
            )
            .into());
        }
        for (style, query) in [&target.exact, &target.question, &target.other]
            .into_iter()
            .enumerate()
        {
            let started = Instant::now();
            let response = store.search(&SearchRequest {
                query: query.clone(),
                options: SearchOptions {
                    caller: Some(caller.clone()),
                    visibility: Visibility::All,
                    limit: Some(LIMIT as i64),
                    ..SearchOptions::default()
                },
            })?;
            latencies.push(started.elapsed().as_secs_f64() * 1e3);
            let ours: Vec<String> = response
                .results
                .into_iter()
                .map(|hit| hit.session_key)
                .collect();
            let mut ranks = vec![rank(&ours, &sessions)];
            let mut empty = vec![ours.is_empty()];
            for anchor in anchors.search(query)? {
                ranks.push(rank(&anchor, &sessions));
                empty.push(anchor.is_empty());
            }
            outcomes.push(Outcome {
                target: target.id.clone(),
                cjk: target.kind == "cjk",
                style,
                ranks,
                empty,
            });
        }
    }
    print_outcomes(&outcomes);
    let latencies = sorted(latencies);
    println!(
        "sessions_search latency over these {} searches: median {:.2} ms, max {:.2} ms",
        latencies.len(),
        median(&latencies),
        latencies.last().copied().unwrap_or(0.0)
    );
    drop(store);
    databases::remove(&path)?;
    Ok(relevance_targets(&outcomes))
}

/// Imports the fixtures as `session-search import` does, then each file of
/// them that the walk did not take by its name (a Claude.ai export, a
/// Gemini CLI conversation saved under another name) by its contents.
fn import_every_fixture(store: &Store, fixtures: &Path) -> Result<(), Box<dyn Error>> {
    let walked: HashSet<PathBuf> = import_path(store, fixtures, &ImportOptions::default())?
        .files
        .into_iter()
        .map(|file| file.path)
        .collect();
    let mut others = Vec::new();
    let mut folders = vec![fixtures.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder)? {
            let path = entry?.path();
            let transcript_like = path
                .extension()
                .is_some_and(|e| e == "json" || e == "jsonl" || e == "md");
            if path.is_dir() {
                folders.push(path);
            } else if transcript_like && !walked.contains(&path) {
                others.push(path);
            }
        }
    }
    others.sort();
    import_files(store, &others, &ImportOptions::default())?;
    Ok(())
}

/// The rows the index holds, as `(session_key, text)`: the redacted
/// searchable text of the messages on their session's active branch.
fn indexed_rows(store: &Store) -> Result<Vec<(String, String)>, Box<dyn Error>> {
    let conn = store.connection();
    let mut statement = conn.prepare(
        "SELECT m.session_key, t.text FROM session_search_text t JOIN messages m ON m.id = ~t.id",
    )?;
    let rows = statement
        .query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?))
        })?
        .filter_map(|row| match row {
            Ok((key, Some(text))) => Some(Ok((key, text))),
            Ok(_) => None,
            Err(e) => Some(Err(e)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The searchable text of every user and assistant message as written
/// (before redaction, which the needles were not chosen to avoid), as
/// `(session_key, text)`.
fn written_rows(store: &Store) -> Result<Vec<(String, String)>, Box<dyn Error>> {
    let conn = store.connection();
    let mut statement = conn
        .prepare("SELECT session_key, CAST(content AS BLOB) FROM messages WHERE role IN ('user', 'assistant')")?;
    let rows = statement
        .query_map([], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, Vec<u8>>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows
        .into_iter()
        .filter_map(|(key, content)| Some((key, content::searchable_text(&content)?.into_owned())))
        .collect())
}

/// The sessions of the rows whose text holds `needle`.
fn sessions_holding(rows: &[(String, String)], needle: &str) -> HashSet<String> {
    rows.iter()
        .filter(|(_, text)| text.contains(needle))
        .map(|(key, _)| key.clone())
        .collect()
}

/// The rank (from 1) of the first of `found` in `sessions`.
fn rank(found: &[String], sessions: &HashSet<String>) -> Option<usize> {
    found
        .iter()
        .take(LIMIT)
        .position(|key| sessions.contains(key))
        .map(|at| at + 1)
}

/// What the legend says about the database and the anchors.
fn legend(rows: usize, store: &Store) -> Result<String, Box<dyn Error>> {
    let sessions: i64 =
        store
            .connection()
            .query_row("SELECT count(*) FROM sessions", [], |row| row.get(0))?;
    Ok(format!(
        "Every fixture of ../shared/fixtures imported (import_path, then each other file by its contents), {rows} searchable messages in
{sessions} sessions. Each query as typed, with sessions_search (visibility all, limit {LIMIT}) and with
plain FTS5 tables over exactly the rows its index holds, bm25() order, limit {LIMIT}: AND of words
(unicode61 remove_diacritics 2, every word: OpenClaw-style), OR of its words minus English stop
words (same table), trigram (OR of its words of 3+ characters minus stop words, CJK runs as
overlapping 3-character pieces). A query's rank: the first hit in its target's session. Queries
were written before any search ran (bench/relevance/targets.json)."
    ))
}

/// The outcome of one query.
#[derive(Debug, Clone)]
struct Outcome {
    target: String,
    cjk: bool,
    /// Index into [`STYLES`].
    style: usize,
    /// Rank per search of [`SEARCHES`].
    ranks: Vec<Option<usize>>,
    /// Whether each search found nothing.
    empty: Vec<bool>,
}

/// hit@1, hit@10 and MRR of `outcomes` for search `search`.
fn scores(outcomes: &[&Outcome], search: usize) -> [f64; 3] {
    let n = outcomes.len().max(1) as f64;
    let at = |k: usize| {
        outcomes
            .iter()
            .filter(|o| o.ranks[search].is_some_and(|r| r <= k))
            .count() as f64
            / n
    };
    let mrr = outcomes
        .iter()
        .filter_map(|o| o.ranks[search])
        .map(|r| 1.0 / r as f64)
        .fold(0.0, |sum, r| sum + r)
        / n;
    [at(1), at(LIMIT), mrr]
}

/// The groups of outcomes reported: each style, and the CJK targets'
/// questions using their words.
fn groups(outcomes: &[Outcome]) -> Vec<(String, Vec<&Outcome>)> {
    let mut groups: Vec<(String, Vec<&Outcome>)> = STYLES
        .iter()
        .enumerate()
        .map(|(style, name)| {
            (
                (*name).to_owned(),
                outcomes.iter().filter(|o| o.style == style).collect(),
            )
        })
        .collect();
    groups.push((
        "CJK question, its words".to_owned(),
        outcomes.iter().filter(|o| o.cjk && o.style == 1).collect(),
    ));
    groups
}

fn print_outcomes(outcomes: &[Outcome]) {
    println!(
        "\n{:<26} {:>5}  {}",
        "style",
        "n",
        SEARCHES
            .iter()
            .map(|s| format!("{s:>22}"))
            .collect::<Vec<_>>()
            .join("")
    );
    println!(
        "{:<26} {:>5}  {}",
        "",
        "",
        "   hit@1 hit@10   MRR".repeat(SEARCHES.len())
    );
    for (name, group) in groups(outcomes) {
        let cells: Vec<String> = (0..SEARCHES.len())
            .map(|search| {
                let [h1, h10, mrr] = scores(&group, search);
                format!("   {h1:>5.2} {h10:>6.2} {mrr:>5.2}")
            })
            .collect();
        println!("{name:<26} {:>5}  {}", group.len(), cells.concat());
    }
    let missed: Vec<String> = outcomes
        .iter()
        .filter(|o| o.ranks[0].is_none())
        .map(|o| format!("{} ({})", o.target, ["exact", "question", "other"][o.style]))
        .collect();
    println!(
        "\nnot in sessions_search's top {LIMIT} ({}): {}",
        missed.len(),
        missed.join(", ")
    );
}

/// The targets: every style at or above the best anchor in hit@10 and MRR,
/// questions in other words hit@10 at least [`OTHER_WORDS_HIT10`], no empty
/// answer to a CJK question that uses words of its answer.
fn relevance_targets(outcomes: &[Outcome]) -> Vec<Target> {
    let mut targets = Vec::new();
    for (name, group) in groups(outcomes) {
        let ours = scores(&group, 0);
        let best = (1..SEARCHES.len()).fold([0.0f64; 3], |best, search| {
            let s = scores(&group, search);
            [best[0].max(s[0]), best[1].max(s[1]), best[2].max(s[2])]
        });
        for (metric, index) in [("hit@10", 1), ("MRR", 2)] {
            targets.push(Target::at_least(
                format!(
                    "relevance, {name}: {metric} against the best anchor ({:.2})",
                    best[index]
                ),
                ours[index] - best[index],
                0.0,
                " difference",
            ));
        }
        if name == STYLES[2] {
            targets.push(Target::at_least(
                format!("relevance, {name}: hit@10"),
                ours[1],
                OTHER_WORDS_HIT10,
                "",
            ));
        }
    }
    let empty = outcomes
        .iter()
        .filter(|o| o.cjk && o.style == 1 && o.empty[0])
        .count();
    targets.push(Target::new(
        "relevance: CJK questions using words of their answer that find nothing".into(),
        empty as f64,
        0.0,
        "",
    ));
    targets
}

/// The anchors' FTS5 tables, in memory, over the rows of the index.
struct Anchors {
    conn: Connection,
    /// The session of each row, by rowid (from 1).
    sessions: Vec<String>,
}

impl Anchors {
    fn build(rows: &[(String, String)]) -> Result<Anchors, Box<dyn Error>> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(
            "CREATE VIRTUAL TABLE words USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
             CREATE VIRTUAL TABLE grams USING fts5(text, tokenize = 'trigram');",
        )?;
        {
            let mut words = conn.prepare("INSERT INTO words(rowid, text) VALUES (?1, ?2)")?;
            let mut grams = conn.prepare("INSERT INTO grams(rowid, text) VALUES (?1, ?2)")?;
            for (n, (_, text)) in rows.iter().enumerate() {
                words.execute(rusqlite::params![n as i64 + 1, text])?;
                grams.execute(rusqlite::params![n as i64 + 1, text])?;
            }
        }
        Ok(Anchors {
            conn,
            sessions: rows.iter().map(|(key, _)| key.clone()).collect(),
        })
    }

    /// The sessions of each anchor's first [`LIMIT`] hits of `query`: AND,
    /// OR, trigram.
    fn search(&self, query: &str) -> Result<Vec<Vec<String>>, Box<dyn Error>> {
        let words = words(query);
        let content: Vec<&String> = words.iter().filter(|w| !is_stop_word(w)).collect();
        let quoted = |w: &str| format!("\"{}\"", w.replace('"', ""));
        let and = words
            .iter()
            .map(|w| quoted(w))
            .collect::<Vec<_>>()
            .join(" ");
        let or = content
            .iter()
            .map(|w| quoted(w))
            .collect::<Vec<_>>()
            .join(" OR ");
        let grams: Vec<String> = content
            .iter()
            .flat_map(|w| trigram_pieces(w))
            .map(|w| quoted(&w))
            .collect();
        Ok(vec![
            self.hits("words", &and)?,
            self.hits("words", &or)?,
            self.hits("grams", &grams.join(" OR "))?,
        ])
    }

    fn hits(&self, table: &str, expression: &str) -> Result<Vec<String>, Box<dyn Error>> {
        if expression.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT rowid FROM {table} WHERE {table} MATCH ?1 ORDER BY bm25({table}) LIMIT {LIMIT}"
        );
        let mut statement = self.conn.prepare_cached(&sql)?;
        let rowids = statement
            .query_map([expression], |row| row.get::<_, i64>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rowids
            .into_iter()
            .filter_map(|rowid| self.sessions.get(rowid as usize - 1).cloned())
            .collect())
    }
}

/// The words of a query as the anchors take them: runs of letters and
/// digits, lower-cased.
fn words(query: &str) -> Vec<String> {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// What the trigram anchor looks for of a word: itself when it has at least
/// three characters and no CJK, its overlapping three-character pieces when
/// it is a longer CJK run, nothing when shorter than three.
fn trigram_pieces(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    if chars.len() < 3 {
        return Vec::new();
    }
    if !chars
        .iter()
        .any(|&c| session_search::tokenizer::is_spaceless(c))
    {
        return vec![word.to_owned()];
    }
    chars.windows(3).map(|w| w.iter().collect()).collect()
}
