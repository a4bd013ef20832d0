//! The bounds of a search answer (docs/sql.md, `sessions_search`'s `limit`, `snippetChars` and `maxBytes`), as properties over
//! generated transcripts: huge messages (up to about 1 MB), many hits,
//! multi-byte and JSON-escaped characters, and secrets near the matches.
//!
//! For every answer: the `results` array as the SQL function serialized it
//! is at most `maxBytes` bytes; every snippet has at most `snippetChars`
//! characters; no snippet shows 8 characters of a secret; there are at most
//! `limit` results, and `truncated` is set exactly when some matching
//! message was left out.

mod common;

use common::{raw_results, say, search, search_sql, session, store, Rng};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use session_search::{Role, SearchOptions, SearchResponse, Store};

const KEY: &str = "agent:main:limits";
const NEEDLE: &str = "zebra";

/// Filler words: ASCII, accents, CJK, emoji, and characters JSON escapes
/// (tab, a control character, a quote, a backslash).
const WORDS: &[&str] = &[
    "build",
    "deploy",
    "the",
    "log",
    "naïve",
    "Straße",
    "東京",
    "日本語テキスト",
    "서울",
    "🚀",
    "👩\u{200d}💻",
    "tab\there",
    "ctl\u{1}x",
    "say\"hi\"",
    "back\\slash",
    "line\nbreak",
    "é",
    "x",
    "status",
    "ok",
];

/// A secret to sprinkle into text, and the value that must never show.
fn secret(r: &mut Rng) -> (String, String) {
    let alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    match r.below(5) {
        0 => {
            let v = format!("ghp_{}", r.string(alnum, 36));
            (v.clone(), v)
        }
        1 => {
            let v = r.string(alnum, 20);
            (format!("PASSWORD={v}"), v)
        }
        2 => {
            let v = format!("sk-ant-api03-{}AA", r.string(alnum, 93));
            (v.clone(), v)
        }
        3 => {
            let v = r.string(alnum, 40);
            (format!("Authorization: Bearer {v}"), v)
        }
        _ => {
            let body: Vec<String> = (0..6).map(|_| r.string(alnum, 64)).collect();
            let body = body.join("\n");
            (
                format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"),
                body,
            )
        }
    }
}

/// A generated transcript: message texts and roles, and the secrets in it.
struct Transcript {
    messages: Vec<(Role, String)>,
    secrets: Vec<String>,
    /// Messages that search can find: user or assistant, with the needle.
    hits: usize,
}

/// About `bytes` bytes of filler with `needles` copies of the needle and
/// `secrets` secrets at random word positions.
fn text(
    r: &mut Rng,
    bytes: usize,
    needles: usize,
    secrets: usize,
    out: &mut Vec<String>,
) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut size = 0;
    while size < bytes {
        let w = WORDS[r.below(WORDS.len())];
        size += w.len() + 1;
        words.push(w.to_owned());
    }
    for _ in 0..needles {
        let at = r.below(words.len() + 1);
        words.insert(at, NEEDLE.to_owned());
    }
    for _ in 0..secrets {
        let (text, value) = secret(r);
        let at = r.below(words.len() + 1);
        words.insert(at, text);
        out.push(value);
    }
    words.join(" ")
}

fn transcript(seed: u64, messages: usize, huge: usize) -> Transcript {
    let r = &mut Rng(seed | 1);
    let mut secrets = Vec::new();
    let mut out = Vec::new();
    let mut hits = 0;
    for i in 0..messages {
        let bytes = if i < huge {
            200_000 + r.below(900_000)
        } else if r.below(4) == 0 {
            2_000 + r.below(30_000)
        } else {
            20 + r.below(600)
        };
        let needles = [0, 1, 1, 2, 5][r.below(5)];
        let role = [Role::User, Role::Assistant, Role::User, Role::Tool][r.below(4)];
        let count = r.below(4);
        let text = text(r, bytes, needles, count, &mut secrets);
        if needles > 0 && role != Role::Tool {
            hits += 1;
        }
        out.push((role, text));
    }
    Transcript {
        messages: out,
        secrets,
        hits,
    }
}

fn load(t: &Transcript) -> Store {
    let store = store();
    session(&store, KEY, "main", None);
    for (i, (role, text)) in t.messages.iter().enumerate() {
        say(&store, KEY, *role, text, i as i64);
    }
    store
}

fn leaked(value: &str, output: &str) -> Option<String> {
    value.split_whitespace().find_map(|piece| {
        let chars: Vec<char> = piece.chars().collect();
        chars
            .windows(8)
            .map(|w| w.iter().collect::<String>())
            .find(|w| output.contains(w.as_str()))
    })
}

/// Searches for the needle with these bounds and checks every property.
fn check(
    store: &Store,
    t: &Transcript,
    limit: i64,
    snippet_chars: i64,
    max_bytes: i64,
) -> Result<(), TestCaseError> {
    let options = SearchOptions {
        limit: Some(limit),
        snippet_chars: Some(snippet_chars),
        max_bytes: Some(max_bytes),
        ..common::options(KEY)
    };
    let json = search_sql(store, NEEDLE, &options).map_err(TestCaseError::fail)?;
    let raw = raw_results(&json);
    prop_assert!(
        raw.len() as i64 <= max_bytes,
        "results are {} bytes, maxBytes {max_bytes}",
        raw.len()
    );
    let response: SearchResponse = serde_json::from_str(&json).unwrap();
    let typed = search(store, NEEDLE, &options);
    // The same hits both ways (scores up to float parsing).
    prop_assert_eq!(typed.results.len(), response.results.len());
    for (a, b) in typed.results.iter().zip(&response.results) {
        prop_assert!((a.score - b.score).abs() <= a.score.abs() * 1e-12);
        prop_assert_eq!(
            (&a.session_key, a.id, &a.snippet, &a.role, a.timestamp),
            (&b.session_key, b.id, &b.snippet, &b.role, b.timestamp)
        );
    }
    prop_assert!(serde_json::to_string(&typed.results).unwrap().len() as i64 <= max_bytes);

    let n = response.results.len();
    prop_assert!(n as i64 <= limit);
    prop_assert!(n <= t.hits);
    prop_assert_eq!(
        response.truncated,
        n < t.hits,
        "{} of {} hits returned (limit {}, maxBytes {})",
        n,
        t.hits,
        limit,
        max_bytes
    );
    prop_assert_eq!(json.contains("\"truncated\""), response.truncated);
    if n < t.hits && (n as i64) < limit {
        // Cut by maxBytes: the array is already close to the bound.
        prop_assert!(
            raw.len() as i64 + 160 + 6 * snippet_chars > max_bytes,
            "{} hits of {}, only {} of {max_bytes} bytes used",
            n,
            t.hits,
            raw.len()
        );
    }
    for hit in &response.results {
        let chars = hit.snippet.chars().count() as i64;
        prop_assert!(
            chars <= snippet_chars,
            "{chars} > {snippet_chars}: {:?}",
            hit.snippet
        );
        if snippet_chars >= NEEDLE.len() as i64 + 2 {
            prop_assert!(hit.snippet.contains(NEEDLE), "{:?}", hit.snippet);
        }
        for secret in &t.secrets {
            if let Some(piece) = leaked(secret, &hit.snippet) {
                return Err(TestCaseError::fail(format!(
                    "{piece:?} of a secret in {:?}",
                    hit.snippet
                )));
            }
        }
    }
    Ok(())
}

fn max_bytes() -> impl Strategy<Value = i64> {
    prop_oneof![2i64..600, 600i64..4000, 2i64..=32768, Just(32768)]
}

#[test]
fn huge_messages_keep_every_bound() {
    let mut runner = TestRunner::new(Config {
        cases: 12,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        any::<u64>(),
        1usize..16,
        1usize..=2,
        prop::collection::vec((1i64..=25, 1i64..=300, max_bytes()), 4),
    );
    runner
        .run(&strategy, |(seed, messages, huge, bounds)| {
            let t = transcript(seed, messages, huge);
            let store = load(&t);
            for (limit, snippet_chars, max_bytes) in bounds {
                check(&store, &t, limit, snippet_chars, max_bytes)?;
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn many_hits_keep_every_bound() {
    let mut runner = TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        any::<u64>(),
        1usize..70,
        prop::collection::vec((1i64..=25, 1i64..=300, max_bytes()), 6),
    );
    runner
        .run(&strategy, |(seed, messages, bounds)| {
            let t = transcript(seed, messages, 0);
            let store = load(&t);
            for (limit, snippet_chars, max_bytes) in bounds {
                check(&store, &t, limit, snippet_chars, max_bytes)?;
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn the_byte_bound_counts_json_escapes_and_multibyte_characters() {
    let store = store();
    session(&store, KEY, "main", None);
    for i in 0..25 {
        // Every character of this text takes 3 to 6 bytes of JSON.
        let text = format!("{NEEDLE} {}", "東\u{1}\"\\🚀".repeat(20));
        say(&store, KEY, Role::User, &text, i);
    }
    for max_bytes in [2, 100, 250, 500, 1000, 2500, 5000, 32768] {
        let options = SearchOptions {
            limit: Some(25),
            max_bytes: Some(max_bytes),
            ..common::options(KEY)
        };
        let json = search_sql(&store, NEEDLE, &options).unwrap();
        let raw = raw_results(&json);
        assert!(raw.len() as i64 <= max_bytes, "{max_bytes}: {}", raw.len());
        let response: SearchResponse = serde_json::from_str(&json).unwrap();
        assert_eq!(
            response.truncated,
            response.results.len() < 25,
            "{max_bytes}"
        );
        if max_bytes == 32768 {
            assert_eq!(response.results.len(), 25);
        }
    }
}

#[test]
fn a_match_deep_inside_a_megabyte_message_is_excerpted_around_it() {
    let store = store();
    session(&store, KEY, "main", None);
    let text = format!(
        "{} {NEEDLE} {}",
        "start words ".repeat(50_000),
        "end words ".repeat(50_000)
    );
    assert!(text.len() > 1_000_000);
    say(&store, KEY, Role::User, &text, 1);
    for snippet_chars in [8, 40, 300] {
        let found = search(
            &store,
            NEEDLE,
            &SearchOptions {
                snippet_chars: Some(snippet_chars),
                ..common::options(KEY)
            },
        );
        let snippet = &found.results[0].snippet;
        assert!(snippet.contains(NEEDLE), "{snippet:?}");
        assert!(
            snippet.starts_with('…') && snippet.ends_with('…'),
            "{snippet:?}"
        );
        assert!(
            snippet.chars().count() as i64 <= snippet_chars,
            "{snippet:?}"
        );
    }
}

#[test]
fn the_match_is_whole_whenever_it_fits_with_its_ellipses() {
    let store = store();
    session(&store, KEY, "main", None);
    say(
        &store,
        KEY,
        Role::User,
        &format!("{} {NEEDLE} {}", "before ".repeat(20), "after ".repeat(20)),
        1,
    );
    let mut cut = Vec::new();
    for snippet_chars in NEEDLE.len() as i64 + 2..=20 {
        let found = search(
            &store,
            NEEDLE,
            &SearchOptions {
                snippet_chars: Some(snippet_chars),
                ..common::options(KEY)
            },
        );
        let snippet = &found.results[0].snippet;
        if !snippet.contains(NEEDLE) {
            cut.push(format!("{snippet_chars}: {snippet:?}"));
        }
    }
    assert!(cut.is_empty(), "{}", cut.join("\n"));
}
