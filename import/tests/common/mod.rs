//! Helpers shared by the importer tests: searches and history reads
//! through the typed API, and (in `import`) fixtures and imports.

#![allow(dead_code)]

pub mod import;

use session_search::{
    HistoryOptions, HistoryResponse, SearchOptions, SearchRequest, SearchResponse, Store,
};

/// Search options of `caller` with everything else defaulted.
pub fn options(caller: &str) -> SearchOptions {
    SearchOptions {
        caller: Some(caller.into()),
        ..SearchOptions::default()
    }
}

/// History options of `caller` with everything else defaulted.
pub fn history_options(caller: &str) -> HistoryOptions {
    HistoryOptions {
        caller: Some(caller.into()),
        ..HistoryOptions::default()
    }
}

/// A search that must succeed.
pub fn search(store: &Store, query: &str, options: &SearchOptions) -> SearchResponse {
    store
        .search(&SearchRequest {
            query: query.into(),
            options: options.clone(),
        })
        .unwrap_or_else(|e| panic!("search {query:?} with {options:?} failed: {e}"))
}

/// A history read that must succeed.
pub fn history(store: &Store, key: &str, options: &HistoryOptions) -> HistoryResponse {
    store
        .history(key, options)
        .unwrap_or_else(|e| panic!("history of {key:?} with {options:?} failed: {e}"))
}
