//! Files read as JSON records rather than lines, for formats whose file is
//! one JSON document (a data export: an array of conversations; a session
//! saved as one object) or a stream of them, and whose file may hold any
//! number of sessions.
//!
//! The file is a sequence of top-level JSON values separated by white space
//! (one value for a document, one per line for JSONL): an array gives each
//! of its elements as a record, streamed one at a time so that a large
//! export is never held whole; an object is one record. A format's
//! [`RecordReader`] gets the records in order, numbered from 1, and starts
//! a [`Writer`] per session through [`Sessions`]. What the file ends with
//! that is not JSON, or cut off, is reported at the record where it starts;
//! the records before it are imported.

use super::lines::{Line, Lines};
use super::writer::{SessionInfo, Writer};
use super::{FileReport, Format, Issue, LineIssue};
use serde::de::{DeserializeSeed, Deserializer as _, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use session_search::{Error, Result, Store};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::{self, BufRead};

/// One format's reading of a file's records.
pub(super) trait RecordReader {
    /// Reads one record and writes the sessions it holds.
    fn record(&mut self, record: Value, out: &mut Sessions<'_>) -> Result<()>;

    /// Called after the last record: writes what the reader kept back.
    fn finish(&mut self, _out: &mut Sessions<'_>) -> Result<()> {
        Ok(())
    }
}

/// One text format's reading of a whole file (not JSON), which may hold
/// any number of sessions.
pub(super) trait TextReader {
    /// Reads `input`, whose lines are at most `limit` bytes (longer ones
    /// are reported), and writes its sessions. Returns how reading the file
    /// went: a read failure is the file's problem, not an error of the
    /// import.
    ///
    /// # Errors
    ///
    /// Database failures.
    fn read(
        &mut self,
        input: &mut dyn BufRead,
        limit: usize,
        out: &mut Sessions<'_>,
    ) -> Result<io::Result<()>>;
}

/// The lines of a text format's file, for a [`TextReader`]: as text
/// (invalid UTF-8 replaced, a trailing `\r` dropped), numbered from 1; a
/// line over the limit is reported and skipped.
pub(super) struct TextLines<'r> {
    lines: Lines<&'r mut dyn BufRead>,
    limit: usize,
}

impl<'r> TextLines<'r> {
    pub(super) fn new(input: &'r mut dyn BufRead, limit: usize) -> TextLines<'r> {
        TextLines {
            lines: Lines::new(input, limit),
            limit,
        }
    }

    /// The next line, its number, and whether a newline ended it (not so
    /// for a last line cut off or still being written); `None` at the end.
    pub(super) fn next(
        &mut self,
        out: &mut Sessions<'_>,
    ) -> io::Result<Option<(usize, String, bool)>> {
        while let Some((number, line)) = self.lines.next_line()? {
            match line {
                Line::Text { bytes, complete } => {
                    let mut text = String::from_utf8_lossy(&bytes).into_owned();
                    if text.ends_with('\r') {
                        text.pop();
                    }
                    return Ok(Some((number, text, complete)));
                }
                Line::TooLong { bytes } => {
                    out.set_record(number);
                    out.issue(Issue::TooLong {
                        bytes,
                        limit: self.limit,
                    });
                }
            }
        }
        Ok(None)
    }
}

/// A format's record reader for one file.
pub(super) struct Opened {
    pub(super) reader: Box<dyn RecordReader>,
    /// The `agent_id` of the sessions the file holds.
    pub(super) agent_id: String,
}

/// Starts a [`Writer`] for each session of a file, all reporting into the
/// file's report.
pub(super) struct Sessions<'a> {
    store: &'a Store,
    format: Format,
    agent_id: String,
    report: &'a mut FileReport,
    record: usize,
}

impl<'a> Sessions<'a> {
    pub(super) fn new(
        store: &'a Store,
        format: Format,
        agent_id: String,
        report: &'a mut FileReport,
    ) -> Sessions<'a> {
        Sessions {
            store,
            format,
            agent_id,
            report,
            record: 0,
        }
    }

    /// The store being written.
    pub(super) fn store(&self) -> &Store {
        self.store
    }

    /// The number of the record being read, from 1.
    pub(super) fn record(&self) -> usize {
        self.record
    }

    /// Sets the number of the record (for a text format, the line) that
    /// issues are reported at.
    pub(super) fn set_record(&mut self, record: usize) {
        self.record = record;
    }

    /// Counts a record that is not conversation, by its kind.
    pub(super) fn skip(&mut self, kind: &str) {
        *self
            .report
            .skipped_types
            .entry(kind.to_owned())
            .or_default() += 1;
    }

    /// Records a problem with the current record.
    pub(super) fn issue(&mut self, issue: Issue) {
        self.report.issues.push(LineIssue {
            line: self.record,
            issue,
        });
    }

    /// Writes the session `info` with `write`, which gets a fresh
    /// [`Writer`]; finishes it (leaf, origin) afterwards.
    ///
    /// # Errors
    ///
    /// Database failures.
    pub(super) fn session(
        &mut self,
        info: SessionInfo,
        write: impl FnOnce(&mut Writer<'_>) -> Result<()>,
    ) -> Result<()> {
        let mut writer = Writer::new(
            self.store,
            self.format,
            self.agent_id.clone(),
            info,
            self.report,
        );
        writer.set_line(self.record);
        write(&mut writer)?;
        writer.finish()
    }
}

/// Reads the records of `input` into `reader`; JSON that cannot be read
/// ends the file with an issue. Returns how reading the file went: a read
/// failure is the file's problem, not an error of the import.
///
/// # Errors
///
/// Database failures.
pub(super) fn read(
    input: &mut dyn BufRead,
    reader: &mut dyn RecordReader,
    out: &mut Sessions<'_>,
) -> Result<io::Result<()>> {
    let outcome = each_record(input, &mut |number, record| {
        out.record = number;
        reader.record(record, out).map(|()| true)
    })?;
    out.record += 1;
    let read = match outcome {
        // The callback above never stops early.
        Ended::Complete | Ended::Stopped => Ok(()),
        Ended::Json { error, truncated } => {
            out.issue(match truncated {
                true => Issue::Truncated,
                false => Issue::NotJson {
                    error: error.to_string(),
                },
            });
            Ok(())
        }
        Ended::Io(error) => Err(error),
    };
    reader.finish(out)?;
    Ok(read)
}

/// The first record of `input`, if it starts as JSON.
pub(super) fn first_record(input: &mut dyn BufRead) -> Option<Value> {
    let mut first = None;
    let _ = each_record(input, &mut |_, record| {
        first = Some(record);
        Ok(false)
    });
    first
}

/// Calls `each` with every record of `input` (a file read beside the one
/// imported); returns how many there were, and whether the input ended
/// after them (`false`: cut off, not JSON or unreadable there).
pub(super) fn each_record_of(
    input: &mut dyn BufRead,
    each: &mut dyn FnMut(Value),
) -> (usize, bool) {
    let mut count = 0;
    let ended = each_record(input, &mut |_, record| {
        count += 1;
        each(record);
        Ok(true)
    });
    (count, matches!(ended, Ok(Ended::Complete)))
}

/// How a file's records ended.
enum Ended {
    /// At the end of the file.
    Complete,
    /// Where the callback asked to stop.
    Stopped,
    /// At JSON that could not be read (`truncated`: the file ends inside it).
    Json {
        error: serde_json::Error,
        truncated: bool,
    },
    /// A read failed.
    Io(io::Error),
}

/// Calls `each` with every record of `input` and its number (from 1) until
/// it returns `false`.
fn each_record(
    input: &mut dyn BufRead,
    each: &mut dyn FnMut(usize, Value) -> Result<bool>,
) -> Result<Ended> {
    let mut walk = Walk {
        each,
        count: 0,
        stopped: false,
        failure: None,
    };
    loop {
        match at_end(input) {
            Ok(true) => return Ok(Ended::Complete),
            Ok(false) => {}
            Err(error) => return Ok(Ended::Io(error)),
        }
        // serde_json reads a reader byte by byte and stops at the end of
        // the value (an array or object needs no look-ahead), so the next
        // value starts where this one ended.
        let mut json = serde_json::Deserializer::from_reader(&mut *input);
        let result = json.deserialize_any(&mut walk);
        if let Some(failure) = walk.failure.take() {
            return Err(failure);
        }
        if walk.stopped {
            return Ok(Ended::Stopped);
        }
        if let Err(error) = result {
            return Ok(match error.classify() {
                serde_json::error::Category::Io => Ended::Io(io::Error::other(error)),
                serde_json::error::Category::Eof => Ended::Json {
                    error,
                    truncated: true,
                },
                _ => Ended::Json {
                    error,
                    truncated: false,
                },
            });
        }
    }
}

/// Skips white space; whether the input ends there.
fn at_end(input: &mut dyn BufRead) -> io::Result<bool> {
    loop {
        let buffer = match input.fill_buf() {
            Ok(buffer) => buffer,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buffer.is_empty() {
            return Ok(true);
        }
        let blank = buffer
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let whole = blank == buffer.len();
        input.consume(blank);
        if !whole {
            return Ok(false);
        }
    }
}

/// Hands each record of a top-level value to the callback.
struct Walk<'f> {
    each: &'f mut dyn FnMut(usize, Value) -> Result<bool>,
    count: usize,
    /// The callback asked to stop.
    stopped: bool,
    /// The callback failed.
    failure: Option<Error>,
}

/// The message of the error that stops the parser when the callback stops
/// or fails (the real reason is in [`Walk`]).
const STOP: &str = "stopped";

impl Walk<'_> {
    fn give<E: serde::de::Error>(&mut self, record: Value) -> std::result::Result<(), E> {
        self.count += 1;
        match (self.each)(self.count, record) {
            Ok(true) => Ok(()),
            Ok(false) => {
                self.stopped = true;
                Err(E::custom(STOP))
            }
            Err(failure) => {
                self.failure = Some(failure);
                Err(E::custom(STOP))
            }
        }
    }
}

impl<'de> Visitor<'de> for &mut Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array or object")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<(), A::Error> {
        while let Some(record) = seq.next_element::<Value>()? {
            self.give(record)?;
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<(), A::Error> {
        let record = Value::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
        self.give(record)
    }
}

impl<'de> DeserializeSeed<'de> for &mut Walk<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> std::result::Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// The order to write the nodes of a tree in so that every parent comes
/// before its children: depth first from each root (a node whose parent is
/// `None` or not among the nodes), children in the order given. `nodes`
/// holds `(id, parent)`; returns indices into it. A node in a cycle, with
/// no root above it, comes last, in the order given.
pub(super) fn tree_order(nodes: &[(&str, Option<&str>)]) -> Vec<usize> {
    let index: HashMap<&str, usize> = nodes
        .iter()
        .enumerate()
        .map(|(at, (id, _))| (*id, at))
        .collect();
    let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for (at, (_, parent)) in nodes.iter().enumerate() {
        match parent.and_then(|parent| index.get(parent)) {
            Some(&up) if up != at => children.entry(up).or_default().push(at),
            _ => roots.push(at),
        }
    }
    let mut order = Vec::with_capacity(nodes.len());
    let mut placed = HashSet::new();
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(at) = stack.pop() {
        if !placed.insert(at) {
            continue;
        }
        order.push(at);
        if let Some(below) = children.get(&at) {
            stack.extend(below.iter().rev());
        }
    }
    order.extend((0..nodes.len()).filter(|at| !placed.contains(at)));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn records(input: &str) -> (Vec<(usize, Value)>, &'static str) {
        let mut seen = Vec::new();
        let ended = each_record(&mut input.as_bytes(), &mut |n, record| {
            seen.push((n, record));
            Ok(true)
        })
        .unwrap();
        let how = match ended {
            Ended::Complete => "complete",
            Ended::Stopped => "stopped",
            Ended::Json {
                truncated: true, ..
            } => "truncated",
            Ended::Json { .. } => "not json",
            Ended::Io(_) => "io",
        };
        (seen, how)
    }

    #[test]
    fn arrays_objects_and_streams_of_them() {
        assert_eq!(
            records(" [{\"a\":1}, {\"b\":[2]}]\n"),
            (
                vec![(1, json!({"a": 1})), (2, json!({"b": [2]}))],
                "complete"
            )
        );
        assert_eq!(
            records("{\"a\":1}\n{\"b\":2}\n\n[{\"c\":3}]"),
            (
                vec![
                    (1, json!({"a": 1})),
                    (2, json!({"b": 2})),
                    (3, json!({"c": 3}))
                ],
                "complete"
            )
        );
        assert_eq!(records(""), (vec![], "complete"));
        assert_eq!(
            records("[{\"a\":1}, {\"b\":"),
            (vec![(1, json!({"a": 1}))], "truncated")
        );
        assert_eq!(
            records("[{\"a\":1}, oops]"),
            (vec![(1, json!({"a": 1}))], "not json")
        );
        assert_eq!(
            first_record(&mut "[{\"a\":1}, {".as_bytes()),
            Some(json!({"a": 1}))
        );
        assert_eq!(first_record(&mut "# title".as_bytes()), None);
    }

    #[test]
    fn trees_parents_first() {
        let nodes = [
            ("c", Some("b")),
            ("a", None),
            ("b", Some("a")),
            ("d", Some("a")),
            ("e", Some("missing")),
            ("x", Some("y")),
            ("y", Some("x")),
        ];
        let order: Vec<&str> = tree_order(&nodes).into_iter().map(|i| nodes[i].0).collect();
        assert_eq!(order, ["a", "b", "c", "d", "e", "x", "y"]);
    }
}
