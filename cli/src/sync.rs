//! `session-search sync [--watch]`: keeps the database in step with the
//! folders where agent tools write their transcripts.
//!
//! A pass walks every folder, compares each transcript's stamp (device,
//! inode, size, modification time) with the one it had when last read
//! (`sql/sync.sql`), and imports only the files that changed. A transcript
//! whose session is spread over other files too (an OpenCode session file,
//! whose messages are files of their own: see
//! [`session_search_import::companion_files`]; a database, whose tool
//! writes its write-ahead log `<name>-wal` while it has it open) is stamped
//! with them: its size is theirs summed, its time the latest, so a new
//! message, or an answer finished, makes the session read again. A changed file
//! is read again from its start: the importer recognises the messages it
//! stored before by their ids, so a grown file adds its new lines, a last
//! line still being written waits for the next pass, and a file truncated or
//! rewritten adds what is new and loses nothing. A file that vanished while
//! one with its stamp appeared elsewhere was renamed (OpenClaw's
//! `*.jsonl.reset.<time>` archives): nothing is read. A deleted file is
//! forgotten; its sessions stay searchable.
//!
//! `--watch` repeats the pass whenever something under the folders is
//! created, written, renamed or removed, once they have been quiet for
//! [`DEBOUNCE`] (or [`SETTLE_LIMIT`] after the first change, so a file
//! written without pause is still read), and every [`RESCAN`] in case an
//! event was missed. Reading a file is no change: passes never wake each
//! other, so an idle watch sleeps.

use crate::Failure;
use notify::event::ModifyKind;
use notify::{Event, EventKind, RecursiveMode, Watcher};
use session_search::Store;
use session_search_import::{
    companion_files, default_locations, find_transcripts, formats_without_default_location,
    import_files, Format, ImportOptions, ImportReport, Location, QUIET_TIME,
};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::fs::Metadata;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

const SYNC_SQL: &str = include_str!("../sql/sync.sql");

/// How long the folders must be quiet before a watched change is read: as
/// long as the importer waits before it takes a transcript's last turn for
/// finished.
const DEBOUNCE: Duration = QUIET_TIME;

/// The longest a watched change waits for the folders to be quiet.
const SETTLE_LIMIT: Duration = Duration::from_secs(1);

/// How often `--watch` makes a pass with no change reported.
pub const RESCAN: Duration = Duration::from_secs(60);

/// The longest `mcp --watch` waits for its folders to be watched before it
/// serves (watching a large tree takes a while on some file systems).
const WATCH_START_WAIT: Duration = Duration::from_secs(10);

/// What one pass did.
#[derive(Debug, Default, serde::Serialize)]
pub struct SyncReport {
    /// The files read, as `import` reports them (and folders that could not
    /// be read).
    #[serde(flatten)]
    pub import: ImportReport,
    /// Transcripts unchanged since they were last read.
    pub unchanged: usize,
    /// Transcripts renamed since they were last read, not read again.
    pub renamed: Vec<Rename>,
    /// Transcripts gone since they were last read; their sessions stay.
    pub forgotten: Vec<PathBuf>,
    /// Transcripts read because they were new or changed.
    #[serde(skip)]
    pub read: usize,
}

/// A transcript found under a new name.
#[derive(Debug, serde::Serialize)]
pub struct Rename {
    /// Its old path.
    pub from: PathBuf,
    /// Its new path.
    pub to: PathBuf,
}

impl SyncReport {
    /// Whether the pass changed anything or met a problem.
    pub fn eventful(&self) -> bool {
        self.read > 0 || !self.renamed.is_empty() || !self.forgotten.is_empty()
    }
}

/// A file's identity and state when it was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    device: i64,
    inode: i64,
    size: i64,
    modified: i64,
}

impl Stamp {
    /// The stamp of the transcript `path`, with its companion files'.
    fn of_transcript(path: &Path) -> std::io::Result<Stamp> {
        let mut stamp = Stamp::of(&std::fs::metadata(path)?);
        for companion in companion_files(path) {
            // One gone meanwhile changes the sum as well.
            if let Ok(metadata) = std::fs::metadata(companion) {
                let other = Stamp::of(&metadata);
                stamp.size += other.size;
                stamp.modified = stamp.modified.max(other.modified);
            }
        }
        Ok(stamp)
    }

    /// Whether the file has gone unwritten for the importer's
    /// [`QUIET_TIME`].
    fn quiet(&self) -> bool {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos() as i64);
        now - self.modified >= QUIET_TIME.as_nanos() as i64
    }

    fn of(metadata: &Metadata) -> Stamp {
        let modified = metadata
            .modified()
            .ok()
            .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |since| since.as_nanos() as i64);
        let (device, inode) = identity(metadata);
        Stamp {
            device,
            inode,
            size: metadata.len() as i64,
            modified,
        }
    }
}

#[cfg(unix)]
fn identity(metadata: &Metadata) -> (i64, i64) {
    use std::os::unix::fs::MetadataExt;
    (metadata.dev() as i64, metadata.ino() as i64)
}

#[cfg(not(unix))]
fn identity(_: &Metadata) -> (i64, i64) {
    (0, 0)
}

/// Keeps a store in step with transcript folders.
pub struct Syncer<'a> {
    store: &'a Store,
    sources: Vec<Location>,
}

impl<'a> Syncer<'a> {
    /// A syncer of `sources` into `store`, whose sync table it creates.
    pub fn new(store: &'a Store, sources: Vec<Location>) -> Result<Syncer<'a>, rusqlite::Error> {
        store.connection().execute_batch(SYNC_SQL)?;
        Ok(Syncer { store, sources })
    }

    /// The folders followed.
    pub fn sources(&self) -> &[Location] {
        &self.sources
    }

    /// One pass: imports the transcripts that are new or changed, without
    /// indexing them (the caller reconciles). Folders that do not exist are
    /// skipped. Writes nothing when nothing changed.
    pub fn pass(&self) -> Result<SyncReport, session_search::Error> {
        let mut report = SyncReport::default();
        let mut found: Vec<(PathBuf, Stamp)> = Vec::new();
        for source in &self.sources {
            if !source.path.exists() {
                continue;
            }
            let (files, walk) = find_transcripts(&source.path)?;
            report.import.files.extend(walk.files);
            for file in files {
                // A file gone between the walk and now is picked up as
                // forgotten by the next pass.
                if let Ok(stamp) = Stamp::of_transcript(&file) {
                    found.push((file, stamp));
                }
            }
        }
        let mut known = self.known()?;
        let present: HashSet<&Path> = found.iter().map(|(path, _)| path.as_path()).collect();
        let mut vanished: Vec<(String, Stamp)> = known
            .iter()
            .filter(|(path, _)| !present.contains(Path::new(path.as_str())))
            .map(|(path, stamp)| (path.clone(), *stamp))
            .collect();
        let mut changed = Vec::new();
        for (path, stamp) in found {
            let key = path.to_string_lossy().into_owned();
            if known.remove(&key) == Some(stamp) {
                report.unchanged += 1;
            } else if let Some(at) = vanished.iter().position(|(_, old)| *old == stamp) {
                let (from, _) = vanished.swap_remove(at);
                self.forget(&from)?;
                self.remember(&key, stamp)?;
                report.renamed.push(Rename {
                    from: PathBuf::from(from),
                    to: path,
                });
            } else {
                changed.push((path, key, stamp));
            }
        }
        for (path, _) in vanished {
            self.forget(&path)?;
            report.forgotten.push(PathBuf::from(path));
        }
        let files: Vec<PathBuf> = changed.iter().map(|(path, _, _)| path.clone()).collect();
        // Judged before reading, so that the importer finds these quiet too.
        let quiet: Vec<bool> = changed.iter().map(|(_, _, stamp)| stamp.quiet()).collect();
        report.read = files.len();
        let options = ImportOptions {
            reconcile: false,
            ..ImportOptions::default()
        };
        let read = import_files(self.store, &files, &options)?.files;
        // The stamp taken before reading: a file that grew meanwhile is read
        // again next time, and so is one whose format waits for it to be
        // quiet, read before it was.
        let waited: HashSet<&Path> = read
            .iter()
            .filter(|file| file.format.is_some_and(Format::waits_for_quiet))
            .map(|file| file.path.as_path())
            .collect();
        for ((path, key, stamp), quiet) in changed.iter().zip(quiet) {
            if quiet || !waited.contains(path.as_path()) {
                self.remember(key, *stamp)?;
            }
        }
        report.import.files.extend(read);
        report.import.files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(report)
    }

    fn known(&self) -> Result<HashMap<String, Stamp>, rusqlite::Error> {
        let mut statement = self
            .store
            .connection()
            .prepare("SELECT path, device, inode, size, modified FROM session_search_sync_files")?;
        let rows = statement.query_map([], |row| {
            Ok((
                row.get(0)?,
                Stamp {
                    device: row.get(1)?,
                    inode: row.get(2)?,
                    size: row.get(3)?,
                    modified: row.get(4)?,
                },
            ))
        })?;
        rows.collect()
    }

    fn remember(&self, path: &str, stamp: Stamp) -> Result<(), rusqlite::Error> {
        self.store.connection().execute(
            "INSERT OR REPLACE INTO session_search_sync_files(path, device, inode, size, modified) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            (path, stamp.device, stamp.inode, stamp.size, stamp.modified),
        )?;
        Ok(())
    }

    fn forget(&self, path: &str) -> Result<(), rusqlite::Error> {
        self.store.connection().execute(
            "DELETE FROM session_search_sync_files WHERE path = ?1",
            [path],
        )?;
        Ok(())
    }

    /// Makes a pass, then another whenever the folders change, and at least
    /// every [`RESCAN`]; calls `watching` once the folders are first
    /// watched (before the first pass, so that whatever is written from
    /// then on is seen), and hands each pass's outcome to `done`, after
    /// indexing what it imported (with the number of messages indexed).
    /// Returns only when the watcher fails.
    pub fn watch(
        &self,
        watching: impl FnOnce(),
        mut done: impl FnMut(Result<(SyncReport, i64), Failure>),
    ) -> Result<(), String> {
        let (events, changes) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(events)
            .map_err(|e| format!("cannot watch the transcript folders: {e}"))?;
        let mut watched: Vec<(PathBuf, RecursiveMode)> = Vec::new();
        let mut watching = Some(watching);
        loop {
            let wanted = self.wanted();
            for (path, _) in watched.iter().filter(|watch| !wanted.contains(watch)) {
                // It may be gone already, which ended its watch.
                let _ = watcher.unwatch(path);
            }
            watched.retain(|watch| wanted.contains(watch));
            for watch in &wanted {
                if watched.contains(watch) {
                    continue;
                }
                let (path, mode) = watch;
                match watcher.watch(path, *mode) {
                    Ok(()) => watched.push(watch.clone()),
                    // Removed since it was looked at: the next pass sees.
                    Err(_) if !path.exists() => {}
                    Err(e) => return Err(format!("cannot watch {}: {e}", path.display())),
                }
            }
            if let Some(watching) = watching.take() {
                watching();
            }
            done(
                self.pass()
                    .map_err(Failure::from)
                    .and_then(|report| Ok((report, crate::index_pending(self.store, true)?))),
            );
            // A folder that appeared while the watches were set up is not
            // watched yet, and may get files after the pass: look again.
            if self.wanted() == wanted {
                self.settle(&changes)?;
            }
        }
    }

    /// What to watch: a folder that exists, whole; a file, with the folder
    /// it is in (a database's log is written beside it); for one that does
    /// not exist yet, the nearest folder above it that does, so that its
    /// creation starts a pass which then watches it.
    fn wanted(&self) -> Vec<(PathBuf, RecursiveMode)> {
        let mut wanted: Vec<(PathBuf, RecursiveMode)> = Vec::new();
        for source in &self.sources {
            let folder = source.path.parent().filter(|_| source.path.is_file());
            let watch = match (folder, source.path.exists()) {
                (Some(folder), _) => Some((folder.to_owned(), RecursiveMode::NonRecursive)),
                (None, true) => Some((source.path.clone(), RecursiveMode::Recursive)),
                (None, false) => source
                    .path
                    .ancestors()
                    .find(|folder| folder.is_dir())
                    .map(|folder| (folder.to_owned(), RecursiveMode::NonRecursive)),
            };
            if let Some(watch) = watch.filter(|watch| !wanted.contains(watch)) {
                wanted.push(watch);
            }
        }
        wanted
    }

    /// Waits for a change under the folders, then for them to be quiet;
    /// returns after [`RESCAN`] without one.
    fn settle(&self, changes: &Receiver<notify::Result<Event>>) -> Result<(), String> {
        let stopped = || "the file watcher stopped".to_owned();
        let rescan = Instant::now() + RESCAN;
        loop {
            match changes.recv_timeout(rescan.saturating_duration_since(Instant::now())) {
                Ok(event) if self.matters(&event) => break,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => return Ok(()),
                Err(RecvTimeoutError::Disconnected) => return Err(stopped()),
            }
        }
        let limit = Instant::now() + SETTLE_LIMIT;
        let mut quiet_from = Instant::now() + DEBOUNCE;
        loop {
            let until = quiet_from.min(limit);
            match changes.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(event) if self.matters(&event) => quiet_from = Instant::now() + DEBOUNCE,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) if Instant::now() >= until => return Ok(()),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(stopped()),
            }
        }
    }

    /// Whether `event` may change what a pass finds: something created,
    /// written, renamed or removed in a followed folder, or on the way to
    /// one that does not exist yet, or a followed database's log (a read,
    /// or a new access time, is not; an error of the watcher is, to be
    /// safe).
    fn matters(&self, event: &notify::Result<Event>) -> bool {
        let Ok(event) = event else {
            return true;
        };
        if matches!(
            event.kind,
            EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_))
        ) {
            return false;
        }
        event.paths.iter().any(|path| {
            self.sources.iter().any(|source| {
                path.starts_with(&source.path)
                    || source.path.starts_with(path)
                    || is_log_of(path, &source.path)
            })
        })
    }
}

/// Whether `path` is the write-ahead log of the database `database`,
/// `<database>-wal`, written while its tool has it open.
fn is_log_of(path: &Path, database: &Path) -> bool {
    let mut log = database.as_os_str().to_owned();
    log.push("-wal");
    path == Path::new(&log)
}

/// The arguments of `session-search sync`.
#[derive(clap::Args)]
pub struct SyncArgs {
    /// Folders or files to follow instead of the default folders
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Keep following the folders, importing each change within about a
    /// second, until stopped
    #[arg(long)]
    watch: bool,
    /// Print each pass's report as JSON (one line per pass with --watch)
    #[arg(long)]
    json: bool,
}

/// The tool of a folder named on the command line.
const NAMED: &str = "named";

/// The folders `paths` names, else the default folders.
pub fn sources(paths: &[PathBuf]) -> Result<Vec<Location>, Failure> {
    if paths.is_empty() {
        return default_locations(|name| std::env::var_os(name)).map_err(Failure::Message);
    }
    Ok(paths
        .iter()
        .map(|path| Location {
            tool: NAMED,
            path: path.clone(),
        })
        .collect())
}

/// Runs `session-search sync`.
pub fn run(db: &Path, args: &SyncArgs, quiet: bool, out: &mut dyn Write) -> Result<(), Failure> {
    for path in &args.paths {
        std::fs::metadata(path)
            .map_err(|e| Failure::Message(format!("cannot read {}: {e}", path.display())))?;
    }
    let store = crate::open_creating(db)?;
    let syncer = Syncer::new(&store, sources(&args.paths)?)?;
    let talk = !quiet && !args.json;
    if talk {
        write!(out, "{}", describe_sources(syncer.sources()))?;
    }
    if !args.watch {
        let report = syncer.pass()?;
        let indexed = crate::index_pending(&store, !talk)?;
        if args.json {
            writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
        } else if !quiet {
            write!(out, "{}", describe_pass(&report, indexed))?;
        }
        return Ok(());
    }
    if talk {
        writeln!(out, "Watching for changes; stop with Ctrl-C.")?;
    }
    let mut first = true;
    let mut failure = Ok(());
    // A file read again from its start reports its line issues again:
    // people are told each once.
    let mut told = HashSet::new();
    let watched = syncer.watch(
        || {},
        |pass| {
            let pass = pass.map(|(mut report, indexed)| {
                if !args.json {
                    for file in &mut report.import.files {
                        file.issues.retain(|issue| {
                            told.insert((file.path.clone(), issue.line, issue.issue.to_string()))
                        });
                    }
                }
                (report, indexed)
            });
            let shown = match pass {
                Ok((report, indexed)) if first || report.eventful() => match args.json {
                    true => serde_json::to_string(&report)
                        .map(|json| json + "\n")
                        .map_err(Failure::from),
                    false => Ok(describe_pass(&report, indexed)),
                },
                Ok(_) => return,
                Err(Failure::Message(e)) => {
                    Ok(format!("session-search: sync failed, retrying: {e}\n"))
                }
                Err(Failure::Closed) => return,
            };
            first = false;
            if quiet {
                return;
            }
            if let Err(e) = shown.and_then(|text| Ok(out.write_all(text.as_bytes())?)) {
                failure = Err(e);
            }
        },
    );
    failure?;
    watched.map_err(Failure::Message)
}

/// The followed folders that exist, a line each, then in one line the
/// tools none of whose folders exist yet.
fn describe_sources(sources: &[Location]) -> String {
    let mut text = String::new();
    let mut absent: Vec<&str> = Vec::new();
    for source in sources {
        if source.path.exists() {
            let _ = writeln!(text, "{}: {}", source.tool, source.path.display());
        } else if !absent.contains(&source.tool) {
            absent.push(source.tool);
        }
    }
    absent.retain(|tool| {
        !sources
            .iter()
            .any(|source| source.tool == *tool && source.path.exists())
    });
    if !absent.is_empty() {
        let _ = writeln!(text, "Not there yet: {}", absent.join(", "));
    }
    if sources.iter().all(|source| source.tool != NAMED) {
        let elsewhere: Vec<&str> = formats_without_default_location()
            .into_iter()
            .map(Format::name)
            .collect();
        let _ = writeln!(
            text,
            "No default folder (name their files or folders): {}",
            elsewhere.join(", ")
        );
    }
    text
}

/// One pass for people: the files read, renames, then the totals.
fn describe_pass(report: &SyncReport, indexed: i64) -> String {
    let mut text = crate::describe_files(&report.import);
    for rename in &report.renamed {
        let _ = writeln!(
            text,
            "{} -> {}: renamed, not read again",
            rename.from.display(),
            rename.to.display()
        );
    }
    let _ = writeln!(
        text,
        "Read {} of {} transcripts ({} gone); imported {} into {}; {} skipped; indexed {}.",
        report.read,
        report.read + report.unchanged + report.renamed.len(),
        report.forgotten.len(),
        crate::count(report.import.imported(), "message"),
        crate::count(report.import.sessions_created(), "new session"),
        crate::count(report.import.skipped_lines().count(), "line"),
        crate::count(indexed as usize, "message"),
    );
    text
}

/// Follows `sources` into the database `db` on a thread of its own, with
/// its own connection, while the caller goes on (`mcp --watch`); returns
/// once the folders are watched, so that a transcript written after it
/// returns is seen (or when the watcher could not start, or after
/// [`WATCH_START_WAIT`]). What goes wrong is said on stderr; a failed pass
/// is retried at the next change.
pub fn watch_in_background(db: &Path, sources: Vec<Location>) {
    let db = db.to_owned();
    let (started, watching) = mpsc::channel();
    std::thread::spawn(move || {
        let stopped = match crate::open(&db) {
            Ok(store) => Syncer::new(&store, sources)
                .map_err(|e| e.to_string())
                .and_then(|syncer| {
                    syncer.watch(
                        move || {
                            // The caller may have stopped waiting.
                            let _ = started.send(());
                        },
                        |pass| {
                            if let Err(Failure::Message(e)) = pass {
                                eprintln!("session-search: sync failed, retrying: {e}");
                            }
                        },
                    )
                }),
            Err(_) => Err(format!("cannot open {}", db.display())),
        };
        if let Err(e) = stopped {
            eprintln!("session-search: watching stopped: {e}");
        }
    });
    // A message or the thread's end (its sender dropped) ends the wait.
    let _ = watching.recv_timeout(WATCH_START_WAIT);
}
