//! Arbitrary bytes as a query: `Query::parse` either refuses them with a
//! documented error, or compiles an FTS5 expression that runs without error
//! against an FTS5 table using the `sessions` tokenizer. The same text as a
//! `Store::search` gives results or one of the documented errors, never an
//! SQL error.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rusqlite::Connection;
use session_search::{
    NewMessage, NewSession, Role, SearchOptions, SearchRequest, Store, Visibility,
};
use session_search_engine::query::{Query, QueryError, MAX_QUERY_CHARS};

const KEY: &str = "agent:main:fuzz";

const TEXTS: &[&str] = &[
    "Deploy staging to 東京 after NEAR(review) AND (tests) pass: src/main.py, #123",
    "alice@example.com said \"don't\" — C# and F#; ラーメン、서울시에서 ไทยภาษา",
    "Café naïve Straße ﬁle ＡＢＣ 🚀 x_y 42 text: {text} rowid OR NOT * ^ - +",
];

struct Fixture {
    conn: Connection,
    store: Store,
}

fn fixture() -> Fixture {
    let conn = session_search::open_in_memory().expect("open");
    conn.execute_batch("CREATE VIRTUAL TABLE t USING fts5(text, scope, tokenize = 'sessions cjk 1');")
        .expect("create the FTS5 table");
    let store = Store::open_in_memory().expect("open the store");
    store
        .create_session(&NewSession {
            session_key: KEY.into(),
            agent_id: "main".into(),
            spawned_by: None,
            created_at: 1,
        })
        .expect("create the session");
    for (i, text) in TEXTS.iter().enumerate() {
        conn.execute("INSERT INTO t(text, scope) VALUES (?1, 't00')", [text])
            .expect("insert");
        store
            .append(&NewMessage {
                session_key: KEY.into(),
                role: Role::User,
                content: (*text).into(),
                created_at: i as i64 + 2,
                ..NewMessage::default()
            })
            .expect("append");
    }
    Fixture { conn, store }
}

thread_local! {
    static FIXTURE: Fixture = fixture();
}

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    FIXTURE.with(|f| {
        match Query::parse(&input) {
            Ok(query) => {
                let expression = query.fts5_expression(Some("t00"));
                let mut stmt = f
                    .conn
                    .prepare_cached("SELECT count(*) FROM t WHERE t MATCH ?1")
                    .expect("prepare");
                let rows: rusqlite::Result<i64> = stmt.query_row([&expression], |row| row.get(0));
                if let Err(e) = rows {
                    panic!("{input:?} compiled to {expression:?}, which FTS5 refused: {e}");
                }
                for text in TEXTS {
                    for span in query.match_spans(text) {
                        assert!(
                            text.is_char_boundary(span.start) && text.is_char_boundary(span.end)
                        );
                    }
                }
            }
            Err(QueryError::Empty) => assert!(input.trim().is_empty(), "{input:?}"),
            Err(QueryError::TooLong(n)) => assert!(n > MAX_QUERY_CHARS, "{input:?}"),
            Err(QueryError::NoWords) => {
                assert!(
                    !input.chars().any(|c| c.is_ascii_alphanumeric()),
                    "{input:?}"
                )
            }
        }
        let request = SearchRequest {
            query: input.to_string(),
            options: SearchOptions {
                caller: Some(KEY.into()),
                visibility: Visibility::All,
                limit: Some(25),
                ..SearchOptions::default()
            },
        };
        if let Err(e) = f.store.search(&request) {
            let message = e.to_string();
            assert!(
                message.starts_with("sessions_search: the query "),
                "{input:?}: {message}"
            );
        }
    });
});
