//! Properties of the `sessions cjk 1` tokenizer inside FTS5, on random
//! multilingual documents and on arbitrary bytes.
//!
//! Documents are built from a pool of words in several scripts and random
//! runs of CJK characters, joined by punctuation and spaces. For every word
//! and every 1- to 4-character substring of every CJK run, a quoted MATCH
//! finds exactly the documents that contain it (after folding), and
//! `highlight()` marks exactly its occurrences. Arbitrary bytes never make
//! tokenizing or indexing fail, and the tokens keep the offset contract.

mod common;

use proptest::prelude::*;
use proptest::test_runner::Config;
use rusqlite::{params, Connection};
use session_search::tokenizer::{Folder, RUN_BOUNDARY};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

/// Words that are one token each: letters (and the marks on them) only, in
/// Latin, Greek, Cyrillic, Arabic, Hebrew and Devanagari, with spellings
/// that fold together (café/CAFÉ/cafe, Straße/strasse, ﬁle/file, ＡＢＣ/abc).
const WORDS: &str = "\
    deploy Deploy DEPLOY staging café Café CAFÉ cafe naïve résumé Straße \
    STRASSE strasse Größe Ærøskøbing aeroskobing Søren Łódź lodz Zażółć \
    ﬁle file ＡＢＣ abc Ｓｅｒｖｅｒ server Αθήνα ΑΘΗΝΑ σοφός ΣΟΦΟΣ Москва ёлка \
    елка Ёлка مرحبا كَتَبَ كتب שָׁלוֹם שלום हिन्दी İstanbul ıspanak Œuvre \
    oeuvre Þórður Đorđe";

/// Han, hiragana, katakana and Hangul characters that are one grapheme
/// cluster each and that folding leaves alone (no half-width forms, no
/// separate voicing marks).
const CJK: &str = "東京都大阪市学校会議日本語中文字国人生時間上下山川田木金月火水\
                   あいうえおかきくけこがぎぐげごさしすせそっのはを\
                   アイウエオカキクケコガギグゲゴラーメンデプロイ\
                   서울시에부산한국어배포완료가";

const SEPARATORS: &[&str] = &[
    " ", ", ", ". ", "\n", " — ", "、", "。", "! ", "; ", "\t", " (", ") ",
];

/// Markers for highlight(); they occur in no generated document.
const OPEN: &str = "⟦";
const CLOSE: &str = "⟧";

#[derive(Debug, Clone)]
enum Segment {
    Word(&'static str),
    Cjk(String),
}

/// A generated document: its text and where its words and CJK runs are.
#[derive(Debug, Clone)]
struct Doc {
    text: String,
    words: Vec<Range<usize>>,
    runs: Vec<Range<usize>>,
}

fn segment() -> impl Strategy<Value = Segment> {
    let cjk: Vec<char> = CJK.chars().collect();
    prop_oneof![
        3 => prop::sample::select(WORDS.split_whitespace().collect::<Vec<_>>()).prop_map(Segment::Word),
        2 => prop::collection::vec(prop::sample::select(cjk), 1..=8)
            .prop_map(|chars| Segment::Cjk(chars.into_iter().collect())),
    ]
}

fn document() -> impl Strategy<Value = Doc> {
    prop::collection::vec((segment(), prop::sample::select(SEPARATORS)), 1..12).prop_map(|parts| {
        let mut doc = Doc {
            text: String::new(),
            words: Vec::new(),
            runs: Vec::new(),
        };
        for (segment, separator) in parts {
            let start = doc.text.len();
            match segment {
                Segment::Word(word) => {
                    doc.text.push_str(word);
                    doc.words.push(start..doc.text.len());
                }
                Segment::Cjk(run) => {
                    doc.text.push_str(&run);
                    doc.runs.push(start..doc.text.len());
                }
            }
            doc.text.push_str(separator);
        }
        doc
    })
}

fn fold(folder: &mut Folder, text: &str) -> String {
    folder.fold(text, true).to_owned()
}

/// A connection with the documents in `t` (`sessions cjk 1`), row ids from 1.
fn index(docs: &[Doc]) -> Connection {
    let conn = session_search::open_in_memory().unwrap();
    conn.execute_batch("CREATE VIRTUAL TABLE t USING fts5(body, tokenize = 'sessions cjk 1')")
        .unwrap();
    for (i, doc) in docs.iter().enumerate() {
        conn.execute(
            "INSERT INTO t(rowid, body) VALUES (?1, ?2)",
            params![i as i64 + 1, doc.text],
        )
        .unwrap();
    }
    conn
}

/// `highlight()` of every row matching the quoted `query`, by row id.
fn highlights(conn: &Connection, query: &str) -> BTreeMap<i64, String> {
    let mut stmt = conn
        .prepare_cached("SELECT rowid, highlight(t, 0, ?2, ?3) FROM t WHERE t MATCH ?1")
        .unwrap();
    let rows = stmt
        .query_map(params![format!("\"{query}\""), OPEN, CLOSE], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// `text` with `spans` (sorted, disjoint) wrapped in the markers.
fn mark(text: &str, spans: &[Range<usize>]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for span in spans {
        out.push_str(&text[at..span.start]);
        out.push_str(OPEN);
        out.push_str(&text[span.clone()]);
        out.push_str(CLOSE);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The texts between the markers of a highlight() result.
fn marked_spans(highlighted: &str) -> Vec<&str> {
    highlighted
        .split(OPEN)
        .skip(1)
        .map(|rest| rest.split(CLOSE).next().unwrap())
        .collect()
}

/// Occurrences of `needle` in `text`, overlapping ones included, merged as
/// FTS5's highlight() merges phrase matches: the bundled SQLite (3.50) joins
/// matches that overlap or touch (no byte between them) into one marked
/// span; matches with anything in between stay separate. (SQLite 3.40, used
/// by tests/shell, joins only overlapping ones.)
fn occurrences(text: &str, needle: &str) -> Vec<Range<usize>> {
    let mut spans: Vec<Range<usize>> = Vec::new();
    for (start, _) in text.char_indices() {
        if !text[start..].starts_with(needle) {
            continue;
        }
        let end = start + needle.len();
        match spans.last_mut() {
            Some(last) if start <= last.end => last.end = last.end.max(end),
            _ => spans.push(start..end),
        }
    }
    spans
}

/// Whether `span` is `needle`, or copies of `needle` that overlap or touch
/// and together cover `span` (the merged highlight of "aa" in "aaa").
fn is_joined_copies(span: &str, needle: &str) -> bool {
    let copies = occurrences(span, needle);
    copies.len() == 1 && copies[0] == (0..span.len())
}

/// Checks MATCH and highlight() for one query against the expected spans per
/// document, and that `span_ok` accepts every marked span (the query up to
/// folding, or joined copies of it).
fn check(
    conn: &Connection,
    docs: &[Doc],
    query: &str,
    expected: &BTreeMap<i64, Vec<Range<usize>>>,
    span_ok: &mut dyn FnMut(&str) -> bool,
) -> Result<(), TestCaseError> {
    let got = highlights(conn, query);
    let got_rows: BTreeSet<i64> = got.keys().copied().collect();
    let expected_rows: BTreeSet<i64> = expected.keys().copied().collect();
    prop_assert_eq!(&got_rows, &expected_rows, "rows for {:?}", query);
    for (rowid, spans) in expected {
        let text = &docs[*rowid as usize - 1].text;
        prop_assert_eq!(&got[rowid], &mark(text, spans), "highlight of {:?}", query);
        for span in marked_spans(&got[rowid]) {
            prop_assert!(span_ok(span), "marked {:?} for {:?}", span, query);
        }
    }
    Ok(())
}

fn words_and_substrings(docs: Vec<Doc>) -> Result<(), TestCaseError> {
    let conn = index(&docs);
    let mut folder = Folder::default();

    // (a) Every word: the documents with a word of the same folded form, and
    // exactly those words marked.
    let words: BTreeSet<&str> = docs
        .iter()
        .flat_map(|d| d.words.iter().map(|w| &d.text[w.clone()]))
        .collect();
    for word in words {
        let folded = fold(&mut folder, word);
        let mut expected = BTreeMap::new();
        for (i, doc) in docs.iter().enumerate() {
            let spans: Vec<_> = doc
                .words
                .iter()
                .filter(|w| fold(&mut folder, &doc.text[(*w).clone()]) == folded)
                .cloned()
                .collect();
            if !spans.is_empty() {
                expected.insert(i as i64 + 1, spans);
            }
        }
        let mut same_fold = |span: &str| fold(&mut Folder::default(), span) == folded;
        check(&conn, &docs, word, &expected, &mut same_fold)?;
    }

    // (b) Every substring of 1 to 4 characters of every CJK run: the
    // documents containing it, and its occurrences marked.
    let mut substrings = BTreeSet::new();
    for doc in &docs {
        for run in &doc.runs {
            let chars: Vec<char> = doc.text[run.clone()].chars().collect();
            for len in 1..=4.min(chars.len()) {
                for window in chars.windows(len) {
                    substrings.insert(window.iter().collect::<String>());
                }
            }
        }
    }
    for substring in &substrings {
        let expected: BTreeMap<i64, Vec<Range<usize>>> = docs
            .iter()
            .enumerate()
            .map(|(i, doc)| (i as i64 + 1, occurrences(&doc.text, substring)))
            .filter(|(_, spans)| !spans.is_empty())
            .collect();
        let mut copies = |span: &str| is_joined_copies(span, substring);
        check(&conn, &docs, substring, &expected, &mut copies)?;
    }
    Ok(())
}

const ARGS: [&str; 4] = [
    "",
    "cjk 1",
    "remove_diacritics 0",
    "cjk 1 remove_diacritics 0",
];

/// The token contract for arbitrary bytes, under every argument list; then
/// the bytes are indexed, found by a phrase query of themselves, and the
/// index passes FTS5's integrity check.
fn token_contract(bytes: &[u8]) -> Result<(), TestCaseError> {
    let conn = session_search::open_in_memory().unwrap();
    let valid = std::str::from_utf8(bytes).ok();
    for (i, args) in ARGS.iter().enumerate() {
        let toks = common::tokenize(&conn, bytes, args);
        let mut previous_start = 0;
        for (n, (token, start, end)) in toks.iter().enumerate() {
            let this = &toks[n];
            prop_assert!(*end <= bytes.len(), "{:?} past {} bytes", this, bytes.len());
            prop_assert!(*start >= previous_start, "starts decrease at {:?}", this);
            prop_assert!(!token.is_empty() && token.len() <= 256, "{:?}", this);
            prop_assert!(
                std::str::from_utf8(&bytes[*start..*end]).is_ok(),
                "{:?} splits a character",
                this
            );
            if let Some(text) = valid {
                prop_assert!(text.is_char_boundary(*start) && text.is_char_boundary(*end));
            }
            if token == RUN_BOUNDARY {
                // The one zero-width token: between a CJK run and the token
                // after it, which starts where it stands.
                prop_assert!(
                    args.contains("cjk 1"),
                    "run boundary without cjk: {:?}",
                    toks
                );
                prop_assert!(
                    n > 0 && n + 1 < toks.len(),
                    "run boundary at an end: {:?}",
                    toks
                );
                prop_assert!(start == end && toks[n + 1].1 == *start, "{:?}", toks);
                prop_assert!(
                    toks[n + 1].0 != RUN_BOUNDARY,
                    "two run boundaries: {:?}",
                    toks
                );
            } else {
                prop_assert!(start < end, "empty span {:?}", this);
            }
            previous_start = *start;
        }

        let table = format!("t{i}");
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE {table} USING fts5(body, tokenize = 'sessions {args}')"
        ))
        .unwrap();
        conn.execute(
            &format!("INSERT INTO {table}(rowid, body) VALUES (1, ?1)"),
            [bytes],
        )
        .unwrap();
        conn.execute(
            &format!("INSERT INTO {table}(rowid, body) VALUES (2, CAST(?1 AS TEXT))"),
            [bytes],
        )
        .unwrap();
        // FTS5 reads a query up to its first NUL, so a self-query cannot
        // contain one.
        if !toks.is_empty() && !bytes.contains(&0) {
            let mut query = vec![b'"'];
            for &b in bytes {
                query.push(b);
                if b == b'"' {
                    query.push(b'"');
                }
            }
            query.push(b'"');
            let rows: Vec<i64> = conn
                .prepare(&format!(
                    "SELECT rowid FROM {table} WHERE {table} MATCH CAST(?1 AS TEXT) ORDER BY rowid"
                ))
                .unwrap()
                .query_map([&query], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            prop_assert_eq!(rows, vec![1, 2], "self-query under {:?}", args);
        }
        conn.execute(
            &format!("INSERT INTO {table}({table}) VALUES ('integrity-check')"),
            [],
        )
        .unwrap();
    }
    Ok(())
}

/// Characters that stress segmentation and folding: combining marks,
/// conjoining jamo, voicing marks, joiners, variation selectors, ligatures,
/// width and case oddities, scripts written without spaces.
const TRICKY: &str =
    "\u{301}\u{308}\u{327}\u{345}\u{3099}\u{309A}\u{200D}\u{200C}\u{FE0F}\u{E0100}\
                      \u{1100}\u{1161}\u{11A8}\u{AD6D}\u{3131}\u{FFA0}ßẞİıςΣﬁﬃǅＡａ１①ⅻ\
                      かがカﾞｶ゛ー東京한ภาษาไทย\u{E33}\u{E48}ພາສາភាសាမြန်हिन्दीكَשָׁ\
                      😀👍🏽\u{1F1EF}\u{1F1F5}\u{0}\u{FEFF}\u{AD}\u{A0}\u{3000}'\".-_*/:#@";

fn tricky_text() -> impl Strategy<Value = String> {
    let tricky: Vec<char> = TRICKY.chars().collect();
    prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(tricky),
            1 => any::<char>(),
            1 => prop::char::range('a', 'z'),
        ],
        0..40,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

/// Valid text with bytes knocked out or inserted, so invalid UTF-8 lands
/// next to and inside multi-byte characters.
fn damaged_text() -> impl Strategy<Value = Vec<u8>> {
    (
        tricky_text(),
        prop::collection::vec(
            (any::<prop::sample::Index>(), any::<u8>(), any::<bool>()),
            0..6,
        ),
    )
        .prop_map(|(text, edits)| {
            let mut bytes = text.into_bytes();
            for (at, byte, insert) in edits {
                if bytes.is_empty() {
                    bytes.push(byte);
                    continue;
                }
                let i = at.index(bytes.len());
                if insert {
                    bytes.insert(i, byte);
                } else {
                    bytes.remove(i);
                }
            }
            bytes
        })
}

proptest! {
    #![proptest_config(Config { cases: 200, failure_persistence: None, ..Config::default() })]

    #[test]
    fn every_word_and_cjk_substring_is_found_and_highlighted(
        docs in prop::collection::vec(document(), 2..=5)
    ) {
        words_and_substrings(docs)?;
    }
}

proptest! {
    #![proptest_config(Config { cases: 1000, failure_persistence: None, ..Config::default() })]

    #[test]
    fn arbitrary_bytes_keep_the_token_contract(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        token_contract(&bytes)?;
    }

    #[test]
    fn damaged_multilingual_text_keeps_the_token_contract(bytes in damaged_text()) {
        token_contract(&bytes)?;
    }

    #[test]
    fn tricky_valid_text_keeps_the_token_contract(text in tricky_text()) {
        token_contract(text.as_bytes())?;
    }
}

proptest! {
    #![proptest_config(Config { cases: 256, failure_persistence: None, ..Config::default() })]

    #[test]
    fn text_and_blob_arguments_tokenize_alike(bytes in damaged_text()) {
        let conn = session_search::open_in_memory().unwrap();
        for args in ARGS {
            let (as_text, as_blob): (String, String) = conn
                .query_row(
                    "SELECT sessions_tokenize(CAST(?1 AS TEXT), ?2), sessions_tokenize(?1, ?2)",
                    params![bytes, args],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap();
            prop_assert_eq!(as_text, as_blob, "{:?} under {:?}", bytes, args);
        }
    }
}

#[test]
fn every_pool_word_is_one_token_spanning_it() {
    let conn = session_search::open_in_memory().unwrap();
    for word in WORDS.split_whitespace() {
        let toks = common::tokenize(&conn, word.as_bytes(), "cjk 1");
        assert_eq!(toks.len(), 1, "{word}: {toks:?}");
        assert_eq!((toks[0].1, toks[0].2), (0, word.len()), "{word}");
    }
}

#[test]
fn overlapping_and_touching_matches_join_and_separated_ones_do_not() {
    // Pins the model of FTS5's highlight() used above, on real output.
    let text = "ああああ 東京東京・東京";
    let docs = [Doc {
        text: text.to_owned(),
        words: Vec::new(),
        runs: Vec::new(),
    }];
    let conn = index(&docs);
    for query in ["ああ", "東京", "あ"] {
        assert_eq!(
            highlights(&conn, query)[&1],
            mark(text, &occurrences(text, query)),
            "{query}"
        );
    }
    assert_eq!(highlights(&conn, "ああ")[&1], "⟦ああああ⟧ 東京東京・東京");
    assert_eq!(highlights(&conn, "東京")[&1], "ああああ ⟦東京東京⟧・⟦東京⟧");
    assert!(is_joined_copies("ああああ", "ああ"));
    assert!(is_joined_copies("ああああ", "あああ"));
    assert!(!is_joined_copies("東京・東京", "東京"));
}
