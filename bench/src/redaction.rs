//! Part `redaction`: the cost of keeping secrets out of the index, against
//! anchors measured in the same run on the same text:
//!
//! - redaction throughput of English-corpus text (prose, code, logs, URLs)
//!   against the `sessions` tokenizer's pass over the same text, which
//!   indexing makes anyway;
//! - one 10 MB message appended (redacted and indexed) against the same text
//!   inserted into a plain FTS5 table with `unicode61`;
//! - the worst case of write-time redaction's predecessor: a query whose
//!   only matches were inside secrets (`token=zzqqxx` repeated), against a
//!   query for a word that is in no message, on the same database (both
//!   return nothing);
//! - the peak memory of a process that inserts one 50 MB message into a
//!   database file and searches it, against the same message inserted into
//!   a plain table and into a plain FTS5 table, each in a child process of
//!   its own ([`CHILD_FLAG`]).
//!
//! Every timed figure is the median of interleaved repetitions.

use crate::child;
use crate::corpus::{Kind, Lengths, Messages};
use crate::memory;
use crate::report::{Target, MB};
use crate::stats::{median, sorted};
use rusqlite::Connection;
use session_search::tokenizer::{Options, Tokenizer};
use session_search::{NewMessage, NewSession, Role, SearchRequest, Store, StoreOptions};
use session_search_engine::redact::Redactor;
use std::error::Error;
use std::path::Path;
use std::time::Instant;

/// Repetitions of every measurement.
const REPEAT: usize = 5;

/// The session every message goes to.
const SESSION: &str = "agent:main:bench";

/// The hidden first argument that makes this executable run one memory
/// job: `--memory-job JOB BYTES DIR`.
pub const CHILD_FLAG: &str = "--memory-job";

/// Bytes of the message of the memory jobs at scale 1.
const BIG_MESSAGE_BYTES: f64 = 50e6;

/// What the memory jobs insert the message into: a plain table, a plain
/// FTS5 table (`unicode61`), and session-search (appended, then searched).
const MEMORY_JOBS: [&str; 3] = ["table", "fts5", "session-search"];

/// Seconds `f` takes.
fn seconds<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let started = Instant::now();
    let value = f();
    (value, started.elapsed().as_secs_f64())
}

/// Medians of `REPEAT` interleaved runs of each of `jobs`.
fn medians<const N: usize>(
    mut jobs: [&mut dyn FnMut() -> Result<f64, Box<dyn Error>>; N],
) -> Result<[f64; N], Box<dyn Error>> {
    let mut runs: [Vec<f64>; N] = std::array::from_fn(|_| Vec::new());
    for _ in 0..REPEAT {
        for (job, times) in jobs.iter_mut().zip(&mut runs) {
            times.push(job()?);
        }
    }
    Ok(runs.map(|times| median(&sorted(times))))
}

/// English-corpus text of about `bytes` bytes, as one message.
fn text(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 4096);
    for message in Messages::new(
        Kind::English,
        0x5E55_0011,
        Lengths {
            min: 200,
            max: 4000,
        },
    ) {
        if text.len() >= bytes {
            break;
        }
        text.push_str(&message);
        text.push_str("\n\n");
    }
    text
}

/// The columns and tokenizer of the index (`session_search_fts` in
/// `engine/sql/schema.sql`), for a bare FTS5 table that makes the same
/// tokens of a text ([`check_index_columns`] holds it to the schema).
const INDEX_COLUMNS: &str = "text, scope, tokenize = 'sessions cjk 1 markers 1'";

/// An error unless each part of [`INDEX_COLUMNS`] is in the definition of a
/// store's index.
fn check_index_columns() -> Result<(), Box<dyn Error>> {
    let store = Store::open_in_memory()?;
    let sql: String = store.connection().query_row(
        "SELECT sql FROM sqlite_master WHERE name = 'session_search_fts'",
        [],
        |row| row.get(0),
    )?;
    let squeezed = |text: &str| text.split_whitespace().collect::<String>();
    match INDEX_COLUMNS
        .split(',')
        .find(|part| !squeezed(&sql).contains(&squeezed(part)))
    {
        Some(part) => Err(format!("the index is no longer defined with {part:?}: {sql}").into()),
        None => Ok(()),
    }
}

/// Seconds `conn` takes to insert `text` as the one row of a new FTS5 table
/// of `columns`, the first named `text`, commit included.
fn fts5_insert(conn: Connection, columns: &str, text: &str) -> Result<f64, Box<dyn Error>> {
    conn.execute_batch(&format!("CREATE VIRTUAL TABLE t USING fts5({columns})"))?;
    let (inserted, s) = seconds(|| conn.execute("INSERT INTO t(text) VALUES (?1)", [text]));
    inserted?;
    Ok(s)
}

/// An in-memory store holding one session and `content` as its one message.
fn store_with(content: &str) -> Result<Store, Box<dyn Error>> {
    holding(Store::open_in_memory()?, content.to_owned())
}

/// `store` with one session and `content` as its one message.
fn holding(store: Store, content: String) -> Result<Store, Box<dyn Error>> {
    store.create_session(&NewSession {
        session_key: SESSION.into(),
        agent_id: "main".into(),
        ..NewSession::default()
    })?;
    store.append(&NewMessage {
        session_key: SESSION.into(),
        role: Role::User,
        content,
        created_at: 1,
        ..NewMessage::default()
    })?;
    Ok(store)
}

/// A memory job's side: builds English-corpus text of `BYTES` bytes as one
/// message, inserts it into a new database file in `DIR` as `JOB` says
/// ([`MEMORY_JOBS`]), searches it, and prints its size and the process'
/// peak RSS in KiB, as JSON.
///
/// # Errors
///
/// Wrong arguments, or any SQLite or session-search error.
pub fn child_main(args: &[String]) -> Result<(), Box<dyn Error>> {
    let usage = || {
        format!(
            "usage: {CHILD_FLAG} ({}) BYTES DIR",
            MEMORY_JOBS.join(" | ")
        )
    };
    let [job, bytes, work] = args else {
        return Err(usage().into());
    };
    let text = text(bytes.parse()?);
    let path = Path::new(work).join(format!("memory-{job}.db"));
    crate::store::databases::remove(&path)?;
    let word = "the";
    match job.as_str() {
        "table" | "fts5" => {
            let conn = Connection::open(&path)?;
            let table = if job == "fts5" {
                "CREATE VIRTUAL TABLE t USING fts5(body)"
            } else {
                "CREATE TABLE t(body)"
            };
            conn.execute_batch(table)?;
            conn.execute("INSERT INTO t(body) VALUES (?1)", [&text])?;
            if job == "fts5" {
                conn.query_row("SELECT rowid FROM t WHERE t MATCH ?1", [word], |_| Ok(()))?;
            }
        }
        "session-search" => {
            let store = holding(
                Store::open_with(
                    &path,
                    &StoreOptions {
                        background_reconcile: false,
                    },
                )?,
                text,
            )?;
            let found = store.search(&SearchRequest::new(word, SESSION))?;
            if found.results.is_empty() {
                return Err(format!("{word:?} was not found in the message").into());
            }
        }
        _ => return Err(usage().into()),
    }
    crate::store::databases::remove(&path)?;
    println!("{}", memory::peak_rss_kib()?);
    Ok(())
}

/// Runs the part; prints its table and returns its targets.
///
/// # Errors
///
/// Any SQLite error.
pub fn run(scale: f64, work: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
    println!("\n== redaction: secrets kept out of the index ==");
    let bytes = ((10e6 * scale) as usize).max(100_000);
    let text = text(bytes);
    let mb = text.len() as f64 / MB;
    let redactor = Redactor::new::<&str>(&[])?;
    let mut tokenizer = Tokenizer::new(Options::default());
    let [redact, tokenize] = medians([
        &mut || Ok(seconds(|| redactor.secret_spans(&text).len()).1),
        &mut || {
            let mut count = 0;
            let (_, s) = seconds(|| {
                tokenizer.tokenize::<()>(text.as_bytes(), &mut |_| {
                    count += 1;
                    Ok(())
                })
            });
            Ok(s)
        },
    ])?;
    println!(
        "{mb:.1} MB of english-corpus text: redaction {:.0} MB/s, sessions tokenizer {:.0} MB/s",
        mb / redact,
        mb / tokenize
    );

    check_index_columns()?;
    let redacted = redactor.redact(&text);
    let [append, fts5, index_tokens] = medians([
        &mut || Ok(seconds(|| store_with(&text)).1),
        &mut || fts5_insert(Connection::open_in_memory()?, "text", &text),
        &mut || fts5_insert(session_search::open_in_memory()?, INDEX_COLUMNS, &redacted),
    ])?;
    println!(
        "one {mb:.1} MB message: appended (redacted, indexed) in {append:.3} s, into plain FTS5 in {fts5:.3} s"
    );
    println!(
        "  its floor: redaction {redact:.3} s + the redacted text into a bare FTS5 table with the \
         index's tokenizer {index_tokens:.3} s = {:.3} s (append / floor {:.2}x)",
        redact + index_tokens,
        append / (redact + index_tokens)
    );

    println!(
        "ratios: redaction / tokenizer {:.2}x, append / plain FTS5 {:.2}x",
        redact / tokenize,
        append / fts5
    );
    let mut targets = vec![
        Target::at_least(
            "redaction throughput, english-corpus text".into(),
            mb / redact,
            20.0,
            " MB/s",
        ),
        Target::new(
            format!("append of one {mb:.0} MB message (redact + index)"),
            append,
            0.5,
            " s",
        ),
    ];
    targets.push(peak_memory(scale, work)?);
    for repeats in [4_000, 16_000] {
        let store = store_with(&"token=zzqqxx ".repeat(repeats))?;
        let time = |query: &'static str| {
            let store = &store;
            move || -> Result<f64, Box<dyn Error>> {
                let (response, s) = seconds(|| store.search(&SearchRequest::new(query, SESSION)));
                assert!(response?.results.is_empty());
                Ok(s * 1e3)
            }
        };
        let [secret, absent] = medians([&mut time("zzqqxx"), &mut time("qqzzyy")])?;
        let kb = repeats * 13 / 1000;
        println!(
            "'token=zzqqxx' x {repeats} ({kb} KB): search 'zzqqxx' {secret:.3} ms, a word in no message {absent:.3} ms"
        );
        targets.push(Target::new(
            format!("search only inside secrets / absent word, {kb} KB"),
            secret / absent,
            1.5,
            "x",
        ));
    }
    Ok(targets)
}

/// Runs every memory job, prints their peaks and returns the target.
fn peak_memory(scale: f64, work: &Path) -> Result<Target, Box<dyn Error>> {
    let bytes = ((BIG_MESSAGE_BYTES * scale) as usize).max(1_000_000);
    let mb = bytes as f64 / MB;
    let mut peaks = Vec::new();
    for job in MEMORY_JOBS {
        let args = [CHILD_FLAG, job, &bytes.to_string(), &work.to_string_lossy()];
        let kib: f64 = child::report(&args)?.trim().parse()?;
        peaks.push(kib * 1024.0 / MB);
    }
    println!(
        "one {mb:.0} MB message built, inserted into a database file and searched, peak RSS (VmHWM) \
         of the process: plain table {:.0} MB, plain FTS5 {:.0} MB, session-search {:.0} MB",
        peaks[0], peaks[1], peaks[2]
    );
    Ok(Target::new(
        format!("peak RSS, one {mb:.0} MB message inserted and searched (2x + 32 MB)"),
        peaks[2],
        2.0 * mb + 32.0,
        " MB",
    ))
}
