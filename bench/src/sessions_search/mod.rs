//! Part `search`: `sessions_search` latency on a large store with spawn
//! trees, for `tree` and `agent` visibility, against two anchors measured in
//! the same run on the same database: a `LIKE` scan over the visible rows,
//! and an OpenClaw-style query (an external-content FTS5 table with
//! `unicode61`, the visible session keys enumerated in the host and passed
//! back as a list).
//!
//! The search child also runs every set at `tree`, `agent` and `all`, in
//! both orders, against the FTS5 floor on the engine's own index and
//! exhaustive BM25's top 10 ([`floors`]).
//!
//! One child process builds the database ([`build`]), one times
//! `sessions_search`, one the anchors ([`latency`]); each prints its figures
//! as one JSON line, with its own peak memory.

mod build;
mod floors;
mod latency;
mod queries;
mod report;

use crate::child;
use crate::index_cost;
use crate::report::Target;
use crate::store::databases;
use serde::de::DeserializeOwned;
use std::error::Error;
use std::path::{Path, PathBuf};

/// The hidden first argument that makes this executable run one job of
/// this part.
pub const CHILD_FLAG: &str = "--search-job";

/// The visible sessions, as every read query of the engine computes them.
pub const VISIBLE_SQL: &str = include_str!("../../../engine/sql/visible.sql");

/// The visibilities measured.
pub const VISIBILITIES: [&str; 2] = ["tree", "agent"];

/// The database of the part, in the work directory.
fn db_path(work: &Path) -> PathBuf {
    work.join("search.db")
}

/// The smaller point of the growth table, as a share of the part's scale
/// (100 k messages at scale 1).
const SMALL_POINT: f64 = 0.1;

/// The point `--full` adds, as a multiple of the part's scale (3 M messages
/// at scale 1).
const FULL_POINT: f64 = 3.0;

/// Runs the part in the directory `work`, prints its tables and returns its
/// targets. Every table is of the part's scale; the growth table and the
/// floor targets also measure [`SMALL_POINT`] and, when `full`,
/// [`FULL_POINT`], each in a database of its own, kept until the growth
/// table's rounds have timed them all.
///
/// # Errors
///
/// When a job fails.
pub fn run(scale: f64, full: bool, work: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
    report::header(scale);
    let others = std::iter::once(SMALL_POINT).chain(full.then_some(FULL_POINT));
    let mut sites = vec![(scale, work.to_path_buf())];
    sites.extend(others.map(|point| (scale * point, work.join(format!("x{point}")))));
    let result = (|| {
        let build: build::Build = in_child(scale, work, "build")?;
        report::build(&build);
        let search = in_child(scale, work, "search")?;
        let anchors = in_child(scale, work, "anchors")?;
        report::latency(&search, &anchors);
        floors::print(build.messages, &search.floors);
        let mut targets = report::targets(&search, &anchors);
        if let Some(cost) = &build.cost {
            targets.extend(index_cost::targets(&report::corpus(&build), cost));
        }
        let mut builds = vec![build.clone()];
        let mut points = vec![floors::Point {
            messages: build.messages,
            floors: search.floors,
            growth: Vec::new(),
        }];
        for (scale, dir) in &sites[1..] {
            std::fs::create_dir_all(dir)?;
            let build: build::Build = in_child(*scale, dir, "build")?;
            report::build(&build);
            builds.push(build.clone());
            let floors: Vec<floors::Floor> = in_child(*scale, dir, "floors")?;
            floors::print(build.messages, &floors);
            points.push(floors::Point {
                messages: build.messages,
                floors,
                growth: Vec::new(),
            });
        }
        let mut rounds = vec![Vec::new(); sites.len()];
        for _ in 0..floors::GROWTH_ROUNDS {
            for ((scale, dir), point_rounds) in sites.iter().zip(&mut rounds) {
                point_rounds.push(in_child::<Vec<floors::Floor>>(*scale, dir, "growth")?);
            }
        }
        for (point, point_rounds) in points.iter_mut().zip(&rounds) {
            point.growth = floors::median_of_rounds(point_rounds)?;
        }
        points.sort_by_key(|point| point.messages);
        floors::print_growth(&points);
        if let Some(largest) = points.last() {
            targets.extend(floors::targets(largest));
        }
        targets.extend(floors::growth_targets(&points));
        targets.extend(report::reconciliation_targets(&builds));
        Ok(targets)
    })();
    for (_, dir) in &sites {
        databases::remove(&db_path(dir))?;
    }
    result
}

/// Runs `job` at `scale` in `work` in a child process and parses its
/// report.
fn in_child<T: DeserializeOwned>(scale: f64, work: &Path, job: &str) -> Result<T, Box<dyn Error>> {
    let args = [
        CHILD_FLAG.to_owned(),
        scale.to_string(),
        work.to_string_lossy().into_owned(),
        job.to_owned(),
    ];
    Ok(serde_json::from_str(&child::report(&args)?)?)
}

/// The child's side: `args` are the scale, the work directory and the job
/// (`build`, `search`, `anchors`, `floors` or `growth`: the floors job
/// without the floor itself); prints the job's figures as one JSON line.
///
/// # Errors
///
/// Wrong arguments, or any error of the job.
pub fn child_main(args: &[String]) -> Result<(), Box<dyn Error>> {
    let usage =
        || format!("usage: {CHILD_FLAG} SCALE DIR (build | search | anchors | floors | growth)");
    let [scale, work, job] = args else {
        return Err(usage().into());
    };
    let scale: f64 = scale.parse()?;
    let work = Path::new(work);
    let report = match job.as_str() {
        "build" => serde_json::to_string(&build::run(scale, work)?)?,
        "search" => serde_json::to_string(&latency::sessions_search(work)?)?,
        "anchors" => serde_json::to_string(&latency::anchors(work)?)?,
        "floors" => serde_json::to_string(&latency::floors(work, true)?)?,
        "growth" => serde_json::to_string(&latency::floors(work, false)?)?,
        _ => return Err(usage().into()),
    };
    println!("{report}");
    Ok(())
}
