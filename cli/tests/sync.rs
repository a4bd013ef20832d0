//! `session-search sync [--watch]`, run as a user runs it: a temporary home
//! directory with the transcript folders of Claude Code, Codex, OpenClaw and
//! OpenCode, changed between passes and while watching.

mod common;

use common::LOCATION_VARIABLES;
use serde_json::{json, Value};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const SESSION: &str = "openclaw:5e55a0c1-0000-4000-8000-000000000001";

/// A home directory and the database beside it.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    fn db(&self) -> PathBuf {
        self.path("sessions.db")
    }

    /// `session-search --db <db> <args>` with this home and no tool
    /// variables.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_session-search"));
        for name in LOCATION_VARIABLES
            .iter()
            .chain(&["SESSION_SEARCH_DB", "NO_COLOR"])
        {
            command.env_remove(name);
        }
        command.env("HOME", self.dir.path());
        command.arg("--db").arg(self.db()).args(args);
        command
    }

    fn run(&self, args: &[&str]) -> String {
        let output = self.command(args).output().unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(output.status.success(), "{args:?}: {stderr}");
        String::from_utf8(output.stdout).unwrap()
    }

    /// One `sync --json` pass.
    fn sync(&self) -> Value {
        serde_json::from_str(&self.run(&["sync", "--json"])).unwrap()
    }

    /// The session keys of the hits for `query` over every session (a
    /// search that finds nothing exits with status 1).
    fn hits(&self, query: &str) -> Vec<String> {
        let args = ["search", query, "--json", "--limit", "25"];
        let output = self.command(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{args:?}: {stderr}"
        );
        let found: Value = serde_json::from_slice(&output.stdout).unwrap();
        found["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|hit| hit["sessionKey"].as_str().unwrap().to_owned())
            .collect()
    }

    fn count(&self, sql: &str) -> i64 {
        let connection = rusqlite::Connection::open(self.db()).unwrap();
        connection.query_row(sql, [], |row| row.get(0)).unwrap()
    }
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    fs::copy(from, to).unwrap();
}

fn repository(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative)
}

/// The lines of an OpenClaw transcript of [`SESSION`]: its header, then one
/// user message per word of `words`, each the child of the one before.
fn openclaw_lines(words: &[&str]) -> Vec<String> {
    let mut lines = vec![json!({
        "type": "session", "version": 3, "id": &SESSION["openclaw:".len()..],
        "timestamp": "2025-11-02T09:00:00.000Z", "cwd": "/home/dev/shop",
    })
    .to_string()];
    for (n, word) in words.iter().enumerate() {
        let parent = (n > 0).then(|| format!("m{}", n - 1));
        lines.push(
            json!({
                "type": "message", "id": format!("m{n}"), "parentId": parent,
                "timestamp": format!("2025-11-02T09:{:02}:00.000Z", n % 60),
                "message": {"role": "user", "content": [{"type": "text", "text": format!("please look at the {word} today")}]},
            })
            .to_string(),
        );
    }
    lines
}

fn append(path: &Path, text: &str) {
    let mut file = fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

fn transcript(home: &Home) -> PathBuf {
    home.path(".openclaw/agents/main/sessions/5e55a0c1-0000-4000-8000-000000000001.jsonl")
}

/// Writes the transcript of [`SESSION`] with a message per word of
/// `words`, its folder made first; returns its path.
fn write_transcript(home: &Home, words: &[&str]) -> PathBuf {
    let file = transcript(home);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, openclaw_lines(words).join("\n") + "\n").unwrap();
    file
}

#[test]
fn sync_reads_the_default_folders_then_only_what_changed() {
    let home = Home::new();
    copy(
        &repository("../shared/fixtures/claude-code/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl"),
        &home.path(".claude/projects/-home-dev-shop/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl"),
    );
    copy(
        &repository(
            "tests/fixtures/codex/rollout-2025-06-03T09-14-02-0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80.jsonl",
        ),
        &home.path(".codex/sessions/2025/06/03/rollout-2025-06-03T09-14-02-0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80.jsonl"),
    );
    // Codex finished writing it a while ago (one read while it may still
    // be written is read again once it is quiet).
    fs::File::options()
        .write(true)
        .open(home.path(".codex/sessions/2025/06/03/rollout-2025-06-03T09-14-02-0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80.jsonl"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    let file = write_transcript(&home, &["invoice", "ledger"]);

    let first = home.sync();
    assert_eq!(first["read"], Value::Null, "read is for people only");
    assert_eq!(first["files"].as_array().unwrap().len(), 3, "{first}");
    assert_eq!(first["unchanged"], 0);
    let messages = home.count("SELECT count(*) FROM messages");
    assert!(messages > 2, "{messages}");
    assert_eq!(home.hits("ledger"), [SESSION]);

    // Nothing changed: nothing is read, nothing is written.
    let second = home.sync();
    assert_eq!(second["files"], json!([]));
    assert_eq!(second["unchanged"], 3);

    // A grown file is read again and adds only its new line.
    append(
        &file,
        &(openclaw_lines(&["invoice", "ledger", "sprocket"])[3].clone() + "\n"),
    );
    let grown = home.sync();
    let files = grown["files"].as_array().unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0]["imported"], 1);
    assert_eq!(files[0]["already_present"], 2);
    assert_eq!(grown["unchanged"], 2);
    assert_eq!(home.hits("sprocket"), [SESSION]);
    assert_eq!(home.count("SELECT count(*) FROM messages"), messages + 1);

    // The folders the tools' own variables name replace the defaults.
    let moved = Home::new();
    copy(
        &transcript(&home),
        &moved.path("elsewhere/agents/main/sessions/a.jsonl"),
    );
    let output = moved
        .command(&["sync", "--json"])
        .env("OPENCLAW_STATE_DIR", moved.path("elsewhere"))
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(moved.hits("sprocket"), [SESSION]);
}

#[test]
fn a_line_still_being_written_waits_for_the_next_pass() {
    let home = Home::new();
    let file = transcript(&home);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    let lines = openclaw_lines(&["invoice", "gearbox"]);
    let (head, tail) = lines[2].split_at(40);
    fs::write(&file, format!("{}\n{}\n{head}", lines[0], lines[1])).unwrap();
    home.sync();
    assert_eq!(home.hits("invoice"), [SESSION]);
    assert!(home.hits("gearbox").is_empty());

    append(&file, &format!("{tail}\n"));
    home.sync();
    assert_eq!(home.hits("gearbox"), [SESSION]);
    assert_eq!(home.count("SELECT count(*) FROM messages"), 2);
}

#[test]
fn renamed_truncated_and_deleted_transcripts_duplicate_and_lose_nothing() {
    let home = Home::new();
    let file = write_transcript(&home, &["invoice", "ledger"]);
    home.sync();

    // OpenClaw's /reset renames the transcript: a rename, not read again.
    let archive = file.with_file_name(format!(
        "{}.reset.2025-11-03T10-00-00.000Z",
        file.file_name().unwrap().to_str().unwrap()
    ));
    fs::rename(&file, &archive).unwrap();
    let renamed = home.sync();
    assert_eq!(renamed["files"], json!([]));
    assert_eq!(renamed["renamed"][0]["to"], archive.to_str().unwrap());

    // A copy under another name is read, and adds nothing.
    fs::copy(&archive, &file).unwrap();
    let copied = home.sync();
    assert_eq!(copied["files"][0]["already_present"], 2);
    assert_eq!(copied["files"][0]["imported"], 0);
    assert_eq!(home.count("SELECT count(*) FROM sessions"), 1);

    // Cut short: nothing it lost leaves the session or its branch.
    fs::write(&file, openclaw_lines(&["invoice"]).join("\n") + "\n").unwrap();
    let cut = home.sync();
    assert_eq!(cut["files"][0]["already_present"], 1);
    assert_eq!(home.hits("ledger"), [SESSION]);

    // Deleted transcripts are forgotten; their sessions stay searchable.
    fs::remove_file(&file).unwrap();
    fs::remove_file(&archive).unwrap();
    let gone = home.sync();
    assert_eq!(gone["forgotten"].as_array().unwrap().len(), 2);
    assert_eq!(home.hits("ledger"), [SESSION]);
    assert_eq!(
        home.count("SELECT count(*) FROM session_search_sync_files"),
        0
    );
}

#[test]
fn sync_for_people_and_quietly() {
    let home = Home::new();
    write_transcript(&home, &["invoice"]);
    let text = home.run(&["sync"]);
    assert!(
        text.contains(&format!(
            "OpenClaw: {}",
            home.path(".openclaw/agents").display()
        )),
        "{text}"
    );
    // The tools with no folder yet, in one line.
    let absent = text
        .lines()
        .find(|line| line.starts_with("Not there yet: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        absent.contains("Claude Code, ") && !absent.contains('/'),
        "{text}"
    );
    assert!(!text.contains("Claude Code: "), "{text}");
    assert!(
        text.contains("No default folder (name their files or folders): chatgpt, claude-ai, aider, specstory\n"),
        "{text}"
    );
    assert!(
        text.contains("imported 1 message into 1 new session"),
        "{text}"
    );

    // Folders named on the command line replace the defaults.
    let named = home.run(&["sync", home.path(".openclaw").to_str().unwrap()]);
    assert!(
        !named.contains("Claude Code") && !named.contains("No default folder"),
        "{named}"
    );
    assert!(named.contains("Read 0 of 1 transcripts"), "{named}");

    let missing = home
        .command(&["sync", home.path("nowhere").to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("nowhere"));
}

/// A `sync --watch` process and the lines it prints.
struct Watcher {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Watcher {
    /// `sync --watch --json`, after its first pass.
    fn start(home: &Home) -> Watcher {
        let watcher = Watcher::spawn(home, &["sync", "--watch", "--json"]);
        watcher.next_pass();
        watcher
    }

    fn spawn(home: &Home, args: &[&str]) -> Watcher {
        let mut child = home.command(args).stdout(Stdio::piped()).spawn().unwrap();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        Watcher { child, lines }
    }

    fn next_line(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(30))
            .expect("the watcher prints a line")
    }

    /// The next pass of `--json`.
    fn next_pass(&self) -> Value {
        serde_json::from_str(&self.next_line()).unwrap()
    }

    /// The lines of the next pass for people, up to its totals.
    fn next_pass_for_people(&self) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.next_line();
            let last = line.starts_with("Read ");
            lines.push(line);
            if last {
                return lines;
            }
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until `query` finds something; returns how long that took. The
/// database may have no session yet when it starts.
fn searchable(home: &Home, query: &str) -> Duration {
    let start = Instant::now();
    while !home
        .command(&["search", query])
        .output()
        .unwrap()
        .status
        .success()
        || home.hits(query).is_empty()
    {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{query} never became searchable"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    start.elapsed()
}

#[test]
fn watch_follows_appends_partial_lines_renames_and_deletions() {
    let home = Home::new();
    let watcher = Watcher::start(&home);

    // A folder and transcript that appear after the watch started.
    let file = write_transcript(&home, &["invoice"]);
    searchable(&home, "invoice");

    let lines = openclaw_lines(&["invoice", "gearbox", "sprocket"]);
    let (head, tail) = lines[2].split_at(40);
    append(&file, head);
    watcher.next_pass();
    assert!(home.hits("gearbox").is_empty());
    append(&file, &format!("{tail}\n{}\n", lines[3]));
    searchable(&home, "gearbox");
    searchable(&home, "sprocket");

    let archive = file.with_extension("jsonl.deleted.2025-11-03T10-00-00.000Z");
    fs::rename(&file, &archive).unwrap();
    let renamed = loop {
        let pass = watcher.next_pass();
        if !pass["renamed"].as_array().unwrap().is_empty() {
            break pass;
        }
    };
    assert_eq!(renamed["files"], json!([]));
    fs::remove_file(&archive).unwrap();
    loop {
        if !watcher.next_pass()["forgotten"]
            .as_array()
            .unwrap()
            .is_empty()
        {
            break;
        }
    }
    assert_eq!(home.hits("sprocket"), [SESSION]);
    assert_eq!(home.count("SELECT count(*) FROM messages"), 3);
}

#[test]
fn watching_for_people_tells_each_skipped_line_once() {
    let home = Home::new();
    let file = write_transcript(&home, &["invoice"]);
    append(&file, "this line is not JSON\n");
    let watcher = Watcher::spawn(&home, &["sync", "--watch"]);
    let first = watcher.next_pass_for_people();
    let told = |lines: &[String]| lines.iter().filter(|l| l.contains("not JSON")).count();
    assert_eq!(told(&first), 1, "{first:?}");
    let lines = openclaw_lines(&["invoice", "gearbox"]);
    append(&file, &format!("{}\n", lines[2]));
    let second = watcher.next_pass_for_people();
    assert!(
        second.iter().any(|l| l.contains("imported 1 message")),
        "{second:?}"
    );
    assert_eq!(told(&second), 0, "{second:?}");
}

/// Writes an OpenCode message of `ses_sync` with one text part (an answer
/// with no `time.completed` yet while `done` is false), under the default
/// storage folder.
fn opencode_message(home: &Home, id: &str, role: &str, text: &str, done: bool) {
    let storage = home.path(".local/share/opencode/storage");
    let mut time = json!({"created": 1_730_000_000_000_i64 + id.len() as i64});
    if done {
        time["completed"] = json!(1_730_000_100_000_i64);
    }
    let message = json!({"id": id, "sessionID": "ses_sync", "role": role, "time": time});
    let part = json!({"id": format!("prt_{id}"), "sessionID": "ses_sync", "messageID": id,
                      "type": "text", "text": text});
    for (path, value) in [
        (format!("message/ses_sync/{id}.json"), message),
        (format!("part/{id}/prt_{id}.json"), part),
    ] {
        let path = storage.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    }
}

#[test]
fn an_opencode_session_is_read_again_when_its_message_files_change() {
    let home = Home::new();
    let session = home.path(".local/share/opencode/storage/session/global/ses_sync.json");
    fs::create_dir_all(session.parent().unwrap()).unwrap();
    let info = json!({"id": "ses_sync", "projectID": "global", "directory": "/home/dev/shop",
                      "title": "Sync", "time": {"created": 1_730_000_000_000_i64, "updated": 1_730_000_000_000_i64}});
    fs::write(&session, serde_json::to_vec_pretty(&info).unwrap()).unwrap();
    opencode_message(&home, "msg_1", "user", "where is the invoice ledger", true);
    let first = home.sync();
    assert_eq!(first["files"][0]["imported"], 1, "{first}");
    assert_eq!(home.hits("ledger"), ["opencode:ses_sync"]);

    // A new message is a file of its own: the session file is untouched,
    // but the session is read again.
    opencode_message(&home, "msg_22", "assistant", "the sprocket", false);
    let grown = home.sync();
    assert_eq!(grown["files"][0]["imported"], 1, "{grown}");
    assert_eq!(home.hits("sprocket"), ["opencode:ses_sync"]);

    // The answer finishes: its part and its message file are written again.
    opencode_message(
        &home,
        "msg_22",
        "assistant",
        "the sprocket ledger is ready",
        true,
    );
    let finished = home.sync();
    assert_eq!(finished["files"][0]["updated"], 1, "{finished}");
    assert_eq!(home.hits("ready"), ["opencode:ses_sync"]);

    let idle = home.sync();
    assert_eq!(idle["files"], json!([]));
    assert_eq!(idle["unchanged"], 1);
    assert_eq!(home.count("SELECT count(*) FROM messages"), 2);
}

/// OpenCode's database in the default data folder, built from the
/// repository's fixture, held open in WAL mode as OpenCode holds it while
/// it runs (the log is never copied into the file meanwhile).
fn opencode_database(home: &Home) -> (PathBuf, rusqlite::Connection) {
    let db = home.path(".local/share/opencode/opencode.db");
    fs::create_dir_all(db.parent().unwrap()).unwrap();
    let sql = fs::read_to_string(repository("tests/fixtures/opencode/opencode.sql")).unwrap();
    let opencode = rusqlite::Connection::open(&db).unwrap();
    opencode.execute_batch(&sql).unwrap();
    let journal = opencode
        .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0));
    assert_eq!(journal.unwrap(), "wal");
    opencode
        .pragma_update(None, "wal_autocheckpoint", 0)
        .unwrap();
    (db, opencode)
}

/// Adds a user message saying `text` to the fixture's `ses_invoice`.
fn opencode_row(opencode: &rusqlite::Connection, id: &str, text: &str) {
    let data = json!({"role": "user", "time": {"created": 1_767_261_710_000_i64}});
    let part = json!({"type": "text", "text": text});
    opencode
        .execute_batch(&format!(
            "INSERT INTO message VALUES ('{id}', 'ses_invoice', 1767261710000, 1767261710000, '{data}');
             INSERT INTO part VALUES ('prt_{id}', '{id}', 'ses_invoice', 1767261710000, 1767261710000, '{part}');"
        ))
        .unwrap();
}

#[test]
fn a_database_is_read_again_when_only_its_log_changes() {
    let home = Home::new();
    let (db, opencode) = opencode_database(&home);
    let first = home.sync();
    assert_eq!(first["files"][0]["imported"], 14, "{first}");
    assert_eq!(home.sync()["unchanged"], 1);

    // OpenCode writes a message: only the log changes.
    let before = fs::metadata(&db).unwrap();
    opencode_row(&opencode, "msg_c03", "and the toucan letterhead?");
    let after = fs::metadata(&db).unwrap();
    assert_eq!(
        (before.len(), before.modified().unwrap()),
        (after.len(), after.modified().unwrap())
    );
    let grown = home.sync();
    assert_eq!(grown["files"][0]["imported"], 1, "{grown}");
    assert_eq!(grown["files"][0]["already_present"], 14, "{grown}");
    assert_eq!(home.hits("toucan"), ["opencode:ses_invoice"]);

    let idle = home.sync();
    assert_eq!(idle["files"], json!([]));
    assert_eq!(idle["unchanged"], 1);
}

#[test]
fn watch_follows_a_database_through_its_log() {
    let home = Home::new();
    let (_db, opencode) = opencode_database(&home);
    let watcher = Watcher::start(&home);
    searchable(&home, "invoice");

    opencode_row(&opencode, "msg_c03", "and the toucan letterhead?");
    // Long before the rescan: the log's change wakes the watch.
    assert!(searchable(&home, "toucan") < Duration::from_secs(20));
    drop(watcher);
    assert_eq!(home.count("SELECT count(*) FROM messages"), 15);
}
