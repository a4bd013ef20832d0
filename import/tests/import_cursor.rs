//! The Cursor importer: its databases `state.vscdb` (built at test time
//! from the SQL text fixtures in tests/fixtures/cursor), and SpecStory's
//! Markdown exports of Cursor chats (the shared real fixtures).

mod common;

use common::import::*;
use serde_json::Value;
use session_search_import::{Format, Issue};
use std::fs;

const AGENT_CHAT: &str = "cursor:0f1e2d3c-0001-4000-8000-000000000001";
const SUB_COMPOSER: &str = "cursor:0f1e2d3c-0002-4000-8000-000000000002";
const INLINE: &str = "cursor:0f1e2d3c-0003-4000-8000-000000000003";

fn one(key: &str, id: &str) -> Vec<(String, String)> {
    vec![(key.to_owned(), id.to_owned())]
}

#[test]
fn cursor_global_database_composers_bubbles_and_spawns() {
    let dir = tempfile::tempdir().unwrap();
    let db = database_from(
        "cursor",
        "state.sql",
        &dir.path().join("User/globalStorage/state.vscdb"),
    );
    let bytes = fs::read(&db).unwrap();
    let (store, report) = imported(dir.path());
    assert_eq!(report.files.len(), 1, "{report:#?}");
    let file = &report.files[0];
    assert_eq!(file.format, Some(Format::Cursor));
    assert_eq!(file.problem, None);
    assert_eq!(report.sessions_created(), 3);
    assert_eq!(report.imported(), 8);
    assert_eq!(skipped(file, "composer without messages"), 1);
    // A bubble its composer names but that is missing, and a composer that
    // is not JSON, each reported at the composer's number (in key order)
    // with its key.
    let issues: Vec<_> = report.issues().map(|(_, issue)| issue.clone()).collect();
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert_eq!(issues[0].line, 1);
    assert!(
        matches!(&issues[0].issue, Issue::NotUnderstood { reason } if reason.contains("b-0005"))
    );
    assert_eq!(issues[1].line, 5);
    assert!(
        matches!(&issues[1].issue, Issue::NotUnderstood { reason } if reason.contains("0005-4000"))
    );
    // The database is read, never written.
    assert_eq!(fs::read(&db).unwrap(), bytes);

    assert_eq!(
        session_column(&store, AGENT_CHAT, "agent_id").as_deref(),
        Some("cursor")
    );
    assert_eq!(session_column(&store, AGENT_CHAT, "spawned_by"), None);
    assert_eq!(
        session_column(&store, SUB_COMPOSER, "spawned_by").as_deref(),
        Some(AGENT_CHAT)
    );
    assert_eq!(
        session_column(&store, AGENT_CHAT, "created_at").as_deref(),
        Some("1762405380000")
    );
    assert_eq!(
        column(&store, AGENT_CHAT, "b-0001", "created_at"),
        "1762405390000"
    );
    assert_eq!(
        branch(&store, AGENT_CHAT),
        ["b-0001", "b-0002", "b-0003", "b-0004"]
    );
    assert_eq!(column(&store, AGENT_CHAT, "b-0001", "role"), "user");
    assert_eq!(column(&store, AGENT_CHAT, "b-0003", "role"), "assistant");
    let call: Value =
        serde_json::from_str(&column(&store, AGENT_CHAT, "b-0003", "content")).unwrap();
    assert_eq!(call[0]["type"], "tool_use");
    assert_eq!(call[0]["name"], "read_file");
    assert_eq!(call[1]["type"], "tool_result");

    // What the user typed and the answers are searchable; thinking and the
    // tool's result are not.
    assert_eq!(hits(&store, "websocket"), one(AGENT_CHAT, "b-0001"));
    assert_eq!(hits(&store, "thirty"), one(AGENT_CHAT, "b-0004"));
    assert_eq!(
        hits(&store, "reconnectWithBackoff"),
        one(SUB_COMPOSER, "b-0101")
    );
    assert!(hits(&store, "hummingbird").is_empty());
    assert!(hits(&store, "armadillo").is_empty());
    // Inline messages without times have their composer's.
    assert_eq!(hits(&store, "pangolin"), one(INLINE, "c-01"));
    assert_eq!(
        column(&store, INLINE, "c-02", "created_at"),
        "1735732800000"
    );

    let again = import(&store, dir.path());
    assert_eq!((again.imported(), again.already_present()), (0, 8));
    assert_eq!(again.sessions_created(), 0);
}

#[test]
fn a_workspace_database_of_an_older_cursor() {
    let dir = tempfile::tempdir().unwrap();
    database_from(
        "cursor",
        "workspace.sql",
        &dir.path().join("User/workspaceStorage/5f2a9c/state.vscdb"),
    );
    let (store, report) = imported(dir.path());
    let file = &report.files[0];
    assert_eq!(file.format, Some(Format::Cursor), "{report:#?}");
    assert_eq!(report.issues().count(), 0);
    assert_eq!(report.sessions_created(), 2);
    assert_eq!(report.imported(), 4);
    assert_eq!(skipped(file, "chat tab without messages"), 1);
    // Listed here, kept in the global database.
    assert_eq!(skipped(file, "composer listed only"), 1);

    let tab = "cursor:tab-7a1";
    assert_eq!(branch(&store, tab), ["u-1", "a-1"]);
    assert_eq!(
        session_column(&store, tab, "created_at").as_deref(),
        Some("1704103200000")
    );
    assert_eq!(hits(&store, "tapir"), one(tab, "u-1"));
    assert_eq!(hits(&store, "wall"), one(tab, "a-1"));
    assert_eq!(column(&store, tab, "a-1", "role"), "assistant");
    assert_eq!(
        hit_sessions(&store, "lemur"),
        ["cursor:0f1e2d3c-0006-4000-8000-000000000006"; 2]
    );
}

#[test]
fn a_database_of_neither_tool_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("state.vscdb");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
             INSERT INTO ItemTable VALUES ('workbench.explorer.treeViewState', '{}');",
        )
        .unwrap();
    let (_, report) = imported(dir.path());
    assert_eq!(
        report.files[0].problem,
        Some(session_search_import::FileProblem::UnknownFormat)
    );
}

const DELEGATION: &str = "specstory:5817063f-ee56-413b-8ee4-f2cef4e53d69";
const PLAYBOOK: &str = "specstory:349bcc62-0e9a-4999-936a-4f4ee4708d86";
const SKILLZ: &str = "specstory:9ccb9925-163e-43b1-bcd0-40a387b69c76";

#[test]
fn specstory_exports_of_cursor_chats() {
    let folder = shared_fixtures("cursor");
    let (store, report) = imported(&folder);
    assert_eq!(report.files.len(), 4, "{report:#?}");
    assert!(report
        .files
        .iter()
        .all(|f| f.format == Some(Format::SpecStory)));
    assert_eq!(report.issues().count(), 0);
    assert_eq!(report.sessions_created(), 4);
    // One message per turn, as SOURCES-cursor.md counts them.
    assert_eq!(
        roles(&store, "specstory:"),
        [("assistant".into(), 22), ("user".into(), 22)]
    );

    assert_eq!(
        session_column(&store, SKILLZ, "agent_id").as_deref(),
        Some("cursor")
    );
    // The header's time is the session's; a user turn has its own.
    assert_eq!(
        session_column(&store, SKILLZ, "created_at").as_deref(),
        Some("1762405380000")
    );
    assert_eq!(column(&store, SKILLZ, "L7", "created_at"), "1762405680000");
    assert_eq!(column(&store, SKILLZ, "L13", "created_at"), "1762405680000");
    assert_eq!(branch(&store, SKILLZ), ["L7", "L13"]);
    assert_eq!(branch(&store, PLAYBOOK), ["L7", "L13", "L47", "L70"]);

    // The user's words and the answers are searchable; thinking and tool
    // use (commands, their output, patches) are not.
    assert_eq!(hits(&store, "superpowers"), one(DELEGATION, "L7"));
    assert!(hits(&store, "stakeholders").contains(&(SKILLZ.to_owned(), "L13".to_owned())));
    assert!(hits(&store, "mcp_vercel_list_teams").is_empty());
    assert!(hits(&store, "Guiding").is_empty());
    assert!(hits(&store, "DiffEngine").is_empty());
    let answer: Value = serde_json::from_str(&column(&store, SKILLZ, "L13", "content")).unwrap();
    let kinds: Vec<&str> = answer
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"thinking"));
    assert_eq!(kinds.last(), Some(&"text"));
    assert!(kinds.contains(&"tool_use"));

    let again = import(&store, &folder);
    assert_eq!((again.imported(), again.already_present()), (0, 44));
}

/// The text of the shared SpecStory export `name`, and where in a scratch
/// directory (kept while the `TempDir` lives) a test writes its versions.
fn specstory_export(name: &str) -> (String, tempfile::TempDir, std::path::PathBuf) {
    let source = shared_fixtures("cursor")
        .join("daviswhitehead-chef-chopsky")
        .join(name);
    let text = fs::read_to_string(&source).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("history").join(name);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    (text, dir, file)
}

#[test]
fn a_specstory_export_cut_short_then_grown() {
    let (text, _dir, file) =
        specstory_export("2025-10-02_19-43Z-create-branch-for-ai-development-playbook.md");
    let cut: String = text
        .lines()
        .take(50)
        .map(|line| format!("{line}\n"))
        .collect();
    fs::write(&file, cut).unwrap();
    let (store, report) = imported(&file);
    assert_eq!(report.imported(), 3);
    assert_eq!(branch(&store, PLAYBOOK), ["L7", "L13", "L47"]);

    fs::write(&file, &text).unwrap();
    let grown = import(&store, &file);
    // The turn cut at line 50 is read whole now: it takes its longer text.
    assert_eq!(
        (grown.imported(), grown.already_present(), grown.updated()),
        (1, 2, 1)
    );
    assert_eq!(branch(&store, PLAYBOOK), ["L7", "L13", "L47", "L70"]);
    let again = import(&store, &file);
    assert_eq!(
        (again.imported(), again.already_present(), again.updated()),
        (0, 4, 0)
    );
}

#[test]
fn a_damaged_specstory_export_then_the_whole_file() {
    // The line closing the first answer's reasoning moved into its text:
    // the reasoning now runs on through the fences and turns after it. The
    // turn the damage ran on takes its own content again.
    let removed = damaged_then_whole((28, 82));
    assert_eq!(removed, 0);
}

#[test]
fn a_turn_split_off_by_a_damaged_read_is_removed_by_the_whole_file() {
    // A later turn's marker line moved into the first answer, which the
    // damaged read stored as two turns; the whole file holds the second
    // one's text inside the first answer again.
    let removed = damaged_then_whole((29, 165));
    assert_eq!(removed, 1);
}

/// Imports the delegation export with lines `swap`ped, then whole, and
/// checks that the session holds every message as the whole file alone
/// gives it, each once, on the same active branch; returns how many
/// messages the whole file's import removed.
fn damaged_then_whole(swap: (usize, usize)) -> usize {
    let (text, _dir, file) =
        specstory_export("2025-09-24_19-11Z-mastering-delegation-to-ai-agents.md");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.swap(swap.0, swap.1);
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let (store, _) = imported(&file);
    fs::write(&file, &text).unwrap();
    let (whole, _) = imported(&file);
    let messages = |store: &session_search::Store| session_messages(store, DELEGATION);
    assert_ne!(
        messages(&store),
        messages(&whole),
        "the damage changes nothing"
    );
    let repaired = import(&store, &file);
    let (got, expected) = (messages(&store), messages(&whole));
    let ids = |messages: &[(String, String, String)]| -> Vec<String> {
        messages.iter().map(|m| m.0.clone()).collect()
    };
    assert_eq!(ids(&got), ids(&expected));
    for (got, expected) in got.iter().zip(&expected) {
        assert!(got == expected, "{} differs from the whole file's", got.0);
    }
    assert_eq!(branch(&store, DELEGATION), branch(&whole, DELEGATION));
    repaired.removed()
}

/// `(message_id, created_at)` of a session's messages, in the order stored.
fn times(store: &session_search::Store, key: &str) -> Vec<(String, i64)> {
    let mut statement = store
        .connection()
        .prepare("SELECT message_id, created_at FROM messages WHERE session_key = ?1 ORDER BY id")
        .unwrap();
    statement
        .query_map([key], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

const RENAME: &str = "specstory:2025-04-27_20-17-rename-the-config-loader";

#[test]
fn an_older_specstory_export_takes_its_titles_time() {
    let (store, report) = imported(&fixtures("specstory").join(format!("{}.md", &RENAME[10..])));
    assert_eq!(report.files[0].format, Some(Format::SpecStory));
    assert_eq!(report.imported(), 4);
    // `2025-04-27 16:17:16`, no zone: read as UTC.
    let title = 1_745_770_636_000;
    assert_eq!(
        session_column(&store, RENAME, "created_at").as_deref(),
        Some("1745770636000")
    );
    assert_eq!(
        times(&store, RENAME),
        [
            ("L5".into(), title),
            ("L11".into(), title),
            ("L34".into(), title),
            ("L40".into(), title)
        ]
    );
    assert_eq!(branch(&store, RENAME), ["L5", "L11", "L34", "L40"]);
    assert_eq!(hits(&store, "changelog entry"), one(RENAME, "L34"));
}

#[test]
fn an_older_specstory_export_without_a_titles_time_takes_its_names() {
    let name = format!("{}.md", &RENAME[10..]);
    let text = fs::read_to_string(fixtures("specstory").join(&name)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(&name);
    fs::write(&file, text.replace(" (2025-04-27 16:17:16)", "")).unwrap();
    let (store, _) = imported(&file);
    // `2025-04-27_20-17`.
    let named = 1_745_785_020_000;
    assert_eq!(
        session_column(&store, RENAME, "created_at"),
        Some(named.to_string())
    );
    assert!(times(&store, RENAME).iter().all(|(_, at)| *at == named));
}

const BILLING: &str = "specstory:4f1c2a9e-7b3d-4e5f-9a8b-1c2d3e4f5a6b";

#[test]
fn a_specstory_turn_never_starts_before_its_session() {
    let (store, _) =
        imported(&fixtures("specstory").join("2025-11-06_15-07Z-plan-the-billing-migration.md"));
    let (created, later) = (1_762_441_620_000, 1_762_442_460_000);
    assert_eq!(
        session_column(&store, BILLING, "created_at"),
        Some(created.to_string())
    );
    // The first marker's 10:06Z is before the chat was created (15:07Z):
    // the turn starts with the session; the second marker's 15:21Z holds.
    assert_eq!(
        times(&store, BILLING),
        [
            ("L7".into(), created),
            ("L13".into(), created),
            ("L25".into(), later),
            ("L31".into(), later)
        ]
    );
}

#[test]
fn a_specstory_cli_export_gives_answers_their_own_times() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir
        .path()
        .join("2026-07-13_13-40-49Z-fix-the-flaky-test.md");
    fs::write(
        &file,
        "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2026-07-13 13:40:49Z\n\n\
         <!-- Claude Code Session 5c7d5c23 (2026-07-13 13:40:49Z) -->\n\n\
         _**User (2026-07-13 13:40:49Z)**_\n\nfix the flaky test\n\n---\n\n\
         _**Agent (claude-opus-4-1 2026-07-13 13:40:56-0700)**_\n\nLooking at the flaky test now.\n",
    )
    .unwrap();
    let (store, _) = imported(&file);
    let key = "specstory:5c7d5c23";
    // A numeric offset counts: 13:40:56-0700 is 20:40:56Z.
    assert_eq!(
        times(&store, key),
        [
            ("L7".into(), 1_783_950_049_000),
            ("L13".into(), 1_783_975_256_000)
        ]
    );
}
