//! The query compiler against arbitrary input (docs/sql.md, "The query and plain-language questions"): no text a
//! user can type produces an FTS5 syntax error or any other SQL error; the
//! only errors are the documented ones (empty, over 4096 characters, no
//! letter or digit). And queries people actually type — paths, e-mail
//! addresses, issue numbers, contractions, accents, CJK, mixed scripts —
//! find the messages they would expect.

mod common;

use common::*;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use session_search::{Error, Role, SearchOptions, Store, Visibility};

const KEY: &str = "agent:main:fuzz";

/// FTS5 syntax, keywords, and characters that stress segmentation.
const PIECES: &[&str] = &[
    "\"",
    "\"",
    "*",
    "^",
    ":",
    "(",
    ")",
    "-",
    "+",
    "{",
    "}",
    "[",
    "]",
    " ",
    " ",
    "  ",
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(",
    "NEAR/2",
    "and",
    "near",
    "text:",
    "{text}",
    "rowid",
    "MATCH",
    "'",
    "''",
    "\\",
    "/",
    ".",
    ",",
    ";",
    "?",
    "!",
    "@",
    "#",
    "$",
    "%",
    "&",
    "|",
    "~",
    "`",
    "=",
    "<",
    ">",
    "deploy",
    "staging",
    "a",
    "1",
    "42",
    "x_y",
    "東京",
    "京",
    "ラー",
    "서울",
    "ไทย",
    "🚀",
    "👩\u{200d}💻",
    "é",
    "e\u{301}",
    "ß",
    "ǅ",
    "İ",
    "ﬁ",
    "Ａ",
    "\u{0}",
    "\u{1}",
    "\u{1b}",
    "\n",
    "\t",
    "\r",
    "\u{7f}",
    "\u{85}",
    "\u{a0}",
    "\u{200b}",
    "\u{200d}",
    "\u{feff}",
    "\u{2028}",
    "\u{fffd}",
    "\u{e000}",
    "\u{10ffff}",
    "\u{300}",
    "\u{301}\u{302}",
    "ٌ",
    "ּ",
    "\u{3099}",
    "\u{ff9e}",
    "か",
    "ｶ",
    "ﷺ",
    "𝔘",
    "Ⅻ",
    "²",
    "½",
    "٣",
];

/// Characters without letters or digits, so whole queries of them exercise
/// the "no letters or digits" error.
const NOISE: &[char] = &[
    '"', '*', '^', ':', '(', ')', '-', '+', '{', '}', '[', ']', ' ', '\t', '\n', '\0', '\u{1}',
    '#', '@', '!', '?', '.', '/', '\\', '🚀', '\u{200d}', '\u{feff}', '\u{301}', '～', '。',
];

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "\\PC{0,64}",
        3 => prop::collection::vec(select(PIECES), 0..24).prop_map(|v| v.concat()),
        1 => prop::collection::vec(select(NOISE), 0..40).prop_map(String::from_iter),
        1 => "[\\x00-\\x1f\\x7f \"*^:()+{}\\[\\]a-zA-Z0-9-]{0,48}",
        1 => "[\\p{Han}\\p{Hiragana}\\p{Katakana}\\p{Hangul}\\p{Thai} ]{0,40}",
        1 => "[\\u{1F300}-\\u{1FAFF}\\u{2600}-\\u{27BF}\\u{FE0F}\\u{200D} a-z]{0,40}",
        1 => prop::collection::vec(any::<char>(), 0..120).prop_map(String::from_iter),
        1 => prop_oneof![
            prop::collection::vec(select(PIECES), 600..1200)
                .prop_map(|v| v.concat().chars().take(4096).collect()),
            prop::collection::vec(any::<char>(), 3900..4200).prop_map(String::from_iter),
        ],
    ]
}

/// A store whose messages contain the pieces above, so many queries match.
fn populated() -> Store {
    let store = store();
    session(&store, KEY, "main", None);
    let texts = [
        "Deploy staging to 東京 after NEAR(review) AND (tests) pass: src/main.py, #123",
        "alice@example.com said \"don't\" — C# and F#; ラーメン、서울시에서 ไทยภาษา",
        "Café naïve Straße ﬁle ＡＢＣ 🚀 👩\u{200d}💻 x_y 42 1 a text: {text} rowid MATCH",
        "OR NOT and near * ^ - + [ ] e\u{301} ß ǅ İ か ｶ ﷺ 𝔘 Ⅻ ² ½ ٣",
    ];
    for (i, text) in texts.iter().enumerate() {
        say(&store, KEY, Role::User, text, i as i64);
        say(&store, KEY, Role::Assistant, &text.repeat(3), 10 + i as i64);
    }
    store
}

fn documented(message: &str) -> bool {
    let Some(reason) = message.strip_prefix("sessions_search: ") else {
        return false;
    };
    reason == "the query is empty"
        || reason == "the query has no letters or digits to search for"
        || (reason.starts_with("the query is ")
            && reason.ends_with(" characters long; the limit is 4096"))
}

/// One arbitrary query, through the typed API and, with `sql`, through SQL.
fn check_query(store: &Store, query: &str, sql: bool) -> Result<(), TestCaseError> {
    let options = SearchOptions {
        visibility: Visibility::All,
        limit: Some(25),
        ..options(KEY)
    };
    let typed = try_search(store, query, &options);
    let length = query.chars().count();
    match &typed {
        Ok(response) => {
            prop_assert!(length <= 4096, "{length} characters accepted");
            prop_assert!(response.results.len() <= 25);
        }
        Err(Error::Store(e)) => {
            let message = e.to_string();
            prop_assert!(documented(&message), "{query:?}: {message}");
            prop_assert_eq!(
                message.contains("characters long"),
                length > 4096,
                "{:?}: {}",
                query,
                message
            );
            prop_assert_eq!(
                message.ends_with("is empty"),
                length <= 4096 && query.trim().is_empty(),
                "{:?}: {}",
                query,
                message
            );
        }
        Err(other) => {
            return Err(TestCaseError::fail(format!("{query:?}: {other:?}")));
        }
    }
    if length <= 4096 && query.chars().any(|c| c.is_ascii_alphanumeric()) {
        prop_assert!(typed.is_ok(), "{query:?}: {typed:?}");
    }
    if !sql {
        return Ok(());
    }
    match search_sql(store, query, &options) {
        Ok(json) => prop_assert!(typed.is_ok(), "{query:?}: SQL answered {json}"),
        Err(message) => prop_assert!(
            typed.is_err() && message.contains("sessions_search: the query"),
            "{query:?}: {message}"
        ),
    }
    Ok(())
}

#[test]
fn ten_thousand_arbitrary_queries_give_results_or_a_documented_error() {
    let store = populated();
    let seen = std::cell::Cell::new(0u32);
    let mut runner = TestRunner::new(Config {
        cases: 10_000,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&query(), |q| {
            // Every fifth query also goes through SQL (same engine, same
            // errors), to keep the run short.
            seen.set(seen.get() + 1);
            check_query(&store, &q, seen.get() % 5 == 0)
        })
        .unwrap();
}

#[test]
fn fixed_hostile_queries_give_results_or_a_documented_error() {
    let store = populated();
    let long_noise = "\"(*^:".repeat(900);
    let over_long = "a".repeat(4097);
    let at_limit = "é ".repeat(2048);
    for query in [
        "\"",
        "\"\"",
        "\"\"\"",
        "*",
        "a*",
        "*a",
        "**a**",
        "\"a*\"",
        "NEAR(",
        "NEAR(a b, 2)",
        "a NEAR/2 b",
        "a AND",
        "OR b",
        "NOT",
        "a NOT b",
        "(",
        ")",
        "((a)",
        "text:a",
        "{text}:a",
        "-a",
        "+a",
        "^a",
        "a:b:c",
        "'",
        "a'b",
        "\u{0}",
        "a\u{0}b",
        "\"a\u{0}\"",
        "\u{feff}",
        "🚀",
        "👩\u{200d}💻 deploy",
        "\u{300}",
        "東京\"",
        "\\\"",
        "a\"b\"c\"d",
        long_noise.as_str(),
        over_long.as_str(),
        at_limit.as_str(),
    ] {
        check_query(&store, query, true)
            .map_err(|e| format!("{e}"))
            .unwrap();
    }
    let err = try_search(&store, &over_long, &options(KEY)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "sessions_search: the query is 4097 characters long; the limit is 4096"
    );
    assert!(try_search(&store, &at_limit, &options(KEY)).is_ok());
    for (query, reason) in [
        ("", "the query is empty"),
        (" \n\t ", "the query is empty"),
        ("\"\" *", "the query has no letters or digits to search for"),
        ("🚀", "the query has no letters or digits to search for"),
        ("AND", ""),
    ] {
        let result = try_search(&store, query, &options(KEY));
        if reason.is_empty() {
            assert!(result.is_ok(), "{query:?}: {result:?}");
        } else {
            assert_eq!(
                result.unwrap_err().to_string(),
                format!("sessions_search: {reason}"),
                "{query:?}"
            );
        }
    }
}

/// A word of a generated document: ASCII words (some joined by
/// punctuation), CJK runs and accented words.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z0-9]{1,8}",
        2 => "[a-z0-9]{1,6}[./@#_:-][a-z0-9]{1,6}",
        1 => "#[0-9]{1,5}",
        2 => "[東京都大阪府ラーメンを食べた서울시에서만나요]{1,6}",
        1 => "[a-z]{1,4}[東京ラー서울]{1,3}[a-z]{0,4}",
        1 => "[àéîõüçñßø]{1,2}[a-z]{1,5}",
    ]
}

#[test]
fn a_document_is_found_by_any_of_its_words_and_by_itself() {
    let store = store();
    session(&store, KEY, "main", None);
    let mut runner = TestRunner::new(Config {
        cases: 400,
        failure_persistence: None,
        ..Config::default()
    });
    let at = std::cell::Cell::new(0);
    let strategy = (
        prop::collection::vec(word(), 1..12),
        any::<prop::sample::Index>(),
    );
    runner
        .run(&strategy, |(words, pick)| {
            at.set(at.get() + 1);
            let at = at.get();
            let text = words.join(" ");
            let id = say(&store, KEY, Role::User, &text, at);
            let only_this = SearchOptions {
                since: Some(at),
                until: Some(at),
                ..options(KEY)
            };
            let found = |query: &str| -> Result<bool, TestCaseError> {
                let response = try_search(&store, query, &only_this)
                    .map_err(|e| TestCaseError::fail(format!("{query:?}: {e}")))?;
                Ok(response.results.iter().any(|h| h.id == id))
            };
            prop_assert!(found(&text)?, "{text:?} by itself");
            let word = pick.get(&words);
            prop_assert!(found(word)?, "{text:?} by {word:?}");
            prop_assert!(
                found(&format!("\"{word}\""))?,
                "{text:?} by quoted {word:?}"
            );
            if word.len() >= 3 && word.chars().all(|c| c.is_ascii_alphanumeric()) {
                let prefix = format!("{}*", &word[..2]);
                prop_assert!(found(&prefix)?, "{text:?} by {prefix:?}");
            }
            Ok(())
        })
        .unwrap();
}

/// `(text, query, whether the query finds the text)`.
const EXPECTED: &[(&str, &str, bool)] = &[
    ("the bug is in src/main.py line 40", "src/main.py", true),
    ("the bug is in src/main.py line 40", "main.py", true),
    ("the bug is in src/main.py line 40", "src/main.rs", false),
    ("mail alice@example.com about it", "alice@example.com", true),
    ("mail alice@example.com about it", "alice", true),
    ("mail alice@example.com about it", "example.com", true),
    ("mail alice@example.com about it", "bob@example.com", false),
    ("fixed in #123 yesterday", "#123", true),
    ("fixed in #123 yesterday", "123", true),
    ("fixed in #123 yesterday", "#124", false),
    ("C# and F# are both fine", "C#", true),
    ("C# and F# are both fine", "F#", true),
    ("don't push to main", "don't", true),
    ("don't push to main", "DON'T push", true),
    ("a naïve approach", "naive", true),
    ("a naïve approach", "naïve", true),
    ("a naïve approach", "NAÏVE", true),
    ("a naïve approach", "nai\u{308}ve", true),
    ("a naive approach", "naïve", true),
    ("Ærøskøbing og Straße", "aeroskobing strasse", true),
    ("ＡＢＣ full width", "abc", true),
    ("東京都に行きました", "東京", true),
    ("東京都に行きました", "京都", true),
    ("東京都に行きました", "都", true),
    ("東京都に行きました", "大阪", false),
    ("deploy到東京server今天", "東京", true),
    ("deploy到東京server今天", "deploy", true),
    ("deploy到東京server今天", "server", true),
    ("deploy到東京server今天", "deploy到東京server", true),
    ("서울시에서 만나요", "서울", true),
    ("ラーメンを食べた", "ラー", true),
    ("ラーメンを食べた", "ラーメン", true),
    ("กินข้าวที่กรุงเทพ", "กรุงเทพ", true),
    ("Ελληνικά κείμενα", "ελληνικα", true),
    ("שָׁלוֹם עולם", "שלום", true),
    ("the staging-deploy job failed", "staging-deploy", true),
    ("the staging-deploy job failed", "staging", true),
    ("the staging-deploy job failed", "deploy job", true),
    ("config.yaml has timeout: 30s", "timeout:", true),
    ("config.yaml has timeout: 30s", "conf*", true),
    (
        "NEAR(deploy staging) is FTS5 syntax",
        "NEAR(deploy staging)",
        true,
    ),
    ("this or that", "OR", true),
    ("this or that", "AND", false),
    ("deploy not staging", "deploy NOT staging", true),
    ("deploy to production", "deploy NOT staging", false),
    ("say \"hello world\" twice", "\"hello world\"", true),
    ("say \"hello world\" twice", "\"world hello\"", false),
    ("say \"hello world\" twice", "world hello", true),
    ("say \"hello world\" twice", "\"hello world", true),
    ("ship it 🚀 today", "ship 🚀", true),
    ("ship the -staging flag", "-staging", true),
    ("user_id = 42 in the row", "user_id", true),
    ("run (cd app && make) first", "(cd app", true),
    ("what is 2^10?", "2^10?", true),
];

#[test]
fn queries_people_type_find_what_they_expect() {
    let store = store();
    session(&store, KEY, "main", None);
    let mut texts: Vec<&str> = EXPECTED.iter().map(|e| e.0).collect();
    texts.dedup();
    let ids: Vec<(i64, &str)> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| (say(&store, KEY, Role::User, t, i as i64), *t))
        .collect();
    let mut wrong = Vec::new();
    for (text, query, expected) in EXPECTED {
        let id = ids.iter().find(|(_, t)| t == text).unwrap().0;
        let response = search(
            &store,
            query,
            &SearchOptions {
                limit: Some(25),
                ..options(KEY)
            },
        );
        let found = response.results.iter().any(|h| h.id == id && !h.partial);
        if found != *expected {
            wrong.push(format!("{query:?} in {text:?}: found {found}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn curly_and_straight_apostrophes_find_each_other() {
    let store = store();
    session(&store, KEY, "main", None);
    say(&store, KEY, Role::User, "don\u{2019}t push to main", 1);
    say(&store, KEY, Role::User, "won't fix", 2);
    assert_eq!(search(&store, "don't", &options(KEY)).results.len(), 1);
    assert_eq!(
        search(&store, "won\u{2019}t", &options(KEY)).results.len(),
        1
    );
}
