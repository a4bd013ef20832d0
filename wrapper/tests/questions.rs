//! What `sessions_search` does with the questions people type, through the
//! wrapper: partial matches ranked by one score with the terms they hold,
//! other forms of a word and the pieces of a CJK run in the fill only,
//! `terms` counted within the caller's view, and excerpts centred on the
//! most distinctive word.

mod common;

use common::*;
use session_search::{Hit, Role, SearchOptions, SearchResponse, Store, TermCount, Visibility};

/// The position and hit of message `id` in the results.
fn find(response: &SearchResponse, id: i64) -> Option<(usize, &Hit)> {
    response
        .results
        .iter()
        .enumerate()
        .find(|(_, hit)| hit.id == id)
}

/// The count of the term `text`.
fn term<'a>(response: &'a SearchResponse, text: &str) -> &'a TermCount {
    let terms = response.terms.as_ref().expect("terms");
    terms
        .iter()
        .find(|term| term.term == text)
        .unwrap_or_else(|| panic!("no term {text:?} in {terms:?}"))
}

/// Whether the full matches come first and each part is sorted by score.
fn sorted_by_score(response: &SearchResponse) -> bool {
    let full = response.results.iter().take_while(|hit| !hit.partial);
    let partial: Vec<&Hit> = response.results.iter().filter(|hit| hit.partial).collect();
    let full: Vec<&Hit> = full.collect();
    full.len() + partial.len() == response.results.len()
        && full.windows(2).all(|w| w[0].score >= w[1].score)
        && partial.windows(2).all(|w| w[0].score >= w[1].score)
}

#[test]
fn the_fill_chooses_its_page_by_score_from_every_candidate_it_reads() {
    let store = store();
    let key = "main:1";
    session(&store, key, "main", None);
    // Two common words side by side in a long message: the first of the
    // fill's windows reads it.
    let long = say(
        &store,
        key,
        Role::Assistant,
        &format!(
            "{} run the test then fix it {}",
            "words ".repeat(80),
            "more ".repeat(80)
        ),
        1,
    );
    // The short message with three of the question's words, two of them
    // rare.
    let short = say(&store, key, Role::User, "flaky retry test", 2);
    for i in 0..12 {
        let text = if i % 2 == 0 {
            "a test ran"
        } else {
            "a fix landed"
        };
        say(&store, key, Role::User, text, 10 + i);
    }
    let options = SearchOptions {
        rank_window: Some(4),
        ..with(key, Visibility::Tree, 10)
    };
    let page = search(&store, "how did we fix the flaky test retry?", &options);
    assert!(page.results.iter().all(|hit| hit.partial), "{page:?}");
    assert_eq!(page.results[0].id, short, "{page:?}");
    assert_eq!(page.results[0].matched, ["flaky", "test", "retry"]);
    assert!(sorted_by_score(&page), "{page:?}");
    if let Some((_, hit)) = find(&page, long) {
        assert!(hit.score < page.results[0].score);
    }
}

#[test]
fn other_forms_of_a_word_fill_the_page_below_the_form_typed() {
    let store = store();
    let key = "main:1";
    session(&store, key, "main", None);
    let typed = say(&store, key, Role::User, "compile the staging box", 1);
    let other = say(
        &store,
        key,
        Role::User,
        "the compilation failed on the staging box",
        2,
    );
    say(&store, key, Role::User, "nothing to see", 3);
    let page = search(&store, "compile", &with(key, Visibility::Tree, 10));
    assert_eq!(page.results.len(), 2, "{page:?}");
    assert_eq!(
        (page.results[0].id, page.results[0].partial),
        (typed, false)
    );
    assert_eq!((page.results[1].id, page.results[1].partial), (other, true));
    assert_eq!(page.results[1].matched, ["compile"]);
    let counted = term(&page, "compile");
    assert_eq!((counted.messages, counted.other_forms), (Some(1), Some(1)));
    // Who does a thing finds the thing done, and the other way round.
    let linting = say(&store, key, Role::User, "the linting step is slow", 4);
    let parser = say(&store, key, Role::User, "the parser rejects tabs", 5);
    // Irregular forms: a past participle finds the verb, a plural the
    // singular.
    let written = say(&store, key, Role::User, "we write the file atomically", 6);
    let indices = say(&store, key, Role::User, "rebuild both indices", 7);
    for (query, expected) in [
        ("linter", linting),
        ("parse", parser),
        ("written", written),
        ("index", indices),
    ] {
        let page = search(&store, query, &with(key, Visibility::Tree, 10));
        assert!(
            find(&page, expected).is_some_and(|(_, hit)| hit.partial),
            "{query}: {page:?}"
        );
    }
    // Other forms of the other direction, and of an inflection.
    for (query, expected) in [("compilation", typed), ("compiling", typed)] {
        let page = search(&store, query, &with(key, Visibility::Tree, 10));
        assert!(
            find(&page, expected).is_some_and(|(_, hit)| hit.partial),
            "{query}: {page:?}"
        );
    }
    // Exact matching is unchanged: a quoted word, a prefix.
    let quoted = search(&store, "\"compile\"", &with(key, Visibility::Tree, 10));
    assert_eq!(
        quoted.results.iter().map(|h| h.id).collect::<Vec<_>>(),
        [typed]
    );
    let prefix = search(&store, "compil*", &with(key, Visibility::Tree, 10));
    assert!(prefix.results.iter().all(|hit| !hit.partial));
    assert_eq!(prefix.results.len(), 2);

    // The same message holding the form typed ranks above it holding
    // another form.
    let exact = say(&store, key, Role::User, "staging deploy tonight", 4);
    let inflected = say(&store, key, Role::User, "staging deployed tonight", 5);
    let page = search(
        &store,
        "deploy staging rollback",
        &with(key, Visibility::Tree, 10),
    );
    let (at_exact, hit_exact) = find(&page, exact).expect("the form typed");
    let (at_inflected, hit_inflected) = find(&page, inflected).expect("another form");
    assert!(at_exact < at_inflected, "{page:?}");
    assert!(hit_exact.score > hit_inflected.score);
    assert!(hit_exact.partial && hit_inflected.partial);
    assert_eq!(hit_inflected.matched, ["deploy", "staging"]);
}

/// The session of the CJK questions.
const CJK: &str = "main:1";

/// A store whose session [`CJK`] holds an answer in Chinese, a user's
/// message, and answers in Japanese and Korean, each naming a database;
/// returns the store and the three answers' ids.
fn cjk_answers() -> (Store, [i64; 3]) {
    let store = store();
    session(&store, CJK, "main", None);
    let answer = say(
        &store,
        CJK,
        Role::Assistant,
        "我們的機器人用 PostgreSQL 當資料庫",
        1,
    );
    say(&store, CJK, Role::User, "今天天氣很好", 2);
    let japanese = say(
        &store,
        CJK,
        Role::Assistant,
        "ボットのデータベースは SQLite です",
        3,
    );
    let korean = say(
        &store,
        CJK,
        Role::Assistant,
        "봇의 데이터베이스는 Redis 입니다",
        4,
    );
    (store, [answer, japanese, korean])
}

#[test]
fn a_cjk_question_counts_by_the_pieces_of_its_runs() {
    let (store, [answer, _, _]) = cjk_answers();
    let page = search(
        &store,
        "上次那個 Telegram 機器人用了什麼資料庫？",
        &with(CJK, Visibility::Tree, 10),
    );
    assert_eq!(page.results.first().map(|h| h.id), Some(answer), "{page:?}");
    assert!(page.results[0].partial);
    assert_eq!(page.results[0].matched, ["機器人用了什麼資料庫"]);
    assert_eq!(term(&page, "Telegram").messages, Some(0));
    assert!(term(&page, "上次那個").framing);
    let run = term(&page, "機器人用了什麼資料庫");
    assert_eq!((run.messages, run.other_forms), (Some(0), Some(1)));
    // Quoted, a run is one phrase as typed.
    let quoted = search(&store, "\"機器人資料庫\"", &with(CJK, Visibility::Tree, 10));
    assert!(quoted.results.is_empty(), "{quoted:?}");
}

#[test]
fn japanese_and_korean_questions_find_their_answers() {
    let (store, [_, japanese, korean]) = cjk_answers();
    let page = search(
        &store,
        "ボットはどのデータベースを使った？",
        &with(CJK, Visibility::Tree, 10),
    );
    assert_eq!(
        page.results.first().map(|h| h.id),
        Some(japanese),
        "{page:?}"
    );
    let page = search(
        &store,
        "데이터베이스를 어떻게 했나요",
        &with(CJK, Visibility::Tree, 10),
    );
    assert_eq!(page.results.first().map(|h| h.id), Some(korean), "{page:?}");
}

#[test]
fn a_long_cjk_message_is_not_buried_under_a_short_one_sharing_one_word() {
    // In a history of some size, where words have the weights they have in
    // use.
    let (store, _) = cjk_answers();
    for i in 0..20 {
        say(
            &store,
            CJK,
            Role::User,
            &format!("unrelated note {i} about lunch"),
            10 + i,
        );
    }
    let long = say(
        &store,
        CJK,
        Role::Assistant,
        &format!(
            "{}機器人的資料庫是 PostgreSQL",
            "這是一段很長的說明文字，".repeat(20)
        ),
        5,
    );
    say(&store, CJK, Role::User, "Telegram is nice", 6);
    let page = search(
        &store,
        "Telegram 機器人 資料庫",
        &with(CJK, Visibility::Tree, 10),
    );
    let (at_long, _) = find(&page, long).expect("the long message");
    let (at_short, _) = page
        .results
        .iter()
        .enumerate()
        .find(|(_, hit)| hit.snippet.contains("Telegram is nice"))
        .expect("the short one");
    assert!(at_long < at_short, "{page:?}");
}

#[test]
fn terms_count_what_each_word_matched_within_the_callers_view() {
    let store = store();
    session(&store, "main:1", "main", None);
    session(&store, "ops:1", "ops", None);
    say(
        &store,
        "main:1",
        Role::User,
        "deployed the zebra service",
        1,
    );
    say(&store, "main:1", Role::Assistant, "the deploy finished", 2);
    say(&store, "ops:1", Role::User, "a giraffe deploy", 3);
    let query = "where did we deploy the giraffe";
    let mine = search(&store, query, &with("main:1", Visibility::Tree, 10));
    // Counted among the caller's messages only: the other agent's giraffe
    // is not.
    assert_eq!(term(&mine, "giraffe").messages, Some(0));
    assert_eq!(term(&mine, "deploy").messages, Some(1));
    assert_eq!(term(&mine, "deploy").other_forms, Some(1));
    for framing in ["where", "did", "we", "the"] {
        let t = term(&mine, framing);
        assert!(t.framing && t.messages.is_none(), "{t:?}");
    }
    let everyone = search(&store, query, &with("main:1", Visibility::All, 10));
    assert_eq!(term(&everyone, "giraffe").messages, Some(1));
    // Under the search's filters.
    let assistant = SearchOptions {
        roles: Some(vec![Role::Assistant]),
        ..with("main:1", Visibility::Tree, 10)
    };
    let filtered = search(&store, query, &assistant);
    assert_eq!(term(&filtered, "deploy").messages, Some(1));
    assert_eq!(term(&filtered, "deploy").other_forms, Some(0));
    // Only when full matches are fewer than the limit.
    let full = search(&store, "deploy", &with("main:1", Visibility::Tree, 1));
    assert!(full.terms.is_none(), "{full:?}");
    // Capped.
    for i in 0..105 {
        say(
            &store,
            "main:1",
            Role::User,
            &format!("common word {i}"),
            10 + i,
        );
    }
    let capped = search(
        &store,
        "common giraffe",
        &with("main:1", Visibility::Tree, 10),
    );
    let common = term(&capped, "common");
    assert_eq!((common.messages, common.at_least), (Some(100), true));
}

#[test]
fn an_excerpt_centres_on_the_rarest_word_it_holds() {
    let store = store();
    let key = "main:1";
    session(&store, key, "main", None);
    for i in 0..30 {
        say(&store, key, Role::User, &format!("error number {i}"), i);
    }
    let text = format!(
        "error at the start. {} The zanzibar cache was the cause.",
        "Nothing of note here. ".repeat(30)
    );
    let id = say(&store, key, Role::Assistant, &text, 100);
    let page = search(&store, "error zanzibar", &with(key, Visibility::Tree, 10));
    let (_, hit) = find(&page, id).expect("the hit");
    assert!(!hit.partial);
    assert!(hit.snippet.contains("zanzibar"), "{}", hit.snippet);
    // A question's framing words never take the excerpt from its topic.
    let page = search(
        &store,
        "where was the zanzibar cache",
        &with(key, Visibility::Tree, 10),
    );
    let (_, hit) = find(&page, id).expect("the hit");
    assert!(hit.snippet.contains("zanzibar cache"), "{}", hit.snippet);
}

#[test]
fn the_sql_function_answers_as_the_wrapper() {
    let store: Store = store();
    session(&store, "main:1", "main", None);
    say(&store, "main:1", Role::User, "the compilation failed", 1);
    let options = with("main:1", Visibility::Tree, 10);
    let json = search_sql(&store, "compiling errors", &options).unwrap();
    let sql: SearchResponse = serde_json::from_str(&json).unwrap();
    assert_eq!(sql, search(&store, "compiling errors", &options));
    assert!(
        json.contains(r#""partial":true,"matched":["compiling"]"#),
        "{json}"
    );
    assert!(json.contains(r#"{"term":"errors","messages":0}"#), "{json}");
}

#[test]
fn a_question_about_what_i_or_you_said_prefers_that_roles_messages() {
    let store = store();
    let key = "main:1";
    session(&store, key, "main", None);
    let text = "the staging rollout goes blue green behind the load balancer";
    let user = say(&store, key, Role::User, text, 1);
    let assistant = say(&store, key, Role::Assistant, text, 2);
    let options = with(key, Visibility::Tree, 10);
    let first = |query: &str| {
        let page = search(&store, query, &options);
        assert!(page.results.iter().all(|hit| hit.partial), "{page:?}");
        assert!(sorted_by_score(&page), "{page:?}");
        (
            page.results[0].id,
            page.results[0].score / page.results[1].score,
        )
    };
    // The same words in both: the role the question names ranks first, its
    // score SPEAKER_WEIGHT (1.25) times the other's.
    let (id, ratio) = first("what did I say about the blue green rollout?");
    assert_eq!(id, user);
    assert!((ratio - 1.25).abs() < 1e-9, "{ratio}");
    let (id, ratio) = first("where did you just suggest a blue green rollout?");
    assert_eq!(id, assistant);
    assert!((ratio - 1.25).abs() < 1e-9, "{ratio}");
    // No one says anything (`did I deploy`): equal scores, newer first.
    let (id, ratio) = first("when did I deploy the blue green rollout?");
    assert_eq!(id, assistant);
    assert!((ratio - 1.0).abs() < 1e-9, "{ratio}");
    // Full matches are ordered by BM25 alone.
    let exact = search(&store, "staging rollout", &options);
    assert_eq!(exact.results.len(), 2);
    assert!(exact.results.iter().all(|hit| !hit.partial));
    assert_eq!(exact.results[0].score, exact.results[1].score);
}
