//! `make bench`: the benchmark of session-search, in parts that one run
//! executes in turn and that can be run alone by naming them on the command
//! line (`cargo run --release -p session-search-bench -- store`):
//!
//! - `tokenizer`: FTS5 builds and queries of three generated corpora with
//!   `unicode61`, `trigram` and the `sessions` tokenizer ([`tokenizers`]);
//! - `store`: the transcript store's write path, rewinds, reconciliation and
//!   `sessions_search` during a background rebuild, against plain tables
//!   and an OpenClaw-style FTS5 trigger ([`store`]);
//! - `search`: `sessions_search` latency on a million messages in spawn
//!   trees, for `tree` and `agent` visibility, against a `LIKE` scan and an
//!   OpenClaw-style query on the same database, and for `tree`, `agent` and
//!   `all` in both orders against the FTS5 floor and exhaustive BM25
//!   ([`sessions_search`]);
//! - `relevance`: the questions people type (exact words, a question with
//!   the answer's words, a question in other words) about target messages
//!   of the real fixtures, against plain FTS5 tables ([`relevance`]);
//! - `questions`: questions in plain language against answers planted in a
//!   corpus, on the first page with and without the any-term fill
//!   ([`questions`]);
//! - `redaction`: redaction throughput, a 10 MB message indexed, and
//!   searches that only secrets would match ([`redaction`]);
//! - `sync`: the CLI's `sync --watch` following transcript folders: how
//!   soon an appended line is searchable, and its CPU when idle ([`sync`]);
//! - `import`: import throughput per format on the real fixtures, against
//!   reading and parsing the same bytes, and a 1 GB home directory imported
//!   with its peak memory ([`import`]).
//!
//! `--full` adds the 3 M-message point to the search part's growth table
//! (about 40 minutes more).
//!
//! Every figure is compared with anchors measured in the same run.
//! `SESSION_SEARCH_BENCH_SCALE` (default 1.0) scales every size, for quick
//! runs. Nothing here asserts on timings: it prints figures and the targets
//! with PASS/FAIL.

mod child;
mod corpus;
mod families;
mod import;
mod index_cost;
mod memory;
mod questions;
mod redaction;
mod relevance;
mod report;
mod rng;
mod search;
mod sessions_search;
mod stats;
mod store;
mod sync;
mod tokenizers;

use report::Target;
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The flag that adds the search part's largest point.
const FULL_FLAG: &str = "--full";

/// The environment variable that scales the sizes.
const SCALE_VAR: &str = "SESSION_SEARCH_BENCH_SCALE";

/// A part of the benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The tokenizer against `unicode61` and `trigram`.
    Tokenizer,
    /// The transcript store.
    Store,
    /// `sessions_search` latency with visibility.
    Search,
    /// The questions people type, on the real fixtures, against plain FTS5.
    Relevance,
    /// Plain-language questions against planted answers.
    Questions,
    /// The cost of redaction.
    Redaction,
    /// `session-search sync --watch`: latency and idle CPU.
    Sync,
    /// Import throughput and memory.
    Import,
}

impl Part {
    /// Every part, in the order a full run executes them.
    pub const ALL: [Part; 8] = [
        Part::Tokenizer,
        Part::Store,
        Part::Search,
        Part::Relevance,
        Part::Questions,
        Part::Redaction,
        Part::Sync,
        Part::Import,
    ];

    /// The name that selects it on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Part::Tokenizer => "tokenizer",
            Part::Store => "store",
            Part::Search => "search",
            Part::Relevance => "relevance",
            Part::Questions => "questions",
            Part::Redaction => "redaction",
            Part::Sync => "sync",
            Part::Import => "import",
        }
    }

    /// Runs the part in the directory `work`; returns its targets.
    fn run(self, scale: f64, full: bool, work: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
        match self {
            Part::Tokenizer => tokenizers::run(scale, work),
            Part::Store => store::run(scale, work),
            Part::Search => sessions_search::run(scale, full, work),
            Part::Relevance => relevance::run(work),
            Part::Questions => questions::run(scale, work),
            Part::Redaction => redaction::run(scale, work),
            Part::Sync => sync::run(scale, work),
            Part::Import => import::run(scale, work),
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.split_first() {
        Some((flag, rest)) if flag == tokenizers::indexing::CHILD_FLAG => {
            tokenizers::indexing::child_main(rest)
        }
        Some((flag, rest)) if flag == store::CHILD_FLAG => store::child_main(rest),
        Some((flag, rest)) if flag == import::CHILD_FLAG => import::child_main(rest),
        Some((flag, rest)) if flag == redaction::CHILD_FLAG => redaction::child_main(rest),
        Some((flag, rest)) if flag == sessions_search::CHILD_FLAG => {
            sessions_search::child_main(rest)
        }
        _ => {
            let full = args.iter().any(|arg| arg == FULL_FLAG);
            let named: Vec<String> = args.into_iter().filter(|arg| arg != FULL_FLAG).collect();
            parts(&named).and_then(|parts| run(&parts, full))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("session-search-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The parts named by `args`, in run order; every part when none is named.
fn parts(args: &[String]) -> Result<Vec<Part>, Box<dyn Error>> {
    for arg in args {
        if !Part::ALL.iter().any(|part| part.name() == arg) {
            let names: Vec<&str> = Part::ALL.iter().map(|part| part.name()).collect();
            return Err(format!(
                "unknown part {arg:?}; usage: session-search-bench [{FULL_FLAG}] [{}]...",
                names.join(" | ")
            )
            .into());
        }
    }
    Ok(Part::ALL
        .into_iter()
        .filter(|part| args.is_empty() || args.iter().any(|arg| arg == part.name()))
        .collect())
}

/// Runs `parts` (the search part with its largest point when `full`) and
/// prints every table, then all their targets.
fn run(parts: &[Part], full: bool) -> Result<(), Box<dyn Error>> {
    let started = Instant::now();
    let scale = scale()?;
    let flags: &[&str] = if full { &[FULL_FLAG] } else { &[] };
    report::header(scale, parts, flags);
    let work = WorkDir::create()?;
    let mut targets = Vec::new();
    for part in parts {
        targets.extend(part.run(scale, full, work.path())?);
    }
    report::targets(&targets);
    report::elapsed(started.elapsed());
    Ok(())
}

/// Reads the scale from [`SCALE_VAR`]: a positive number, 1.0 if unset.
fn scale() -> Result<f64, Box<dyn Error>> {
    let Ok(value) = std::env::var(SCALE_VAR) else {
        return Ok(1.0);
    };
    match value.trim().parse::<f64>() {
        Ok(scale) if scale.is_finite() && scale > 0.0 => Ok(scale),
        _ => Err(format!("{SCALE_VAR} must be a positive number, not {value:?}").into()),
    }
}

/// A private temporary directory for the corpus files and databases,
/// removed with everything in it when dropped (also on error).
#[derive(Debug)]
struct WorkDir(PathBuf);

impl WorkDir {
    /// Creates `session-search-bench-<pid>` in the system's temp directory.
    fn create() -> std::io::Result<WorkDir> {
        let path =
            std::env::temp_dir().join(format!("session-search-bench-{}", std::process::id()));
        fs::create_dir_all(&path)?;
        Ok(WorkDir(path))
    }

    /// The directory.
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}
