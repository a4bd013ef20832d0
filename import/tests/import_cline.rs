//! The Cline / Roo Code / Kilo Code importer on task folders written from
//! the tools' source (tests/fixtures/cline, tests/fixtures/roo-code): what
//! the user typed and the answers are searchable, the extension's wrappers,
//! environment details, thinking and tool calls are not; roles, times,
//! sub-tasks, re-imports, rewritten and cut-off conversations.

mod common;

use common::import::*;
use serde_json::Value;
use session_search::Store;
use session_search_import::{
    import_path, is_transcript_name, origin, Format, ImportOptions, Issue, Origin,
};
use std::fs;
use std::path::{Path, PathBuf};

const FIX: &str = "cline:1717400000000";
const PLAN: &str = "cline:1717500000000";
const T1: i64 = 1_717_400_000_000;
const T2: i64 = 1_717_500_000_000;
const PARENT: &str = "roo-code:0b5f3a8e-2c1d-4e7f-9a6b-1c2d3e4f5a6b";
const CHILD: &str = "roo-code:7c9e2d41-5b3a-4f8e-b1d2-3e4f5a6b7c8d";
const VERSIONED: &str = "roo-code:3d6f8a10-9e2b-4c7d-8f1a-2b3c4d5e6f70";
const R0: i64 = 1_718_000_000_000;

/// The Cline fixture's task folders.
fn cline_tasks() -> PathBuf {
    fixtures("cline").join("saoudrizwan.claude-dev/tasks")
}

/// The hits of `query` in `session`, as message ids without their
/// fingerprint (`n7`, `t1718000060000`), sorted.
fn found(store: &Store, query: &str, session: &str) -> Vec<String> {
    let mut ids: Vec<String> = hits(store, query)
        .into_iter()
        .filter(|(key, _)| key == session)
        .map(|(_, id)| id.split('-').next().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// The role of the message at `position` (`n3`) of session `key`.
fn role(store: &Store, key: &str, position: &str) -> String {
    column(store, key, &format!("{position}-"), "role")
}

/// The stored content of the message at `position` of session `key`.
fn content(store: &Store, key: &str, position: &str) -> Value {
    serde_json::from_str(&column(store, key, &format!("{position}-"), "content")).unwrap()
}

/// `tasks/<id>/<file>` of a fixture task copied under `to`.
fn copy_task(from: &Path, to: &Path) -> PathBuf {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
    to.join("api_conversation_history.json")
}

#[test]
fn cline_task_the_users_words_and_the_answers_are_searchable() {
    let (store, report) = imported(&cline_tasks());
    assert_eq!(report.files.len(), 2, "{report:#?}");
    assert!(report.files.iter().all(|f| f.format == Some(Format::Cline)));
    assert!(report.issues().next().is_none(), "{report:#?}");
    assert_eq!(
        file(&report, "1717400000000/api_conversation_history.json").imported,
        12
    );

    // The task, the feedback on a completion, the answer to a question and
    // the feedback on a denied edit, without the extension's wrappers.
    let task = content(&store, FIX, "n1");
    assert_eq!(block_types(&task), ["text", "context"]);
    assert_eq!(
        task[0]["text"],
        "Fix the retry loop in src/retry.ts: it never stops once the attempt cap is reached"
    );
    assert!(task[1]["text"]
        .as_str()
        .unwrap()
        .starts_with("<environment_details>"));
    assert_eq!(found(&store, "jitter", FIX), ["n12", "n7", "n8", "n9"]);
    assert_eq!(found(&store, "please", FIX), ["n9"]);
    assert_eq!(found(&store, "computation", FIX), ["n11"]);
    for typed in ["n1", "n7", "n9", "n11"] {
        assert_eq!(role(&store, FIX, typed), "user", "{typed}");
    }
    // attempt_completion's result and the question asked are the
    // assistant's words; the `[tool for '<question>'] Result:` header
    // repeating the question is not.
    assert_eq!(found(&store, "gives", FIX), ["n6"]);
    assert_eq!(found(&store, "anywhere", FIX), ["n8"]);
    assert_eq!(role(&store, FIX, "n6"), "assistant");
    assert_eq!(
        block_types(&content(&store, FIX, "n6")),
        ["text", "tool_use"]
    );
}

#[test]
fn cline_thinking_tool_calls_and_environment_details_are_stored_not_searchable() {
    let (store, _) = imported(&cline_tasks());
    assert!(found(&store, "comparison", FIX).is_empty());
    assert!(found(&store, "strategies", FIX).is_empty());
    assert!(found(&store, "sleep", FIX).is_empty());
    assert!(found(&store, "VSCode", FIX).is_empty());
    assert_eq!(role(&store, FIX, "n3"), "tool");
    assert_eq!(role(&store, FIX, "n5"), "tool");
    let result = content(&store, FIX, "n3");
    assert_eq!(block_types(&result), ["tool_result", "context"]);
    assert_eq!(result[0]["name"], "read_file");
    assert!(result[0]["content"]
        .as_str()
        .unwrap()
        .contains("await sleep"));
    let call = content(&store, FIX, "n4");
    assert_eq!(block_types(&call), ["thinking", "text", "tool_use"]);
    assert_eq!(call[2]["name"], "replace_in_file");
    assert_eq!(call[2]["input"]["path"], "src/retry.ts");
    assert_eq!(found(&store, "increments", FIX), ["n4"]);
}

#[test]
fn a_cline_task_is_linear_and_timed_from_its_ui_messages() {
    let (store, _) = imported(&cline_tasks());
    // The time of each message: the last thing the panel showed before it
    // joined the conversation.
    let turns = branch(&store, FIX);
    assert_eq!(turns.len(), 12);
    assert!(turns
        .iter()
        .enumerate()
        .all(|(at, id)| id.starts_with(&format!("n{}-", at + 1))));
    assert_eq!(
        session_column(&store, FIX, "created_at"),
        Some(T1.to_string())
    );
    let at = |position: &str| column(&store, FIX, &format!("{position}-"), "created_at");
    assert_eq!(at("n1"), (T1 + 150).to_string());
    assert_eq!(at("n2"), (T1 + 4300).to_string());
    assert_eq!(at("n6"), (T1 + 23100).to_string());
    assert_eq!(at("n7"), (T1 + 90100).to_string());
    assert_eq!(at("n12"), (T1 + 178_100).to_string());
}

#[test]
fn a_cline_task_ran_where_its_environment_details_say() {
    let (store, _) = imported(&cline_tasks());
    // Its folder is the agent.
    assert_eq!(
        session_column(&store, FIX, "agent_id").as_deref(),
        Some("shop-api")
    );
    assert_eq!(
        origin(&store, FIX).unwrap(),
        Some(Origin {
            format: Format::Cline,
            host_id: "1717400000000".into(),
            cwd: Some("/home/ann/projects/shop-api".into()),
        })
    );
}

#[test]
fn cline_native_tool_calls_plan_mode_and_a_resumption() {
    let (store, _) = imported(&cline_tasks());
    // plan_mode_respond's response is the assistant's answer in plan mode.
    assert_eq!(found(&store, "facade", PLAN), ["n4"]);
    assert_eq!(found(&store, "compiling", PLAN), ["n6"]);
    assert_eq!(found(&store, "fixture", PLAN), ["n8"]);
    // The user's reply comes back inside the tool's result.
    assert_eq!(found(&store, "main", PLAN), ["n5"]);
    assert_eq!(role(&store, PLAN, "n5"), "user");
    assert_eq!(
        block_types(&content(&store, PLAN, "n5")),
        ["tool_result", "text", "context"]
    );
    // On resuming: the new words are the user's, the note is the
    // extension's, the screenshot is kept.
    assert_eq!(found(&store, "screenshot", PLAN), ["n7"]);
    assert!(found(&store, "interrupted", PLAN).is_empty());
    assert_eq!(
        block_types(&content(&store, PLAN, "n7")),
        [
            "tool_result",
            "context",
            "context",
            "text",
            "image",
            "context"
        ]
    );
    assert_eq!(role(&store, PLAN, "n3"), "tool");
    // Thinking blocks and tool inputs are not searchable.
    assert!(found(&store, "layout", PLAN).is_empty());
    assert!(found(&store, "recursive", PLAN).is_empty());
    assert_eq!(
        column(&store, PLAN, "n7-", "created_at"),
        (T2 + 7_300_100).to_string()
    );
}

#[test]
fn roo_code_sub_task_spawned_by_its_parent() {
    let (store, report) = imported(&fixtures("roo-code"));
    assert_eq!(report.files.len(), 3, "{report:#?}");
    assert!(report
        .files
        .iter()
        .all(|f| f.format == Some(Format::RooCode)));
    assert!(report.issues().next().is_none(), "{report:#?}");

    assert_eq!(
        session_column(&store, CHILD, "spawned_by").as_deref(),
        Some(PARENT)
    );
    assert_eq!(session_column(&store, PARENT, "spawned_by"), None);
    for key in [PARENT, CHILD] {
        assert_eq!(
            session_column(&store, key, "agent_id").as_deref(),
            Some("shop-api")
        );
    }
    assert_eq!(
        session_column(&store, VERSIONED, "agent_id").as_deref(),
        Some("exporter")
    );
    assert_eq!(
        origin(&store, VERSIONED).unwrap().unwrap().cwd.as_deref(),
        Some("/home/ann/projects/exporter")
    );

    // Messages carry their own times, which are their ids.
    let turns = branch(&store, CHILD);
    assert_eq!(turns.len(), 6);
    assert!(turns[0].starts_with(&format!("t{}-", R0 + 6500)));
    assert_eq!(
        column(&store, CHILD, &turns[2], "created_at"),
        (R0 + 60000).to_string()
    );

    // The sub-task's instructions are searchable where it starts, not in the
    // parent's new_task call; its result, where the sub-task completed, not
    // where the parent got it back.
    let start = format!("t{}", R0 + 6500);
    assert_eq!(found(&store, "Implement", CHILD), [start.as_str()]);
    assert!(found(&store, "Implement", PARENT).is_empty());
    let done = format!("t{}", R0 + 395_000);
    assert_eq!(found(&store, "applied", CHILD), [done.as_str()]);
    assert!(found(&store, "applied", PARENT).is_empty());
    // Feedback inside a denied tool's result is the user's.
    let denied = format!("t{}", R0 + 60000);
    assert_eq!(found(&store, "call", CHILD), [denied.as_str()]);
    assert_eq!(column(&store, CHILD, &turns[2], "role"), "user");
    assert_eq!(column(&store, CHILD, &turns[4], "role"), "tool");
    let feedback = format!("t{}", R0 + 500_000);
    assert_eq!(found(&store, "unlimited", PARENT), [feedback.as_str()]);
    assert!(found(&store, "Orchestrator", PARENT).is_empty());
}

#[test]
fn roo_code_versioned_conversation() {
    let (store, _) = imported(&fixtures("roo-code"));
    assert_eq!(
        roles(&store, VERSIONED),
        [
            ("assistant".into(), 3),
            ("tool".into(), 1),
            ("user".into(), 1)
        ]
    );
    assert_eq!(found(&store, "nightly", VERSIONED).len(), 2);
    assert_eq!(found(&store, "minutes", VERSIONED).len(), 1);
    // Reasoning (an item of its own, or a part) and tool output are not
    // searchable.
    assert!(found(&store, "guessing", VERSIONED).is_empty());
    assert!(found(&store, "scan", VERSIONED).is_empty());
    assert!(found(&store, "since", VERSIONED).is_empty());
}

#[test]
fn importing_again_adds_nothing_and_a_grown_task_adds_what_is_new() {
    let dir = tempfile::tempdir().unwrap();
    let source = cline_tasks().join("1717400000000");
    let file = copy_task(
        &source,
        &dir.path()
            .join("saoudrizwan.claude-dev/tasks/1717400000000"),
    );
    let whole: Vec<Value> = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    let write =
        |messages: &[Value]| fs::write(&file, serde_json::to_string(messages).unwrap()).unwrap();

    write(&whole[..8]);
    let (store, first) = imported(dir.path());
    assert_eq!(first.imported(), 8);
    write(&whole);
    let grown = import(&store, dir.path());
    assert_eq!((grown.imported(), grown.already_present()), (4, 8));
    assert_eq!(grown.sessions_created(), 0);
    let again = import(&store, dir.path());
    assert_eq!((again.imported(), again.already_present()), (0, 12));
    assert_eq!(branch(&store, FIX).len(), 12);

    // A checkpoint restore rewrote the end: the conversation branches where
    // it differs, and what the file holds now is the active branch.
    let mut restored = whole[..9].to_vec();
    restored.push(serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": "<attempt_completion>\n<result>\nJitter is added inline, next to the sleep.\n</result>\n</attempt_completion>"}]}));
    write(&restored);
    let rewritten = import(&store, dir.path());
    assert_eq!((rewritten.imported(), rewritten.already_present()), (1, 9));
    let turns = branch(&store, FIX);
    assert_eq!(turns.len(), 10);
    assert_eq!(turns[..9], first_written(&store, 9));
    assert_eq!(found(&store, "inline", FIX), ["n10"]);
    assert!(found(&store, "computation", FIX).is_empty());
    assert_eq!(count(&store, "SELECT count(*) FROM messages"), 13);
}

/// The ids of the first `n` messages written to the task's session.
fn first_written(store: &Store, n: i64) -> Vec<String> {
    let mut statement = store
        .connection()
        .prepare("SELECT message_id FROM messages WHERE session_key = ?1 ORDER BY id LIMIT ?2")
        .unwrap();
    statement
        .query_map((FIX, n), |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn a_cut_off_task_is_reported_and_what_came_before_imported() {
    let (store, report) = imported(&fixtures("cline").join("cut-off"));
    let task = file(&report, "1717600000000/api_conversation_history.json");
    assert_eq!(task.format, Some(Format::Cline));
    assert_eq!(task.imported, 3);
    let issues: Vec<(usize, &Issue)> = task.issues.iter().map(|i| (i.line, &i.issue)).collect();
    assert!(
        matches!(issues[..], [(4, Issue::Truncated), (4, Issue::SkippedFile { ref path, .. })] if path.ends_with("ui_messages.json")),
        "{issues:?}"
    );
    let key = "cline:1717600000000";
    assert_eq!(found(&store, "orders", key), ["n1"]);
    // Times as far as the panel's file goes.
    assert_eq!(
        column(&store, key, "n3-", "created_at"),
        (1_717_600_003_200_i64).to_string()
    );
}

#[test]
fn the_folder_a_task_is_kept_in_names_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let roo_child = fixtures("roo-code")
        .join("rooveterinaryinc.roo-cline/tasks/7c9e2d41-5b3a-4f8e-b1d2-3e4f5a6b7c8d");
    // Kilo Code's extension kept its tasks as Roo Code did.
    let kilo = copy_task(&roo_child, &dir.path().join("kilocode.kilo-code/tasks/k1"));
    fs::remove_file(kilo.with_file_name("history_item.json")).unwrap();
    // Cline's own data folder, and copies somewhere else.
    let own = copy_task(
        &cline_tasks().join("1717500000000"),
        &dir.path().join(".cline/data/tasks/1717500000000"),
    );
    let copied_cline = copy_task(
        &cline_tasks().join("1717400000000"),
        &dir.path().join("backup/a"),
    );
    let copied_roo = copy_task(&roo_child, &dir.path().join("backup/b"));

    let (store, report) = imported(dir.path());
    assert_eq!(report.files.len(), 4, "{report:#?}");
    let format = |path: &Path| report.files.iter().find(|f| f.path == path).unwrap().format;
    assert_eq!(format(&kilo), Some(Format::KiloCode));
    assert_eq!(format(&own), Some(Format::Cline));
    assert_eq!(format(&copied_cline), Some(Format::Cline));
    assert_eq!(format(&copied_roo), Some(Format::RooCode));
    // Without history_item.json: no parent known, the working directory
    // from the environment details.
    assert_eq!(session_column(&store, "kilo-code:k1", "spawned_by"), None);
    assert_eq!(
        session_column(&store, "kilo-code:k1", "agent_id").as_deref(),
        Some("shop-api")
    );
    assert_eq!(found(&store, "applied", "kilo-code:k1").len(), 1);
    assert!(session_column(&store, "cline:a", "agent_id").is_some());
    assert!(session_column(&store, "roo-code:b", "agent_id").is_some());

    // `--format` wins over the folder.
    let forced = Store::open_in_memory().unwrap();
    let options = ImportOptions {
        format: Some(Format::RooCode),
        ..ImportOptions::default()
    };
    import_path(&forced, &copied_cline, &options).unwrap();
    assert!(session_column(&forced, "roo-code:a", "agent_id").is_some());
}

#[test]
fn only_the_conversation_is_read_from_a_task_folder() {
    assert!(is_transcript_name(Path::new(
        "tasks/1/api_conversation_history.json"
    )));
    for beside in [
        "ui_messages.json",
        "task_metadata.json",
        "history_item.json",
    ] {
        assert!(!is_transcript_name(Path::new(beside)), "{beside}");
    }
    // A task that never reached its first request has only the panel's file.
    let dir = tempfile::tempdir().unwrap();
    let task = dir
        .path()
        .join("saoudrizwan.claude-dev/tasks/1717700000000");
    fs::create_dir_all(&task).unwrap();
    fs::write(
        task.join("ui_messages.json"),
        r#"[{"ts":1717700000000,"type":"say","say":"task","text":"never sent"}]"#,
    )
    .unwrap();
    let (store, report) = imported(dir.path());
    assert!(report.files.is_empty(), "{report:#?}");
    assert_eq!(count(&store, "SELECT count(*) FROM sessions"), 0);
}

#[test]
fn malformed_messages_are_reported_and_the_rest_imported() {
    let dir = tempfile::tempdir().unwrap();
    let task = dir
        .path()
        .join("saoudrizwan.claude-dev/tasks/1717800000000");
    fs::create_dir_all(&task).unwrap();
    fs::write(
        task.join("api_conversation_history.json"),
        concat!(
            r#"[{"role":"user","content":"<task>\nrename the staging bucket\n</task>"},"#,
            r#"7,{"role":"user"},{"role":"narrator","content":"hm"},"#,
            r#"{"role":"assistant","content":[{"type":"text"},"loose",{"type":"tool_use","name":"attempt_completion","input":{"result":5}}]},"#,
            r#"{"role":"assistant","content":"<attempt_completion><result>Renamed the bucket to stage-eu"}]"#,
        ),
    )
    .unwrap();
    fs::write(
        task.join("ui_messages.json"),
        r#"[{"ts":1717800000000,"conversationHistoryIndex":9223372036854775807},{"ts":"soon"},3]"#,
    )
    .unwrap();
    let (store, report) = imported(dir.path());
    let file = &report.files[0];
    assert_eq!(file.format, Some(Format::Cline));
    let lines: Vec<usize> = file.issues.iter().map(|issue| issue.line).collect();
    assert_eq!(lines, [2, 3, 4], "{report:#?}");
    assert!(file
        .issues
        .iter()
        .all(|issue| matches!(issue.issue, Issue::NotUnderstood { .. })));
    assert_eq!(file.imported, 3);
    let key = "cline:1717800000000";
    assert_eq!(found(&store, "staging", key), ["n1"]);
    // A tool call cut off mid-way still shows its answer.
    assert_eq!(found(&store, "renamed", key), ["n6"]);
    assert_eq!(
        session_column(&store, key, "created_at").as_deref(),
        Some("1717800000000")
    );
}
