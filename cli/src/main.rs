//! `session-search`: import agent transcripts into a session-search database
//! and search them from the command line.
//!
//! The database is `--db <path>`, else `$SESSION_SEARCH_DB`, else
//! `$XDG_DATA_HOME/sqlite-session-search/sessions.db`, else
//! `~/.local/share/sqlite-session-search/sessions.db`; `import` creates it (and its
//! directory), for its owner only, the other commands need it to exist.
//!
//! Who is asking: the search functions require a caller session and check
//! visibility from it. On the command line the database's owner is asking,
//! so `search` without `--caller` searches every session (visibility `all`,
//! with the first session by key as the nominal caller); a narrower
//! `--visibility` needs `--caller`. `history <session>` without `--caller`
//! reads the session as itself. Wherever a session key is asked for, a
//! unique start of one will do ([`resolve_session_key`]).
//!
//! For people: times in the local time zone (`--utc`: UTC), each session's
//! working directory and resume command when its importer recorded them,
//! and grep's exit status: 0 when something was found, 1 when a search or a
//! list found nothing, 2 on errors. `--json` prints exactly what the SQL
//! functions return.

#![deny(missing_docs)]

mod mcp;
mod sync;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use jiff::tz::TimeZone;
use rusqlite::OptionalExtension;
use serde::Serialize;
use session_search::timestamp::{format_iso8601, parse_iso8601};
use session_search::{
    GroupBy, HistoryOptions, Hit, ListOptions, ListResponse, MessageRef, Order, Role,
    SearchOptions, SearchRequest, SearchResponse, Store, StoreOptions, Visibility,
};
use session_search_engine::query::Query;
use session_search_engine::question::Question;
use session_search_engine::{history, list, search};
use session_search_import::{
    default_locations, import_path, origin, resolve_session_key, FileReport, Format, ImportOptions,
    ImportReport,
};
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Rows per reconciliation slice: the progress bar moves after each.
const RECONCILE_ROWS: i64 = 2000;

/// Line issues printed per file; the rest are counted.
const ISSUES_SHOWN: usize = 20;

const MS_PER_DAY: i64 = 86_400_000;

#[derive(Parser)]
#[command(
    name = "session-search",
    version,
    about = "Exact full-text search over AI agents' past conversations"
)]
struct Cli {
    /// The database [default: $SESSION_SEARCH_DB, else
    /// $XDG_DATA_HOME/sqlite-session-search/sessions.db, else
    /// ~/.local/share/sqlite-session-search/sessions.db]
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Print only results, JSON and errors: no per-file import lines,
    /// progress bars, totals or notes
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Show times in UTC instead of the local time zone
    #[arg(long, global = true)]
    utc: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Import transcripts: files, or directories searched recursively, e.g.
    /// ~/.claude/projects; with no path, every tool's default folders
    Import(ImportArgs),
    /// Import what is new in every tool's default folders (or the folders
    /// named), once or, with --watch, as they change
    Sync(sync::SyncArgs),
    /// Search for words and "quoted phrases"
    Search(SearchArgs),
    /// Show the active branch of a session
    History(HistoryArgs),
    /// List sessions, newest activity first
    List(ListArgs),
    /// Serve sessions_search, sessions_history and sessions_list to an
    /// agent as a Model Context Protocol server on stdin/stdout
    Mcp(McpArgs),
    /// Counts, index state and the index integrity check
    Status {
        /// Print the JSON of sessions_status()
        #[arg(long)]
        json: bool,
    },
    /// Index every message still waiting to be indexed
    Reconcile {
        /// Print the count as JSON: {"indexed": N}
        #[arg(long)]
        json: bool,
    },
    /// Store redaction patterns (regular expressions; a group named
    /// `secret` redacts only itself) that the index and every output must
    /// not hold, besides the built-in ones; replaces the stored patterns and
    /// re-indexes
    Redact {
        /// The patterns, e.g. 'ACME-[0-9]{6}'
        #[arg(value_name = "PATTERN", required_unless_present = "clear")]
        patterns: Vec<String>,
        /// Remove the stored patterns instead
        #[arg(long, conflicts_with = "patterns")]
        clear: bool,
        /// Print the counts as JSON: {"patterns": N, "changed": BOOL,
        /// "indexed": N}
        #[arg(long)]
        json: bool,
    },
    /// Print a completion script for a shell, e.g. in ~/.bashrc:
    /// source <(session-search completions bash)
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of session-search, or of one of its
    /// commands, e.g. session-search man | man -l -
    Man {
        /// The command whose page to print (session-search-COMMAND(1))
        command: Option<String>,
    },
}

#[derive(Args)]
struct ImportArgs {
    /// Transcript files or directories [default: the default folders of
    /// every tool, under the home directory or where the tools' variables
    /// move them]
    #[arg(value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Import the default folders of the home directory DIR (a backup,
    /// another account), ignoring the tools' variables
    #[arg(long, value_name = "DIR", conflicts_with = "paths")]
    home: Option<PathBuf>,
    /// Read every file as this format instead of recognising it
    #[arg(long, value_parser = format_parser())]
    format: Option<Format>,
    /// The agent_id of the sessions created [default: per format: the
    /// project directory for Claude Code, the agent directory or "openclaw"
    /// for OpenClaw, "codex" for Codex, "chatgpt" and "claude-ai" for their
    /// data exports, "gemini-cli" for Gemini CLI, the project directory for
    /// Aider, "opencode" for OpenCode, "kilo" for Kilo, "hermes" (or
    /// "hermes-PROFILE") for Hermes Agent, "cursor" for Cursor, the tool its
    /// header names for SpecStory, the workspace directory for Cline, Roo
    /// Code and Kilo Code]
    #[arg(long)]
    agent_id: Option<String>,
    /// Skip lines longer than this many bytes
    #[arg(long, default_value_t = ImportOptions::default().max_line_bytes)]
    max_line_bytes: usize,
    /// Print the whole report as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum VisibilityArg {
    /// The caller's session
    #[value(name = "self")]
    Own,
    /// The caller and the sessions it spawned
    Tree,
    /// The sessions of the caller's agent
    Agent,
    /// Every session
    All,
}

impl From<VisibilityArg> for Visibility {
    fn from(v: VisibilityArg) -> Visibility {
        match v {
            VisibilityArg::Own => Visibility::Own,
            VisibilityArg::Tree => Visibility::Tree,
            VisibilityArg::Agent => Visibility::Agent,
            VisibilityArg::All => Visibility::All,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum RoleArg {
    User,
    Assistant,
}

#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    /// Best match first
    Relevance,
    /// Newest first
    Recent,
}

#[derive(Clone, Copy, ValueEnum)]
enum GroupByArg {
    /// The best hit of each session
    Session,
}

#[derive(Args)]
struct SearchArgs {
    /// Words and "quoted phrases"; every term must match; word* is a prefix
    query: String,
    /// The session asking: its key, or a unique start of it [default: none,
    /// searching all sessions]
    #[arg(long)]
    caller: Option<String>,
    /// Which sessions the caller sees [default: tree with --caller, all
    /// without]
    #[arg(long, value_enum)]
    visibility: Option<VisibilityArg>,
    /// Only messages of this role (repeatable)
    #[arg(long, value_enum)]
    role: Vec<RoleArg>,
    /// Only messages at or after this time: unix ms, or an ISO 8601 date or
    /// date-time (a date is its midnight, UTC)
    #[arg(long, value_parser = since)]
    since: Option<i64>,
    /// Only messages at or before this time: unix ms, or an ISO 8601 date or
    /// date-time (a date is its last millisecond, UTC)
    #[arg(long, value_parser = until)]
    until: Option<i64>,
    /// Only this session (its key or a unique start of it; repeatable),
    /// still within visibility
    #[arg(long = "session", value_name = "SESSION_KEY")]
    sessions: Vec<String>,
    /// Most results, 1-25 [default: 10]
    #[arg(long)]
    limit: Option<i64>,
    /// Result order
    #[arg(long, value_enum, default_value = "relevance")]
    order: OrderArg,
    /// One result per session: its best hit, with the session's number of
    /// hits
    #[arg(long, value_enum)]
    group_by: Option<GroupByArg>,
    /// Print exactly the JSON of sessions_search()
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct HistoryArgs {
    /// The session to show: its key, or a unique start of it such as the
    /// session id Claude Code shows
    session: String,
    /// The session asking: its key, or a unique start of it [default: the
    /// session itself]
    #[arg(long)]
    caller: Option<String>,
    /// Which sessions the caller sees [default: tree with --caller, self
    /// without]
    #[arg(long, value_enum)]
    visibility: Option<VisibilityArg>,
    /// Centre on this message (its messageId, or its id)
    #[arg(long, value_name = "MESSAGE_ID")]
    around: Option<String>,
    /// Messages before --around, 0-100 [default: 5]
    #[arg(long)]
    before: Option<i64>,
    /// Messages after --around, 0-100 [default: 5]
    #[arg(long)]
    after: Option<i64>,
    /// Most messages, 1-200 [default: 50]
    #[arg(long)]
    limit: Option<i64>,
    /// Print exactly the JSON of sessions_history()
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct ListArgs {
    /// The session asking: its key, or a unique start of it [default: none,
    /// list every session]
    #[arg(long)]
    caller: Option<String>,
    /// Which sessions the caller sees [default: tree with --caller, all
    /// without]
    #[arg(long, value_enum)]
    visibility: Option<VisibilityArg>,
    /// Only sessions of this agent
    #[arg(long)]
    agent: Option<String>,
    /// Only sessions whose key starts with this
    #[arg(long)]
    prefix: Option<String>,
    /// Only sessions last active at or after this time: unix ms, or an ISO
    /// 8601 date or date-time
    #[arg(long, value_parser = since)]
    since: Option<i64>,
    /// Only sessions last active at or before this time: unix ms, or an ISO
    /// 8601 date or date-time
    #[arg(long, value_parser = until)]
    until: Option<i64>,
    /// Most sessions, 1-100 [default: 20]
    #[arg(long)]
    limit: Option<i64>,
    /// Skip this many sessions first (the next page)
    #[arg(long)]
    offset: Option<i64>,
    /// Print exactly the JSON of sessions_list()
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct McpArgs {
    /// The session asking, pinned for every call [default:
    /// $SESSION_SEARCH_CALLER; none: the database owner, who sees every
    /// session]
    #[arg(long, env = "SESSION_SEARCH_CALLER")]
    caller: Option<String>,
    /// Which sessions the caller sees [default: tree; needs --caller
    /// unless all]
    #[arg(long, value_enum, env = "SESSION_SEARCH_VISIBILITY")]
    visibility: Option<VisibilityArg>,
    /// Clamp the caller to its tree whatever --visibility says
    #[arg(long)]
    sandboxed: bool,
    /// Keep the database in step with the transcript folders while serving,
    /// as `sync --watch` does (creates the database if needed)
    #[arg(long)]
    watch: bool,
    /// With --watch: follow these folders instead of the default ones
    /// (repeatable)
    #[arg(long = "watch-path", value_name = "PATH", requires = "watch")]
    watch_paths: Vec<PathBuf>,
}

/// Why a command stopped early.
enum Failure {
    /// An error, printed as one line on stderr.
    Message(String),
    /// The reader of stdout went away (`| head`): nothing left to do.
    Closed,
}

impl From<session_search::Error> for Failure {
    fn from(e: session_search::Error) -> Failure {
        Failure::Message(e.to_string())
    }
}

impl From<rusqlite::Error> for Failure {
    fn from(e: rusqlite::Error) -> Failure {
        Failure::Message(e.to_string())
    }
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Failure {
        Failure::Message(e.to_string())
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        match e.kind() {
            std::io::ErrorKind::BrokenPipe => Failure::Closed,
            _ => Failure::Message(format!("cannot write the output: {e}")),
        }
    }
}

fn main() -> ExitCode {
    // Every error starts as this command's own do (clap's start `error:`).
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            let text = e.render().to_string();
            eprint!(
                "session-search: {}",
                text.strip_prefix("error: ").unwrap_or(&text)
            );
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    // Stdout is line-buffered, so its lines and the notes on stderr keep
    // their order. It is locked per write, never for the whole run: the MCP
    // server writes to it from another thread.
    match run(cli, &mut std::io::stdout()) {
        Ok(status) => status,
        Err(Failure::Closed) => ExitCode::SUCCESS,
        Err(Failure::Message(message)) => {
            eprintln!("session-search: {message}");
            ExitCode::from(2)
        }
    }
}

/// The exit status of a command that finds things, as grep's: 0 when it
/// found something, 1 when it found nothing.
fn found(anything: bool) -> ExitCode {
    match anything {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    }
}

/// Runs the command; `search` and `list` decide the exit status, the
/// others succeed unless they fail.
fn run(cli: Cli, out: &mut dyn Write) -> Result<ExitCode, Failure> {
    // These two need no database.
    match &cli.command {
        Command::Completions { shell } => return completions(*shell, out),
        Command::Man { command } => return man(command.as_deref(), out),
        _ => {}
    }
    let human = Human::new(cli.utc, cli.quiet);
    let db = match cli.db {
        Some(path) => path,
        None => default_db()?,
    };
    let done = match cli.command {
        Command::Import(args) => import(&db, &args, human.quiet, out),
        Command::Sync(args) => sync::run(&db, &args, human.quiet, out),
        Command::Search(args) => return search(&open_existing(&db)?, &args, &human, out),
        Command::History(args) => history(&open_existing(&db)?, &args, &human, out),
        Command::List(args) => return list(&open_existing(&db)?, &args, &human, out),
        Command::Mcp(args) => {
            let viewer = match (args.caller, args.visibility) {
                (None, None | Some(VisibilityArg::All)) => mcp::Viewer {
                    caller: None,
                    visibility: Visibility::All,
                    sandboxed: false,
                },
                (None, Some(_)) => {
                    return Err(Failure::Message(
                        "--visibility other than all needs --caller <session_key>, the session whose view is used".into(),
                    ))
                }
                (Some(caller), visibility) => mcp::Viewer {
                    caller: Some(caller),
                    visibility: visibility.map_or(Visibility::Tree, Visibility::from),
                    sandboxed: args.sandboxed,
                },
            };
            // A server must start before anything was imported: its tools
            // then say how to import, where a server that exits is only
            // seen as dead by the client.
            let store = open_creating(&db)?;
            if args.watch {
                sync::watch_in_background(&db, sync::sources(&args.watch_paths)?);
            }
            mcp::serve(store, viewer).map_err(Failure::Message)
        }
        Command::Status { json } => status(&db, &open_existing(&db)?, json, out),
        Command::Reconcile { json } => {
            let indexed = index_pending(&open_existing(&db)?, human.quiet)?;
            if json {
                writeln!(out, "{}", serde_json::json!({ "indexed": indexed }))?;
            } else if !human.quiet {
                writeln!(
                    out,
                    "Indexed {}; none pending.",
                    count(indexed as usize, "message")
                )?;
            }
            Ok(())
        }
        Command::Redact { patterns, json, .. } => {
            redact(&open_existing(&db)?, &patterns, json, human.quiet, out)
        }
        Command::Completions { .. } | Command::Man { .. } => {
            unreachable!("answered before the database is looked for")
        }
    };
    done.map(|()| ExitCode::SUCCESS)
}

/// Stores the redaction patterns and re-indexes if they changed.
fn redact(
    store: &Store,
    patterns: &[String],
    json: bool,
    quiet: bool,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let patterns: Vec<&str> = patterns.iter().map(String::as_str).collect();
    let change = store.set_redaction(&patterns)?;
    let indexed = match change.changed {
        true => index_pending(store, quiet)?,
        false => 0,
    };
    if json {
        let counts = serde_json::json!({
            "patterns": change.patterns,
            "changed": change.changed,
            "indexed": indexed,
        });
        writeln!(out, "{counts}")?;
    } else if !quiet {
        let stored = count(change.patterns, "redaction pattern");
        match change.changed {
            true => writeln!(
                out,
                "{stored} stored; re-indexed {}.",
                count(indexed as usize, "message")
            )?,
            false => writeln!(out, "{stored} stored; unchanged.")?,
        }
    }
    Ok(())
}

/// `completions <shell>`: the script clap_complete makes from the
/// arguments' definitions.
fn completions(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<ExitCode, Failure> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "session-search", &mut script);
    out.write_all(&script)?;
    Ok(ExitCode::SUCCESS)
}

/// `man [command]`: the manual page clap_mangen makes from the arguments'
/// definitions, of session-search or of one command.
fn man(command: Option<&str>, out: &mut dyn Write) -> Result<ExitCode, Failure> {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let page = match command {
        None => cli,
        Some(name) => cli.find_subcommand(name).cloned().ok_or_else(|| {
            let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
            Failure::Message(format!(
                "no command {name:?}; the commands are {}",
                names.join(", ")
            ))
        })?,
    };
    clap_mangen::Man::new(page)
        .source(format!("session-search {}", env!("CARGO_PKG_VERSION")))
        .render(out)?;
    Ok(ExitCode::SUCCESS)
}

/// `$SESSION_SEARCH_DB`, else the XDG data directory's `sqlite-session-search/sessions.db`.
fn default_db() -> Result<PathBuf, Failure> {
    let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(path) = set("SESSION_SEARCH_DB") {
        return Ok(PathBuf::from(path));
    }
    let data =
        match (set("XDG_DATA_HOME"), set("HOME")) {
            (Some(data), _) => PathBuf::from(data),
            (None, Some(home)) => Path::new(&home).join(".local/share"),
            (None, None) => return Err(Failure::Message(
                "no database given: pass --db <path> or set SESSION_SEARCH_DB (HOME is not set)"
                    .into(),
            )),
        };
    Ok(data.join("sqlite-session-search/sessions.db"))
}

fn open(db: &Path) -> Result<Store, Failure> {
    Store::open_with(
        db,
        &StoreOptions {
            background_reconcile: false,
        },
    )
    .map_err(|e| Failure::Message(format!("cannot open the database {}: {e}", db.display())))
}

/// Opens the database, creating it and its directory if needed: folders it
/// creates are accessible to their owner only (mode 0700 on Unix), as the
/// database file is (see [`Store::open`]).
fn open_creating(db: &Path) -> Result<Store, Failure> {
    if let Some(dir) = db.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        let mut folders = std::fs::DirBuilder::new();
        folders.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut folders, 0o700);
        folders
            .create(dir)
            .map_err(|e| Failure::Message(format!("cannot create {}: {e}", dir.display())))?;
    }
    open(db)
}

fn open_existing(db: &Path) -> Result<Store, Failure> {
    if !db.exists() {
        return Err(Failure::Message(format!(
            "no database at {}; import transcripts first (session-search import <path>) or pass --db",
            db.display()
        )));
    }
    open(db)
}

/// `--format`: one of [`Format::ALL`], which its help lists.
fn format_parser() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Format::ALL.map(Format::name))
        .try_map(|name| name.parse::<Format>())
}

fn import(db: &Path, args: &ImportArgs, quiet: bool, out: &mut dyn Write) -> Result<(), Failure> {
    let paths = import_paths(args)?;
    for path in &paths {
        std::fs::metadata(path)
            .map_err(|e| Failure::Message(format!("cannot read {}: {e}", path.display())))?;
    }
    let store = open_creating(db)?;
    let options = ImportOptions {
        format: args.format,
        agent_id: args.agent_id.clone(),
        max_line_bytes: args.max_line_bytes,
        reconcile: false,
    };
    let mut report = ImportReport::default();
    for path in &paths {
        report
            .files
            .extend(import_path(&store, path, &options)?.files);
    }
    let indexed = index_pending(&store, quiet)?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else if !quiet {
        write!(out, "{}", describe_import(&paths, &report, indexed))?;
    }
    Ok(())
}

/// What `import` reads: the paths named, else the default folders that
/// exist (of `--home`, else of this environment).
fn import_paths(args: &ImportArgs) -> Result<Vec<PathBuf>, Failure> {
    if !args.paths.is_empty() {
        return Ok(args.paths.clone());
    }
    let locations = match &args.home {
        Some(home) => {
            std::fs::metadata(home)
                .map_err(|e| Failure::Message(format!("cannot read {}: {e}", home.display())))?;
            default_locations(|name| (name == "HOME").then(|| home.clone().into_os_string()))
        }
        None => default_locations(|name| std::env::var_os(name)),
    }
    .map_err(Failure::Message)?;
    let found: Vec<PathBuf> = locations
        .iter()
        .filter(|location| location.path.exists())
        .map(|location| location.path.clone())
        .collect();
    if found.is_empty() {
        let looked: Vec<String> = locations
            .iter()
            .map(|location| format!("{} ({})", location.path.display(), location.tool))
            .collect();
        return Err(Failure::Message(format!(
            "no transcripts in the default folders: {}; name files or folders to import",
            looked.join(", ")
        )));
    }
    Ok(found)
}

/// The import report for people: a line per file that changed something or
/// had problems, its line issues under it, then the totals.
fn describe_import(paths: &[PathBuf], report: &ImportReport, indexed: i64) -> String {
    let mut out = describe_files(report);
    if report.files.is_empty() {
        let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let _ = writeln!(
            out,
            "No transcripts of a known format ({}) found in {}.",
            Format::names(),
            names.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "Imported {} into {} from {}; {} already present; {} skipped.",
        count(report.imported(), "message"),
        count(report.sessions_created(), "new session"),
        count(report.files.len(), "file"),
        count(report.already_present(), "message"),
        count(report.skipped_lines().count(), "line"),
    );
    if report.updated() > 0 {
        let _ = writeln!(
            out,
            "{} rewritten as the transcripts hold them now (completed since, or read damaged before).",
            count(report.updated(), "message")
        );
    }
    if report.removed() > 0 {
        let _ = writeln!(
            out,
            "{} that a damaged earlier read had split off another removed.",
            count(report.removed(), "message")
        );
    }
    let types = report.skipped_types();
    if !types.is_empty() {
        let counts: Vec<String> = types
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        let _ = writeln!(
            out,
            "Entries that are not conversation, by type: {}.",
            counts.join(", ")
        );
    }
    let _ = writeln!(out, "Indexed {}.", count(indexed as usize, "message"));
    out
}

/// A line per file that changed something or had problems, its line issues
/// under it.
fn describe_files(report: &ImportReport) -> String {
    let mut out = String::new();
    for file in &report.files {
        let noteworthy = file.imported > 0 || file.problem.is_some() || !file.issues.is_empty();
        if noteworthy {
            let _ = writeln!(out, "{}", describe_file(file));
        }
        for issue in file.issues.iter().take(ISSUES_SHOWN) {
            let _ = writeln!(out, "  line {}: {}", issue.line, issue.issue);
        }
        if file.issues.len() > ISSUES_SHOWN {
            let _ = writeln!(
                out,
                "  … and {} more lines with issues",
                file.issues.len() - ISSUES_SHOWN
            );
        }
    }
    out
}

/// `value` of `flag`, at most the largest of `bounds` (smallest, largest,
/// default), with a note when it was more: asking for 50 results shows the
/// most there can be rather than nothing.
fn at_most(
    value: Option<i64>,
    (_, max, _): (i64, i64, i64),
    flag: &str,
    human: &Human,
) -> Option<i64> {
    match value {
        Some(n) if n > max => {
            human.note(&format!(
                "{flag} {n} is more than the most there can be; showing {max}."
            ));
            Some(max)
        }
        other => other,
    }
}

/// `n` and `noun`, plural unless `n` is 1.
fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

fn describe_file(file: &FileReport) -> String {
    let path = file.path.display();
    if let (None, Some(problem)) = (&file.format, &file.problem) {
        return format!("{path}: {problem}");
    }
    let mut line = format!("{path}:");
    if let Some(format) = file.format {
        let _ = write!(line, " {format},");
    }
    match &file.session_key {
        // A data export: many conversations in one file.
        Some(_) if file.sessions > 1 => {
            let _ = write!(
                line,
                " {}, {} new:",
                count(file.sessions, "session"),
                file.sessions_created
            );
        }
        Some(key) if file.sessions_created > 0 => {
            let _ = write!(line, " new session {key}:");
        }
        Some(key) => {
            let _ = write!(line, " session {key}:");
        }
        None => line.push_str(" no conversation:"),
    }
    let _ = write!(
        line,
        " {} imported, {} already present",
        count(file.imported, "message"),
        file.already_present
    );
    if let Some(problem) = &file.problem {
        let _ = write!(line, "; {problem}");
    }
    line
}

/// Indexes everything pending, with a progress bar on a terminal unless
/// `quiet`; returns the number of messages indexed.
fn index_pending(store: &Store, quiet: bool) -> Result<i64, Failure> {
    let mut progress = store.reconcile(RECONCILE_ROWS)?;
    let mut indexed = progress.indexed;
    if progress.done {
        return Ok(indexed);
    }
    let bar = match quiet {
        true => ProgressBar::hidden(),
        false => ProgressBar::new(0),
    };
    bar.set_length((indexed + progress.pending) as u64);
    bar.set_style(
        ProgressStyle::with_template("indexing {bar:40} {pos}/{len} messages, {eta} left{msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_position(indexed as u64);
    while !progress.done {
        progress = store.reconcile(RECONCILE_ROWS)?;
        indexed += progress.indexed;
        bar.set_length((indexed + progress.pending) as u64);
        bar.set_position(indexed as u64);
        if progress.compacting {
            bar.set_message("; merging the index into one segment");
        }
    }
    bar.finish_and_clear();
    Ok(indexed)
}

/// `--since`: unix ms, or the start of an ISO 8601 date or date-time.
fn since(text: &str) -> Result<i64, String> {
    time_bound(text, false)
}

/// `--until`: unix ms, or the end of an ISO 8601 date or a date-time.
fn until(text: &str) -> Result<i64, String> {
    time_bound(text, true)
}

fn time_bound(text: &str, end_of_day: bool) -> Result<i64, String> {
    if let Ok(ms) = text.trim().parse::<i64>() {
        return Ok(ms);
    }
    let ms = parse_iso8601(text).map_err(|e| e.to_string())?;
    let date_only = text.trim().len() == "2025-01-31".len();
    Ok(if end_of_day && date_only {
        ms + MS_PER_DAY - 1
    } else {
        ms
    })
}

/// Whose view a search or list takes: `--caller` (resolved) at
/// `--visibility` (default tree), or without a caller the database owner's,
/// every session.
fn viewer(
    store: &Store,
    caller: &Option<String>,
    visibility: Option<VisibilityArg>,
) -> Result<(String, Visibility), Failure> {
    match (caller, visibility) {
        (Some(caller), v) => Ok((
            resolve_session_key(store, caller)?,
            v.map_or(Visibility::Tree, Visibility::from),
        )),
        (None, None | Some(VisibilityArg::All)) => Ok((first_session(store)?, Visibility::All)),
        (None, Some(_)) => Err(Failure::Message(
            "--visibility other than all needs --caller <session_key>, the session whose view is used".into(),
        )),
    }
}

/// `search`: the options from the arguments, the search, then the hits
/// (full matches before partial ones) and the notes for people.
fn search(
    store: &Store,
    args: &SearchArgs,
    human: &Human,
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let options = search_options(store, args, human)?;
    if args.json {
        let json = sql_json(store, "sessions_search", &args.query, &options)?;
        writeln!(out, "{json}")?;
        let response: SearchResponse = serde_json::from_str(&json)?;
        return Ok(found(!response.results.is_empty()));
    }
    let response = store.search(&SearchRequest {
        query: args.query.clone(),
        options,
    })?;
    let query = Query::parse(&args.query).ok();
    let question = query.as_ref().map(Question::new);
    let mut partial_heading = false;
    for hit in &response.results {
        if hit.partial && !partial_heading {
            partial_heading = true;
            write_partial_heading(&response, human, out)?;
        }
        write_hit(store, hit, query.as_ref(), question.as_ref(), human, out)?;
    }
    search_notes(&response, human);
    Ok(found(!response.results.is_empty()))
}

/// The search options the arguments ask for, session keys resolved.
fn search_options(
    store: &Store,
    args: &SearchArgs,
    human: &Human,
) -> Result<SearchOptions, Failure> {
    let (caller, visibility) = viewer(store, &args.caller, args.visibility)?;
    let sessions = args
        .sessions
        .iter()
        .map(|text| resolve_session_key(store, text))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SearchOptions {
        caller: Some(caller),
        visibility,
        limit: at_most(args.limit, search::LIMIT, "--limit", human),
        group_by: args.group_by.map(|GroupByArg::Session| GroupBy::Session),
        roles: (!args.role.is_empty()).then(|| {
            args.role
                .iter()
                .map(|role| match role {
                    RoleArg::User => Role::User,
                    RoleArg::Assistant => Role::Assistant,
                })
                .collect()
        }),
        since: args.since,
        until: args.until,
        session_keys: (!sessions.is_empty()).then_some(sessions),
        order: match args.order {
            OrderArg::Relevance => Order::Relevance,
            OrderArg::Recent => Order::Recent,
        },
        ..SearchOptions::default()
    })
}

/// The heading above the first partial match, saying whether full matches
/// came before it.
fn write_partial_heading(
    response: &SearchResponse,
    human: &Human,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let heading = if response.results.iter().any(|hit| !hit.partial) {
        "Partial matches: messages with only some of the words"
    } else {
        "No message has every word; partial matches: messages with some of them"
    };
    writeln!(out, "{}\n", human.style.bold(heading))?;
    Ok(())
}

/// One hit: its session, time, role and message, what a partial match
/// matched, the session's origin, and the excerpt with its matches
/// highlighted.
fn write_hit(
    store: &Store,
    hit: &Hit,
    query: Option<&Query>,
    question: Option<&Question>,
    human: &Human,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    write!(
        out,
        "{}  {}  {}  {}",
        human.style.bold(&hit.session_key),
        human.time(hit.timestamp),
        hit.role,
        hit.message_id
    )?;
    if let Some(hits) = hit.hits {
        write!(out, "  ({} in the session)", count(hits as usize, "hit"))?;
    }
    if hit.partial {
        write!(out, "  (matched: {})", hit.matched.join(", "))?;
    }
    writeln!(out)?;
    human.write_origin(store, &hit.session_key, out)?;
    let spans = match (query, question) {
        (Some(_), Some(question)) if hit.partial => question.match_spans(&hit.snippet),
        (Some(query), _) => query.match_spans(&hit.snippet),
        _ => Vec::new(),
    };
    writeln!(out, "  {}\n", human.style.highlight(&hit.snippet, &spans))?;
    Ok(())
}

/// The notes after the hits: nothing found, words no visible message holds,
/// more matches than shown, and the search's own warning.
fn search_notes(response: &SearchResponse, human: &Human) {
    if response.results.is_empty() {
        human.note("No matches.");
    }
    let unmatched: Vec<&str> = response
        .terms
        .iter()
        .flatten()
        .filter(|term| term.messages == Some(0) && term.other_forms.unwrap_or(0) == 0)
        .map(|term| term.term.as_str())
        .collect();
    if !unmatched.is_empty() {
        human.note(&format!(
            "No message you can see holds: {}. Leave out or replace those words.",
            unmatched.join(", ")
        ));
    }
    if response.truncated {
        human.note(
            "More matches exist than were shown; raise --limit (at most 25) or narrow the search.",
        );
    }
    if let Some(warning) = &response.warning {
        human.note(&format!("Note: {warning}."));
    }
}

fn list(
    store: &Store,
    args: &ListArgs,
    human: &Human,
    out: &mut dyn Write,
) -> Result<ExitCode, Failure> {
    let (caller, visibility) = viewer(store, &args.caller, args.visibility)?;
    let options = ListOptions {
        caller: Some(caller),
        visibility,
        agent: args.agent.clone(),
        prefix: args.prefix.clone(),
        since: args.since,
        until: args.until,
        limit: at_most(args.limit, list::LIMIT, "--limit", human),
        offset: args.offset,
        ..ListOptions::default()
    };
    if args.json {
        let options = serde_json::to_string(&options)?;
        let json: String =
            store
                .connection()
                .query_row("SELECT sessions_list(?1)", [&options], |row| row.get(0))?;
        writeln!(out, "{json}")?;
        let response: ListResponse = serde_json::from_str(&json)?;
        return Ok(found(!response.sessions.is_empty()));
    }
    let response = store.list(&options)?;
    for session in &response.sessions {
        let messages = count(session.messages as usize, "message");
        writeln!(
            out,
            "{}  {}  {}  {messages}",
            human.style.bold(&session.session_key),
            human.time(session.last_activity),
            session.agent_id
        )?;
        human.write_origin(store, &session.session_key, out)?;
        if !session.title.is_empty() {
            writeln!(out, "  {}", session.title)?;
        }
        writeln!(out)?;
    }
    if response.sessions.is_empty() {
        human.note("No sessions.");
    }
    if response.truncated {
        let next = args.offset.unwrap_or(0) + response.sessions.len() as i64;
        human.note(&format!(
            "More sessions follow; see them with --offset {next}."
        ));
    }
    Ok(found(!response.sessions.is_empty()))
}

/// The smallest session key: the nominal caller of a search of everything.
fn first_session(store: &Store) -> Result<String, Failure> {
    store
        .connection()
        .query_row(
            "SELECT session_key FROM sessions ORDER BY session_key LIMIT 1",
            [],
            |row| row.get(0),
        )
        .optional()?
        .ok_or_else(|| {
            Failure::Message(
                "the database has no sessions yet; import transcripts with: session-search import <path>"
                    .into(),
            )
        })
}

/// `SELECT <function>(?1, <options as JSON>)`: the SQL function's own text.
fn sql_json(
    store: &Store,
    function: &str,
    first: &str,
    options: &impl Serialize,
) -> Result<String, Failure> {
    let options = serde_json::to_string(options)?;
    Ok(store.connection().query_row(
        &format!("SELECT {function}(?1, ?2)"),
        [first, &options],
        |row| row.get(0),
    )?)
}

fn history(
    store: &Store,
    args: &HistoryArgs,
    human: &Human,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let session = resolve_session_key(store, &args.session)?;
    let (caller, visibility) = match &args.caller {
        Some(caller) => (
            resolve_session_key(store, caller)?,
            args.visibility.map_or(Visibility::Tree, Visibility::from),
        ),
        None => (
            session.clone(),
            args.visibility.map_or(Visibility::Own, Visibility::from),
        ),
    };
    let options = HistoryOptions {
        caller: Some(caller),
        visibility,
        around: args.around.clone().map(MessageRef::Text),
        before: at_most(args.before, history::AROUND, "--before", human),
        after: at_most(args.after, history::AROUND, "--after", human),
        limit: at_most(args.limit, history::LIMIT, "--limit", human),
        ..HistoryOptions::default()
    };
    if args.json {
        writeln!(
            out,
            "{}",
            sql_json(store, "sessions_history", &session, &options)?
        )?;
        return Ok(());
    }
    let response = store.history(&session, &options)?;
    writeln!(out, "{}", human.style.bold(&session))?;
    human.write_origin(store, &session, out)?;
    writeln!(out)?;
    if response.before > 0 {
        writeln!(
            out,
            "({} not shown)\n",
            count(response.before, "earlier message")
        )?;
    }
    for message in &response.messages {
        writeln!(
            out,
            "{}  {}  {}",
            human.time(message.timestamp),
            human.style.bold(message.role.as_str()),
            message.message_id
        )?;
        for line in message.text.lines() {
            writeln!(out, "  {line}")?;
        }
        writeln!(out)?;
    }
    if response.after > 0 {
        writeln!(
            out,
            "({} not shown)",
            count(response.after, "later message")
        )?;
    }
    if response.truncated {
        human.note("Some text was cut; use --json and maxChars-sized windows to read more.");
    }
    Ok(())
}

fn status(db: &Path, store: &Store, json: bool, out: &mut dyn Write) -> Result<(), Failure> {
    if json {
        let text: String = store
            .connection()
            .query_row("SELECT sessions_status()", [], |row| row.get(0))?;
        writeln!(out, "{text}")?;
        return Ok(());
    }
    let sessions: i64 =
        store
            .connection()
            .query_row("SELECT count(*) FROM sessions", [], |row| row.get(0))?;
    let status = store.status()?;
    writeln!(out, "database           {}", db.display())?;
    writeln!(out, "sessions           {sessions}")?;
    writeln!(out, "messages           {}", status.messages)?;
    writeln!(out, "indexed            {}", status.indexed)?;
    writeln!(out, "pending            {}", status.pending)?;
    writeln!(out, "indexing           {}", status.indexing.name())?;
    writeln!(out, "tokenizer version  {}", status.tokenizer_version)?;
    writeln!(out, "schema version     {}", status.schema_version)?;
    writeln!(
        out,
        "integrity          {}",
        status.integrity.as_deref().unwrap_or("not checked")
    )?;
    if let Some(segments) = status.segments {
        writeln!(out, "index segments     {segments}")?;
    }
    Ok(())
}

/// How output for people looks, from the global flags.
struct Human {
    /// Times are shown in it: the system's time zone, or UTC with --utc.
    zone: TimeZone,
    /// --quiet: nothing for people but results (no notes, progress bars,
    /// per-file lines or totals).
    quiet: bool,
    style: Style,
    /// Shown as `~` at the start of working directories.
    home: Option<PathBuf>,
}

impl Human {
    fn new(utc: bool, quiet: bool) -> Human {
        Human {
            zone: match utc {
                true => TimeZone::UTC,
                false => TimeZone::system(),
            },
            quiet,
            style: Style::for_stdout(),
            home: std::env::var_os("HOME")
                .filter(|home| !home.is_empty())
                .map(PathBuf::from),
        }
    }

    /// Unix ms as `2025-11-02 11:00:02 +01:00` in the zone shown (beyond
    /// the years -9999 to 9999, as ISO 8601 in UTC).
    fn time(&self, ms: i64) -> String {
        match jiff::Timestamp::from_millisecond(ms) {
            Ok(time) => time
                .to_zoned_datetime(self.zone.clone())
                .strftime("%Y-%m-%d %H:%M:%S %:z")
                .to_string(),
            Err(_) => format_iso8601(ms),
        }
    }

    /// A note on stderr, unless --quiet.
    fn note(&self, text: &str) {
        if !self.quiet {
            eprintln!("{text}");
        }
    }

    /// The dim line under a session's first: where it ran and the command
    /// that resumes it, as far as its importer recorded them.
    fn write_origin(
        &self,
        store: &Store,
        session: &str,
        out: &mut dyn Write,
    ) -> Result<(), Failure> {
        let Some(origin) = origin(store, session)? else {
            return Ok(());
        };
        let parts: Vec<String> = origin
            .cwd
            .as_deref()
            .map(|cwd| self.place(cwd))
            .into_iter()
            .chain(origin.resume_command())
            .collect();
        if !parts.is_empty() {
            writeln!(out, "  {}", self.style.dim(&parts.join(" · ")))?;
        }
        Ok(())
    }

    /// A directory, with the home directory as `~`.
    fn place(&self, dir: &str) -> String {
        let inside = self
            .home
            .as_deref()
            .and_then(|home| Path::new(dir).strip_prefix(home).ok());
        match inside {
            Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
            Some(rest) => format!("~/{}", rest.display()),
            None => dir.to_owned(),
        }
    }
}

/// Terminal styling: ANSI colour only when stdout is a terminal and
/// `NO_COLOR` is unset or empty.
struct Style {
    colour: bool,
}

impl Style {
    fn for_stdout() -> Style {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            colour: std::io::stdout().is_terminal() && !no_color,
        }
    }

    fn bold(&self, text: &str) -> String {
        self.sgr("1", text)
    }

    fn dim(&self, text: &str) -> String {
        self.sgr("2", text)
    }

    /// `text` in the graphic rendition `code`.
    fn sgr(&self, code: &str, text: &str) -> String {
        match self.colour {
            true => format!("\x1b[{code}m{text}\x1b[0m"),
            false => text.to_owned(),
        }
    }

    /// `text` with the byte ranges `spans` (sorted, possibly overlapping) in
    /// bold red.
    fn highlight(&self, text: &str, spans: &[Range<usize>]) -> String {
        if !self.colour {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut done = 0;
        for span in spans {
            let start = span.start.max(done);
            let (Some(before), Some(matched)) = (text.get(done..start), text.get(start..span.end))
            else {
                continue;
            };
            if matched.is_empty() {
                continue;
            }
            out.push_str(before);
            let _ = write!(out, "\x1b[1;31m{matched}\x1b[0m");
            done = span.end;
        }
        out.push_str(text.get(done..).unwrap_or_default());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlight_marks_matches_on_character_boundaries() {
        let style = Style { colour: true };
        let text = "Déploiement à 東京, déploiement";
        let spans = Query::parse("deploiement 東京").unwrap().match_spans(text);
        assert_eq!(
            style.highlight(text, &spans),
            "\x1b[1;31mDéploiement\x1b[0m à \x1b[1;31m東京\x1b[0m, \x1b[1;31mdéploiement\x1b[0m"
        );
        assert_eq!(
            style.highlight("abcdef", &[0..3, 1..4, 10..12]),
            "\x1b[1;31mabc\x1b[0m\x1b[1;31md\x1b[0mef"
        );
        assert_eq!(Style { colour: false }.highlight(text, &spans), text);
    }

    #[test]
    fn time_bounds() {
        assert_eq!(since("1700000000000"), Ok(1_700_000_000_000));
        assert_eq!(since("1970-01-02"), Ok(MS_PER_DAY));
        assert_eq!(until("1970-01-02"), Ok(2 * MS_PER_DAY - 1));
        assert_eq!(until("1970-01-02T00:00:00Z"), Ok(MS_PER_DAY));
        assert!(since("last tuesday")
            .unwrap_err()
            .contains("\"last tuesday\""));
    }

    #[test]
    fn arguments_parse() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
