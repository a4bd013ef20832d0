//! What redaction costs on real transcripts: every fixture beside the
//! repository (`../shared/fixtures`) is imported, and every identifier
//! people search for in its messages — UUIDs, git SHAs and hex digests —
//! must stay in the index and be found by a search for it, unless it
//! stands in a credential's place (the value of a secret's name, a
//! header's or call's credential). The figures are printed with
//! `--nocapture`.

mod common;

use common::import::hits;
use regex::{Match, Regex};
use session_search::Store;
use session_search_engine::redact::Redactor;
use session_search_import::{import_files, ImportOptions};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The identifier families counted, each with its pattern and whether it
/// must never be redacted outside a credential's place.
const IDENTIFIERS: &[(&str, &str, bool)] = &[
    (
        "UUID",
        r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",
        true,
    ),
    ("git SHA or hex digest", r"\b[0-9a-f]{7,128}\b", true),
    (
        "other id of 16+ letters and digits (request ids, base64)",
        r"[A-Za-z0-9_+/=\-]{16,}",
        false,
    ),
];

/// The words that put a value in a credential's place when they come just
/// before it (on its line, at most 60 characters before).
const CREDENTIAL_WORDS: &str =
    r"(?i)(pass|secret|token|key|auth|credential|signature|sig=|client|connect)";

/// `(session, content as stored, text the index holds)` of every message.
fn messages(store: &Store) -> Vec<(String, String, Option<String>)> {
    let mut statement = store
        .connection()
        .prepare(
            "SELECT m.session_key, CAST(m.content AS TEXT), t.text \
             FROM messages m LEFT JOIN session_search_text t ON t.id = ~m.id",
        )
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Every file under `folder` but the notes on where they come from, each
/// imported by its contents.
fn import_every_file(store: &Store, folder: &Path) {
    let mut files = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path: PathBuf = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if !path.to_string_lossy().contains("/SOURCES") && !path.ends_with("README.md") {
                files.push(path);
            }
        }
    }
    files.sort();
    import_files(store, &files, &ImportOptions::default()).unwrap();
}

/// Whether the identifier at `at` of `text` follows a credential's word
/// on its line.
fn in_credential_place(text: &str, at: usize, credential: &Regex) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let mut from = at.saturating_sub(60).max(line_start);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    credential.is_match(&text[from..at])
}

/// Per family, the distinct identifiers of every message's content (tool
/// output included, as a host may index it), those redaction takes, and
/// those it takes outside a credential's place.
#[derive(Default)]
struct Tally {
    seen: BTreeSet<String>,
    redacted: BTreeSet<String>,
    misplaced: BTreeSet<String>,
}

impl Tally {
    /// Counts the identifier `found` in `content`, a message of session
    /// `key`: as redacted when it overlaps one of the secrets `spans`, and
    /// then by its line when it does not follow a `credential` word.
    fn add(
        &mut self,
        key: &str,
        content: &str,
        found: &Match<'_>,
        spans: &[Range<usize>],
        credential: &Regex,
    ) {
        let id = found.as_str();
        self.seen.insert(id.to_owned());
        let range = found.range();
        if !spans
            .iter()
            .any(|s| s.start < range.end && range.start < s.end)
        {
            return;
        }
        self.redacted.insert(id.to_owned());
        if !in_credential_place(content, range.start, credential) {
            let line = content[..range.start].rfind('\n').map_or(0, |i| i + 1);
            let line = &content[line..range.end];
            self.misplaced.insert(format!("{key}: {line}"));
        }
    }
}

/// What the identifiers of a store come to: a tally per family, and one
/// session holding each UUID, SHA or digest the index keeps, to search.
struct Census {
    tallies: BTreeMap<&'static str, Tally>,
    kept: BTreeMap<String, String>,
}

/// Tallies every identifier of the store's messages that mixes digits and
/// letters.
fn census(store: &Store) -> Census {
    let redactor = Redactor::new::<&str>(&[]).unwrap();
    let credential = Regex::new(CREDENTIAL_WORDS).unwrap();
    let families: Vec<(&str, Regex, bool)> = IDENTIFIERS
        .iter()
        .map(|(name, pattern, strict)| (*name, Regex::new(pattern).unwrap(), *strict))
        .collect();
    let mut census = Census {
        tallies: BTreeMap::new(),
        kept: BTreeMap::new(),
    };
    for (key, content, indexed) in messages(store) {
        let spans = redactor.secret_spans(&content);
        for (family, pattern, strict) in &families {
            let tally = census.tallies.entry(family).or_default();
            for found in pattern.find_iter(&content) {
                let id = found.as_str();
                let has = |f: fn(&u8) -> bool| id.as_bytes().iter().any(f);
                if !(has(u8::is_ascii_digit) && has(u8::is_ascii_alphabetic)) {
                    continue;
                }
                tally.add(&key, &content, &found, &spans, &credential);
                if *strict && indexed.as_deref().is_some_and(|text| text.contains(id)) {
                    census
                        .kept
                        .entry(id.to_owned())
                        .or_insert_with(|| key.clone());
                }
            }
        }
    }
    census
}

/// The identifiers of `kept` that a search for them (every session seen)
/// does not find in full in their session.
fn unfound<'a>(store: &Store, kept: &'a BTreeMap<String, String>) -> Vec<&'a String> {
    kept.iter()
        .filter(|(id, key)| !hits(store, id).iter().any(|(session, _)| session == *key))
        .map(|(id, _)| id)
        .collect()
}

#[test]
fn identifiers_of_real_transcripts_stay_searchable() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures");
    let store = Store::open_in_memory().unwrap();
    import_every_file(&store, &fixtures);
    let census = census(&store);
    for (family, tally) in &census.tallies {
        println!(
            "{family}: {} distinct in the fixtures, {} redacted, {} of them outside a credential's place",
            tally.seen.len(),
            tally.redacted.len(),
            tally.misplaced.len()
        );
    }
    for (family, _, strict) in IDENTIFIERS {
        let tally = &census.tallies[family];
        assert!(tally.seen.len() > 40, "too few of {family} to measure");
        if *strict {
            assert!(
                tally.misplaced.is_empty(),
                "{family} redacted outside a credential's place:\n{}",
                tally
                    .misplaced
                    .iter()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("\n")
            );
        }
    }
    let unfound = unfound(&store, &census.kept);
    assert!(
        unfound.is_empty(),
        "identifiers the index holds that a search does not find: {unfound:?}"
    );
}
