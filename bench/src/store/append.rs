//! Append throughput: the same messages into plain tables, an
//! OpenClaw-style store and a session-search store, indexing immediately or
//! deferred and reconciled afterwards. Every run is a child process.

use super::databases::{self, Database, Variant, TRANSACTION_ROWS};
use super::transcript::{self, Transcript};
use super::{in_child, timed_ms};
use crate::corpus::Lengths;
use crate::memory;
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
}

impl Workload {
    /// Both, in the order a run measures them.
    pub const ALL: [Workload; 2] = [Workload::PerMessage, Workload::Batched];

    /// The name used on the child's command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Batched => "batched",
            Workload::PerMessage => "per-message",
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
            Workload::PerMessage => 1,
        }
    }

    /// Messages appended at scale 1 (a commit per message is slower).
    fn messages_at_scale_1(self) -> f64 {
        match self {
            Workload::Batched => 100_000.0,
            Workload::PerMessage => 20_000.0,
        }
    }

    /// The variants measured: deferred indexing is for bulk imports only.
    pub fn variants(self) -> &'static [Variant] {
        match self {
            Workload::Batched => &VARIANTS,
            Workload::PerMessage => &VARIANTS[..4],
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

/// The variants, in the order each repetition runs them.
pub const VARIANTS: [Variant; 5] = [
    Variant::Plain,
    Variant::Fts5Alone,
    Variant::OpenClaw,
    Variant::SessionSearch(IndexingMode::Immediate),
    Variant::SessionSearch(IndexingMode::Deferred),
];

/// What one run measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    /// Bytes of message content appended.
    pub bytes: usize,
    /// Seconds of the inserts.
    pub insert_seconds: f64,
    /// Seconds of the reconciliation (deferred only; else 0).
    pub reconcile_seconds: f64,
    /// Seconds of every reconciliation slice.
    pub slice_seconds: Vec<f64>,
    /// Peak RSS of the run's process, in KiB.
    pub peak_rss_kib: u64,
    /// Size of the database file after closing it.
    pub db_bytes: u64,
}

impl Run {
    /// Seconds of the inserts plus the reconciliation.
    pub fn total_seconds(&self) -> f64 {
        self.insert_seconds + self.reconcile_seconds
    }
}

/// The runs of one variant.
#[derive(Debug, Clone)]
pub struct VariantRuns {
    /// Which variant.
    pub variant: Variant,
    /// One entry per repetition.
    pub runs: Vec<Run>,
}

impl VariantRuns {
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
    /// One entry per variant, in [`VARIANTS`] order.
    pub variants: Vec<VariantRuns>,
}

impl Append {
    /// The runs of `variant`, if the workload measures it.
    pub fn find(&self, variant: Variant) -> Option<&VariantRuns> {
        self.variants.iter().find(|runs| runs.variant == variant)
    }

    /// The runs of `variant`, which every workload measures.
    pub fn of(&self, variant: Variant) -> &VariantRuns {
        self.find(variant)
            .expect("every workload runs this variant")
    }

    /// Bytes of message content appended per run.
    pub fn bytes(&self) -> usize {
        self.variants[0].runs[0].bytes
    }
}

/// The number of messages of `workload` at `scale`.
pub fn messages(workload: Workload, scale: f64) -> usize {
    ((workload.messages_at_scale_1() * scale) as usize).max(1000)
}

/// Runs every variant of `workload` [`REPEATS`] times, each run in a child
/// process with its own database in `work`.
///
/// # Errors
///
/// When a run fails.
pub fn run(scale: f64, work: &Path, workload: Workload) -> Result<Append, Box<dyn Error>> {
    let mut variants: Vec<VariantRuns> = workload
        .variants()
        .iter()
        .map(|&variant| VariantRuns {
            variant,
            runs: Vec::new(),
        })
        .collect();
    for repeat in 0..REPEATS {
        for (i, runs) in variants.iter_mut().enumerate() {
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
        variants,
    })
}

/// One run of the `index`-th variant of the workload named `workload` into
/// a new database in `work`, removed afterwards (the child's side).
///
/// # Errors
///
/// Any I/O, SQLite or session-search error, or an unknown workload or
/// variant.
pub fn run_one(
    scale: f64,
    work: &Path,
    workload: &str,
    index: usize,
    repeat: usize,
) -> Result<Run, Box<dyn Error>> {
    let workload = Workload::parse(workload)?;
    let variant = *workload
        .variants()
        .get(index)
        .ok_or_else(|| format!("no append variant {index}"))?;
    let path = work.join(format!("append-{}-{index}-{repeat}.db", workload.name()));
    let database = Database::create(variant, &path)?;
    let keys: Vec<String> = (0..SESSIONS).map(transcript::session_key).collect();
    database.create_sessions(&keys)?;
    let fill = database.fill_in(
        &mut Transcript::new(SEED, LENGTHS),
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
    let peak_rss_kib = memory::peak_rss_kib()?;
    drop(database);
    let db_bytes = std::fs::metadata(&path)?.len();
    databases::remove(&path)?;
    Ok(Run {
        bytes: fill.bytes,
        insert_seconds: fill.seconds,
        reconcile_seconds: slice_seconds.iter().sum(),
        slice_seconds,
        peak_rss_kib,
        db_bytes,
    })
}
