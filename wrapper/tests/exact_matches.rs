//! Phrases and prefixes through `Store::search` on random messages full of
//! common and frequent words and words that share prefixes: a phrase finds exactly the
//! messages whose tokens hold the phrase's tokens consecutively, whether or
//! not it is matched with pair tokens (a common word next to another
//! word), and a prefix exactly those with a token it starts, whether or not
//! it is matched with prefix tokens (two or three characters), at any case,
//! across punctuation and next to CJK text.

use proptest::prelude::*;
use proptest::test_runner::Config;
use session_search::tokenizer::{Options, Tokenizer};
use session_search::{NewMessage, NewSession, Role, SearchRequest, Store, Visibility};
use std::collections::BTreeSet;

/// Common English words (several with pair tokens), other words, words
/// that start others, case variants and CJK characters.
const WORDS: &[&str] = &[
    "the",
    "The",
    "THE",
    "a",
    "to",
    "of",
    "it",
    "is",
    "in",
    "and",
    "you",
    "that",
    "this",
    "than",
    "thaw",
    "deploy",
    "Deployment",
    "file",
    "Files",
    "filter",
    "dep",
    "depl",
    "depot",
    "deλta",
    "de9",
    "error",
    "staging",
    "fix",
    "now",
    "café",
    "cafeteria",
    "them",
    "tea",
    "東",
    "京",
];

const SEPARATORS: &[&str] = &[" ", " ", " ", ", ", ". ", "\n", "-", "/", ""];

const SESSION: &str = "agent:main:cli:1";

fn message() -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(WORDS),
            prop::sample::select(SEPARATORS),
        ),
        1..14,
    )
    .prop_map(|words| {
        words
            .into_iter()
            .map(|(word, separator)| format!("{word}{separator}"))
            .collect()
    })
}

fn tokens(text: &str) -> Vec<(String, usize, usize)> {
    Tokenizer::new(Options {
        remove_diacritics: true,
        cjk: true,
        markers: false,
        ..Options::default()
    })
    .tokens(text.as_bytes())
}

/// A store with `messages` in one session, and their ids.
fn store_of(messages: &[String]) -> (Store, Vec<i64>) {
    let store = Store::open_in_memory().unwrap();
    store
        .create_session(&NewSession {
            session_key: SESSION.into(),
            agent_id: "main".into(),
            spawned_by: None,
            created_at: 1,
        })
        .unwrap();
    let mut ids = Vec::new();
    for (n, content) in messages.iter().enumerate() {
        let id = store
            .append(&NewMessage {
                session_key: SESSION.into(),
                parent_id: None,
                role: Role::User,
                content: content.clone(),
                created_at: n as i64,
                message_id: None,
            })
            .unwrap();
        ids.push(id);
    }
    (store, ids)
}

/// Asserts that `query` finds, with every term, exactly the `messages` whose
/// tokens `holds` (at most 25).
fn finds_exactly(
    messages: &[String],
    query: &str,
    holds: impl Fn(&[String]) -> bool,
) -> Result<(), TestCaseError> {
    let (store, ids) = store_of(messages);
    let mut request = SearchRequest::new(query, SESSION);
    request.options.visibility = Visibility::All;
    request.options.limit = Some(25);
    let found: BTreeSet<i64> = store
        .search(&request)
        .unwrap()
        .results
        .into_iter()
        .filter(|hit| !hit.partial)
        .map(|hit| hit.id)
        .collect();
    let expected: BTreeSet<i64> = messages
        .iter()
        .zip(&ids)
        .filter(|(text, _)| {
            let have: Vec<String> = tokens(text).into_iter().map(|(t, ..)| t).collect();
            holds(&have)
        })
        .map(|(_, &id)| id)
        .collect();
    prop_assert_eq!(found, expected, "query {:?}", query);
    Ok(())
}

/// The message `pick` chooses, with its tokens.
fn source(messages: &[String], pick: usize) -> (&str, Vec<(String, usize, usize)>) {
    let source = &messages[pick % messages.len()];
    (source, tokens(source))
}

fn phrase_finds_exactly_its_messages(
    messages: Vec<String>,
    pick: (usize, usize, usize),
) -> Result<(), TestCaseError> {
    // A run of 2 to 4 consecutive tokens of one message, as its text.
    let (source, source_tokens) = source(&messages, pick.0);
    let length = 2 + pick.2 % 3;
    if source_tokens.len() < length {
        return Ok(());
    }
    let first = pick.1 % (source_tokens.len() - length + 1);
    let phrase = &source[source_tokens[first].1..source_tokens[first + length - 1].2];
    let wanted: Vec<String> = tokens(phrase).into_iter().map(|(t, ..)| t).collect();
    finds_exactly(&messages, &format!("\"{phrase}\""), |have| {
        have.windows(wanted.len()).any(|w| w == wanted.as_slice())
    })
}

fn prefix_finds_exactly_its_messages(
    messages: Vec<String>,
    pick: (usize, usize, usize),
) -> Result<(), TestCaseError> {
    // The first 1 to 10 characters of a token of one message, as its text:
    // shorter than, as long as and longer than the prefix tokens.
    let (source, source_tokens) = source(&messages, pick.0);
    if source_tokens.is_empty() {
        return Ok(());
    }
    let (_, start, end) = &source_tokens[pick.1 % source_tokens.len()];
    let prefix: String = source[*start..*end].chars().take(1 + pick.2 % 10).collect();
    let prefix_tokens = tokens(&prefix);
    let [(wanted, ..)] = prefix_tokens.as_slice() else {
        return Ok(());
    };
    finds_exactly(&messages, &format!("{prefix}*"), |have| {
        have.iter().any(|token| token.starts_with(wanted.as_str()))
    })
}

proptest! {
    #![proptest_config(Config::with_cases(200))]

    #[test]
    fn a_phrase_finds_exactly_the_messages_that_hold_it(
        messages in prop::collection::vec(message(), 1..20),
        pick in (any::<usize>(), any::<usize>(), any::<usize>()),
    ) {
        phrase_finds_exactly_its_messages(messages, pick)?;
    }

    #[test]
    fn a_prefix_finds_exactly_the_messages_with_a_word_it_starts(
        messages in prop::collection::vec(message(), 1..20),
        pick in (any::<usize>(), any::<usize>(), any::<usize>()),
    ) {
        prefix_finds_exactly_its_messages(messages, pick)?;
    }
}

#[test]
fn a_two_character_prefix_finds_every_word_it_starts() {
    // Words of two characters, of three (no prefix token), longer ones (a
    // prefix token), frequent ones (none), one with a digit, and ones whose
    // third character is no ASCII letter or digit (the prefix tail), each
    // alone in its message; and messages with none.
    let messages: Vec<String> = [
        "de",
        "dew",
        "deploy",
        "Deployment",
        "de9",
        "deλta",
        "DEλ",
        "déjà",
        "the",
        "that",
        "the",
        "There",
        "debug",
        "ad",
        "ode",
        "d e",
        "東京",
    ]
    .iter()
    .map(|text| (*text).to_owned())
    .collect();
    for query in ["de", "De", "th"] {
        let wanted = query.to_lowercase();
        finds_exactly(&messages, &format!("{query}*"), |have| {
            have.iter().any(|token| token.starts_with(wanted.as_str()))
        })
        .unwrap();
    }
}
