//! Measurements that run in a child process (this executable, re-invoked
//! with a hidden first argument), so that the peak memory each reports is
//! its own.

use std::error::Error;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The file this process runs: on Linux `/proc/self/exe`, which still runs
/// it after a rebuild replaces the file at its path (a bench run lasts long
/// enough for that to happen), else its path.
fn this_executable() -> std::io::Result<PathBuf> {
    let running = Path::new("/proc/self/exe");
    if running.exists() {
        return Ok(running.to_path_buf());
    }
    std::env::current_exe()
}

/// Runs this executable with `args` and returns the last line it printed,
/// its report.
///
/// # Errors
///
/// When the child cannot be started, fails, or prints nothing.
pub fn report<S: AsRef<OsStr>>(args: &[S]) -> Result<String, Box<dyn Error>> {
    let command_line = args
        .iter()
        .map(|arg| arg.as_ref().to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ");
    let output = Command::new(this_executable()?).args(args).output()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("{command_line} failed ({}): {stderr}", output.status).into());
    }
    stdout
        .lines()
        .last()
        .map(str::to_owned)
        .ok_or_else(|| format!("{command_line} printed no report").into())
}
