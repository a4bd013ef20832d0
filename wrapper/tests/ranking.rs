//! Ranking a window: a search that ranks the newest `rankWindow` matches
//! returns exactly the best of them by exhaustive BM25 (`sessions_rank` over
//! every one of them in SQL), with their scores, newest first on ties,
//! whatever the order of the best hits in the window and however few rows
//! the page keeps.

mod common;

use common::*;
use proptest::prelude::*;
use session_search::{Role, SearchOptions, Store, Visibility};
use session_search_engine::query::Query;

/// The words messages are written in: the query's, and fillers that make
/// messages of many lengths.
const WORDS: [&str; 8] = [
    "alpha", "beta", "gamma", "delta", "fill", "more", "other", "words",
];

/// A message: 1 to 40 words of [`WORDS`], the query's words more or less
/// often, so that both how often a message holds them and its length vary.
fn message() -> impl Strategy<Value = String> {
    prop::collection::vec(0..WORDS.len(), 1..40).prop_map(|picks| {
        picks
            .iter()
            .map(|&i| WORDS[i])
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// A query of two or three of the first four words (every term must
/// match), or two of them as a phrase. One word is ranked from its impact
/// tiers, over every match, so it is left to `search.rs`.
fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::subsequence(&WORDS[..4], 2..=3).prop_map(|words| words.join(" ")),
        prop::sample::subsequence(&WORDS[..4], 2)
            .prop_map(|words| format!("\"{}\"", words.join(" "))),
    ]
}

/// The best `limit` of the newest `window` matches of `query` by
/// `sessions_rank` over every one of them, newest first on ties, with their
/// scores.
fn exhaustive(store: &Store, query: &str, window: i64, limit: i64) -> Vec<(i64, f64)> {
    let expression = Query::parse(query).unwrap().fts5_expression(None);
    scored_rows(
        store,
        "SELECT id, -rank FROM (
           SELECT ~f.rowid AS id, sessions_rank(session_search_fts) AS rank, m.created_at AS at
           FROM session_search_fts f JOIN messages m ON m.id = ~f.rowid
           WHERE session_search_fts MATCH ?1 ORDER BY f.rowid LIMIT ?2)
         ORDER BY rank, at DESC, id DESC LIMIT ?3",
        rusqlite::params![expression, window, limit],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_page_is_the_best_of_its_window_by_exhaustive_bm25(
        messages in prop::collection::vec(message(), 1..120),
        query in query(),
        window in 1i64..60,
        limit in 1i64..8,
    ) {
        let store = store();
        session(&store, "s", "agent", None);
        for (at, text) in messages.iter().enumerate() {
            say(&store, "s", Role::User, text, at as i64);
        }
        let options = SearchOptions {
            visibility: Visibility::All,
            limit: Some(limit),
            rank_window: Some(window),
            ..options("s")
        };
        let found: Vec<(i64, f64)> = search(&store, &query, &options)
            .results
            .iter()
            .filter(|hit| !hit.partial)
            .map(|hit| (hit.id, hit.score))
            .collect();
        prop_assert_eq!(found, exhaustive(&store, &query, window, limit));
    }
}
