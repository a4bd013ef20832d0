//! The background drain and the host's VFS: a host connection registered
//! with session-search that reaches its file through a VFS other than the
//! process's default never starts a drain (whose own connection would open
//! the file with the default VFS and not see the host's locks); its
//! searches index the backlog themselves. A test binary of its own, as it
//! counts this process's drain threads.

use rusqlite::{Connection, OpenFlags};
use std::time::{Duration, Instant};

/// Threads of this process named `session-search-drain` (a thread's name
/// is cut to 15 bytes).
fn drain_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "session-search-")
        .count()
}

/// The most drain threads seen over `time`, polling.
fn most_drains_over(time: Duration) -> usize {
    let deadline = Instant::now() + time;
    let mut most = 0;
    while Instant::now() < deadline {
        most = most.max(drain_threads());
        std::thread::sleep(Duration::from_millis(20));
    }
    most
}

/// A WAL database of `rows` messages, all of them reconciliation backlog
/// while indexing is deferred (which no drain works on).
fn backlog(path: &std::path::Path, rows: i64) {
    let conn = session_search::open(path).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL;
         SELECT sessions_init();
         SELECT sessions_set_indexing('deferred');
         INSERT INTO sessions(session_key, agent_id, spawned_by, created_at) VALUES ('s', 'main', NULL, 1);",
    )
    .unwrap();
    let tx = conn.unchecked_transaction().unwrap();
    for i in 0..rows {
        tx.execute(
            "INSERT INTO messages(session_key, role, content, created_at) VALUES ('s', 'user', ?1, ?2)",
            (format!("archived note {i} about the staging deploy"), i),
        )
        .unwrap();
    }
    tx.commit().unwrap();
}

/// `host`, registered, with indexing made immediate again: from now on its
/// searches catch up on the backlog, or start a drain that does.
fn immediate(host: Connection) -> Connection {
    session_search::register(&host).unwrap();
    host.query_row("SELECT sessions_set_indexing('immediate')", [], |_| Ok(()))
        .unwrap();
    host
}

fn search(conn: &Connection) -> serde_json::Value {
    let json: String = conn
        .query_row(
            "SELECT sessions_search('archived', '{\"caller\":\"s\",\"visibility\":\"all\"}')",
            [],
            |row| row.get(0),
        )
        .unwrap();
    serde_json::from_str(&json).unwrap()
}

fn pending(conn: &Connection) -> i64 {
    let json: String = conn
        .query_row("SELECT sessions_status()", [], |row| row.get(0))
        .unwrap();
    serde_json::from_str::<serde_json::Value>(&json).unwrap()["pending"]
        .as_i64()
        .unwrap()
}

#[test]
fn a_host_on_another_vfs_is_never_joined_by_a_drain() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("excl.db");
    backlog(&path, 4_000);
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let host = immediate(Connection::open_with_flags_and_vfs(&path, flags, "unix-excl").unwrap());
    assert_eq!(search(&host)["indexing"], true);
    assert_eq!(most_drains_over(Duration::from_millis(500)), 0);
    // Each search indexed a slice itself instead.
    let before = pending(&host);
    search(&host);
    assert!(pending(&host) < before);
    while search(&host)["indexing"] == true {}
    assert_eq!(pending(&host), 0);
    drop(host);

    // The same backlog through the default VFS is drained in the
    // background, which the count above would have seen.
    let path = dir.path().join("default.db");
    backlog(&path, 20_000);
    let host = immediate(Connection::open(&path).unwrap());
    search(&host);
    assert_eq!(most_drains_over(Duration::from_millis(500)), 1);
}
