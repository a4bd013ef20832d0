//! Damaged transcripts, for every real fixture of every format: each is cut
//! at random byte offsets (mid-line, mid-UTF-8), written partly and then
//! whole, concatenated with another file of its format, given reordered or
//! duplicated lines, or a line over `max_line_bytes`. Every import returns
//! without error; what is skipped is reported at a line (or record) with a
//! reason; what came before the damage is imported; importing the complete
//! file afterwards adds what was missing and never a message twice. And
//! re-imports after a format upgrade (pi's v1 session rewritten as v3,
//! Gemini CLI's `.json` session written as `.jsonl`) add nothing.

mod common;

use common::import::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};
use serde_json::{json, Value};
use session_search::Store;
use session_search_import::{import_path, Format, ImportOptions, ImportReport};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A fixture larger than this is reduced to a prefix of whole lines (or,
/// for a JSON array, of whole elements) of about this size, so that the
/// cases stay fast.
const MAX_BASE_BYTES: usize = 24_000;

/// Random cases per damage and fixture.
const CASES: u32 = 8;

/// [`CASES`] cases per damage and fixture from a fixed seed, the same in
/// every run, unless `PROPTEST_CASES` or `PROPTEST_RNG_SEED` ask for
/// others (to look for new damage that breaks an import).
fn damage_config() -> Config {
    let mut config = Config {
        failure_persistence: None,
        ..Config::default()
    };
    if std::env::var_os("PROPTEST_CASES").is_none() {
        config.cases = CASES;
    }
    if config.rng_seed == RngSeed::Random {
        config.rng_seed = RngSeed::Fixed(0xda3a_6ed0);
    }
    config
}

/// One fixture file: its bytes (possibly reduced) and the name it keeps.
struct Fixture {
    /// Where it came from, for messages.
    origin: PathBuf,
    /// The last directories of its path and its name, kept because some
    /// formats read the session or agent from them.
    relative: PathBuf,
    format: Format,
    bytes: Vec<u8>,
}

/// The files under the shared fixtures and this repository's fixtures that
/// some format recognises and imports messages from, each on its own (an
/// OpenCode session, whose messages are other files, is not one).
fn fixtures() -> Vec<Fixture> {
    let roots = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures"),
    ];
    let mut files = Vec::new();
    for root in roots.iter().filter(|root| root.is_dir()) {
        walk(root, &mut files);
    }
    files.sort();
    let mut found = Vec::new();
    for path in files {
        let scratch = tempfile::tempdir().unwrap();
        let bytes = reduce(std::fs::read(&path).unwrap());
        let parts: Vec<_> = path.components().rev().take(4).collect();
        let relative: PathBuf = parts.into_iter().rev().collect();
        let copy = scratch.path().join(&relative);
        std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
        std::fs::write(&copy, &bytes).unwrap();
        let (_, report) = imported(&copy);
        let file = &report.files[0];
        let Some(format) = file.format.filter(|_| file.imported > 0) else {
            continue;
        };
        found.push(Fixture {
            origin: path,
            relative,
            format,
            bytes,
        });
    }
    found
}

/// Adds every file under `dir` to `files`.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, files);
        } else {
            files.push(path);
        }
    }
}

/// `bytes`, or a prefix of them of about [`MAX_BASE_BYTES`] that is still a
/// whole file: whole lines, or the first elements of a JSON array.
fn reduce(bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() <= MAX_BASE_BYTES {
        return bytes;
    }
    if bytes.trim_ascii_start().starts_with(b"[") {
        if let Ok(Value::Array(elements)) = serde_json::from_slice::<Value>(&bytes) {
            let mut kept = Vec::new();
            let mut size = 0;
            for element in elements {
                size += element.to_string().len();
                if !kept.is_empty() && size > MAX_BASE_BYTES {
                    break;
                }
                kept.push(element);
            }
            return serde_json::to_vec(&kept).unwrap();
        }
    }
    match bytes[..MAX_BASE_BYTES].iter().rposition(|&b| b == b'\n') {
        Some(end) => bytes[..=end].to_vec(),
        None => bytes,
    }
}

/// Whether the file is JSON (a document or lines of it), where a cut-off
/// ending can be told from a complete one.
fn is_json(bytes: &[u8]) -> bool {
    matches!(bytes.trim_ascii_start().first(), Some(b'{' | b'['))
}

/// One stored message: `(session_key, message_id, role, created_at, text)`,
/// the text being its searchable text blocks.
type Row = (String, String, String, i64, String);

/// Every message of the store, sorted.
fn rows(store: &Store) -> Vec<Row> {
    let mut statement = store
        .connection()
        .prepare(
            "SELECT session_key, coalesce(message_id, ''), role, created_at,
                    coalesce((SELECT group_concat(json_extract(b.value, '$.text'), char(10))
                              FROM json_each(messages.content) AS b
                              WHERE json_extract(b.value, '$.type') = 'text'), '')
             FROM messages ORDER BY session_key, id",
        )
        .unwrap();
    let mut rows: Vec<Row> = statement
        .query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    rows.sort();
    rows
}

/// `(session_key, message_id)` of the last message of each session.
fn last_messages(store: &Store) -> BTreeSet<(String, String)> {
    let mut statement = store
        .connection()
        .prepare(
            "SELECT session_key, coalesce(message_id, '') FROM messages
             WHERE id IN (SELECT max(id) FROM messages GROUP BY session_key)",
        )
        .unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// `(session_key, message_id)` of every message.
fn ids(rows: &[Row]) -> BTreeSet<(String, String)> {
    rows.iter().map(|r| (r.0.clone(), r.1.clone())).collect()
}

/// How often each `(session, role, time, text)` occurs.
fn counts(rows: &[Row]) -> BTreeMap<(String, String, i64, String), usize> {
    let mut counts = BTreeMap::new();
    for r in rows {
        *counts
            .entry((r.0.clone(), r.2.clone(), r.3, r.4.clone()))
            .or_default() += 1;
    }
    counts
}

/// A scratch directory where each case writes its file under the
/// fixture's relative path.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    /// A new, empty scratch directory.
    fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Writes `bytes` as the fixture's file; returns its path.
    fn write(&self, fixture: &Fixture, bytes: &[u8]) -> PathBuf {
        let path = self.dir.path().join(&fixture.relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

/// Imports `bytes` as the fixture's file into `store`; an error fails.
fn import_bytes(
    store: &Store,
    scratch: &Scratch,
    fixture: &Fixture,
    bytes: &[u8],
    options: &ImportOptions,
) -> Result<ImportReport, TestCaseError> {
    let path = scratch.write(fixture, bytes);
    import_path(store, &path, options).map_err(|e| {
        TestCaseError::fail(format!(
            "importing damaged {} failed: {e}",
            fixture.origin.display()
        ))
    })
}

/// Checks what holds for any import: every issue names a line and a
/// reason, the format is the fixture's (or none was recognised), and no
/// `(session_key, message_id)` is stored twice.
fn check_report(
    store: &Store,
    fixture: &Fixture,
    report: &ImportReport,
) -> Result<(), TestCaseError> {
    for file in &report.files {
        if let Some(format) = file.format {
            proptest::prop_assert_eq!(format, fixture.format);
        }
        for issue in &file.issues {
            proptest::prop_assert!(issue.line >= 1, "issue without a line: {issue:?}");
            proptest::prop_assert!(!issue.issue.to_string().is_empty());
        }
    }
    let duplicates = count(
        store,
        "SELECT count(*) FROM (SELECT 1 FROM messages WHERE message_id IS NOT NULL
         GROUP BY session_key, message_id HAVING count(*) > 1)",
    );
    proptest::prop_assert_eq!(duplicates, 0, "a (session_key, message_id) stored twice");
    Ok(())
}

/// The kinds of damage.
#[derive(Debug, Clone, Copy)]
enum Damage {
    /// Cut at a random byte.
    Cut,
    /// Cut inside a line, inside a UTF-8 character where there is one: a
    /// write caught halfway.
    Partial,
    /// Another file of the format appended.
    Concatenated,
    /// Two lines swapped.
    Reordered,
    /// A line written twice.
    Duplicated,
    /// A line over `max_line_bytes` inserted.
    LongLine,
}

const DAMAGES: [Damage; 6] = [
    Damage::Cut,
    Damage::Partial,
    Damage::Concatenated,
    Damage::Reordered,
    Damage::Duplicated,
    Damage::LongLine,
];

/// Where each line starts (byte offsets), and the end.
fn line_starts(bytes: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        bytes
            .iter()
            .enumerate()
            .filter(|(at, &b)| b == b'\n' && at + 1 < bytes.len())
            .map(|(at, _)| at + 1),
    );
    starts.push(bytes.len());
    starts
}

/// The damaged bytes, the offset of the first byte that differs from the
/// original, the import options, and whether the original follows whole
/// (the damage only cut it short).
fn damage(
    kind: Damage,
    base: &[u8],
    other: &[u8],
    a: Index,
    b: Index,
) -> (Vec<u8>, usize, ImportOptions, bool) {
    let options = ImportOptions::default();
    let starts = line_starts(base);
    let lines = starts.len() - 1;
    let line = |i: usize| &base[starts[i]..starts[i + 1]];
    match kind {
        Damage::Cut => {
            let at = a.index(base.len());
            (base[..at].to_vec(), at, options, true)
        }
        Damage::Partial => {
            // Inside a multi-byte character if there is one, else inside a
            // line (not at its newline).
            let inside: Vec<usize> = (1..base.len())
                .filter(|&at| base[at] & 0xC0 == 0x80)
                .collect();
            let at = match inside.is_empty() {
                false => inside[a.index(inside.len())],
                true => {
                    let mid: Vec<usize> = (1..base.len())
                        .filter(|&at| base[at - 1] != b'\n' && base[at] != b'\n')
                        .collect();
                    match mid.is_empty() {
                        true => a.index(base.len()),
                        false => mid[a.index(mid.len())],
                    }
                }
            };
            (base[..at].to_vec(), at, options, true)
        }
        Damage::Concatenated => {
            let mut bytes = base.to_vec();
            bytes.extend_from_slice(other);
            (bytes, base.len(), options, false)
        }
        Damage::Reordered | Damage::Duplicated if lines >= 2 => {
            let i = a.index(lines);
            let mut order: Vec<usize> = (0..lines).collect();
            let first = match kind {
                Damage::Reordered => {
                    let j = (i + 1 + b.index(lines - 1)) % lines;
                    order.swap(i, j);
                    i.min(j)
                }
                _ => {
                    order.insert(i, i);
                    i + 1
                }
            };
            let mut bytes: Vec<u8> = Vec::new();
            for &at in &order {
                bytes.extend_from_slice(line(at));
                if bytes.last() != Some(&b'\n') {
                    bytes.push(b'\n');
                }
            }
            (bytes, starts[first], options, false)
        }
        Damage::Reordered | Damage::Duplicated => (base.to_vec(), base.len(), options, true),
        Damage::LongLine => {
            let longest = (0..lines).map(|i| line(i).len()).max().unwrap_or(0);
            let limit = longest.max(1024);
            let at = starts[a.index(lines + 1)];
            let mut bytes = base[..at].to_vec();
            if at > 0 && bytes.last() != Some(&b'\n') {
                bytes.push(b'\n');
            }
            let pad = "x".repeat(limit + 100);
            bytes.extend_from_slice(
                json!({"type": "message", "pad": pad})
                    .to_string()
                    .as_bytes(),
            );
            bytes.push(b'\n');
            bytes.extend_from_slice(&base[at..]);
            let options = ImportOptions {
                max_line_bytes: limit,
                ..ImportOptions::default()
            };
            (bytes, at, options, false)
        }
    }
}

/// One damaged import of a fixture, then the complete file over it.
fn case(
    fixture: &Fixture,
    other: &Fixture,
    complete: &[Row],
    kind: Damage,
    a: Index,
    b: Index,
) -> Result<(), TestCaseError> {
    let scratch = Scratch::new();
    let base = &fixture.bytes;
    let (bytes, differs_at, options, shortened) = damage(kind, base, &other.bytes, a, b);
    let at = format!("{kind:?} at byte {differs_at}");

    // What came before the damage, imported alone.
    let before_store = Store::open_in_memory().unwrap();
    let before = import_bytes(
        &before_store,
        &scratch,
        fixture,
        &base[..differs_at],
        &options,
    )?;
    check_report(&before_store, fixture, &before)?;
    let before = ids(&rows(&before_store));

    let store = Store::open_in_memory().unwrap();
    let report = import_bytes(&store, &scratch, fixture, &bytes, &options)?;
    let last_of_damaged = last_messages(&store);
    check_report(&store, fixture, &report)?;
    let damaged = rows(&store);
    let damaged_ids = ids(&damaged);
    let missing: Vec<_> = before.difference(&damaged_ids).collect();
    proptest::prop_assert!(
        missing.is_empty(),
        "{at}: messages before the damage not imported: {missing:?}"
    );
    check_damage_reported(kind, base, &bytes, differs_at, &report)?;

    // The complete file over the damaged one.
    let report = import_bytes(&store, &scratch, fixture, base, &ImportOptions::default())?;
    check_report(&store, fixture, &report)?;
    let combined = rows(&store);
    check_never_twice(&combined, &damaged, complete, &at)?;
    check_complete_kept(&combined, complete, &at)?;
    if shortened {
        // A text format cannot tell that a message goes on.
        let last_of_session = match is_json(base) {
            true => BTreeSet::new(),
            false => last_of_damaged,
        };
        check_as_complete(&combined, complete, &last_of_session, &at)?;
    }
    Ok(())
}

/// The damage is reported where it must be: an issue at a line, or the
/// file not recognised at all (cut before its first entry was whole), for
/// a line over the limit and for JSON cut where its ending shows it.
fn check_damage_reported(
    kind: Damage,
    base: &[u8],
    bytes: &[u8],
    differs_at: usize,
    report: &ImportReport,
) -> Result<(), TestCaseError> {
    let reported = report
        .files
        .iter()
        .any(|f| !f.issues.is_empty() || f.problem.is_some());
    if matches!(kind, Damage::LongLine) {
        proptest::prop_assert!(reported, "a line over the limit was not reported");
    }
    if matches!(kind, Damage::Partial)
        && is_json(base)
        && bytes.last().is_some_and(|&b| !b.is_ascii_whitespace())
    {
        proptest::prop_assert!(reported, "a file cut at byte {differs_at} was not reported");
    }
    Ok(())
}

/// Never a message twice unless one of the files (`damaged`, `complete`)
/// has it twice; `at` says which case.
fn check_never_twice(
    combined: &[Row],
    damaged: &[Row],
    complete: &[Row],
    at: &str,
) -> Result<(), TestCaseError> {
    let (damaged_counts, complete_counts) = (counts(damaged), counts(complete));
    for (message, n) in counts(combined) {
        let allowed = damaged_counts
            .get(&message)
            .max(complete_counts.get(&message))
            .copied()
            .unwrap_or(1);
        proptest::prop_assert!(
            n <= allowed,
            "{at}: stored {n} times, at most {allowed} in a file: {message:?}"
        );
    }
    Ok(())
}

/// Every message of the complete file is stored, by its id or by its text.
fn check_complete_kept(combined: &[Row], complete: &[Row], at: &str) -> Result<(), TestCaseError> {
    let combined_ids = ids(combined);
    let combined_counts = counts(combined);
    for row in complete {
        let same_text = (row.0.clone(), row.2.clone(), row.3, row.4.clone());
        proptest::prop_assert!(
            combined_ids.contains(&(row.0.clone(), row.1.clone()))
                || combined_counts.contains_key(&same_text),
            "{at}: the complete file's message is missing: {row:?}"
        );
    }
    Ok(())
}

/// For a file the damage only cut short: exactly what the complete file
/// holds, but for the messages `last_of_session` (the last message of a
/// session of a text file cut short).
fn check_as_complete(
    combined: &[Row],
    complete: &[Row],
    last_of_session: &BTreeSet<(String, String)>,
    at: &str,
) -> Result<(), TestCaseError> {
    let expected: BTreeSet<&Row> = complete.iter().collect();
    let got: BTreeSet<&Row> = combined.iter().collect();
    for row in expected.symmetric_difference(&got) {
        proptest::prop_assert!(
            last_of_session.contains(&(row.0.clone(), row.1.clone())),
            "{at}: after the complete file, differs from its import alone: {row:?}"
        );
    }
    proptest::prop_assert_eq!(combined.len(), complete.len());
    Ok(())
}

#[test]
fn damaged_fixtures_import_without_loss_or_duplicates() {
    let fixtures = fixtures();
    let formats: BTreeSet<&str> = fixtures.iter().map(|f| f.format.name()).collect();
    assert!(
        formats.len() >= 5,
        "fixtures of too few formats were found: {formats:?}"
    );
    let untested: Vec<&str> = Format::ALL
        .iter()
        .map(|format| format.name())
        .filter(|name| !formats.contains(name))
        .collect();
    if !untested.is_empty() {
        eprintln!("formats without a fixture: {untested:?}");
    }
    for (at, fixture) in fixtures.iter().enumerate() {
        // Another file of the same format to append, else the file itself.
        let other = fixtures
            .iter()
            .cycle()
            .skip(at + 1)
            .take(fixtures.len())
            .find(|other| other.format == fixture.format)
            .unwrap_or(fixture);
        let scratch = Scratch::new();
        let store = Store::open_in_memory().unwrap();
        let report = import_bytes(
            &store,
            &scratch,
            fixture,
            &fixture.bytes,
            &ImportOptions::default(),
        )
        .unwrap();
        assert!(report.imported() > 0, "{}", fixture.origin.display());
        let complete = rows(&store);
        for kind in DAMAGES {
            let mut runner = TestRunner::new(damage_config());
            runner
                .run(&(proptest::prelude::any::<(Index, Index)>()), |(a, b)| {
                    case(fixture, other, &complete, kind, a, b)
                })
                .unwrap_or_else(|e| panic!("{}: {kind:?}: {e}", fixture.origin.display()));
        }
    }
}

/// A pi session of format v1 as pi rewrites it when it loads it (facts of
/// pi's session manager): lines that are not JSON are dropped; the header
/// gets `version` 3; every other entry a new 8-hex-digit `id` and, as
/// `parentId`, the previous entry's (`null` for the first); a compaction's
/// `firstKeptEntryIndex` becomes `firstKeptEntryId`; role `hookMessage`
/// becomes `custom`. Times and messages stay as they were.
fn migrate_pi_v1(v1: &str) -> String {
    let mut entries: Vec<Value> = v1
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(Value::is_object)
        .collect();
    let mut previous = Value::Null;
    for (at, entry) in entries.iter_mut().enumerate() {
        if entry["type"] == "session" {
            entry["version"] = json!(3);
            continue;
        }
        let id = json!(format!(
            "{:08x}",
            (at as u64 + 1).wrapping_mul(0x9E37_79B9) & 0xFFFF_FFFF
        ));
        entry["id"] = id.clone();
        entry["parentId"] = std::mem::replace(&mut previous, id);
        if entry["message"]["role"] == "hookMessage" {
            entry["message"]["role"] = json!("custom");
        }
    }
    for at in 0..entries.len() {
        if let Some(kept) = entries[at]["firstKeptEntryIndex"].as_u64() {
            let kept = entries[kept as usize]["id"].clone();
            let entry = entries[at].as_object_mut().unwrap();
            entry.remove("firstKeptEntryIndex");
            entry.insert("firstKeptEntryId".into(), kept);
        }
    }
    let lines: Vec<String> = entries.iter().map(Value::to_string).collect();
    lines.join("\n") + "\n"
}

#[test]
fn a_pi_session_rewritten_from_v1_to_v3_adds_nothing() {
    let v1_path = shared_fixtures("pi").join("badlogic-pi-mono/session.jsonl");
    let v1 = std::fs::read_to_string(&v1_path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("2025-12-17T10-00-00-000Z_pi.jsonl");
    std::fs::write(&file, &v1).unwrap();
    let store = Store::open_in_memory().unwrap();
    let first = import(&store, &file);
    assert!(first.imported() > 400, "{first:#?}");
    let key = first.files[0].session_key.clone().unwrap();
    let before = rows(&store);
    let active = branch(&store, &key);

    // pi migrates the file in place: the same file, the same session.
    let v3 = migrate_pi_v1(&v1);
    assert!(v3.contains("\"version\":3"));
    std::fs::write(&file, &v3).unwrap();
    let second = import(&store, &file);
    assert_eq!(second.imported(), 0, "{:#?}", second.files[0].issues);
    assert_eq!(
        second.already_present(),
        first.imported() - 2,
        "all but the two entries of the line pi drops"
    );
    assert_eq!(rows(&store), before);
    assert_eq!(branch(&store, &key), active);

    // The session goes on in v3: a message after the migrated ones is new.
    let last_id = v3
        .lines()
        .last()
        .and_then(|line| serde_json::from_str::<Value>(line).ok())
        .unwrap()["id"]
        .clone();
    let next = json!({"type": "message", "id": "0badc0de", "parentId": last_id,
        "timestamp": "2025-12-17T12:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "quokkaward after the migration"}]}});
    std::fs::write(&file, format!("{v3}{next}\n")).unwrap();
    let third = import(&store, &file);
    assert_eq!(
        (third.imported(), third.already_present()),
        (1, second.already_present())
    );
    assert_eq!(
        hits(&store, "quokkaward"),
        [(key.clone(), "0badc0de".to_owned())]
    );
    assert_eq!(branch(&store, &key).last().unwrap(), "0badc0de");
}

#[test]
fn identical_messages_of_one_file_stay_apart_across_a_rewrite() {
    // Two identical messages in one file, at the same time: both stored,
    // and a rewrite that gives them new ids adds neither again.
    let line = |id: &str, parent: &str, text: &str| {
        json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": "2025-11-05T08:30:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]}})
        .to_string()
    };
    let header = r#"{"type":"session","id":"twins","timestamp":"2025-11-05T08:30:00.000Z"}"#;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("twins.jsonl");
    let write = |lines: &[String]| {
        std::fs::write(&file, format!("{header}\n{}\n", lines.join("\n"))).unwrap()
    };
    let store = Store::open_in_memory().unwrap();
    write(&[line("a1", "", "yes"), line("a2", "a1", "yes")]);
    assert_eq!(import(&store, &file).imported(), 2);
    // Rewritten with new ids, and a third "yes" that is new.
    write(&[
        line("b1", "", "yes"),
        line("b2", "b1", "yes"),
        line("b3", "b2", "yes"),
    ]);
    let report = import(&store, &file);
    assert_eq!((report.imported(), report.already_present()), (1, 2));
    assert_eq!(count(&store, "SELECT count(*) FROM messages"), 3);
    // Importing it again matches each by its id.
    let report = import(&store, &file);
    assert_eq!((report.imported(), report.already_present()), (0, 3));
    // A message of another time or role is not the same.
    write(&[
        line("b1", "", "yes"),
        line("b2", "b1", "yes"),
        line("b3", "b2", "yes"),
        line("c1", "b3", "yes").replace("08:30:00", "08:31:00"),
    ]);
    assert_eq!(import(&store, &file).imported(), 1);
}

#[test]
fn a_gemini_session_moved_from_json_to_jsonl_adds_nothing() {
    let json_path = shared_fixtures("gemini-cli")
        .join("Mai0313-VibeCodingTracker/test_conversation_gemini.json");
    let mut session: Value = serde_json::from_slice(&std::fs::read(&json_path).unwrap()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join(".gemini/tmp/project/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let old = chats.join("session-2025-10-11T10-00-aaaa.json");
    std::fs::write(&old, session.to_string()).unwrap();
    let store = Store::open_in_memory().unwrap();
    let first = import(&store, &old);
    assert!(first.imported() > 10);
    let before = rows(&store);

    // The same session as JSONL: a header line, then its message records.
    let messages = session["messages"].take();
    let session = session.as_object_mut().unwrap();
    session.remove("messages");
    let mut jsonl = Value::Object(session.clone()).to_string() + "\n";
    for message in messages.as_array().unwrap() {
        jsonl += &format!("{message}\n");
    }
    let new = chats.join("session-2025-10-11T10-00-aaaa.jsonl");
    std::fs::write(&new, &jsonl).unwrap();
    let report = import(&store, dir.path());
    assert_eq!(report.imported(), 0);
    assert_eq!(rows(&store), before);

    // And with message ids the new layout gave afresh.
    let renumbered: String = jsonl
        .lines()
        .enumerate()
        .map(|(at, line)| {
            let mut record: Value = serde_json::from_str(line).unwrap();
            if record.get("type").is_some() {
                record["id"] = json!(format!("renumbered-{at}"));
            }
            format!("{record}\n")
        })
        .collect();
    std::fs::write(&new, renumbered).unwrap();
    let report = import(&store, &new);
    assert_eq!(
        (report.imported(), report.already_present()),
        (0, first.imported())
    );
    assert_eq!(rows(&store), before);
}
