//! `make bench`: builds FTS5 indexes of three generated corpora of agent
//! transcripts (English, Latin-script languages with diacritics, CJK) with
//! `unicode61 remove_diacritics 2`, `trigram`, `sessions` and
//! `sessions cjk 1`, and prints build time, index size, peak memory and query
//! latency, with ratios against anchors measured in the same run.
//!
//! `SESSION_SEARCH_BENCH_SCALE` (default 1.0) scales every corpus, for quick
//! runs. Nothing here asserts on timings: it prints figures.

mod corpus;
mod indexing;
mod queries;
mod report;
mod rng;

use corpus::{Corpus, Kind};
use report::{CorpusRun, TokenizerRun, TOKENIZERS};
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// The environment variable that scales the corpora.
const SCALE_VAR: &str = "SESSION_SEARCH_BENCH_SCALE";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.split_first() {
        Some((flag, rest)) if flag == indexing::CHILD_FLAG => indexing::child_main(rest),
        _ => run(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("session-search-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The whole benchmark.
fn run() -> Result<(), Box<dyn Error>> {
    let started = Instant::now();
    let scale = scale()?;
    report::header(scale);
    let work = WorkDir::create()?;
    let mut runs = Vec::new();
    for kind in Kind::ALL {
        let run = bench_corpus(kind, scale, work.path())?;
        report::corpus(&run);
        runs.push(run);
    }
    report::targets(&runs);
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

/// Generates one corpus, then builds and queries it with every tokenizer.
fn bench_corpus(kind: Kind, scale: f64, work: &Path) -> Result<CorpusRun, Box<dyn Error>> {
    let corpus = Corpus::generate(kind, scale);
    let messages_file = work.join(format!("{}.messages", kind.name()));
    corpus.write_to(&messages_file)?;
    let sets = queries::sample(&corpus);
    let mut runs = Vec::new();
    for (i, tokenizer) in TOKENIZERS.into_iter().enumerate() {
        let db_dir = work.join(format!("{}-{i}", kind.name()));
        fs::create_dir(&db_dir)?;
        let db = db_dir.join("index.db");
        let build = indexing::build_in_child(&messages_file, &db, tokenizer)?;
        let latencies = queries::measure(&db, &sets)?;
        fs::remove_dir_all(&db_dir)?;
        runs.push(TokenizerRun {
            tokenizer,
            build,
            latencies,
        });
    }
    fs::remove_file(&messages_file)?;
    Ok(CorpusRun {
        kind,
        bytes: corpus.bytes(),
        messages: corpus.messages.len(),
        spaceless_share: corpus.spaceless_share(),
        sets,
        runs,
    })
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
