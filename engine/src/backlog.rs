//! Indexing a slice of the backlog on two threads.
//!
//! Indexing a message is three steps of similar cost: redacting its text,
//! making its tokens (words, pairs, prefixes, tier markers), and FTS5
//! adding them to its index and writing it out. A slice reads its messages
//! here and hands each to a second thread, which redacts it and makes its
//! tokens while this one inserts the messages before; FTS5 then gets the
//! tokens made ahead ([`prepared`]). The slice takes about as long as the
//! inserts, rather than the sum of the three. Without a second thread, the
//! slice does all of it on this one.

use crate::content;
use crate::db::{Connection, Value};
use crate::error::{Error, Result};
use crate::index_tokens::prepared::{self, Prepared};
use crate::index_tokens::threaded::SECOND_THREAD_BYTES;
use crate::meta::meta;
use crate::redact::{Redactor, Settings};
use crate::tokenizer::{Options, Tokenizer};
use std::sync::{mpsc, Arc};

/// The messages of a slice: up to `?1` backlog nodes, newest first.
const SLICE_SQL: &str = include_str!("../sql/reconcile_index.sql");

/// Adds one message to the index.
const INSERT_SQL: &str = "INSERT INTO session_search_fts(rowid, text, scope) VALUES (?1, ?2, ?3)";

/// The options of the index's tokenizer, `tokenize = 'sessions cjk 1
/// markers 1'` in `sql/schema.sql`: tokens made ahead with other options
/// would not be taken.
pub const INDEX_TOKENIZER: Options = Options {
    remove_diacritics: true,
    cjk: true,
    markers: true,
    pairs: true,
    prefixes: true,
    tiers: true,
};

/// Messages handed to the second thread together, at most, and their
/// bytes of content (a longer message goes alone): handing them over one
/// by one would wake a thread for each.
const BATCH_MESSAGES: usize = 32;
const BATCH_BYTES: usize = 256 << 10;

/// Batches handed over and not yet inserted, at most: enough to keep the
/// second thread busy, few enough that the memory in transit stays small.
const BATCHES_AHEAD: usize = 3;

/// A message of the slice as read: its index rowid, content and scope.
struct Message {
    rowid: Value,
    content: Value,
    scope: Value,
}

/// The text the index gets for a message.
enum Text {
    /// Nothing to search.
    Nothing,
    /// Redacted, to be tokenized by FTS5's call to the tokenizer: a text
    /// long enough to be tokenized on threads of its own.
    Redacted(String),
    /// Redacted, with its tokens.
    Prepared(Prepared),
}

/// A message ready to be inserted.
struct Ready {
    rowid: Value,
    text: Text,
    scope: Value,
}

/// Indexes the messages of up to `max_rows` backlog nodes (see
/// `sql/reconcile_index.sql`), redacted with the stored settings, in one
/// pass on two threads. Runs in the slice's transaction, after
/// `ensure_index_current`; the nodes are marked indexed afterwards.
pub(crate) fn index(db: &dyn Connection, max_rows: i64) -> Result<()> {
    let redactor = indexing_redactor(db)?;
    let prepare = |tokenizer: &mut Tokenizer, message: Message| Ready {
        rowid: message.rowid,
        text: text_of(&message.content, redactor.as_deref(), tokenizer),
        scope: message.scope,
    };
    let (to_second, read) = mpsc::channel::<Vec<Message>>();
    let (to_first, ready) = mpsc::channel::<Vec<Ready>>();
    std::thread::scope(|scope| {
        let second = std::thread::Builder::new()
            .name("session-search-index".into())
            .spawn_scoped(scope, {
                let prepare = &prepare;
                move || {
                    let mut tokenizer = Tokenizer::new(INDEX_TOKENIZER);
                    for batch in read {
                        let batch = batch.into_iter();
                        let made = batch.map(|m| prepare(&mut tokenizer, m)).collect();
                        // Fails only when the first thread has stopped.
                        if to_first.send(made).is_err() {
                            return;
                        }
                    }
                }
            });
        // Without a second thread, everything is done on this one.
        let mut alone = second.is_err().then(|| Tokenizer::new(INDEX_TOKENIZER));
        let insert_batch = || -> Result<()> {
            let batch = ready.recv().map_err(|_| stopped())?;
            batch.into_iter().try_for_each(|ready| insert(db, ready))
        };
        let mut batch = Vec::new();
        let mut batch_bytes = 0;
        let mut ahead = 0;
        let hand_over = |batch: Vec<Message>, ahead: &mut usize| -> Result<()> {
            to_second.send(batch).map_err(|_| stopped())?;
            *ahead += 1;
            while *ahead > BATCHES_AHEAD {
                *ahead -= 1;
                insert_batch()?;
            }
            Ok(())
        };
        let mut failed = None;
        let read_all = db.query_each(SLICE_SQL, &[max_rows.into()], &mut |row| {
            if failed.is_some() {
                return;
            }
            let mut row = row.into_iter();
            let mut column = || row.next().unwrap_or(Value::Null);
            let message = Message {
                rowid: column(),
                content: column(),
                scope: column(),
            };
            if let Some(tokenizer) = &mut alone {
                failed = insert(db, prepare(tokenizer, message)).err();
                return;
            }
            batch_bytes += message.content.as_bytes().map_or(0, |c| c.len());
            batch.push(message);
            if batch.len() >= BATCH_MESSAGES || batch_bytes >= BATCH_BYTES {
                batch_bytes = 0;
                failed = hand_over(std::mem::take(&mut batch), &mut ahead).err();
            }
        });
        if let Err(e) = read_all {
            failed.get_or_insert(e.into());
        }
        if failed.is_none() && !batch.is_empty() {
            failed = hand_over(batch, &mut ahead).err();
        }
        // The second thread ends once it has made what it was handed.
        drop(to_second);
        while failed.is_none() && ahead > 0 {
            ahead -= 1;
            failed = insert_batch().err();
        }
        if second.is_ok_and(|second| second.join().is_err()) {
            failed.get_or_insert_with(stopped);
        }
        failed.map_or(Ok(()), Err)
    })
}

/// The redactor of the stored settings; `None` when the index was built
/// with an earlier default set (its rebuild empties it before it is read:
/// the messages are then given no text).
fn indexing_redactor(db: &dyn Connection) -> Result<Option<Arc<Redactor>>> {
    match meta(db, "redaction")? {
        Value::Text(settings) => Settings::indexing_redactor(&settings)
            .map_err(|e| Error::Schema(format!("reconciliation: {e}"))),
        _ => Err(Error::Schema(
            "reconciliation: the redaction settings are missing; run SELECT sessions_init()".into(),
        )),
    }
}

/// What the index gets for `content` (see [`content::indexed_text`]),
/// with its tokens unless it is long enough for threads of its own.
fn text_of(content: &Value, redactor: Option<&Redactor>, tokenizer: &mut Tokenizer) -> Text {
    let (Some(redactor), Some(bytes)) = (redactor, content.as_bytes()) else {
        return Text::Nothing;
    };
    let Some(searchable) = content::searchable_text(&bytes) else {
        return Text::Nothing;
    };
    let text = content::indexed_text(&searchable, redactor);
    match text.len() < SECOND_THREAD_BYTES {
        true => Text::Prepared(Prepared::new(tokenizer, text)),
        false => Text::Redacted(text),
    }
}

/// Inserts a message into the index, its tokens offered to the tokenizer
/// FTS5 calls.
fn insert(db: &dyn Connection, ready: Ready) -> Result<()> {
    let Ready { rowid, text, scope } = ready;
    match text {
        Text::Nothing => db.query(INSERT_SQL, &[rowid, Value::Null, scope])?,
        Text::Redacted(text) => db.query(INSERT_SQL, &[rowid, Value::Text(text), scope])?,
        Text::Prepared(prepared) => {
            let text = Value::Text(prepared.text().to_owned());
            prepared::offer(prepared, || db.query(INSERT_SQL, &[rowid, text, scope]))?
        }
    };
    Ok(())
}

/// The error when the second thread stopped before its work was done (it
/// panicked).
fn stopped() -> Error {
    Error::Schema("reconciliation: its second thread stopped unexpectedly".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The options the index's tokenizer is created with in the schema.
    #[test]
    fn tokens_are_made_ahead_with_the_options_of_the_index() {
        let schema = include_str!("../sql/schema.sql");
        let tokenize = schema
            .split("tokenize = '")
            .nth(1)
            .and_then(|rest| rest.split('\'').next())
            .expect("schema.sql gives the index a tokenizer");
        let mut words = tokenize.split_whitespace();
        assert_eq!(words.next(), Some("sessions"));
        let args: Vec<&str> = words.collect();
        assert_eq!(Options::parse(&args).unwrap(), INDEX_TOKENIZER);
    }
}
