//! What the tokenizer part prints: what is measured, a table per corpus,
//! and its targets.

use super::indexing::Build;
use super::queries::{self, Latency, QuerySet};
use crate::corpus::Kind;
use crate::report::{Target, MB};

/// The anchor of build-time ratios.
pub const UNICODE61: &str = "unicode61 remove_diacritics 2";
/// The anchor of index-size ratios.
pub const TRIGRAM: &str = "trigram";
/// The project's tokenizer, word mode.
pub const SESSIONS: &str = "sessions";
/// The project's tokenizer, CJK mode.
pub const SESSIONS_CJK: &str = "sessions cjk 1";
/// Every tokenizer, in the order they are run.
pub const TOKENIZERS: [&str; 4] = [UNICODE61, TRIGRAM, SESSIONS, SESSIONS_CJK];

/// One tokenizer's results on one corpus.
#[derive(Debug)]
pub struct TokenizerRun {
    /// The `tokenize` argument.
    pub tokenizer: &'static str,
    /// The build's measurements.
    pub build: Build,
    /// One entry per query set of the corpus.
    pub latencies: Vec<Latency>,
}

/// Every result of one corpus.
#[derive(Debug)]
pub struct CorpusRun {
    /// Which corpus.
    pub kind: Kind,
    /// Its size in bytes.
    pub bytes: usize,
    /// Its number of messages.
    pub messages: usize,
    /// Share of its characters in scripts written without spaces.
    pub spaceless_share: f64,
    /// The query sets run against it.
    pub sets: Vec<QuerySet>,
    /// One entry per tokenizer, in [`TOKENIZERS`] order.
    pub runs: Vec<TokenizerRun>,
}

impl CorpusRun {
    /// The results of `tokenizer`.
    fn of(&self, tokenizer: &str) -> &TokenizerRun {
        self.runs
            .iter()
            .find(|run| run.tokenizer == tokenizer)
            .expect("every tokenizer runs on every corpus")
    }
}

/// Prints the corpus sizes and what each figure means.
pub fn header(scale: f64) {
    let sizes: Vec<String> = Kind::ALL
        .iter()
        .map(|kind| format!("{} {:.1} MB", kind.name(), kind.size(scale) as f64 / MB))
        .collect();
    println!("\n=== part tokenizer: {} ===", sizes.join(", "));
    println!(
        "\
MB = 10^6 bytes. Ratios compare tokenizers within this run.
  build      wall clock of inserting every message into a fresh on-disk FTS5 table
             (one column `body`) in one transaction with one prepared statement, plus
             COMMIT; default pragmas; each build runs in its own child process
  index      bytes of the FTS5 index: sum(length(block)) of t_data plus the record
             payload of t_idx (dbstat); the stored text (t_content), t_docsize and
             t_config are not counted; \"db file\" is the whole database file
  peak RSS   VmHWM of the build's child process (it streams the corpus from a file)
  postings   token occurrences in the index, terms = distinct terms (fts5vocab)
  queries    {}
             with the query quoted as an FTS5 string, 200 per set, drawn at uniformly
             random positions of the corpus text; one warm-up pass, then the timed
             pass; \"rows\" = rows returned (at most 10), \"found\" = queries with at
             least one row, \"matches\" = count(*) of all matching rows (untimed),
             \"exact\" = queries whose count equals a substring scan of the corpus",
        queries::search_sql()
    );
}

/// Prints the build table and the query table of one corpus.
pub fn corpus(run: &CorpusRun) {
    println!(
        "\n== {}: {:.1} MB in {} messages (mean {} B), {:.0}% of characters CJK ==",
        run.kind.name(),
        run.bytes as f64 / MB,
        run.messages,
        run.bytes / run.messages.max(1),
        run.spaceless_share * 100.0
    );
    builds(run);
    latencies(run);
}

/// Prints the build table: time, index size, file size and peak memory.
fn builds(run: &CorpusRun) {
    let anchor_time = run.of(UNICODE61).build.seconds;
    let anchor_size = run.of(TRIGRAM).build.index_bytes as f64;
    println!(
        "{:<31}{:>9}{:>12}{:>10}{:>10}{:>12}{:>13}{:>11}{:>9}",
        "tokenizer",
        "build s",
        "/unicode61",
        "index MB",
        "/trigram",
        "db file MB",
        "peak RSS MB",
        "postings M",
        "terms K"
    );
    for tokenizer_run in &run.runs {
        let build = &tokenizer_run.build;
        println!(
            "{:<31}{:>9.2}{:>11.2}x{:>10.2}{:>9.2}x{:>12.1}{:>13.1}{:>11.2}{:>9.1}",
            tokenizer_run.tokenizer,
            build.seconds,
            build.seconds / anchor_time,
            build.index_bytes as f64 / MB,
            build.index_bytes as f64 / anchor_size,
            build.db_bytes as f64 / MB,
            build.peak_rss_kib as f64 * 1024.0 / MB,
            build.postings as f64 / 1e6,
            build.terms as f64 / 1e3,
        );
    }
}

/// Prints the query table: latency, rows, found, matches and exactness.
fn latencies(run: &CorpusRun) {
    println!(
        "\n{:<31}{:>8}{:>11}{:>9}{:>7}{:>9}{:>10}{:>7}",
        "queries", "set", "median ms", "p95 ms", "rows", "found", "matches", "exact"
    );
    for (i, set) in run.sets.iter().enumerate() {
        for tokenizer_run in &run.runs {
            let latency = &tokenizer_run.latencies[i];
            println!(
                "{:<31}{:>8}{:>11.3}{:>9.3}{:>7.1}{:>9}{:>10.1}{:>7}",
                tokenizer_run.tokenizer,
                set.label,
                latency.median_ms,
                latency.p95_ms,
                latency.mean_rows,
                format!("{}/{}", latency.found, set.len()),
                latency.mean_matches,
                latency.exact.map_or("-".to_owned(), |n| n.to_string()),
            );
        }
        if let Some(truth) = queries::true_mean_matches(set) {
            println!(
                "{:<31}{:>8}{:>44.1}",
                "(substring scan of the corpus)", set.label, truth
            );
        }
    }
}

/// The targets of the specification, from the corpora that carry them.
pub fn targets(runs: &[CorpusRun]) -> Vec<Target> {
    let mut targets = Vec::new();
    for run in runs {
        match run.kind {
            Kind::English => targets.push(Target::new(
                format!("english build time, {SESSIONS} / {UNICODE61}"),
                run.of(SESSIONS).build.seconds / run.of(UNICODE61).build.seconds,
                1.5,
                "x",
            )),
            Kind::Cjk => {
                targets.push(Target::new(
                    format!("cjk index size, {SESSIONS_CJK} / {TRIGRAM}"),
                    run.of(SESSIONS_CJK).build.index_bytes as f64
                        / run.of(TRIGRAM).build.index_bytes as f64,
                    0.6,
                    "x",
                ));
                for (set, latency) in run.sets.iter().zip(&run.of(SESSIONS_CJK).latencies) {
                    targets.push(Target::new(
                        format!("cjk median latency, {} queries, {SESSIONS_CJK}", set.label),
                        latency.median_ms,
                        10.0,
                        " ms",
                    ));
                }
            }
            Kind::Latin => {}
        }
    }
    targets
}
