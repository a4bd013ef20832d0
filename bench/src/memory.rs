//! Peak memory of a process, from `/proc/<pid>/status`.

use std::io;

/// This process' peak resident set size (`VmHWM`), in KiB.
///
/// # Errors
///
/// When `/proc/self/status` cannot be read or has no `VmHWM` line.
pub fn peak_rss_kib() -> io::Result<u64> {
    vm_hwm_kib("/proc/self/status")
}

/// The peak resident set size (`VmHWM`) of process `pid`, in KiB.
///
/// # Errors
///
/// When `/proc/<pid>/status` cannot be read (the process is gone) or has
/// no `VmHWM` line.
pub fn peak_rss_kib_of(pid: u32) -> io::Result<u64> {
    vm_hwm_kib(&format!("/proc/{pid}/status"))
}

/// The `VmHWM` line of the status file `path`, in KiB.
fn vm_hwm_kib(path: &str) -> io::Result<u64> {
    let status = std::fs::read_to_string(path)?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, format!("no VmHWM in {path}")))
}
