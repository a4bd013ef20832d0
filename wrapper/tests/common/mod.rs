//! Helpers shared by the integration tests: sessions, messages, searches
//! through the typed API and through SQL, and the tokens of a text.

#![allow(dead_code)]

use session_search::{
    Error, HistoryOptions, HistoryResponse, NewMessage, NewSession, Role, SearchOptions,
    SearchRequest, SearchResponse, Store, Visibility,
};

/// An in-memory store (no background thread).
pub fn store() -> Store {
    Store::open_in_memory().unwrap()
}

/// Creates a session of `agent`, spawned by `spawned_by`.
pub fn session(store: &Store, key: &str, agent: &str, spawned_by: Option<&str>) {
    store
        .create_session(&NewSession {
            session_key: key.into(),
            agent_id: agent.into(),
            spawned_by: spawned_by.map(Into::into),
            created_at: 1,
        })
        .unwrap();
}

/// Appends `content` to `key` after its leaf; returns `messages.id`.
pub fn say(store: &Store, key: &str, role: Role, content: &str, created_at: i64) -> i64 {
    append(store, key, None, role, content, created_at, None)
}

/// Appends with every field given.
pub fn append(
    store: &Store,
    key: &str,
    parent_id: Option<i64>,
    role: Role,
    content: &str,
    created_at: i64,
    message_id: Option<&str>,
) -> i64 {
    store
        .append(&NewMessage {
            session_key: key.into(),
            parent_id,
            role,
            content: content.into(),
            created_at,
            message_id: message_id.map(Into::into),
        })
        .unwrap()
}

/// Search options of `caller` with everything else defaulted.
pub fn options(caller: &str) -> SearchOptions {
    SearchOptions {
        caller: Some(caller.into()),
        ..SearchOptions::default()
    }
}

/// Search options of `caller` at `visibility` for `limit` results.
pub fn with(caller: &str, visibility: Visibility, limit: i64) -> SearchOptions {
    SearchOptions {
        visibility,
        limit: Some(limit),
        ..options(caller)
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
    try_search(store, query, options)
        .unwrap_or_else(|e| panic!("search {query:?} with {options:?} failed: {e}"))
}

/// A search through the typed API.
pub fn try_search(
    store: &Store,
    query: &str,
    options: &SearchOptions,
) -> Result<SearchResponse, Error> {
    store.search(&SearchRequest {
        query: query.into(),
        options: options.clone(),
    })
}

/// A history read that must succeed.
pub fn history(store: &Store, key: &str, options: &HistoryOptions) -> HistoryResponse {
    store
        .history(key, options)
        .unwrap_or_else(|e| panic!("history of {key:?} with {options:?} failed: {e}"))
}

/// `SELECT sessions_search(?1, ?2)` with the options serialized as the
/// typed API would send them: the JSON text, or the SQL error message.
pub fn search_sql(store: &Store, query: &str, options: &SearchOptions) -> Result<String, String> {
    let json = serde_json::to_string(options).unwrap();
    store
        .connection()
        .query_row("SELECT sessions_search(?1, ?2)", [query, &json], |row| {
            row.get::<_, String>(0)
        })
        .map_err(|e| e.to_string())
}

/// `SELECT sessions_history(?1, ?2)`: the JSON text, or the error message.
pub fn history_sql(store: &Store, key: &str, options: &HistoryOptions) -> Result<String, String> {
    let json = serde_json::to_string(options).unwrap();
    store
        .connection()
        .query_row("SELECT sessions_history(?1, ?2)", [key, &json], |row| {
            row.get::<_, String>(0)
        })
        .map_err(|e| e.to_string())
}

/// The exact bytes of the `results` array in a `sessions_search` answer
/// (its first key), as the SQL function wrote them.
pub fn raw_results(json: &str) -> &str {
    let prefix = "{\"results\":";
    assert!(json.starts_with(prefix), "{json}");
    let rest = &json[prefix.len()..];
    let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
    stream.next().expect("a results array").expect("valid JSON");
    &rest[..stream.byte_offset()]
}

/// A word of letters only that is unique to `n` and shares no token with
/// any other (`qz` + base-26 digits + `xq`).
pub fn unique_word(n: usize) -> String {
    let mut digits = String::new();
    let mut n = n;
    loop {
        digits.insert(0, char::from(b'a' + (n % 26) as u8));
        n /= 26;
        if n == 0 {
            break;
        }
    }
    format!("qz{digits}xq")
}

/// A small deterministic pseudo-random generator (xorshift), so secrets and
/// fillers look random but every run is the same.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// `len` characters drawn from `alphabet`.
    pub fn string(&mut self, alphabet: &str, len: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        (0..len).map(|_| chars[self.below(chars.len())]).collect()
    }
}

/// `sessions_tokenize(text, args)` on `conn`, decoded into
/// `(token, start, end)`.
pub fn tokenize(
    conn: &rusqlite::Connection,
    text: &[u8],
    args: &str,
) -> Vec<(String, usize, usize)> {
    let json: String = conn
        .query_row(
            "SELECT sessions_tokenize(?1, ?2)",
            rusqlite::params![text, args],
            |r| r.get(0),
        )
        .unwrap();
    let tokens: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    tokens
        .iter()
        .map(|t| {
            (
                t["token"].as_str().unwrap().to_owned(),
                t["start"].as_u64().unwrap() as usize,
                t["end"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

/// The `(id, score)` rows of `sql` run with `params` on the store's
/// connection: what a search must return, computed in SQL.
pub fn scored_rows(store: &Store, sql: &str, params: impl rusqlite::Params) -> Vec<(i64, f64)> {
    let conn = store.connection();
    let mut statement = conn.prepare(sql).unwrap();
    let rows = statement
        .query_map(params, |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap();
    rows.map(Result::unwrap).collect()
}
