//! Arbitrary bytes as a transcript: written to a file with a transcript's
//! name (the first byte picks which), imported with each `Format` forced
//! and with the format recognised from the content. No import panics or
//! fails (problems inside a file are reported, not errors); importing the
//! file again adds nothing; every message stored is on a session, and no
//! `(session_key, message_id)` is stored twice.

#![no_main]

use libfuzzer_sys::fuzz_target;
use session_search_import::{import_path, is_transcript_name, Format, ImportOptions};
use session_search::Store;
use std::path::PathBuf;

/// Names the formats' files have, under folders some formats read the
/// session or agent from.
const NAMES: &[&str] = &[
    "projects/-home-dev-app/4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl",
    "projects/-home-dev-app/4b2030ed-5563-49ea-b703-6a002f2d3cc8/subagents/agent-a2018e5.jsonl",
    "agents/main/sessions/7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c.jsonl",
    "agents/main/sessions/7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c.jsonl.reset.2025-11-05T08-30-00",
    "sessions/2025/06/03/rollout-2025-06-03T09-14-02-0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80.jsonl",
    "export/conversations.json",
    "tmp/project/chats/session-2025-10-11T10-00-aaaa.json",
    "tmp/project/chats/session-2025-10-11T10-00-aaaa.jsonl",
    "project/.aider.chat.history.md",
];

/// Longer lines are skipped; small, so that the limit is met.
const MAX_LINE_BYTES: usize = 4096;

thread_local! {
    static DIR: PathBuf = {
        let dir = std::env::temp_dir().join(format!("session-search-fuzz-import-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        dir
    };
}

/// Imports `path` twice into `store` as `format` (recognised when `None`)
/// and checks what every import must hold.
fn import_twice(store: &Store, path: &std::path::Path, format: Option<Format>) {
    let options = ImportOptions {
        format,
        max_line_bytes: MAX_LINE_BYTES,
        ..ImportOptions::default()
    };
    let first = import_path(store, path, &options)
        .unwrap_or_else(|e| panic!("import as {format:?} failed: {e}"));
    for (_, issue) in first.issues() {
        assert!(issue.line >= 1, "{format:?}: an issue without a line: {issue:?}");
    }
    let again = import_path(store, path, &options)
        .unwrap_or_else(|e| panic!("second import as {format:?} failed: {e}"));
    assert_eq!(again.imported(), 0, "{format:?}: a second import added messages: {again:#?}");
    let count = |sql: &str| -> i64 {
        store
            .connection()
            .query_row(sql, [], |row| row.get(0))
            .expect("count")
    };
    assert_eq!(
        count("SELECT count(*) FROM messages WHERE session_key NOT IN (SELECT session_key FROM sessions)"),
        0,
        "{format:?}: a message on no session"
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM (SELECT 1 FROM messages WHERE message_id IS NOT NULL
             GROUP BY session_key, message_id HAVING count(*) > 1)"
        ),
        0,
        "{format:?}: a (session_key, message_id) stored twice"
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, content)) = data.split_first() else {
        return;
    };
    let name = NAMES[usize::from(pick) % NAMES.len()];
    let path = DIR.with(|dir| dir.join(name));
    assert!(is_transcript_name(&path), "{name} is not read by a directory import");
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("create its folder");
    std::fs::write(&path, content).expect("write the transcript");

    let forced = Store::open_in_memory().expect("open a store");
    for format in Format::ALL {
        import_twice(&forced, &path, Some(format));
    }
    let recognised = Store::open_in_memory().expect("open a store");
    import_twice(&recognised, &path, None);
    let _ = std::fs::remove_file(&path);
});
