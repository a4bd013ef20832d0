//! What every part of the benchmark shares in its output: the header line,
//! the targets with PASS/FAIL, and the elapsed time.

use crate::Part;
use std::time::Duration;

/// Bytes in a printed MB.
pub const MB: f64 = 1e6;

/// Prints the command that ran (with `flags`, such as `--full`), the scale,
/// the SQLite version and the CPUs.
pub fn header(scale: f64, parts: &[Part], flags: &[&str]) {
    let scale_var = if scale == 1.0 {
        String::new()
    } else {
        format!("{}={scale} ", crate::SCALE_VAR)
    };
    let names: Vec<&str> = parts.iter().map(|part| part.name()).collect();
    if parts == Part::ALL {
        let args = flags.join(" ");
        let bench_args = if args.is_empty() {
            String::new()
        } else {
            format!(" BENCH_ARGS={args}")
        };
        println!("$ {scale_var}make bench{bench_args}");
    } else {
        let args: Vec<&str> = flags.iter().chain(&names).copied().collect();
        println!(
            "$ {scale_var}cargo run --release -p session-search-bench -- {}",
            args.join(" ")
        );
    }
    println!(
        "session-search benchmark: parts {}, scale {scale}, SQLite {} (bundled), {} CPUs",
        names.join(", "),
        rusqlite::version(),
        std::thread::available_parallelism().map_or(1, usize::from),
    );
}

/// One target: a measured figure against its limit.
#[derive(Debug, Clone)]
pub struct Target {
    /// What is compared.
    pub what: String,
    /// The measured figure.
    pub measured: f64,
    /// The largest passing figure.
    pub limit: f64,
    /// Unit, as printed after the figures.
    pub unit: &'static str,
    /// A second figure that also passes the target when within its own
    /// limit (e.g. a latency ratio, or an absolute latency).
    pub or_else: Option<Alternative>,
    /// The limit is a floor: the figure passes when at least `limit`
    /// (e.g. a speed-up), not at most.
    pub at_least: bool,
}

/// The second figure of a [`Target`].
#[derive(Debug, Clone, Copy)]
pub struct Alternative {
    /// The measured figure.
    pub measured: f64,
    /// The largest passing figure.
    pub limit: f64,
    /// Unit, as printed after the figures.
    pub unit: &'static str,
}

impl Target {
    /// A target with one figure.
    pub fn new(what: String, measured: f64, limit: f64, unit: &'static str) -> Target {
        Target {
            what,
            measured,
            limit,
            unit,
            or_else: None,
            at_least: false,
        }
    }

    /// A target whose figure must be at least `limit`.
    pub fn at_least(what: String, measured: f64, limit: f64, unit: &'static str) -> Target {
        Target {
            at_least: true,
            ..Target::new(what, measured, limit, unit)
        }
    }

    /// Whether the figure, or its alternative, is within its limit.
    fn passes(&self) -> bool {
        if self.at_least {
            return self.measured >= self.limit;
        }
        self.measured <= self.limit
            || self
                .or_else
                .is_some_and(|other| other.measured <= other.limit)
    }
}

/// Prints the targets with PASS/FAIL (informative: the run never fails on
/// them).
pub fn targets(targets: &[Target]) {
    println!("\n== targets ==");
    for target in targets {
        let alternative = target.or_else.map_or(String::new(), |other| {
            format!(
                ", or <= {}{}: {:.3}{}",
                other.limit, other.unit, other.measured, other.unit
            )
        });
        println!(
            "{}  {:<62}{:>8.3}{} (target {} {}{}{alternative})",
            if target.passes() { "PASS" } else { "FAIL" },
            target.what,
            target.measured,
            target.unit,
            if target.at_least { ">=" } else { "<=" },
            target.limit,
            target.unit,
        );
    }
}

/// The 1, 5 and 15 minute load averages, from `/proc/loadavg`, for the
/// parts whose timings other work on the machine skews.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".to_owned(),
        |text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        },
    )
}

/// Prints the elapsed time of the whole run.
pub fn elapsed(elapsed: Duration) {
    let seconds = elapsed.as_secs();
    println!("\nelapsed: {}m {:02}s", seconds / 60, seconds % 60);
}
