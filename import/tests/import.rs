//! The importers on real and realistic transcripts: Claude Code (the shared
//! fixtures), OpenClaw / pi-agent and Codex (tests/fixtures), re-imports,
//! grown files, and bad input of every kind.

mod common;

use common::import::*;
use common::{options, search};
use serde_json::Value;
use session_search::{Error, IndexingMode, NewSession, SearchOptions, Store, Visibility};
use session_search_import::{
    import_path, origin as origin_of, resolve_session_key, FileProblem, Format, ImportOptions,
    ImportReport, Issue, LineIssue, Origin,
};
use std::fs;
use std::path::{Path, PathBuf};

const MAIN: &str = "claude-code:4b2030ed-5563-49ea-b703-6a002f2d3cc8";
const SUBAGENT: &str = "claude-code:4b2030ed-5563-49ea-b703-6a002f2d3cc8:agent-a2018e5";
const IMAGES: &str = "claude-code:47bf5f5c-9e11-4f51-8a29-7ad38ecdf17c";
const CHECKOUT: &str = "openclaw:7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c";
const POSTMORTEM: &str = "openclaw:3e9d2c1b-8a7f-4c6e-b5d4-1a2b3c4d5e6f";
const NOTES: &str = "openclaw:5b7a9c1d-2e3f-4a5b-8c9d-0e1f2a3b4c5d";
const REFUNDS: &str = "codex:0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80";
const LEGACY: &str = "codex:8d3e6f0a-41b2-4c7d-9e8f-5a6b7c8d9e0f";

#[test]
fn claude_code_session_with_its_subagent() {
    let (store, report) = imported(&claude_fixtures());
    assert_eq!(report.files.len(), 3, "{report:#?}");
    assert_eq!(report.sessions_created(), 3);
    assert_eq!(report.imported(), 6 + 4 + 20);
    assert_eq!(report.already_present(), 0);

    let main = file(&report, "4b2030ed-5563-49ea-b703-6a002f2d3cc8.jsonl");
    assert_eq!(main.format, Some(Format::ClaudeCode));
    assert_eq!(main.session_key.as_deref(), Some(MAIN));
    assert_eq!(main.imported, 6);
    assert_eq!(skipped(main, "progress"), 4);
    assert_eq!(skipped(main, "file-history-snapshot"), 1);
    assert_eq!(skipped(main, "system"), 1);
    assert!(main.issues.is_empty(), "{:?}", main.issues);

    let sub = file(&report, "agent-a2018e5.jsonl");
    assert_eq!(sub.session_key.as_deref(), Some(SUBAGENT));
    assert_eq!(sub.imported, 4);
    assert_eq!(skipped(sub, "progress"), 2);
    assert_eq!(
        session_column(&store, SUBAGENT, "spawned_by").as_deref(),
        Some(MAIN)
    );
    assert_eq!(session_column(&store, MAIN, "spawned_by"), None);
    for key in [MAIN, SUBAGENT, IMAGES] {
        assert_eq!(
            session_column(&store, key, "agent_id").as_deref(),
            Some("claude-code")
        );
    }
    assert_eq!(
        session_column(&store, MAIN, "created_at").as_deref(),
        Some("1769028728342")
    );

    // The first user message hangs from a progress entry, which is skipped:
    // it becomes the root; the tool result follows its call.
    let main_branch = branch(&store, MAIN);
    let prefixes: Vec<&str> = main_branch.iter().map(|id| &id[..8]).collect();
    assert_eq!(
        prefixes,
        ["38047312", "bf3730c2", "bf7b75d1", "184a728a", "9d4c308e", "c8682b86"]
    );
    assert_eq!(column(&store, MAIN, "38047312", "role"), "user");
    assert_eq!(column(&store, MAIN, "184a728a", "role"), "tool");
    assert_eq!(column(&store, MAIN, "bf3730c2", "role"), "assistant");
    assert_eq!(
        column(&store, MAIN, "38047312", "created_at"),
        "1769028799229"
    );

    // The caller's tree holds the subagent: its answer is found from the
    // parent session, and the user's question in both.
    let tree = search(&store, "popular color thai curry", &options(MAIN));
    let sessions: Vec<&str> = tree
        .results
        .iter()
        .map(|h| h.session_key.as_str())
        .collect();
    assert!(
        sessions.contains(&MAIN) && sessions.contains(&SUBAGENT),
        "{sessions:?}"
    );
    let own = SearchOptions {
        visibility: Visibility::Own,
        ..options(MAIN)
    };
    // "Key Findings" is in the subagent's answer and, in the parent, only
    // inside the tool result that carried it back; the thinking blocks are
    // stored, not searchable.
    assert!(search(&store, "\"key findings\"", &own).results.is_empty());
    assert_eq!(hit_sessions(&store, "\"key findings\""), [SUBAGENT]);
    assert!(hits(&store, "\"user wants me to spawn\"").is_empty());
    assert!(hits(&store, "toolu_01KscA8iE8tUT2aCNEUXREzo").is_empty());
    assert!(column(&store, MAIN, "bf3730c2", "content").contains("\"thinking\""));
}

#[test]
fn claude_code_images_comments_meta_and_resumed_branches() {
    let path = claude_fixtures().join("images-in-user-messages.jsonl");
    let (store, report) = imported(&path);
    let images = &report.files[0];
    assert_eq!(images.session_key.as_deref(), Some(IMAGES));
    assert_eq!(images.imported, 20);
    // The two `//` comment lines.
    let lines: Vec<(usize, bool)> = images
        .issues
        .iter()
        .map(|i| (i.line, matches!(i.issue, Issue::NotJson { .. })))
        .collect();
    assert_eq!(lines, [(1, true), (2, true)]);
    assert_eq!(report.skipped_lines().count(), 2);
    assert_eq!(skipped(images, "queue-operation"), 2);
    assert_eq!(skipped(images, "file-history-snapshot"), 3);
    assert_eq!(skipped(images, "summary"), 1);

    // Lines 11-15 replay lines 5-7 under a new root, and line 19 branches
    // from line 15 again: the active branch is the path to the last entry.
    let active = branch(&store, IMAGES);
    let prefixes: Vec<&str> = active.iter().map(|id| &id[..8]).collect();
    assert_eq!(
        prefixes,
        [
            "f512e9ae", "81410eae", "ebb44cf8", "afa79e97", "488dd89d", "c7143558", "53bf8de5",
            "583af010", "4c4bf725", "137c76c7", "a538151b", "cb89eb5b", "2420ac09", "9c7d0d24"
        ]
    );
    assert_eq!(
        store.leaf(IMAGES).unwrap().map(|id| id.to_string()),
        Some(column(&store, IMAGES, "9c7d0d24", "id"))
    );
    // Text said on the abandoned branches is found once, on the active one.
    assert_eq!(
        hits(&store, "friendly robot icon"),
        [(IMAGES.to_owned(), active[4].clone())]
    );
    assert_eq!(hits(&store, "\"session iD\"").len(), 2);

    // Images are stored, not searchable.
    assert!(column(&store, IMAGES, "81410eae", "content").contains("\"image\""));
    assert!(hits(&store, "iVBORw0KGgoAAAANSUhEUg*").is_empty());
    assert!(!hits(&store, "\"what's this an image of\"").is_empty());

    // isMeta text and IDE context are the host's, not the user's.
    assert_eq!(column(&store, IMAGES, "a538151b", "role"), "system");
    assert!(hits(&store, "\"transcript by running\"").is_empty());
    assert_eq!(column(&store, IMAGES, "f512e9ae", "role"), "system");
    assert_eq!(column(&store, IMAGES, "a9f65f98", "role"), "user");
    assert!(column(&store, IMAGES, "a9f65f98", "content").contains("\"context\""));
    assert!(hits(&store, "BRANCH_PLAN").is_empty());
    assert!(hits(&store, "\"opened the file\"").is_empty());
    // The slash command the user typed stays the user's.
    assert_eq!(column(&store, IMAGES, "137c76c7", "role"), "user");
    assert_eq!(hits(&store, "publish-session").len(), 1);
}

#[test]
fn openclaw_sessions_branches_leaf_moves_and_spawns() {
    let (store, report) = imported(&fixtures("openclaw"));
    assert_eq!(report.files.len(), 3, "{report:#?}");
    assert_eq!(report.sessions_created(), 3);
    assert!(report.issues().next().is_none(), "{report:#?}");

    let checkout = file(&report, "7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c.jsonl");
    assert_eq!(checkout.format, Some(Format::OpenClaw));
    assert_eq!(checkout.imported, 9);
    for kind in [
        "model_change",
        "thinking_level_change",
        "weather_report",
        "branch_summary",
        "label",
    ] {
        assert_eq!(skipped(checkout, kind), 1, "{kind}");
    }
    // The two parallel tool results are chained on the active branch; the
    // branch the user left (m6, m7) is stored, not searchable.
    assert_eq!(
        branch(&store, CHECKOUT),
        ["m0000001", "m0000002", "m0000003", "m0000004", "m0000005", "m0000008", "m0000009"]
    );
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM messages WHERE message_id = 'm0000007'"
        ),
        1
    );
    assert!(hits(&store, "ansible").is_empty());
    assert!(hits(&store, "dashboard screenshot").is_empty());
    assert_eq!(hit_sessions(&store, "blue-green switch"), [CHECKOUT]);
    assert_eq!(column(&store, CHECKOUT, "m0000003", "role"), "tool");
    assert!(hits(&store, "ModuleNotFoundError").is_empty());
    assert!(hits(&store, "\"upstream crashed\"").is_empty());
    assert!(column(&store, CHECKOUT, "m0000006", "content").contains("\"image\""));
    assert_eq!(
        column(&store, CHECKOUT, "m0000001", "created_at"),
        "1762074005000"
    );
    assert_eq!(
        session_column(&store, CHECKOUT, "agent_id").as_deref(),
        Some("main")
    );

    // A leaf entry moved the postmortem back to its first answer.
    assert_eq!(branch(&store, POSTMORTEM), ["c0000001", "c0000002"]);
    assert!(hits(&store, "blame intern").is_empty());
    assert_eq!(hit_sessions(&store, "14 minutes"), [POSTMORTEM]);
    assert_eq!(
        session_column(&store, POSTMORTEM, "spawned_by").as_deref(),
        Some(CHECKOUT)
    );
    assert_eq!(
        skipped(
            file(&report, "3e9d2c1b-8a7f-4c6e-b5d4-1a2b3c4d5e6f.jsonl"),
            "leaf"
        ),
        1
    );

    // pi-agent: a shell command is tool output, a compaction is skipped and
    // the message after it follows its parent, extension text is the host's.
    let notes = file(&report, "_5b7a9c1d-2e3f-4a5b-8c9d-0e1f2a3b4c5d.jsonl");
    assert_eq!(notes.session_key.as_deref(), Some(NOTES));
    assert_eq!(
        session_column(&store, NOTES, "agent_id").as_deref(),
        Some("openclaw")
    );
    assert_eq!(
        branch(&store, NOTES),
        ["p0000001", "p0000002", "p0000004", "p0000005"]
    );
    assert_eq!(column(&store, NOTES, "p0000002", "role"), "tool");
    assert_eq!(column(&store, NOTES, "p0000005", "role"), "system");
    assert!(hits(&store, "thursday").is_empty());
    assert!(hits(&store, "standup").is_empty());
    assert_eq!(hit_sessions(&store, "semicolon separators"), [NOTES]);
    // The tree visibility of the first session holds the one it spawned.
    let tree = search(&store, "checkout", &options(CHECKOUT));
    assert!(tree.results.iter().any(|h| h.session_key == POSTMORTEM));
}

#[test]
fn codex_rollouts_without_injected_text_or_duplicate_events() {
    let (store, report) = imported(&fixtures("codex"));
    assert_eq!(report.files.len(), 2);
    assert!(report.issues().next().is_none(), "{report:#?}");

    let refunds = file(&report, "0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80.jsonl");
    assert_eq!(refunds.format, Some(Format::Codex));
    assert_eq!(refunds.session_key.as_deref(), Some(REFUNDS));
    assert_eq!(refunds.imported, 12);
    assert_eq!(skipped(refunds, "event_msg"), 6);
    assert_eq!(skipped(refunds, "turn_context"), 1);
    assert_eq!(
        session_column(&store, REFUNDS, "agent_id").as_deref(),
        Some("codex")
    );
    assert_eq!(
        session_column(&store, REFUNDS, "created_at").as_deref(),
        Some("1748942042497")
    );
    let lines: Vec<String> = [2, 3, 4, 6, 8, 9, 10, 12, 15, 17, 18, 19]
        .iter()
        .map(|n| format!("L{n}"))
        .collect();
    assert_eq!(branch(&store, REFUNDS), lines);

    // Each message once, although event_msg repeats it.
    assert_eq!(
        hits(&store, "double-charges"),
        [(REFUNDS.to_owned(), "L6".to_owned())]
    );
    assert_eq!(hits(&store, "\"unique index\"").len(), 2);
    // Instructions and environment are stored as system text.
    for line in ["L2", "L3", "L4"] {
        assert_eq!(column(&store, REFUNDS, line, "role"), "system");
    }
    assert!(hits(&store, "nextest").is_empty());
    assert!(hits(&store, "zsh").is_empty());
    assert!(hits(&store, "workspace-write").is_empty());
    // Reasoning, tool calls and their output are stored, not searchable.
    assert_eq!(column(&store, REFUNDS, "L9", "role"), "assistant");
    assert_eq!(column(&store, REFUNDS, "L10", "role"), "tool");
    assert_eq!(column(&store, REFUNDS, "L18", "role"), "tool");
    assert!(hits(&store, "\"locating the idempotency lookup\"").is_empty());
    assert!(hits(&store, "find_by_key").is_empty());
    assert!(hits(&store, "cache.get").is_empty());
    let stored: Value = serde_json::from_str(&column(&store, REFUNDS, "L6", "content")).unwrap();
    assert_eq!(stored[0]["type"], "text");
    let call: Value = serde_json::from_str(&column(&store, REFUNDS, "L9", "content")).unwrap();
    assert_eq!(call[0]["type"], "function_call");
    assert_eq!(call[0]["name"], "shell");

    // The old format, recognised by the file name.
    let legacy = file(&report, "rollout-2025-04-18T16-20-11-legacy.jsonl");
    assert_eq!(legacy.session_key.as_deref(), Some(LEGACY));
    assert_eq!(legacy.imported, 2);
    assert_eq!(skipped(legacy, "state"), 2);
    assert_eq!(hit_sessions(&store, "flaky"), [LEGACY]);
}

/// A Codex rollout line of `kind` with `payload`.
fn codex_line(kind: &str, payload: &str) -> String {
    format!(r#"{{"timestamp":"2025-09-16T06:00:00Z","type":"{kind}","payload":{payload}}}"#) + "\n"
}

fn codex_said(role: &str, text: &str) -> String {
    let block = if role == "user" {
        "input_text"
    } else {
        "output_text"
    };
    codex_line(
        "response_item",
        &format!(
            r#"{{"type":"message","role":"{role}","content":[{{"type":"{block}","text":"{text}"}}]}}"#
        ),
    )
}

fn codex_event(kind: &str, text: &str) -> String {
    codex_line(
        "event_msg",
        &format!(r#"{{"type":"{kind}","message":"{text}"}}"#),
    )
}

#[test]
fn codex_agent_message_without_its_twin_in_a_real_rollout() {
    // An answer whose turn was interrupted before its response item was
    // written: only the agent_message event (line 355) holds it.
    // A resumed rollout: its first session_meta names the session.
    const CPOLAR: &str = "codex:9cd28a74-da7e-4458-a91a-fffec2be9d7a";
    let (store, report) = imported(&shared_fixtures("codex").join("Hoper-J-cpolar-connect"));
    assert!(report.issues().next().is_none(), "{report:#?}");
    // The 188 response items and the one event.
    assert_eq!(report.imported(), 188 + 1);
    assert_eq!(
        hits(&store, "现在尝试写入变更"),
        [(CPOLAR.to_owned(), "L355".to_owned())]
    );
    assert_eq!(column(&store, CPOLAR, "L355", "role"), "assistant");
    // The 33 events of user and assistant messages repeat 32 items: each
    // message once.
    assert_eq!(skipped(&report.files[0], "event_msg"), 190 - 1);
    assert_eq!(hits(&store, "\"可以直接放在docstring\"").len(), 1);
    // The id in the resumed rollout's name finds the session it is stored
    // under, whole, with or without `codex:`.
    for typed in [
        "613a9a68-8816-40b2-a2d4-041ade599da6",
        "codex:613a9a68-8816-40b2-a2d4-041ade599da6",
    ] {
        assert_eq!(resolve_session_key(&store, typed).unwrap(), CPOLAR);
    }
    let again = import(
        &store,
        &shared_fixtures("codex").join("Hoper-J-cpolar-connect"),
    );
    assert_eq!((again.imported(), again.already_present()), (0, 189));
}

#[test]
fn codex_events_without_a_twin_are_messages_and_twins_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir
        .path()
        .join("rollout-2025-09-16T06-00-00-0199f0a0-0000-7000-8000-000000000001.jsonl");
    let key = "codex:twins";
    let call = r#"{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}"#;
    let lines = [
        codex_line("session_meta", r#"{"id":"twins","cwd":"/srv"}"#),
        // 2-3: the prompt, then its event (the twin before).
        codex_said("user", "deploy the gateway"),
        codex_event("user_message", "deploy the gateway"),
        codex_line("turn_context", r#"{"cwd":"/srv"}"#),
        // 5-6: the answer's event, then its item (the twin after).
        codex_event("agent_message", "checking the gateway"),
        codex_said("assistant", "checking the gateway"),
        // 7: an answer never written as an item; the call after it waits
        // behind it and keeps its place.
        codex_event("agent_message", "rolling back the canary"),
        codex_line("response_item", call),
        codex_line(
            "event_msg",
            r#"{"type":"turn_aborted","reason":"interrupted"}"#,
        ),
        // 10: a prompt only its event holds.
        codex_event("user_message", "resume with the canary"),
        codex_line("turn_context", r#"{"cwd":"/srv"}"#),
        // 12: the file ends with an event whose twin may still come.
        codex_event("agent_message", "the canary is green"),
    ];
    fs::write(&path, lines.concat()).unwrap();
    written_ago(&path, -60);
    let (store, report) = imported(&path);
    assert!(report.issues().next().is_none(), "{report:#?}");
    assert_eq!(branch(&store, key), ["L2", "L6", "L7", "L8", "L10"]);
    assert_eq!(skipped(&report.files[0], "event_msg"), 3);
    assert_eq!(hits(&store, "gateway").len(), 2);
    assert_eq!(
        hits(&store, "canary"),
        [
            (key.to_owned(), "L10".to_owned()),
            (key.to_owned(), "L7".to_owned())
        ]
    );
    assert_eq!(column(&store, key, "L7", "role"), "assistant");
    assert_eq!(column(&store, key, "L10", "role"), "user");
    assert!(hits(&store, "green").is_empty());

    // Its twin written: the answer once, as its item.
    let grown = [
        lines.concat(),
        codex_said("assistant", "the canary is green"),
    ]
    .concat();
    fs::write(&path, &grown).unwrap();
    written_ago(&path, -60);
    let again = import(&store, &path);
    assert_eq!((again.imported(), again.already_present()), (1, 5));
    assert_eq!(hits(&store, "green"), [(key.to_owned(), "L13".to_owned())]);

    // Without its twin, the turn's end makes it the answer.
    let ended = [
        lines.concat(),
        codex_line("event_msg", r#"{"type":"task_complete"}"#),
    ]
    .concat();
    fs::write(&path, ended).unwrap();
    let (fresh, _) = imported(&path);
    assert_eq!(hits(&fresh, "green"), [(key.to_owned(), "L12".to_owned())]);

    // A file left unwritten since its last event: the turn is over, the
    // event is the answer.
    fs::write(&path, lines.concat()).unwrap();
    written_ago(&path, 60);
    let (quiet, _) = imported(&path);
    assert_eq!(hits(&quiet, "green"), [(key.to_owned(), "L12".to_owned())]);
    // Its twin written after all: the same answer, not a second one.
    fs::write(&path, &grown).unwrap();
    written_ago(&path, -60);
    let late = import(&quiet, &path);
    assert_eq!((late.imported(), late.already_present()), (0, 6));
    assert_eq!(hits(&quiet, "green"), [(key.to_owned(), "L12".to_owned())]);
    assert_eq!(skipped(&late.files[0], "response_item/message"), 1);
}

/// Sets the time `path` was last written to `seconds` ago (negative: still
/// being written, its time ahead of now).
fn written_ago(path: &Path, seconds: i64) {
    let now = std::time::SystemTime::now();
    let offset = std::time::Duration::from_secs(seconds.unsigned_abs());
    let time = match seconds < 0 {
        true => now + offset,
        false => now - offset,
    };
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

#[test]
fn importing_again_adds_nothing() {
    let store = Store::open_in_memory().unwrap();
    let mut first = Vec::new();
    for path in [claude_fixtures(), fixtures("openclaw"), fixtures("codex")] {
        first.push(import(&store, &path));
    }
    let before = store.status().unwrap();
    let leaves: Vec<Option<i64>> = [MAIN, IMAGES, CHECKOUT, POSTMORTEM, REFUNDS]
        .iter()
        .map(|key| store.leaf(key).unwrap())
        .collect();
    for (path, first) in [claude_fixtures(), fixtures("openclaw"), fixtures("codex")]
        .iter()
        .zip(&first)
    {
        let again = import(&store, path);
        assert_eq!(again.imported(), 0);
        assert_eq!(again.sessions_created(), 0);
        assert_eq!(again.already_present(), first.imported());
    }
    let after = store.status().unwrap();
    assert_eq!(
        (after.messages, after.indexed),
        (before.messages, before.indexed)
    );
    assert_eq!(after.integrity.as_deref(), Some("ok"));
    let leaves_after: Vec<Option<i64>> = [MAIN, IMAGES, CHECKOUT, POSTMORTEM, REFUNDS]
        .iter()
        .map(|key| store.leaf(key).unwrap())
        .collect();
    assert_eq!(leaves, leaves_after);
}

/// Writes the first `lines` lines of `source` to `target`.
fn first_lines(source: &Path, lines: usize, target: &Path) {
    let text = fs::read_to_string(source).unwrap();
    let kept: String = text.split_inclusive('\n').take(lines).collect();
    fs::write(target, kept).unwrap();
}

#[test]
fn lines_appended_later_are_picked_up() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in_memory().unwrap();
    let cases = [
        (
            claude_fixtures().join("images-in-user-messages.jsonl"),
            15,
            IMAGES,
            20,
        ),
        (
            fixtures("codex")
                .join("rollout-2025-06-03T09-14-02-0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80.jsonl"),
            12,
            REFUNDS,
            12,
        ),
        (
            fixtures("openclaw")
                .join("agents/main/sessions/7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c.jsonl"),
            11,
            CHECKOUT,
            9,
        ),
    ];
    for (source, cut, key, total) in cases {
        let target = dir.path().join(source.file_name().unwrap());
        first_lines(&source, cut, &target);
        let early = import(&store, &target);
        let early_branch = branch(&store, key);
        fs::copy(&source, &target).unwrap();
        let late = import(&store, &target);
        assert_eq!(late.already_present(), early.imported(), "{key}");
        assert_eq!(early.imported() + late.imported(), total, "{key}");

        // The same as importing the whole file at once.
        let fresh = Store::open_in_memory().unwrap();
        import(&fresh, &source);
        assert_eq!(branch(&store, key), branch(&fresh, key), "{key}");
        assert_ne!(branch(&store, key), early_branch, "{key}");
    }
}

#[test]
fn a_cut_off_last_line_is_reported_then_read_once_complete() {
    let dir = tempfile::tempdir().unwrap();
    let source = fixtures("codex")
        .join("rollout-2025-06-03T09-14-02-0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80.jsonl");
    let target = dir.path().join("rollout-cut.jsonl");
    let text = fs::read_to_string(&source).unwrap();
    let cut = text.find("Do it, and add").unwrap();
    fs::write(&target, &text[..cut]).unwrap();

    let store = Store::open_in_memory().unwrap();
    let report = import(&store, &target);
    let issues: Vec<_> = report.skipped_lines().map(|(_, i)| i.clone()).collect();
    assert_eq!(issues.len(), 1);
    assert_eq!((issues[0].line, &issues[0].issue), (15, &Issue::Truncated));
    assert_eq!(report.imported(), 8);

    fs::write(&target, &text).unwrap();
    let report = import(&store, &target);
    assert_eq!((report.already_present(), report.imported()), (8, 4));
    assert!(report.issues().next().is_none());
    assert_eq!(hits(&store, "regression test").len(), 1);
}

/// A Claude Code entry.
fn claude(kind: &str, uuid: &str, parent: Option<&str>, content: Value) -> String {
    serde_json::json!({
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s1",
        "timestamp": "2025-01-01T00:00:00Z",
        "message": {"role": kind, "content": content},
    })
    .to_string()
}

fn text(s: &str) -> Value {
    serde_json::json!([{"type": "text", "text": s}])
}

fn write_lines(path: &Path, lines: &[&[u8]]) {
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    fs::write(path, bytes).unwrap();
}

#[test]
fn bad_lines_are_skipped_with_their_numbers_and_the_rest_imported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    let deep = "[".repeat(100_000);
    let first = claude("user", "u1", None, text("alpha question"));
    let second = claude("assistant", "a1", Some("u1"), text("bravo answer"));
    let duplicate = claude("assistant", "a1", Some("u1"), text("charlie impostor"));
    let orphan = claude("user", "u2", Some("nowhere"), text("delta orphan"));
    let odd_content = claude("user", "u3", Some("u2"), Value::from(42));
    let no_uuid = r#"{"type":"user","sessionId":"s1","parentUuid":"u2","message":{"role":"user","content":"echo"}}"#;
    let invalid_utf8 =
        b"{\"type\":\"user\",\"uuid\":\"u9\",\"message\":{\"content\":\"\xFF\xFE\"}}";
    let garbage: Vec<u8> = (0..2000u32)
        .map(|i| (i * 7919 % 251) as u8)
        .filter(|&b| b != b'\n')
        .collect();
    let last = claude("assistant", "a2", Some("u2"), text("foxtrot final"));
    write_lines(
        &path,
        &[
            first.as_bytes(),
            b"not json at all",
            b"",
            second.as_bytes(),
            duplicate.as_bytes(),
            b"[1, 2, 3]",
            orphan.as_bytes(),
            odd_content.as_bytes(),
            no_uuid.as_bytes(),
            deep.as_bytes(),
            invalid_utf8,
            &garbage,
            br#"{"type":"mystery_entry","sessionId":"s1","uuid":"m1"}"#,
            last.as_bytes(),
        ],
    );
    let (store, report) = imported(&path);
    let file = &report.files[0];
    assert_eq!(file.format, Some(Format::ClaudeCode));
    assert_eq!(file.imported, 4);
    assert_eq!(skipped(file, "mystery_entry"), 1);
    let issues: Vec<(usize, &str)> = file
        .issues
        .iter()
        .map(|i| {
            let kind = match &i.issue {
                Issue::NotJson { .. } => "not json",
                Issue::NotUnderstood { .. } => "not understood",
                Issue::DuplicateId { first_line: 4, .. } => "duplicate of line 4",
                Issue::UnknownParent { parent } if parent == "nowhere" => "unknown parent",
                other => panic!("unexpected {other:?}"),
            };
            (i.line, kind)
        })
        .collect();
    assert_eq!(
        issues,
        [
            (2, "not json"),
            (5, "duplicate of line 4"),
            (6, "not understood"),
            (7, "unknown parent"),
            (8, "not understood"),
            (9, "not understood"),
            (10, "not json"),
            (11, "not json"),
            (12, "not json"),
        ]
    );
    assert_eq!(report.skipped_lines().count(), 8);
    // The orphan follows the previous message; the first of two ids wins.
    assert_eq!(branch(&store, "claude-code:s1"), ["u1", "a1", "u2", "a2"]);
    assert!(hits(&store, "charlie").is_empty());
    assert_eq!(hits(&store, "bravo").len(), 1);
    // Every issue reads as one line naming what happened.
    for (_, issue) in report.issues() {
        let message = issue.issue.to_string();
        assert!(!message.is_empty() && !message.contains('\n'), "{message}");
    }
}

#[test]
fn a_fifty_megabyte_line_is_skipped_unread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    let huge = claude("user", "u2", Some("a1"), text(&"x".repeat(50 << 20)));
    write_lines(
        &path,
        &[
            claude("user", "u1", None, text("golf before")).as_bytes(),
            claude("assistant", "a1", Some("u1"), text("hotel reply")).as_bytes(),
            huge.as_bytes(),
            claude("assistant", "a2", Some("a1"), text("india after")).as_bytes(),
        ],
    );
    let (store, report) = imported(&path);
    let issues: Vec<_> = report.skipped_lines().map(|(_, i)| i.clone()).collect();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].line, 3);
    assert_eq!(
        issues[0].issue,
        Issue::TooLong {
            bytes: huge.len() as u64,
            limit: 32 << 20
        }
    );
    assert_eq!(report.imported(), 3);
    assert_eq!(branch(&store, "claude-code:s1"), ["u1", "a1", "a2"]);

    // A smaller limit skips more (the format is given: no line is left to
    // recognise it by).
    let store = Store::open_in_memory().unwrap();
    let options = ImportOptions {
        max_line_bytes: 100,
        format: Some(Format::ClaudeCode),
        ..ImportOptions::default()
    };
    let report = import_path(&store, &path, &options).unwrap();
    assert_eq!(report.imported(), 0);
    assert_eq!(report.skipped_lines().count(), 4);
}

#[test]
fn files_that_are_not_transcripts() {
    let dir = tempfile::tempdir().unwrap();
    let garbage: Vec<u8> = (0..5000u32).map(|i| (i * 31 % 256) as u8).collect();
    fs::write(dir.path().join("garbage.jsonl"), &garbage).unwrap();
    fs::write(dir.path().join("empty.jsonl"), b"").unwrap();
    fs::write(
        dir.path().join("other.jsonl"),
        b"{\"hello\":\"world\"}\n[1]\n",
    )
    .unwrap();
    fs::write(dir.path().join("notes.txt"), b"{\"sessionId\":\"x\"}\n").unwrap();
    fs::create_dir(dir.path().join("nested")).unwrap();
    // Only summaries: recognised, but no conversation, so no session.
    fs::write(
        dir.path().join("nested/summaries.jsonl"),
        b"{\"type\":\"summary\",\"summary\":\"Fix login\",\"leafUuid\":\"x\"}\n",
    )
    .unwrap();
    let (store, report) = imported(dir.path());
    let names: Vec<_> = report
        .files
        .iter()
        .map(|f| f.path.strip_prefix(dir.path()).unwrap().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "empty.jsonl",
            "garbage.jsonl",
            "nested/summaries.jsonl",
            "other.jsonl"
        ]
        .map(PathBuf::from)
    );
    for name in ["empty.jsonl", "garbage.jsonl", "other.jsonl"] {
        assert_eq!(
            file(&report, name).problem,
            Some(FileProblem::UnknownFormat),
            "{name}"
        );
    }
    let summaries = file(&report, "summaries.jsonl");
    assert_eq!(summaries.problem, None);
    assert_eq!(summaries.session_key, None);
    assert_eq!(skipped(summaries, "summary"), 1);
    assert_eq!(report.imported(), 0);
    assert_eq!(count(&store, "SELECT count(*) FROM sessions"), 0);

    // Forcing a format reads the file anyway and reports every line.
    let forced = import_path(
        &store,
        &dir.path().join("other.jsonl"),
        &ImportOptions {
            format: Some(Format::OpenClaw),
            ..ImportOptions::default()
        },
    )
    .unwrap();
    assert_eq!(forced.files[0].format, Some(Format::OpenClaw));
    assert_eq!(skipped(&forced.files[0], "(no type)"), 1);
    assert_eq!(forced.skipped_lines().count(), 1);
}

#[test]
fn a_directory_without_transcripts_and_a_missing_path() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("README.md"), "no transcripts here").unwrap();
    let (_, report) = imported(dir.path());
    assert_eq!(report, ImportReport::default());

    let store = Store::open_in_memory().unwrap();
    let missing = dir.path().join("nope");
    match import_path(&store, &missing, &ImportOptions::default()) {
        Err(Error::Io { path, .. }) => assert_eq!(path, missing),
        other => panic!("expected an I/O error, got {other:?}"),
    }
}

#[test]
fn deferred_indexing_during_the_import_and_the_mode_restored() {
    for mode in [IndexingMode::Immediate, IndexingMode::Deferred] {
        let store = Store::open_in_memory().unwrap();
        store.set_indexing(mode).unwrap();
        import(&store, &fixtures("codex"));
        assert_eq!(store.status().unwrap().indexing, mode);
        assert_eq!(store.status().unwrap().pending, 0);
    }
    let store = Store::open_in_memory().unwrap();
    let options = ImportOptions {
        reconcile: false,
        ..ImportOptions::default()
    };
    import_path(&store, &fixtures("codex"), &options).unwrap();
    let status = store.status().unwrap();
    assert_eq!(status.indexed, 0);
    assert!(status.pending > 0);
    while !store.reconcile(3).unwrap().done {}
    assert_eq!(store.status().unwrap().pending, 0);
    assert_eq!(hit_sessions(&store, "flaky"), [LEGACY]);
}

#[test]
fn agent_id_and_format_options() {
    let store = Store::open_in_memory().unwrap();
    let options = ImportOptions {
        agent_id: Some("laptop".into()),
        ..ImportOptions::default()
    };
    import_path(&store, &fixtures("openclaw"), &options).unwrap();
    assert_eq!(
        count(
            &store,
            "SELECT count(*) FROM sessions WHERE agent_id = 'laptop'"
        ),
        3
    );
    assert_eq!("codex".parse::<Format>().unwrap(), Format::Codex);
    // The error names every format, so it never names fewer than exist.
    let error = "claude".parse::<Format>().unwrap_err().to_string();
    let known = error
        .strip_prefix("unknown transcript format \"claude\"; known formats: ")
        .unwrap_or_else(|| panic!("{error}"));
    let names: Vec<&str> = Format::ALL.iter().map(|format| format.name()).collect();
    assert_eq!(known.split(", ").collect::<Vec<_>>(), names);
    let problem = FileProblem::UnknownFormat.to_string();
    assert!(problem.ends_with(&format!("({known})")), "{problem}");
    for format in Format::ALL {
        assert_eq!(format.name().parse::<Format>().unwrap(), format);
    }
}

#[test]
fn parallel_tool_results_stay_on_the_active_branch() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s1.jsonl");
    let call =
        |id: &str| serde_json::json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {}}]);
    let result =
        |id: &str| serde_json::json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]);
    write_lines(
        &path,
        &[
            claude("user", "u1", None, text("run both checks")).as_bytes(),
            claude("assistant", "c1", Some("u1"), call("t1")).as_bytes(),
            claude("assistant", "c2", Some("c1"), call("t2")).as_bytes(),
            claude("user", "r1", Some("c1"), result("t1")).as_bytes(),
            claude("user", "r2", Some("c2"), result("t2")).as_bytes(),
            claude("assistant", "a1", Some("r2"), text("both checks pass")).as_bytes(),
            // A real branch: the user asks again from the first answer.
            claude("user", "u2", Some("u1"), text("only the first check")).as_bytes(),
        ],
    );
    let (store, _) = imported(&path);
    assert_eq!(branch(&store, "claude-code:s1"), ["u1", "u2"]);
    assert!(hits(&store, "\"both checks pass\"").is_empty());
    let a1 = column(&store, "claude-code:s1", "a1", "id")
        .parse()
        .unwrap();
    store.rewind("claude-code:s1", Some(a1)).unwrap();
    assert_eq!(
        branch(&store, "claude-code:s1"),
        ["u1", "c1", "c2", "r1", "r2", "a1"]
    );
}

#[test]
fn a_file_database_with_its_background_reconciler() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("sessions.db")).unwrap();
    let report = import(&store, &claude_fixtures());
    assert_eq!(report.imported(), 30);
    assert_eq!(store.status().unwrap().pending, 0);
    assert_eq!(hit_sessions(&store, "\"key findings\""), [SUBAGENT]);
    drop(store);

    // Another process's view: the same database opened again.
    let store = Store::open(dir.path().join("sessions.db")).unwrap();
    assert_eq!(import(&store, &claude_fixtures()).already_present(), 30);
}

#[test]
fn leaf_entries_in_their_forms() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s2.jsonl");
    let message = |id: &str, parent: Option<&str>, role: &str, text: &str| {
        serde_json::json!({
            "type": "message", "id": id, "parentId": parent,
            "timestamp": "2025-11-02T09:00:00Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}]},
        })
        .to_string()
    };
    let write = |extra: &[&str]| {
        let mut lines = vec![
            r#"{"type":"session","version":3,"id":"s2","timestamp":"2025-11-02T09:00:00Z"}"#
                .to_owned(),
            message("m1", None, "user", "kilo question"),
            message("m2", Some("m1"), "assistant", "lima answer"),
        ];
        lines.extend(extra.iter().map(|l| l.to_string()));
        fs::write(&path, lines.join("\n") + "\n").unwrap();
    };

    write(&[r#"{"type":"leaf","targetId":"m1"}"#]);
    let (store, report) = imported(&path);
    assert!(report.issues().next().is_none(), "{report:#?}");
    assert_eq!(branch(&store, "openclaw:s2"), ["m1"]);
    assert!(hits(&store, "lima").is_empty());

    // An unknown leaf is reported and ignored; a null leaf empties the branch.
    write(&[r#"{"type":"session_state","id":"x1","parentId":"m2","leafId":"nowhere"}"#]);
    let (store, report) = imported(&path);
    let issues: Vec<_> = report
        .issues()
        .map(|(_, i)| (i.line, i.issue.clone()))
        .collect();
    assert_eq!(
        issues,
        [(
            4,
            Issue::UnknownLeaf {
                leaf: "nowhere".into()
            }
        )]
    );
    assert_eq!(branch(&store, "openclaw:s2"), ["m1", "m2"]);
    write(&[r#"{"type":"session_state","leaf_id":null}"#]);
    let (store, _) = imported(&path);
    assert_eq!(store.leaf("openclaw:s2").unwrap(), None);
    assert!(hits(&store, "kilo").is_empty());
}

#[test]
fn origins_name_the_working_directory_and_the_resume_command() {
    let store = Store::open_in_memory().unwrap();
    for path in [claude_fixtures(), fixtures("openclaw"), fixtures("codex")] {
        import(&store, &path);
    }
    let origin = |key: &str| origin_of(&store, key).unwrap().unwrap();
    let main = origin(MAIN);
    assert_eq!(
        main,
        Origin {
            format: Format::ClaudeCode,
            host_id: "4b2030ed-5563-49ea-b703-6a002f2d3cc8".into(),
            cwd: Some("/Users/pete/git/moredip/session-share".into()),
        }
    );
    assert_eq!(
        main.resume_command().as_deref(),
        Some("claude --resume 4b2030ed-5563-49ea-b703-6a002f2d3cc8")
    );
    // A subagent is resumed with the session it ran in.
    assert_eq!(origin(SUBAGENT).resume_command(), main.resume_command());
    // The images transcript names its working directory only after its
    // first entries.
    assert_eq!(origin(IMAGES).cwd, main.cwd);
    assert_eq!(
        origin(REFUNDS).resume_command().as_deref(),
        Some("codex resume 0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80")
    );
    assert_eq!(origin(REFUNDS).cwd.as_deref(), Some("/home/dev/payments"));
    // The old rollout format names no directory.
    assert_eq!(origin(LEGACY).cwd, None);
    let checkout = origin(CHECKOUT);
    assert_eq!(checkout.cwd.as_deref(), Some("/home/dev/shop"));
    assert_eq!(checkout.resume_command(), None);
    assert_eq!(origin(NOTES).cwd.as_deref(), Some("/home/dev/notes"));

    // A session a host wrote with plain SQL has none; a deleted session
    // takes its origin along.
    store
        .create_session(&NewSession {
            session_key: "agent:main:cli:1".into(),
            agent_id: "main".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(origin_of(&store, "agent:main:cli:1").unwrap(), None);
    assert!(store.delete_session(CHECKOUT).unwrap());
    assert_eq!(origin_of(&store, CHECKOUT).unwrap(), None);
    assert_eq!(
        count(&store, "SELECT count(*) FROM session_search_origins"),
        7
    );

    // A database imported before origins were recorded gets them from the
    // next import of the same files.
    store
        .connection()
        .execute_batch("DELETE FROM session_search_origins")
        .unwrap();
    import(&store, &fixtures("codex"));
    assert_eq!(origin(REFUNDS).cwd.as_deref(), Some("/home/dev/payments"));

    // Nothing was ever imported: no table, no origin.
    assert_eq!(
        origin_of(&Store::open_in_memory().unwrap(), MAIN).unwrap(),
        None
    );
}

#[test]
fn openclaw_archives_import_into_their_sessions_without_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("agents/main/sessions");
    fs::create_dir_all(&sessions).unwrap();
    let source = fixtures("openclaw/agents/main/sessions");
    // The live transcript, and the archive /reset left of it with more lines.
    let checkout = "7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c.jsonl";
    first_lines(&source.join(checkout), 6, &sessions.join(checkout));
    fs::copy(
        source.join(checkout),
        sessions.join(format!("{checkout}.reset.2025-11-03T10-00-00.000Z")),
    )
    .unwrap();
    // A deleted session survives only as its archive, header removed: the
    // name still names the session.
    let postmortem = "3e9d2c1b-8a7f-4c6e-b5d4-1a2b3c4d5e6f.jsonl";
    let text = fs::read_to_string(source.join(postmortem)).unwrap();
    let without_header: String = text.split_inclusive('\n').skip(1).collect();
    fs::write(
        sessions.join(format!("{postmortem}.deleted.2025-11-04T08-00-00.000Z")),
        without_header,
    )
    .unwrap();
    // Backups are not transcripts.
    fs::copy(
        source.join(checkout),
        sessions.join(format!("{checkout}.bak-1")),
    )
    .unwrap();

    let store = Store::open_in_memory().unwrap();
    let report = import(&store, dir.path());
    assert_eq!(report.files.len(), 3, "{report:#?}");
    let keys: Vec<Option<&str>> = report
        .files
        .iter()
        .map(|f| f.session_key.as_deref())
        .collect();
    assert_eq!(keys, [Some(POSTMORTEM), Some(CHECKOUT), Some(CHECKOUT)]);
    assert_eq!(report.sessions_created(), 2);
    let (fresh, whole) = imported(&fixtures("openclaw/agents/main"));
    assert_eq!(
        count(&store, "SELECT count(*) FROM messages"),
        count(&fresh, "SELECT count(*) FROM messages")
    );
    assert_eq!(report.imported(), whole.imported());
    assert_eq!(branch(&store, CHECKOUT), branch(&fresh, CHECKOUT));
    assert_eq!(
        hit_sessions(&store, "postmortem"),
        hit_sessions(&fresh, "postmortem")
    );
}

#[test]
fn pi_session_format_1_is_read_as_a_line_of_entries() {
    // pi's first session format: a header, then entries without `id` or
    // `parentId`, each following the one before; one line of this real
    // file holds two entries with no newline between them.
    let transcript = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/fixtures/pi/badlogic-pi-mono/session.jsonl");
    let (store, report) = imported(&transcript);
    let key = "openclaw:5fd1e58c-9635-410e-a644-133a96057c90";
    let session = file(&report, "session.jsonl");
    assert_eq!(session.session_key.as_deref(), Some(key));
    assert!(session.issues.is_empty(), "{:?}", session.issues);
    assert!(session.imported > 450, "{}", session.imported);
    // Both entries of line 440, in order, and the whole file is one branch.
    assert_eq!(column(&store, key, "L440", "role"), "assistant");
    assert_eq!(column(&store, key, "L440.1", "role"), "user");
    let on_branch = count(
        &store,
        &format!("SELECT count(*) FROM messages m JOIN session_search_nodes n ON n.id = m.id WHERE m.session_key = '{key}' AND n.on_branch"),
    );
    assert_eq!(on_branch as usize, session.imported);
    let sessions = hit_sessions(&store, "\"custom tool\"");
    assert!(
        !sessions.is_empty() && sessions.iter().all(|s| s == key),
        "{sessions:?}"
    );
    assert_eq!(import(&store, &transcript).imported(), 0);
}

#[test]
fn claude_code_queued_messages_compactions_and_their_summarisers() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("-home-dev-shop");
    fs::create_dir_all(project.join("s1/subagents")).unwrap();
    let boundary = serde_json::json!({
        "type": "system", "subtype": "compact_boundary", "uuid": "b1", "parentUuid": null,
        "logicalParentUuid": "gone", "sessionId": "s1", "timestamp": "2025-01-01T00:00:00Z",
    })
    .to_string();
    let enqueue = serde_json::json!({
        "type": "queue-operation", "operation": "enqueue", "sessionId": "s1",
        "timestamp": "2025-01-01T00:00:00Z", "content": "also run the linter",
    })
    .to_string();
    let lines = [
        // Compacted before: the boundary's logical parent is not in the file.
        boundary,
        claude("user", "u1", Some("b1"), text("start the build")),
        claude("assistant", "a1", Some("u1"), text("building")),
        // Typed while the agent was busy: written with the parent it had then.
        enqueue,
        claude("assistant", "a2", Some("a1"), text("the build passed")),
        claude(
            "user",
            "u2",
            Some("u1"),
            serde_json::json!("also run the linter"),
        ),
        claude("assistant", "a3", Some("u2"), text("the linter is clean")),
    ];
    let bytes: Vec<&[u8]> = lines.iter().map(|l| l.as_bytes()).collect();
    write_lines(&project.join("s1.jsonl"), &bytes);
    let summary = [
        claude(
            "user",
            "c1",
            None,
            text("Summarise this conversation about the flux capacitor"),
        ),
        claude(
            "assistant",
            "c2",
            Some("c1"),
            text("The flux capacitor was discussed"),
        ),
    ];
    let bytes: Vec<&[u8]> = summary.iter().map(|l| l.as_bytes()).collect();
    write_lines(
        &project.join("s1/subagents/agent-acompact-9f2.jsonl"),
        &bytes,
    );

    let (store, report) = imported(dir.path());
    let main = file(&report, "s1.jsonl");
    assert!(main.issues.is_empty(), "{:?}", main.issues);
    assert_eq!(
        branch(&store, "claude-code:s1"),
        ["u1", "a1", "a2", "u2", "a3"]
    );
    assert_eq!(hit_sessions(&store, "linter"), ["claude-code:s1"; 2]);
    // The summariser's prompt and summary are stored, never found.
    let summariser = "claude-code:s1:agent-acompact-9f2";
    assert_eq!(branch(&store, summariser), ["c1", "c2"]);
    assert_eq!(column(&store, summariser, "c2", "role"), "system");
    assert!(hit_sessions(&store, "flux").is_empty());
}

#[test]
fn a_chat_gateways_metadata_is_context_not_the_users_words() {
    // OpenClaw puts "Conversation info (untrusted metadata)" and a JSON
    // block before what a chat user wrote; this real pi file has two.
    let (store, _) = imported(&Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../shared/fixtures/pi/VolvoxLLC-volvox-bot/37dddbfa-87ea-4c94-b89b-54dfb7ac9640.jsonl",
    ));
    let key = "openclaw:37dddbfa-87ea-4c94-b89b-54dfb7ac9640";
    assert!(hits(&store, "1474233174220603443").is_empty());
    assert!(hits(&store, "untrusted").is_empty());
    let found = hits(&store, "\"evening digest should be\"");
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, key);
    let content = column(&store, key, &found[0].1, "content");
    let blocks: Value = serde_json::from_str(&content).unwrap();
    assert_eq!(blocks[0]["type"], "context");
    assert!(blocks[0]["text"]
        .as_str()
        .unwrap()
        .contains("1474233174220603443"));
    assert_eq!(
        blocks[1]["text"],
        "The evening digest should be at 10 PM EST"
    );
}

const CHATGPT_LOGO: &str = "chatgpt:e96087ed-b714-4a54-a06a-e425db1680bd";
const CHATGPT_OSCAR: &str = "chatgpt:65e5bb56-a41c-407c-8e90-6261edbed4fa";
const CHATGPT_MERMAID: &str = "chatgpt:c21a4db5-68eb-471a-b590-bb6ef7b81b42";

/// The ChatGPT data export fixture's `conversations.json`.
fn chatgpt_export() -> PathBuf {
    shared_fixtures("chatgpt").join("pkuppens-my_chat_gpt/conversations.json")
}

/// The export as `conversations.json` and again as `user.json` in a new
/// directory, and that directory imported.
fn chatgpt_export_imported() -> (tempfile::TempDir, Store, ImportReport) {
    let export = chatgpt_export();
    let dir = tempfile::tempdir().unwrap();
    fs::copy(&export, dir.path().join("conversations.json")).unwrap();
    fs::copy(&export, dir.path().join("user.json")).unwrap();
    let (store, report) = imported(dir.path());
    (dir, store, report)
}

#[test]
fn a_chatgpt_export_is_read_from_conversations_json_alone() {
    // A directory import reads `conversations.json`, and no other `*.json`.
    let (_dir, store, report) = chatgpt_export_imported();
    assert_eq!(report.files.len(), 1, "{report:#?}");
    let file = &report.files[0];
    assert_eq!(file.format, Some(Format::ChatGpt));
    assert_eq!((file.sessions, file.sessions_created), (192, 192));
    assert_eq!(report.sessions_created(), 192);
    assert_eq!(report.imported(), 1368);
    assert!(file.issues.is_empty(), "{:?}", file.issues);
    // Each tree's root node and its empty system prompt are not messages.
    assert_eq!(skipped(file, "node without a message"), 192);
    assert_eq!(skipped(file, "system message without text"), 192);
    assert_eq!(
        roles(&store, "chatgpt:"),
        [
            ("assistant".to_owned(), 686),
            ("tool".to_owned(), 37),
            ("user".to_owned(), 645)
        ]
    );
    assert_eq!(
        session_column(&store, CHATGPT_LOGO, "agent_id").as_deref(),
        Some("chatgpt")
    );
    // Times: the export's seconds, in milliseconds.
    assert_eq!(
        session_column(&store, CHATGPT_OSCAR, "created_at").as_deref(),
        Some("1686142873878")
    );
    assert_eq!(
        column(&store, CHATGPT_OSCAR, "5ff9c6a7", "created_at"),
        "1686143272885"
    );
}

#[test]
fn the_branch_chatgpt_shows_is_the_active_one() {
    let (_dir, store, _) = chatgpt_export_imported();
    // `current_node`: the regenerated answer is searchable, the one it
    // replaced stored only.
    let logo = branch(&store, CHATGPT_LOGO);
    assert!(logo.iter().any(|id| id.starts_with("d80333b5")));
    assert!(!logo.iter().any(|id| id.starts_with("50d1ea72")));
    assert_eq!(
        hits(&store, "B2B2B2"),
        [(
            CHATGPT_LOGO.to_owned(),
            "d80333b5-678d-4c76-b562-80a23dbfad0d".to_owned()
        )]
    );
    assert!(hits(&store, "D3D3D3").is_empty());
    assert_eq!(
        column(&store, CHATGPT_LOGO, "50d1ea72", "role"),
        "assistant"
    );
    let oscar = branch(&store, CHATGPT_OSCAR);
    assert_eq!(
        oscar.last().unwrap(),
        "a0fa2b19-5c76-4f65-b1bd-97f3e3a193d3"
    );
    assert_eq!(
        oscar.len(),
        26,
        "the 28 nodes to current_node less the root and system prompt"
    );
}

#[test]
fn chatgpt_browser_calls_and_plugin_answers_are_stored_not_searchable() {
    let (_dir, store, _) = chatgpt_export_imported();
    // The user's words and the answers are searchable.
    assert!(hits(&store, "rentapin")
        .iter()
        .any(|(key, _)| key == "chatgpt:58f522f1-b174-492d-a52c-5240dacc06d0"));
    assert!(hits(&store, "open_url").is_empty());
    assert_eq!(
        column(&store, CHATGPT_OSCAR, "5ff9c6a7", "role"),
        "assistant"
    );
    assert!(column(&store, CHATGPT_OSCAR, "5ff9c6a7", "content").contains("\"tool_use\""));
    assert_eq!(column(&store, CHATGPT_MERMAID, "90635e02", "role"), "tool");
    assert!(!hits(&store, "high load of requests for rendering")
        .iter()
        .any(|(_, id)| id.starts_with("90635e02")));
}

#[test]
fn a_chatgpt_export_again_adds_nothing_and_a_later_one_moves_the_branch() {
    let (dir, store, _) = chatgpt_export_imported();
    let again = import(&store, dir.path());
    assert_eq!((again.imported(), again.already_present()), (0, 1368));
    assert_eq!(again.sessions_created(), 0);

    // A later export where the user switched back to the first answer:
    // nothing new, but the branch follows.
    let mut conversations: Value =
        serde_json::from_slice(&fs::read(chatgpt_export()).unwrap()).unwrap();
    let logo = conversations
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["id"] == CHATGPT_LOGO.trim_start_matches("chatgpt:"))
        .unwrap();
    logo["current_node"] = "50d1ea72-f1b0-4814-ada5-2bf66276ad16".into();
    fs::write(
        dir.path().join("conversations.json"),
        serde_json::to_vec(&conversations).unwrap(),
    )
    .unwrap();
    let switched = import(&store, dir.path());
    assert_eq!(switched.imported(), 0);
    assert_eq!(hits(&store, "D3D3D3").len(), 1);
    assert!(hits(&store, "B2B2B2").is_empty());
}

#[test]
fn a_cut_off_export_imports_the_conversations_before_the_cut() {
    let export = fs::read(chatgpt_export()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("conversations.json");
    fs::write(&path, &export[..export.len() / 2]).unwrap();
    let (store, report) = imported(&path);
    let file = &report.files[0];
    assert_eq!(file.format, Some(Format::ChatGpt));
    let cut_at = file.sessions + 1;
    assert!(file.sessions > 50, "{}", file.sessions);
    assert_eq!(file.issues.len(), 1, "{:?}", file.issues);
    assert_eq!(file.issues[0].line, cut_at, "the conversation cut off");
    assert_eq!(file.issues[0].issue, Issue::Truncated);
    assert_eq!(
        count(&store, "SELECT count(*) FROM sessions") as usize,
        file.sessions
    );
    // The whole export later adds the rest.
    fs::write(&path, &export).unwrap();
    let rest = import(&store, &path);
    assert_eq!(rest.imported() + rest.already_present(), 1368);
    assert_eq!(rest.sessions_created(), 192 - file.sessions);
    // What is not JSON at all is not an export.
    fs::write(&path, b"<html>ChatGPT</html>").unwrap();
    assert_eq!(
        import(&store, &path).files[0].problem,
        Some(FileProblem::UnknownFormat)
    );
}

const CLAUDE_AI_CALCULATOR: &str = "claude-ai:91098bc8-f2c4-427b-b71b-1e25efa2e871";
const CLAUDE_AI_BASH: &str = "claude-ai:1db4c66e-b369-4e3a-96a9-6c16f8301ee8";

#[test]
fn claude_ai_export_conversations_in_time_order() {
    let folder = shared_fixtures("claude-ai").join("simonw-claude-to-sqlite");
    // Only `conversations.json` is read from a directory: these two copies
    // of exports are named otherwise.
    let (store, report) = imported(&folder);
    assert_eq!(report.files.len(), 0, "{report:#?}");

    let report = import_files_at(
        &store,
        &[folder.join("artifacts.json"), folder.join("example.json")],
    );
    assert!(report
        .files
        .iter()
        .all(|f| f.format == Some(Format::ClaudeAi)));
    assert_eq!(report.sessions_created(), 2);
    assert_eq!(report.imported(), 22);
    assert!(report.issues().next().is_none());
    assert_eq!(
        roles(&store, "claude-ai:"),
        [("assistant".to_owned(), 11), ("user".to_owned(), 11)]
    );
    assert_eq!(
        session_column(&store, CLAUDE_AI_BASH, "agent_id").as_deref(),
        Some("claude-ai")
    );
    assert_eq!(
        session_column(&store, CLAUDE_AI_BASH, "created_at").as_deref(),
        Some("1729229410325")
    );

    // Messages in time order: the export lists a later prompt first.
    let calculator = branch(&store, CLAUDE_AI_CALCULATOR);
    assert_eq!(calculator.len(), 20);
    assert!(calculator[0].starts_with("287b1868"), "{calculator:?}");
    let later = calculator
        .iter()
        .position(|id| id.starts_with("083850f6"))
        .unwrap();
    assert_eq!(later, 6, "{calculator:?}");

    // What the user typed and the answers are searchable; the names of the
    // files they attached are stored, not searchable.
    let mut bash = hits(&store, "bash command");
    bash.sort();
    assert_eq!(
        bash,
        [
            (
                CLAUDE_AI_BASH.to_owned(),
                "12c87835-a63c-430e-a090-bd70d9efb601".to_owned()
            ),
            (
                CLAUDE_AI_BASH.to_owned(),
                "22b34c9c-69c1-46ad-87da-71570a70f107".to_owned()
            )
        ]
    );
    assert!(hits(&store, "onkeyup")
        .iter()
        .any(|(_, id)| id.starts_with("083850f6")));
    assert!(column(&store, CLAUDE_AI_BASH, "22b34c9c", "content").contains("CleanShot"));
    assert!(hits(&store, "CleanShot").is_empty());

    let again = import_files_at(
        &store,
        &[folder.join("artifacts.json"), folder.join("example.json")],
    );
    assert_eq!((again.imported(), again.already_present()), (0, 22));
}

fn import_files_at(store: &Store, files: &[PathBuf]) -> ImportReport {
    session_search_import::import_files(store, files, &ImportOptions::default()).unwrap()
}

#[test]
fn a_claude_ai_export_read_with_a_message_id_moved_then_whole() {
    let text = fs::read_to_string(
        shared_fixtures("claude-ai").join("simonw-claude-to-sqlite/example.json"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("example.json");
    // The human message's `uuid` line swapped with a line of the answer:
    // the human message has no id (skipped), and the answer takes its id.
    let mut lines: Vec<&str> = text.lines().collect();
    lines.swap(9, 23);
    fs::write(&file, lines.join("\n")).unwrap();
    let store = Store::open_in_memory().unwrap();
    import_files_at(&store, std::slice::from_ref(&file));
    assert_eq!(
        branch(&store, CLAUDE_AI_BASH),
        ["22b34c9c-69c1-46ad-87da-71570a70f107"]
    );

    fs::write(&file, &text).unwrap();
    let repaired = import_files_at(&store, std::slice::from_ref(&file));
    assert_eq!((repaired.imported(), repaired.updated()), (1, 1));
    let (whole, _) = imported(&file);
    // The human message takes its role and text back under its id, and the
    // answer is stored once, after it.
    assert_eq!(
        session_messages(&store, CLAUDE_AI_BASH),
        session_messages(&whole, CLAUDE_AI_BASH)
    );
    assert_eq!(
        branch(&store, CLAUDE_AI_BASH),
        branch(&whole, CLAUDE_AI_BASH)
    );
}

/// A conversation in the newer Claude.ai export shape (content blocks,
/// `parent_message_uuid`), written for this test: no real one with a
/// permissive licence was found.
fn claude_ai_tree(current_leaf: Option<&str>) -> Value {
    let message = |uuid: &str, parent: &str, sender: &str, at: &str, content: Value| {
        serde_json::json!({
            "uuid": uuid, "parent_message_uuid": parent, "sender": sender,
            "created_at": at, "text": "", "content": content,
            "attachments": [], "files": [],
        })
    };
    let text = |t: &str| serde_json::json!([{"type": "text", "text": t}]);
    let mut conversation = serde_json::json!({
        "uuid": "c1", "name": "Edits", "created_at": "2025-03-01T10:00:00Z",
        "chat_messages": [
            message("m1", "00000000-0000-4000-8000-000000000000", "human", "2025-03-01T10:00:01Z", text("plan the quarterly offsite")),
            message("m2", "m1", "assistant", "2025-03-01T10:00:02Z", serde_json::json!([
                {"type": "thinking", "thinking": "consider the budget spreadsheet"},
                {"type": "tool_use", "name": "web_search", "input": {"query": "venues"}},
                {"type": "tool_result", "name": "web_search", "content": [{"type": "text", "text": "lakeside venue listing"}]},
                {"type": "text", "text": "Here is an offsite agenda"},
            ])),
            message("m3", "m2", "human", "2025-03-01T10:01:00Z", text("make it in lisbon")),
            message("m4", "m2", "human", "2025-03-01T10:02:00Z", text("make it in porto")),
        ],
    });
    if let Some(leaf) = current_leaf {
        conversation["current_leaf_message_uuid"] = leaf.into();
    }
    serde_json::json!([conversation])
}

#[test]
fn claude_ai_export_trees_edits_and_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("conversations.json");
    fs::write(&path, claude_ai_tree(None).to_string()).unwrap();
    let (store, report) = imported(dir.path());
    assert_eq!(report.files[0].format, Some(Format::ClaudeAi));
    assert_eq!(report.imported(), 4);
    // The edited prompt is a branch; the latest message ends the active one.
    assert_eq!(branch(&store, "claude-ai:c1"), ["m1", "m2", "m4"]);
    assert_eq!(hit_sessions(&store, "porto"), ["claude-ai:c1"]);
    assert!(hits(&store, "lisbon").is_empty());
    // Reasoning, tool calls and their results are stored, not searchable.
    assert_eq!(hits(&store, "agenda").len(), 1);
    for hidden in ["budget spreadsheet", "venues", "lakeside"] {
        assert!(hits(&store, hidden).is_empty(), "{hidden}");
    }
    assert!(column(&store, "claude-ai:c1", "m2", "content").contains("lakeside"));

    // The conversation names its leaf: that branch, with nothing new.
    fs::write(&path, claude_ai_tree(Some("m3")).to_string()).unwrap();
    let again = import(&store, dir.path());
    assert_eq!((again.imported(), again.already_present()), (0, 4));
    assert_eq!(branch(&store, "claude-ai:c1"), ["m1", "m2", "m3"]);
    assert_eq!(hit_sessions(&store, "lisbon"), ["claude-ai:c1"]);
}

const GEMINI_JSONL: &str = "gemini-cli:0ab84937-9fe7-4284-986a-33c832af0b6a";
const GEMINI_JSON: &str = "gemini-cli:2d9ea14f-1e4e-44f6-8bf5-7a7819cb1cd9";

#[test]
fn gemini_cli_sessions_in_both_layouts() {
    let folder = shared_fixtures("gemini-cli");
    // A directory import reads `*.jsonl` and `session-*.json`; these JSON
    // files are named otherwise (and `logs.json`, prompts only, is no
    // session).
    let (store, report) = imported(&folder);
    assert_eq!(report.files.len(), 1, "{report:#?}");
    let jsonl = &report.files[0];
    assert_eq!(jsonl.format, Some(Format::GeminiCli));
    assert_eq!(jsonl.session_key.as_deref(), Some(GEMINI_JSONL));
    // A message written again when its tool calls finished replaces the
    // first record of it: 11 messages from 14 message records.
    assert_eq!(jsonl.imported, 11);
    assert_eq!(skipped(jsonl, "$set"), 11);
    assert!(jsonl.issues.is_empty(), "{:?}", jsonl.issues);
    assert_eq!(
        roles(&store, GEMINI_JSONL),
        [
            ("assistant".to_owned(), 6),
            ("system".to_owned(), 3),
            ("user".to_owned(), 2)
        ]
    );
    assert_eq!(
        session_column(&store, GEMINI_JSONL, "agent_id").as_deref(),
        Some("gemini-cli")
    );
    assert_eq!(
        session_column(&store, GEMINI_JSONL, "created_at").as_deref(),
        Some("1776948772759")
    );
    assert_eq!(
        column(&store, GEMINI_JSONL, "8828dd6a", "created_at"),
        "1776948785283"
    );
    let turns = branch(&store, GEMINI_JSONL);
    assert_eq!(turns.len(), 11);
    assert!(turns[0].starts_with("0cf1a565") && turns[10].starts_with("9a505a5d"));
    assert!(column(&store, GEMINI_JSONL, "52e62e67", "content").contains("\"tool_use\""));

    // What the user typed is searchable: `/init`, not the prompt it expands
    // to (kept as context); the CLI's own notes, Gemini's thoughts and its
    // tool calls are stored, not searchable.
    assert_eq!(column(&store, GEMINI_JSONL, "8828dd6a", "role"), "user");
    assert!(hits(&store, "instructional").is_empty());
    assert!(column(&store, GEMINI_JSONL, "8828dd6a", "content").contains("instructional"));
    assert_eq!(column(&store, GEMINI_JSONL, "1b8df650", "role"), "system");
    assert!(hits(&store, "cancelled").is_empty());
    assert!(hits(&store, "Initiating").is_empty());
    assert!(hits(&store, "update_topic").is_empty());
    let uv = hits(&store, "uv");
    assert!(uv.contains(&(
        GEMINI_JSONL.to_owned(),
        "231038fa-bbfb-4b43-9a30-b8b7fcf54895".to_owned()
    )));
    assert!(uv.contains(&(
        GEMINI_JSONL.to_owned(),
        "edf94f05-ab0f-46aa-8811-d3db8103da28".to_owned()
    )));

    // The single-JSON layout, named on the command line.
    let single = folder.join("Mai0313-VibeCodingTracker/test_conversation_gemini.json");
    let logs = folder.join("kvsankar-agent-history/gemini_logs.json");
    let report = import_files_at(&store, &[single.clone(), logs.clone()]);
    assert_eq!(file(&report, "test_conversation_gemini.json").imported, 14);
    assert_eq!(
        file(&report, "gemini_logs.json").problem,
        Some(FileProblem::UnknownFormat)
    );
    assert_eq!(
        roles(&store, GEMINI_JSON),
        [("assistant".to_owned(), 13), ("user".to_owned(), 1)]
    );
    assert!(hits(&store, "CHANGELOG_DEMO")
        .iter()
        .any(|(key, id)| key == GEMINI_JSON && id.starts_with("16d30d0c")));

    // Again: nothing new.
    let again = import_files_at(
        &store,
        &[
            folder.join("Mai0313-VibeCodingTracker/gemini.jsonl"),
            single,
        ],
    );
    assert_eq!((again.imported(), again.already_present()), (0, 25));
}

const AIDER_AFI: &str = "aider:AFI-Protocol-afi-core:2025-07-15T14:53:34";

#[test]
fn aider_chat_histories_one_session_per_run() {
    let folder = shared_fixtures("aider");
    let (store, report) = imported(&folder);
    assert_eq!(report.files.len(), 4, "{report:#?}");
    assert!(report.files.iter().all(|f| f.format == Some(Format::Aider)));
    assert!(report.issues().next().is_none());
    assert_eq!(report.sessions_created(), 26);
    assert_eq!(report.imported(), 379);
    // Runs where aider started and quit hold only its notes.
    assert_eq!(report.skipped_types()["run without conversation"], 9);
    let afi = file(&report, "AFI-Protocol-afi-core/.aider.chat.history.md");
    assert_eq!(afi.sessions, 8);

    assert_eq!(
        session_column(&store, AIDER_AFI, "agent_id").as_deref(),
        Some("AFI-Protocol-afi-core")
    );
    // The run's start (local time, read as UTC) is every message's time.
    assert_eq!(
        session_column(&store, AIDER_AFI, "created_at").as_deref(),
        Some("1752591214000")
    );
    assert_eq!(
        column(&store, AIDER_AFI, "L78", "created_at"),
        "1752591214000"
    );
    let turns = branch(&store, AIDER_AFI);
    assert_eq!(
        &turns[..7],
        ["L41", "L50", "L52", "L60", "L65", "L68", "L74"]
    );
    assert_eq!(column(&store, AIDER_AFI, "L50", "role"), "user");
    assert_eq!(column(&store, AIDER_AFI, "L52", "role"), "assistant");
    assert_eq!(column(&store, AIDER_AFI, "L60", "role"), "system");
    // Two lines typed as one prompt are one message.
    let typed: Value = serde_json::from_str(&column(&store, AIDER_AFI, "L65", "content")).unwrap();
    assert_eq!(typed[0]["text"], "sync-afi\naider-afi");
    // An answer's edit blocks (`>>>>>>> REPLACE` inside a fence) stay in it.
    let answer = column(&store, AIDER_AFI, "L78", "content");
    assert!(answer.contains(">>>>>>> REPLACE") && answer.contains("chmod +x sync-afi.sh"));
    assert_eq!(column(&store, AIDER_AFI, "L112", "role"), "system");

    // Prompts and answers are searchable; aider's notes (token counts,
    // edit errors running over several lines, interrupts) are not.
    let scorer = hits(&store, "SignalScorer");
    assert!(scorer.iter().any(|(_, id)| id == "L1098"));
    assert!(scorer.iter().any(|(_, id)| id == "L1082"));
    assert!(hits(&store, "SearchReplaceNoExactMatch").is_empty());
    assert!(hits(&store, "KeyboardInterrupt").is_empty());
    let afi_run = "aider:AFI-Protocol-afi-core:2025-07-16T2";
    let note = store
        .connection()
        .query_row(
            "SELECT role || content FROM messages WHERE session_key LIKE ?1 || '%' AND message_id = 'L1063'",
            [afi_run],
            |row| row.get::<_, String>(0),
        )
        .unwrap();
    assert!(note.starts_with("system") && note.contains("SearchReplaceNoExactMatch"));

    let again = import(&store, &folder);
    assert_eq!((again.imported(), again.already_present()), (0, 379));
    assert_eq!(again.sessions_created(), 0);
}

/// The AFI history with `before` put ahead of its first run, in a scratch
/// directory kept while the `TempDir` lives.
fn aider_history_after(before: &str) -> (tempfile::TempDir, PathBuf) {
    let source = shared_fixtures("aider").join("AFI-Protocol-afi-core/.aider.chat.history.md");
    let dir = tempfile::tempdir().unwrap();
    let file = dir
        .path()
        .join("AFI-Protocol-afi-core/.aider.chat.history.md");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(
        &file,
        format!("{before}{}", fs::read_to_string(source).unwrap()),
    )
    .unwrap();
    (dir, file)
}

#[test]
fn an_aider_history_with_lines_before_its_first_run() {
    let before: String = (1..=40)
        .map(|n| format!("> note {n} left by an earlier run  \n"))
        .collect();
    let (_dir, file) = aider_history_after(&before);
    let (store, report) = imported(&file);
    assert_eq!(report.files[0].format, Some(Format::Aider));
    // The runs the file holds, at their lines moved by 40.
    assert_eq!(report.files[0].sessions, 8);
    assert_eq!(column(&store, AIDER_AFI, "L90", "role"), "user");
    let issues: Vec<&LineIssue> = report.issues().map(|(_, issue)| issue).collect();
    assert_eq!(
        issues,
        [&LineIssue {
            line: 1,
            issue: Issue::NotUnderstood {
                reason: "40 lines before the first \"# aider chat started at\"".into()
            }
        }]
    );
    assert_eq!(report.skipped_lines().count(), 1);

    // Past the first 64 KB, a run is not looked for.
    let (_dir, far) = aider_history_after(&"filler line of text\n".repeat(4000));
    let (_, report) = imported(&far);
    assert_eq!(report.files[0].problem, Some(FileProblem::UnknownFormat));
}

#[test]
fn the_documented_format_table_names_every_format() {
    let page =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/importing.md"))
            .unwrap();
    let table = page
        .split("`import` reads, per file")
        .nth(1)
        .and_then(|rest| rest.split("A directory is searched").next())
        .unwrap();
    for format in Format::ALL {
        assert!(
            table.contains(&format!("`{}:", format.name())),
            "the format table of docs/importing.md has no session key of {format}"
        );
    }
}
