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
//!   return nothing).
//!
//! Every figure is the median of interleaved repetitions.

use crate::corpus::{Kind, Lengths, Messages};
use crate::report::{Target, MB};
use crate::stats::{median, sorted};
use rusqlite::Connection;
use session_search::tokenizer::{Options, Tokenizer};
use session_search::{NewMessage, NewSession, Role, SearchRequest, Store};
use session_search_engine::redact::Redactor;
use std::error::Error;
use std::path::Path;
use std::time::Instant;

/// Repetitions of every measurement.
const REPEAT: usize = 5;

/// The session every message goes to.
const SESSION: &str = "agent:main:bench";

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

/// A store holding one session and `content` as its one message.
fn store_with(content: &str) -> Result<Store, Box<dyn Error>> {
    let store = Store::open_in_memory()?;
    store.create_session(&NewSession {
        session_key: SESSION.into(),
        agent_id: "main".into(),
        ..NewSession::default()
    })?;
    store.append(&NewMessage {
        session_key: SESSION.into(),
        role: Role::User,
        content: content.into(),
        created_at: 1,
        ..NewMessage::default()
    })?;
    Ok(store)
}

/// Runs the part; prints its table and returns its targets.
///
/// # Errors
///
/// Any SQLite error.
pub fn run(scale: f64, _work: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
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

    let [append, fts5] = medians([&mut || Ok(seconds(|| store_with(&text)).1), &mut || {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch("CREATE VIRTUAL TABLE plain USING fts5(body)")?;
        let (inserted, s) =
            seconds(|| conn.execute("INSERT INTO plain(body) VALUES (?1)", [&text]));
        inserted?;
        Ok(s)
    }])?;
    println!(
        "one {mb:.1} MB message: appended (redacted, indexed) in {append:.3} s, into plain FTS5 in {fts5:.3} s"
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
