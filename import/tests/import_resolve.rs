//! A session key as people type one: the key, the id a host shows (the
//! key an importer made of it), or a unique start of either.

use session_search::{Error, NewSession, Store};
use session_search_import::resolve_session_key;

/// Creates session `key`, spawned by `spawned_by`.
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

/// The Claude Code session whose subagents the store holds.
const PARENT: &str = "claude-code:4b2030ed-5563-49ea-b703-6a002f2d3cc8";

/// A store of sessions whose keys start alike, with two subagents of
/// [`PARENT`], one whose key does not start with the session's.
fn sessions() -> Store {
    let store = Store::open_in_memory().unwrap();
    for key in [
        PARENT,
        "codex:0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80",
        "openclaw:7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c",
        "openclaw:7c1f0000",
        "agent:main:cli:1",
        "agent:main:cli:10",
        "100%_done",
        "100x_done",
        "\u{10FFFF}\u{10FFFF}z",
    ] {
        create(&store, key, None);
    }
    create(&store, &format!("{PARENT}:agent-a2018e5"), Some(PARENT));
    create(&store, "claude-code:4b2030ee-helper", Some(PARENT));
    store
}

#[test]
fn the_exact_key_wins_over_the_longer_keys_it_starts() {
    let store = sessions();
    let resolve = |text: &str| resolve_session_key(&store, text).unwrap();
    assert_eq!(resolve("agent:main:cli:1"), "agent:main:cli:1");
    assert_eq!(resolve(PARENT), PARENT);
    assert_eq!(resolve("agent:main:cli:10"), "agent:main:cli:10");
}

#[test]
fn a_prefix_of_the_key_or_of_the_id_a_host_shows_resolves() {
    let store = sessions();
    let resolve = |text: &str| resolve_session_key(&store, text).unwrap();
    // A prefix of the key, or of the part after an importer's `<format>:`.
    assert_eq!(
        resolve("codex:01"),
        "codex:0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80"
    );
    assert_eq!(
        resolve("0197"),
        "codex:0197a5c4-8e21-7d40-b5f3-6a2c9e1d4f80"
    );
    // The id a host shows, whole, is its session's, not its subagent's.
    assert_eq!(resolve("4b2030ed-5563-49ea-b703-6a002f2d3cc8"), PARENT);
    assert_eq!(
        resolve("4b2030ed-5563-49ea-b703-6a002f2d3cc8:agent"),
        "claude-code:4b2030ed-5563-49ea-b703-6a002f2d3cc8:agent-a2018e5"
    );
    assert_eq!(
        resolve("7c1e"),
        "openclaw:7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c"
    );
}

#[test]
fn like_wildcards_and_the_highest_character_are_plain_text() {
    let store = sessions();
    let resolve = |text: &str| resolve_session_key(&store, text);
    // Characters LIKE would take as wildcards are plain text.
    assert_eq!(resolve("100%").unwrap(), "100%_done");
    assert_eq!(resolve("100x_").unwrap(), "100x_done");
    assert!(matches!(resolve("100_"), Err(Error::NoSessionMatches(_))));
    // A prefix of only the highest character has no text above its range.
    assert_eq!(resolve("\u{10FFFF}").unwrap(), "\u{10FFFF}\u{10FFFF}z");
}

#[test]
fn a_prefix_shared_only_by_a_session_and_its_subagents_is_the_sessions() {
    let store = sessions();
    let resolve = |text: &str| resolve_session_key(&store, text).unwrap();
    // The subagent that starts with it is in the tree by its spawned_by,
    // not by its key.
    assert_eq!(resolve("4b2030ed"), PARENT);
    assert_eq!(resolve("4b2030e"), PARENT);
    assert_eq!(resolve("claude-code:4b2030e"), PARENT);
}

#[test]
fn an_ambiguous_prefix_counts_the_sessions_it_starts_and_names_some() {
    let store = sessions();
    let resolve = |text: &str| resolve_session_key(&store, text);
    // `c` is the start of the Claude Code and Codex keys: each counted once.
    match resolve("c") {
        Err(Error::AmbiguousSession {
            count, examples, ..
        }) => {
            assert_eq!(count, 4);
            assert_eq!(
                examples,
                [
                    PARENT,
                    "claude-code:4b2030ed-5563-49ea-b703-6a002f2d3cc8:agent-a2018e5",
                    "claude-code:4b2030ee-helper"
                ]
            );
        }
        other => panic!("{other:?}"),
    }
    let e = resolve("7c1").unwrap_err();
    assert!(
        matches!(&e, Error::AmbiguousSession { count: 2, examples, .. } if examples.len() == 2),
        "{e:?}"
    );
    assert!(
        e.to_string().starts_with("\"7c1\" starts 2 session keys, such as openclaw:7c1e4b2a-5d3f-4e8a-9b6c-2f1d0e9a8b7c, openclaw:7c1f0000"),
        "{e}"
    );
}

#[test]
fn text_that_starts_no_key_matches_no_session() {
    let store = sessions();
    for missing in ["", "nobody", "claude-code:ffff"] {
        let e = resolve_session_key(&store, missing).unwrap_err();
        assert!(matches!(e, Error::NoSessionMatches(_)), "{e:?}");
        assert!(e.to_string().contains(&format!("{missing:?}")), "{e}");
    }
}

#[test]
fn the_range_condition_of_each_candidate_is_answered_by_the_primary_key() {
    let store = sessions();
    let plan: Vec<String> = store
        .connection()
        .prepare("EXPLAIN QUERY PLAN SELECT count(*) FROM sessions WHERE session_key >= ?1 AND session_key < ?2")
        .unwrap()
        .query_map(["a", "b"], |row| row.get(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        plan.iter().any(|step| step.contains(
            "USING COVERING INDEX sqlite_autoindex_sessions_1 (session_key>? AND session_key<?)"
        )),
        "{plan:?}"
    );
}
