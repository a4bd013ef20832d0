//! The transcript store through the wrapper: branches, deletion, atomicity,
//! adoption of existing transcripts, deferred indexing, tokenizer rebuilds
//! and a writer killed mid-transaction.

use rusqlite::{params, Connection};
use session_search::{
    Error, IndexingMode, NewMessage, NewSession, Role, SearchRequest, Store, StoreOptions,
};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const KEY: &str = "agent:main:cli:1";

fn store_with_session() -> Store {
    let store = Store::open_in_memory().unwrap();
    create(&store, KEY, None);
    store
}

fn create(store: &Store, key: &str, spawned_by: Option<&str>) {
    store
        .create_session(&NewSession {
            session_key: key.into(),
            agent_id: "main".into(),
            spawned_by: spawned_by.map(Into::into),
            created_at: 1,
        })
        .unwrap();
}

fn say(store: &Store, parent_id: Option<i64>, role: Role, content: &str) -> i64 {
    store
        .append(&NewMessage {
            session_key: KEY.into(),
            parent_id,
            role,
            content: content.into(),
            created_at: 2,
            message_id: None,
        })
        .unwrap()
}

/// Ids of the messages the index returns for an FTS5 query.
fn hits(conn: &Connection, query: &str) -> BTreeSet<i64> {
    let mut stmt = conn
        .prepare("SELECT ~rowid FROM session_search_fts WHERE session_search_fts MATCH ?1")
        .unwrap();
    stmt.query_map([query], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn ids(list: &[i64]) -> BTreeSet<i64> {
    list.iter().copied().collect()
}

fn assert_consistent(store: &Store) {
    let status = store.status().unwrap();
    assert_eq!(status.integrity.as_deref(), Some("ok"), "{status:?}");
}

#[test]
fn branch_scenarios_rewind_branch_switch_back_middle_and_empty() {
    let store = store_with_session();
    let conn = store.connection();
    let a = say(&store, None, Role::User, "alpha plan");
    let b = say(&store, None, Role::Assistant, "bravo plan");
    let c = say(&store, None, Role::User, "charlie plan");
    assert_eq!(hits(conn, "plan"), ids(&[a, b, c]));

    store.rewind(KEY, Some(a)).unwrap();
    assert_eq!(hits(conn, "plan"), ids(&[a]), "rewound text is gone");
    assert!(hits(conn, "charlie").is_empty());

    let d = say(&store, None, Role::Assistant, "delta plan");
    assert_eq!(store.leaf(KEY).unwrap(), Some(d));
    assert_eq!(
        hits(conn, "plan"),
        ids(&[a, d]),
        "new branch after the rewind point"
    );

    store.rewind(KEY, Some(c)).unwrap();
    assert_eq!(
        hits(conn, "plan"),
        ids(&[a, b, c]),
        "switching back restores the old branch"
    );

    let e = say(&store, Some(b), Role::User, "echo plan");
    assert_eq!(
        hits(conn, "plan"),
        ids(&[a, b, e]),
        "branch from the middle"
    );

    store.rewind(KEY, None).unwrap();
    assert!(hits(conn, "plan").is_empty(), "rewind to empty");
    let f = say(&store, None, Role::User, "foxtrot plan");
    assert_eq!(
        hits(conn, "plan"),
        ids(&[f]),
        "a new root after rewinding to empty"
    );
    assert_consistent(&store);
}

#[test]
fn only_text_blocks_of_user_and_assistant_messages_are_searchable() {
    let store = store_with_session();
    let conn = store.connection();
    let user = say(&store, None, Role::User, "needle in user text");
    say(&store, None, Role::Tool, "needle in tool output");
    say(&store, None, Role::System, "needle in system prompt");
    let blocks = say(
        &store,
        None,
        Role::Assistant,
        r#"[{"type":"thinking","thinking":"needle reasoning"},{"type":"tool_use","name":"grep","input":{"q":"needle"}},{"type":"text","text":"found the haystack"}]"#,
    );
    assert_eq!(hits(conn, "needle"), ids(&[user]));
    assert_eq!(hits(conn, "haystack"), ids(&[blocks]));
}

#[test]
fn unknown_session_foreign_parent_and_foreign_leaf_are_typed_errors() {
    let store = store_with_session();
    create(&store, "other", None);
    let err = store
        .append(&NewMessage {
            session_key: "nope".into(),
            content: "x".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert!(
        matches!(err, Error::UnknownSession(ref k) if k == "nope"),
        "{err}"
    );

    let theirs = store
        .append(&NewMessage {
            session_key: "other".into(),
            content: "theirs".into(),
            ..Default::default()
        })
        .unwrap();
    let err = store
        .append(&NewMessage {
            session_key: KEY.into(),
            parent_id: Some(theirs),
            content: "x".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert!(
        matches!(err, Error::InvalidParent { parent_id, .. } if parent_id == theirs),
        "{err}"
    );
    assert!(matches!(
        store.rewind(KEY, Some(theirs)),
        Err(Error::InvalidLeaf { .. })
    ));
    assert!(matches!(
        store.rewind("nope", None),
        Err(Error::UnknownSession(_))
    ));
    assert_eq!(
        store.status().unwrap().messages,
        1,
        "nothing was written by the failed calls"
    );
}

#[test]
fn tree_columns_cannot_change() {
    let store = store_with_session();
    let a = say(&store, None, Role::User, "first");
    let err = store
        .connection()
        .execute("UPDATE messages SET parent_id = 99 WHERE id = ?1", [a])
        .unwrap_err();
    assert!(err.to_string().contains("cannot change"), "{err}");
    let err = store
        .connection()
        .execute("UPDATE sessions SET session_key = 'x'", [])
        .unwrap_err();
    assert!(err.to_string().contains("cannot change"), "{err}");
}

#[test]
fn rollback_and_failed_statement_leave_neither_row_nor_index_entry() {
    let store = store_with_session();
    let conn = store.connection();
    let kept = say(&store, None, Role::User, "kept words");

    conn.execute_batch("BEGIN").unwrap();
    say(&store, None, Role::User, "rolled back words");
    conn.execute_batch("ROLLBACK").unwrap();
    assert!(hits(conn, "rolled").is_empty());

    // A multi-row insert whose third row names no session fails as a whole.
    let failed = conn.execute(
        "INSERT INTO messages(session_key, role, content, created_at) VALUES
           (?1, 'user', 'batch words one', 3), (?1, 'user', 'batch words two', 3),
           ('missing', 'user', 'batch words three', 3)",
        [KEY],
    );
    assert!(failed.is_err());
    assert!(hits(conn, "batch").is_empty());
    assert_eq!(hits(conn, "words"), ids(&[kept]));
    assert_eq!(
        store.leaf(KEY).unwrap(),
        Some(kept),
        "the leaf did not move"
    );
    assert_consistent(&store);
}

#[test]
fn deleting_messages_and_sessions_removes_their_index_entries() {
    let store = store_with_session();
    create(&store, "agent:main:cli:2", None);
    let conn = store.connection();
    let a = say(&store, None, Role::User, "gamma one");
    let b = say(&store, None, Role::Assistant, "gamma two");
    let c = say(&store, None, Role::User, "gamma three");
    conn.execute("DELETE FROM messages WHERE id = ?1", [b])
        .unwrap();
    assert_eq!(
        hits(conn, "gamma"),
        ids(&[a, c]),
        "children hang from the deleted message's parent"
    );
    conn.execute("DELETE FROM messages WHERE id = ?1", [c])
        .unwrap();
    assert_eq!(
        store.leaf(KEY).unwrap(),
        Some(a),
        "a deleted leaf moves to its parent"
    );

    conn.execute(
        "UPDATE messages SET content = 'delta edited' WHERE id = ?1",
        [a],
    )
    .unwrap();
    assert!(hits(conn, "gamma").is_empty());
    assert_eq!(hits(conn, "edited"), ids(&[a]));

    assert!(store.delete_session(KEY).unwrap());
    assert!(!store.delete_session(KEY).unwrap());
    assert!(hits(conn, "edited").is_empty());
    let left: i64 = conn
        .query_row("SELECT count(*) FROM session_search_nodes", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(left, 0);
    assert_consistent(&store);
}

#[test]
fn a_message_of_megabytes_is_found_and_edited_like_a_short_one() {
    // Megabyte messages are tokenized on a second thread while FTS5 takes
    // the tokens: phrases with common words (pair tokens), short prefixes
    // (prefix tokens) and one-word ranking (tier markers) find it as they
    // find a short message, and editing or deleting it leaves the index
    // whole.
    let store = store_with_session();
    let filler = "alpha beta the gamma of delta ".repeat(40_000);
    let long = format!("{filler} we fixed the flaky deploy {filler} the last word");
    assert!(long.len() > 2_000_000);
    let long_id = say(&store, None, Role::User, &long);
    let short_id = say(
        &store,
        Some(long_id),
        Role::User,
        "we fixed the flaky deploy",
    );
    let found = |query: &str| -> BTreeSet<i64> {
        let request = SearchRequest::new(query, KEY);
        let response = store.search(&request).unwrap();
        response.results.iter().map(|hit| hit.id).collect()
    };
    for query in [
        "\"fixed the flaky\"",
        "\"the flaky deploy\"",
        "fla*",
        "flaky",
    ] {
        assert_eq!(found(query), ids(&[long_id, short_id]), "{query}");
    }
    for query in ["\"the gamma\"", "\"the last word\"", "las*"] {
        assert_eq!(found(query), ids(&[long_id]), "{query}");
    }
    assert_consistent(&store);

    let conn = store.connection();
    let edited = format!("{filler} a steady release {filler}");
    conn.execute(
        "UPDATE messages SET content = ?1 WHERE id = ?2",
        params![edited, long_id],
    )
    .unwrap();
    assert_eq!(found("flaky"), ids(&[short_id]));
    assert_eq!(found("\"a steady\""), ids(&[long_id]));
    assert_consistent(&store);
    conn.execute("DELETE FROM messages WHERE id = ?1", [long_id])
        .unwrap();
    assert!(found("gamma").is_empty() && found("ste*").is_empty());
    assert_consistent(&store);
}

#[test]
fn transcripts_written_before_init_are_adopted_and_reconciled() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE sessions(session_key TEXT PRIMARY KEY, agent_id TEXT NOT NULL, spawned_by TEXT,
                                   created_at INTEGER NOT NULL, leaf_id INTEGER);
             CREATE TABLE messages(id INTEGER PRIMARY KEY, session_key TEXT NOT NULL, parent_id INTEGER,
                                   role TEXT NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL,
                                   message_id TEXT);
             INSERT INTO sessions VALUES ('s1', 'main', NULL, 1, NULL), ('s2', 'main', 's1', 1, 4);
             INSERT INTO messages VALUES
               (1, 's1', NULL, 'user', 'legacy café question', 1, 'm1'),
               (2, 's1', NULL, 'assistant', 'legacy answer', 2, 'm2'),
               (3, 's2', NULL, 'user', 'legacy sub one', 3, NULL),
               (4, 's2', 3, 'assistant', 'legacy sub two', 4, NULL),
               (5, 's2', 3, 'assistant', 'legacy abandoned branch', 5, NULL),
               (6, 's1', NULL, 'tool', 'legacy tool output', 6, NULL);",
        )
        .unwrap();
    }
    let manual = StoreOptions {
        background_reconcile: false,
    };
    let store = Store::open_with(&path, &manual).unwrap();
    let status = store.status().unwrap();
    assert_eq!((status.messages, status.indexed, status.pending), (6, 0, 4));
    assert_eq!(
        store.leaf("s1").unwrap(),
        Some(6),
        "the newest message became the leaf"
    );

    let progress = store.reconcile(3).unwrap();
    assert_eq!(
        (progress.indexed, progress.pending, progress.done),
        (3, 1, false)
    );
    assert!(store.reconcile(100).unwrap().done);
    assert_eq!(hits(store.connection(), "legacy"), ids(&[1, 2, 3, 4]));
    assert_eq!(hits(store.connection(), "cafe"), ids(&[1]));
    assert_consistent(&store);

    drop(store);
    let reopened = Store::open_with(&path, &manual).unwrap();
    assert_eq!(
        reopened.status().unwrap().indexed,
        4,
        "sessions_init is idempotent"
    );
}

#[test]
fn init_names_a_missing_column_and_changes_nothing() {
    let conn = session_search::open_in_memory().unwrap();
    conn.execute_batch(
        "CREATE TABLE messages(id INTEGER PRIMARY KEY, session_key TEXT, role TEXT, content TEXT)",
    )
    .unwrap();
    let err = conn
        .query_row("SELECT sessions_init()", [], |r| r.get::<_, String>(0))
        .unwrap_err();
    assert!(
        err.to_string().contains("messages has no column parent_id"),
        "{err}"
    );
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name LIKE 'session_search%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 0);
}

#[test]
fn newer_schema_is_refused() {
    let store = store_with_session();
    store
        .connection()
        .execute(
            "UPDATE session_search_meta SET value = 99 WHERE key = 'schema_version'",
            [],
        )
        .unwrap();
    let err = store
        .connection()
        .query_row("SELECT sessions_init()", [], |r| r.get::<_, String>(0))
        .unwrap_err();
    assert!(
        err.to_string().contains("newer than this session-search"),
        "{err}"
    );
}

#[test]
fn deferred_indexing_queues_writes_until_reconciled() {
    let store = store_with_session();
    assert_eq!(
        store.set_indexing(IndexingMode::Deferred).unwrap(),
        IndexingMode::Immediate
    );
    let a = say(&store, None, Role::User, "queued words");
    say(&store, None, Role::Tool, "queued tool");
    assert!(hits(store.connection(), "queued").is_empty());
    assert_eq!(store.status().unwrap().pending, 1);
    store.set_indexing(IndexingMode::Immediate).unwrap();
    assert!(store.reconcile(10).unwrap().done);
    assert_eq!(hits(store.connection(), "queued"), ids(&[a]));
}

#[test]
fn backlog_drains_under_steady_writes() {
    let store = store_with_session();
    store.set_indexing(IndexingMode::Deferred).unwrap();
    for i in 0..200 {
        say(&store, None, Role::User, &format!("steady {i}"));
    }
    let mut slices = 0;
    loop {
        for i in 0..5 {
            say(&store, None, Role::Assistant, &format!("more {i}"));
        }
        slices += 1;
        if store.reconcile(20).unwrap().pending <= 5 {
            break;
        }
        assert!(slices < 100, "the backlog does not shrink");
    }
    assert!(slices <= 20, "took {slices} slices");
}

#[test]
fn tokenizer_version_change_empties_the_index_and_rebuilds() {
    let store = store_with_session();
    let conn = store.connection();
    let a = say(&store, None, Role::User, "rebuild me");
    let b = say(&store, None, Role::Assistant, "rebuild me too");
    store.rewind(KEY, Some(a)).unwrap();
    as_if_built_by_another_tokenizer(conn);

    let progress = store.reconcile(1).unwrap();
    assert_eq!((progress.indexed, progress.pending), (1, 0));
    assert_eq!(
        hits(conn, "rebuild"),
        ids(&[a]),
        "off-branch text is not brought back"
    );
    assert!(!hits(conn, "rebuild").contains(&b));
    assert_consistent(&store);
}

#[test]
fn rebuild_pending_never_returns_stale_text() {
    let store = store_with_session();
    let conn = store.connection();
    for i in 0..10 {
        say(&store, None, Role::User, &format!("stale {i}"));
    }
    as_if_built_by_another_tokenizer(conn);
    store.reconcile(3).unwrap();
    assert_eq!(
        hits(conn, "stale").len(),
        3,
        "only re-indexed rows are found"
    );
    assert_eq!(store.status().unwrap().pending, 7);
    assert_consistent(&store);
}

/// Marks the index as built by another tokenizer version, so that the next
/// reconciliation rebuilds it.
fn as_if_built_by_another_tokenizer(conn: &Connection) {
    conn.execute(
        "UPDATE session_search_meta SET value = 0 WHERE key = 'tokenizer_version'",
        [],
    )
    .unwrap();
}

/// A store of 300 messages appended one per transaction: FTS5 keeps them
/// in several segments.
fn store_with_segments() -> Store {
    let store = store_with_session();
    for i in 0..300 {
        say(&store, None, Role::User, &format!("segment {i}"));
    }
    store
}

#[test]
fn a_rebuild_ends_with_the_index_compacted_into_one_segment() {
    let store = store_with_segments();
    as_if_built_by_another_tokenizer(store.connection());
    // Slices that divide the backlog: the last one that indexes has no
    // budget left for the compaction, which the next slice does.
    let mut compacting_seen = false;
    loop {
        let progress = store.reconcile(50).unwrap();
        assert!(
            !progress.compacting || progress.pending == 0,
            "{progress:?}"
        );
        compacting_seen |= progress.compacting;
        if progress.done {
            break;
        }
    }
    assert!(compacting_seen, "no slice said it was compacting");
    assert_eq!(store.status().unwrap().segments, Some(1));
    assert_eq!(hits(store.connection(), "segment").len(), 300);
    assert_consistent(&store);
}

#[test]
fn a_small_backlog_on_a_large_index_leaves_the_segments_alone() {
    let store = store_with_segments();
    // The appends are all of the index, written since no compaction: the
    // first slice compacts it.
    let progress = store.reconcile(1000).unwrap();
    assert_eq!((progress.indexed, progress.done), (0, true), "{progress:?}");
    assert_eq!(store.status().unwrap().segments, Some(1));
    store.set_indexing(IndexingMode::Deferred).unwrap();
    for i in 0..20 {
        say(&store, None, Role::User, &format!("late {i}"));
    }
    let progress = store.reconcile(100).unwrap();
    assert_eq!((progress.indexed, progress.compacting), (20, false));
    assert!(progress.done);
    assert!(store.status().unwrap().segments > Some(1));
}

#[test]
fn reconcile_rejects_a_non_positive_slice() {
    let store = store_with_session();
    let err = store.reconcile(0).unwrap_err();
    assert!(
        err.to_string()
            .contains("max_rows must be a positive integer"),
        "{err}"
    );
}

/// The writer that `killed_writer_leaves_a_consistent_database` starts and
/// kills; does nothing when run on its own.
#[test]
fn child_writer() {
    let Ok(path) = std::env::var("SESSION_SEARCH_CHILD_DB") else {
        return;
    };
    let store = Store::open(&path).unwrap();
    let conn = store.connection();
    conn.execute_batch("BEGIN").unwrap();
    let mut stmt = conn
        .prepare("INSERT INTO messages(session_key, role, content, created_at) VALUES (?1, 'user', ?2, 1)")
        .unwrap();
    for i in 0.. {
        stmt.execute(params![
            KEY,
            format!("uncommitted row {i} {}", "padding ".repeat(50))
        ])
        .unwrap();
        if i == 2000 {
            println!("WRITING");
        }
    }
}

#[test]
fn killed_writer_leaves_a_consistent_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("killed.db");
    {
        let store = Store::open(&path).unwrap();
        create(&store, KEY, None);
        say(&store, None, Role::User, "committed row");
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_writer", "--nocapture", "--test-threads=1"])
        .env("SESSION_SEARCH_CHILD_DB", &path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    assert!(
        stdout.lines().any(|line| line.unwrap().contains("WRITING")),
        "child never wrote"
    );
    child.kill().unwrap();
    child.wait().unwrap();

    let store = Store::open(&path).unwrap();
    let status = store.status().unwrap();
    assert_eq!((status.messages, status.indexed, status.pending), (1, 1, 0));
    assert_eq!(status.integrity.as_deref(), Some("ok"));
    assert!(hits(store.connection(), "uncommitted").is_empty());
}

#[test]
fn init_reinstalls_triggers_of_another_version() {
    let store = store_with_session();
    let conn = store.connection();
    conn.execute_batch(
        "DROP TRIGGER session_search_leaf_check;
         UPDATE session_search_meta SET value = 'older' WHERE key = 'triggers';",
    )
    .unwrap();
    conn.query_row("SELECT sessions_init()", [], |r| r.get::<_, String>(0))
        .unwrap();
    let triggers: i64 = conn
        .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'session_search_leaf_check'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(triggers, 1);
}

#[test]
fn background_worker_idles_while_deferred_then_drains_the_backlog() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("worker.db")).unwrap();
    create(&store, KEY, None);
    store.set_indexing(IndexingMode::Deferred).unwrap();
    for i in 0..300 {
        say(&store, None, Role::User, &format!("queued {i}"));
    }
    std::thread::sleep(std::time::Duration::from_millis(800));
    assert_eq!(
        store.status().unwrap().pending,
        300,
        "deferred means not now"
    );

    store.set_indexing(IndexingMode::Immediate).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while store.status().unwrap().pending > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the worker never drained the backlog"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(hits(store.connection(), "queued").len(), 300);
}

#[test]
fn opening_a_database_with_a_backlog_drains_it_in_the_background() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("backlog.db");
    let manual = StoreOptions {
        background_reconcile: false,
    };
    {
        let store = Store::open_with(&path, &manual).unwrap();
        create(&store, KEY, None);
        store.set_indexing(IndexingMode::Deferred).unwrap();
        for i in 0..2000 {
            say(&store, None, Role::User, &format!("left over {i}"));
        }
        store
            .connection()
            .execute_batch(
                "UPDATE session_search_meta SET value = 'immediate' WHERE key = 'indexing'",
            )
            .unwrap();
        assert_eq!(store.status().unwrap().pending, 2000);
    }
    // Without background reconciliation nothing happens on its own.
    let store = Store::open_with(&path, &manual).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(store.status().unwrap().pending, 2000);
    drop(store);

    let store = Store::open(&path).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while store.status().unwrap().pending > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the drain never emptied the backlog"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(hits(store.connection(), "left").len(), 2000);
    assert_consistent(&store);
}

#[test]
fn statements_kept_between_calls_never_stop_a_connection_from_closing() {
    let search = |conn: &Connection, query: &str| -> String {
        conn.query_row(
            "SELECT sessions_search(?1, '{\"caller\":\"a\"}')",
            [query],
            |row| row.get(0),
        )
        .unwrap()
    };
    let fill = |conn: &Connection| {
        conn.execute_batch(
            "SELECT sessions_init();
             INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('a', 'x', 1);
             INSERT INTO messages(session_key, role, content, created_at)
               VALUES ('a', 'user', 'deploy the staging server', 1);",
        )
        .unwrap();
    };
    // A host's connection, registered twice; the crate's own; a file's.
    let dir = tempfile::tempdir().unwrap();
    let hosts = [
        Connection::open_in_memory().unwrap(),
        session_search::open_in_memory().unwrap(),
        session_search::open(dir.path().join("kept.db")).unwrap(),
    ];
    for conn in hosts {
        session_search::register(&conn).unwrap();
        fill(&conn);
        for query in ["staging", "deploy server", "\"staging server\"", "absent"] {
            assert!(search(&conn, query).starts_with("{\"results\":"));
        }
        session_search::register(&conn).unwrap();
        assert!(search(&conn, "staging").contains("staging"));
        // rusqlite's close returns the connection with an error when a
        // statement is left open.
        conn.close().map_err(|(_, e)| e).unwrap();
    }
}

#[test]
fn reads_hold_no_lock_once_they_return() {
    // Each read function keeps one read transaction across its statements;
    // with a rollback journal a read lock left behind would stop another
    // connection's commit (busy timeout 0) after it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sessions.db");
    let conn = session_search::open(&path).unwrap();
    conn.pragma_update(None, "journal_mode", "delete").unwrap();
    conn.query_row("SELECT sessions_init()", [], |_| Ok(()))
        .unwrap();
    conn.execute(
        "INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('s', 'main', 1)",
        [],
    )
    .unwrap();
    let other = session_search::open(&path).unwrap();
    other.busy_timeout(std::time::Duration::ZERO).unwrap();
    let reads = [
        (
            "SELECT sessions_search('note', ?1)",
            r#"{"caller": "s", "visibility": "all"}"#,
        ),
        (
            "SELECT sessions_search('note', ?1)",
            r#"{"caller": "s", "order": "recent"}"#,
        ),
        ("SELECT sessions_history('s', ?1)", r#"{"caller": "s"}"#),
        ("SELECT sessions_list(?1)", r#"{"caller": "s"}"#),
    ];
    for (i, (sql, options)) in reads.into_iter().enumerate() {
        let answer: String = conn.query_row(sql, [options], |row| row.get(0)).unwrap();
        assert!(answer.starts_with('{'), "{sql}: {answer}");
        other
            .execute(
                "INSERT INTO messages(session_key, role, content, created_at) VALUES ('s', 'user', ?1, 2)",
                [format!("note written after read {i}")],
            )
            .unwrap_or_else(|e| panic!("a write after {sql} {options}: {e}"));
    }
}

#[test]
fn connections_keep_temporary_files_in_memory_and_a_larger_page_cache() {
    let dir = tempfile::tempdir().unwrap();
    for conn in [
        session_search::open(dir.path().join("a.db")).unwrap(),
        session_search::open_in_memory().unwrap(),
    ] {
        let pragma = |name: &str| -> i64 {
            conn.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(pragma("temp_store"), 2, "MEMORY");
        assert_eq!(pragma("cache_size"), -session_search::CACHE_KIB);
    }
}

/// The modes of `db` and of its `-wal` and `-shm` files.
#[cfg(unix)]
fn modes(db: &std::path::Path) -> [u32; 3] {
    use std::os::unix::fs::PermissionsExt;
    ["", "-wal", "-shm"].map(|suffix| {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        std::fs::metadata(name).unwrap().permissions().mode() & 0o777
    })
}

#[cfg(unix)]
#[test]
fn a_database_the_wrapper_creates_is_its_owners_only_and_one_the_user_made_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.db");
    let made = dir.path().join("made.db");
    std::fs::File::create(&made).unwrap();
    std::fs::set_permissions(&made, std::fs::Permissions::from_mode(0o644)).unwrap();
    for (db, mode) in [(&new, 0o600), (&made, 0o644)] {
        let store = Store::open(db).unwrap();
        create(&store, KEY, None);
        assert_eq!(modes(db), [mode; 3], "{}", db.display());
    }

    let plain = dir.path().join("plain.db");
    let conn = session_search::open(&plain).unwrap();
    conn.execute_batch("PRAGMA journal_mode = wal; CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        .unwrap();
    assert_eq!(modes(&plain), [0o600; 3]);
}

#[test]
fn a_message_id_that_is_not_utf8_text_is_refused_on_insert_and_update() {
    let store = store_with_session();
    let id = say(&store, None, Role::User, "papaya");
    let conn = store.connection();
    // A blob, and text whose bytes are not UTF-8.
    for (message_id, bytes) in [("?1", &b"m-1"[..]), ("CAST(?1 AS TEXT)", b"m-\xff")] {
        for sql in [
            format!(
                "INSERT INTO messages(session_key, role, content, created_at, message_id) \
                 VALUES ('{KEY}', 'user', 'papaya', 3, {message_id})"
            ),
            format!("UPDATE messages SET message_id = {message_id} WHERE id = {id}"),
        ] {
            let err = conn.execute(&sql, [bytes]).unwrap_err().to_string();
            assert!(
                err.contains("messages.message_id must be NULL or UTF-8 text"),
                "{sql}: {err}"
            );
        }
    }
    conn.execute(
        "INSERT INTO messages(session_key, role, content, created_at, message_id) \
         VALUES (?1, 'user', 'papaya', 3, 'm-2')",
        [KEY],
    )
    .unwrap();
    let found = store
        .search(&SearchRequest::new("papaya", KEY))
        .unwrap()
        .results;
    let ids: Vec<_> = found.iter().map(|hit| hit.message_id.as_str()).collect();
    assert_eq!(ids, ["m-2", id.to_string().as_str()]);
}
