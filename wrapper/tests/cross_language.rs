//! Identical JSON across languages: `tests/scenarios/search.sql` run through
//! the sqlite3 shell and `/usr/bin/python3` (both loading
//! `dist/session_search.so` into SQLite 3.40) and through this crate
//! (`session_search::register` into rusqlite's bundled SQLite 3.5x). Every
//! SELECT of the scenario must print byte-identical text in all three,
//! scores (floats) included.
//!
//! The extension must be built first (`make build`; `make test-rust` does it).

use rusqlite::fallible_iterator::FallibleIterator;
use rusqlite::types::ValueRef;
use rusqlite::{Batch, Connection};
use session_search::{
    HistoryOptions, HistoryResponse, Progress, SearchRequest, SearchResponse, Status, Store,
};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const SCENARIO: &str = "tests/scenarios/search.sql";
const PYTHON: &str = "/usr/bin/python3";

/// The repository root, where the runners find `dist/` and `tests/`.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the wrapper lives in the workspace")
        .to_path_buf()
}

/// Fails unless `dist/session_search.so` exists and is newer than every
/// source it is built from, so the shell and Python run the engine this
/// test was compiled with.
fn require_extension() {
    let so = root().join("dist/session_search.so");
    let built = std::fs::metadata(&so)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| {
            panic!(
                "{} is missing: run `make build` first (`make test-rust` builds it before the tests)",
                so.display()
            )
        });
    for dir in ["engine/src", "ext/src", "sql"] {
        if let Some(newer) = newest(&root().join(dir)).filter(|(time, _)| *time > built) {
            panic!(
                "{} is older than {}: run `make build` first",
                so.display(),
                newer.1.display()
            );
        }
    }
}

/// The most recently modified file under `dir`.
fn newest(dir: &Path) -> Option<(std::time::SystemTime, PathBuf)> {
    let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let candidate = if path.is_dir() {
            newest(&path)
        } else {
            entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .map(|t| (t, path))
        };
        if let Some(c) = candidate {
            if best.as_ref().is_none_or(|b| c.0 > b.0) {
                best = Some(c);
            }
        }
    }
    best
}

fn scenario() -> String {
    std::fs::read_to_string(root().join(SCENARIO)).expect("the scenario file")
}

/// Stdout split into lines, after checking the runner succeeded silently.
fn lines(name: &str, output: Output) -> Vec<String> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stderr.is_empty(),
        "{name} failed ({}):\n{stderr}",
        output.status
    );
    String::from_utf8(output.stdout)
        .unwrap_or_else(|e| panic!("{name} printed invalid UTF-8: {e}"))
        .lines()
        .map(str::to_owned)
        .collect()
}

fn run_shell() -> Vec<String> {
    let output = Command::new("sqlite3")
        .current_dir(root())
        .args([
            "-batch",
            "-bail",
            "-cmd",
            ".load dist/session_search",
            ":memory:",
        ])
        .stdin(File::open(root().join(SCENARIO)).expect("the scenario file"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("sqlite3 (Debian's shell) on PATH");
    lines("sqlite3", output)
}

fn run_python() -> Vec<String> {
    let output = Command::new(PYTHON)
        .current_dir(root())
        .args(["tests/scenarios/run_scenario.py", SCENARIO])
        .output()
        .unwrap_or_else(|e| panic!("{PYTHON}: {e}"));
    lines("python", output)
}

/// A column as the sqlite3 shell prints it in list mode.
fn column_text(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => format!("{r}"),
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
    }
}

/// A statement's text without the comment lines and blank lines before it.
fn without_comments(sql: &str) -> String {
    sql.lines()
        .skip_while(|line| line.trim().is_empty() || line.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The scenario through the wrapper: (statement, printed line) for every
/// row of every statement that returns rows, in order.
fn run_rust() -> Vec<(String, String)> {
    let conn = Connection::open_in_memory().unwrap();
    session_search::register(&conn).unwrap();
    let sql = scenario();
    let mut batch = Batch::new(&conn, &sql);
    let mut out = Vec::new();
    while let Some(mut stmt) = batch.next().unwrap() {
        let text = without_comments(&stmt.expanded_sql().unwrap_or_default());
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).unwrap_or_else(|e| panic!("{text}: {e}"));
        while let Some(row) = rows.next().unwrap_or_else(|e| panic!("{text}: {e}")) {
            let line: Vec<String> = (0..columns)
                .map(|i| column_text(row.get_ref(i).unwrap()))
                .collect();
            out.push((text.clone(), line.join("|")));
        }
    }
    out
}

#[test]
fn every_select_prints_identical_json_in_the_shell_python_and_rust() {
    require_extension();
    let rust = run_rust();
    let shell = run_shell();
    let python = run_python();
    let selects = scenario()
        .lines()
        .filter(|line| line.starts_with("SELECT "))
        .count();
    assert!(selects >= 50, "the scenario has {selects} SELECTs");
    assert_eq!(rust.len(), selects, "one line per SELECT from Rust");
    assert_eq!(
        shell.len(),
        rust.len(),
        "as many lines from the shell as from Rust"
    );
    assert_eq!(
        python.len(),
        rust.len(),
        "as many lines from Python as from Rust"
    );
    let mut differences = Vec::new();
    for (i, (statement, rust)) in rust.iter().enumerate() {
        if shell[i] != *rust || python[i] != *rust {
            differences.push(format!(
                "{statement}\n  rust:   {rust}\n  shell:  {}\n  python: {}",
                shell[i], python[i]
            ));
        }
    }
    assert!(
        differences.is_empty(),
        "{} of {} outputs differ:\n{}",
        differences.len(),
        rust.len(),
        differences.join("\n")
    );
}

/// The scenario must exercise what it claims to: hits with float scores,
/// redaction, every flag, and CJK text, so identical output means something.
#[test]
fn the_scenario_covers_scores_flags_redaction_and_cjk() {
    let lines: Vec<String> = run_rust().into_iter().map(|(_, line)| line).collect();
    let all = lines.join("\n");
    let scores: Vec<f64> = lines
        .iter()
        .filter_map(|line| serde_json::from_str::<SearchResponse>(line).ok())
        .flat_map(|response| response.results)
        .map(|hit| hit.score)
        .collect();
    assert!(scores.len() > 50, "{} hits", scores.len());
    assert!(scores.iter().any(|s| s.fract() != 0.0 && *s < 1.0));
    assert!(scores.iter().any(|s| *s > 1.0));
    for needle in [
        "[REDACTED]",
        "\"truncated\":true",
        "東京",
        "서울",
        "Straße",
        "déploiement",
        "[tool call: bash]",
        "\"done\":false",
    ] {
        assert!(all.contains(needle), "no output contains {needle}");
    }
    // What was stored never comes back; a response's `terms` may name the
    // words the caller typed itself (as it searched for the secret's tail),
    // with no message holding them.
    let stored: String = lines
        .iter()
        .map(
            |line| match serde_json::from_str::<serde_json::Value>(line) {
                Ok(serde_json::Value::Object(mut response)) => {
                    if let Some(terms) = response.remove("terms") {
                        assert!(terms.as_array().unwrap().iter().all(|term| {
                            !term["term"].as_str().unwrap().contains("Zt8qLm3Rv9")
                                || term["messages"] == 0
                        }));
                    }
                    serde_json::Value::Object(response).to_string()
                }
                _ => line.clone(),
            },
        )
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!stored.contains("Zt8qLm3Rv9XwB2nK7pQd4Hs6Yj1Fc5Ga0Ue8Wi3Oy7Tr2Mb9Nx4Lk6Jh1"));
    assert!(
        !all.contains("production tonight"),
        "off-branch text leaked"
    );
}

/// The typed API answers exactly the JSON of the SQL functions (docs/rust.md: "the
/// option and result structs serialize to exactly the JSON of the SQL
/// functions"): after each `sessions_search` and `sessions_history` of the
/// scenario, the same call through [`Store`] on the same connection, with the
/// options deserialized from the statement's own arguments.
#[test]
fn the_typed_api_answers_the_same_json_as_the_sql_functions() {
    let store = Store::open_in_memory().unwrap();
    let conn = store.connection();
    let sql = scenario();
    let mut batch = Batch::new(conn, &sql);
    let mut checked = 0;
    while let Some(mut stmt) = batch.next().unwrap() {
        let text = without_comments(&stmt.expanded_sql().unwrap_or_default());
        let line: String = stmt
            .query_row([], |row| Ok(column_text(row.get_ref(0)?)))
            .unwrap_or_default();
        let typed = if let Some(args) = text.strip_prefix("SELECT sessions_search(") {
            let (query, options) = arguments(conn, args);
            let request = SearchRequest {
                query,
                options: serde_json::from_str(&options).unwrap(),
            };
            serde_json::to_string(&store.search(&request).unwrap())
        } else if let Some(args) = text.strip_prefix("SELECT sessions_history(") {
            let (key, options) = arguments(conn, args);
            let options: HistoryOptions = serde_json::from_str(&options).unwrap();
            serde_json::to_string(&store.history(&key, &options).unwrap())
        } else {
            continue;
        };
        assert_eq!(typed.unwrap(), line, "{text}");
        checked += 1;
    }
    assert!(checked >= 45, "{checked} calls checked");
}

/// The two SQL literal arguments of a call, given the text after its `(`,
/// evaluated by SQLite.
fn arguments(conn: &Connection, args: &str) -> (String, String) {
    let pair: String = conn
        .query_row(&format!("SELECT json_array({args}"), [], |row| row.get(0))
        .unwrap();
    let [first, second]: [String; 2] = serde_json::from_str(&pair).unwrap();
    (first, second)
}

/// Deserializing the SQL JSON into the typed responses and serializing them
/// again gives the same text.
#[test]
fn parsed_responses_serialize_back_to_the_same_json() {
    let mut checked = 0;
    for (statement, line) in run_rust() {
        let again = if statement.starts_with("SELECT sessions_search(") {
            serde_json::to_string(&serde_json::from_str::<SearchResponse>(&line).unwrap())
        } else if statement.starts_with("SELECT sessions_history(") {
            serde_json::to_string(&serde_json::from_str::<HistoryResponse>(&line).unwrap())
        } else if statement.starts_with("SELECT sessions_status(") {
            serde_json::to_string(&serde_json::from_str::<Status>(&line).unwrap())
        } else if statement.starts_with("SELECT sessions_reconcile(") {
            serde_json::to_string(&serde_json::from_str::<Progress>(&line).unwrap())
        } else {
            continue;
        };
        assert_eq!(again.unwrap(), line, "{statement}");
        checked += 1;
    }
    assert!(checked >= 50, "{checked} responses checked");
}
