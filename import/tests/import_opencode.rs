//! The OpenCode importer on the shared fixtures (OpenCode storage trees in
//! the current and the legacy part layout) and on copies of them that grow,
//! are damaged, spawn a sub-agent or undo messages.

mod common;

use common::import::*;
use serde_json::{json, Value};
use session_search::Store;
use session_search_import::{companion_files, origin, Format, Issue};
use std::fs;
use std::path::{Path, PathBuf};

const SMALL: &str = "opencode:s_stage0_small";
const LARGE: &str = "opencode:s_stage0_large";
const DRIFT: &str = "opencode:s_stage0_drift";

/// The shared storage tree of one layout (`storage_v2`, `storage_legacy`).
fn storage(layout: &str) -> PathBuf {
    shared_fixtures("opencode")
        .join("jazzyalex-agent-sessions")
        .join(layout)
}

/// A copy of a shared storage tree in a new temporary directory.
fn copied(layout: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("storage");
    copy_tree(&storage(layout), &target);
    (dir, target)
}

/// Copies the directory `from` and everything in it to `to`.
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        match entry.file_type().unwrap().is_dir() {
            true => copy_tree(&entry.path(), &target),
            false => {
                fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
}

/// Writes `value` as JSON at `path` (under `storage`), making its folders.
fn write_json(storage: &Path, path: &str, value: &Value) {
    let path = storage.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

/// A message of `session` with one text part.
fn add_message(storage: &Path, session: &str, id: &str, role: &str, created: i64, text: &str) {
    write_json(
        storage,
        &format!("message/{session}/{id}.json"),
        &json!({"id": id, "sessionID": session, "role": role,
                "time": {"created": created, "completed": created + 500}}),
    );
    write_json(
        storage,
        &format!("part/{id}/prt_{id}.json"),
        &json!({"id": format!("prt_{id}"), "sessionID": session, "messageID": id,
                "type": "text", "text": text}),
    );
}

/// The stored content of `message` of session `key`.
fn content(store: &Store, key: &str, message: &str) -> Value {
    serde_json::from_str(&column(store, key, message, "content")).unwrap()
}

#[test]
fn storage_trees_in_both_part_layouts() {
    let (_, report) = imported(&shared_fixtures("opencode"));
    assert!(report.issues().next().is_none(), "{report:#?}");
    // One file per session: the session files, not the messages or parts.
    assert_eq!(report.files.len(), 3, "{report:#?}");
    assert!(report
        .files
        .iter()
        .all(|f| f.format == Some(Format::OpenCode)));
    assert_eq!(report.sessions_created(), 3);
    assert_eq!(report.imported(), 2 + 4 + 2);
    assert_eq!(
        file(&report, "ses_s_stage0_large.json").skipped_types.len(),
        2
    );
    assert_eq!(
        skipped(file(&report, "ses_s_stage0_large.json"), "part/step-start"),
        1
    );
}

#[test]
fn opencode_sessions_keep_their_agent_times_and_message_order() {
    let (store, _) = imported(&shared_fixtures("opencode"));
    for key in [SMALL, LARGE, DRIFT] {
        assert_eq!(
            session_column(&store, key, "agent_id").as_deref(),
            Some("opencode")
        );
        assert_eq!(session_column(&store, key, "spawned_by"), None);
    }
    assert_eq!(
        session_column(&store, LARGE, "created_at").as_deref(),
        Some("1730000100000")
    );
    assert_eq!(
        branch(&store, LARGE),
        [
            "m_user_large_1",
            "m_assistant_large_1",
            "m_user_large_2",
            "m_assistant_large_2"
        ]
    );
    assert_eq!(
        column(&store, LARGE, "m_user_large_2", "created_at"),
        "1730000105000"
    );
    assert_eq!(branch(&store, DRIFT), ["m_user_drift", "m_assistant_drift"]);
    assert_eq!(
        roles(&store, "opencode:"),
        [("assistant".into(), 4), ("user".into(), 4)]
    );
}

#[test]
fn what_the_user_typed_and_the_answers_text_parts_are_searchable() {
    let (store, _) = imported(&shared_fixtures("opencode"));
    assert_eq!(
        hits(&store, "hello"),
        [(SMALL.to_owned(), "m_user_small".to_owned())]
    );
    assert_eq!(
        hits(&store, "\"found 2 files\""),
        [(SMALL.to_owned(), "m_assistant_small".to_owned())]
    );
    // The legacy layout's flat parts find their message by messageID.
    assert_eq!(
        hits(&store, "extracted title"),
        [(DRIFT.to_owned(), "m_assistant_drift".to_owned())]
    );
}

#[test]
fn tool_calls_reasoning_files_and_patches_are_stored_never_found() {
    let (store, _) = imported(&shared_fixtures("opencode"));
    // Tool calls and output, reasoning, files, patches and text OpenCode
    // wrote itself.
    for stored in [
        "\"non-existent-directory\"",
        "investigating",
        "cat",
        "\"b.txt\"",
        "error.log",
        "\"exit code 1\"",
        "3f2a1c9e8b7d6540a1b2c3d4e5f60718293a4b5c",
    ] {
        assert!(hits(&store, stored).is_empty(), "{stored}");
    }
    let answer = content(&store, LARGE, "m_assistant_large_1");
    let types: Vec<&str> = answer
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "tool_use",
            "tool_result",
            "context",
            "file",
            "reasoning",
            "compaction",
            "patch"
        ]
    );
    assert_eq!(answer[0]["name"], "bash");
    assert_eq!(answer[0]["input"]["command"], "ls /non-existent-directory");
    assert_eq!(answer[1]["tool_use_id"], "call_large_1");
    assert_eq!(answer[2]["text"], "Command failed with exit code 1.");
}

#[test]
fn where_an_opencode_session_ran_and_how_to_resume_it() {
    let (store, _) = imported(&shared_fixtures("opencode"));
    let small = origin(&store, SMALL).unwrap().unwrap();
    assert_eq!(small.cwd.as_deref(), Some("/tmp/repo"));
    assert_eq!(small.host_id, "s_stage0_small");
    assert_eq!(
        small.resume_command().as_deref(),
        Some("opencode --session s_stage0_small")
    );
}

#[test]
fn storage_trees_imported_again_add_nothing() {
    let (store, _) = imported(&shared_fixtures("opencode"));
    let again = import(&store, &shared_fixtures("opencode"));
    assert_eq!(
        (again.imported(), again.already_present(), again.updated()),
        (0, 8, 0)
    );
    assert_eq!(again.sessions_created(), 0);
}

#[test]
fn pretty_printed_session_files_and_their_message_files() {
    // OpenCode writes its files indented, over many lines.
    let (_dir, storage) = copied("storage_v2");
    let session = storage.join("session/proj_test/ses_s_stage0_small.json");
    let value: Value = serde_json::from_slice(&fs::read(&session).unwrap()).unwrap();
    fs::write(&session, serde_json::to_vec_pretty(&value).unwrap()).unwrap();
    let (store, report) = imported(&session);
    assert_eq!(report.files[0].format, Some(Format::OpenCode));
    assert_eq!(report.imported(), 2);
    assert_eq!(hits(&store, "hello").len(), 1);

    let mut companions = companion_files(&session);
    companions.sort();
    assert_eq!(
        companions,
        [
            storage.join("message/s_stage0_small/msg_0001.json"),
            storage.join("message/s_stage0_small/msg_0002.json")
        ]
    );
    assert!(companion_files(&storage.join("message/s_stage0_small/msg_0001.json")).is_empty());
}

#[test]
fn messages_added_later_are_picked_up_and_nothing_twice() {
    let (_dir, storage) = copied("storage_v2");
    // Files OpenCode names after sessions elsewhere are not sessions.
    write_json(&storage, "session_diff/ses_s_stage0_small.json", &json!([]));
    write_json(&storage, "todo/ses_s_stage0_small.json", &json!([]));
    let store = Store::open_in_memory().unwrap();
    let first = import(&store, &storage);
    assert_eq!(first.imported(), 6);
    assert_eq!(first.files.len(), 2, "{first:#?}");

    add_message(
        &storage,
        "s_stage0_small",
        "msg_3",
        "user",
        1730000010000,
        "rotate the signing keys",
    );
    add_message(
        &storage,
        "s_stage0_small",
        "msg_4",
        "assistant",
        1730000011000,
        "keys rotated",
    );
    let second = import(&store, &storage);
    assert_eq!((second.imported(), second.already_present()), (2, 6));
    assert_eq!(
        branch(&store, SMALL),
        ["m_user_small", "m_assistant_small", "msg_3", "msg_4"]
    );
    assert_eq!(hits(&store, "signing").len(), 1);

    let third = import(&store, &storage);
    assert_eq!(
        (third.imported(), third.already_present(), third.updated()),
        (0, 8, 0)
    );
}

#[test]
fn an_answer_imported_while_it_was_written_is_completed_later() {
    let (_dir, storage) = copied("storage_v2");
    let text_part = storage.join("part/m_assistant_small/002.json");
    let written = fs::read(&text_part).unwrap();
    fs::remove_file(&text_part).unwrap();
    let store = Store::open_in_memory().unwrap();
    import(&store, &storage);
    assert!(hits(&store, "\"found 2 files\"").is_empty());

    // The answer's text arrives: the same message, now with its text.
    fs::write(&text_part, written).unwrap();
    let later = import(&store, &storage);
    assert_eq!((later.imported(), later.updated()), (0, 1));
    assert_eq!(
        hits(&store, "\"found 2 files\""),
        [(SMALL.to_owned(), "m_assistant_small".to_owned())]
    );
    assert_eq!(
        content(&store, SMALL, "m_assistant_small")
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn damaged_message_and_part_files_are_reported_by_path() {
    let (_dir, storage) = copied("storage_v2");
    let store = Store::open_in_memory().unwrap();
    import(&store, &storage);

    // A part cut off, a message that is not JSON.
    let reasoning = storage.join("part/m_assistant_large_1/004.json");
    let bytes = fs::read(&reasoning).unwrap();
    fs::write(&reasoning, &bytes[..bytes.len() / 2]).unwrap();
    let garbage = storage.join("message/s_stage0_large/msg_0005.json");
    fs::write(&garbage, "not json at all").unwrap();

    let (fresh, report) = imported(&storage);
    let issues: Vec<(&Path, String)> = report
        .issues()
        .map(|(_, issue)| match &issue.issue {
            Issue::SkippedFile { path, reason } => (path.as_path(), reason.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert!(issues.contains(&(reasoning.as_path(), "cut off (incomplete JSON)".to_owned())));
    assert!(issues
        .iter()
        .any(|(path, reason)| *path == garbage.as_path() && reason.starts_with("not JSON")));
    assert_eq!(report.skipped_lines().count(), 2);
    // The rest is there.
    assert_eq!(report.imported(), 6);
    assert_eq!(hits(&fresh, "\"step 2\"").len(), 1);

    // A message whose parts were not all read keeps what it had.
    let again = import(&store, &storage);
    assert_eq!((again.imported(), again.updated()), (0, 0));
    assert_eq!(
        content(&store, LARGE, "m_assistant_large_1")
            .as_array()
            .unwrap()
            .len(),
        7
    );
}

#[test]
fn sub_agent_sessions_are_spawned_by_their_parent() {
    let (_dir, storage) = copied("storage_v2");
    write_json(
        &storage,
        "session/proj_test/ses_child.json",
        &json!({"id": "ses_child", "projectID": "proj_test", "parentID": "s_stage0_small",
                "title": "Scan the repository (@explore subagent)", "directory": "/tmp/repo",
                "time": {"created": 1730000002600_i64, "updated": 1730000002900_i64}}),
    );
    add_message(
        &storage,
        "ses_child",
        "msg_c1",
        "user",
        1730000002600,
        "list the quarterly reports",
    );
    add_message(
        &storage,
        "ses_child",
        "msg_c2",
        "assistant",
        1730000002800,
        "no quarterly reports found",
    );
    let (store, report) = imported(&storage);
    assert!(report.issues().next().is_none(), "{report:#?}");
    assert_eq!(
        session_column(&store, "opencode:ses_child", "spawned_by").as_deref(),
        Some(SMALL)
    );
    // The parent's tree holds its sub-agent's words.
    let tree = common::search(&store, "quarterly", &common::options(SMALL));
    assert_eq!(tree.results.len(), 2);
}

#[test]
fn undone_messages_leave_the_active_branch() {
    let (_dir, storage) = copied("storage_v2");
    let session_file = storage.join("session/proj_test/ses_s_stage0_large.json");
    let mut session: Value = serde_json::from_slice(&fs::read(&session_file).unwrap()).unwrap();
    let store = Store::open_in_memory().unwrap();
    import(&store, &storage);
    assert_eq!(hits(&store, "\"step 2\"").len(), 1);

    // `/undo` back to the second prompt: OpenCode hides it and what follows.
    session["revert"] = json!({"messageID": "m_user_large_2"});
    fs::write(&session_file, serde_json::to_vec(&session).unwrap()).unwrap();
    let report = import(&store, &storage);
    assert_eq!(report.imported(), 0);
    assert_eq!(
        branch(&store, LARGE),
        ["m_user_large_1", "m_assistant_large_1"]
    );
    assert!(hits(&store, "\"step 2\"").is_empty());

    // `/redo`: shown again.
    session.as_object_mut().unwrap().remove("revert");
    fs::write(&session_file, serde_json::to_vec(&session).unwrap()).unwrap();
    import(&store, &storage);
    assert_eq!(branch(&store, LARGE).len(), 4);
    assert_eq!(hits(&store, "\"step 2\"").len(), 1);
}
