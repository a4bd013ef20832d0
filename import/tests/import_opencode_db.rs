//! The OpenCode importer on OpenCode's database (`opencode.db`, built at
//! test time from the SQL text fixture in tests/fixtures/opencode), on the
//! JSON storage it was copied from, and on Kilo's database and storage.

mod common;

use common::import::*;
use rusqlite::Connection;
use serde_json::{json, Value};
use session_search::Store;
use session_search_import::{
    companion_files, find_transcripts, is_transcript_name, origin, Format, ImportReport, Issue,
};
use std::fs;
use std::path::{Path, PathBuf};

const CHECKOUT: &str = "opencode:ses_checkout";
const FLAKY: &str = "opencode:ses_flaky";
const INVOICE: &str = "opencode:ses_invoice";

/// Messages of the fixture's sessions: 10 + 2 + 2.
const MESSAGES: usize = 14;

/// OpenCode's database in the data folder `data`.
fn opencode_db(data: &Path, name: &str) -> PathBuf {
    database_from("opencode", "opencode.sql", &data.join(name))
}

fn one(key: &str, message: &str) -> Vec<(String, String)> {
    vec![(key.to_owned(), message.to_owned())]
}

fn types(store: &Store, key: &str, message: &str) -> Vec<String> {
    let content: Value = serde_json::from_str(&column(store, key, message, "content")).unwrap();
    block_types(&content)
}

fn counts(report: &ImportReport) -> (usize, usize, usize) {
    (
        report.imported(),
        report.already_present(),
        report.updated(),
    )
}

#[test]
fn opencode_db_sessions_parts_spawns_compaction_and_revert() {
    let dir = tempfile::tempdir().unwrap();
    opencode_db(&dir.path().join("opencode"), "opencode.db");
    let (store, report) = imported(dir.path());
    assert_eq!(report.files.len(), 1, "{report:#?}");
    let db = &report.files[0];
    assert_eq!(db.format, Some(Format::OpenCode));
    assert_eq!(db.problem, None);
    assert!(db.issues.is_empty(), "{:#?}", db.issues);
    assert_eq!(report.sessions_created(), 3);
    assert_eq!(report.imported(), MESSAGES);
    assert_eq!(skipped(db, "session without messages"), 1);
    assert_eq!(skipped(db, "part/step-start"), 1);
    assert_eq!(skipped(db, "part/step-finish"), 1);

    for key in [CHECKOUT, FLAKY, INVOICE] {
        assert_eq!(
            session_column(&store, key, "agent_id").as_deref(),
            Some("opencode")
        );
    }
    // The sub-agent's task was started by the main session.
    assert_eq!(session_column(&store, CHECKOUT, "spawned_by"), None);
    assert_eq!(
        session_column(&store, FLAKY, "spawned_by").as_deref(),
        Some(CHECKOUT)
    );
    let tree = common::search(&store, "wombat", &common::options(CHECKOUT));
    assert_eq!(tree.results.len(), 2);
    assert_eq!(
        session_column(&store, CHECKOUT, "created_at").as_deref(),
        Some("1767261600000")
    );
    assert_eq!(
        column(&store, CHECKOUT, "msg_a02", "created_at"),
        "1767261602000"
    );

    // `/undo` from msg_a09 on: OpenCode shows what came before.
    assert_eq!(
        branch(&store, CHECKOUT),
        ["msg_a01", "msg_a02", "msg_a03", "msg_a04", "msg_a05", "msg_a06", "msg_a07", "msg_a08"]
    );
    assert!(hits(&store, "pelican").is_empty());

    // What the user typed and the answers' text are searchable.
    assert_eq!(hits(&store, "drift"), one(CHECKOUT, "msg_a01"));
    assert_eq!(hits(&store, "\"round once\""), one(CHECKOUT, "msg_a02"));
    let mut receipt = hits(&store, "receipt");
    receipt.sort();
    assert_eq!(
        receipt,
        [one(CHECKOUT, "msg_a07"), one(CHECKOUT, "msg_a08")].concat()
    );
    assert_eq!(hits(&store, "template"), one(INVOICE, "msg_c01"));
    // Text OpenCode attached, reasoning, a tool's call and output, and a
    // compaction's summary are stored, never found.
    for stored in ["quince", "mangrove", "marmalade", "grep", "albatross"] {
        assert!(hits(&store, stored).is_empty(), "{stored}");
    }
    assert_eq!(
        types(&store, CHECKOUT, "msg_a01"),
        ["text", "context", "context", "file"]
    );
    assert_eq!(
        types(&store, CHECKOUT, "msg_a02"),
        ["reasoning", "tool_use", "tool_result", "text"]
    );
    assert_eq!(column(&store, CHECKOUT, "msg_a06", "role"), "system");
    assert_eq!(column(&store, CHECKOUT, "msg_a02", "role"), "assistant");
    assert_eq!(column(&store, FLAKY, "msg_b01", "role"), "user");

    // Where each ran (a session moved without a directory: its answer's
    // `path.cwd`), and how to resume it.
    let checkout = origin(&store, CHECKOUT).unwrap().unwrap();
    assert_eq!(checkout.cwd.as_deref(), Some("/home/dev/shop"));
    assert_eq!(
        checkout.resume_command().as_deref(),
        Some("opencode --session ses_checkout")
    );
    let invoice = origin(&store, INVOICE).unwrap().unwrap();
    assert_eq!(invoice.cwd.as_deref(), Some("/home/dev/billing"));

    let again = import(&store, dir.path());
    assert_eq!(counts(&again), (0, MESSAGES, 0));
    assert_eq!(again.sessions_created(), 0);
    assert_eq!(branch(&store, CHECKOUT).len(), 8);
}

/// Writes the JSON storage that `db` was copied from into `storage`, as
/// OpenCode kept it: a file per session, message and part, with their ids.
fn storage_from(db: &Path, storage: &Path) {
    let db = Connection::open(db).unwrap();
    let write = |path: PathBuf, value: &Value| {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
    };
    let mut sessions = db
        .prepare("SELECT id, project_id, parent_id, directory, title, version, revert, time_created, time_updated FROM session")
        .unwrap();
    let mut rows = sessions.query([]).unwrap();
    while let Some(row) = rows.next().unwrap() {
        let id: String = row.get(0).unwrap();
        let project: String = row.get(1).unwrap();
        let revert: Option<String> = row.get(6).unwrap();
        let mut session = json!({
            "id": id, "projectID": project, "directory": row.get::<_, String>(3).unwrap(),
            "title": row.get::<_, String>(4).unwrap(), "version": row.get::<_, String>(5).unwrap(),
            "time": {"created": row.get::<_, i64>(7).unwrap(), "updated": row.get::<_, i64>(8).unwrap()},
        });
        if let Some(parent) = row.get::<_, Option<String>>(2).unwrap() {
            session["parentID"] = json!(parent);
        }
        if let Some(revert) = revert {
            session["revert"] = serde_json::from_str(&revert).unwrap();
        }
        write(
            storage.join(format!("session/{project}/{id}.json")),
            &session,
        );
    }
    let mut messages = db
        .prepare("SELECT id, session_id, data FROM message")
        .unwrap();
    let mut rows = messages.query([]).unwrap();
    while let Some(row) = rows.next().unwrap() {
        let (id, session): (String, String) = (row.get(0).unwrap(), row.get(1).unwrap());
        let mut data: Value = serde_json::from_str(&row.get::<_, String>(2).unwrap()).unwrap();
        data["id"] = json!(id);
        data["sessionID"] = json!(session);
        write(storage.join(format!("message/{session}/{id}.json")), &data);
    }
    let mut parts = db
        .prepare("SELECT id, message_id, session_id, data FROM part")
        .unwrap();
    let mut rows = parts.query([]).unwrap();
    while let Some(row) = rows.next().unwrap() {
        let (id, message): (String, String) = (row.get(0).unwrap(), row.get(1).unwrap());
        let mut data: Value = serde_json::from_str(&row.get::<_, String>(3).unwrap()).unwrap();
        data["id"] = json!(id);
        data["messageID"] = json!(message);
        data["sessionID"] = json!(row.get::<_, String>(2).unwrap());
        write(storage.join(format!("part/{message}/{id}.json")), &data);
    }
}

#[test]
fn a_session_in_the_storage_and_in_the_database_is_stored_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("opencode");
    let db = opencode_db(&data, "opencode.db");
    let storage = data.join("storage");
    storage_from(&db, &storage);

    // The storage, then the database it was copied into.
    let (store, first) = imported(&storage);
    assert_eq!(first.files.len(), 4, "{first:#?}");
    assert_eq!(first.imported(), MESSAGES);
    let second = import(&store, &db);
    assert_eq!(counts(&second), (0, MESSAGES, 0));
    assert_eq!(second.sessions_created(), 0);

    // The database, then the storage.
    let (store, first) = imported(&db);
    assert_eq!(first.imported(), MESSAGES);
    let second = import(&store, &storage);
    assert_eq!(counts(&second), (0, MESSAGES, 0));
    assert_eq!(
        count(&store, "SELECT count(*) FROM messages"),
        MESSAGES as i64
    );
    assert_eq!(branch(&store, CHECKOUT).len(), 8);
    assert_eq!(hits(&store, "wombat").len(), 2);

    // The data folder, as the default locations name it: the database is
    // read first, the storage adds nothing.
    let (store, both) = imported(&data);
    assert_eq!(counts(&both), (MESSAGES, MESSAGES, 0));
    assert_eq!(file(&both, "opencode.db").imported, MESSAGES);
    assert_eq!(find_transcripts(&data).unwrap().0[0], db);
    assert_eq!(
        origin(&store, INVOICE).unwrap().unwrap().cwd.as_deref(),
        Some("/home/dev/billing")
    );
}

/// The file's bytes, and its write-ahead log's.
fn bytes_of(db: &Path) -> (Vec<u8>, Option<Vec<u8>>) {
    (fs::read(db).unwrap(), fs::read(wal(db)).ok())
}

fn wal(db: &Path) -> PathBuf {
    db.with_file_name("opencode.db-wal")
}

/// Adds a message with one text part to `ses_invoice`.
fn add_message(db: &Connection, id: &str, role: &str, created: i64, text: &str) {
    let data = json!({"role": role, "time": {"created": created}});
    db.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, 'ses_invoice', ?2, ?2, ?3)",
        (id, created, data.to_string()),
    )
    .unwrap();
    let part = json!({"type": "text", "text": text});
    db.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, 'ses_invoice', ?3, ?3, ?4)",
        (format!("prt_{id}"), id, created, part.to_string()),
    )
    .unwrap();
}

#[test]
fn an_opencode_db_open_in_wal_mode_is_read_and_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_db(dir.path(), "opencode.db");
    // OpenCode holds its database open in WAL mode while it runs.
    let opencode = Connection::open(&db).unwrap();
    let mode: String = opencode
        .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    opencode
        .execute_batch("PRAGMA wal_autocheckpoint = 0")
        .unwrap();
    add_message(
        &opencode,
        "msg_c03",
        "user",
        1767261710000,
        "And the toucan letterhead?",
    );
    // What changes while OpenCode writes is the log.
    assert_eq!(companion_files(&db), [wal(&db)]);

    let store = Store::open_in_memory().unwrap();
    let before = bytes_of(&db);
    let report = import(&store, &db);
    assert_eq!(report.files[0].problem, None, "{report:#?}");
    assert_eq!(report.imported(), MESSAGES + 1);
    assert_eq!(hits(&store, "toucan"), one(INVOICE, "msg_c03"));
    assert_eq!(bytes_of(&db), before);

    // What OpenCode writes later is added, nothing else.
    add_message(
        &opencode,
        "msg_c04",
        "assistant",
        1767261711000,
        "The toucan letterhead is in templates/letterhead.html.",
    );
    let again = import(&store, &db);
    assert_eq!(counts(&again), (1, MESSAGES + 1, 0));
    assert_eq!(
        branch(&store, INVOICE).last().map(String::as_str),
        Some("msg_c04")
    );

    // OpenCode closed: the log is gone, the database still read.
    drop(opencode);
    assert!(!wal(&db).exists());
    assert!(companion_files(&db).is_empty());
    let closed = import(&store, &db);
    assert_eq!(closed.files[0].problem, None, "{closed:#?}");
    assert_eq!(counts(&closed), (0, MESSAGES + 2, 0));
}

#[test]
fn older_databases_and_damaged_rows() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_db(dir.path(), "opencode.db");
    let text_part: String = Connection::open(&db)
        .unwrap()
        .query_row("SELECT data FROM part WHERE id = 'prt_a02_4'", [], |row| {
            row.get(0)
        })
        .unwrap();
    // A version without `session.directory`; a part and a message whose
    // data is not JSON.
    Connection::open(&db)
        .unwrap()
        .execute_batch(
            "ALTER TABLE session DROP COLUMN directory;
             UPDATE part SET data = 'not json' WHERE id = 'prt_a02_4';
             UPDATE message SET data = '{\"role\":' WHERE id = 'msg_c02';",
        )
        .unwrap();
    let (store, report) = imported(&db);
    assert_eq!(report.files[0].problem, None);
    let issues: Vec<(usize, String)> = report
        .issues()
        .map(|(_, issue)| match &issue.issue {
            Issue::NotUnderstood { reason } => (issue.line, reason.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    // Sessions are numbered in the order of creation.
    assert_eq!(
        issues,
        [
            (
                1,
                "part prt_a02_4 of message msg_a02: data is not a JSON object".to_owned()
            ),
            (3, "message msg_c02: data is not a JSON object".to_owned())
        ]
    );
    assert_eq!(report.imported(), MESSAGES - 1);
    // The rest is there; where it ran is the answers' `path.cwd`.
    assert!(hits(&store, "\"round once\"").is_empty());
    assert_eq!(
        types(&store, CHECKOUT, "msg_a02"),
        ["reasoning", "tool_use", "tool_result"]
    );
    assert_eq!(
        origin(&store, CHECKOUT).unwrap().unwrap().cwd.as_deref(),
        Some("/home/dev/shop")
    );
    assert_eq!(origin(&store, INVOICE).unwrap().unwrap().cwd, None);

    // The part readable again (an answer written meanwhile): its message
    // takes it.
    Connection::open(&db)
        .unwrap()
        .execute(
            "UPDATE part SET data = ?1 WHERE id = 'prt_a02_4'",
            [&text_part],
        )
        .unwrap();
    let later = import(&store, &db);
    assert_eq!(counts(&later), (0, MESSAGES - 2, 1));
    assert_eq!(hits(&store, "\"round once\""), one(CHECKOUT, "msg_a02"));
}

#[test]
fn kilos_databases_and_storage_are_kilos() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("kilo");
    opencode_db(&data, "kilo.db");
    let storage = shared_fixtures("opencode")
        .join("jazzyalex-agent-sessions")
        .join("storage_v2");
    let session = storage.join("session/proj_test/ses_s_stage0_small.json");
    let copy = data.join("storage/session/proj_test/ses_s_stage0_small.json");
    fs::create_dir_all(copy.parent().unwrap()).unwrap();
    fs::copy(&session, &copy).unwrap();
    for folder in [
        "message/s_stage0_small",
        "part/m_user_small",
        "part/m_assistant_small",
    ] {
        let to = data.join("storage").join(folder);
        fs::create_dir_all(&to).unwrap();
        for entry in fs::read_dir(storage.join(folder)).unwrap() {
            let entry = entry.unwrap();
            fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
    // A build of another channel, moved with `KILO_DB`.
    opencode_db(&dir.path().join("elsewhere"), "kilo-beta.db");

    let (store, report) = imported(dir.path());
    assert_eq!(report.files.len(), 3, "{report:#?}");
    assert!(report.files.iter().all(|f| f.format == Some(Format::Kilo)));
    assert_eq!(
        session_column(&store, "kilo:ses_checkout", "agent_id").as_deref(),
        Some("kilo")
    );
    assert_eq!(
        session_column(&store, "kilo:ses_flaky", "spawned_by").as_deref(),
        Some("kilo:ses_checkout")
    );
    assert_eq!(
        hits(&store, "hello"),
        one("kilo:s_stage0_small", "m_user_small")
    );
    assert_eq!(
        origin(&store, "kilo:ses_checkout")
            .unwrap()
            .unwrap()
            .resume_command()
            .as_deref(),
        Some("kilo --session ses_checkout")
    );
    // Both databases hold the same sessions: stored once.
    assert_eq!(
        count(&store, "SELECT count(*) FROM messages"),
        (MESSAGES + 2) as i64
    );
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM messages WHERE session_key LIKE 'opencode:%'"
        ),
        0
    );
}

#[test]
fn the_names_a_directory_import_reads() {
    for name in ["opencode.db", "opencode-dev.db", "kilo.db", "kilo-beta.db"] {
        assert!(is_transcript_name(Path::new(name)), "{name}");
        assert!(Format::OpenCode.reads_file_named(name), "{name}");
    }
    for name in [
        "opencode.db-wal",
        "opencode.db-shm",
        "opencode-.db",
        "opencodes.db",
        "opencode.json",
        "storage/todo/ses_1.json",
    ] {
        assert!(!is_transcript_name(Path::new(name)), "{name}");
    }
    assert!(is_transcript_name(Path::new(
        "storage/session/global/ses_1.json"
    )));
}
