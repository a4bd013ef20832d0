//! The Hermes Agent importer: its session store `state.db` (built at test
//! time from the SQL text fixtures in tests/fixtures/hermes), its JSON
//! session logs (the shared synthetic fixtures) and its gateway's
//! transcripts (tests/fixtures/hermes/sessions, with the log of the same
//! session).

mod common;

use common::import::*;
use session_search::Store;
use session_search_import::{
    import_files, import_path, origin, FileProblem, Format, ImportOptions, ImportReport, Issue,
};
use std::fs;
use std::path::{Path, PathBuf};

const CLI: &str = "hermes:20260501_090000_a1b2c3";
const SUBAGENT: &str = "hermes:20260501_093000_c3d4e5";
const CONTINUATION: &str = "hermes:20260501_100000_e5f6a7";
const TELEGRAM: &str = "hermes:20260502_080000_b8c9d0";
const GATEWAY: &str = "hermes:20260503_071500_d4e5f6";
const TRANSCRIPT: &str = "20260503_071500_d4e5f6.jsonl";
const LOG: &str = "session_20260503_071500_d4e5f6.json";
const FROM_DATABASE: &str = "session imported from state.db";

/// Builds `state.db` under `home` from its SQL text fixture.
fn state_db(home: &Path) -> PathBuf {
    database_from("hermes", "state.sql", &home.join("state.db"))
}

/// A home directory holding `.hermes/state.db`, imported.
fn imported_state_db() -> (tempfile::TempDir, Store, ImportReport) {
    let dir = tempfile::tempdir().unwrap();
    state_db(&dir.path().join(".hermes"));
    let (store, report) = imported(dir.path());
    (dir, store, report)
}

#[test]
fn a_hermes_state_db_imports_its_sessions_and_reports_a_row_without_a_role() {
    let (_dir, _, report) = imported_state_db();
    assert_eq!(report.files.len(), 1, "{report:#?}");
    let db = &report.files[0];
    assert_eq!(db.format, Some(Format::Hermes));
    assert_eq!(db.problem, None);
    assert_eq!(report.sessions_created(), 4);
    assert_eq!(report.imported(), 16);
    assert_eq!(skipped(db, "session without messages"), 1);
    assert_eq!(skipped(db, "session_meta"), 1);
    // A row without a role is reported at its row id.
    let issues: Vec<_> = report.issues().map(|(_, issue)| issue.clone()).collect();
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].line, 17);
    assert!(matches!(issues[0].issue, Issue::NotUnderstood { .. }));
}

#[test]
fn hermes_sessions_keep_their_agent_parent_and_times() {
    let (_dir, store, _) = imported_state_db();
    for key in [CLI, SUBAGENT, CONTINUATION, TELEGRAM] {
        assert_eq!(
            session_column(&store, key, "agent_id").as_deref(),
            Some("hermes")
        );
    }
    // A subagent run and a continuation were both started by their parent.
    assert_eq!(session_column(&store, CLI, "spawned_by"), None);
    assert_eq!(
        session_column(&store, SUBAGENT, "spawned_by").as_deref(),
        Some(CLI)
    );
    assert_eq!(
        session_column(&store, CONTINUATION, "spawned_by").as_deref(),
        Some(CLI)
    );
    // Seconds become milliseconds.
    assert_eq!(
        session_column(&store, CLI, "created_at").as_deref(),
        Some("1777626000000")
    );
    assert_eq!(column(&store, CLI, "2", "created_at"), "1777626002500");
}

#[test]
fn an_undone_hermes_turn_is_stored_off_the_active_branch() {
    let (_dir, store, _) = imported_state_db();
    // The undone turn (5, 6); what followed hangs from the message before it.
    assert_eq!(branch(&store, CLI), ["1", "2", "3", "4", "7", "8"]);
    assert_eq!(
        count(
            &store,
            &format!("SELECT count(*) FROM messages WHERE session_key = '{CLI}'")
        ),
        8
    );
    assert!(hits(&store, "flamingo").is_empty());
    assert_eq!(hit_sessions(&store, "pelican"), [CLI, CLI]);
}

#[test]
fn what_the_user_typed_and_the_answers_are_searchable_in_hermes_sessions() {
    let (_dir, store, _) = imported_state_db();
    // Reasoning, tool calls, tool output, the compaction summary and hidden
    // rows are not.
    assert_eq!(hits(&store, "rotate"), [(CLI.to_owned(), "1".to_owned())]);
    assert_eq!(
        hits(&store, "keyrotate"),
        [(CLI.to_owned(), "4".to_owned())]
    );
    assert_eq!(hits(&store, "DEPLOY_KEY").len(), 2);
    assert_eq!(hit_sessions(&store, "Monday"), [CONTINUATION, CONTINUATION]);
    for hidden in ["mongoose", "narwhal", "Historical", "albatross"] {
        assert!(hits(&store, hidden).is_empty(), "{hidden}");
    }
    assert_eq!(column(&store, CLI, "3", "role"), "tool");
    assert_eq!(column(&store, CONTINUATION, "11", "role"), "system");
    assert_eq!(column(&store, CONTINUATION, "14", "role"), "system");
    let call = column(&store, CLI, "2", "content");
    assert!(
        call.contains("\"thinking\"") && call.contains("\"tool_use\"") && call.contains("terminal")
    );
    assert_eq!(
        roles(&store, "hermes:"),
        [
            ("assistant".into(), 7),
            ("system".into(), 2),
            ("tool".into(), 1),
            ("user".into(), 6)
        ]
    );
}

#[test]
fn where_a_hermes_session_ran_and_how_to_resume_it() {
    let (_dir, store, _) = imported_state_db();
    let from = origin(&store, CLI).unwrap().unwrap();
    assert_eq!(from.cwd.as_deref(), Some("/home/ana/deploy"));
    assert_eq!(
        from.resume_command().as_deref(),
        Some("hermes --resume 20260501_090000_a1b2c3")
    );
}

#[test]
fn a_hermes_state_db_imported_again_adds_nothing() {
    let (dir, store, _) = imported_state_db();
    let again = import(&store, dir.path());
    assert_eq!((again.imported(), again.already_present()), (0, 16));
    assert_eq!(again.sessions_created(), 0);
    assert_eq!(branch(&store, CLI), ["1", "2", "3", "4", "7", "8"]);
}

#[test]
fn a_hermes_profile_with_an_early_schema() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_from(
        "hermes",
        "state-v1.sql",
        &dir.path().join(".hermes/profiles/work/state.db"),
    );
    let (store, report) = imported(&db);
    assert_eq!(report.files[0].problem, None);
    assert_eq!(report.imported(), 2);
    let key = "hermes:20250301_120000_0a0b0c";
    assert_eq!(
        session_column(&store, key, "agent_id").as_deref(),
        Some("hermes-work")
    );
    assert_eq!(hits(&store, "quokka").len(), 2);
    assert_eq!(branch(&store, key), ["1", "2"]);
}

/// The file's bytes, and its write-ahead log's.
fn bytes_of(db: &Path) -> (Vec<u8>, Option<Vec<u8>>) {
    let wal = db.with_file_name("state.db-wal");
    (fs::read(db).unwrap(), fs::read(wal).ok())
}

#[test]
fn a_state_db_open_in_hermes_in_wal_mode_is_read_and_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = state_db(dir.path());
    // Hermes holds its database open in WAL mode while it runs.
    let hermes = rusqlite::Connection::open(&db).unwrap();
    let mode: String = hermes
        .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    hermes
        .execute_batch("PRAGMA wal_autocheckpoint = 0;
             INSERT INTO messages (id, session_id, role, content, timestamp)
             VALUES (19, '20260502_080000_b8c9d0', 'user', 'And the toucan certificate too.', 1777708900.0);")
        .unwrap();

    let store = session_search::Store::open_in_memory().unwrap();
    let before = bytes_of(&db);
    let report = import(&store, &db);
    assert_eq!(report.files[0].problem, None, "{report:#?}");
    assert_eq!(report.imported(), 17);
    assert_eq!(
        hits(&store, "toucan"),
        [(TELEGRAM.to_owned(), "19".to_owned())]
    );
    assert_eq!(bytes_of(&db), before);

    // What Hermes writes later is added, nothing else.
    hermes
        .execute(
            "INSERT INTO messages (id, session_id, role, content, timestamp)
             VALUES (20, '20260502_080000_b8c9d0', 'assistant', 'The toucan certificate is on the list.', 1777708901.0)",
            [],
        )
        .unwrap();
    let again = import(&store, &db);
    assert_eq!((again.imported(), again.already_present()), (1, 17));
    assert_eq!(
        branch(&store, TELEGRAM).last().map(String::as_str),
        Some("20")
    );

    // Hermes closed: its database stays in WAL mode, without the log.
    drop(hermes);
    assert!(!db.with_file_name("state.db-wal").exists());
    let closed = import(&store, &db);
    assert_eq!(closed.files[0].problem, None, "{closed:#?}");
    assert_eq!((closed.imported(), closed.already_present()), (0, 18));
}

#[test]
fn a_damaged_state_db_is_a_problem_of_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = state_db(dir.path());
    let bytes = fs::read(&db).unwrap();
    // The header and the first pages, the rest cut off.
    let cut = dir.path().join("cut/state.db");
    fs::create_dir_all(cut.parent().unwrap()).unwrap();
    fs::write(&cut, &bytes[..8192]).unwrap();
    let (_, report) = imported(&cut);
    let file = &report.files[0];
    assert!(
        matches!(
            file.problem,
            Some(FileProblem::Unreadable(_)) | Some(FileProblem::UnknownFormat)
        ),
        "{report:#?}"
    );

    // Read as Hermes's all the same: the query fails, reported.
    let store = session_search::Store::open_in_memory().unwrap();
    let options = ImportOptions {
        format: Some(Format::Hermes),
        ..ImportOptions::default()
    };
    let forced = import_path(&store, &cut, &options).unwrap();
    assert!(
        matches!(forced.files[0].problem, Some(FileProblem::Unreadable(_))),
        "{forced:#?}"
    );
}

#[test]
fn hermes_session_logs() {
    let folder = shared_fixtures("hermes/jazzyalex-agent-sessions");
    let files: Vec<PathBuf> = ["small.json", "large.json", "schema_drift.json"]
        .iter()
        .map(|name| folder.join(name))
        .collect();
    let store = session_search::Store::open_in_memory().unwrap();
    let report = import_files(&store, &files, &ImportOptions::default()).unwrap();
    assert!(
        report
            .files
            .iter()
            .all(|f| f.format == Some(Format::Hermes)),
        "{report:#?}"
    );
    assert_eq!(report.issues().count(), 0);
    assert_eq!(report.sessions_created(), 3);
    assert_eq!(report.imported(), 9);
    assert_eq!(report.skipped_types()["session_meta"], 2);

    let small = "hermes:20260429_hermes_small";
    let large = "hermes:20260429_hermes_large";
    let drift = "hermes:20260429_hermes_schema_drift";
    assert_eq!(
        session_column(&store, small, "agent_id").as_deref(),
        Some("hermes")
    );
    assert_eq!(
        session_column(&store, small, "created_at").as_deref(),
        Some("1777492800000")
    );
    // A start without a zone is UTC.
    assert_eq!(
        session_column(&store, drift, "created_at").as_deref(),
        Some("1777493400000")
    );
    assert_eq!(column(&store, large, "m4-", "created_at"), "1777493100000");
    assert_eq!(numbers(branch(&store, large)), ["m1", "m2", "m3", "m4"]);
    assert_eq!(column(&store, large, "m3-", "role"), "tool");
    assert_eq!(column(&store, drift, "m3-", "role"), "tool");

    assert_eq!(
        numbered_hits(&store, "Summarize"),
        [(small.to_owned(), "m1".to_owned())]
    );
    // The answer names the directory; the tool's output (the same path) and
    // the reasoning are not searchable.
    assert_eq!(
        numbered_hits(&store, "Codex-History"),
        [(large.to_owned(), "m4".to_owned())]
    );
    assert!(hits(&store, "shell lookup").is_empty());
    assert!(hits(&store, "No results").is_empty());

    assert_eq!(
        origin(&store, large).unwrap().unwrap().cwd.as_deref(),
        Some("~/Repository/Codex-History")
    );
    assert_eq!(
        origin(&store, small).unwrap().unwrap().cwd.as_deref(),
        Some("/tmp/hermes-small")
    );

    let again = import_files(&store, &files, &ImportOptions::default()).unwrap();
    assert_eq!((again.imported(), again.already_present()), (0, 9));
}

#[test]
fn a_session_log_of_a_session_in_state_db_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join(".hermes");
    state_db(&home);
    fs::create_dir_all(home.join("sessions")).unwrap();
    let log = serde_json::json!({
        "session_id": "20260501_090000_a1b2c3",
        "platform": "cli",
        "session_start": "2026-05-01T09:00:00Z",
        "messages": [
            {"role": "user", "content": "How do I rotate the staging deploy keys?"},
            {"role": "assistant", "content": "Run bin/keyrotate with the staging profile; it swaps both keys."}
        ]
    });
    fs::write(
        home.join("sessions/session_20260501_090000_a1b2c3.json"),
        log.to_string(),
    )
    .unwrap();
    let (store, report) = imported(dir.path());
    assert_eq!(report.files.len(), 2);
    let json = file(&report, "session_20260501_090000_a1b2c3.json");
    assert_eq!(json.format, Some(Format::Hermes));
    assert_eq!(skipped(json, FROM_DATABASE), 1);
    assert_eq!(json.imported, 0);
    assert_eq!(hits(&store, "rotate").len(), 1);
}

#[test]
fn a_gateway_transcript_of_a_session_in_state_db_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join(".hermes");
    state_db(&home);
    fs::create_dir_all(home.join("sessions")).unwrap();
    let lines = [
        r#"{"role": "session_meta", "tools": [], "model": "gpt-5.2", "platform": "telegram", "timestamp": "2026-05-02T08:00:01.000000"}"#,
        r#"{"role": "user", "content": "Remind me to renew the wildcard certificate.", "timestamp": "2026-05-02T08:00:01.000000"}"#,
        r#"{"role": "assistant", "content": "I will remind you on Friday to renew the wildcard certificate.", "timestamp": "2026-05-02T08:00:01.000000"}"#,
    ];
    fs::write(
        home.join("sessions/20260502_080000_b8c9d0.jsonl"),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let (store, report) = imported(dir.path());
    let transcript = file(&report, "20260502_080000_b8c9d0.jsonl");
    assert_eq!(transcript.format, Some(Format::Hermes));
    assert_eq!(skipped(transcript, FROM_DATABASE), 1);
    assert_eq!(transcript.imported, 0);
    assert_eq!(
        hits(&store, "wildcard"),
        [
            (TELEGRAM.to_owned(), "15".to_owned()),
            (TELEGRAM.to_owned(), "18".to_owned())
        ]
    );
}

/// A Hermes home in `dir` whose `sessions/` holds the fixtures `names`;
/// their paths.
fn gateway_home(dir: &Path, names: &[&str]) -> Vec<PathBuf> {
    let sessions = dir.join(".hermes/sessions");
    fs::create_dir_all(&sessions).unwrap();
    names
        .iter()
        .map(|name| {
            let path = sessions.join(name);
            fs::copy(fixtures("hermes/sessions").join(name), &path).unwrap();
            path
        })
        .collect()
}

/// Message ids without their fingerprints: `m<n>` of `m<n>-<fingerprint>`.
fn numbers(ids: impl IntoIterator<Item = String>) -> Vec<String> {
    ids.into_iter()
        .map(|id| id.split('-').next().unwrap_or_default().to_owned())
        .collect()
}

/// [`hits`], their message ids without fingerprints.
fn numbered_hits(store: &session_search::Store, query: &str) -> Vec<(String, String)> {
    hits(store, query)
        .into_iter()
        .map(|(key, id)| {
            let number = numbers([id]).remove(0);
            (key, number)
        })
        .collect()
}

/// `2026-05-03T07:15:02.480113`, the gateway's time (local, read as UTC)
/// of the session's first turn, in milliseconds.
const FIRST_TURN: &str = "1777792502480";

#[test]
fn a_gateway_transcript_alone() {
    let dir = tempfile::tempdir().unwrap();
    let paths = gateway_home(dir.path(), &[TRANSCRIPT]);
    // The folder of the default location, `~/.hermes`.
    let (store, report) = imported(&dir.path().join(".hermes"));
    assert_eq!(report.files.len(), 1, "{report:#?}");
    let transcript = &report.files[0];
    assert_eq!(transcript.format, Some(Format::Hermes));
    assert_eq!(transcript.problem, None);
    assert_eq!(transcript.session_key.as_deref(), Some(GATEWAY));
    assert_eq!(transcript.issues, []);
    assert_eq!(transcript.imported, 4);
    assert_eq!(skipped(transcript, "session_meta"), 1);
    assert_eq!(
        session_column(&store, GATEWAY, "agent_id").as_deref(),
        Some("hermes")
    );

    // The session starts at its `session_meta` line; every line has its time.
    assert_eq!(
        session_column(&store, GATEWAY, "created_at").as_deref(),
        Some(FIRST_TURN)
    );
    assert_eq!(numbers(branch(&store, GATEWAY)), ["m1", "m2", "m3", "m4"]);
    let roles: Vec<String> = ["m1", "m2", "m3", "m4"]
        .iter()
        .map(|id| column(&store, GATEWAY, id, "role"))
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    for id in ["m1", "m2", "m3", "m4"] {
        assert_eq!(column(&store, GATEWAY, id, "created_at"), FIRST_TURN);
    }
    let call: serde_json::Value =
        serde_json::from_str(&column(&store, GATEWAY, "m2-", "content")).unwrap();
    assert_eq!(block_types(&call), ["thinking", "text", "tool_use"]);
    assert_eq!(call[2]["name"], "terminal");

    // What the user typed and the answers are searchable; the reasoning, the
    // call and the tool's output are not.
    assert_eq!(
        numbered_hits(&store, "wiki volume"),
        [(GATEWAY.to_owned(), "m1".to_owned())]
    );
    assert_eq!(
        numbered_hits(&store, "wiki-backup.timer"),
        [(GATEWAY.to_owned(), "m4".to_owned())]
    );
    assert!(hits(&store, "systemd").is_empty());
    assert!(hits(&store, "exit_code").is_empty());

    // The gateway appends the next turn: only it is added, at its time.
    let next_turn = [
        r#"{"role": "user", "content": "How long are the wiki backups kept?", "timestamp": "2026-05-03T07:31:40.051277", "message_id": "4415"}"#,
        r#"{"role": "assistant", "content": "Fourteen days: the retention in wiki-backup.service is 14d.", "finish_reason": "stop", "timestamp": "2026-05-03T07:31:40.051277"}"#,
    ];
    let mut text = fs::read_to_string(&paths[0]).unwrap();
    text.push_str(&(next_turn.join("\n") + "\n"));
    fs::write(&paths[0], text).unwrap();
    let again = import(&store, &paths[0]);
    assert_eq!((again.imported(), again.already_present()), (2, 4));
    assert_eq!(
        numbers(branch(&store, GATEWAY)),
        ["m1", "m2", "m3", "m4", "m5", "m6"]
    );
    assert_eq!(
        column(&store, GATEWAY, "m5-", "created_at"),
        "1777793500051"
    );
    assert_eq!(
        numbered_hits(&store, "retention"),
        [(GATEWAY.to_owned(), "m6".to_owned())]
    );
}

#[test]
fn a_turn_hermes_rewrote_starts_a_branch() {
    let dir = tempfile::tempdir().unwrap();
    let paths = gateway_home(dir.path(), &[TRANSCRIPT]);
    let store = session_search::Store::open_in_memory().unwrap();
    import(&store, &paths[0]);
    // `/undo` rewrites the transcript without the turn; the user asks again.
    let meta = fs::read_to_string(&paths[0])
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_owned();
    let retried = [
        meta.as_str(),
        r#"{"role": "user", "content": "Is the nightly backup of the media volume still running?", "timestamp": "2026-05-03T07:16:30.200000"}"#,
        r#"{"role": "assistant", "content": "The media volume has no backup timer.", "finish_reason": "stop", "timestamp": "2026-05-03T07:16:30.200000"}"#,
    ];
    fs::write(&paths[0], retried.join("\n") + "\n").unwrap();
    let report = import(&store, &paths[0]);
    assert_eq!((report.imported(), report.already_present()), (2, 0));
    assert_eq!(numbers(branch(&store, GATEWAY)), ["m1", "m2"]);
    // The undone turn is kept, off the active branch: of the two questions
    // only the one asked again is found.
    assert_eq!(
        numbered_hits(&store, "still running"),
        [(GATEWAY.to_owned(), "m1".to_owned())]
    );
    assert!(hits(&store, "wiki volume").is_empty());
    assert_eq!(
        count(
            &store,
            &format!("SELECT count(*) FROM messages WHERE session_key = '{GATEWAY}'")
        ),
        6
    );
}

#[test]
fn a_transcript_without_its_session_meta_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("20260503_120000_aa11bb.jsonl");
    // Newer versions write the transcript only for what `state.db` refused:
    // message lines, no `session_meta`; recognised by them.
    let lines = [
        r#"{"role": "user", "content": "Restart the staging proxy.", "timestamp": 1777809600.25}"#,
        r#"{"role": "assistant", "content": "The staging proxy is restarted.", "timestamp": 1777809604.5}"#,
    ];
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (store, report) = imported(&path);
    assert_eq!(report.files[0].format, Some(Format::Hermes), "{report:#?}");
    assert_eq!(report.imported(), 2);
    let key = "hermes:20260503_120000_aa11bb";
    assert_eq!(column(&store, key, "m1-", "created_at"), "1777809600250");
    assert_eq!(
        session_column(&store, key, "created_at").as_deref(),
        Some("1777809600250")
    );
    assert_eq!(
        numbered_hits(&store, "proxy"),
        [
            (key.to_owned(), "m1".to_owned()),
            (key.to_owned(), "m2".to_owned())
        ]
    );

    // Lines without times look like any chat: read only as --format hermes.
    let bare = dir.path().join("20260503_130000_cc22dd.jsonl");
    fs::write(
        &bare,
        "{\"role\": \"user\", \"content\": \"Rotate the ferret token.\"}\n",
    )
    .unwrap();
    let (_, unknown) = imported(&bare);
    assert_eq!(unknown.files[0].problem, Some(FileProblem::UnknownFormat));
    let options = ImportOptions {
        format: Some(Format::Hermes),
        ..ImportOptions::default()
    };
    let forced = import_path(&store, &bare, &options).unwrap();
    assert_eq!(forced.imported(), 1, "{forced:#?}");
    assert_eq!(
        numbered_hits(&store, "ferret"),
        [("hermes:20260503_130000_cc22dd".to_owned(), "m1".to_owned())]
    );
}

#[test]
fn a_transcript_and_the_log_of_its_session_store_each_message_once() {
    for order in [[TRANSCRIPT, LOG], [LOG, TRANSCRIPT]] {
        let dir = tempfile::tempdir().unwrap();
        let paths = gateway_home(dir.path(), &order);
        let store = session_search::Store::open_in_memory().unwrap();
        let first = import(&store, &paths[0]);
        assert_eq!(first.files[0].format, Some(Format::Hermes));
        assert_eq!(first.imported(), 4, "{order:?}");
        let second = import(&store, &paths[1]);
        assert_eq!(second.files[0].format, Some(Format::Hermes));
        assert_eq!(
            (second.imported(), second.already_present()),
            (0, 4),
            "{order:?}"
        );
        assert_eq!(second.sessions_created(), 0);
        assert_eq!(
            count(
                &store,
                &format!("SELECT count(*) FROM messages WHERE session_key = '{GATEWAY}'")
            ),
            4
        );
        assert_eq!(numbers(branch(&store, GATEWAY)), ["m1", "m2", "m3", "m4"]);
        assert_eq!(
            numbered_hits(&store, "wiki volume"),
            [(GATEWAY.to_owned(), "m1".to_owned())],
            "{order:?}"
        );
        assert_eq!(hits(&store, "wiki-backup.timer").len(), 1);
    }

    // Both in the folder: the transcript, with the times of its lines, is
    // read first.
    let dir = tempfile::tempdir().unwrap();
    gateway_home(dir.path(), &[LOG, TRANSCRIPT]);
    let (store, report) = imported(dir.path());
    assert_eq!(report.sessions_created(), 1);
    assert_eq!((report.imported(), report.already_present()), (4, 4));
    assert_eq!(file(&report, TRANSCRIPT).imported, 4);
    assert_eq!(column(&store, GATEWAY, "m4-", "created_at"), FIRST_TURN);
    assert_eq!(hits(&store, "wiki volume").len(), 1);
}

#[test]
fn observability_exports_are_not_sessions() {
    // NeMo-Relay's ATIF trajectory and ATOF event stream: traces of model
    // calls whose text repeats the whole conversation at every step.
    let folder = shared_fixtures("hermes/Sinity-polylogue");
    let files = [
        folder.join("nemo_relay_atif_v1.7_real_redacted.json"),
        folder.join("nemo_relay_atof_v0.1_real_redacted.jsonl"),
    ];
    let store = session_search::Store::open_in_memory().unwrap();
    let report = import_files(&store, &files, &ImportOptions::default()).unwrap();
    for file in &report.files {
        assert_eq!(
            file.problem,
            Some(FileProblem::UnknownFormat),
            "{report:#?}"
        );
    }
    assert_eq!(report.imported(), 0);
}
