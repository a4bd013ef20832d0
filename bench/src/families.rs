//! What each family of the index's extra tokens (pair tokens, prefix
//! tokens, tier markers) costs and buys, on the rows the index holds.
//!
//! Cost: an FTS5 table over the index's own content (`session_search_text`,
//! the redacted text and scope of every indexed message) is built with
//! `tokenize = 'sessions cjk 1 markers 1'` (every family, as the index) and
//! once with each family left out (`pairs 0`, `prefixes 0`, `tiers 0`); a
//! family costs the difference: FTS5 bytes per message, CPU time per
//! message of FTS5's `rebuild`, and the median time of appending a row in
//! a transaction of its own (each row to every table in turn).
//!
//! Buy: the queries the family serves, answered by `sessions_search` on
//! the index (every family, visibility `all`, the default page of 10) and,
//! without the family, by FTS5 alone on the table without it, giving the
//! same answer: for a phrase or a prefix the top 10 by BM25 of its newest
//! [`DEFAULT_RANK_WINDOW`] matches (the window the engine ranks), for one
//! word the top 10 of exhaustive BM25 (which tier markers let the engine
//! prove without ranking every match). Medians of the queries' times.

use crate::index_cost::fts_bytes;
use crate::stats::{median, sorted, spent, timed_ms};
use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};
use session_search_engine::search::DEFAULT_RANK_WINDOW;

/// A family: its tokenizer argument, the query class it serves, the
/// queries of that class, and whether FTS5 alone ranks a query's whole
/// match list (one word) rather than its newest window.
struct Family {
    argument: &'static str,
    serves: &'static str,
    queries: [&'static str; 5],
    exhaustive: bool,
}

/// The families, each with queries of its class.
const FAMILIES: [Family; 3] = [
    Family {
        argument: "pairs",
        serves: "phrases with common words",
        queries: [
            "\"the error\"",
            "\"to the\"",
            "\"in the config\"",
            "\"is not\"",
            "\"and the test\"",
        ],
        exhaustive: false,
    },
    Family {
        argument: "prefixes",
        serves: "prefixes of 2-3 characters",
        queries: ["er*", "dep*", "st*", "con*", "ti*"],
        exhaustive: false,
    },
    Family {
        argument: "tiers",
        serves: "one word, exact top 10",
        queries: ["the", "error", "deploy", "staging", "timeout"],
        exhaustive: true,
    },
];

/// Rows appended to each table, one per transaction.
const APPENDS: usize = 5000;

/// Timed passes over each family's queries, with and without in turn.
const PASSES: usize = 3;

/// What one family costs and buys.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FamilyCost {
    /// Its tokenizer argument (`pairs`, `prefixes`, `tiers`).
    pub family: String,
    /// The query class it serves.
    pub serves: String,
    /// FTS5 bytes per message it adds.
    pub bytes_per_message: f64,
    /// CPU microseconds per message it adds to FTS5's `rebuild`.
    pub rebuild_us: f64,
    /// Microseconds it adds to the median append of one row.
    pub append_us: f64,
    /// Median milliseconds of its queries by `sessions_search`.
    pub with_ms: f64,
    /// Median milliseconds of the same answers by FTS5 without it.
    pub without_ms: f64,
}

/// One table of the measurement: every family, or all but one.
struct Variant {
    table: String,
    bytes_per_message: f64,
    rebuild_us: f64,
    append_us: f64,
}

/// Measures every family on the index of `conn` (built and current); the
/// tables it builds are dropped again.
///
/// # Errors
///
/// Any SQLite error.
pub fn measure(conn: &Connection) -> rusqlite::Result<Vec<FamilyCost>> {
    let mut variants = vec![build(conn, "fam_all", "")?];
    for family in &FAMILIES {
        let table = format!("fam_no_{}", family.argument);
        variants.push(build(conn, &table, &format!("{} 0", family.argument))?);
    }
    append(conn, &mut variants)?;
    let caller: String = conn.query_row("SELECT min(session_key) FROM sessions", [], |row| {
        row.get(0)
    })?;
    let mut costs = Vec::new();
    for (family, without) in FAMILIES.iter().zip(&variants[1..]) {
        let (with_ms, without_ms) = buy(conn, family, &caller, &without.table)?;
        costs.push(FamilyCost {
            family: family.argument.to_owned(),
            serves: family.serves.to_owned(),
            bytes_per_message: variants[0].bytes_per_message - without.bytes_per_message,
            rebuild_us: variants[0].rebuild_us - without.rebuild_us,
            append_us: variants[0].append_us - without.append_us,
            with_ms,
            without_ms,
        });
    }
    for variant in &variants {
        conn.execute_batch(&format!("DROP TABLE {};", variant.table))?;
    }
    Ok(costs)
}

/// Builds `table` over the index's content with the tokenizer arguments
/// `arguments` after the index's own, timing FTS5's `rebuild`.
fn build(conn: &Connection, table: &str, arguments: &str) -> rusqlite::Result<Variant> {
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE {table} USING fts5(text, scope, content = 'session_search_text', \
         content_rowid = 'id', tokenize = 'sessions cjk 1 markers 1 {arguments}');"
    ))?;
    let ((), rebuild) =
        spent(|| conn.execute_batch(&format!("INSERT INTO {table}({table}) VALUES ('rebuild');")))?;
    let rows: i64 = conn.query_row(
        &format!("SELECT count(*) FROM {table}_docsize"),
        [],
        |row| row.get(0),
    )?;
    let rows = rows.max(1) as f64;
    let seconds = rebuild.cpu_seconds.unwrap_or(rebuild.seconds);
    Ok(Variant {
        table: table.to_owned(),
        bytes_per_message: fts_bytes(conn, table)? as f64 / rows,
        rebuild_us: seconds * 1e6 / rows,
        append_us: 0.0,
    })
}

/// Appends [`APPENDS`] indexed texts to every variant's table, one per
/// transaction, each row to every table in turn, and sets each one's
/// median time per row: a median, as a write now and then also merges
/// segments or checkpoints the WAL. The rows get positive rowids, which no
/// indexed message has (the index's rowids are negative). FTS5's automerge
/// is off for them, so that no table merges its large index at an append.
fn append(conn: &Connection, variants: &mut [Variant]) -> rusqlite::Result<()> {
    let mut inserts = Vec::new();
    for variant in variants.iter() {
        let table = &variant.table;
        conn.execute_batch(&format!(
            "INSERT INTO {table}({table}, rank) VALUES ('automerge', 0);"
        ))?;
        inserts.push(conn.prepare(&format!(
            "INSERT INTO {table}(rowid, text, scope) VALUES (?1, ?2, ?3)"
        ))?);
    }
    let rows: Vec<(String, String)> = conn
        .prepare(&format!(
            "SELECT text, scope FROM session_search_text LIMIT {APPENDS}"
        ))?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut times = vec![Vec::with_capacity(rows.len()); variants.len()];
    for (i, (text, scope)) in rows.iter().enumerate() {
        for (insert, times) in inserts.iter_mut().zip(&mut times) {
            let (_, ms) = timed_ms(|| insert.execute(params![i as i64 + 1, text, scope]))?;
            times.push(ms);
        }
    }
    for (variant, times) in variants.iter_mut().zip(times) {
        variant.append_us = median(&sorted(times)) * 1e3;
    }
    Ok(())
}

/// The median milliseconds of `family`'s queries by `sessions_search` and
/// by FTS5 alone on `without` (the table without the family).
fn buy(
    conn: &Connection,
    family: &Family,
    caller: &str,
    without: &str,
) -> rusqlite::Result<(f64, f64)> {
    let options = format!(r#"{{"caller":"{caller}","visibility":"all"}}"#);
    let fts5 = if family.exhaustive {
        format!(
            "SELECT rowid FROM {without} WHERE {without} MATCH ?1 \
             ORDER BY bm25({without}, 1.0, 0.0) LIMIT 10"
        )
    } else {
        format!(
            "SELECT rowid FROM (SELECT rowid, bm25({without}, 1.0, 0.0) AS score FROM {without} \
             WHERE {without} MATCH ?1 LIMIT {DEFAULT_RANK_WINDOW}) ORDER BY score LIMIT 10"
        )
    };
    let mut engine = conn.prepare("SELECT sessions_search(?1, ?2)")?;
    let mut alone = conn.prepare(&fts5)?;
    let (mut with, mut without_ms) = (Vec::new(), Vec::new());
    for _ in 0..PASSES {
        for query in family.queries {
            let ((), ms) = timed_ms(|| {
                engine.query_row(params![query, options], |row| row.get::<_, String>(0))?;
                Ok::<(), rusqlite::Error>(())
            })?;
            with.push(ms);
            let matched = fts5_expression(query);
            let ((), ms) = timed_ms(|| {
                alone
                    .query_map(params![matched], |row| row.get::<_, i64>(0))?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok::<(), rusqlite::Error>(())
            })?;
            without_ms.push(ms);
        }
    }
    Ok((median(&sorted(with)), median(&sorted(without_ms))))
}

/// A query as an FTS5 expression on the text column: a quoted phrase as
/// it is, a prefix `err*` as `"err"*`, a word quoted.
fn fts5_expression(query: &str) -> String {
    match query.strip_suffix('*') {
        _ if query.starts_with('"') => format!("text : {query}"),
        Some(prefix) => format!("text : \"{prefix}\"*"),
        None => format!("text : \"{query}\""),
    }
}

/// Prints the families' table.
pub fn print(costs: &[FamilyCost]) {
    println!(
        "{:<10}{:>8}{:>13}{:>12}  {:<27}{:>10}{:>10}",
        "family", "B/msg", "rebuild us", "append us", "serves", "with ms", "without"
    );
    for cost in costs {
        println!(
            "{:<10}{:>8.1}{:>13.1}{:>12.1}  {:<27}{:>10.2}{:>10.2}",
            cost.family,
            cost.bytes_per_message,
            cost.rebuild_us,
            cost.append_us,
            cost.serves,
            cost.with_ms,
            cost.without_ms
        );
    }
}
