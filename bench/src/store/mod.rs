//! Part `store`: the transcript store's costs against anchors measured in
//! the same run: append throughput and index size against plain tables, an
//! OpenClaw-style FTS5 trigger and sessions at the top of their spawn chain
//! ([`append`]), rewind cost against session size ([`rewind`]), deferred
//! indexing plus reconciliation against indexing on insert (also
//! [`append`]), and search latency during a rebuild of a large index
//! ([`rebuild`]).
//!
//! Every benchmark runs in a child process (this executable, re-invoked
//! with [`CHILD_FLAG`]) that prints its figures as one JSON line, so that
//! the peak memory each reports is its own.

mod append;
pub(crate) mod databases;
mod rebuild;
mod report;
mod rewind;
mod transcript;

use crate::child;
use crate::report::Target;
use serde::de::DeserializeOwned;
use std::error::Error;
use std::path::Path;

/// The hidden first argument that makes this executable run one store
/// benchmark.
pub const CHILD_FLAG: &str = "--store-job";

/// Runs the part in the directory `work`, prints its tables and returns its
/// targets.
///
/// # Errors
///
/// When a benchmark fails.
pub fn run(scale: f64, work: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
    report::header(scale);
    let appends = append::Workload::ALL
        .into_iter()
        .map(|workload| {
            let append = append::run(scale, work, workload)?;
            report::append(&append);
            Ok(append)
        })
        .collect::<Result<Vec<_>, Box<dyn Error>>>()?;
    let rewind = in_child(scale, work, &["rewind".to_owned()])?;
    report::rewind(&rewind);
    let rebuild = in_child(scale, work, &["rebuild".to_owned()])?;
    report::rebuild(&rebuild);
    Ok(report::targets(&appends, &rewind, &rebuild))
}

/// Runs the benchmark `job` at `scale` in `work` in a child process and
/// parses its report.
fn in_child<T: DeserializeOwned>(
    scale: f64,
    work: &Path,
    job: &[String],
) -> Result<T, Box<dyn Error>> {
    let mut args = vec![
        CHILD_FLAG.to_owned(),
        scale.to_string(),
        work.to_string_lossy().into_owned(),
    ];
    args.extend_from_slice(job);
    Ok(serde_json::from_str(&child::report(&args)?)?)
}

/// The child's side: `args` are the scale, the work directory and the job
/// (`append WORKLOAD CASE REPEAT`, `rewind` or `rebuild`); prints the job's
/// figures as one JSON line.
///
/// # Errors
///
/// Wrong arguments, or any error of the benchmark.
pub fn child_main(args: &[String]) -> Result<(), Box<dyn Error>> {
    let usage = || {
        format!("usage: {CHILD_FLAG} SCALE DIR (append WORKLOAD CASE REPEAT | rewind | rebuild)")
    };
    let [scale, work, job @ ..] = args else {
        return Err(usage().into());
    };
    let scale: f64 = scale.parse()?;
    let work = Path::new(work);
    let report = match job {
        [name, workload, case, repeat] if name == "append" => serde_json::to_string(
            &append::run_one(scale, work, workload, case.parse()?, repeat.parse()?)?,
        )?,
        [name] if name == "rewind" => serde_json::to_string(&rewind::run(scale, work)?)?,
        [name] if name == "rebuild" => serde_json::to_string(&rebuild::run(scale, work)?)?,
        _ => return Err(usage().into()),
    };
    println!("{report}");
    Ok(())
}
