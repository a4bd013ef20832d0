//! The `session-search` command line, run as a user runs it, on a temporary
//! database.

mod common;

use common::LOCATION_VARIABLES;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CHECKOUT: &str = "openclaw:7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c";
const POSTMORTEM: &str = "openclaw:3e9d2c1b-8a7f-4c6e-b5d4-1a2b3c4d5e6f";
const REFUNDS: &str = "codex:0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80";
const MAIN: &str = "claude-code:4b2030ed-5563-49ea-b703-6a002f2d3cc8";

fn fixtures(format: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(format)
}

fn claude_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/claude-code")
}

/// The binary with a clean environment: no database or colour settings
/// inherited from the caller, times in UTC unless `env` sets `TZ`.
fn command(env: &[(&str, &Path)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_session-search"));
    for name in LOCATION_VARIABLES
        .iter()
        .chain(&["SESSION_SEARCH_DB", "NO_COLOR"])
    {
        command.env_remove(name);
    }
    command.env("TZ", "UTC");
    for (name, value) in env {
        command.env(name, value);
    }
    command
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
        }
    }
}

/// Runs `session-search --db <db> <args>`.
fn run(db: &Path, args: &[&str]) -> Run {
    run_with(db, &[], args)
}

/// Runs `session-search --db <db> <args>` with `env` set.
fn run_with(db: &Path, env: &[(&str, &Path)], args: &[&str]) -> Run {
    command(env)
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .unwrap()
        .into()
}

fn ok(db: &Path, args: &[&str]) -> String {
    let run = run(db, args);
    assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    run.stdout
}

/// Fails with exit code 2 and one line on stderr, which is returned.
fn fails(db: &Path, args: &[&str]) -> String {
    let run = run(db, args);
    assert_eq!(
        run.code, 2,
        "{args:?} should fail: {}{}",
        run.stdout, run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.starts_with("session-search: "), "{}", run.stderr);
    run.stderr
}

/// `search --json <args>`: its results, found (exit status 0) or none
/// (exit status 1).
fn results(db: &Path, args: &[&str]) -> Vec<Value> {
    let mut full = vec!["search", "--json"];
    full.extend_from_slice(args);
    let run = run(db, &full);
    let results = json(&run.stdout)["results"].as_array().unwrap().clone();
    assert_eq!(
        run.code,
        i32::from(results.is_empty()),
        "{full:?}: {}",
        run.stderr
    );
    results
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// A database with every fixture imported.
fn imported() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let claude = claude_fixtures();
    let openclaw = fixtures("openclaw");
    let codex = fixtures("codex");
    let out = ok(
        &db,
        &[
            "import",
            claude.to_str().unwrap(),
            openclaw.to_str().unwrap(),
            codex.to_str().unwrap(),
        ],
    );
    assert!(
        out.contains("Imported 61 messages into 8 new sessions from 8 files; 0 messages already present; 2 lines skipped."),
        "{out}"
    );
    (dir, db)
}

#[test]
fn import_reports_files_issues_and_totals_and_is_idempotent() {
    let (_dir, db) = imported();
    let again = ok(&db, &["import", claude_fixtures().to_str().unwrap()]);
    assert!(
        again.contains("Imported 0 messages into 0 new sessions from 3 files; 30 messages already present; 2 lines skipped."),
        "{again}"
    );
    // The comment lines of the images transcript, with their numbers.
    assert!(
        again.contains("images-in-user-messages.jsonl: claude-code, session "),
        "{again}"
    );
    assert!(again.contains("  line 1: skipped: not JSON"), "{again}");
    assert!(again.contains("  line 2: skipped: not JSON"), "{again}");
    assert!(again.contains("progress 6"), "{again}");

    let report = json(&ok(
        &db,
        &["import", "--json", fixtures("codex").to_str().unwrap()],
    ));
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[1]["session_key"], REFUNDS);
    assert_eq!(files[1]["already_present"], 12);
    assert_eq!(files[1]["format"], "codex");
}

#[test]
fn import_problems() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let missing = dir.path().join("missing");
    let stderr = fails(&db, &["import", missing.to_str().unwrap()]);
    assert!(
        stderr.contains("cannot read") && stderr.contains("missing"),
        "{stderr}"
    );

    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = ok(&db, &["import", empty.to_str().unwrap()]);
    assert!(
        out.contains(&format!(
            "No transcripts of a known format ({}) found in",
            session_search_import::Format::names()
        )),
        "{out}"
    );

    let other = dir.path().join("other.jsonl");
    std::fs::write(&other, "{\"hello\":1}\n").unwrap();
    let out = ok(&db, &["import", other.to_str().unwrap()]);
    assert!(
        out.contains("other.jsonl: not a transcript of a known format"),
        "{out}"
    );

    let stderr = run(
        &db,
        &["import", "--format", "claude", other.to_str().unwrap()],
    )
    .stderr;
    assert!(stderr.contains("'claude'"), "{stderr}");
    // The error and the help name every format the importers read.
    let help = ok(&db, &["import", "--help"]);
    for format in session_search_import::Format::ALL.map(|format| format.name()) {
        assert!(stderr.contains(format), "{format}: {stderr}");
        assert!(help.contains(format), "{format}: {help}");
    }
}

#[test]
fn search_prints_exactly_the_sql_json() {
    let (_dir, db) = imported();
    let out = ok(&db, &["search", "checkout", "--caller", CHECKOUT, "--json"]);
    assert_eq!(out.lines().count(), 1);
    let response = json(&out);
    let sessions: Vec<&str> = response["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["sessionKey"].as_str().unwrap())
        .collect();
    assert_eq!(sessions.len(), 4);
    assert!(sessions.iter().all(|s| [CHECKOUT, POSTMORTEM].contains(s)));

    // The same text the SQL function returns.
    let conn = session_search::open(&db).unwrap();
    let sql: String = conn
        .query_row(
            "SELECT sessions_search('checkout', ?1)",
            [format!(r#"{{"caller":"{CHECKOUT}"}}"#)],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(out.trim_end(), sql);
}

#[test]
fn search_options() {
    let (_dir, db) = imported();
    let keys = |args: &[&str]| -> Vec<String> {
        results(&db, args)
            .iter()
            .map(|hit| {
                format!(
                    "{} {}",
                    hit["sessionKey"].as_str().unwrap(),
                    hit["role"].as_str().unwrap()
                )
            })
            .collect()
    };
    // Without a caller: every session.
    let everywhere = keys(&["idempotency"]);
    assert!(everywhere.iter().all(|k| k.starts_with(REFUNDS)));
    assert_eq!(everywhere.len(), 3);
    assert_eq!(keys(&["idempotency", "--role", "user"]).len(), 1);
    assert_eq!(
        keys(&["idempotency", "--role", "assistant", "--role", "user"]).len(),
        3
    );
    assert_eq!(keys(&["idempotency", "--limit", "1"]).len(), 1);
    // Dates: the Codex session is from June, the OpenClaw ones November.
    assert_eq!(keys(&["idempotency", "--since", "2025-06-04"]).len(), 0);
    assert_eq!(keys(&["idempotency", "--until", "2025-06-03"]).len(), 3);
    assert_eq!(
        keys(&["idempotency", "--until", "2025-06-03T09:15:00Z"]).len(),
        2
    );
    assert_eq!(keys(&["idempotency", "--since", "1748942100000"]).len(), 1);
    assert_eq!(
        keys(&["checkout", "--caller", CHECKOUT, "--visibility", "self"]),
        [format!("{CHECKOUT} assistant"), format!("{CHECKOUT} user")]
    );
    assert_eq!(keys(&["checkout", "--session", POSTMORTEM]).len(), 2);
    // Visibility fails closed.
    assert!(keys(&["idempotency", "--caller", CHECKOUT]).is_empty());
    let stderr = fails(&db, &["search", "checkout", "--visibility", "tree"]);
    assert!(stderr.contains("--caller"), "{stderr}");
    let stderr = fails(&db, &["search", "checkout", "--caller", "nobody"]);
    assert!(stderr.contains("nobody"), "{stderr}");
    let stderr = fails(&db, &["search", "   "]);
    assert!(stderr.contains("empty"), "{stderr}");
    // clap refuses bad values before anything runs.
    let run = run(&db, &["search", "x", "--since", "last tuesday"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("\"last tuesday\" is not an ISO 8601 date"),
        "{}",
        run.stderr
    );
}

#[test]
fn search_for_people_without_colour_off_a_terminal() {
    let (_dir, db) = imported();
    let out = ok(&db, &["search", "robot icon"]);
    assert!(!out.contains('\x1b'), "{out:?}");
    assert!(out.starts_with("claude-code:47bf5f5c-9e11-4f51-8a29-7ad38ecdf17c  2026-02-03 06:18:03 +00:00  assistant  488dd89d"), "{out}");
    assert!(
        out.contains("\n  This is an image of a friendly robot icon."),
        "{out}"
    );

    let run = run(&db, &["search", "frobnicated quux words anywhere"]);
    assert_eq!((run.code, run.stdout.as_str()), (1, ""));
    assert_eq!(
        run.stderr,
        "No matches.\nNo message you can see holds: frobnicated, quux, words, anywhere. \
         Leave out or replace those words.\n"
    );
}

#[test]
fn partial_matches_come_under_their_own_heading_with_the_words_they_hold() {
    let (_dir, db) = imported();
    let out = ok(&db, &["search", "checkout postmortem"]);
    let (full, partial) = out
        .split_once("Partial matches: messages with only some of the words\n\n")
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        full.starts_with("openclaw:3e9d2c1b-8a7f-4c6e-b5d4-1a2b3c4d5e6f  2025-11-02 10:00:02 +00:00  user  c0000001\n"),
        "{out}"
    );
    assert!(!full.contains("matched:"), "{out}");
    assert!(
        partial.starts_with("openclaw:3e9d2c1b-8a7f-4c6e-b5d4-1a2b3c4d5e6f  2025-11-02 10:00:30 +00:00  assistant  c0000002  (matched: checkout)\n"),
        "{out}"
    );
    // Nothing holds every word: the heading says so, and stderr names the
    // word that matched nothing.
    let run = run(&db, &["search", "checkout outage zebra"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with(
            "No message has every word; partial matches: messages with some of them\n\n\
             openclaw:3e9d2c1b-8a7f-4c6e-b5d4-1a2b3c4d5e6f  2025-11-02 10:00:02 +00:00  user  c0000001  (matched: checkout, outage)\n"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stderr,
        "No message you can see holds: zebra. Leave out or replace those words.\n"
    );
    // Another form of a word: `refunds` and `refund_retry…` for `refunded`.
    let out = ok(&db, &["search", "refunded"]);
    assert!(out.contains("(matched: refunded)"), "{out}");
}

#[test]
fn history_of_a_session() {
    let (_dir, db) = imported();
    let out = ok(&db, &["history", POSTMORTEM]);
    assert_eq!(
        out,
        "openclaw:3e9d2c1b-8a7f-4c6e-b5d4-1a2b3c4d5e6f\n  /home/dev/shop\n\n\
         2025-11-02 10:00:02 +00:00  user  c0000001\n  Write the postmortem for the checkout outage.\n\n\
         2025-11-02 10:00:30 +00:00  assistant  c0000002\n  Draft: on 2 November a release missing a dependency took checkout down for 14 minutes.\n\n"
    );
    let window = json(&ok(
        &db,
        &[
            "history", REFUNDS, "--around", "L12", "--before", "1", "--after", "1", "--json",
        ],
    ));
    let ids: Vec<&str> = window["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["messageId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["L10", "L12", "L15"]);
    assert_eq!(
        (window["before"].as_i64(), window["after"].as_i64()),
        (Some(6), Some(3))
    );

    let out = ok(&db, &["history", REFUNDS, "--limit", "2"]);
    assert!(
        out.contains("\n\n(10 earlier messages not shown)\n"),
        "{out}"
    );
    // Reading another session needs a caller that sees it.
    ok(&db, &["history", POSTMORTEM, "--caller", CHECKOUT]);
    let stderr = fails(&db, &["history", CHECKOUT, "--caller", POSTMORTEM]);
    assert!(
        stderr.contains("not visible") || stderr.contains("visible"),
        "{stderr}"
    );
    fails(&db, &["history", MAIN, "--around", "no-such-message"]);
}

#[test]
fn status_and_reconcile() {
    let (_dir, db) = imported();
    let out = ok(&db, &["status"]);
    assert!(out.contains("sessions           8\n"), "{out}");
    assert!(out.contains("messages           61\n"), "{out}");
    assert!(out.contains("pending            0\n"), "{out}");
    assert!(out.contains("integrity          ok\n"), "{out}");
    assert!(out.contains("index segments     1\n"), "{out}");
    let status = json(&ok(&db, &["status", "--json"]));
    assert_eq!(status["messages"], 61);
    assert_eq!(status["integrity"], "ok");

    let conn = session_search::open(&db).unwrap();
    conn.query_row("SELECT sessions_set_indexing('deferred')", [], |_| Ok(()))
        .unwrap();
    conn.execute_batch(&format!(
        "INSERT INTO messages(session_key, role, content, created_at) VALUES ('{CHECKOUT}', 'user', 'zebra crossing', 1762080000000);"
    ))
    .unwrap();
    drop(conn);
    assert_eq!(
        ok(&db, &["reconcile"]),
        "Indexed 1 message; none pending.\n"
    );
    assert!(ok(&db, &["search", "zebra", "--json"]).contains("zebra crossing"));
    assert_eq!(ok(&db, &["reconcile", "--json"]), "{\"indexed\":0}\n");
}

#[test]
fn stored_redaction_patterns_re_index() {
    let (_dir, db) = imported();
    let conn = session_search::open(&db).unwrap();
    conn.execute_batch(&format!(
        "INSERT INTO messages(session_key, role, content, created_at) VALUES ('{CHECKOUT}', 'user', 'ticket ACME-482915 for the zebra rollout', 1762080000000);"
    ))
    .unwrap();
    drop(conn);
    assert!(results(&db, &["482915"])[0]["snippet"]
        .as_str()
        .unwrap()
        .contains("ACME-482915"));
    assert_eq!(
        ok(&db, &["redact", "ACME-[0-9]{6}"]),
        "1 redaction pattern stored; re-indexed 38 messages.\n"
    );
    assert_eq!(
        ok(&db, &["redact", "ACME-[0-9]{6}"]),
        "1 redaction pattern stored; unchanged.\n"
    );
    assert_eq!(
        json(&ok(&db, &["redact", "ACME-[0-9]{6}", "--json"])),
        json(r#"{"patterns":1,"changed":false,"indexed":0}"#)
    );
    assert!(results(&db, &["482915"]).is_empty());
    assert!(ok(&db, &["search", "zebra", "--json"]).contains("ticket [REDACTED] for the zebra"));
    assert!(fails(&db, &["redact", "("]).contains("redaction pattern \"(\" is invalid"));
    assert_eq!(run(&db, &["redact"]).code, 2, "no pattern is a usage error");
    assert_eq!(
        json(&ok(&db, &["redact", "--clear", "--json"])),
        json(r#"{"patterns":0,"changed":true,"indexed":38}"#)
    );
    assert!(results(&db, &["482915"])[0]["snippet"]
        .as_str()
        .unwrap()
        .contains("ACME-482915"));
}

#[test]
fn a_file_that_is_not_a_database_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "these are my notes, not a database\n".repeat(100)).unwrap();
    for args in [&["status"][..], &["search", "notes"]] {
        let stderr = fails(&notes, args);
        assert!(stderr.contains("file is not a database"), "{stderr}");
    }
}

#[test]
fn a_database_indexed_by_a_newer_release_is_named_as_such_and_left_as_it_is() {
    let (_dir, db) = imported();
    let newer = rusqlite::Connection::open(&db).unwrap();
    newer
        .execute(
            "UPDATE session_search_meta SET value = value + 1 WHERE key = 'tokenizer_version'",
            [],
        )
        .unwrap();
    let state = || -> (String, i64) {
        newer
            .query_row(
                "SELECT (SELECT group_concat(key || '=' || value) FROM session_search_meta),
                        (SELECT sum(length(block)) FROM session_search_fts_data)",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .unwrap()
    };
    let before = state();
    let codex = fixtures("codex");
    for args in [
        &["search", "refund"][..],
        &["status"],
        &["reconcile"],
        &["import", codex.to_str().unwrap()],
    ] {
        let stderr = fails(&db, args);
        assert!(
            stderr.contains("built by a newer session-search") && stderr.contains("upgrade"),
            "{stderr}"
        );
    }
    assert_eq!(state(), before);
}

#[test]
fn the_default_database() {
    let dir = tempfile::tempdir().unwrap();
    let codex = fixtures("codex");

    let data = dir.path().join("data");
    let out = command(&[("XDG_DATA_HOME", &data)])
        .args(["import", codex.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(data.join("sqlite-session-search/sessions.db").is_file());

    let explicit = dir.path().join("explicit.db");
    let out = command(&[("SESSION_SEARCH_DB", &explicit), ("XDG_DATA_HOME", &data)])
        .args(["import", codex.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(explicit.is_file());

    let home = dir.path().join("home");
    let out: Run = command(&[("HOME", &home)])
        .args(["status"])
        .output()
        .unwrap()
        .into();
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("no database at")
            && out
                .stderr
                .contains(".local/share/sqlite-session-search/sessions.db"),
        "{}",
        out.stderr
    );
}

/// The mode bits of `path`.
#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[test]
fn import_creates_the_database_and_its_folders_for_their_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let codex = fixtures("codex");
    let data = dir.path().join("data");
    let env: &[(&str, &Path)] = &[("XDG_DATA_HOME", &data)];
    let out = command(env)
        .args(["import", codex.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let folder = data.join("sqlite-session-search");
    let db = folder.join("sessions.db");
    assert_eq!(
        [mode(&data), mode(&folder), mode(&db)],
        [0o700, 0o700, 0o600]
    );

    // Its -wal and -shm, while a command has it open.
    let mut mcp = command(env)
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let (wal, shm) = (
        folder.join("sessions.db-wal"),
        folder.join("sessions.db-shm"),
    );
    let start = std::time::Instant::now();
    while !(wal.exists() && shm.exists()) {
        assert!(
            start.elapsed().as_secs() < 30,
            "no -wal and -shm while mcp runs"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!([mode(&wal), mode(&shm)], [0o600, 0o600]);
    mcp.kill().unwrap();
    mcp.wait().unwrap();

    // A folder and a database file the user made keep their modes.
    let own = dir.path().join("own");
    std::fs::create_dir(&own).unwrap();
    std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o755)).unwrap();
    let db = own.join("sessions.db");
    std::fs::File::create(&db).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    ok(&db, &["import", codex.to_str().unwrap()]);
    assert_eq!([mode(&own), mode(&db)], [0o755, 0o644]);
}

#[test]
fn list_shows_every_session_newest_activity_first_with_pages_and_filters() {
    let (_dir, db) = imported();
    let all = json(&ok(&db, &["list", "--json", "--limit", "100"]));
    let sessions = all["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 8);
    let times: Vec<i64> = sessions
        .iter()
        .map(|s| s["lastActivity"].as_i64().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    let total: i64 = sessions
        .iter()
        .map(|s| s["messages"].as_i64().unwrap())
        .sum();
    assert_eq!(total, 61);
    let checkout = sessions
        .iter()
        .find(|s| s["sessionKey"] == CHECKOUT)
        .unwrap();
    assert!(
        !checkout["title"].as_str().unwrap().is_empty(),
        "{checkout}"
    );

    // Two pages of four are the whole list, in order.
    let first = json(&ok(&db, &["list", "--json", "--limit", "4"]));
    assert_eq!(first["truncated"], true);
    let second = json(&ok(
        &db,
        &["list", "--json", "--limit", "4", "--offset", "4"],
    ));
    assert!(second.get("truncated").is_none(), "{second}");
    let paged: Vec<&Value> = first["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second["sessions"].as_array().unwrap())
        .collect();
    assert_eq!(paged, sessions.iter().collect::<Vec<_>>());

    // Filters and the caller's view.
    let codex = json(&ok(&db, &["list", "--json", "--prefix", "codex:"]));
    assert!(codex["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["sessionKey"].as_str().unwrap().starts_with("codex:")));
    let own = json(&ok(
        &db,
        &[
            "list",
            "--json",
            "--caller",
            REFUNDS,
            "--visibility",
            "self",
        ],
    ));
    assert_eq!(own["sessions"].as_array().unwrap().len(), 1);
    assert_eq!(own["sessions"][0]["sessionKey"], REFUNDS);

    // The readable form: key, time, agent, count, title; then paging advice.
    let run = run(&db, &["list", "--limit", "2"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(" messages\n  "), "{}", run.stdout);
    assert!(run.stderr.contains("--offset 2"), "{}", run.stderr);

    let err = fails(&db, &["list", "--visibility", "tree"]);
    assert!(err.contains("--caller"), "{err}");
    let err = fails(&db, &["list", "--limit", "0"]);
    assert!(err.contains("limit must be between 1 and 100"), "{err}");
}

#[test]
fn a_limit_above_the_most_shows_the_most_with_a_note() {
    let (_dir, db) = imported();
    let listed = run(&db, &["list", "--limit", "101"]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert_eq!(
        listed.stderr,
        "--limit 101 is more than the most there can be; showing 100.\n"
    );
    let searched = run(&db, &["search", "the", "--limit", "50", "--json"]);
    assert_eq!(searched.code, 0, "{}", searched.stderr);
    let hits = json(&searched.stdout)["results"].as_array().unwrap().len();
    assert!(hits > 10 && hits <= 25, "{hits}");
    let read = run(&db, &["history", "4b2030ed", "--limit", "500"]);
    assert_eq!(read.code, 0, "{}", read.stderr);
    assert!(read.stderr.contains("showing 200"), "{}", read.stderr);
}

#[test]
fn grouped_search_shows_each_sessions_best_hit_and_count() {
    let (_dir, db) = imported();
    let out = ok(&db, &["search", "the", "--group-by", "session"]);
    let firsts: Vec<&str> = out
        .lines()
        .filter(|line| line.contains(" in the session)"))
        .map(|line| line.split_whitespace().next().unwrap())
        .collect();
    let distinct: std::collections::BTreeSet<&&str> = firsts.iter().collect();
    assert!(firsts.len() > 1, "{out}");
    assert_eq!(distinct.len(), firsts.len(), "{out}");
    let grouped = json(&ok(
        &db,
        &["search", "the", "--group-by", "session", "--json"],
    ));
    assert!(grouped["results"][0]["hits"].as_i64().unwrap() >= 1);
}

#[test]
fn every_error_starts_with_the_commands_name() {
    let (_dir, db) = imported();
    for args in [
        &["search", "--bogus", "x"][..],
        &["history", "nobody"],
        &["list", "--limit", "x"],
    ] {
        let failed = run(&db, args);
        assert_eq!(failed.code, 2, "{args:?}");
        assert!(
            failed.stderr.starts_with("session-search: "),
            "{args:?}: {}",
            failed.stderr
        );
        assert!(
            !failed.stderr.contains("error:"),
            "{args:?}: {}",
            failed.stderr
        );
    }
}

#[test]
fn a_unique_start_of_a_session_key_will_do() {
    let (_dir, db) = imported();
    // The session id Claude Code shows is its session's, not a subagent's.
    let out = ok(
        &db,
        &[
            "history",
            "4b2030ed-5563-49ea-b703-6a002f2d3cc8",
            "--limit",
            "1",
        ],
    );
    assert!(out.starts_with(&format!("{MAIN}\n")), "{out}");
    // A start of the key, with or without its format.
    assert!(ok(&db, &["history", "codex:0197", "--limit", "1"]).starts_with(REFUNDS));
    assert!(ok(&db, &["history", "0197", "--limit", "1"]).starts_with(REFUNDS));
    let postmortem = json(&ok(&db, &["history", "3e9d", "--json"]));
    assert_eq!(postmortem["sessionKey"], POSTMORTEM);
    // --caller and --session.
    let hits = json(&ok(
        &db,
        &[
            "search",
            "checkout",
            "--caller",
            "7c1e",
            "--session",
            "3e9d",
            "--json",
        ],
    ));
    let sessions: Vec<&Value> = hits["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| &hit["sessionKey"])
        .collect();
    assert_eq!(sessions, [POSTMORTEM, POSTMORTEM]);
    let listed = json(&ok(
        &db,
        &["list", "--caller", "7c1e", "--visibility", "self", "--json"],
    ));
    assert_eq!(listed["sessions"][0]["sessionKey"], CHECKOUT);
    ok(&db, &["history", "3e9d", "--caller", "7c1e"]);

    // A start shared only by a session and its subagents is the session's.
    let out = ok(&db, &["history", "4b2030ed", "--limit", "1"]);
    assert!(out.starts_with(&format!("{MAIN}\n")), "{out}");
    let stderr = fails(&db, &["history", "c"]);
    assert!(
        stderr.starts_with("session-search: \"c\" starts 5 session keys, such as "),
        "{stderr}"
    );
    let stderr = fails(&db, &["search", "checkout", "--caller", "c"]);
    assert!(stderr.contains("\"c\" starts 5 session keys"), "{stderr}");
    let stderr = fails(&db, &["search", "checkout", "--session", "ffff"]);
    assert!(
        stderr.contains("no session key is or starts with \"ffff\""),
        "{stderr}"
    );
    // list's --prefix is a filter, not a key.
    let codex = json(&ok(&db, &["list", "--prefix", "codex:", "--json"]));
    assert_eq!(codex["sessions"].as_array().unwrap().len(), 2);
}

#[test]
fn sessions_show_where_they_ran_and_how_to_resume_them() {
    let (_dir, db) = imported();
    let home: &[(&str, &Path)] = &[("HOME", Path::new("/home/dev"))];
    let search = run_with(&db, home, &["search", "idempotency", "--limit", "1"]);
    assert_eq!(search.code, 0, "{}", search.stderr);
    assert!(
        search.stdout.starts_with(&format!(
            "{REFUNDS}  2025-06-03 09:14:31 +00:00  user  L6\n"
        )) && search
            .stdout
            .contains("\n  ~/payments · codex resume 0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80\n  "),
        "{}",
        search.stdout
    );

    let list = run_with(&db, home, &["list", "--limit", "100"]).stdout;
    // A subagent resumes with its session.
    let subagent = format!("{MAIN}:agent-a2018e5  2026-01-21 20:54:11 +00:00  claude-code  4 messages\n  /Users/pete/git/moredip/session-share · claude --resume 4b2030ed-5563-49ea-b703-6a002f2d3cc8\n  Perform a web search");
    assert!(list.contains(&subagent), "{list}");
    assert!(
        list.contains(&format!("{CHECKOUT}  2025-11-02 09:03:40 +00:00  main  "))
            && list.contains(" messages\n  ~/shop\n  The checkout page"),
        "{list}"
    );

    let history = run_with(&db, home, &["history", MAIN, "--limit", "1"]).stdout;
    assert!(
        history.starts_with(&format!(
            "{MAIN}\n  /Users/pete/git/moredip/session-share · claude --resume 4b2030ed-5563-49ea-b703-6a002f2d3cc8\n\n"
        )),
        "{history}"
    );

    // A session a host wrote with plain SQL has nothing to show.
    let conn = session_search::open(&db).unwrap();
    conn.execute_batch(
        "INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('agent:main:cli:1', 'main', 1762080000000);
         INSERT INTO messages(session_key, role, content, created_at) VALUES ('agent:main:cli:1', 'user', 'zebra crossing', 1762080000000);",
    )
    .unwrap();
    drop(conn);
    assert_eq!(
        ok(&db, &["search", "zebra"]),
        "agent:main:cli:1  2025-11-02 10:40:00 +00:00  user  62\n  zebra crossing\n\n"
    );
    // The JSON stays exactly the SQL function's.
    assert!(!ok(&db, &["search", "idempotency", "--json"]).contains("payments"));
}

#[test]
fn times_in_the_local_time_zone_or_in_utc() {
    let (_dir, db) = imported();
    let first = |env: &[(&str, &Path)], args: &[&str]| -> String {
        let run = run_with(&db, env, args);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout.lines().nth(3).unwrap().to_owned()
    };
    let history = ["history", POSTMORTEM];
    let tokyo: &[(&str, &Path)] = &[("TZ", Path::new("JST-9"))];
    assert_eq!(
        first(tokyo, &history),
        "2025-11-02 19:00:02 +09:00  user  c0000001"
    );
    let newfoundland: &[(&str, &Path)] = &[("TZ", Path::new("NST3:30NDT,M3.2.0,M11.1.0"))];
    assert_eq!(
        first(newfoundland, &history),
        "2025-11-02 06:30:02 -03:30  user  c0000001"
    );
    assert_eq!(
        first(tokyo, &["--utc", "history", POSTMORTEM]),
        "2025-11-02 10:00:02 +00:00  user  c0000001"
    );
    let search = run_with(
        &db,
        tokyo,
        &["search", "postmortem", "--limit", "1", "--utc"],
    );
    assert!(
        search.stdout.contains("  2025-11-02 10:00:02 +00:00  user"),
        "{}",
        search.stdout
    );
    let search = run_with(&db, tokyo, &["search", "postmortem", "--limit", "1"]);
    assert!(
        search.stdout.contains("  2025-11-02 19:00:02 +09:00  user"),
        "{}",
        search.stdout
    );
    let list = run_with(&db, tokyo, &["list", "--limit", "1"]);
    assert!(
        list.stdout.starts_with(
            "claude-code:47bf5f5c-9e11-4f51-8a29-7ad38ecdf17c  2026-02-03 15:19:51 +09:00  "
        ),
        "{}",
        list.stdout
    );
}

#[test]
fn quiet_import_prints_nothing_but_errors() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sessions.db");
    let codex = fixtures("codex");
    let quiet = run(&db, &["import", "-q", codex.to_str().unwrap()]);
    assert_eq!(
        (quiet.code, quiet.stdout.as_str(), quiet.stderr.as_str()),
        (0, "", "")
    );
    assert_eq!(json(&ok(&db, &["status", "--json"]))["messages"], 14);
    // Global: before the command too; --json still prints its report.
    let report = json(&ok(
        &db,
        &["--quiet", "import", "--json", codex.to_str().unwrap()],
    ));
    assert_eq!(report["files"].as_array().unwrap().len(), 2);
    let missing = dir.path().join("missing");
    let stderr = fails(&db, &["import", "-q", missing.to_str().unwrap()]);
    assert!(stderr.contains("cannot read"), "{stderr}");
    // Notes are quiet too, and the exit status still tells.
    let nothing = run(&db, &["search", "-q", "zebra"]);
    assert_eq!((nothing.code, nothing.stderr.as_str()), (1, ""));
    assert_eq!(ok(&db, &["reconcile", "-q"]), "");
}

#[test]
fn exit_status_like_grep() {
    let (_dir, db) = imported();
    for (args, code) in [
        (&["search", "checkout"][..], 0),
        (&["search", "checkout", "--json"], 0),
        (&["search", "zebra"], 1),
        (&["search", "zebra", "--json"], 1),
        (&["list"], 0),
        (&["list", "--agent", "nobody"], 1),
        (&["list", "--agent", "nobody", "--json"], 1),
        (&["history", POSTMORTEM], 0),
        (&["status"], 0),
        (&["search", "checkout", "--caller", "nobody"], 2),
        (&["history", "nobody"], 2),
        (&["list", "--limit", "0"], 2),
        (&["search"], 2),
    ] {
        assert_eq!(run(&db, args).code, code, "{args:?}");
    }
    // Nothing found still prints the JSON, which says so.
    let empty = run(&db, &["search", "zebra", "--json"]);
    assert_eq!(json(&empty.stdout)["results"], json("[]"));
}

#[test]
fn completions_and_the_manual_page_come_from_the_arguments() {
    // They need no database, nor a home to find one in.
    let generated = |args: &[&str]| -> String {
        let run: Run = command(&[])
            .env_remove("HOME")
            .args(args)
            .output()
            .unwrap()
            .into();
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        run.stdout
    };
    let bash = generated(&["completions", "bash"]);
    for word in [
        "session-search",
        "import",
        "sync",
        "search",
        "history",
        "list",
        "--caller",
        "--utc",
        "--quiet",
    ] {
        assert!(bash.contains(word), "{word} is not in {bash}");
    }
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        assert!(
            generated(&["completions", shell]).contains("history"),
            "{shell}"
        );
    }
    let page = generated(&["man"]);
    assert!(page.contains("\n.TH session-search 1 "), "{page}");
    for command in [
        "import",
        "search",
        "history",
        "list",
        "reconcile",
        "redact",
        "completions",
    ] {
        assert!(
            page.contains(&format!("session\\-search\\-{command}(1)")),
            "{command}: {page}"
        );
    }
    let search = generated(&["man", "search"]);
    assert!(
        search.contains(&format!(
            "\n.TH session-search-search 1  \"session-search {}\"",
            env!("CARGO_PKG_VERSION")
        )),
        "{search}"
    );
    assert!(search.contains("\\-\\-caller"), "{search}");
    let dir = tempfile::tempdir().unwrap();
    let stderr = fails(&dir.path().join("none.db"), &["man", "nothing"]);
    assert!(stderr.contains("no command \"nothing\""), "{stderr}");
}

/// Copies `source` to `relative` under `home`, making its folders.
fn place(home: &Path, relative: &str, source: &Path) {
    let target = home.join(relative);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::copy(source, target).unwrap();
}

/// The sessions of the database as `(format of its key, count)`.
fn formats(db: &Path) -> Vec<(String, usize)> {
    let listed = json(&ok(db, &["list", "--json", "--limit", "100"]));
    let mut counts = std::collections::BTreeMap::new();
    for session in listed["sessions"].as_array().unwrap() {
        let key = session["sessionKey"].as_str().unwrap();
        *counts
            .entry(key.split(':').next().unwrap().to_owned())
            .or_default() += 1;
    }
    counts.into_iter().collect()
}

#[test]
fn import_with_no_path_reads_every_tools_default_folders() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let shared = claude_fixtures().join("..");
    place(
        &home,
        ".claude/projects/-src-shop/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl",
        &claude_fixtures().join("4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl"),
    );
    place(
        &home,
        ".codex/sessions/2025/06/03/rollout-2025-06-03T09-14-02-0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80.jsonl",
        &fixtures("codex").join("rollout-2025-06-03T09-14-02-0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80.jsonl"),
    );
    place(
        &home,
        ".pi/agent/sessions/--src-bot--/37dddbfa-87ea-4c94-b89b-54dfb7ac9640.jsonl",
        &shared.join("pi/VolvoxLLC-volvox-bot/37dddbfa-87ea-4c94-b89b-54dfb7ac9640.jsonl"),
    );
    place(
        &home,
        ".gemini/tmp/9f2c/chats/session-2025-09-01T10-00-test.json",
        &shared.join("gemini-cli/Mai0313-VibeCodingTracker/test_conversation_gemini.json"),
    );
    // Not a default folder: never read.
    place(
        &home,
        "Downloads/rollout-2025-04-18T16-20-11-legacy.jsonl",
        &fixtures("codex").join("rollout-2025-04-18T16-20-11-legacy.jsonl"),
    );
    let expected = vec![
        ("claude-code".to_owned(), 1),
        ("codex".to_owned(), 1),
        ("gemini-cli".to_owned(), 1),
        ("openclaw".to_owned(), 1),
    ];

    // `--home DIR`: that home's default folders, whatever the variables say.
    let elsewhere = dir.path().join("elsewhere");
    let db = dir.path().join("a.db");
    let run = run_with(
        &db,
        &[("CODEX_HOME", &elsewhere)],
        &["import", "--home", home.to_str().unwrap()],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("into 4 new sessions"), "{}", run.stdout);
    assert_eq!(formats(&db), expected);

    // No path at all: this environment's home, with the tools' variables.
    let db = dir.path().join("b.db");
    let run = run_with(&db, &[("HOME", &home)], &["import", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(formats(&db), expected);
    let moved = run_with(
        &dir.path().join("c.db"),
        &[("HOME", &home), ("CODEX_HOME", &elsewhere)],
        &["import"],
    );
    assert!(
        moved.stdout.contains("into 3 new sessions"),
        "{}",
        moved.stdout
    );

    // A home without any of the folders: an error naming where it looked.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let run = run_with(
        &dir.path().join("d.db"),
        &[],
        &["import", "--home", empty.to_str().unwrap()],
    );
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no transcripts in the default folders")
            && run.stderr.contains(".claude/projects (Claude Code)"),
        "{}",
        run.stderr
    );
}
