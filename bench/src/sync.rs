//! Part `sync`: `session-search sync --watch` as a user runs it, against
//! issue 14's aim that a new line be searchable within 2 s, with near-zero
//! CPU when idle. The real CLI binary (`target/release/session-search`,
//! built by `make bench`) follows a temporary home directory holding
//! OpenClaw transcripts, with the database beside it:
//!
//! - latency: a line appended to a transcript with one write, as agents
//!   write them, timed until `sessions_search` finds its unique word. The
//!   search runs in this process through the wrapper, on a connection of its
//!   own made query-only, so it never indexes the line itself (as a search
//!   may when the write lock is free): what it finds, sync imported and
//!   indexed;
//! - idle CPU: the child's user + system time (`/proc/<pid>/stat`) over a
//!   stretch with no change, and its peak memory (`VmHWM`).

use crate::corpus::{Kind, Lengths, Messages};
use crate::memory::peak_rss_kib_of;
use crate::report::{load_average, Target, MB};
use crate::rng::Rng;
use crate::stats::{median, sorted};
use serde_json::json;
use session_search::{SearchOptions, SearchRequest, Store, StoreOptions, Visibility};
use std::error::Error;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

/// Transcript files at scale 1.
const FILES: f64 = 200.0;

/// Messages per transcript file, user and assistant in turn.
const FILE_MESSAGES: usize = 20;

/// Message lengths aimed at, as in the other parts (mean about 300 B).
const LENGTHS: Lengths = Lengths { min: 40, max: 840 };

/// Lines appended and timed.
const PROBES: usize = 20;

/// Pause before each probe, drawn uniformly in milliseconds, so that the
/// writes fall at every phase of the watcher's debounce.
const PAUSE_MS: (usize, usize) = (200, 1000);

/// The slowest passing probe, seconds (issue 14).
const LATENCY_LIMIT: f64 = 2.0;

/// How long the idle CPU is measured.
const IDLE: Duration = Duration::from_secs(30);

/// Quiet time between the last probe and the idle measurement.
const SETTLE: Duration = Duration::from_secs(1);

/// The highest passing idle CPU, in percent of one core.
const IDLE_LIMIT: f64 = 1.0;

/// Longest wait for the first pass.
const FIRST_PASS_TIMEOUT: Duration = Duration::from_secs(120);

/// Longest wait for one probe; one not found by then counts as this long.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Interval of the searches that wait for a probe.
const POLL: Duration = Duration::from_millis(5);

/// Interval of the checks that wait for the first pass.
const FIRST_PASS_POLL: Duration = Duration::from_millis(50);

/// Clock ticks per second assumed when `getconf CLK_TCK` gives none.
const ASSUMED_CLOCK_TICKS: u64 = 100;

/// Seed of the transcripts and the pauses.
const SEED: u64 = 0x5E55_5111;

/// A word in the last message of the last transcript: the first pass is
/// done when it is searchable and nothing is left to index.
const READY_WORD: &str = "zyncready";

/// Variables that would move the default folders, or the database.
const MOVING_VARIABLES: [&str; 5] = [
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "OPENCLAW_STATE_DIR",
    "PI_CODING_AGENT_DIR",
    "SESSION_SEARCH_DB",
];

/// One transcript file written for the run.
#[derive(Debug)]
struct Transcript {
    /// The file.
    path: PathBuf,
    /// The session key the importer gives it.
    session_key: String,
    /// The `id` of its last entry, the parent of the next line.
    last_id: String,
}

/// What one probe measured.
#[derive(Debug, Clone, Copy)]
struct Probe {
    /// The transcript appended to.
    file: usize,
    /// Seconds until the line was in `messages`; `None` if never seen.
    imported: Option<f64>,
    /// Seconds until a search returned it; `None` if not within
    /// [`PROBE_TIMEOUT`].
    searchable: Option<f64>,
}

/// Runs the part in the directory `work`, prints its figures and returns
/// its targets.
///
/// # Errors
///
/// When the CLI binary is missing, the watcher exits, or any file, SQLite
/// or session-search error.
pub fn run(scale: f64, work: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
    let binary = cli_binary()?;
    let dir = work.join("sync");
    let result = measure(scale, &binary, &dir);
    let _ = fs::remove_dir_all(&dir);
    result
}

/// `session-search` beside this executable, which must exist.
fn cli_binary() -> Result<PathBuf, Box<dyn Error>> {
    let exe = std::env::current_exe()?;
    let binary = exe.with_file_name("session-search");
    if !binary.is_file() {
        return Err(format!(
            "part sync runs the CLI binary {}, which is missing: build it with `make bench` or \
             `cargo build --release -p session-search-cli`",
            binary.display()
        )
        .into());
    }
    Ok(binary)
}

/// A warning when the CLI binary is older than the sources it is built
/// from (`cargo run -p session-search-bench` does not rebuild it).
fn staleness(binary: &Path) -> Option<String> {
    let built = fs::metadata(binary).and_then(|m| m.modified()).ok()?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let newest = ["engine", "wrapper", "cli"]
        .iter()
        .filter_map(|crate_dir| newest_source(&root.join(crate_dir)))
        .max()?;
    (newest > built).then(|| {
        format!(
            "WARNING: {} is older than the sources in {}; rebuild it with `make bench` or \
             `cargo build --release -p session-search-cli`",
            binary.display(),
            root.display()
        )
    })
}

/// The latest modification time of the `.rs`, `.sql` and `Cargo.toml`
/// files under `dir`.
fn newest_source(dir: &Path) -> Option<SystemTime> {
    let mut newest = None;
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let time = if path.is_dir() {
            newest_source(&path)
        } else if path.extension().is_some_and(|e| e == "rs" || e == "sql")
            || path.file_name().is_some_and(|n| n == "Cargo.toml")
        {
            entry.metadata().and_then(|m| m.modified()).ok()
        } else {
            None
        };
        newest = newest.max(time);
    }
    newest
}

/// The running `sync --watch`, killed when dropped (also on error).
struct Watcher {
    child: Child,
    /// Where its stderr goes.
    stderr: PathBuf,
}

impl Watcher {
    /// Starts `binary --db <db> sync --watch -q` with `home` as the home
    /// directory and none of [`MOVING_VARIABLES`].
    fn start(binary: &Path, home: &Path, db: &Path, stderr: &Path) -> std::io::Result<Watcher> {
        let mut command = Command::new(binary);
        for name in MOVING_VARIABLES {
            command.env_remove(name);
        }
        let child = command
            .env("HOME", home)
            .arg("--db")
            .arg(db)
            .args(["sync", "--watch", "-q"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(File::create(stderr)?)
            .spawn()?;
        Ok(Watcher {
            child,
            stderr: stderr.to_owned(),
        })
    }

    /// Its process id.
    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// An error when it has exited, with what it said.
    fn check(&mut self) -> Result<(), Box<dyn Error>> {
        match self.child.try_wait()? {
            None => Ok(()),
            Some(status) => Err(format!(
                "session-search sync --watch exited ({status}): {}",
                fs::read_to_string(&self.stderr).unwrap_or_default().trim()
            )
            .into()),
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Writes the transcripts, runs the watcher and measures it.
fn measure(scale: f64, binary: &Path, dir: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
    let files = ((FILES * scale).round() as usize).max(2);
    let home = dir.join("home");
    let sessions = home.join(".openclaw/agents/main/sessions");
    fs::create_dir_all(&sessions)?;
    let db = dir.join("sessions.db");
    let mut rng = Rng::new(SEED);
    let mut texts = Messages::new(Kind::English, SEED, LENGTHS);
    let mut transcripts = Vec::with_capacity(files);
    let mut bytes = 0;
    for f in 0..files {
        let (transcript, text) = transcript(&sessions, f, f + 1 == files, &mut texts);
        fs::write(&transcript.path, &text)?;
        bytes += text.len();
        transcripts.push(transcript);
    }
    let messages = files * FILE_MESSAGES;
    let (ticks_per_second, ticks_source) = clock_ticks();
    println!(
        "\n=== part sync: `session-search sync --watch` following {files} OpenClaw transcripts ({messages} messages, {:.1} MB) ===",
        bytes as f64 / MB
    );
    println!(
        "CLI binary: {}
It runs as `session-search --db <tmp>/sessions.db sync --watch -q`, HOME a temp dir holding only
.openclaw/agents/main/sessions/<uuid>.jsonl ({files} files of {FILE_MESSAGES} messages, user and assistant in turn,
English corpus text), CLAUDE_CONFIG_DIR, CODEX_HOME, OPENCLAW_STATE_DIR, PI_CODING_AGENT_DIR and
SESSION_SEARCH_DB unset. This process searches the same database through the wrapper (Store, no
background thread, the connection made query-only so that a search never indexes anything
itself), visibility all, limit 1, a search every {} ms while it waits. After the first pass,
{PROBES} probes: a pause of {}..{} ms, then one user line with a unique word appended to a random
transcript with one write; timed from just before the write until the line is in `messages`
(imported) and until a search for its word returns it (searchable). Then {} s idle (from {} s
after the last probe): the child's utime + stime from /proc/<pid>/stat ({ticks_per_second} ticks/s,
{ticks_source}). Load average at the start (other work skews timings): {}",
        binary.display(),
        POLL.as_millis(),
        PAUSE_MS.0,
        PAUSE_MS.1,
        IDLE.as_secs(),
        SETTLE.as_secs(),
        load_average(),
    );
    if let Some(warning) = staleness(binary) {
        println!("{warning}");
    }

    let started = Instant::now();
    let mut watcher = Watcher::start(binary, &home, &db, &dir.join("sync.stderr"))?;
    let pid = watcher.pid();
    let store = open_reader(&db, &mut watcher, started)?;
    let caller = transcripts[0].session_key.clone();
    let request = |word: &str| SearchRequest {
        query: word.to_owned(),
        options: SearchOptions {
            caller: Some(caller.clone()),
            visibility: Visibility::All,
            limit: Some(1),
            ..SearchOptions::default()
        },
    };
    loop {
        watcher.check()?;
        let count: i64 =
            store
                .connection()
                .query_row("SELECT count(*) FROM messages", [], |row| row.get(0))?;
        if count as usize >= messages {
            let response = store.search(&request(READY_WORD))?;
            if !response.indexing && !response.results.is_empty() {
                break;
            }
        }
        if started.elapsed() > FIRST_PASS_TIMEOUT {
            return Err(format!(
                "sync --watch did not import and index the {messages} messages within {} s ({count} imported)",
                FIRST_PASS_TIMEOUT.as_secs()
            )
            .into());
        }
        std::thread::sleep(FIRST_PASS_POLL);
    }
    let first_pass = started.elapsed().as_secs_f64();
    let first_ticks = cpu_ticks(pid)?;
    println!(
        "\nfirst pass: {messages} messages in {files} files imported and indexed {first_pass:.2} s after the start, CPU {:.2} s",
        first_ticks as f64 / ticks_per_second as f64
    );

    let mut probes = Vec::with_capacity(PROBES);
    let probe_ticks_before = cpu_ticks(pid)?;
    for i in 0..PROBES {
        let pause = rng.between(PAUSE_MS.0, PAUSE_MS.1 + 1) as u64;
        std::thread::sleep(Duration::from_millis(pause));
        watcher.check()?;
        let file = rng.below(transcripts.len());
        let word = probe_word(i);
        let id = format!("probe{i:02}");
        let text = format!("{} {word}", texts.next().unwrap_or_default());
        let transcript = &mut transcripts[file];
        let line = message_line(
            &id,
            Some(&transcript.last_id),
            &timestamp(28 * 86_400 + i),
            "user",
            &text,
        );
        let newest = newest_id(&store)?;
        let mut out = OpenOptions::new().append(true).open(&transcript.path)?;
        let written = Instant::now();
        out.write_all(line.as_bytes())?;
        drop(out);
        transcript.last_id = id;
        let search = request(&word);
        let mut probe = Probe {
            file,
            imported: None,
            searchable: None,
        };
        while written.elapsed() < PROBE_TIMEOUT {
            if probe.imported.is_none() && newest_id(&store)? > newest {
                probe.imported = Some(written.elapsed().as_secs_f64());
            }
            if !store.search(&search)?.results.is_empty() {
                probe.searchable = Some(written.elapsed().as_secs_f64());
                probe.imported = probe.imported.or(probe.searchable);
                break;
            }
            std::thread::sleep(POLL);
        }
        probes.push(probe);
    }
    let probe_ticks = cpu_ticks(pid)? - probe_ticks_before;

    std::thread::sleep(SETTLE);
    watcher.check()?;
    let idle_started = Instant::now();
    let idle_before = cpu_ticks(pid)?;
    std::thread::sleep(IDLE);
    let idle_ticks = cpu_ticks(pid)? - idle_before;
    let idle_seconds = idle_started.elapsed().as_secs_f64();
    let peak_kib = peak_rss_kib_of(pid)?;
    watcher.check()?;
    drop(watcher);

    println!("\nprobe  file  imported ms  searchable ms");
    for (i, probe) in probes.iter().enumerate() {
        let ms =
            |seconds: Option<f64>| seconds.map_or("-".to_owned(), |s| format!("{:.0}", s * 1e3));
        println!(
            "{:>5}  {:>4}  {:>11}  {:>13}",
            i + 1,
            probe.file,
            ms(probe.imported),
            ms(probe.searchable)
        );
    }
    let missed = probes.iter().filter(|p| p.searchable.is_none()).count();
    let searchable = sorted(
        probes
            .iter()
            .map(|p| p.searchable.unwrap_or(PROBE_TIMEOUT.as_secs_f64()))
            .collect(),
    );
    let imported = sorted(probes.iter().filter_map(|p| p.imported).collect());
    let p50 = median(&searchable);
    let max = searchable.last().copied().unwrap_or(0.0);
    let seconds_per_tick = 1.0 / ticks_per_second as f64;
    let idle_percent = idle_ticks as f64 * seconds_per_tick / idle_seconds * 100.0;
    println!(
        "\nwrite -> searchable: p50 {:.0} ms, max {:.0} ms{}; write -> imported: p50 {:.0} ms, max {:.0} ms",
        p50 * 1e3,
        max * 1e3,
        match missed {
            0 => String::new(),
            n => format!(" ({n} not found within {} s, counted as that)", PROBE_TIMEOUT.as_secs()),
        },
        median(&imported) * 1e3,
        imported.last().copied().unwrap_or(0.0) * 1e3,
    );
    println!(
        "CPU of the watcher during the {PROBES} probes, their pauses included: {probe_ticks} ticks, {:.0} ms per new line",
        probe_ticks as f64 * seconds_per_tick * 1e3 / PROBES as f64
    );
    println!(
        "idle: {idle_ticks} ticks in {idle_seconds:.1} s = {idle_percent:.3}% of one core; peak RSS (VmHWM) of the watcher {:.1} MB",
        peak_kib as f64 * 1024.0 / MB
    );
    Ok(vec![
        Target::new(
            format!(
                "sync --watch: write -> searchable, max of {PROBES} (p50 {:.0} ms)",
                p50 * 1e3
            ),
            max,
            LATENCY_LIMIT,
            " s",
        ),
        Target::new(
            format!("sync --watch: CPU when idle, {} s", IDLE.as_secs()),
            idle_percent,
            IDLE_LIMIT,
            "% of a core",
        ),
    ])
}

/// Transcript `f` in `sessions` and its text: a header and
/// [`FILE_MESSAGES`] messages; the `last` one ends with [`READY_WORD`].
fn transcript(sessions: &Path, f: usize, last: bool, texts: &mut Messages) -> (Transcript, String) {
    let uuid = format!("5e55a0c1-0000-4000-8000-{f:012x}");
    let start = (f * 600) % (25 * 86_400);
    let mut text = json!({
        "type": "session",
        "version": 3,
        "id": uuid,
        "timestamp": timestamp(start),
        "cwd": format!("/work/project-{}", f % 7),
    })
    .to_string();
    text.push('\n');
    let mut parent: Option<String> = None;
    for m in 0..FILE_MESSAGES {
        let id = format!("m{m:04}");
        let mut body = texts.next().unwrap_or_default();
        if last && m + 1 == FILE_MESSAGES {
            body.push(' ');
            body.push_str(READY_WORD);
        }
        let role = ["user", "assistant"][m % 2];
        text.push_str(&message_line(
            &id,
            parent.as_deref(),
            &timestamp(start + 1 + m * 20),
            role,
            &body,
        ));
        parent = Some(id);
    }
    let transcript = Transcript {
        path: sessions.join(format!("{uuid}.jsonl")),
        session_key: format!("openclaw:{uuid}"),
        last_id: parent.unwrap_or_default(),
    };
    (transcript, text)
}

/// One OpenClaw message line, newline included.
fn message_line(id: &str, parent: Option<&str>, timestamp: &str, role: &str, text: &str) -> String {
    let mut line = json!({
        "type": "message",
        "id": id,
        "parentId": parent,
        "timestamp": timestamp,
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    })
    .to_string();
    line.push('\n');
    line
}

/// `2025-11-01T00:00:00.000Z` plus `seconds` (under 30 days).
fn timestamp(seconds: usize) -> String {
    format!(
        "2025-11-{:02}T{:02}:{:02}:{:02}.000Z",
        1 + seconds / 86_400,
        seconds / 3600 % 24,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The word of probe `i`: letters only, in no corpus message.
fn probe_word(i: usize) -> String {
    let letter = |n: usize| char::from(b'a' + (n % 26) as u8);
    format!("zyncprobe{}{}", letter(i / 26), letter(i))
}

/// The largest `messages.id`, 0 for none.
fn newest_id(store: &Store) -> rusqlite::Result<i64> {
    store
        .connection()
        .query_row("SELECT coalesce(max(id), 0) FROM messages", [], |row| {
            row.get(0)
        })
}

/// Opens the database the watcher creates as a query-only store, once it
/// exists and opening succeeds (opening runs `sessions_init()`, which may
/// wait longer than its busy timeout while the first pass writes).
fn open_reader(
    db: &Path,
    watcher: &mut Watcher,
    started: Instant,
) -> Result<Store, Box<dyn Error>> {
    loop {
        watcher.check()?;
        let opened = match db.exists() {
            true => Store::open_with(
                db,
                &StoreOptions {
                    background_reconcile: false,
                },
            )
            .map_err(|e| e.to_string()),
            false => Err(format!("no database at {}", db.display())),
        };
        match opened {
            Ok(store) => {
                store.connection().pragma_update(None, "query_only", true)?;
                return Ok(store);
            }
            Err(e) if started.elapsed() > FIRST_PASS_TIMEOUT => {
                return Err(format!("cannot open the database of sync --watch: {e}").into())
            }
            Err(_) => std::thread::sleep(FIRST_PASS_POLL),
        }
    }
}

/// User + system CPU time of process `pid` so far, in clock ticks
/// (fields 14 and 15 of `/proc/<pid>/stat`, every thread included).
fn cpu_ticks(pid: u32) -> Result<u64, Box<dyn Error>> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name (field 2) is in parentheses and may hold spaces;
    // the fields after it start with field 3.
    let after = stat.rfind(')').map_or("", |at| &stat[at + 1..]);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| -> Result<u64, Box<dyn Error>> {
        Ok(fields
            .get(n - 3)
            .ok_or_else(|| format!("/proc/{pid}/stat has no field {n}"))?
            .parse()?)
    };
    Ok(field(14)? + field(15)?)
}

/// Clock ticks per second, and where the figure comes from.
fn clock_ticks() -> (u64, &'static str) {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .filter(|output| output.status.success())
        .and_then(|output| String::from_utf8(output.stdout).ok()?.trim().parse().ok())
        .filter(|&ticks| ticks > 0)
        .map_or(
            (ASSUMED_CLOCK_TICKS, "assumed: getconf CLK_TCK gave none"),
            |ticks| (ticks, "getconf CLK_TCK"),
        )
}
