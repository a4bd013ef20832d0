//! Measurements that run in a child process (this executable, re-invoked
//! with a hidden first argument), so that the peak memory each reports is
//! its own.

use std::error::Error;
use std::ffi::OsStr;
use std::process::Command;

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
    let output = Command::new(std::env::current_exe()?).args(args).output()?;
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
