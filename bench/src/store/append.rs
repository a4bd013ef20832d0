//! Append throughput: the same messages into plain tables, an
//! OpenClaw-style store and a session-search store, indexing immediately or
//! deferred and reconciled afterwards; and, one message per transaction,
//! the immediate store with its sessions deep in a spawn chain. Every run is
//! a child process.

use super::databases::{self, Database, Variant, TRANSACTION_ROWS};
use super::in_child;
use super::transcript::{self, Transcript};
use crate::corpus::Lengths;
use crate::memory;
use crate::stats::timed_ms;
use crate::stats::{median, sorted};
use serde::{Deserialize, Serialize};
use session_search::IndexingMode;
use std::error::Error;
use std::path::Path;

/// How the messages are committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// Transactions of [`TRANSACTION_ROWS`] messages, as a bulk writer.
    Batched,
    /// One transaction per message, as an agent writes a conversation.
    PerMessage,
    /// One transaction per message of the rebuild's short chat turns, the
    /// openclaw-style store against the immediate one only: the append
    /// budget on a second corpus shape.
    ShortTurns,
}

impl Workload {
    /// Both, in the order a run measures them.
    pub const ALL: [Workload; 3] = [
        Workload::PerMessage,
        Workload::ShortTurns,
        Workload::Batched,
    ];

    /// The name used on the child's command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Batched => "batched",
            Workload::PerMessage => "per-message",
            Workload::ShortTurns => "short-turns",
        }
    }

    fn parse(name: &str) -> Result<Workload, String> {
        Workload::ALL
            .into_iter()
            .find(|w| w.name() == name)
            .ok_or_else(|| format!("no append workload {name:?}"))
    }

    /// Messages per transaction.
    pub fn rows_per_transaction(self) -> usize {
        match self {
            Workload::Batched => TRANSACTION_ROWS,
            Workload::PerMessage | Workload::ShortTurns => 1,
        }
    }

    /// Messages appended at scale 1 (a commit per message is slower).
    fn messages_at_scale_1(self) -> f64 {
        match self {
            Workload::Batched => 100_000.0,
            Workload::PerMessage | Workload::ShortTurns => 20_000.0,
        }
    }

    /// Message lengths.
    pub fn lengths(self) -> Lengths {
        match self {
            Workload::ShortTurns => super::rebuild::LENGTHS,
            Workload::Batched | Workload::PerMessage => LENGTHS,
        }
    }

    /// The cases measured, in the order each repetition runs them: every
    /// variant with its sessions at the top of their chains (deferred
    /// indexing is for bulk imports only, so not one message at a time),
    /// and one message at a time, the immediate store at each deeper
    /// [`SPAWN_DEPTHS`].
    pub fn cases(self) -> Vec<Case> {
        let (variants, depths) = match self {
            Workload::Batched => (&VARIANTS[..], &[][..]),
            Workload::PerMessage => (&VARIANTS[..4], &SPAWN_DEPTHS[1..]),
            Workload::ShortTurns => (&VARIANTS[2..4], &[][..]),
        };
        let top = variants.iter().map(|&variant| Case { variant, depth: 0 });
        let deep = depths.iter().map(|&depth| Case {
            variant: IMMEDIATE,
            depth,
        });
        top.chain(deep).collect()
    }
}

/// One database a workload fills: a variant, with every session at a spawn
/// depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Case {
    /// Which variant.
    pub variant: Variant,
    /// How many sessions are above each session the messages go to, in one
    /// spawn chain they share (see [`Database::create_sessions_at_depth`]).
    pub depth: usize,
}

impl Case {
    /// Its name, as printed.
    pub fn name(self) -> String {
        match self.depth {
            0 => self.variant.name().to_owned(),
            depth => format!("{}, depth {depth}", self.variant.name()),
        }
    }
}

/// Sessions the messages are spread over.
pub const SESSIONS: usize = 200;

/// Rows per reconciliation slice after a deferred insert.
pub const RECONCILE_ROWS: i64 = 5000;

/// Runs of each variant; medians are reported.
pub const REPEATS: usize = 3;

/// Message lengths, as in the English corpus.
const LENGTHS: Lengths = Lengths {
    min: 100,
    max: 2000,
};

/// Seed of the messages: every run appends the same ones.
const SEED: u64 = 0x5E55_0201;

/// The spawn depths of the immediate store, one message per transaction:
/// its scope words, and so its index and append cost, must not grow with
/// depth.
pub const SPAWN_DEPTHS: [usize; 3] = [0, 10, 100];

/// The immediate-indexing store.
pub const IMMEDIATE: Variant = Variant::SessionSearch(IndexingMode::Immediate);

/// The variants, in the order each repetition runs them.
pub const VARIANTS: [Variant; 5] = [
    Variant::Plain,
    Variant::Fts5Alone,
    Variant::OpenClaw,
    IMMEDIATE,
    Variant::SessionSearch(IndexingMode::Deferred),
];

/// What one run measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    /// Bytes of message content appended.
    pub bytes: usize,
    /// Seconds of the inserts.
    pub insert_seconds: f64,
    /// Seconds the inserting thread ran on a CPU during the inserts, if the
    /// system tells.
    pub insert_cpu_seconds: Option<f64>,
    /// Seconds of the reconciliation (deferred only; else 0).
    pub reconcile_seconds: f64,
    /// Seconds of every reconciliation slice.
    pub slice_seconds: Vec<f64>,
    /// Peak RSS of the run's process, in KiB.
    pub peak_rss_kib: u64,
    /// Size of the database file after closing it.
    pub db_bytes: u64,
    /// Bytes of the FTS5 index's blocks after the run (0 without one).
    pub fts_bytes: u64,
    /// Scope words of a session the messages went to (session-search only;
    /// else 0).
    pub scope_words: usize,
}

impl Run {
    /// Seconds of the inserts plus the reconciliation.
    pub fn total_seconds(&self) -> f64 {
        self.insert_seconds + self.reconcile_seconds
    }
}

/// The runs of one case.
#[derive(Debug, Clone)]
pub struct CaseRuns {
    /// Which case.
    pub case: Case,
    /// One entry per repetition.
    pub runs: Vec<Run>,
}

impl CaseRuns {
    /// Median of `figure` over the runs.
    pub fn median(&self, figure: impl Fn(&Run) -> f64) -> f64 {
        median(&sorted(self.runs.iter().map(figure).collect()))
    }

    /// Median over the runs of inserts plus reconciliation, in seconds.
    pub fn median_total(&self) -> f64 {
        self.median(Run::total_seconds)
    }

    /// Largest peak RSS of a run, in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        self.runs
            .iter()
            .map(|run| run.peak_rss_kib)
            .max()
            .unwrap_or(0)
    }
}

/// Everything the append benchmark measured for one workload.
#[derive(Debug, Clone)]
pub struct Append {
    /// How the messages were committed.
    pub workload: Workload,
    /// Messages appended per run.
    pub messages: usize,
    /// One entry per case, in [`Workload::cases`] order.
    pub cases: Vec<CaseRuns>,
}

impl Append {
    /// The runs of `variant` at spawn depth `depth`, if the workload
    /// measures it.
    pub fn at_depth(&self, variant: Variant, depth: usize) -> Option<&CaseRuns> {
        self.cases
            .iter()
            .find(|runs| runs.case == Case { variant, depth })
    }

    /// The runs of `variant` with its sessions at the top, if the workload
    /// measures it.
    pub fn find(&self, variant: Variant) -> Option<&CaseRuns> {
        self.at_depth(variant, 0)
    }

    /// The runs of `variant`, which every workload measures.
    pub fn of(&self, variant: Variant) -> &CaseRuns {
        self.find(variant)
            .expect("every workload runs this variant")
    }

    /// Bytes of message content appended per run.
    pub fn bytes(&self) -> usize {
        self.cases[0].runs[0].bytes
    }
}

/// The number of messages of `workload` at `scale`.
pub fn messages(workload: Workload, scale: f64) -> usize {
    ((workload.messages_at_scale_1() * scale) as usize).max(1000)
}

/// Runs every case of `workload` [`REPEATS`] times, each run in a child
/// process with its own database in `work`.
///
/// # Errors
///
/// When a run fails.
pub fn run(scale: f64, work: &Path, workload: Workload) -> Result<Append, Box<dyn Error>> {
    let mut cases: Vec<CaseRuns> = workload
        .cases()
        .into_iter()
        .map(|case| CaseRuns {
            case,
            runs: Vec::new(),
        })
        .collect();
    for repeat in 0..REPEATS {
        for (i, runs) in cases.iter_mut().enumerate() {
            let job = [
                "append".to_owned(),
                workload.name().to_owned(),
                i.to_string(),
                repeat.to_string(),
            ];
            runs.runs.push(in_child(scale, work, &job)?);
        }
    }
    Ok(Append {
        workload,
        messages: messages(workload, scale),
        cases,
    })
}

/// One run of the `index`-th case of the workload named `workload` into a
/// new database in `work`, removed afterwards (the child's side).
///
/// # Errors
///
/// Any I/O, SQLite or session-search error, or an unknown workload or
/// case.
pub fn run_one(
    scale: f64,
    work: &Path,
    workload: &str,
    index: usize,
    repeat: usize,
) -> Result<Run, Box<dyn Error>> {
    let workload = Workload::parse(workload)?;
    let Case { variant, depth } = *workload
        .cases()
        .get(index)
        .ok_or_else(|| format!("no append case {index}"))?;
    let path = work.join(format!("append-{}-{index}-{repeat}.db", workload.name()));
    let database = Database::create(variant, &path)?;
    let keys: Vec<String> = (0..SESSIONS).map(transcript::session_key).collect();
    database.create_sessions_at_depth(&keys, depth)?;
    let fill = database.fill_in(
        &mut Transcript::new(SEED, workload.lengths()),
        &keys,
        messages(workload, scale),
        workload.rows_per_transaction(),
    )?;
    let mut slice_seconds = Vec::new();
    if let (Some(store), Variant::SessionSearch(IndexingMode::Deferred)) =
        (database.store(), variant)
    {
        loop {
            let (progress, ms) = timed_ms(|| store.reconcile(RECONCILE_ROWS))?;
            slice_seconds.push(ms / 1e3);
            if progress.done {
                break;
            }
        }
    }
    let fts_bytes = database.fts_bytes(variant)?;
    let scope_words = match database.store() {
        Some(store) => store
            .connection()
            .query_row(
                "SELECT scope FROM session_search_scopes WHERE session_key = ?1",
                [&keys[0]],
                |row| row.get::<_, String>(0),
            )?
            .split_whitespace()
            .count(),
        None => 0,
    };
    let peak_rss_kib = memory::peak_rss_kib()?;
    drop(database);
    let db_bytes = std::fs::metadata(&path)?.len();
    databases::remove(&path)?;
    Ok(Run {
        bytes: fill.bytes,
        insert_seconds: fill.seconds,
        insert_cpu_seconds: fill.cpu_seconds,
        reconcile_seconds: slice_seconds.iter().sum(),
        slice_seconds,
        peak_rss_kib,
        db_bytes,
        fts_bytes,
        scope_words,
    })
}
