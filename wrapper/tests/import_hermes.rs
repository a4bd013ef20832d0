//! The Hermes Agent importer: its session store `state.db` (built at test
//! time from the SQL text fixtures in tests/fixtures/hermes) and its JSON
//! session logs (the shared synthetic fixtures).

mod common;

use common::import::*;
use session_search::import::{
    import_files, import_path, origin, FileProblem, Format, ImportOptions, Issue,
};
use std::fs;
use std::path::{Path, PathBuf};

const CLI: &str = "hermes:20260501_090000_a1b2c3";
const SUBAGENT: &str = "hermes:20260501_093000_c3d4e5";
const CONTINUATION: &str = "hermes:20260501_100000_e5f6a7";
const TELEGRAM: &str = "hermes:20260502_080000_b8c9d0";

fn state_db(home: &Path) -> PathBuf {
    database_from("hermes", "state.sql", &home.join("state.db"))
}

#[test]
fn hermes_state_db_sessions_spawns_and_undone_turns() {
    let dir = tempfile::tempdir().unwrap();
    state_db(&dir.path().join(".hermes"));
    let (store, report) = imported(dir.path());
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

    // The undone turn (5, 6) is stored off the active branch; what followed
    // hangs from the message before it.
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

    // What the user typed and the answers are searchable; reasoning, tool
    // calls, tool output, the compaction summary and hidden rows are not.
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

    let from = origin(&store, CLI).unwrap().unwrap();
    assert_eq!(from.cwd.as_deref(), Some("/home/ana/deploy"));
    assert_eq!(
        from.resume_command().as_deref(),
        Some("hermes --resume 20260501_090000_a1b2c3")
    );

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
    assert_eq!(column(&store, large, "m4", "created_at"), "1777493100000");
    assert_eq!(branch(&store, large), ["m1", "m2", "m3", "m4"]);
    assert_eq!(column(&store, large, "m3", "role"), "tool");
    assert_eq!(column(&store, drift, "m3", "role"), "tool");

    assert_eq!(
        hits(&store, "Summarize"),
        [(small.to_owned(), "m1".to_owned())]
    );
    // The answer names the directory; the tool's output (the same path) and
    // the reasoning are not searchable.
    assert_eq!(
        hits(&store, "Codex-History"),
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
    assert_eq!(skipped(json, "session imported from state.db"), 1);
    assert_eq!(json.imported, 0);
    assert_eq!(hits(&store, "rotate").len(), 1);
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
