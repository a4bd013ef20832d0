//! Order statistics of measured figures, and the timing that measures them.

use serde::{Deserialize, Serialize};
use std::time::Instant;

/// `values` sorted ascending.
pub fn sorted(mut values: Vec<f64>) -> Vec<f64> {
    values.sort_by(f64::total_cmp);
    values
}

/// Median of sorted values; 0 for none.
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Nearest-rank percentile `p` (0–1) of sorted values; 0 for none.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Mean of counts.
pub fn mean(values: impl ExactSizeIterator<Item = u64>) -> f64 {
    let n = values.len().max(1);
    values.sum::<u64>() as f64 / n as f64
}

/// Runs `f` and returns its value with its wall-clock time in milliseconds.
pub fn timed_ms<T, E>(f: impl FnOnce() -> Result<T, E>) -> Result<(T, f64), E> {
    let start = Instant::now();
    let value = f()?;
    Ok((value, start.elapsed().as_secs_f64() * 1e3))
}

/// Seconds this thread has run on a CPU, from the first field of
/// `/proc/thread-self/schedstat` (nanoseconds, brought up to date at least
/// every scheduler tick): what some work costs whatever else the machine
/// runs, which its wall clock does not tell on a loaded machine. `None`
/// where the file is missing or unreadable.
pub fn thread_cpu_seconds() -> Option<f64> {
    let schedstat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanoseconds: u64 = schedstat.split_whitespace().next()?.parse().ok()?;
    Some(nanoseconds as f64 / 1e9)
}

/// What some work took: wall clock, and this thread's CPU time if the
/// system tells ([`thread_cpu_seconds`]).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Spent {
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Seconds the thread ran on a CPU.
    pub cpu_seconds: Option<f64>,
}

impl Spent {
    /// This over `other`: of the CPU times where both have one, else of the
    /// wall clocks; with what was compared.
    pub fn ratio(self, other: Spent) -> (f64, &'static str) {
        match (self.cpu_seconds, other.cpu_seconds) {
            (Some(this), Some(that)) => (this / that, "CPU time"),
            _ => (self.seconds / other.seconds, "time"),
        }
    }
}

/// Runs `f` and returns its value with its wall-clock and CPU time.
pub fn spent<T, E>(f: impl FnOnce() -> Result<T, E>) -> Result<(T, Spent), E> {
    let cpu_start = thread_cpu_seconds();
    let (value, ms) = timed_ms(f)?;
    let cpu_seconds = match (cpu_start, thread_cpu_seconds()) {
        (Some(start), Some(end)) => Some(end - start),
        _ => None,
    };
    Ok((
        value,
        Spent {
            seconds: ms / 1e3,
            cpu_seconds,
        },
    ))
}
