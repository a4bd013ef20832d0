//! Bad and extreme input through the wrapper's in-process registration:
//! NULL, empty, invalid UTF-8, a 10 MB document, a 100 KB token, unknown
//! tokenizer arguments. Nothing errors, valid pieces are found, and FTS5's
//! integrity check passes afterwards.

mod common;

use rusqlite::{params, Connection};

/// A connection with a `sessions cjk 1` table `t` and a `sessions` table `w`.
fn setup() -> Connection {
    let conn = session_search::open_in_memory().unwrap();
    conn.execute_batch(
        "CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'sessions cjk 1');
         CREATE VIRTUAL TABLE w USING fts5(body, tokenize = 'sessions');",
    )
    .unwrap();
    conn
}

/// Row ids of `table` matching `query`, sorted.
fn hits(conn: &Connection, table: &str, query: &str) -> Vec<i64> {
    let sql = format!("SELECT rowid FROM {table} WHERE {table} MATCH ?1 ORDER BY rowid");
    let mut stmt = conn.prepare(&sql).unwrap();
    let rows = stmt.query_map([query], |row| row.get(0)).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// Runs FTS5's integrity check on `table`, failing the test if it reports
/// corruption.
fn integrity_check(conn: &Connection, table: &str) {
    conn.execute(
        &format!("INSERT INTO {table}({table}) VALUES ('integrity-check')"),
        [],
    )
    .unwrap_or_else(|e| panic!("integrity-check of {table}: {e}"));
}

fn insert_blob(conn: &Connection, table: &str, rowid: i64, body: &[u8]) {
    conn.execute(
        &format!("INSERT INTO {table}(rowid, body) VALUES (?1, CAST(?2 AS TEXT))"),
        params![rowid, body],
    )
    .unwrap();
}

#[test]
fn null_empty_and_tokenless_documents_are_stored_and_match_nothing() {
    let conn = setup();
    for table in ["t", "w"] {
        conn.execute(
            &format!(
                "INSERT INTO {table}(rowid, body) VALUES
                   (1, NULL), (2, ''), (3, '  ...  !? '), (4, '。、「」'), (5, 'real words')"
            ),
            [],
        )
        .unwrap();
        let count: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .unwrap();
        assert_eq!(count, 5);
        assert_eq!(hits(&conn, table, "words"), [5]);
        assert_eq!(hits(&conn, table, "\"...\""), Vec::<i64>::new());
        assert_eq!(hits(&conn, table, "\"。\""), Vec::<i64>::new());
        conn.execute(&format!("DELETE FROM {table} WHERE rowid = 1"), [])
            .unwrap();
        conn.execute(
            &format!("UPDATE {table} SET body = 'now text' WHERE rowid = 2"),
            [],
        )
        .unwrap();
        assert_eq!(hits(&conn, table, "now"), [2]);
        integrity_check(&conn, table);
    }
}

#[test]
fn sessions_tokenize_of_null_and_empty_is_an_empty_array() {
    let conn = setup();
    let out: (String, String, String) = conn
        .query_row(
            "SELECT sessions_tokenize(NULL), sessions_tokenize(''), sessions_tokenize(' ... ', 'cjk 1')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(out, ("[]".into(), "[]".into(), "[]".into()));
}

#[test]
fn sessions_tokenize_null_arguments_count_as_none() {
    // As in the loadable extension (tests/shell/04_options.sql).
    let conn = setup();
    let out: rusqlite::Result<String> =
        conn.query_row("SELECT sessions_tokenize('Ab', NULL)", [], |r| r.get(0));
    assert_eq!(
        out.map_err(|e| e.to_string()),
        Ok(r#"[{"end":2,"start":0,"token":"ab"}]"#.to_owned())
    );
}

#[test]
fn sessions_tokenize_of_a_number_tokenizes_sqlites_text_for_it() {
    // FTS5 indexes a number stored in a column as SQLite's text for it, so
    // sessions_tokenize() should see the same text.
    let conn = setup();
    for value in ["42", "-7", "1.5", "1e20", "0.1", "123456789012.0"] {
        let (direct, as_text): (String, String) = conn
            .query_row(
                &format!(
                    "SELECT sessions_tokenize({value}), sessions_tokenize(CAST({value} AS TEXT))"
                ),
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(direct, as_text, "sessions_tokenize({value})");
    }
}

#[test]
fn invalid_utf8_splits_tokens_and_keeps_the_valid_pieces() {
    let conn = setup();
    let docs: [&[u8]; 5] = [
        b"hello\xffworld",
        b"caf\xc3\xa9\xe6\x9d\xb1\xe4\xba", // café東 then a cut-off 京
        b"\x80\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd\x80", // 東京都 between stray bytes
        b"\xc0\xaf../passwd",               // overlong encoding of '/'
        b"\xed\xa0\x80surrogate\xf4\x90\x80\x80beyond", // UTF-16 surrogate, > U+10FFFF
    ];
    for (i, doc) in docs.iter().enumerate() {
        insert_blob(&conn, "t", i as i64 + 1, doc);
        insert_blob(&conn, "w", i as i64 + 1, doc);
    }
    // Also a plain blob, not cast to text.
    conn.execute(
        "INSERT INTO t(rowid, body) VALUES (6, ?1)",
        [&b"\xfe\xfflone blob\xff"[..]],
    )
    .unwrap();
    for table in ["t", "w"] {
        assert_eq!(hits(&conn, table, "hello"), [1], "{table}");
        assert_eq!(hits(&conn, table, "world"), [1], "{table}");
        assert_eq!(hits(&conn, table, "helloworld"), Vec::<i64>::new());
        assert_eq!(hits(&conn, table, "cafe"), [2], "{table}");
        assert_eq!(hits(&conn, table, "\"東\""), [2, 3], "{table}");
        assert_eq!(hits(&conn, table, "\"東京都\""), [3], "{table}");
        assert_eq!(hits(&conn, table, "passwd"), [4], "{table}");
        assert_eq!(hits(&conn, table, "surrogate AND beyond"), [5], "{table}");
        integrity_check(&conn, table);
    }
    assert_eq!(hits(&conn, "t", "lone AND blob"), [6]);

    let highlighted: Vec<u8> = conn
        .query_row(
            "SELECT CAST(highlight(t, 0, '[', ']') AS BLOB) FROM t WHERE t MATCH 'world'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(highlighted, b"hello\xff[world]");
    assert_eq!(
        common::tokenize(&conn, docs[2], "cjk 1"),
        [
            ("東".into(), 1, 4),
            ("京".into(), 4, 7),
            ("都".into(), 7, 10)
        ]
    );
}

#[test]
fn sessions_tokenize_offsets_of_invalid_text_index_the_original_bytes() {
    // FTS5 hands the tokenizer a column's bytes as they are, TEXT or BLOB;
    // sessions_tokenize() must report the same offsets for both.
    let conn = setup();
    for doc in [
        &b"hello\xffworld"[..],
        b"\x80\xe6\x9d\xb1\xe4\xba\xac\xe9\x83\xbd\x80",
        b"\xc0\xaf../passwd",
    ] {
        let (as_text, as_blob): (String, String) = conn
            .query_row(
                "SELECT sessions_tokenize(CAST(?1 AS TEXT), 'cjk 1'), sessions_tokenize(?1, 'cjk 1')",
                [doc],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(as_text, as_blob, "{doc:?}");
    }
}

#[test]
fn ten_megabyte_document_is_indexed_and_searchable() {
    let conn = setup();
    let mut body = String::with_capacity(11_000_000);
    for i in 0..600_000 {
        body.push_str(&format!("w{i} Café 東京 "));
    }
    body.push_str("needle 終わり");
    assert!(body.len() > 10_000_000);
    conn.execute("INSERT INTO t(rowid, body) VALUES (1, ?1)", [&body])
        .unwrap();
    conn.execute("INSERT INTO t(rowid, body) VALUES (2, 'small cafe')", [])
        .unwrap();
    assert_eq!(hits(&conn, "t", "w0"), [1]);
    assert_eq!(hits(&conn, "t", "w599999"), [1]);
    assert_eq!(hits(&conn, "t", "w600000"), Vec::<i64>::new());
    assert_eq!(hits(&conn, "t", "cafe"), [1, 2]);
    assert_eq!(hits(&conn, "t", "\"終わ\""), [1]);
    assert_eq!(hits(&conn, "t", "\"京 w599999\""), [1]);
    let snippet: String = conn
        .query_row(
            "SELECT snippet(t, 0, '[', ']', '…', 5) FROM t WHERE t MATCH 'needle'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        snippet.starts_with('…') && snippet.ends_with("[needle] 終わ…"),
        "{snippet}"
    );
    integrity_check(&conn, "t");
}

#[test]
fn hundred_kilobyte_token_matches_itself_cut_at_256_bytes() {
    let conn = setup();
    // 100 KB of pseudo-random hex, deterministic.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut token = String::with_capacity(102_400);
    while token.len() < 102_400 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        token.push_str(&format!("{state:016x}"));
    }
    let other: String = token.chars().rev().collect();
    let docs = [
        format!("start {token} end"),
        other.clone(),
        format!("{}tail", &token[..256]),
        format!("{}z, not hex", &token[..255]),
    ];
    for (i, doc) in docs.iter().enumerate() {
        for table in ["t", "w"] {
            conn.execute(
                &format!("INSERT INTO {table}(rowid, body) VALUES (?1, ?2)"),
                params![i as i64 + 1, doc],
            )
            .unwrap();
        }
    }
    for table in ["t", "w"] {
        // Any token sharing the first 256 bytes matches: the documented cut.
        assert_eq!(hits(&conn, table, &format!("\"{token}\"")), [1, 3]);
        assert_eq!(
            hits(&conn, table, &format!("\"{}\"", token.to_uppercase())),
            [1, 3]
        );
        assert_eq!(hits(&conn, table, &format!("\"{other}\"")), [2]);
        assert_eq!(hits(&conn, table, "start AND end"), [1]);
        assert_eq!(
            hits(&conn, table, &format!("\"{}\"*", &token[..40])),
            [1, 3, 4]
        );
        integrity_check(&conn, table);
    }
    assert_eq!(
        common::tokenize(&conn, token.as_bytes(), ""),
        [(token[..256].to_owned(), 0, token.len())]
    );
}

#[test]
fn long_non_ascii_token_is_cut_at_a_character_boundary() {
    let conn = setup();
    let word = "é".repeat(1000); // 2000 bytes, folds to 1000 bytes of 'e'
    let greek = "ά".repeat(300); // 600 bytes, folds to 'α' (2 bytes each)
    let tokens = common::tokenize(&conn, format!("{word} {greek}").as_bytes(), "");
    assert_eq!(
        tokens,
        [("e".repeat(256), 0, 2000), ("α".repeat(128), 2001, 2601)]
    );
    conn.execute(
        "INSERT INTO w(rowid, body) VALUES (1, ?1)",
        [format!("{word} {greek}")],
    )
    .unwrap();
    assert_eq!(hits(&conn, "w", &"E".repeat(300)), [1]);
    assert_eq!(hits(&conn, "w", &"α".repeat(128)), [1]);
    integrity_check(&conn, "w");
}

#[test]
fn variation_selector_inside_a_han_run_keeps_its_substrings_findable() {
    // 葛 + U+E0100 (an ideographic variation sequence, common in Japanese
    // place and person names) and 神 + U+FE00 (a standardized one).
    let conn = setup();
    conn.execute(
        "INSERT INTO t(rowid, body) VALUES (1, '葛\u{E0100}飾区に住む'), (2, '神\u{FE00}社の祭り')",
        [],
    )
    .unwrap();
    assert_eq!(hits(&conn, "t", "\"葛飾\""), [1]);
    assert_eq!(hits(&conn, "t", "\"葛飾区\""), [1]);
    assert_eq!(hits(&conn, "t", "\"神社\""), [2]);
    let highlighted: String = conn
        .query_row(
            "SELECT highlight(t, 0, '[', ']') FROM t WHERE t MATCH '\"葛飾\"'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(highlighted, "[葛\u{E0100}飾]区に住む");
}

#[test]
fn unknown_arguments_fail_create_and_sessions_tokenize() {
    let conn = setup();
    for args in [
        "foo 1",
        "cjk 2",
        "cjk",
        "remove_diacritics 2",
        "cjk 1 stemmer porter",
    ] {
        let err = conn
            .execute_batch(&format!(
                "CREATE VIRTUAL TABLE bad USING fts5(body, tokenize = 'sessions {args}')"
            ))
            .unwrap_err();
        // FTS5 gives a tokenizer's constructor no way to pass a message.
        assert!(
            err.to_string().contains("error in tokenizer constructor"),
            "{args}: {err}"
        );
    }
    for (args, message) in [
        ("foo 1", "unknown argument 'foo'"),
        ("cjk 1 stemmer porter", "unknown argument 'stemmer'"),
        ("cjk 2", "argument 'cjk' must be 0 or 1, not '2'"),
        ("cjk", "argument 'cjk' needs a value"),
    ] {
        let err = conn
            .query_row("SELECT sessions_tokenize('x', ?1)", [args], |r| {
                r.get::<_, String>(0)
            })
            .unwrap_err();
        assert!(err.to_string().contains(message), "{args}: {err}");
    }
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'bad%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(tables, 0);
}

#[test]
fn reopened_file_database_still_finds_bad_input_and_passes_integrity_check() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.db");
    {
        let conn = session_search::open(&path).unwrap();
        conn.execute_batch("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'sessions cjk 1')")
            .unwrap();
        insert_blob(&conn, "t", 1, b"hello\xffworld \xe6\x9d\xb1\xe4\xba\xac");
        conn.execute("INSERT INTO t(rowid, body) VALUES (2, NULL), (3, '')", [])
            .unwrap();
    }
    let conn = session_search::open(&path).unwrap();
    assert_eq!(hits(&conn, "t", "world AND \"東京\""), [1]);
    integrity_check(&conn, "t");
    // Without the tokenizer registered, the table cannot be used at all
    // (never silently read with another tokenizer).
    let plain = Connection::open(&path).unwrap();
    let err = plain
        .query_row("SELECT count(*) FROM t WHERE t MATCH 'world'", [], |r| {
            r.get::<_, i64>(0)
        })
        .unwrap_err();
    assert!(err.to_string().contains("no such tokenizer"), "{err}");
}
