//! `sessions_search` and `sessions_history` through the wrapper (docs/sql.md,
//! §5): visibility inside the query and before the limit, stale text never
//! returned, reconciliation flags, filters, ordering, limits, and the history
//! window.

mod common;

use common::*;
use session_search::{
    Error, HistoryOptions, IndexingMode, MessageRef, Order, Role, SearchOptions, Store, Visibility,
};
use std::collections::{BTreeMap, BTreeSet};

const LEVELS: [Visibility; 4] = [
    Visibility::Own,
    Visibility::Tree,
    Visibility::Agent,
    Visibility::All,
];

fn keys(response: &session_search::SearchResponse) -> BTreeSet<String> {
    response
        .results
        .iter()
        .map(|h| h.session_key.clone())
        .collect()
}

fn ids(response: &session_search::SearchResponse) -> Vec<i64> {
    response.results.iter().map(|h| h.id).collect()
}

fn error_text(result: Result<impl std::fmt::Debug, Error>) -> String {
    match result {
        Ok(value) => panic!("expected an error, got {value:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn visible_hit_ranked_below_many_invisible_hits_is_still_returned() {
    let store = store();
    session(&store, "main:caller", "main", None);
    // 30 better-ranked hits (short messages that repeat the word) in other
    // sessions of the same agent and of other agents.
    for i in 0..30 {
        let (key, agent) = if i % 2 == 0 {
            (format!("main:other:{i}"), "main")
        } else {
            (format!("rival:{i}"), "rival")
        };
        session(&store, &key, agent, None);
        say(&store, &key, Role::User, "needle needle needle", 100 + i);
    }
    let long = format!("needle {}", "hay and more hay ".repeat(60));
    let mine = say(&store, "main:caller", Role::Assistant, &long, 50);

    // With every session visible the caller's hit is not among the best 25,
    // so a limit applied before the visibility filter would lose it.
    let all = search(&store, "needle", &with("main:caller", Visibility::All, 25));
    assert_eq!(all.results.len(), 25);
    assert!(all.truncated);
    assert!(!ids(&all).contains(&mine), "{all:?}");

    for visibility in [Visibility::Own, Visibility::Tree] {
        let found = search(&store, "needle", &with("main:caller", visibility, 1));
        assert_eq!(ids(&found), [mine], "{visibility:?}");
        assert!(!found.truncated, "{visibility:?}");
    }
    let agent = search(
        &store,
        "needle",
        &with("main:caller", Visibility::Agent, 25),
    );
    assert_eq!(agent.results.len(), 16);
    assert_eq!(agent.results.last().unwrap().id, mine);
    assert!(agent
        .results
        .iter()
        .all(|h| h.session_key.starts_with("main:")));

    // Filters are applied before the limit too.
    let assistant = search(
        &store,
        "needle",
        &SearchOptions {
            roles: Some(vec![Role::Assistant]),
            ..with("main:caller", Visibility::All, 1)
        },
    );
    assert_eq!(ids(&assistant), [mine]);
    let early = search(
        &store,
        "needle",
        &SearchOptions {
            until: Some(60),
            ..with("main:caller", Visibility::All, 1)
        },
    );
    assert_eq!(ids(&early), [mine]);
    let listed = search(
        &store,
        "needle",
        &SearchOptions {
            session_keys: Some(vec!["main:caller".into()]),
            ..with("main:caller", Visibility::All, 1)
        },
    );
    assert_eq!(ids(&listed), [mine]);
}

/// The sessions of the isolation tests: `(key, agent, spawned_by)`.
///
/// main:root → main:c1 → main:c2 → main:c3 (depth 3), main:c1 → rival:spawned
/// (another agent, spawned inside the tree), main:sibling → main:sibling:kid,
/// and rival:root → rival:kid.
const SESSIONS: [(&str, &str, Option<&str>); 9] = [
    ("main:root", "main", None),
    ("main:c1", "main", Some("main:root")),
    ("main:c2", "main", Some("main:c1")),
    ("main:c3", "main", Some("main:c2")),
    ("rival:spawned", "rival", Some("main:c1")),
    ("main:sibling", "main", None),
    ("main:sibling:kid", "main", Some("main:sibling")),
    ("rival:root", "rival", None),
    ("rival:kid", "rival", Some("rival:root")),
];

fn isolation_store() -> Store {
    let store = store();
    for (i, (key, agent, parent)) in SESSIONS.iter().enumerate() {
        session(&store, key, agent, *parent);
        say(
            &store,
            key,
            Role::User,
            &format!("shared words from {key}"),
            i as i64,
        );
    }
    store
}

/// What `caller` may see at `visibility`, from the definitions.
fn expected(caller: &str, visibility: Visibility) -> BTreeSet<String> {
    let agent = |key: &str| SESSIONS.iter().find(|s| s.0 == key).unwrap().1;
    match visibility {
        Visibility::Own => [caller.to_owned()].into(),
        Visibility::Tree => {
            let mut tree: BTreeSet<String> = [caller.to_owned()].into();
            loop {
                let more: Vec<String> = SESSIONS
                    .iter()
                    .filter(|s| s.2.is_some_and(|p| tree.contains(p)) && !tree.contains(s.0))
                    .map(|s| s.0.to_owned())
                    .collect();
                if more.is_empty() {
                    return tree;
                }
                tree.extend(more);
            }
        }
        Visibility::Agent => SESSIONS
            .iter()
            .filter(|s| s.1 == agent(caller))
            .map(|s| s.0.to_owned())
            .collect(),
        Visibility::All => SESSIONS.iter().map(|s| s.0.to_owned()).collect(),
    }
}

#[test]
fn every_visibility_level_isolates_exactly_its_sessions_in_search_and_history() {
    let store = isolation_store();
    assert_eq!(expected("main:root", Visibility::Tree).len(), 5);
    for (caller, ..) in SESSIONS {
        for visibility in LEVELS {
            let want = expected(caller, visibility);
            let found = search(&store, "shared", &with(caller, visibility, 25));
            assert_eq!(keys(&found), want, "{caller} {visibility:?}");
            for (key, ..) in SESSIONS {
                let read = store.history(
                    key,
                    &HistoryOptions {
                        visibility,
                        ..history_options(caller)
                    },
                );
                assert_eq!(
                    read.is_ok(),
                    want.contains(key),
                    "{caller} {visibility:?} reading {key}: {read:?}"
                );
            }
        }
    }
}

#[test]
fn sandboxed_callers_are_clamped_to_their_tree() {
    let store = isolation_store();
    for (caller, ..) in SESSIONS {
        for visibility in LEVELS {
            let clamped = match visibility {
                Visibility::Own => Visibility::Own,
                _ => Visibility::Tree,
            };
            let found = search(
                &store,
                "shared",
                &SearchOptions {
                    sandboxed: true,
                    ..with(caller, visibility, 25)
                },
            );
            assert_eq!(
                keys(&found),
                expected(caller, clamped),
                "{caller} {visibility:?}"
            );
            for (key, ..) in SESSIONS {
                let read = store.history(
                    key,
                    &HistoryOptions {
                        visibility,
                        sandboxed: true,
                        ..history_options(caller)
                    },
                );
                assert_eq!(
                    read.is_ok(),
                    expected(caller, clamped).contains(key),
                    "{caller} {visibility:?} reading {key}"
                );
            }
        }
    }
    // Through SQL as well.
    let json = store
        .connection()
        .query_row(
            "SELECT sessions_search('shared', '{\"caller\":\"main:c2\",\"visibility\":\"all\",\"sandboxed\":true,\"limit\":25}')",
            [],
            |row| row.get::<_, String>(0),
        )
        .unwrap();
    assert!(
        json.contains("main:c3") && !json.contains("main:root"),
        "{json}"
    );
}

#[test]
fn a_spawned_by_cycle_terminates_and_stays_inside_the_cycle() {
    let store = store();
    session(&store, "loop:a", "main", Some("loop:b"));
    session(&store, "loop:b", "main", Some("loop:a"));
    session(&store, "loop:outside", "main", None);
    for key in ["loop:a", "loop:b", "loop:outside"] {
        say(&store, key, Role::User, "circle", 1);
    }
    let found = search(&store, "circle", &with("loop:a", Visibility::Tree, 25));
    assert_eq!(
        keys(&found),
        ["loop:a".to_owned(), "loop:b".to_owned()].into()
    );
}

#[test]
fn a_missing_or_unknown_caller_is_an_error_for_every_visibility() {
    let store = isolation_store();
    for visibility in LEVELS {
        for caller in [None, Some(""), Some("nobody:here")] {
            let search_options = SearchOptions {
                caller: caller.map(Into::into),
                visibility,
                ..SearchOptions::default()
            };
            let err = error_text(try_search(&store, "shared", &search_options));
            assert!(err.contains("caller"), "{err}");
            let sql = search_sql(&store, "shared", &search_options).unwrap_err();
            assert!(sql.contains("caller"), "{sql}");
            let history_err = error_text(store.history(
                "main:root",
                &HistoryOptions {
                    caller: caller.map(Into::into),
                    visibility,
                    ..HistoryOptions::default()
                },
            ));
            assert!(history_err.contains("caller"), "{history_err}");
        }
    }
    let sql = store
        .connection()
        .query_row("SELECT sessions_search('shared', '{}')", [], |row| {
            row.get::<_, String>(0)
        })
        .unwrap_err()
        .to_string();
    assert!(sql.contains("caller is required"), "{sql}");
}

#[test]
fn rewound_and_switched_away_text_is_never_returned() {
    let store = store();
    let key = "main:branchy";
    session(&store, key, "main", None);
    let a = say(&store, key, Role::User, "alpha common", 1);
    let b = say(&store, key, Role::Assistant, "bravo common", 2);
    let c = say(&store, key, Role::User, "charlie common", 3);
    let find = |q: &str| ids(&search(&store, q, &with(key, Visibility::Own, 25)));

    store.rewind(key, Some(a)).unwrap();
    assert!(find("charlie").is_empty());
    assert!(find("bravo").is_empty());
    assert_eq!(find("common"), [a]);
    let shown: Vec<i64> = history(&store, key, &history_options(key))
        .messages
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(shown, [a]);

    // A branch from a, then back to c: the branch's text disappears.
    let d = append(&store, key, Some(a), Role::User, "delta common", 4, None);
    assert_eq!(find("delta"), [d]);
    store.rewind(key, Some(c)).unwrap();
    assert!(find("delta").is_empty());
    assert_eq!(find("charlie"), [c]);
    let mut all = find("common");
    all.sort();
    assert_eq!(all, [a, b, c]);
    let err = error_text(store.history(
        key,
        &HistoryOptions {
            around: Some(MessageRef::Id(d)),
            ..history_options(key)
        },
    ));
    assert!(err.contains("not on the active branch"), "{err}");

    // Rewound to empty: nothing at all.
    store.rewind(key, None).unwrap();
    assert!(find("common").is_empty());
    assert!(history(&store, key, &history_options(key))
        .messages
        .is_empty());
}

#[test]
fn rewound_text_is_not_returned_when_it_was_queued_for_deferred_indexing() {
    let store = store();
    let key = "main:deferred";
    session(&store, key, "main", None);
    store.set_indexing(IndexingMode::Deferred).unwrap();
    let a = say(&store, key, Role::User, "kept words", 1);
    say(&store, key, Role::User, "dropped words", 2);
    store.rewind(key, Some(a)).unwrap();
    let found = search(&store, "words", &with(key, Visibility::Own, 25));
    assert_eq!(ids(&found), [a]);
    store.reconcile(1000).unwrap();
    assert!(search(&store, "dropped", &with(key, Visibility::Own, 25))
        .results
        .is_empty());
}

#[test]
fn deleted_sessions_and_messages_are_never_returned() {
    let store = store();
    session(&store, "main:keep", "main", None);
    session(&store, "main:gone", "main", None);
    let kept = say(&store, "main:keep", Role::User, "survivor phrase", 1);
    let dropped = say(&store, "main:keep", Role::User, "removed phrase", 2);
    say(&store, "main:gone", Role::User, "vanished phrase", 3);
    let all = |q: &str| ids(&search(&store, q, &with("main:keep", Visibility::All, 25)));
    assert_eq!(all("phrase").len(), 3);

    assert!(store.delete_session("main:gone").unwrap());
    assert!(all("vanished").is_empty());
    assert_eq!(all("phrase").len(), 2);
    // The deleted session can neither be read nor search.
    let read = error_text(store.history(
        "main:gone",
        &HistoryOptions {
            visibility: Visibility::All,
            ..history_options("main:keep")
        },
    ));
    let never = error_text(store.history(
        "main:never",
        &HistoryOptions {
            visibility: Visibility::All,
            ..history_options("main:keep")
        },
    ));
    assert_eq!(
        read.replace("main:gone", "K"),
        never.replace("main:never", "K")
    );
    assert!(try_search(&store, "phrase", &options("main:gone")).is_err());

    store
        .connection()
        .execute("DELETE FROM messages WHERE id = ?1", [dropped])
        .unwrap();
    assert!(all("removed").is_empty());
    assert_eq!(all("phrase"), [kept]);
    let shown: Vec<i64> = history(&store, "main:keep", &history_options("main:keep"))
        .messages
        .iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(shown, [kept]);
}

#[test]
fn indexing_flag_and_warning_last_while_a_deferred_backlog_remains() {
    let store = store();
    let key = "main:bulk";
    session(&store, key, "main", None);
    store.set_indexing(IndexingMode::Deferred).unwrap();
    // Each search indexes 200 queued rows: 1500 outlast six searches.
    for i in 0..1500 {
        say(&store, key, Role::User, &format!("imported line {i}"), i);
    }
    for round in 0..3 {
        let found = search(&store, "imported", &with(key, Visibility::Own, 25));
        assert!(found.indexing, "round {round}");
        assert!(
            found.warning.as_deref().is_some_and(|w| !w.is_empty()),
            "round {round}"
        );
        let json = search_sql(&store, "imported", &with(key, Visibility::Own, 25)).unwrap();
        assert!(
            json.contains("\"indexing\":true") && json.contains("\"warning\":"),
            "{json}"
        );
    }
    let progress = store.reconcile(100_000).unwrap();
    assert!(progress.done);
    let found = search(&store, "imported", &with(key, Visibility::Own, 25));
    assert!(!found.indexing);
    assert_eq!(found.warning, None);
    let json = search_sql(&store, "imported", &with(key, Visibility::Own, 25)).unwrap();
    assert!(
        !json.contains("indexing") && !json.contains("warning"),
        "{json}"
    );
    assert_eq!(found.results.len(), 25);
}

#[test]
fn a_backlog_smaller_than_one_slice_is_indexed_by_the_search_itself() {
    let store = store();
    let key = "main:small";
    session(&store, key, "main", None);
    store.set_indexing(IndexingMode::Deferred).unwrap();
    for i in 0..50 {
        say(&store, key, Role::User, &format!("queued note {i}"), i);
    }
    let found = search(&store, "queued", &with(key, Visibility::Own, 25));
    assert!(!found.indexing && found.warning.is_none(), "{found:?}");
    assert_eq!(found.results.len(), 25);
    assert!(found.truncated);
}

fn filter_store() -> (Store, BTreeMap<&'static str, i64>) {
    let store = store();
    session(&store, "main:f1", "main", None);
    session(&store, "main:f2", "main", Some("main:f1"));
    session(&store, "rival:f3", "rival", None);
    let mut m = BTreeMap::new();
    m.insert(
        "u100",
        say(&store, "main:f1", Role::User, "filter word", 100),
    );
    m.insert(
        "a200",
        say(&store, "main:f1", Role::Assistant, "filter word", 200),
    );
    m.insert(
        "u300",
        say(&store, "main:f2", Role::User, "filter word", 300),
    );
    m.insert(
        "a400",
        say(&store, "main:f2", Role::Assistant, "filter word", 400),
    );
    say(&store, "main:f1", Role::Tool, "filter word", 250);
    say(&store, "rival:f3", Role::User, "filter word", 350);
    (store, m)
}

fn filtered(store: &Store, options: SearchOptions) -> BTreeSet<i64> {
    search(
        store,
        "filter",
        &SearchOptions {
            limit: Some(25),
            ..options
        },
    )
    .results
    .iter()
    .map(|h| h.id)
    .collect()
}

#[test]
fn roles_since_until_and_session_keys_filter_within_visibility() {
    let (store, m) = filter_store();
    let set = |names: &[&str]| names.iter().map(|n| m[n]).collect::<BTreeSet<i64>>();
    let base = options("main:f1");
    assert_eq!(
        filtered(&store, base.clone()),
        set(&["u100", "a200", "u300", "a400"])
    );
    let roles = |r: &[Role]| SearchOptions {
        roles: Some(r.to_vec()),
        ..base.clone()
    };
    assert_eq!(
        filtered(&store, roles(&[Role::User])),
        set(&["u100", "u300"])
    );
    assert_eq!(
        filtered(&store, roles(&[Role::Assistant])),
        set(&["a200", "a400"])
    );
    assert_eq!(
        filtered(&store, roles(&[Role::User, Role::Assistant])),
        set(&["u100", "a200", "u300", "a400"])
    );
    for bad in [Role::Tool, Role::System] {
        let err = error_text(try_search(&store, "filter", &roles(&[bad])));
        assert!(err.contains("roles"), "{err}");
    }

    // Inclusive bounds.
    let range = |since: Option<i64>, until: Option<i64>| SearchOptions {
        since,
        until,
        ..base.clone()
    };
    assert_eq!(
        filtered(&store, range(Some(200), None)),
        set(&["a200", "u300", "a400"])
    );
    assert_eq!(
        filtered(&store, range(None, Some(300))),
        set(&["u100", "a200", "u300"])
    );
    assert_eq!(
        filtered(&store, range(Some(200), Some(300))),
        set(&["a200", "u300"])
    );
    assert_eq!(filtered(&store, range(Some(201), Some(299))), set(&[]));
    assert_eq!(
        filtered(&store, range(Some(300), Some(300))),
        set(&["u300"])
    );

    let listed = |k: &[&str]| SearchOptions {
        session_keys: Some(k.iter().map(|s| (*s).to_owned()).collect()),
        ..base.clone()
    };
    assert_eq!(
        filtered(&store, listed(&["main:f2"])),
        set(&["u300", "a400"])
    );
    // A listed session outside the caller's visibility stays invisible.
    assert_eq!(filtered(&store, listed(&["rival:f3"])), set(&[]));
    assert_eq!(
        filtered(
            &store,
            SearchOptions {
                visibility: Visibility::All,
                ..listed(&["rival:f3"])
            }
        )
        .len(),
        1
    );
    assert_eq!(
        filtered(
            &store,
            SearchOptions {
                roles: Some(vec![Role::Assistant]),
                since: Some(300),
                ..listed(&["main:f1", "main:f2"])
            }
        ),
        set(&["a400"])
    );
}

#[test]
fn a_question_ranks_its_partial_matches_by_one_score() {
    let store = store();
    let key = "main:question";
    session(&store, key, "main", None);
    // The answer: old, long, its two content words side by side.
    let answer = say(
        &store,
        key,
        Role::Assistant,
        "Yesterday the staging deploy stalled on a migration lock held by a \
         forgotten shell, so we rolled it back and retried after lunch",
        1,
    );
    // Both words, far apart; then more than a page of newer, shorter
    // messages that repeat one of them.
    let apart = say(
        &store,
        key,
        Role::User,
        &format!("staging {} deploy", "word ".repeat(20)),
        2,
    );
    let louder: Vec<i64> = (0..12)
        .map(|i| {
            let text = if i % 2 == 0 {
                "staging staging box"
            } else {
                "deploy deploy now"
            };
            say(&store, key, Role::User, text, 10 + i)
        })
        .collect();
    for visibility in LEVELS {
        let options = with(key, visibility, 10);
        let page = search(&store, "where did we discuss the staging deploy?", &options);
        // One order, by score (BM25+ over the words each holds, and what
        // words found together add): the two messages with both words
        // first, the one holding them side by side before the shorter one
        // holding them apart; then those that repeat one word.
        assert!(page.results.iter().all(|hit| hit.partial));
        assert!(page.results.windows(2).all(|w| w[0].score >= w[1].score));
        let ids: Vec<i64> = page.results.iter().map(|hit| hit.id).collect();
        assert_eq!(ids[..2], [answer, apart], "{visibility:?}");
        assert!(ids[2..].iter().all(|id| louder.contains(id)));
        assert_eq!(page.results[0].matched, ["staging", "deploy"]);
        assert_eq!(page.results[2].matched.len(), 1);
    }
}

#[test]
fn ties_at_the_last_rank_of_a_page_are_told_apart_by_time() {
    let store = store();
    let key = "main:ties";
    session(&store, key, "main", None);
    // Identical texts, each written later with an older time: newest by
    // id is oldest by time.
    let by_time: Vec<i64> = [400, 300, 200, 100]
        .into_iter()
        .map(|at| say(&store, key, Role::User, "tie kiwi", at))
        .collect();
    // At every visibility, also where the candidates' rows are not read,
    // for a word ranked by its tiers and two words ranked over the window.
    for visibility in LEVELS {
        for query in ["kiwi", "tie kiwi"] {
            for limit in 1..=3 {
                let found = ids(&search(&store, query, &with(key, visibility, limit)));
                assert_eq!(
                    found,
                    by_time[..limit as usize],
                    "{query} at {visibility:?}, limit {limit}"
                );
            }
        }
    }
}

#[test]
fn relevance_orders_by_score_and_recent_by_time_with_ties_newest_first() {
    let store = store();
    let key = "main:order";
    session(&store, key, "main", None);
    let weak = say(
        &store,
        key,
        Role::User,
        &format!("rank {}", "padding words ".repeat(30)),
        500,
    );
    let strong = say(&store, key, Role::User, "rank rank rank", 100);
    // Three identical texts score the same: newest first.
    let tie_old = say(&store, key, Role::User, "rank tie", 200);
    let tie_new = say(&store, key, Role::User, "rank tie", 400);
    let tie_mid = say(&store, key, Role::User, "rank tie", 300);

    let relevance = search(&store, "rank", &with(key, Visibility::Own, 25));
    assert_eq!(ids(&relevance), [strong, tie_new, tie_mid, tie_old, weak]);
    let scores: Vec<f64> = relevance.results.iter().map(|h| h.score).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    assert!(scores[0] > scores[1] && scores[3] > scores[4], "{scores:?}");
    assert_eq!(scores[1], scores[3]);

    let recent = search(
        &store,
        "rank",
        &SearchOptions {
            order: Order::Recent,
            ..with(key, Visibility::Own, 25)
        },
    );
    assert_eq!(ids(&recent), [weak, tie_new, tie_mid, tie_old, strong]);

    // The limit keeps the first of each order.
    let top = |order| {
        ids(&search(
            &store,
            "rank",
            &SearchOptions {
                order,
                ..with(key, Visibility::Own, 2)
            },
        ))
    };
    assert_eq!(top(Order::Relevance), [strong, tie_new]);
    assert_eq!(top(Order::Recent), [weak, tie_new]);
    let json = store
        .connection()
        .query_row(
            "SELECT sessions_search('rank', json_object('caller', ?1, 'order', 'recent', 'limit', 1))",
            [key],
            |row| row.get::<_, String>(0),
        )
        .unwrap();
    assert!(json.contains(&format!("\"id\":{weak},")), "{json}");
}

#[test]
fn limit_must_be_between_1_and_25_and_caps_the_results() {
    let store = store();
    let key = "main:limit";
    session(&store, key, "main", None);
    for i in 0..30 {
        say(&store, key, Role::User, &format!("many hits {i}"), i);
    }
    for bad in [-1, 0, 26, 1000] {
        let err = error_text(try_search(&store, "many", &with(key, Visibility::Own, bad)));
        assert!(err.contains("limit must be between 1 and 25"), "{err}");
    }
    for limit in 1..=25 {
        let found = search(&store, "many", &with(key, Visibility::Own, limit));
        assert_eq!(found.results.len() as i64, limit);
        assert!(found.truncated);
    }
    assert_eq!(search(&store, "many", &options(key)).results.len(), 10);
}

#[test]
fn truncated_is_set_exactly_when_more_hits_existed() {
    let store = store();
    let key = "main:trunc";
    session(&store, key, "main", None);
    for i in 0..5 {
        say(&store, key, Role::User, &format!("five hits {i}"), i);
    }
    let exact = search(&store, "five", &with(key, Visibility::Own, 5));
    assert_eq!(exact.results.len(), 5);
    assert!(!exact.truncated);
    let json = search_sql(&store, "five", &with(key, Visibility::Own, 5)).unwrap();
    assert!(!json.contains("truncated"), "{json}");
    let under = search(&store, "five", &with(key, Visibility::Own, 4));
    assert_eq!(under.results.len(), 4);
    assert!(under.truncated);
    let json = search_sql(&store, "five", &with(key, Visibility::Own, 4)).unwrap();
    assert!(json.contains("\"truncated\":true"), "{json}");
    // Cut by maxBytes instead of limit.
    let small = search(
        &store,
        "five",
        &SearchOptions {
            max_bytes: Some(200),
            ..with(key, Visibility::Own, 25)
        },
    );
    assert!(small.results.len() < 5 && small.truncated, "{small:?}");
    assert!(serde_json::to_string(&small.results).unwrap().len() <= 200);
}

#[test]
fn snippet_chars_and_max_bytes_are_bounded_and_respected() {
    let store = store();
    let key = "main:bounds";
    session(&store, key, "main", None);
    let text = format!(
        "{} middle {}",
        "before words ".repeat(40),
        "after words ".repeat(40)
    );
    say(&store, key, Role::User, &text, 1);
    let run = |snippet_chars: Option<i64>, max_bytes: Option<i64>| {
        try_search(
            &store,
            "middle",
            &SearchOptions {
                snippet_chars,
                max_bytes,
                ..options(key)
            },
        )
    };
    for bad in [0, -5, 301] {
        let err = error_text(run(Some(bad), None));
        assert!(
            err.contains("snippetChars must be between 1 and 300"),
            "{err}"
        );
    }
    for bad in [0, 1, 32769] {
        let err = error_text(run(None, Some(bad)));
        assert!(
            err.contains("maxBytes must be between 2 and 32768"),
            "{err}"
        );
    }
    for chars in [1, 2, 3, 10, 50, 150, 299, 300] {
        let found = run(Some(chars), None).unwrap();
        let snippet = &found.results[0].snippet;
        assert!(
            snippet.chars().count() as i64 <= chars,
            "{chars}: {snippet:?}"
        );
        if chars >= 10 {
            assert!(snippet.contains("middle"), "{chars}: {snippet:?}");
        }
    }
    assert_eq!(
        run(None, None).unwrap().results[0].snippet.chars().count(),
        300
    );
    let tiny = run(None, Some(2)).unwrap();
    assert!(tiny.results.is_empty() && tiny.truncated);
    assert!(run(None, Some(32768)).unwrap().results.len() == 1);
}

#[test]
fn snippet_chars_1_gives_at_most_one_character() {
    let store = store();
    let key = "main:one";
    session(&store, key, "main", None);
    say(&store, key, Role::User, "before middle after", 1);
    let found = search(
        &store,
        "middle",
        &SearchOptions {
            snippet_chars: Some(1),
            ..options(key)
        },
    );
    let snippet = &found.results[0].snippet;
    assert!(snippet.chars().count() <= 1, "{snippet:?}");
}

/// A session of 20 messages `m0`…`m19` (every third has no host id).
fn history_store() -> (Store, Vec<i64>) {
    let store = store();
    session(&store, "main:h", "main", None);
    session(&store, "main:h:kid", "main", Some("main:h"));
    session(&store, "rival:h", "rival", None);
    say(&store, "rival:h", Role::User, "rival text", 1);
    let ids = (0..20)
        .map(|i| {
            let message_id = format!("m{i}");
            append(
                &store,
                "main:h",
                None,
                if i % 2 == 0 {
                    Role::User
                } else {
                    Role::Assistant
                },
                &format!("line {i}"),
                1000 + i,
                (i % 3 != 2).then_some(message_id.as_str()),
            )
        })
        .collect();
    (store, ids)
}

fn window(store: &Store, options: HistoryOptions) -> (Vec<String>, usize, usize) {
    let read = history(store, "main:h", &options);
    (
        read.messages.iter().map(|m| m.text.clone()).collect(),
        read.before,
        read.after,
    )
}

fn lines(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("line {i}")).collect()
}

#[test]
fn history_window_around_a_message_id_or_numeric_id() {
    let (store, ids) = history_store();
    let around = |r: MessageRef, before, after| HistoryOptions {
        around: Some(r),
        before: Some(before),
        after: Some(after),
        ..history_options("main:h")
    };
    assert_eq!(
        window(&store, around(MessageRef::Text("m10".into()), 2, 3)),
        (lines(8..14), 8, 6)
    );
    assert_eq!(
        window(&store, around(MessageRef::Id(ids[10]), 2, 3)),
        (lines(8..14), 8, 6)
    );
    // Messages without a host id are found by their id, as number or text.
    assert_eq!(
        window(&store, around(MessageRef::Text(ids[5].to_string()), 1, 1)),
        (lines(4..7), 4, 13)
    );
    assert_eq!(
        window(&store, around(MessageRef::Id(ids[5]), 0, 0)),
        (lines(5..6), 5, 14)
    );
    // Clipped at both ends of the branch.
    assert_eq!(
        window(&store, around(MessageRef::Text("m1".into()), 5, 0)),
        (lines(0..2), 0, 18)
    );
    assert_eq!(
        window(&store, around(MessageRef::Text("m18".into()), 0, 5)),
        (lines(18..20), 18, 0)
    );
    // The hit's messageId of a search opens its context.
    let hit = search(&store, "line 12", &options("main:h")).results[0].clone();
    assert_eq!(hit.message_id, "m12");
    assert_eq!(
        window(&store, around(MessageRef::Text(hit.message_id), 1, 1)),
        (lines(11..14), 11, 6)
    );
    // Without `around`, the newest messages, `limit` of them.
    assert_eq!(
        window(
            &store,
            HistoryOptions {
                limit: Some(4),
                ..history_options("main:h")
            }
        ),
        (lines(16..20), 16, 0)
    );
    assert_eq!(
        window(&store, history_options("main:h")),
        (lines(0..20), 0, 0)
    );
    // `limit` caps a window too.
    assert_eq!(
        window(
            &store,
            HistoryOptions {
                limit: Some(3),
                ..around(MessageRef::Text("m10".into()), 5, 5)
            }
        )
        .0
        .len(),
        3
    );
    // Out of range options are errors.
    for options in [
        around(MessageRef::Text("m10".into()), 101, 0),
        around(MessageRef::Text("m10".into()), 0, -1),
        HistoryOptions {
            limit: Some(0),
            ..history_options("main:h")
        },
        HistoryOptions {
            limit: Some(201),
            ..history_options("main:h")
        },
    ] {
        assert!(store.history("main:h", &options).is_err(), "{options:?}");
    }
}

#[test]
fn history_around_a_message_off_the_branch_or_unknown_is_an_error() {
    let (store, ids) = history_store();
    let side = append(
        &store,
        "main:h",
        Some(ids[3]),
        Role::User,
        "side",
        5000,
        Some("side"),
    );
    store.rewind("main:h", Some(ids[19])).unwrap();
    let rival = store
        .connection()
        .query_row(
            "SELECT id FROM messages WHERE session_key = 'rival:h'",
            [],
            |row| row.get::<_, i64>(0),
        )
        .unwrap();
    for around in [
        MessageRef::Id(side),
        MessageRef::Text("side".into()),
        MessageRef::Text("nope".into()),
        MessageRef::Id(rival),
        MessageRef::Id(999_999),
    ] {
        let err = error_text(store.history(
            "main:h",
            &HistoryOptions {
                around: Some(around.clone()),
                ..history_options("main:h")
            },
        ));
        assert!(
            err.contains("not on the active branch"),
            "{around:?}: {err}"
        );
    }
}

#[test]
fn history_of_an_invisible_session_does_not_reveal_whether_it_exists() {
    let (store, _) = history_store();
    let read = |key: &str, caller: &str, visibility| {
        error_text(store.history(
            key,
            &HistoryOptions {
                visibility,
                ..history_options(caller)
            },
        ))
        .replace(&format!("{key:?}"), "<key>")
    };
    // The kid cannot see its parent, nor the rival's session.
    let exists = read("main:h", "main:h:kid", Visibility::Tree);
    let missing = read("main:none", "main:h:kid", Visibility::Tree);
    let other = read("rival:h", "main:h:kid", Visibility::Agent);
    assert_eq!(exists, missing);
    assert_eq!(other, missing);
    assert!(!exists.contains("line"), "{exists}");
    // Also through SQL.
    let sql = |key: &str| {
        history_sql(&store, key, &history_options("main:h:kid"))
            .unwrap_err()
            .replace(&format!("{key:?}"), "<key>")
    };
    assert_eq!(sql("main:h"), sql("main:none"));
    // Naming one of its messages in `around` changes nothing either.
    let rival = store
        .connection()
        .query_row(
            "SELECT id FROM messages WHERE session_key = 'rival:h'",
            [],
            |row| row.get::<_, i64>(0),
        )
        .unwrap();
    let around = |key: &str| {
        error_text(store.history(
            key,
            &HistoryOptions {
                around: Some(MessageRef::Id(rival)),
                ..history_options("main:h")
            },
        ))
        .replace(&format!("{key:?}"), "<key>")
    };
    assert_eq!(around("rival:h"), around("main:none"));
    assert_eq!(
        around("rival:h"),
        read("main:none", "main:h", Visibility::Tree)
    );
}

#[test]
fn history_summarises_tool_reasoning_and_image_blocks() {
    let store = store();
    let key = "main:blocks";
    session(&store, key, "main", None);
    say(
        &store,
        key,
        Role::Assistant,
        r#"[{"type":"thinking","thinking":"private musing"},
            {"type":"text","text":"Let me look."},
            {"type":"tool_use","id":"t1","name":"bash","input":{"command":"cat /etc/hosts"}},
            {"type":"image","source":{"type":"base64","data":"iVBORw0KGgo"}},
            {"type":"reasoning","text":"hidden chain"}]"#,
        1,
    );
    say(
        &store,
        key,
        Role::User,
        r#"[{"type":"tool_result","tool_use_id":"t1","content":"127.0.0.1 localhost"},{"type":"input_text","text":"and then?"}]"#,
        2,
    );
    say(&store, key, Role::Tool, "raw tool output here", 3);
    say(&store, key, Role::System, "You are a helpful agent.", 4);
    let read = history(&store, key, &history_options(key));
    let texts: Vec<&str> = read.messages.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(
        texts[0],
        "[reasoning]\nLet me look.\n[tool call: bash]\n[image]\n[reasoning]"
    );
    assert_eq!(texts[1], "[tool result]\nand then?");
    assert!(
        texts[2].starts_with("[tool result") && !texts[2].contains("raw"),
        "{}",
        texts[2]
    );
    assert!(
        texts[3].contains("system") && !texts[3].contains("helpful"),
        "{}",
        texts[3]
    );
    let roles: Vec<Role> = read.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::Assistant, Role::User, Role::Tool, Role::System]
    );
    let all = texts.join("\n");
    for hidden in [
        "private musing",
        "/etc/hosts",
        "iVBORw0KGgo",
        "hidden chain",
        "localhost",
    ] {
        assert!(!all.contains(hidden), "{hidden}: {all}");
    }
    // None of it is searchable either.
    for hidden in ["musing", "hosts", "localhost", "helpful", "raw"] {
        assert!(
            search(&store, hidden, &options(key)).results.is_empty(),
            "{hidden}"
        );
    }
}

#[test]
fn history_text_is_redacted() {
    let store = store();
    let key = "main:redact";
    session(&store, key, "main", None);
    let token = format!(
        "ghp_{}",
        Rng(3).string("abcdefghijkLMNOPQRSTU0123456789", 36)
    );
    say(
        &store,
        key,
        Role::User,
        &format!("use {token} and PASSWORD=Zx9-long-pass-42 for it"),
        1,
    );
    say(
        &store,
        key,
        Role::Assistant,
        &format!(
            r#"[{{"type":"text","text":"Set Authorization: Bearer {}"}}]"#,
            &token[4..]
        ),
        2,
    );
    let read = history(&store, key, &history_options(key));
    assert_eq!(
        read.messages[0].text,
        "use [REDACTED] and PASSWORD=[REDACTED] for it"
    );
    assert_eq!(
        read.messages[1].text,
        "Set Authorization: Bearer [REDACTED]"
    );
    let json = history_sql(&store, key, &history_options(key)).unwrap();
    assert!(
        !json.contains(&token[4..12]) && !json.contains("Zx9-long"),
        "{json}"
    );
}

#[test]
fn history_max_chars_and_max_bytes_cut_and_say_so() {
    let (store, _) = history_store();
    let key = "main:h";
    say(&store, key, Role::User, &"東京".repeat(50), 9000);
    let read = history(
        &store,
        key,
        &HistoryOptions {
            max_chars: Some(10),
            limit: Some(1),
            ..history_options(key)
        },
    );
    assert!(read.truncated);
    assert!(read.messages[0].text.chars().count() <= 10, "{read:?}");
    let read = history(
        &store,
        key,
        &HistoryOptions {
            max_bytes: Some(300),
            ..history_options(key)
        },
    );
    assert!(read.truncated);
    assert!(serde_json::to_string(&read.messages).unwrap().len() <= 300);
    assert_eq!(read.before + read.messages.len() + read.after, 21);
    let whole = history(&store, key, &history_options(key));
    assert!(!whole.truncated);
}

#[test]
fn one_word_ranking_is_exhaustive_bm25_whatever_the_age_of_the_best_hits() {
    let store = store();
    session(&store, "main:a", "main", None);
    session(&store, "main:b", "main", Some("main:a"));
    session(&store, "other:c", "other", None);
    // The best hits are the oldest: short messages that repeat the word.
    let planted: Vec<i64> = (0..3)
        .map(|i| {
            say(
                &store,
                "main:b",
                Role::User,
                "deploy deploy deploy deploy now",
                i,
            )
        })
        .collect();
    // Then far more than a rank window of newer, longer matches, some of
    // them short enough to be in a tier too, holding the word once to three
    // times (a tier's messages are told apart by how often they hold it).
    let mut rng = Rng(0x5eed);
    let keys = ["main:a", "main:b", "other:c"];
    for i in 0..2500 {
        let words: Vec<String> = (0..4 + rng.below(80))
            .map(|_| rng.string("abcdefgh", 3))
            .collect();
        let deploys = "deploy ".repeat(1 + rng.below(3));
        // A word of a few hundred messages: fewer than the rank window,
        // more than are ranked in full without the tiers.
        let ship = if i % 7 == 0 {
            "ship ".repeat(1 + rng.below(2))
        } else {
            String::new()
        };
        let text = format!("{} {deploys}{ship}{}", words.join(" "), words[0]);
        say(&store, keys[i % 3], Role::Assistant, &text, 10 + i as i64);
    }
    let visible = [
        (Visibility::Tree, &keys[..2]),
        (Visibility::Agent, &keys[..2]),
        (Visibility::All, &keys[..]),
    ];
    for (visibility, sessions) in visible {
        for word in ["deploy", "ship", "now"] {
            let found = search(&store, word, &with("main:a", visibility, 10));
            let scored: Vec<(i64, f64)> = found.results.iter().map(|h| (h.id, h.score)).collect();
            assert_eq!(
                scored,
                bm25_top(&store, word, sessions, 10),
                "{word} {visibility:?}"
            );
        }
        let found = ids(&search(&store, "deploy", &with("main:a", visibility, 10)));
        assert!(planted.iter().all(|id| found.contains(id)), "{found:?}");
    }
}

#[test]
fn a_word_common_elsewhere_and_rare_for_the_caller_is_ranked_exactly() {
    // Whether a word is rare enough to rank in full is told from the whole
    // index; a word in hundreds of other agents' messages and in fewer
    // than a page, or a few pages, of the caller's goes through its tiers
    // and is still ranked as exhaustive BM25 ranks the caller's matches.
    let store = store();
    session(&store, "main:a", "main", None);
    session(&store, "other:b", "other", None);
    let mut rng = Rng(0xc0de);
    let mut filler = |n: usize| -> String {
        (0..n)
            .map(|_| rng.string("abcdefgh", 3))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for i in 0..600 {
        let text = format!("{} ship dock {}", filler(2 + i % 30), filler(3));
        say(&store, "other:b", Role::User, &text, i as i64);
    }
    for i in 0..40 {
        let ship = if i % 8 == 0 { "ship " } else { "" };
        let text = format!(
            "{} {ship}{}dock {}",
            filler(1 + i % 20),
            "dock ".repeat(i % 3),
            filler(2)
        );
        say(&store, "main:a", Role::Assistant, &text, 1000 + i as i64);
    }
    for visibility in [Visibility::Tree, Visibility::Agent] {
        for word in ["ship", "dock"] {
            let found = search(&store, word, &with("main:a", visibility, 10));
            let scored: Vec<(i64, f64)> = found.results.iter().map(|h| (h.id, h.score)).collect();
            assert_eq!(
                scored,
                bm25_top(&store, word, &["main:a"], 10),
                "{word} {visibility:?}"
            );
        }
    }
}

#[test]
fn tiers_rank_exactly_when_the_average_message_is_far_shorter_than_their_reference() {
    // Tiers are cut against a reference length (64 tokens); in an index of
    // very short messages a word alone in a one-word message outscores its
    // four repetitions in a message of forty words, although those are in a
    // better tier. A search must read on past that tier to find them.
    let store = store();
    session(&store, "main:a", "main", None);
    let mut rng = Rng(0x7153);
    let mut alone = Vec::new();
    for i in 0..150 {
        alone.push(say(&store, "main:a", Role::User, "ship", i));
    }
    for i in 0..30 {
        let words: Vec<String> = (0..36).map(|_| rng.string("abcdefgh", 3)).collect();
        let text = format!("ship ship {} ship ship", words.join(" "));
        say(&store, "main:a", Role::Assistant, &text, 200 + i);
    }
    for i in 0..2000 {
        let words: Vec<String> = (0..2 + rng.below(3))
            .map(|_| rng.string("abcdefgh", 3))
            .collect();
        say(&store, "main:a", Role::User, &words.join(" "), 300 + i);
    }
    let found = search(&store, "ship", &with("main:a", Visibility::Tree, 10));
    let scored: Vec<(i64, f64)> = found.results.iter().map(|h| (h.id, h.score)).collect();
    assert_eq!(scored, bm25_top(&store, "ship", &["main:a"], 10));
    assert!(
        ids(&found).iter().all(|id| alone.contains(id)),
        "{:?}",
        ids(&found)
    );
}

#[test]
fn one_word_ranking_is_exact_when_its_best_tier_holds_thousands_of_messages() {
    // A word in every line of a log (a year, a level): thousands of short
    // messages of nearly the same weight share one tier. The best of them,
    // a little shorter, are the oldest, far behind the rank window.
    let store = store();
    session(&store, "main:a", "main", None);
    let mut rng = Rng(0x2025);
    let best: Vec<i64> = (0..12)
        .map(|i| {
            let word = rng.string("abcdefgh", 4);
            say(&store, "main:a", Role::User, &format!("2025 {word}"), i)
        })
        .collect();
    for i in 0..4000 {
        let words: Vec<String> = (0..2).map(|_| rng.string("abcdefgh", 4)).collect();
        let text = format!("2025 {}", words.join(" "));
        say(&store, "main:a", Role::Assistant, &text, 100 + i);
    }
    for visibility in [Visibility::Tree, Visibility::All] {
        let found = search(&store, "2025", &with("main:a", visibility, 10));
        let scored: Vec<(i64, f64)> = found.results.iter().map(|h| (h.id, h.score)).collect();
        assert_eq!(
            scored,
            bm25_top(&store, "2025", &["main:a"], 10),
            "{visibility:?}"
        );
        assert!(
            ids(&found).iter().all(|id| best.contains(id)),
            "{visibility:?}"
        );
    }
}

/// The `n` best messages of `sessions` for `word` by exhaustive BM25
/// (`sessions_rank` over every match), newest first on ties, with their
/// scores: what a search must return, however it gets there.
fn bm25_top(store: &Store, word: &str, sessions: &[&str], n: i64) -> Vec<(i64, f64)> {
    let keys = serde_json::to_string(sessions).unwrap();
    scored_rows(
        store,
        "SELECT ~f.rowid, -sessions_rank(session_search_fts) FROM session_search_fts f
         JOIN messages m ON m.id = ~f.rowid
         WHERE session_search_fts MATCH '{text} : ' || ?1
           AND m.session_key IN (SELECT value FROM json_each(?2))
         ORDER BY 2 DESC, m.created_at DESC LIMIT ?3",
        rusqlite::params![word, keys, n],
    )
}

#[test]
fn deep_spawn_chains_carry_a_bounded_scope_and_trees_stay_exact() {
    let store = store();
    let chain: Vec<String> = (0..12).map(|d| format!("chain:{d}")).collect();
    for (depth, key) in chain.iter().enumerate() {
        let parent = depth.checked_sub(1).map(|p| chain[p].as_str());
        session(&store, key, "main", parent);
        say(
            &store,
            key,
            Role::User,
            "deploy at this depth",
            depth as i64,
        );
    }
    session(&store, "aside", "main", Some("chain:2"));
    say(&store, "aside", Role::User, "deploy beside the chain", 100);
    // The agent and the top four levels of the chain, however deep.
    let words: String = store
        .connection()
        .query_row(
            "SELECT scope FROM session_search_scopes WHERE session_key = 'chain:11'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(words.split(' ').count(), 5, "{words}");
    for depth in [0, 2, 3, 4, 7, 11] {
        let found = keys(&search(
            &store,
            "deploy",
            &with(&chain[depth], Visibility::Tree, 25),
        ));
        let mut expected: BTreeSet<String> = chain[depth..].iter().cloned().collect();
        if depth <= 2 {
            expected.insert("aside".into());
        }
        assert_eq!(found, expected, "caller at depth {depth}");
        // `self` asks for the same word: a deep session does not carry its own.
        let own = keys(&search(
            &store,
            "deploy",
            &with(&chain[depth], Visibility::Own, 25),
        ));
        assert_eq!(
            own,
            BTreeSet::from([chain[depth].clone()]),
            "self at depth {depth}"
        );
    }
    // Deleting a session in the middle ends the chains below at its key:
    // they are shallower now, and are asked for words they did not carry.
    store
        .connection()
        .execute("DELETE FROM sessions WHERE session_key = 'chain:5'", [])
        .unwrap();
    for depth in [6, 7, 9, 11] {
        let expected: BTreeSet<String> = chain[depth..].iter().cloned().collect();
        let tree = with(&chain[depth], Visibility::Tree, 25);
        assert_eq!(
            keys(&search(&store, "deploy", &tree)),
            expected,
            "tree at {depth}"
        );
        let own = with(&chain[depth], Visibility::Own, 25);
        assert_eq!(
            keys(&search(&store, "deploy", &own)),
            BTreeSet::from([chain[depth].clone()]),
            "self at {depth}"
        );
    }
}
