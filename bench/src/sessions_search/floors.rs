//! Every visibility and order against the FTS5 floor: `sessions_search`
//! timed next to the same FTS5 expression (the engine's query with its
//! scope word) on the engine's own index doing the same work, and the share
//! of exhaustive BM25's top 10 that the search returns.
//!
//! The floor of `relevance` is exhaustive BM25: `ORDER BY bm25(…, 1.0, 0.0)
//! LIMIT 10` (every match ranked, the scope column weighted 0, as the
//! engine's ranking leaves it out). The floor of `recent` is the first 10
//! rowids, which are the 10 newest messages.
//!
//! Beside each floor, the least that an answer of the engine's kind reads
//! (the *reading floor*, untargeted): for `relevance` the rowids of the
//! window the engine ranks (the expression's newest `rankWindow` matches,
//! read by FTS5 alone, nothing ranked), for `recent` the 10 newest rows
//! with their messages read and redacted (`sessions_text`), as the
//! excerpts of an answer must be. Their growth and ratio to the floor show
//! how much of a target FTS5 and the contract leave to the engine.

use super::build::caller;
use super::queries::{QuerySet, SetKind};
use crate::report::Target;
use crate::stats::timed_ms;
use crate::stats::{median, percentile, sorted};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use session_search_engine::query::Query as EngineQuery;
use session_search_engine::search::DEFAULT_RANK_WINDOW;
use std::error::Error;

/// The visibilities measured.
pub const VISIBILITIES: [&str; 3] = ["tree", "agent", "all"];

/// The orders measured.
pub const ORDERS: [&str; 2] = ["relevance", "recent"];

/// The floor of `relevance`: exhaustive BM25 over the text column.
const RANKED_SQL: &str = "SELECT ~rowid, bm25(session_search_fts, 1.0, 0.0) FROM session_search_fts
WHERE session_search_fts MATCH ?1 ORDER BY bm25(session_search_fts, 1.0, 0.0) LIMIT 10";

/// The floor of `recent`: the newest 10 matches.
const NEWEST_SQL: &str = "SELECT ~rowid, 0.0 FROM session_search_fts
WHERE session_search_fts MATCH ?1 LIMIT 10";

/// The reading floor of `relevance`: the rowids of the newest ?2 matches
/// (the window the engine ranks), read by FTS5 alone.
const WINDOW_SQL: &str = "SELECT count(*) FROM (SELECT rowid FROM session_search_fts
WHERE session_search_fts MATCH ?1 LIMIT ?2)";

/// The reading floor of `recent`: the newest 10 matches' messages, read and
/// redacted as the answer's excerpts must be.
const ANSWER_SQL: &str = "SELECT m.id, sessions_text(m.content) FROM (SELECT ~rowid AS id
FROM session_search_fts WHERE session_search_fts MATCH ?1 LIMIT 10) f JOIN messages m ON m.id = f.id";

/// Exhaustive BM25 of given messages (a JSON array of ids), untimed.
const BM25_OF_SQL: &str = "SELECT bm25(session_search_fts, 1.0, 0.0) FROM session_search_fts
WHERE session_search_fts MATCH ?1 AND rowid IN (SELECT ~value FROM json_each(?2))";

/// Overlap with exhaustive BM25 that passes.
const OVERLAP_TARGET: f64 = 0.95;
/// Latency limits (ms) and the largest ratio to the floor.
const P50_LIMIT_MS: f64 = 10.0;
const P99_LIMIT_MS: f64 = 50.0;
const FLOOR_RATIO: f64 = 3.0;
/// The largest growth exponent of p50 between the smallest and the largest
/// point, at `tree` and `agent`.
const GROWTH_LIMIT: f64 = 0.3;
/// The visibilities the growth target holds for.
const GROWTH_VISIBILITIES: [&str; 2] = ["tree", "agent"];

/// How many times the growth table times every point, the points
/// interleaved (one child process per point and round).
pub const GROWTH_ROUNDS: usize = 5;

/// Every set at every visibility and order on a database of one size.
#[derive(Debug, Clone)]
pub struct Point {
    /// Messages in the database.
    pub messages: usize,
    /// Its figures, floors included, from one pass.
    pub floors: Vec<Floor>,
    /// `sessions_search` and the reading floor, per query the median of
    /// [`GROWTH_ROUNDS`] passes interleaved with the other points' (see
    /// [`median_of_rounds`]); the growth table's figures.
    pub growth: Vec<Floor>,
}

/// One set at one visibility and order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Floor {
    /// Which set.
    pub kind: SetKind,
    /// `tree`, `agent` or `all`.
    pub visibility: String,
    /// `relevance` or `recent`.
    pub order: String,
    /// Milliseconds of `sessions_search`, per query.
    pub ms: Vec<f64>,
    /// Milliseconds of the floor, per query.
    pub floor_ms: Vec<f64>,
    /// Milliseconds of the reading floor, per query.
    pub reading_ms: Vec<f64>,
    /// Per query with a match (`relevance` only): the share of exhaustive
    /// BM25's top 10 (ties at the 10th score count as in it) that the
    /// search returned.
    pub overlap: Vec<f64>,
}

/// Times every set at every visibility and order (the search child's side):
/// `sessions_search` and the reading floor, and when `with_floor` the floor
/// and the overlap with it (exhaustive BM25, most of the time taken).
///
/// # Errors
///
/// Any SQLite or session-search error.
pub fn measure(
    conn: &Connection,
    sets: &[QuerySet],
    with_floor: bool,
) -> Result<Vec<Floor>, Box<dyn Error>> {
    let (tree_word, agent_word): (String, String) = conn.query_row(
        "SELECT 't' || lower(hex(session_key)), 'a' || lower(hex(agent_id)) FROM sessions WHERE session_key = ?1",
        [caller()],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    let mut floors = Vec::new();
    for set in sets {
        for visibility in VISIBILITIES {
            let scope = match visibility {
                "tree" => Some(tree_word.as_str()),
                "agent" => Some(agent_word.as_str()),
                _ => None,
            };
            for order in ORDERS {
                let options = serde_json::json!({
                    "caller": caller(), "visibility": visibility, "order": order,
                })
                .to_string();
                let recent = order == "recent";
                let floor_sql = if recent { NEWEST_SQL } else { RANKED_SQL };
                let mut floor = Floor {
                    kind: set.kind,
                    visibility: visibility.to_owned(),
                    order: order.to_owned(),
                    ms: Vec::new(),
                    floor_ms: Vec::new(),
                    reading_ms: Vec::new(),
                    overlap: Vec::new(),
                };
                for query in &set.queries {
                    let expression = EngineQuery::parse(&query.text)?.fts5_expression(scope);
                    let reading = || reading_floor(conn, recent, &expression);
                    search(conn, &query.text, &options)?;
                    reading()?;
                    let (hits, ms) = timed_ms(|| search(conn, &query.text, &options))?;
                    let ((), reading_ms) = timed_ms(reading)?;
                    floor.ms.push(ms);
                    floor.reading_ms.push(reading_ms);
                    if !with_floor {
                        continue;
                    }
                    top(conn, floor_sql, &expression)?;
                    let (best, floor_ms) = timed_ms(|| top(conn, floor_sql, &expression))?;
                    floor.floor_ms.push(floor_ms);
                    if order == "relevance" && !best.is_empty() {
                        floor
                            .overlap
                            .push(overlap(conn, &expression, &hits, &best)?);
                    }
                }
                floors.push(floor);
            }
        }
    }
    Ok(floors)
}

/// Several passes of [`measure`] over the same sets as one: per query, the
/// median of its times in the passes.
///
/// # Errors
///
/// When the passes did not time the same sets and queries.
pub fn median_of_rounds(rounds: &[Vec<Floor>]) -> Result<Vec<Floor>, Box<dyn Error>> {
    let Some(first) = rounds.first() else {
        return Ok(Vec::new());
    };
    let same = |a: &Floor, b: &Floor| {
        (a.kind, &a.visibility, &a.order, a.ms.len())
            == (b.kind, &b.visibility, &b.order, b.ms.len())
    };
    if rounds.iter().any(|round| {
        round.len() != first.len() || !round.iter().zip(first).all(|(a, b)| same(a, b))
    }) {
        return Err("the growth rounds timed different queries".into());
    }
    let per_query = |index: usize, series: Series| -> Vec<f64> {
        (0..series(&first[index]).len())
            .map(|query| {
                median(&sorted(
                    rounds
                        .iter()
                        .map(|round| series(&round[index])[query])
                        .collect(),
                ))
            })
            .collect()
    };
    Ok(first
        .iter()
        .enumerate()
        .map(|(index, floor)| Floor {
            ms: per_query(index, |f| &f.ms),
            reading_ms: per_query(index, |f| &f.reading_ms),
            floor_ms: Vec::new(),
            overlap: Vec::new(),
            ..floor.clone()
        })
        .collect())
}

/// The ids `sessions_search` returned.
fn search(conn: &Connection, query: &str, options: &str) -> Result<Vec<i64>, Box<dyn Error>> {
    let json: String = conn
        .prepare_cached(super::latency::SESSIONS_SEARCH_SQL)?
        .query_row((query, options), |row| row.get(0))?;
    let response: serde_json::Value = serde_json::from_str(&json)?;
    Ok(response["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|hit| hit["id"].as_i64())
        .collect())
}

/// The rows of a floor query: ids and BM25, best first.
fn top(conn: &Connection, sql: &str, expression: &str) -> rusqlite::Result<Vec<(i64, f64)>> {
    conn.prepare_cached(sql)?
        .query_map([expression], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect()
}

/// Reads what the reading floor of `recent` or `relevance` reads.
fn reading_floor(conn: &Connection, recent: bool, expression: &str) -> rusqlite::Result<()> {
    if recent {
        let mut statement = conn.prepare_cached(ANSWER_SQL)?;
        let mut rows = statement.query([expression])?;
        while rows.next()?.is_some() {}
    } else {
        conn.prepare_cached(WINDOW_SQL)?
            .query_row((expression, DEFAULT_RANK_WINDOW), |row| {
                row.get::<_, i64>(0)
            })?;
    }
    Ok(())
}

/// The share of `best` (exhaustive BM25's top rows) that `hits` covers:
/// hits whose exhaustive BM25 is at least as good as the last of `best`.
fn overlap(
    conn: &Connection,
    expression: &str,
    hits: &[i64],
    best: &[(i64, f64)],
) -> rusqlite::Result<f64> {
    let threshold = best.last().map_or(f64::INFINITY, |&(_, score)| score);
    let ids = serde_json::to_string(hits).unwrap_or_default();
    let scores: Vec<f64> = conn
        .prepare_cached(BM25_OF_SQL)?
        .query_map((expression, ids), |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let tolerance = 1e-9 * threshold.abs().max(1.0);
    let covered = scores
        .iter()
        .filter(|&&s| s <= threshold + tolerance)
        .count();
    Ok(covered.min(best.len()) as f64 / best.len() as f64)
}

/// The floors of `kind` (every set for `None`) at `visibility` and `order`.
fn pick<'f>(
    floors: &'f [Floor],
    kind: Option<SetKind>,
    visibility: &'f str,
    order: &'f str,
) -> impl Iterator<Item = &'f Floor> + 'f {
    floors.iter().filter(move |f| {
        kind.is_none_or(|k| f.kind == k) && f.visibility == visibility && f.order == order
    })
}

/// Sorted values of `field` of the picked floors.
fn pooled<'f>(floors: impl Iterator<Item = &'f Floor>, field: Series) -> Vec<f64> {
    sorted(floors.flat_map(|f| field(f).iter().copied()).collect())
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

/// Prints the table of every set, visibility and order on a database of
/// `messages` messages.
pub fn print(messages: usize, floors: &[Floor]) {
    println!("\n== every visibility and order against the FTS5 floor, {messages} messages ==");
    println!(
        "\
Each query of every set, at each visibility and order, after a warm-up call: sessions_search
(limit 10) and its floor, the same FTS5 expression (the engine's, with the caller's scope word)
on the engine's own index doing the same work: relevance `{}`,
recent `{}`.
reading: what an answer of the engine's kind reads, nothing ranked or cut: relevance `{}`
(?2 = rankWindow, {}: the window the engine ranks), recent `{}`.
overlap: the share of the floor's top 10 (exhaustive BM25; ties at the 10th score count as in
it) that sessions_search returned, mean over the queries with a match.",
        RANKED_SQL.replace('\n', " "),
        NEWEST_SQL.replace('\n', " "),
        WINDOW_SQL.replace('\n', " "),
        DEFAULT_RANK_WINDOW,
        ANSWER_SQL.replace('\n', " "),
    );
    println!(
        "{:<12}{:<7}{:<11}{:>9}{:>9}{:>11}{:>9}{:>12}{:>10}{:>10}",
        "set",
        "vis",
        "order",
        "p50 ms",
        "p99 ms",
        "floor p50",
        "/floor",
        "reading p50",
        "/floor",
        "overlap"
    );
    for kind in SetKind::ALL.into_iter().map(Some).chain([None]) {
        for visibility in VISIBILITIES {
            for order in ORDERS {
                let series = |series: Series| pooled(pick(floors, kind, visibility, order), series);
                let ms = series(|f| &f.ms);
                let floor = series(|f| &f.floor_ms);
                let reading = series(|f| &f.reading_ms);
                let overlap = series(|f| &f.overlap);
                println!(
                    "{:<12}{:<7}{:<11}{:>9.3}{:>9.3}{:>11.3}{:>8.2}x{:>12.3}{:>9.2}x{:>10}",
                    kind.map_or("all sets", SetKind::label),
                    visibility,
                    order,
                    median(&ms),
                    percentile(&ms, 0.99),
                    median(&floor),
                    median(&ms) / median(&floor).max(1e-9),
                    median(&reading),
                    median(&reading) / median(&floor).max(1e-9),
                    if overlap.is_empty() {
                        "-".to_owned()
                    } else {
                        format!("{:.3}", mean(&overlap))
                    },
                );
            }
        }
    }
}

/// Latency, floor and overlap targets per visibility and order at `point`,
/// every set pooled; overlap for the one-word set (common words); then each
/// set's p50 and p99 at its worst visibility and order.
pub fn targets(point: &Point) -> Vec<Target> {
    let floors = &point.floors;
    let messages = point.messages;
    let mut targets = Vec::new();
    for kind in SetKind::ALL {
        let worst = |statistic: &dyn Fn(&[f64]) -> f64| {
            VISIBILITIES
                .iter()
                .flat_map(|visibility| ORDERS.iter().map(move |order| (visibility, order)))
                .map(|(visibility, order)| {
                    statistic(&pooled(pick(floors, Some(kind), visibility, order), |f| {
                        &f.ms
                    }))
                })
                .fold(f64::NEG_INFINITY, f64::max)
        };
        let what = format!(
            "{}, worst visibility and order, {messages} msgs",
            kind.label()
        );
        targets.push(Target::new(
            format!("sessions_search p50, {what}"),
            worst(&|ms| median(ms)),
            P50_LIMIT_MS,
            " ms",
        ));
        targets.push(Target::new(
            format!("sessions_search p99, {what}"),
            worst(&|ms| percentile(ms, 0.99)),
            P99_LIMIT_MS,
            " ms",
        ));
    }
    for visibility in VISIBILITIES {
        for order in ORDERS {
            let ms = pooled(pick(floors, None, visibility, order), |f| &f.ms);
            let floor = pooled(pick(floors, None, visibility, order), |f| &f.floor_ms);
            let what = format!("{visibility}, {order}, every set, {messages} msgs");
            targets.push(Target::new(
                format!("sessions_search p50, {what}"),
                median(&ms),
                P50_LIMIT_MS,
                " ms",
            ));
            targets.push(Target::new(
                format!("sessions_search p99, {what}"),
                percentile(&ms, 0.99),
                P99_LIMIT_MS,
                " ms",
            ));
            targets.push(Target::new(
                format!("sessions_search p50 / FTS5 floor, {what}"),
                median(&ms) / median(&floor).max(1e-9),
                FLOOR_RATIO,
                "x",
            ));
        }
        let overlap = pooled(
            pick(floors, Some(SetKind::Word), visibility, "relevance"),
            |f| &f.overlap,
        );
        targets.push(Target::at_least(
            format!("top-10 overlap with exhaustive BM25, 1 word, {visibility}, {messages} msgs"),
            mean(&overlap),
            OVERLAP_TARGET,
            "",
        ));
    }
    targets
}

/// One timed series of a [`Floor`]: `sessions_search`'s, the floor's or the
/// reading floor's milliseconds.
type Series = fn(&Floor) -> &Vec<f64>;

/// The p50 of `series` of `kind` at `visibility` and `order` at `point`.
fn p50(point: &Point, series: Series, kind: SetKind, visibility: &str, order: &str) -> f64 {
    median(&pooled(
        pick(&point.growth, Some(kind), visibility, order),
        series,
    ))
}

/// How the p50 of `series` in the growth rounds grows from the first to the
/// last of `points` (sorted by size): the exponent `e` of
/// `p50 ~ messages^e`; `None` with fewer than two.
fn growth(
    points: &[Point],
    series: Series,
    kind: SetKind,
    visibility: &str,
    order: &str,
) -> Option<f64> {
    let (first, last) = (points.first()?, points.last()?);
    if last.messages <= first.messages {
        return None;
    }
    let p50 = |point| p50(point, series, kind, visibility, order);
    let ratio = p50(last) / p50(first).max(1e-9);
    Some(ratio.ln() / (last.messages as f64 / first.messages as f64).ln())
}

/// Prints p50 per set, visibility and order at every point, and its growth
/// exponent.
pub fn print_growth(points: &[Point]) {
    println!("\n== growth: sessions_search p50 (ms) by database size ==");
    println!(
        "exponent e of p50 ~ messages^e from the smallest to the largest database (1.0: linear);
reading: the reading floor's p50 (as in the tables above) at each size, and its exponent.
Each query's times here are the medians of {GROWTH_ROUNDS} more passes over every set, visibility
and order, the databases' passes interleaved (one child process each), after the tables above."
    );
    print!("{:<12}{:<7}{:<11}", "set", "vis", "order");
    for point in points {
        print!("{:>11}", format!("{}k", point.messages / 1000));
    }
    print!("{:>10}", "exponent");
    for point in points {
        print!("{:>11}", format!("read {}k", point.messages / 1000));
    }
    println!("{:>10}", "exponent");
    let exponent = |e: Option<f64>| e.map_or("-".to_owned(), |e| format!("{e:.2}"));
    for kind in SetKind::ALL {
        for visibility in VISIBILITIES {
            for order in ORDERS {
                print!("{:<12}{:<7}{:<11}", kind.label(), visibility, order);
                for series in [(|f| &f.ms) as Series, |f| &f.reading_ms] {
                    for point in points {
                        print!("{:>11.3}", p50(point, series, kind, visibility, order));
                    }
                    print!(
                        "{:>10}",
                        exponent(growth(points, series, kind, visibility, order))
                    );
                }
                println!();
            }
        }
    }
}

/// The growth target of every set at `tree` and `agent`, the worse of the
/// two orders.
pub fn growth_targets(points: &[Point]) -> Vec<Target> {
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return Vec::new();
    };
    let mut targets = Vec::new();
    for kind in SetKind::ALL {
        for visibility in GROWTH_VISIBILITIES {
            let worst = ORDERS
                .iter()
                .filter_map(|order| growth(points, |f| &f.ms, kind, visibility, order))
                .fold(f64::NEG_INFINITY, f64::max);
            if worst.is_finite() {
                targets.push(Target::new(
                    format!(
                        "growth exponent of p50 {}k -> {}k msgs, {}, {visibility}",
                        first.messages / 1000,
                        last.messages / 1000,
                        kind.label()
                    ),
                    worst,
                    GROWTH_LIMIT,
                    "",
                ));
            }
        }
    }
    targets
}
