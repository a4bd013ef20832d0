//! The database of the search part: sessions in spawn trees over
//! [`AGENTS`] agents, transcript-like messages (a tenth of the sessions
//! written in Chinese, Japanese or Korean), loaded through the wrapper with
//! deferred indexing and reconciled, then the OpenClaw-style FTS5 table
//! built over the same user and assistant messages ([`index_cost`]).

use super::{db_path, VISIBILITIES, VISIBLE_SQL};
use crate::corpus::{Kind, Lengths, Messages};
use crate::index_cost;
use crate::memory;
use crate::rng::Rng;
use crate::stats::{median, sorted, thread_cpu_seconds, timed_ms, Spent};
use crate::store::databases::{INSERT_SQL, TRANSACTION_ROWS};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use session_search::tokenizer::is_spaceless;
use session_search::{IndexingMode, Store, StoreOptions};
use std::error::Error;
use std::path::Path;

/// Agents the sessions belong to (session `g` to agent `g % AGENTS`).
pub const AGENTS: usize = 20;

/// Sessions at scale 1.
const SESSIONS: f64 = 10_000.0;

/// Messages at scale 1.
const MESSAGES: f64 = 1_000_000.0;

/// Share of the sessions after the first that the caller's tree spawns:
/// each is spawned by a uniformly chosen session already in the tree.
pub const CALLER_TREE_SHARE: f64 = 0.1;

/// Share of the other sessions spawned by one of the [`RECENT`] sessions
/// created just before them (outside the caller's tree, at most
/// [`SMALL_TREE_DEPTH`] deep); the rest are roots.
pub const SMALL_TREE_SHARE: f64 = 0.5;

/// How far back a small tree's spawner is looked for.
pub const RECENT: usize = 100;

/// Depth below which a session of a small tree may spawn.
pub const SMALL_TREE_DEPTH: usize = 3;

/// Share of the sessions whose user and assistant messages are in Chinese,
/// Japanese or Korean (the CJK corpus' writer); their tool output, and
/// every other session, is English.
pub const CJK_SESSION_SHARE: f64 = 0.1;

/// Share of `tool` messages; the others alternate user / assistant.
pub const TOOL_SHARE: f64 = 0.1;

/// Messages per session, drawn uniformly, then nudged so that the total is
/// exact.
pub const SESSION_MESSAGES: (usize, usize) = (10, 190);

/// Sessions written concurrently: the messages of each group of this many
/// consecutive sessions are interleaved at random, as a host with that many
/// live conversations writes them.
pub const CONCURRENT: usize = 50;

/// Message lengths aimed at (mean about 300 B).
pub const LENGTHS: Lengths = Lengths { min: 40, max: 840 };

/// Seed of the sessions and messages.
const SEED: u64 = 0x5E55_0301;

/// Rows per reconciliation slice after the load.
pub const LOAD_SLICE_ROWS: i64 = 50_000;

/// Rows of each of the [`FIRST_SLICES`] slices that start the load's
/// reconciliation, timed apart: a slice's cost against the backlog's size.
pub const FIRST_SLICE_ROWS: i64 = 1000;

/// Slices of [`FIRST_SLICE_ROWS`] timed before the rest of the load's
/// reconciliation.
const FIRST_SLICES: usize = 5;

/// `created_at` of the first session and message, unix milliseconds.
const FIRST_CREATED_AT: i64 = 1_700_000_000_000;

/// What is visible to the caller at one visibility.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Visible {
    /// `tree` or `agent`.
    pub visibility: String,
    /// Sessions.
    pub sessions: u64,
    /// Messages of every role.
    pub messages: u64,
    /// User and assistant messages (the searchable ones).
    pub searchable: u64,
    /// Bytes of their content.
    pub searchable_bytes: u64,
}

/// What the build did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Build {
    /// Sessions.
    pub sessions: usize,
    /// Sessions spawned by none.
    pub roots: usize,
    /// Messages.
    pub messages: usize,
    /// Messages per role: user, assistant, tool.
    pub roles: [usize; 3],
    /// Bytes of content.
    pub bytes: usize,
    /// Bytes of the CJK sessions' user and assistant messages.
    pub cjk_bytes: usize,
    /// Share of all characters in scripts written without spaces.
    pub spaceless_share: f64,
    /// The caller's session key.
    pub caller: String,
    /// Depth of the caller's tree (the caller alone: 0).
    pub tree_depth: usize,
    /// Seconds of the deferred inserts (transactions only; messages are
    /// generated before each, untimed).
    pub insert_seconds: f64,
    /// Seconds of reconciling the load.
    pub reconcile_seconds: f64,
    /// Messages queued when reconciliation started (the whole load).
    pub backlog: i64,
    /// Median milliseconds of the first slices of [`FIRST_SLICE_ROWS`].
    pub first_slice_ms: f64,
    /// Messages the reconciliation indexed.
    pub indexed: i64,
    /// Messages still pending afterwards.
    pub pending: i64,
    /// Database size after the load (`page_count * page_size`).
    pub db_bytes: u64,
    /// FTS5 segments of the index after the load.
    pub segments: i64,
    /// The index against the OpenClaw-style anchor, built afterwards in
    /// the same file over the same rows.
    pub cost: Option<index_cost::Cost>,
    /// What the caller sees, per visibility of [`VISIBILITIES`].
    pub visible: Vec<Visible>,
    /// Peak RSS of the build's process, in KiB.
    pub peak_rss_kib: u64,
}

/// One session of the plan.
#[derive(Debug, Clone)]
struct Session {
    key: String,
    agent: usize,
    spawned_by: Option<usize>,
    depth: usize,
    in_caller_tree: bool,
    messages: usize,
    cjk: bool,
}

/// The number of sessions at `scale`.
pub fn sessions(scale: f64) -> usize {
    ((SESSIONS * scale).round() as usize).max(2 * AGENTS)
}

/// The number of messages at `scale`.
pub fn messages(scale: f64) -> usize {
    let sessions = sessions(scale);
    ((MESSAGES * scale).round() as usize)
        .clamp(sessions * SESSION_MESSAGES.0, sessions * SESSION_MESSAGES.1)
}

/// The agent id of agent `agent`.
fn agent_id(agent: usize) -> String {
    format!("agent-{agent:02}")
}

/// The caller: the first session, root of the large tree.
pub fn caller() -> String {
    session_key(0, 0, None)
}

/// The key of session `g` of `agent`.
fn session_key(g: usize, agent: usize, spawned_by: Option<usize>) -> String {
    let kind = if spawned_by.is_some() {
        "subagent"
    } else {
        "chat"
    };
    format!("agent:{}:{kind}:{g}", agent_id(agent))
}

/// The sessions at `scale`, in creation order (a spawner before the
/// sessions it spawns).
fn plan(scale: f64) -> Vec<Session> {
    let mut rng = Rng::new(SEED);
    let n = sessions(scale);
    let mut sessions: Vec<Session> = Vec::with_capacity(n);
    let mut caller_tree = Vec::new();
    for g in 0..n {
        let agent = g % AGENTS;
        let (spawned_by, in_caller_tree) = if g == 0 {
            (None, true)
        } else if rng.chance(CALLER_TREE_SHARE) {
            (Some(caller_tree[rng.below(caller_tree.len())]), true)
        } else if rng.chance(SMALL_TREE_SHARE) {
            let candidate = g - 1 - rng.below(g.min(RECENT));
            let spawner = &sessions[candidate];
            let fits = !spawner.in_caller_tree && spawner.depth < SMALL_TREE_DEPTH;
            (fits.then_some(candidate), false)
        } else {
            (None, false)
        };
        if in_caller_tree {
            caller_tree.push(g);
        }
        sessions.push(Session {
            key: session_key(g, agent, spawned_by),
            agent,
            spawned_by,
            depth: spawned_by.map_or(0, |s| sessions[s].depth + 1),
            in_caller_tree,
            messages: rng.between(SESSION_MESSAGES.0, SESSION_MESSAGES.1),
            cjk: rng.chance(CJK_SESSION_SHARE),
        });
    }
    let target = messages(scale);
    let mut total: usize = sessions.iter().map(|s| s.messages).sum();
    while total != target {
        let session = &mut sessions[rng.below(n)];
        if total < target && session.messages < SESSION_MESSAGES.1 {
            session.messages += 1;
            total += 1;
        } else if total > target && session.messages > SESSION_MESSAGES.0 {
            session.messages -= 1;
            total -= 1;
        }
    }
    sessions
}

/// One message to insert.
#[derive(Debug)]
struct Row {
    session: usize,
    role: &'static str,
    content: String,
    created_at: i64,
}

/// Builds the database in `work` (the child's side).
///
/// # Errors
///
/// Any I/O, SQLite or session-search error.
pub fn run(scale: f64, work: &Path) -> Result<Build, Box<dyn Error>> {
    let path = db_path(work);
    let store = Store::open_with(
        &path,
        &StoreOptions {
            background_reconcile: false,
        },
    )?;
    let conn = store.connection();
    conn.execute_batch("PRAGMA synchronous = NORMAL;")?;
    store.set_indexing(IndexingMode::Deferred)?;
    let sessions = plan(scale);
    create_sessions(conn, &sessions)?;
    let mut build = Build {
        sessions: sessions.len(),
        roots: sessions.iter().filter(|s| s.spawned_by.is_none()).count(),
        messages: 0,
        roles: [0; 3],
        bytes: 0,
        cjk_bytes: 0,
        spaceless_share: 0.0,
        caller: caller(),
        tree_depth: sessions
            .iter()
            .filter(|s| s.in_caller_tree)
            .map(|s| s.depth)
            .max()
            .unwrap_or(0),
        insert_seconds: 0.0,
        reconcile_seconds: 0.0,
        backlog: 0,
        first_slice_ms: 0.0,
        indexed: 0,
        pending: 0,
        db_bytes: 0,
        segments: 0,
        cost: None,
        visible: Vec::new(),
        peak_rss_kib: 0,
    };
    load(conn, &sessions, &mut build)?;
    build.backlog = store.status()?.pending;
    let mut first_slices = Vec::with_capacity(FIRST_SLICES);
    let cpu_start = thread_cpu_seconds();
    loop {
        let rows = if first_slices.len() < FIRST_SLICES {
            FIRST_SLICE_ROWS
        } else {
            LOAD_SLICE_ROWS
        };
        let (progress, ms) = timed_ms(|| store.reconcile(rows))?;
        if rows == FIRST_SLICE_ROWS {
            first_slices.push(ms);
        }
        build.reconcile_seconds += ms / 1e3;
        build.indexed += progress.indexed;
        build.pending = progress.pending;
        if progress.done {
            break;
        }
    }
    let indexing = Spent {
        seconds: build.reconcile_seconds,
        cpu_seconds: cpu_start
            .zip(thread_cpu_seconds())
            .map(|(start, end)| end - start),
    };
    build.first_slice_ms = median(&sorted(first_slices));
    store.set_indexing(IndexingMode::Immediate)?;
    build.db_bytes = db_bytes(conn)?;
    build.segments = conn.query_row(
        "SELECT count(DISTINCT segid) FROM session_search_fts_idx",
        [],
        |row| row.get(0),
    )?;
    build.cost = Some(index_cost::measure(conn, indexing)?);
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    for visibility in VISIBILITIES {
        build.visible.push(visible(conn, visibility)?);
    }
    build.peak_rss_kib = memory::peak_rss_kib()?;
    Ok(build)
}

/// Inserts the `sessions` rows in one transaction.
fn create_sessions(conn: &Connection, sessions: &[Session]) -> rusqlite::Result<()> {
    let tx = conn.unchecked_transaction()?;
    {
        let mut insert = tx.prepare(
            "INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) \
             VALUES (?1, ?2, ?3, ?4)",
        )?;
        for (g, session) in sessions.iter().enumerate() {
            insert.execute((
                &session.key,
                agent_id(session.agent),
                session.spawned_by.map(|s| &sessions[s].key),
                FIRST_CREATED_AT + g as i64,
            ))?;
        }
    }
    tx.commit()
}

/// Appends every session's messages, [`CONCURRENT`] sessions at a time,
/// with [`INSERT_SQL`] in transactions of [`TRANSACTION_ROWS`].
fn load(conn: &Connection, sessions: &[Session], build: &mut Build) -> rusqlite::Result<()> {
    let mut english = Messages::new(Kind::English, SEED ^ 1, LENGTHS);
    let mut cjk = Messages::new(Kind::Cjk, SEED ^ 2, LENGTHS);
    let mut rng = Rng::new(SEED ^ 3);
    let mut user_next = vec![true; sessions.len()];
    let (mut chars, mut spaceless) = (0usize, 0usize);
    let mut batch = Vec::with_capacity(TRANSACTION_ROWS);
    for (group, chunk) in sessions.chunks(CONCURRENT).enumerate() {
        let first = group * CONCURRENT;
        let mut left: Vec<(usize, usize)> = chunk
            .iter()
            .enumerate()
            .map(|(i, s)| (first + i, s.messages))
            .collect();
        while !left.is_empty() {
            let pick = rng.below(left.len());
            let session = left[pick].0;
            left[pick].1 -= 1;
            if left[pick].1 == 0 {
                left.swap_remove(pick);
            }
            let role = if rng.chance(TOOL_SHARE) {
                "tool"
            } else {
                let user = user_next[session];
                user_next[session] = !user;
                if user {
                    "user"
                } else {
                    "assistant"
                }
            };
            let in_cjk = sessions[session].cjk && role != "tool";
            let content =
                if in_cjk { cjk.next() } else { english.next() }.expect("the streams never end");
            build.bytes += content.len();
            if in_cjk {
                build.cjk_bytes += content.len();
            }
            for c in content.chars() {
                chars += 1;
                spaceless += usize::from(is_spaceless(c));
            }
            build.roles[match role {
                "user" => 0,
                "assistant" => 1,
                _ => 2,
            }] += 1;
            batch.push(Row {
                session,
                role,
                content,
                created_at: FIRST_CREATED_AT + build.messages as i64 * 1000,
            });
            build.messages += 1;
            if batch.len() == TRANSACTION_ROWS {
                build.insert_seconds += insert(conn, sessions, &batch)?;
                batch.clear();
            }
        }
    }
    build.insert_seconds += insert(conn, sessions, &batch)?;
    build.spaceless_share = spaceless as f64 / chars.max(1) as f64;
    Ok(())
}

/// Appends `rows` in one transaction; returns its seconds, commit included.
fn insert(conn: &Connection, sessions: &[Session], rows: &[Row]) -> rusqlite::Result<f64> {
    let ((), ms) = timed_ms(|| {
        let tx = conn.unchecked_transaction()?;
        {
            let mut insert = tx.prepare_cached(INSERT_SQL)?;
            for row in rows {
                insert.execute((
                    &sessions[row.session].key,
                    row.role,
                    &row.content,
                    row.created_at,
                ))?;
            }
        }
        tx.commit()
    })?;
    Ok(ms / 1e3)
}

/// `page_count * page_size`.
fn db_bytes(conn: &Connection) -> rusqlite::Result<u64> {
    conn.query_row(
        "SELECT page_count * page_size FROM pragma_page_count, pragma_page_size",
        [],
        |row| row.get(0),
    )
}

/// What the caller sees at `visibility`, by the recursive CTE of
/// `sql/visible.sql`.
fn visible(conn: &Connection, visibility: &str) -> rusqlite::Result<Visible> {
    let sql = format!(
        "{VISIBLE_SQL}
SELECT (SELECT count(*) FROM visible), count(*),
       coalesce(sum(m.role IN ('user', 'assistant')), 0),
       coalesce(sum(CASE WHEN m.role IN ('user', 'assistant')
                    THEN length(CAST(m.content AS BLOB)) END), 0)
FROM messages m WHERE m.session_key IN (SELECT session_key FROM visible)"
    );
    conn.query_row(&sql, (caller(), visibility), |row| {
        Ok(Visible {
            visibility: visibility.to_owned(),
            sessions: row.get(0)?,
            messages: row.get(1)?,
            searchable: row.get(2)?,
            searchable_bytes: row.get(3)?,
        })
    })
}
