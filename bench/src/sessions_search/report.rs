//! What the search part prints: what is measured, the database, the query
//! sets, a latency table per method, the query plans, and its targets.

use super::build::{self, Build};
use super::latency::{self, AnchorRun, SearchRun, Timed};
use super::queries::{self, SetKind};
use super::VISIBILITIES;
use crate::index_cost;
use crate::report::{load_average, Target, MB};
use crate::stats::{median, percentile, sorted};

/// Latency at the median aimed at, in milliseconds.
const P50_LIMIT_MS: f64 = 10.0;
/// Latency at the 99th percentile aimed at, in milliseconds.
const P99_LIMIT_MS: f64 = 50.0;
/// Speed-up over the `LIKE` scan aimed at.
const LIKE_SPEEDUP: f64 = 100.0;

/// Prints the sizes and what each figure means.
pub fn header(scale: f64) {
    println!(
        "\n=== part search: sessions_search over {} messages in {} sessions of {} agents ===",
        build::messages(scale),
        build::sessions(scale),
        build::AGENTS,
    );
    println!(
        "\
One database, built once in a temp dir by Store::open_with (no background thread), WAL,
synchronous=NORMAL: sessions in creation order, session g of agent g % {agents}; each later
session joins the caller's spawn tree with p={tree} (spawned by a uniformly chosen session
of it), else with p={small} is spawned by one of the {recent} sessions before it (small trees, depth
< {depth}), else is a root. {cjk_share:.0}% of the sessions write their user/assistant messages in
Chinese, Japanese or Korean (the cjk corpus' writer), the rest and all tool output English
(the english corpus' writer); {min}..{max} messages per session, {tool:.0}% tool, else user and
assistant in turn, {lmin}..{lmax} B aimed at; the messages of each {concurrent} consecutive sessions
interleaved at random. Deferred indexing for the load, then reconcile({slice}) until done.
The caller is the first session (root of the large tree); `tree` and `agent` are its
visibilities. Then the anchor's index in the same file (its `oc` table is the openclaw-style
query's):
  {cost}
Queries: {per_set} per set, drawn from the messages themselves (seeded): a user/assistant
message with probability proportional to its length, then a token of it (the engine's
tokenizer); words have >= {min_word} characters. Sets: 1 word (as drawn, so mostly common words);
a rare word (at most {rare} matches in the index); 2 words of one message; a phrase of 2-3
consecutive words separated by single spaces; a prefix (the first 3 or more characters of a word
of >= 4, one fewer than the word at most, `dep*`; LIKE '%dep%'); 1 and 2 consecutive characters
of a CJK run; no match (a drawn word with `qz` and a number appended, in no message). Every set
and visibility is run once untimed (warm-up), then timed, per method:
  session-search  `{ss}` on the wrapper's connection, options
                  {{\"caller\":…,\"visibility\":…}} (limit 10, snippets, redaction; the
                  default rankWindow: BM25 over the {window} newest visible matches)
  LIKE scan       the visible rows by the same recursive CTE (sql/visible.sql), roles user and
                  assistant, `content LIKE '%w%'` (AND of one LIKE per word; a phrase is one
                  pattern), the 10 newest (ORDER BY created_at DESC LIMIT 10): a scan of every
                  visible row, as a search without an index must do to return its best hits;
                  LIKE is case-insensitive for ASCII only, and matches substrings
  openclaw-style  step 1 `{enumerate}` (the CTE) returns the visible keys to the
                  host; step 2 `… FROM oc JOIN messages m ON m.id = oc.rowid WHERE oc MATCH ?1
                  AND m.role IN ('user','assistant') AND m.session_key IN (?2, ?3, …) ORDER BY
                  rank LIMIT 10` with the keys bound one per parameter, snippet() as text;
                  each term quoted, joined by AND. The time is both steps.
  matches         messages matching the query in the whole index (count(*), untimed); the
                  scope words make FTS5 read only the visible ones
  us/match        session-search time per match in the whole index (total / matches)
  speed-up        anchor time / session-search time: of the p50s, of the totals over the
                  queries, and the median of the per-query ratios (same query, same visibility)
  peak RSS        VmHWM of each child process (build, session-search, anchors)
Load average at the start of the part (other work on the machine skews timings): {load}",
        agents = build::AGENTS,
        window = session_search_engine::search::DEFAULT_RANK_WINDOW,
        tree = build::CALLER_TREE_SHARE,
        small = build::SMALL_TREE_SHARE,
        recent = build::RECENT,
        depth = build::SMALL_TREE_DEPTH,
        cjk_share = build::CJK_SESSION_SHARE * 100.0,
        min = build::SESSION_MESSAGES.0,
        max = build::SESSION_MESSAGES.1,
        tool = build::TOOL_SHARE * 100.0,
        lmin = build::LENGTHS.min,
        lmax = build::LENGTHS.max,
        concurrent = build::CONCURRENT,
        slice = build::LOAD_SLICE_ROWS,
        cost = index_cost::legend("  "),
        per_set = queries::QUERIES_PER_SET,
        min_word = queries::MIN_WORD_CHARS,
        rare = queries::RARE_MATCHES,
        ss = latency::SESSIONS_SEARCH_SQL,
        enumerate = latency::ENUMERATE_SQL,
        load = load_average(),
    );
}

/// Reconciliation from the smallest database's build to the largest's:
/// the first slices' cost against the backlog's size (at most what
/// O(rows × log backlog) allows: the ratio of the backlogs' logarithms),
/// and the rate of the whole load (at least 0.8 of the smallest's; the
/// label gives the same ratio of FTS5's own `rebuild` of the OpenClaw-style
/// table over the same messages: how FTS5's merging slows a larger build).
pub fn reconciliation_targets(builds: &[Build]) -> Vec<Target> {
    let smallest = builds.iter().min_by_key(|build| build.messages);
    let largest = builds.iter().max_by_key(|build| build.messages);
    let (Some(smallest), Some(largest)) = (smallest, largest) else {
        return Vec::new();
    };
    if smallest.messages == largest.messages {
        return Vec::new();
    }
    let rate = |build: &Build| build.indexed as f64 / build.reconcile_seconds;
    let fts5_rate = |build: &Build| {
        build.cost.as_ref().map_or(f64::NAN, |cost| {
            cost.anchor_indexed as f64 / cost.anchor_indexing.seconds
        })
    };
    vec![
        Target::new(
            format!(
                "reconcile({}) slice, backlog {} / backlog {}",
                build::FIRST_SLICE_ROWS,
                largest.backlog,
                smallest.backlog
            ),
            largest.first_slice_ms / smallest.first_slice_ms,
            ((largest.backlog as f64).ln() / (smallest.backlog as f64).ln() * 100.0).round()
                / 100.0,
            "x",
        ),
        Target::at_least(
            format!(
                "reconciliation rate of a whole load, {}k / {}k msgs (FTS5's own rebuild of \
                 the openclaw-style table: {:.2}x)",
                largest.messages / 1000,
                smallest.messages / 1000,
                fts5_rate(largest) / fts5_rate(smallest)
            ),
            rate(largest) / rate(smallest),
            0.8,
            "x",
        ),
    ]
}

/// Prints the database.
pub fn build(build: &Build) {
    println!(
        "\n== database: {} messages ({:.1} MB, mean {} B) in {} sessions ({} roots) of {} agents ==",
        build.messages,
        build.bytes as f64 / MB,
        build.bytes / build.messages.max(1),
        build.sessions,
        build.roots,
        build::AGENTS,
    );
    println!(
        "roles: {} user, {} assistant, {} tool; CJK-language messages {:.1}% of the bytes, \
         characters of spaceless scripts {:.1}% of all characters",
        build.roles[0],
        build.roles[1],
        build.roles[2],
        100.0 * build.cjk_bytes as f64 / build.bytes.max(1) as f64,
        100.0 * build.spaceless_share,
    );
    println!(
        "reconciliation: {} messages queued; the first slices of reconcile({}) took {:.1} ms (median), \
         the whole load {:.0} msg/s",
        build.backlog,
        build::FIRST_SLICE_ROWS,
        build.first_slice_ms,
        build.indexed as f64 / build.reconcile_seconds,
    );
    let load = build.insert_seconds + build.reconcile_seconds;
    println!(
        "load: deferred insert {:.1} s + reconcile (slices of {} after the first) {:.1} s = {:.1} s ({:.0} msg/s); \
         {} messages indexed, {} pending, in {} FTS5 segment(s); database {:.1} MB",
        build.insert_seconds,
        build::LOAD_SLICE_ROWS,
        build.reconcile_seconds,
        load,
        build.messages as f64 / load,
        build.indexed,
        build.pending,
        build.segments,
        build.db_bytes as f64 / MB,
    );
    println!(
        "caller {} (tree depth {}); peak RSS of the build {:.1} MB",
        build.caller,
        build.tree_depth,
        build.peak_rss_kib as f64 * 1024.0 / MB,
    );
    println!(
        "\n{:<12}{:>10}{:>12}{:>12}{:>15}",
        "visibility", "sessions", "messages", "searchable", "searchable MB"
    );
    for visible in &build.visible {
        println!(
            "{:<12}{:>10}{:>12}{:>12}{:>15.1}",
            visible.visibility,
            visible.sessions,
            visible.messages,
            visible.searchable,
            visible.searchable_bytes as f64 / MB,
        );
    }
    if let Some(cost) = &build.cost {
        index_cost::print(&corpus(build), cost);
    }
}

/// The corpus of `build`, as the index cost names it.
pub fn corpus(build: &Build) -> String {
    format!("search corpus {}k", build.messages / 1000)
}

/// A selection of timed runs: one set or all, one visibility or both.
#[derive(Debug, Clone, Copy)]
struct Pick {
    kind: Option<SetKind>,
    visibility: Option<&'static str>,
}

impl Pick {
    /// Every set and visibility alone, then pooled per set, then all sets.
    fn rows() -> Vec<Pick> {
        let kinds = SetKind::ALL.into_iter().map(Some).chain([None]);
        kinds
            .flat_map(|kind| {
                VISIBILITIES
                    .into_iter()
                    .map(Some)
                    .chain([None])
                    .map(move |visibility| Pick { kind, visibility })
            })
            .collect()
    }

    fn set_label(self) -> &'static str {
        self.kind.map_or("all sets", SetKind::label)
    }

    fn visibility_label(self) -> &'static str {
        self.visibility.unwrap_or("both")
    }

    fn selects(self, run: &Timed) -> bool {
        self.kind.is_none_or(|kind| kind == run.kind)
            && self.visibility.is_none_or(|v| v == run.visibility)
    }

    /// The runs of `runs` it selects.
    fn of(self, runs: &[Timed]) -> Vec<&Timed> {
        runs.iter().filter(|run| self.selects(run)).collect()
    }
}

/// Pooled figures of some runs.
#[derive(Debug, Clone)]
struct Pooled {
    ms: Vec<f64>,
    step1_ms: Vec<f64>,
    total_ms: f64,
    queries: usize,
    results: u64,
    found: usize,
    truncated: usize,
}

impl Pooled {
    fn of(runs: &[&Timed]) -> Pooled {
        let all = || runs.iter().flat_map(|run| run.ms.iter().copied());
        Pooled {
            ms: sorted(all().collect()),
            step1_ms: sorted(
                runs.iter()
                    .flat_map(|run| run.step1_ms.iter().copied())
                    .collect(),
            ),
            total_ms: all().sum(),
            queries: runs.iter().map(|run| run.ms.len()).sum(),
            results: runs.iter().flat_map(|run| run.results.iter()).sum(),
            found: runs
                .iter()
                .flat_map(|run| run.results.iter())
                .filter(|&&n| n > 0)
                .count(),
            truncated: runs.iter().map(|run| run.truncated).sum(),
        }
    }

    fn p50(&self) -> f64 {
        median(&self.ms)
    }

    fn p99(&self) -> f64 {
        percentile(&self.ms, 0.99)
    }
}

/// Prints the query sets and the latency tables.
pub fn latency(search: &SearchRun, anchors: &AnchorRun) {
    println!(
        "\n== query sets: {} queries each ==",
        queries::QUERIES_PER_SET
    );
    println!(
        "{:<12}{:>14}{:>10}{:>10}{:>16}  first queries",
        "set", "matches mean", "median", "max", "openclaw mean"
    );
    for (i, set) in search.sets.iter().enumerate() {
        let matches = sorted(search.matches[i].iter().map(|&n| n as f64).collect());
        let openclaw = &anchors.openclaw_matches[i];
        let examples: Vec<&str> = set
            .queries
            .iter()
            .take(6)
            .map(|q| q.text.as_str())
            .collect();
        println!(
            "{:<12}{:>14.0}{:>10.0}{:>10.0}{:>16.0}  {}",
            set.kind.label(),
            matches.iter().sum::<f64>() / matches.len().max(1) as f64,
            median(&matches),
            percentile(&matches, 1.0),
            openclaw.iter().sum::<u64>() as f64 / openclaw.len().max(1) as f64,
            examples.join(" | "),
        );
    }

    println!("\n== session-search: `{}` ==", latency::SESSIONS_SEARCH_SQL);
    println!(
        "{:<12}{:<8}{:>9}{:>9}{:>9}{:>9}{:>9}{:>10}{:>11}{:>14}{:>10}",
        "set",
        "vis",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "max ms",
        "results",
        "found",
        "truncated",
        "matches mean",
        "us/match"
    );
    for pick in Pick::rows() {
        let pooled = Pooled::of(&pick.of(&search.timed));
        let matches = mean_matches(search, pick);
        println!(
            "{:<12}{:<8}{:>9.3}{:>9.3}{:>9.3}{:>9.3}{:>9.1}{:>10}{:>11}{:>14.0}{:>10.3}",
            pick.set_label(),
            pick.visibility_label(),
            pooled.p50(),
            percentile(&pooled.ms, 0.9),
            pooled.p99(),
            percentile(&pooled.ms, 1.0),
            pooled.results as f64 / pooled.queries.max(1) as f64,
            format!("{}/{}", pooled.found, pooled.queries),
            pooled.truncated,
            matches,
            pooled.total_ms * 1e3 / pooled.queries.max(1) as f64 / matches.max(1.0),
        );
    }
    by_matches(search);

    println!("\n== anchor: LIKE scan of the visible rows ==");
    println!(
        "{:<12}{:<8}{:>9}{:>9}{:>9}{:>10}{:>11}{:>11}{:>11}{:>10}",
        "set",
        "vis",
        "p50 ms",
        "p99 ms",
        "max ms",
        "found",
        "x p50",
        "x total",
        "x median",
        ">=100x"
    );
    for pick in Pick::rows() {
        let like = Pooled::of(&pick.of(&anchors.like));
        let ss = Pooled::of(&pick.of(&search.timed));
        println!(
            "{:<12}{:<8}{:>9.3}{:>9.3}{:>9.3}{:>10}{}",
            pick.set_label(),
            pick.visibility_label(),
            like.p50(),
            like.p99(),
            percentile(&like.ms, 1.0),
            format!("{}/{}", like.found, like.queries),
            speedups(&like, &ss, &ratios(pick, &anchors.like, &search.timed)),
        );
    }

    println!("\n== anchor: openclaw-style (keys enumerated, then FTS5 unicode61 with the list) ==");
    println!(
        "{:<12}{:<8}{:>10}{:>9}{:>9}{:>9}{:>10}{:>11}{:>11}{:>11}{:>10}",
        "set",
        "vis",
        "step1 p50",
        "p50 ms",
        "p99 ms",
        "max ms",
        "found",
        "x p50",
        "x total",
        "x median",
        ">=100x"
    );
    for pick in Pick::rows() {
        let openclaw = Pooled::of(&pick.of(&anchors.openclaw));
        let ss = Pooled::of(&pick.of(&search.timed));
        println!(
            "{:<12}{:<8}{:>10.3}{:>9.3}{:>9.3}{:>9.3}{:>10}{}",
            pick.set_label(),
            pick.visibility_label(),
            median(&openclaw.step1_ms),
            openclaw.p50(),
            openclaw.p99(),
            percentile(&openclaw.ms, 1.0),
            format!("{}/{}", openclaw.found, openclaw.queries),
            speedups(
                &openclaw,
                &ss,
                &ratios(pick, &anchors.openclaw, &search.timed)
            ),
        );
    }
    println!(
        "(x: anchor / session-search, of the p50s, of the totals, median of the per-query \
         ratios; >=100x: queries where session-search was at least 100x faster; found: \
         queries with at least one result)"
    );

    println!("\n== query plans ==");
    for (what, plan) in [
        (
            "session-search (sql/visible.sql + sql/search.sql)",
            &search.plan,
        ),
        ("LIKE scan, two words", &anchors.like_plan),
        ("openclaw-style step 2, tree", &anchors.openclaw_plan),
    ] {
        println!("{what}:");
        for line in plan {
            println!("  {line}");
        }
    }
    println!(
        "\npeak RSS: session-search child {:.1} MB, anchors child {:.1} MB; load average now {}",
        search.peak_rss_kib as f64 * 1024.0 / MB,
        anchors.peak_rss_kib as f64 * 1024.0 / MB,
        load_average(),
    );
}

/// The per-query ratios anchor / session-search of the queries `pick`
/// selects (both runs hold the same queries in the same order), sorted.
fn ratios(pick: Pick, anchor: &[Timed], search: &[Timed]) -> Vec<f64> {
    let mut ratios = Vec::new();
    for run in pick.of(anchor) {
        let Some(ss) = search
            .iter()
            .find(|ss| ss.kind == run.kind && ss.visibility == run.visibility)
        else {
            continue;
        };
        ratios.extend(run.ms.iter().zip(&ss.ms).map(|(a, s)| a / s));
    }
    sorted(ratios)
}

/// Prints the speed-up columns of an anchor row: of the p50s, of the
/// totals, the median per-query ratio and how many queries reach
/// [`LIKE_SPEEDUP`].
fn speedups(anchor: &Pooled, ss: &Pooled, ratios: &[f64]) -> String {
    format!(
        "{:>10.1}x{:>10.1}x{:>10.1}x{:>10}",
        anchor.p50() / ss.p50(),
        anchor.total_ms / ss.total_ms,
        median(ratios),
        format!(
            "{}/{}",
            ratios.iter().filter(|&&r| r >= LIKE_SPEEDUP).count(),
            ratios.len()
        ),
    )
}

/// Upper bounds of the match-count buckets of the cost table.
const BUCKETS: [u64; 5] = [100, 1_000, 10_000, 100_000, u64::MAX];

/// Prints session-search latency by the number of matches in the index,
/// every set and visibility pooled.
fn by_matches(search: &SearchRun) {
    println!("\n== session-search by matches in the whole index (every set, both visibilities) ==");
    println!(
        "{:<18}{:>9}{:>14}{:>9}{:>9}{:>9}{:>11}",
        "matches", "queries", "matches mean", "p50 ms", "p99 ms", "max ms", "us/match"
    );
    let mut low = 0;
    for high in BUCKETS {
        let mut ms = Vec::new();
        let mut matches = 0;
        for run in &search.timed {
            let set = SetKind::ALL
                .iter()
                .position(|&k| k == run.kind)
                .unwrap_or(0);
            for (i, &t) in run.ms.iter().enumerate() {
                let n = search.matches[set][i];
                if (low..high).contains(&n) || (high == u64::MAX && n >= low) {
                    ms.push(t);
                    matches += n;
                }
            }
        }
        let label = if high == u64::MAX {
            format!(">= {low}")
        } else {
            format!("{low}..{high}")
        };
        let ms = sorted(ms);
        let total: f64 = ms.iter().sum();
        println!(
            "{:<18}{:>9}{:>14.0}{:>9.3}{:>9.3}{:>9.3}{:>11.3}",
            label,
            ms.len(),
            matches as f64 / ms.len().max(1) as f64,
            median(&ms),
            percentile(&ms, 0.99),
            percentile(&ms, 1.0),
            if matches == 0 {
                0.0
            } else {
                total * 1e3 / matches as f64
            },
        );
        low = high;
    }
}

/// Mean number of index matches of the queries `pick` selects.
fn mean_matches(search: &SearchRun, pick: Pick) -> f64 {
    let counts: Vec<u64> = search
        .sets
        .iter()
        .zip(&search.matches)
        .filter(|(set, _)| pick.kind.is_none_or(|kind| kind == set.kind))
        .flat_map(|(_, matches)| matches.iter().copied())
        .collect();
    counts.iter().sum::<u64>() as f64 / counts.len().max(1) as f64
}

/// The search targets: per set (both visibilities pooled) and over all.
pub fn targets(search: &SearchRun, anchors: &AnchorRun) -> Vec<Target> {
    let mut targets = Vec::new();
    let picks = SetKind::ALL.into_iter().map(Some).chain([None]);
    for kind in picks {
        let pick = Pick {
            kind,
            visibility: None,
        };
        let ss = Pooled::of(&pick.of(&search.timed));
        let like = Pooled::of(&pick.of(&anchors.like));
        let label = pick.set_label();
        targets.push(Target::new(
            format!("sessions_search p50, {label} (tree + agent)"),
            ss.p50(),
            P50_LIMIT_MS,
            " ms",
        ));
        targets.push(Target::new(
            format!("sessions_search p99, {label} (tree + agent)"),
            ss.p99(),
            P99_LIMIT_MS,
            " ms",
        ));
        targets.push(Target::at_least(
            format!("speed-up over the LIKE scan, p50, {label}"),
            like.p50() / ss.p50(),
            LIKE_SPEEDUP,
            "x",
        ));
        if kind.is_none() {
            targets.push(Target::at_least(
                format!("speed-up over the LIKE scan, total time, {label}"),
                like.total_ms / ss.total_ms,
                LIKE_SPEEDUP,
                "x",
            ));
        }
    }
    targets
}
