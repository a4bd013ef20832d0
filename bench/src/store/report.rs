//! What the store part prints: what is measured, a table per benchmark, and
//! its targets.

use super::append::{self, Append, CaseRuns, Run, Workload, IMMEDIATE, SPAWN_DEPTHS};
use super::databases::{Variant, INSERT_SQL, TRANSACTION_ROWS};
use super::rebuild::{self, Rebuild};
use super::rewind::{self, Rewind};
use crate::index_cost;
use crate::report::{load_average, Target, MB};
use crate::stats::{median, percentile, sorted};
use session_search::IndexingMode;

/// The deferred-indexing store.
const DEFERRED: Variant = Variant::SessionSearch(IndexingMode::Deferred);

/// Prints the sizes and what each figure means.
pub fn header(scale: f64) {
    let sizes: Vec<String> = rewind::sizes(scale).iter().map(usize::to_string).collect();
    println!(
        "\n=== part store: append {} messages one per transaction and {} in batches, rewind in \
         sessions of {} messages, search during a rebuild of {} messages ===",
        append::messages(Workload::PerMessage, scale),
        append::messages(Workload::Batched, scale),
        sizes.join(", "),
        rebuild::messages(scale),
    );
    println!(
        "\
Every database is a new file in a temp dir with journal_mode=WAL, synchronous=NORMAL, temp_store=MEMORY
and cache_size=-32768 (the wrapper's page cache).
Messages are the english corpus' text; roles 40% user, 40% assistant, 20% tool
(session-search stores tool text without indexing it; so does the openclaw-style trigger).
  append     wall clock of appending every message, round-robin over the sessions, with
             one prepared `{INSERT_SQL}`,
             once with each message its own (autocommit) transaction, as an agent writes turn by
             turn, and once in transactions of {TRANSACTION_ROWS} (BEGIN..COMMIT included), as a bulk
             writer; median of {} runs, each into a new database (\"runs s\" lists them)
               plain tables    the sessions/messages DDL of sql/schema.sql and its index on
                               messages(session_key, id); no FTS, no triggers
               fts5 alone      `messages` is an FTS5 table (unicode61) whose rows are the
                               messages, with no other table or trigger: the least an
                               index filled with every message can cost
               openclaw-style  the plain tables plus fts5(content, content='messages',
                               content_rowid='id', tokenize='unicode61 remove_diacritics 2')
                               filled by an AFTER INSERT trigger on messages for
                               user and assistant rows, the rows session-search indexes
               session-search  Store::open_with (sessions_init, triggers) without the
                               background reconciliation thread; immediate indexing, or
                               deferred (sessions_set_indexing) then reconcile({}) until
                               done, both timed
               depth D         one message per transaction, the immediate store with its
                               {} sessions spawned by the last of a chain of D sessions
                               (Store::create_session, untimed): each is D levels deep, and
                               its scope words are the agent's and those of the chain's
                               top 4 levels (depth 0: the agent's and its own); per message:
                               append wall clock, cpu (the inserting thread's time on a CPU
                               during the inserts, /proc/thread-self/schedstat, which other
                               load on the machine barely moves), fts and database bytes
             short-turns  one message per transaction of the rebuild's short turns,
                          openclaw-style and session-search immediate only
             fts MB: sum(length(block)) of the FTS5 index's _data table after the run
  rewind     `{}` moving the leaf {} messages back,
             then back to the old leaf (\"switch back\"), next to one append, each statement in
             its own transaction, in linear sessions of one store; median of {} rounds
  rebuild    load \"short turns\" of {}..{} B (deferred, then reconcile({}) until done), then
             `{}` with
             {{\"caller\": the first session, \"visibility\": \"all\"}} on the full index
             ({} timed passes over the words after a warm-up pass); then tokenizer_version
             is set to 0 and reconcile(1) starts the rebuild; {} slices of reconcile({}) are
             timed; then Store::open on the same file (as a host opens it: its searches start
             the background drain) and up to {} passes over the words while the drain rebuilds;
             after the load, the index cost (the anchor is dropped before the searches):
  {}
  peak RSS   VmHWM of the child process that ran the benchmark (append: each run has its
             own, the largest is shown); messages are generated before each transaction,
             untimed, and not kept",
        append::REPEATS,
        append::RECONCILE_ROWS,
        append::SESSIONS,
        rewind::REWIND_SQL,
        rewind::REWIND_BY,
        rewind::REPEATS,
        rebuild::LENGTHS.min,
        rebuild::LENGTHS.max,
        rebuild::LOAD_SLICE_ROWS,
        rebuild::SEARCH_SQL,
        rebuild::BEFORE_PASSES,
        rebuild::SLICES,
        rebuild::SLICE_ROWS,
        rebuild::DURING_PASSES,
        index_cost::legend("  "),
    );
}

/// Prints the append table.
pub fn append(append: &Append) {
    println!(
        "\n== append, {} transactions of {}: {} messages ({:.1} MB, mean {} B) into {} sessions ==",
        append.workload.name(),
        if append.workload.rows_per_transaction() == 1 {
            "one message".to_owned()
        } else {
            format!("{} messages", append.workload.rows_per_transaction())
        },
        append.messages,
        append.bytes() as f64 / MB,
        append.bytes() / append.messages.max(1),
        append::SESSIONS,
    );
    let plain = append.find(Variant::Plain).map(CaseRuns::median_total);
    let openclaw = append.of(Variant::OpenClaw).median_total();
    println!(
        "{:<38}{:>9}{:>9}{:>9}{:>11}{:>8}{:>8}{:>13}  runs s",
        "store", "median s", "msg/s", "/plain", "/openclaw", "db MB", "fts MB", "peak RSS MB"
    );
    for case in &append.cases {
        let total = case.median_total();
        let db_bytes = case.runs.last().map_or(0, |run| run.db_bytes);
        let fts_bytes = case.runs.last().map_or(0, |run| run.fts_bytes);
        let per_plain = plain.map_or_else(|| "-".to_owned(), |p| format!("{:.2}x", total / p));
        println!(
            "{:<38}{:>9.2}{:>9.0}{:>9}{:>10.2}x{:>8.1}{:>8.1}{:>13.1}  {}",
            case.case.name(),
            total,
            append.messages as f64 / total,
            per_plain,
            total / openclaw,
            db_bytes as f64 / MB,
            fts_bytes as f64 / MB,
            case.peak_rss_kib() as f64 * 1024.0 / MB,
            runs(case),
        );
    }
    spawn_depths(append);
    let Some(deferred) = append.find(DEFERRED) else {
        return;
    };
    let slices = sorted(
        deferred
            .runs
            .iter()
            .flat_map(|run| run.slice_seconds.iter().copied())
            .collect(),
    );
    println!(
        "deferred: insert {:.2} s + reconcile {:.2} s (medians); {} slices of reconcile({}) per run: \
         median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        deferred.median(|run| run.insert_seconds),
        deferred.median(|run| run.reconcile_seconds),
        slices.len() / deferred.runs.len().max(1),
        append::RECONCILE_ROWS,
        median(&slices) * 1e3,
        percentile(&slices, 0.95) * 1e3,
        percentile(&slices, 1.0) * 1e3,
    );
}

/// Prints the spawn depth table, when the workload measures depths.
fn spawn_depths(append: &Append) {
    let Some(top) = append.find(IMMEDIATE) else {
        return;
    };
    if append.at_depth(IMMEDIATE, SPAWN_DEPTHS[1]).is_none() {
        return;
    }
    println!(
        "spawn depth, {}: per message, medians of the runs (load average now {})",
        IMMEDIATE.name(),
        load_average(),
    );
    println!(
        "{:>6}{:>7}{:>11}{:>9}{:>9}{:>9}{:>11}{:>9}{:>10}{:>9}",
        "depth",
        "words",
        "append µs",
        "/depth 0",
        "cpu µs",
        "/depth 0",
        "fts bytes",
        "/depth 0",
        "db bytes",
        "/depth 0"
    );
    let top = PerMessage::of(append, top);
    for &depth in &SPAWN_DEPTHS {
        let Some(case) = append.at_depth(IMMEDIATE, depth) else {
            continue;
        };
        let deep = PerMessage::of(append, case);
        let cpu = match (deep.cpu_us, top.cpu_us) {
            (Some(deep), Some(top)) => format!("{deep:>9.1}{:>8.2}x", deep / top),
            _ => format!("{:>9}{:>9}", "-", "-"),
        };
        println!(
            "{:>6}{:>7}{:>11.1}{:>8.2}x{cpu}{:>11.0}{:>8.2}x{:>10.0}{:>8.2}x",
            depth,
            case.runs.last().map_or(0, |run| run.scope_words),
            deep.append_us,
            deep.append_us / top.append_us,
            deep.fts_bytes,
            deep.fts_bytes / top.fts_bytes,
            deep.db_bytes,
            deep.db_bytes / top.db_bytes,
        );
    }
}

/// A case's figures per message appended: medians of its runs.
struct PerMessage {
    /// Append time (and reconciliation, if any), in microseconds.
    append_us: f64,
    /// CPU time of the inserts, in microseconds, if every run measured it.
    cpu_us: Option<f64>,
    /// Bytes of the FTS5 index.
    fts_bytes: f64,
    /// Bytes of the database file.
    db_bytes: f64,
}

impl PerMessage {
    /// The figures of `case`, a case of `append`.
    fn of(append: &Append, case: &CaseRuns) -> PerMessage {
        let messages = append.messages.max(1) as f64;
        let cpu: Option<Vec<f64>> = case.runs.iter().map(|run| run.insert_cpu_seconds).collect();
        PerMessage {
            append_us: case.median_total() * 1e6 / messages,
            cpu_us: cpu.map(|cpu| median(&sorted(cpu)) * 1e6 / messages),
            fts_bytes: case.median(|run| run.fts_bytes as f64) / messages,
            db_bytes: case.median(|run| run.db_bytes as f64) / messages,
        }
    }

    /// The ratio of this case's append cost to `top`'s, and how it is
    /// measured: CPU time where both have it (a loaded machine stretches
    /// the wall clock of one run and not another), else wall-clock time.
    fn append_ratio(&self, top: &PerMessage) -> (f64, &'static str) {
        match (self.cpu_us, top.cpu_us) {
            (Some(deep), Some(top)) => (deep / top, "CPU time"),
            _ => (self.append_us / top.append_us, "time"),
        }
    }
}

/// The total seconds of every run of `case`, as printed.
fn runs(case: &CaseRuns) -> String {
    case.runs
        .iter()
        .map(|run| format!("{:.2}", Run::total_seconds(run)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Prints the rewind table.
pub fn rewind(rewind: &Rewind) {
    println!(
        "\n== rewind: sessions in one store of {} messages, built in {:.1} s (immediate indexing) ==",
        rewind.messages, rewind.build_seconds
    );
    println!(
        "{:>13}{:>11}{:>11}{:>9}{:>16}{:>9}",
        "session msgs", "append ms", "rewind ms", "/append", "switch back ms", "/append"
    );
    for session in &rewind.sessions {
        println!(
            "{:>13}{:>11.3}{:>11.3}{:>8.2}x{:>16.3}{:>8.2}x",
            session.messages,
            session.append_ms,
            session.rewind_ms,
            session.rewind_ms / session.append_ms,
            session.switch_back_ms,
            session.switch_back_ms / session.append_ms,
        );
    }
    println!(
        "after the rounds: integrity {}, pending {}; peak RSS {:.1} MB",
        rewind.integrity,
        rewind.pending,
        rewind.peak_rss_kib as f64 * 1024.0 / MB
    );
}

/// Prints the rebuild tables.
pub fn rebuild(rebuild: &Rebuild) {
    let load = rebuild.load_insert_seconds + rebuild.load_reconcile_seconds;
    println!(
        "\n== rebuild: {} messages ({:.1} MB, mean {} B) in {} sessions ==",
        rebuild.messages,
        rebuild.bytes as f64 / MB,
        rebuild.bytes / rebuild.messages.max(1),
        rebuild::SESSIONS,
    );
    println!(
        "load: deferred insert {:.1} s + reconcile({}) {:.1} s = {:.1} s ({:.0} msg/s); database {:.1} MB",
        rebuild.load_insert_seconds,
        rebuild::LOAD_SLICE_ROWS,
        rebuild.load_reconcile_seconds,
        load,
        rebuild.messages as f64 / load,
        rebuild.db_bytes as f64 / MB,
    );
    println!(
        "start: reconcile(1) emptied the index and queued {} messages in {:.1} ms",
        rebuild.backlog, rebuild.start_ms
    );
    let slices = sorted(rebuild.slice_ms.clone());
    let rate = rebuild.slice_rows as f64 / (slices.iter().sum::<f64>() / 1e3);
    println!(
        "slices: {} of reconcile({}): median {:.1} ms, max {:.1} ms; {:.0} rows/s \
         (the whole rebuild at this rate: {:.0} s)",
        slices.len(),
        rebuild::SLICE_ROWS,
        median(&slices),
        percentile(&slices, 1.0),
        rate,
        rebuild.backlog as f64 / rate,
    );
    let drain = rebuild.drain;
    println!(
        "drain: {} rows in {:.1} s of searches ({:.0} rows/s); {} of {} searches said indexing: true",
        drain.rows,
        drain.seconds,
        drain.rows as f64 / drain.seconds.max(1e-9),
        drain.indexing,
        drain.searches,
    );
    println!(
        "\n{:<10}{:>15}{:>12}{:>9}{:>12}{:>9}{:>9}{:>15}",
        "query",
        "matches before",
        "before ms",
        "p95 ms",
        "during ms",
        "p95 ms",
        "/before",
        "matches after"
    );
    for word in &rebuild.words {
        let before = median(&word.before_ms);
        let during = median(&word.during_ms);
        println!(
            "{:<10}{:>15}{:>12.3}{:>9.3}{:>12.3}{:>9.3}{:>8.2}x{:>15}",
            word.word,
            word.matches_before,
            before,
            percentile(&word.before_ms, 0.95),
            during,
            percentile(&word.during_ms, 0.95),
            during / before,
            word.matches_after,
        );
    }
    let (before, during) = pooled_medians(rebuild);
    println!(
        "{:<10}{:>15}{:>12.3}{:>9}{:>12.3}{:>9}{:>8.2}x",
        "all",
        "",
        before,
        "",
        during,
        "",
        during / before
    );
    println!(
        "peak RSS {:.1} MB",
        rebuild.peak_rss_kib as f64 * 1024.0 / MB
    );
    index_cost::print(&rebuild::corpus(rebuild.messages), &rebuild.cost);
}

/// Medians of every word's latencies together, before and during the
/// rebuild, in milliseconds.
fn pooled_medians(rebuild: &Rebuild) -> (f64, f64) {
    let pool = |pick: fn(&rebuild::WordRun) -> &Vec<f64>| {
        let all = rebuild
            .words
            .iter()
            .flat_map(|word| pick(word).iter().copied());
        median(&sorted(all.collect()))
    };
    (pool(|word| &word.before_ms), pool(|word| &word.during_ms))
}

/// The store targets.
pub fn targets(appends: &[Append], rewind: &Rewind, rebuild: &Rebuild) -> Vec<Target> {
    let batched = appends
        .iter()
        .find(|a| a.workload == Workload::Batched)
        .expect("the batched workload runs");
    let immediate = batched.of(IMMEDIATE).median_total();
    let smallest = rewind.sessions.first().expect("sessions were measured");
    let largest = rewind.sessions.last().expect("sessions were measured");
    let (before, during) = pooled_medians(rebuild);
    let mut targets = Vec::new();
    for append in appends {
        let name = append.workload.name();
        let immediate = append.of(IMMEDIATE).median_total();
        let openclaw = immediate / append.of(Variant::OpenClaw).median_total();
        if let Some(plain) = append.find(Variant::Plain) {
            targets.push(Target::new(
                format!("append time ({name}), session-search immediate / plain tables"),
                immediate / plain.median_total(),
                3.0,
                "x",
            ));
            targets.push(Target::new(
                format!("append time ({name}), session-search immediate / openclaw-style"),
                openclaw,
                1.3,
                "x",
            ));
        }
        if append.workload.rows_per_transaction() == 1 {
            targets.push(Target::new(
                format!(
                    "lean index, {name} {} B: append time / openclaw-style",
                    lengths(append.workload)
                ),
                openclaw,
                index_cost::APPEND_LIMIT,
                "x",
            ));
        }
        let deepest = SPAWN_DEPTHS[SPAWN_DEPTHS.len() - 1];
        if let Some(deep) = append.at_depth(IMMEDIATE, deepest) {
            let top = PerMessage::of(append, append.of(IMMEDIATE));
            let deep = PerMessage::of(append, deep);
            let (ratio, measure) = deep.append_ratio(&top);
            targets.push(Target::new(
                format!(
                    "append {measure} ({name}), session-search immediate, spawn depth {deepest} / depth 0"
                ),
                ratio,
                1.2,
                "x",
            ));
            targets.push(Target::new(
                format!("FTS index bytes per message ({name}), spawn depth {deepest} / depth 0"),
                deep.fts_bytes / top.fts_bytes,
                1.2,
                "x",
            ));
        }
    }
    targets.extend([
        Target::new(
            format!(
                "rewind time, {}-message / {}-message session",
                largest.messages, smallest.messages
            ),
            largest.rewind_ms / smallest.rewind_ms,
            2.0,
            "x",
        ),
        Target::new(
            "deferred insert + reconcile / immediate insert".to_owned(),
            batched.of(DEFERRED).median_total() / immediate,
            1.5,
            "x",
        ),
        Target::new(
            "sessions_search median latency, background rebuild / idle".to_owned(),
            during / before,
            1.5,
            "x",
        ),
    ]);
    targets.extend(index_cost::targets(
        &rebuild::corpus(rebuild.messages),
        &rebuild.cost,
    ));
    targets
}

/// The message lengths of `workload`, as printed.
fn lengths(workload: Workload) -> String {
    let lengths = workload.lengths();
    format!("{}..{}", lengths.min, lengths.max)
}
