//! What the index costs against the OpenClaw-style anchor built in the same
//! file over exactly the rows session-search indexes (user and assistant
//! messages): bytes per indexed message (dbstat) and the time to index
//! messages already stored; and the lean index's budgets as targets. Shared
//! by the search part (its corpus) and the store part's rebuild (short chat
//! turns); the per-message append budget is the store part's.

use crate::families::{self, FamilyCost};
use crate::report::Target;
use crate::stats::{spent, Spent};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

/// The anchor: an external-content FTS5 table over a view of the user and
/// assistant messages, as an OpenClaw-style host would index the rows
/// session-search indexes; filled by [`ANCHOR_REBUILD_SQL`].
pub const ANCHOR_SQL: &str = "\
CREATE VIEW oc_rows AS SELECT id, content FROM messages WHERE role IN ('user', 'assistant');
CREATE VIRTUAL TABLE oc USING fts5(content, content = 'oc_rows', content_rowid = 'id', \
tokenize = 'unicode61 remove_diacritics 2');";

/// FTS5 building the anchor from the stored rows, timed.
pub const ANCHOR_REBUILD_SQL: &str = "INSERT INTO oc(oc) VALUES ('rebuild');";

/// Budget: FTS5 index bytes per indexed message, ours / the anchor's.
pub const FTS_BYTES_LIMIT: f64 = 2.0;

/// Budget: bytes of every table and index the extension adds / the
/// anchor's tables.
pub const TABLES_LIMIT: f64 = 2.5;

/// Budget: indexing the stored messages (reconciliation from a deferred
/// import to done) / FTS5's `rebuild` of the anchor.
pub const INDEXING_LIMIT: f64 = 2.5;

/// Budget: one message per transaction, session-search immediate / the
/// OpenClaw-style trigger (the store part's append).
pub const APPEND_LIMIT: f64 = 2.0;

/// What is counted, for the parts' legends.
pub const LEGEND: &str = "\
index cost   the anchor is built in the same file after our reconciliation:
               ANCHOR_SQL
               ANCHOR_REBUILD_SQL (timed)
             FTS5 B/msg: sum(length(block)) of the _data table + payload of the _idx
             table (dbstat), per indexed message (rows of each _docsize);
             tables B/msg: pages (dbstat pgsize) of every table and index whose table is
             session_search_* (FTS5 data/idx/docsize/config, nodes, scopes, time blocks,
             moves, meta and their indexes) against the anchor's (oc_data/idx/docsize/
             config); the host's messages/sessions tables and their indexes (some created
             by sessions_init) are counted apart, in neither;
             indexing: reconcile() from the deferred import to done against the rebuild,
             wall clock and CPU time of the thread (/proc/thread-self/schedstat; the
             budget compares CPU times, which other load on the machine barely moves);
             families: an FTS5 table over the index's content with every family and one
             without each (tokenizer argument pairs 0, prefixes 0, tiers 0); a family's
             cost is the difference in FTS5 B/msg, rebuild CPU us/msg and the median
             append of a row (5000 rows, one per transaction, automerge off); what it
             buys: the median of its queries by sessions_search (every family) against
             the same answer by FTS5 alone on the table without it (top 10 by BM25 of
             the newest 1000 matches; for one word, of every match)";

/// The legend with the anchor's SQL in it, indented by `indent`.
pub fn legend(indent: &str) -> String {
    // The anchor's statements line up under "the anchor"; every line is
    // then indented by `indent`.
    let sql = |s: &str| s.replace('\n', "\n               ");
    LEGEND
        .replace("ANCHOR_SQL", &sql(ANCHOR_SQL))
        .replace("ANCHOR_REBUILD_SQL", ANCHOR_REBUILD_SQL)
        .replace('\n', &format!("\n{indent}"))
}

/// Whose a table of the database is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Owner {
    /// The extension: its table is `session_search_*`.
    Extension,
    /// The anchor: `oc` and its shadow tables.
    Anchor,
    /// The host's `messages` and `sessions` tables.
    HostTable,
    /// An index on them (the extension's or not).
    HostIndex,
    /// The schema and anything else.
    Other,
}

/// Owner and page bytes of every table and index, from dbstat.
const TABLES_SQL: &str = "\
SELECT d.name,
       CASE WHEN m.tbl_name IN ('messages', 'sessions') AND m.type = 'index' THEN 'host index'
            WHEN m.tbl_name IN ('messages', 'sessions') THEN 'host table'
            WHEN m.tbl_name GLOB 'session_search_*' THEN 'extension'
            WHEN m.tbl_name = 'oc' OR m.tbl_name GLOB 'oc_*' THEN 'anchor'
            ELSE 'other' END,
       sum(d.pgsize)
FROM dbstat d LEFT JOIN sqlite_schema m ON m.name = d.name
GROUP BY d.name ORDER BY 3 DESC";

/// The index cost of one database.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Cost {
    /// Messages in our index.
    pub indexed: i64,
    /// Messages in the anchor.
    pub anchor_indexed: i64,
    /// FTS5 index bytes of ours (`_data` blocks + `_idx` payload).
    pub fts_bytes: u64,
    /// The same of the anchor.
    pub anchor_fts_bytes: u64,
    /// Every table and index with its owner and page bytes, largest first.
    pub tables: Vec<(String, Owner, u64)>,
    /// Our indexing of the stored messages.
    pub indexing: Spent,
    /// FTS5's `rebuild` of the anchor.
    pub anchor_indexing: Spent,
    /// What each family of extra tokens costs and buys ([`families`]).
    #[serde(default)]
    pub families: Vec<FamilyCost>,
}

impl Cost {
    /// Page bytes of `owner`'s tables and indexes.
    pub fn bytes(&self, owner: Owner) -> u64 {
        self.tables
            .iter()
            .filter(|table| table.1 == owner)
            .map(|table| table.2)
            .sum()
    }

    /// Our FTS5 bytes per message over the anchor's.
    pub fn fts_ratio(&self) -> f64 {
        per(self.fts_bytes, self.indexed) / per(self.anchor_fts_bytes, self.anchor_indexed)
    }

    /// The extension's tables per message over the anchor's.
    pub fn tables_ratio(&self) -> f64 {
        per(self.bytes(Owner::Extension), self.indexed)
            / per(self.bytes(Owner::Anchor), self.anchor_indexed)
    }
}

/// `bytes` per message of `messages`.
fn per(bytes: u64, messages: i64) -> f64 {
    bytes as f64 / messages.max(1) as f64
}

/// Builds the anchor in the database of `conn`, whose messages our index
/// took `indexing` to index, and measures both; the anchor stays.
///
/// # Errors
///
/// Any SQLite error.
pub fn measure(conn: &Connection, indexing: Spent) -> rusqlite::Result<Cost> {
    conn.execute_batch(ANCHOR_SQL)?;
    let ((), anchor_indexing) = spent(|| conn.execute_batch(ANCHOR_REBUILD_SQL))?;
    let owner = |label: String| match label.as_str() {
        "extension" => Owner::Extension,
        "anchor" => Owner::Anchor,
        "host table" => Owner::HostTable,
        "host index" => Owner::HostIndex,
        _ => Owner::Other,
    };
    let tables = conn
        .prepare(TABLES_SQL)?
        .query_map([], |row| Ok((row.get(0)?, owner(row.get(1)?), row.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let rows = |table: &str| {
        conn.query_row(
            &format!("SELECT count(*) FROM {table}_docsize"),
            [],
            |row| row.get(0),
        )
    };
    Ok(Cost {
        indexed: rows("session_search_fts")?,
        anchor_indexed: rows("oc")?,
        fts_bytes: fts_bytes(conn, "session_search_fts")?,
        anchor_fts_bytes: fts_bytes(conn, "oc")?,
        tables,
        indexing,
        anchor_indexing,
        families: families::measure(conn)?,
    })
}

/// Removes the anchor [`measure`] built.
///
/// # Errors
///
/// Any SQLite error.
pub fn drop_anchor(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("DROP TABLE oc; DROP VIEW oc_rows;")
}

/// Bytes of the FTS5 index `table`: its `_data` blocks and `_idx` payload.
pub fn fts_bytes(conn: &Connection, table: &str) -> rusqlite::Result<u64> {
    conn.query_row(
        &format!(
            "SELECT (SELECT coalesce(sum(length(block)), 0) FROM {table}_data)
                  + (SELECT coalesce(sum(payload), 0) FROM dbstat WHERE name = '{table}_idx')"
        ),
        [],
        |row| row.get(0),
    )
}

/// Prints the cost of the database of `corpus`.
pub fn print(corpus: &str, cost: &Cost) {
    let (indexing, measure) = cost.indexing.ratio(cost.anchor_indexing);
    let seconds = |spent: Spent| match spent.cpu_seconds {
        Some(cpu) => format!("{:.1} s (CPU {cpu:.1} s)", spent.seconds),
        None => format!("{:.1} s", spent.seconds),
    };
    let per_indexed = |owner| per(cost.bytes(owner), cost.indexed);
    println!(
        "\n== index cost, {corpus}: ours against the anchor over the same {} user/assistant \
         messages ({} in ours) ==",
        cost.anchor_indexed, cost.indexed
    );
    println!(
        "{:<26}{:>14}{:>14}{:>9}{:>10}",
        "", "ours", "anchor", "ours/", "budget"
    );
    println!(
        "{:<26}{:>14.1}{:>14.1}{:>8.2}x{:>9.1}x",
        "FTS5 index B/msg",
        per(cost.fts_bytes, cost.indexed),
        per(cost.anchor_fts_bytes, cost.anchor_indexed),
        cost.fts_ratio(),
        FTS_BYTES_LIMIT,
    );
    println!(
        "{:<26}{:>14.1}{:>14.1}{:>8.2}x{:>9.1}x",
        "tables B/msg",
        per_indexed(Owner::Extension),
        per(cost.bytes(Owner::Anchor), cost.anchor_indexed),
        cost.tables_ratio(),
        TABLES_LIMIT,
    );
    println!(
        "{:<26}{:>14.0}{:>14.0}",
        "indexing, msg/s",
        cost.indexed as f64 / cost.indexing.seconds,
        cost.anchor_indexed as f64 / cost.anchor_indexing.seconds,
    );
    println!(
        "indexing: ours {}, the anchor's rebuild {}: {indexing:.2}x in {measure}, {:.2}x in \
         wall clock (budget {INDEXING_LIMIT}x)",
        seconds(cost.indexing),
        seconds(cost.anchor_indexing),
        cost.indexing.seconds / cost.anchor_indexing.seconds,
    );
    let list = |owner| {
        let messages = match owner {
            Owner::Anchor => cost.anchor_indexed,
            _ => cost.indexed,
        };
        cost.tables
            .iter()
            .filter(|table| table.1 == owner)
            .map(|(name, _, bytes)| format!("{name} {:.1}", per(*bytes, messages)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("ours, B/msg: {}", list(Owner::Extension));
    if !cost.families.is_empty() {
        println!("what each family of extra tokens costs and buys (see the legend):");
        families::print(&cost.families);
    }
    println!("anchor, B/msg: {}", list(Owner::Anchor));
    println!(
        "host (counted in neither), B/msg: tables {:.1} ({}); their indexes {:.1} ({})",
        per_indexed(Owner::HostTable),
        list(Owner::HostTable),
        per_indexed(Owner::HostIndex),
        list(Owner::HostIndex),
    );
}

/// The budgets of bytes and indexing time on `corpus`.
pub fn targets(corpus: &str, cost: &Cost) -> Vec<Target> {
    let (indexing, measure) = cost.indexing.ratio(cost.anchor_indexing);
    vec![
        Target::new(
            format!("lean index, {corpus}: FTS5 B/msg / anchor's"),
            cost.fts_ratio(),
            FTS_BYTES_LIMIT,
            "x",
        ),
        Target::new(
            format!("lean index, {corpus}: extension tables / anchor's tables"),
            cost.tables_ratio(),
            TABLES_LIMIT,
            "x",
        ),
        Target::new(
            format!(
                "lean index, {corpus}: indexing {}k msgs, {measure} / FTS5 rebuild",
                cost.anchor_indexed / 1000
            ),
            indexing,
            INDEXING_LIMIT,
            "x",
        ),
    ]
}
