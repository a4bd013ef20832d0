//! Part `import`: importing transcripts as a user does (into a database
//! file opened as the CLI opens it), on the real fixtures beside the
//! repository (`../shared/fixtures`):
//!
//! - per format: every fixture of the format, copied until the copies hold
//!   [`FORMAT_MB`] (copy `k` of every file, then copy `k + 1`: interleaved),
//!   each copy a session of its own (its UUIDs rewritten), imported with
//!   `import_files` into a fresh database [`RUNS`] times; the median in MB/s and messages/s,
//!   beside an anchor that reads the same files and parses their JSON (a
//!   stream of values: the lines of JSONL, or the one document; a text
//!   file's lines), so the ratio shows what the import adds to reading;
//! - a home directory of [`HOME_MB`] made the same way from the fixtures of
//!   the formats that have default folders (Claude Code, Codex, OpenClaw /
//!   pi, Gemini CLI), each in its tool's folder, imported with
//!   `import_path(home)` in a child process: time, MB/s and its peak memory against [`RSS_LIMIT_MB`].

use crate::child;
use crate::memory::peak_rss_kib;
use crate::report::{load_average, Target, MB};
use crate::stats::{median, sorted};
use serde_json::Value;
use session_search::{Store, StoreOptions};
use session_search_import::{import_files, import_path, ImportOptions};
use std::collections::BTreeMap;
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The hidden first argument of the child that imports the home directory.
pub const CHILD_FLAG: &str = "--import-home";

/// Megabytes of copies per format at scale 1.
const FORMAT_MB: f64 = 16.0;

/// Megabytes of the home directory at scale 1.
const HOME_MB: f64 = 1000.0;

/// Timed imports per format (and anchor passes); the median is reported.
const RUNS: usize = 5;

/// The largest passing peak RSS of the home directory's import, MB: the
/// import streams each file, so memory must not grow with the home.
const RSS_LIMIT_MB: f64 = 256.0;

/// One real fixture, recognised by the importer.
struct Fixture {
    /// Its path under the fixtures directory.
    relative: PathBuf,
    bytes: Vec<u8>,
    format: String,
}

/// Runs the part in the directory `work`, prints its figures and returns
/// its targets.
///
/// # Errors
///
/// Any file, SQLite or session-search error, or a failed child.
pub fn run(scale: f64, work: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures");
    let fixtures = fixtures(&root)?;
    let dir = work.join("import");
    let result = measure(scale, &root, &fixtures, &dir);
    let _ = fs::remove_dir_all(&dir);
    result
}

fn measure(
    scale: f64,
    root: &Path,
    fixtures: &[Fixture],
    dir: &Path,
) -> Result<Vec<Target>, Box<dyn Error>> {
    let mut by_format: BTreeMap<&str, Vec<&Fixture>> = BTreeMap::new();
    for fixture in fixtures {
        by_format.entry(&fixture.format).or_default().push(fixture);
    }
    let home_mb = HOME_MB * scale;
    println!(
        "\n=== part import: the real fixtures ({} files of {} formats, {:.1} MB in {}) ===",
        fixtures.len(),
        by_format.len(),
        fixtures.iter().map(|f| f.bytes.len()).sum::<usize>() as f64 / MB,
        root.display()
    );
    println!(
        "MB = 10^6 bytes of transcript. Per format: every fixture of the format, copied until the \
         copies hold {:.1} MB\n(copy k of every file, then copy k+1), each copy its own sessions \
         (UUIDs rewritten, own folder), imported\nwith import_files in that order into a fresh database file \
         (WAL, no background thread, as the CLI opens it), default\noptions (reconciled: indexed \
         before it returns); median of {RUNS} runs. Anchor: the same files read and\nparsed as \
         a stream of JSON values (serde_json::Value; a text file: its lines as UTF-8), median of \
         {RUNS}.\nLoad average at the start (other work skews timings): {}",
        FORMAT_MB * scale,
        load_average()
    );
    println!(
        "\n{:<12} {:>5} {:>6} {:>8} {:>9} {:>8} {:>8} {:>10} {:>10} {:>7}",
        "format",
        "files",
        "copies",
        "MB",
        "messages",
        "import s",
        "MB/s",
        "msg/s",
        "anchor MB/s",
        "ratio"
    );
    for (format, files) in &by_format {
        let set_bytes: usize = files.iter().map(|f| f.bytes.len()).sum();
        let copies = ((FORMAT_MB * scale * MB / set_bytes as f64).ceil() as usize).max(1);
        let copies_dir = dir.join(format);
        let mut paths = Vec::new();
        for copy in 0..copies {
            for fixture in files {
                let mut relative = rewrite_path(&fixture.relative, copy);
                if fixture.format == "aider" {
                    // Aider's sessions are its project folder's and runs'.
                    let project = relative.parent().ok_or("no folder")?;
                    let name = relative.file_name().ok_or("no name")?;
                    relative = project.with_extension(format!("c{copy}")).join(name);
                }
                let path = copies_dir.join(format!("c{copy}")).join(relative);
                fs::create_dir_all(path.parent().ok_or("a fixture without a folder")?)?;
                fs::write(&path, rewrite(&fixture.bytes, copy))?;
                paths.push(path);
            }
        }
        // Copies that the importer takes for the same sessions (ids it
        // cannot tell apart), or files whose messages are kept in other
        // files, would time imports that add nothing: such a format is
        // left out.
        let one_copy = {
            let store = Store::open_in_memory()?;
            import_files(&store, &paths[..files.len()], &ImportOptions::default())?.imported()
        };
        let bytes = (set_bytes * copies) as f64;
        let mut times = Vec::new();
        let mut messages = 0;
        for run in 0..RUNS {
            let db = dir.join(format!("{format}-{run}.db"));
            let store = open(&db)?;
            let start = Instant::now();
            let report = import_files(&store, &paths, &ImportOptions::default())?;
            times.push(start.elapsed().as_secs_f64());
            messages = report.imported();
            drop(store);
            remove_database(&db);
            if one_copy == 0 || messages != one_copy * copies {
                break;
            }
        }
        if one_copy == 0 || messages != one_copy * copies {
            println!(
                "{format:<12} {:>5} left out: its copies import {one_copy} messages each, {messages} in all {copies}: not distinct sessions, or messages kept in other files",
                files.len()
            );
            fs::remove_dir_all(&copies_dir)?;
            continue;
        }
        let mut anchors = Vec::new();
        for _ in 0..RUNS {
            let start = Instant::now();
            for path in &paths {
                parse(&fs::read(path)?);
            }
            anchors.push(start.elapsed().as_secs_f64());
        }
        let (time, anchor) = (median(&sorted(times)), median(&sorted(anchors)));
        println!(
            "{:<12} {:>5} {:>6} {:>8.1} {:>9} {:>8.2} {:>8.2} {:>10.0} {:>10.1} {:>6.1}x",
            format,
            files.len(),
            copies,
            bytes / MB,
            messages,
            time,
            bytes / MB / time,
            messages as f64 / time,
            bytes / MB / anchor,
            time / anchor
        );
        fs::remove_dir_all(&copies_dir)?;
    }

    // The home directory.
    let home = dir.join("home");
    let (files, bytes) = write_home(fixtures, &home, home_mb * MB)?;
    let db = dir.join("home.db");
    let line = child::report(&[CHILD_FLAG.as_ref(), home.as_os_str(), db.as_os_str()])?;
    let figures: Value = serde_json::from_str(&line)?;
    let seconds = figures["seconds"].as_f64().unwrap_or(f64::NAN);
    let rss_mb = figures["peak_rss_kib"].as_f64().unwrap_or(f64::NAN) * 1024.0 / MB;
    let db_mb = fs::metadata(&db).map_or(0.0, |m| m.len() as f64 / MB);
    println!(
        "\nhome directory: {files} files, {:.0} MB under .claude/projects, .codex/sessions, \
         .openclaw/agents/<a>/sessions and\n.gemini/tmp/<p>/chats (copies of the fixtures of those \
         formats, UUIDs rewritten), imported with import_path(home)\nin a child process into a \
         fresh database file; load average before: {}",
        bytes as f64 / MB,
        load_average()
    );
    println!(
        "  {} messages in {} sessions, {seconds:.1} s, {:.2} MB/s, {:.0} messages/s, peak RSS {rss_mb:.1} MB, database {db_mb:.0} MB",
        figures["messages"],
        figures["sessions"],
        bytes as f64 / MB / seconds,
        figures["messages"].as_f64().unwrap_or(0.0) / seconds,
    );
    remove_database(&db);
    Ok(vec![Target::new(
        format!(
            "import: peak RSS importing a {:.0} MB home directory",
            bytes as f64 / MB
        ),
        rss_mb,
        RSS_LIMIT_MB,
        " MB",
    )])
}

/// The child: imports the home directory `args[0]` into the new database
/// `args[1]` and prints its figures as one JSON line.
///
/// # Errors
///
/// Wrong arguments, any SQLite or session-search error.
pub fn child_main(args: &[String]) -> Result<(), Box<dyn Error>> {
    let [home, db] = args else {
        return Err(format!("usage: {CHILD_FLAG} HOME DATABASE").into());
    };
    let store = open(Path::new(db))?;
    let start = Instant::now();
    let report = import_path(&store, Path::new(home), &ImportOptions::default())?;
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::json!({
            "seconds": seconds,
            "messages": report.imported(),
            "sessions": report.sessions_created(),
            "peak_rss_kib": peak_rss_kib()?,
        })
    );
    Ok(())
}

/// A database file opened as the CLI opens it.
fn open(db: &Path) -> Result<Store, Box<dyn Error>> {
    Ok(Store::open_with(
        db,
        &StoreOptions {
            background_reconcile: false,
        },
    )?)
}

/// Removes a database file and its WAL files.
fn remove_database(db: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        let _ = fs::remove_file(PathBuf::from(name));
    }
}

/// The files under `root` that the importer recognises and imports
/// messages from, with their formats.
fn fixtures(root: &Path) -> Result<Vec<Fixture>, Box<dyn Error>> {
    if !root.is_dir() {
        return Err(format!(
            "part import reads the real fixtures in {}, which is missing",
            root.display()
        )
        .into());
    }
    let mut paths = Vec::new();
    walk(root, &mut paths)?;
    paths.sort();
    let mut found = Vec::new();
    for path in paths {
        let store = Store::open_in_memory()?;
        let report = import_path(&store, &path, &ImportOptions::default())?;
        let file = &report.files[0];
        if let Some(format) = file.format.filter(|_| file.imported > 0) {
            found.push(Fixture {
                relative: path.strip_prefix(root)?.to_owned(),
                bytes: fs::read(&path)?,
                format: format.name().to_owned(),
            });
        }
    }
    Ok(found)
}

fn walk(dir: &Path, paths: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, paths)?;
        } else {
            paths.push(path);
        }
    }
    Ok(())
}

/// Writes copies of the fixtures of the formats with default folders into
/// `home`, each in its tool's folder, until they hold `target` bytes;
/// returns the files and bytes written.
fn write_home(
    fixtures: &[Fixture],
    home: &Path,
    target: f64,
) -> Result<(usize, usize), Box<dyn Error>> {
    let placed: Vec<&Fixture> = fixtures
        .iter()
        .filter(|f| home_folder(f, 0).is_some())
        .collect();
    if placed.is_empty() {
        return Err("no fixture of Claude Code, Codex, OpenClaw or Gemini CLI".into());
    }
    let (mut files, mut bytes) = (0, 0);
    let mut copy = 0;
    while (bytes as f64) < target {
        for fixture in &placed {
            let path = home.join(home_folder(fixture, copy).ok_or("no folder")?);
            fs::create_dir_all(path.parent().ok_or("no parent")?)?;
            let text = rewrite(&fixture.bytes, copy);
            fs::write(&path, &text)?;
            files += 1;
            bytes += text.len();
        }
        copy += 1;
    }
    Ok((files, bytes))
}

/// Where copy `copy` of a fixture goes in a home directory: its tool's
/// default folder, one folder per copy; `None` for a format without one.
fn home_folder(fixture: &Fixture, copy: usize) -> Option<PathBuf> {
    let name = rewrite_path(Path::new(fixture.relative.file_name()?), copy);
    let name = name.to_string_lossy();
    Some(PathBuf::from(match fixture.format.as_str() {
        // Keeps the session's folder of subagents beside it.
        "claude-code" => {
            let inside = fixture.relative.strip_prefix("claude-code").ok()?;
            let inside = rewrite_path(inside, copy);
            format!(
                ".claude/projects/-home-user-project{copy}/{}",
                inside.display()
            )
        }
        "codex" => format!(
            ".codex/sessions/{}/{:02}/{:02}/{name}",
            2025 + copy / 336,
            1 + copy / 28 % 12,
            1 + copy % 28
        ),
        "openclaw" => format!(".openclaw/agents/agent{copy}/sessions/{name}"),
        "gemini-cli" => match name.starts_with("session-") {
            true => format!(".gemini/tmp/project{copy}/chats/{name}"),
            false => format!(".gemini/tmp/project{copy}/chats/session-{name}"),
        },
        _ => return None,
    }))
}

/// `path` with its UUIDs rewritten for copy `copy`.
fn rewrite_path(path: &Path, copy: usize) -> PathBuf {
    PathBuf::from(
        String::from_utf8_lossy(&rewrite(path.to_string_lossy().as_bytes(), copy)).into_owned(),
    )
}

/// `bytes` with the first 8 hex digits of every lowercase UUID XORed with
/// `copy`: the sessions, messages and files of each copy are distinct,
/// and references between them still match. Copy 0 is unchanged.
fn rewrite(bytes: &[u8], copy: usize) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if copy == 0 {
        return out;
    }
    let hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    let shape = |out: &[u8], at: usize| {
        out.len() >= at + 36
            && (0..36).all(|i| match i {
                8 | 13 | 18 | 23 => out[at + i] == b'-',
                _ => hex(out[at + i]),
            })
    };
    let mut at = 0;
    while at + 36 <= out.len() {
        if !shape(&out, at) {
            at += 1;
            continue;
        }
        let first = std::str::from_utf8(&out[at..at + 8])
            .ok()
            .and_then(|digits| u32::from_str_radix(digits, 16).ok())
            .unwrap_or(0);
        let rewritten = format!("{:08x}", first ^ copy as u32);
        out[at..at + 8].copy_from_slice(rewritten.as_bytes());
        at += 36;
    }
    out
}

/// The anchor's work on one file: its JSON values parsed in turn (the
/// lines of JSONL, or a whole document); a file that is not JSON, its
/// lines checked as UTF-8. Returns what it read, so it is not optimised
/// away.
fn parse(bytes: &[u8]) -> usize {
    let mut values = 0;
    for value in serde_json::Deserializer::from_slice(bytes).into_iter::<Value>() {
        match value {
            Ok(_) => values += 1,
            Err(_) if values == 0 => {
                return bytes
                    .split(|&b| b == b'\n')
                    .map(|line| String::from_utf8_lossy(line).len())
                    .sum();
            }
            Err(_) => break,
        }
    }
    values
}
