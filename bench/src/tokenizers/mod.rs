//! Part `tokenizer`: builds FTS5 indexes of three generated corpora of agent
//! transcripts (English, Latin-script languages with diacritics, CJK) with
//! `unicode61 remove_diacritics 2`, `trigram`, `sessions` and
//! `sessions cjk 1`, and measures build time, index size, peak memory and
//! query latency, with ratios against anchors measured in the same run.

pub mod indexing;
mod queries;
mod report;

use crate::corpus::{Corpus, Kind};
use crate::report::Target;
use report::{CorpusRun, TokenizerRun, TOKENIZERS};
use std::error::Error;
use std::fs;
use std::path::Path;

/// Runs the part in the directory `work`, prints its tables and returns its
/// targets.
///
/// # Errors
///
/// Any I/O or SQLite error, or a build that fails.
pub fn run(scale: f64, work: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
    report::header(scale);
    let mut runs = Vec::new();
    for kind in Kind::ALL {
        let run = bench_corpus(kind, scale, work)?;
        report::corpus(&run);
        runs.push(run);
    }
    Ok(report::targets(&runs))
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
