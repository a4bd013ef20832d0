//! The timed searches: `sessions_search` through the wrapper's connection
//! (one child process), and the two anchors, a `LIKE` scan and the
//! OpenClaw-style query (another), each set and visibility after a warm-up
//! pass.

use super::build::caller;
use super::queries::{self, Query, QuerySet, SetKind};
use super::{db_path, VISIBILITIES, VISIBLE_SQL};
use crate::memory;
use crate::stats::timed_ms;
use rusqlite::{params_from_iter, Connection};
use serde::{Deserialize, Serialize};
use session_search::{Store, StoreOptions};
use session_search_engine::query::Query as EngineQuery;
use session_search_engine::search::SEARCH_SQL;
use std::error::Error;
use std::path::Path;

/// The statement timed for session-search.
pub const SESSIONS_SEARCH_SQL: &str = "SELECT sessions_search(?1, ?2)";

/// The OpenClaw-style step 1: the visible session keys, to the host.
pub const ENUMERATE_SQL: &str = "SELECT session_key FROM visible";

/// The timed figures of one set at one visibility.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Timed {
    /// Which set.
    pub kind: SetKind,
    /// `tree` or `agent`.
    pub visibility: String,
    /// Milliseconds per query, in the set's order (for the OpenClaw-style
    /// query: both steps).
    pub ms: Vec<f64>,
    /// Milliseconds of step 1 per query (OpenClaw-style only, else empty).
    pub step1_ms: Vec<f64>,
    /// Results returned per query.
    pub results: Vec<u64>,
    /// Queries answered with `truncated: true` (session-search only).
    pub truncated: usize,
}

/// The session-search child's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SearchRun {
    /// The query sets.
    pub sets: Vec<QuerySet>,
    /// Matching messages in the whole index per query, per set
    /// (`count(*)` of the engine's FTS5 expression, untimed).
    pub matches: Vec<Vec<u64>>,
    /// One entry per set and visibility.
    pub timed: Vec<Timed>,
    /// Every set at every visibility and order against the FTS5 floor.
    pub floors: Vec<super::floors::Floor>,
    /// `EXPLAIN QUERY PLAN` of the engine's search statement.
    pub plan: Vec<String>,
    /// Peak RSS of the child, in KiB.
    pub peak_rss_kib: u64,
}

/// The anchors child's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AnchorRun {
    /// The `LIKE` scan, per set and visibility.
    pub like: Vec<Timed>,
    /// The OpenClaw-style query, per set and visibility.
    pub openclaw: Vec<Timed>,
    /// Matching messages in the OpenClaw-style index per query, per set
    /// (every role; untimed).
    pub openclaw_matches: Vec<Vec<u64>>,
    /// `EXPLAIN QUERY PLAN` of the `LIKE` scan (two words, tree).
    pub like_plan: Vec<String>,
    /// `EXPLAIN QUERY PLAN` of the OpenClaw-style step 2 (tree).
    pub openclaw_plan: Vec<String>,
    /// Peak RSS of the child, in KiB.
    pub peak_rss_kib: u64,
}

/// Opens the part's store without a background thread.
fn open(work: &Path) -> session_search::Result<Store> {
    Store::open_with(
        db_path(work),
        &StoreOptions {
            background_reconcile: false,
        },
    )
}

/// The options of one search: the caller and `visibility`, every other
/// option at its default (limit 10).
fn options(visibility: &str) -> String {
    serde_json::json!({ "caller": caller(), "visibility": visibility }).to_string()
}

/// Times `sessions_search` for every set and visibility (the child's side).
///
/// # Errors
///
/// Any SQLite or session-search error.
pub fn sessions_search(work: &Path) -> Result<SearchRun, Box<dyn Error>> {
    let store = open(work)?;
    let conn = store.connection();
    let sets = queries::sample(conn)?;
    let mut timed = Vec::new();
    for set in &sets {
        for visibility in VISIBILITIES {
            let options = options(visibility);
            for query in &set.queries {
                search(conn, &query.text, &options)?;
            }
            let mut run = Timed::new(set.kind, visibility);
            for query in &set.queries {
                let (response, ms) = timed_ms(|| search(conn, &query.text, &options))?;
                let response: serde_json::Value = serde_json::from_str(&response)?;
                let results = response["results"].as_array().map_or(0, Vec::len);
                run.ms.push(ms);
                run.results.push(results as u64);
                run.truncated += usize::from(response["truncated"] == true);
            }
            timed.push(run);
        }
    }
    let matches = sets
        .iter()
        .map(|set| {
            set.queries
                .iter()
                .map(|query| {
                    let expression = EngineQuery::parse(&query.text)?.fts5_expression(None);
                    Ok(conn.query_row(
                        "SELECT count(*) FROM session_search_fts WHERE session_search_fts MATCH ?1",
                        [expression],
                        |row| row.get(0),
                    )?)
                })
                .collect::<Result<Vec<u64>, Box<dyn Error>>>()
        })
        .collect::<Result<_, _>>()?;
    let plan = query_plan(conn, SEARCH_SQL)?;
    let floors = super::floors::measure(conn, &sets, true)?;
    Ok(SearchRun {
        sets,
        matches,
        timed,
        floors,
        plan,
        peak_rss_kib: memory::peak_rss_kib()?,
    })
}

/// Samples the query sets and runs them against the FTS5 floor only, or
/// without the floor itself unless `with_floor` (the child's side of a
/// point of the growth table, and of one of its rounds).
///
/// # Errors
///
/// Any SQLite or session-search error.
pub fn floors(work: &Path, with_floor: bool) -> Result<Vec<super::floors::Floor>, Box<dyn Error>> {
    let store = open(work)?;
    let conn = store.connection();
    let sets = queries::sample(conn)?;
    super::floors::measure(conn, &sets, with_floor)
}

/// One `sessions_search` call; returns its JSON.
fn search(conn: &Connection, query: &str, options: &str) -> rusqlite::Result<String> {
    conn.prepare_cached(SESSIONS_SEARCH_SQL)?
        .query_row((query, options), |row| row.get(0))
}

impl Timed {
    fn new(kind: SetKind, visibility: &str) -> Timed {
        Timed {
            kind,
            visibility: visibility.to_owned(),
            ms: Vec::new(),
            step1_ms: Vec::new(),
            results: Vec::new(),
            truncated: 0,
        }
    }
}

/// The `LIKE` scan for `patterns` LIKE patterns: the visible rows by the
/// same recursive CTE, searchable roles only, the 10 newest that match.
pub fn like_sql(patterns: usize) -> String {
    let likes: String = (0..patterns)
        .map(|i| format!(" AND m.content LIKE ?{}", i + 3))
        .collect();
    format!(
        "{VISIBLE_SQL}SELECT m.id, m.session_key, m.role, m.created_at, m.content
FROM messages m
WHERE m.session_key IN (SELECT session_key FROM visible)
  AND m.role IN ('user', 'assistant'){likes}
ORDER BY m.created_at DESC
LIMIT 10"
    )
}

/// The OpenClaw-style step 2 for `keys` visible sessions, bound as
/// `?2..?{keys+1}`.
pub fn openclaw_sql(keys: usize) -> String {
    let list: Vec<String> = (0..keys).map(|i| format!("?{}", i + 2)).collect();
    format!(
        "SELECT m.id, m.session_key, m.role, m.created_at, snippet(oc, 0, '', '', '…', 32)
FROM oc JOIN messages m ON m.id = oc.rowid
WHERE oc MATCH ?1 AND m.role IN ('user', 'assistant') AND m.session_key IN ({})
ORDER BY rank LIMIT 10",
        list.join(", ")
    )
}

/// Times the `LIKE` scan and the OpenClaw-style query for every set and
/// visibility (the child's side).
///
/// # Errors
///
/// Any SQLite or session-search error.
pub fn anchors(work: &Path) -> Result<AnchorRun, Box<dyn Error>> {
    let store = open(work)?;
    let conn = store.connection();
    let sets = queries::sample(conn)?;
    let enumerate_sql = format!("{VISIBLE_SQL}{ENUMERATE_SQL}");
    let mut like = Vec::new();
    let mut openclaw = Vec::new();
    for set in &sets {
        for visibility in VISIBILITIES {
            let mut run = Timed::new(set.kind, visibility);
            for query in &set.queries {
                like_scan(conn, query, visibility)?;
            }
            for query in &set.queries {
                let (rows, ms) = timed_ms(|| like_scan(conn, query, visibility))?;
                run.ms.push(ms);
                run.results.push(rows);
            }
            like.push(run);
            let mut run = Timed::new(set.kind, visibility);
            for query in &set.queries {
                openclaw_search(conn, &enumerate_sql, query, visibility)?;
            }
            for query in &set.queries {
                let (step1, step2, rows) =
                    openclaw_search(conn, &enumerate_sql, query, visibility)?;
                run.ms.push(step1 + step2);
                run.step1_ms.push(step1);
                run.results.push(rows);
            }
            openclaw.push(run);
        }
    }
    let openclaw_matches = sets
        .iter()
        .map(|set| {
            set.queries
                .iter()
                .map(|query| {
                    conn.query_row(
                        "SELECT count(*) FROM oc WHERE oc MATCH ?1",
                        [&query.fts],
                        |row| row.get(0),
                    )
                })
                .collect::<rusqlite::Result<Vec<u64>>>()
        })
        .collect::<rusqlite::Result<_>>()?;
    let keys = visible_keys(conn, &enumerate_sql, VISIBILITIES[0])?.len();
    Ok(AnchorRun {
        like,
        openclaw,
        openclaw_matches,
        like_plan: query_plan(conn, &like_sql(2))?,
        openclaw_plan: query_plan(conn, &openclaw_sql(keys))?,
        peak_rss_kib: memory::peak_rss_kib()?,
    })
}

/// Runs the `LIKE` scan of `query`; returns the rows it yields.
fn like_scan(conn: &Connection, query: &Query, visibility: &str) -> rusqlite::Result<u64> {
    let mut statement = conn.prepare_cached(&like_sql(query.like.len()))?;
    let caller = caller();
    let mut params: Vec<&str> = vec![&caller, visibility];
    params.extend(query.like.iter().map(String::as_str));
    let mut rows = statement.query(params_from_iter(params))?;
    let mut n = 0;
    while rows.next()?.is_some() {
        n += 1;
    }
    Ok(n)
}

/// The visible session keys (OpenClaw-style step 1).
fn visible_keys(
    conn: &Connection,
    enumerate_sql: &str,
    visibility: &str,
) -> rusqlite::Result<Vec<String>> {
    conn.prepare_cached(enumerate_sql)?
        .query_map((caller(), visibility), |row| row.get(0))?
        .collect()
}

/// Runs the OpenClaw-style query of `query`: the visible keys, then the
/// FTS5 query with them as a list; returns the milliseconds of each step
/// and the rows.
fn openclaw_search(
    conn: &Connection,
    enumerate_sql: &str,
    query: &Query,
    visibility: &str,
) -> rusqlite::Result<(f64, f64, u64)> {
    let (keys, step1) = timed_ms(|| visible_keys(conn, enumerate_sql, visibility))?;
    let (rows, step2) = timed_ms(|| {
        let mut statement = conn.prepare_cached(&openclaw_sql(keys.len()))?;
        let mut params: Vec<&str> = vec![&query.fts];
        params.extend(keys.iter().map(String::as_str));
        let mut rows = statement.query(params_from_iter(params))?;
        let mut n = 0;
        while rows.next()?.is_some() {
            n += 1;
        }
        Ok::<u64, rusqlite::Error>(n)
    })?;
    Ok((step1, step2, rows))
}

/// `EXPLAIN QUERY PLAN` of `sql`, one line per step, indented by depth.
fn query_plan(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<String>> {
    let mut statement = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
    let nulls = vec![rusqlite::types::Null; statement.parameter_count()];
    let steps = statement
        .query_map(params_from_iter(nulls), |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, String>(3)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut depths: Vec<(i64, usize)> = Vec::new();
    let mut lines = Vec::with_capacity(steps.len());
    for (id, parent, detail) in steps {
        let depth = depths
            .iter()
            .find(|(known, _)| *known == parent)
            .map_or(0, |(_, depth)| depth + 1);
        depths.push((id, depth));
        lines.push(format!("{}{detail}", "  ".repeat(depth)));
    }
    Ok(lines)
}
