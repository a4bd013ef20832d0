//! Every SQL function of session-search, as one table of plain Rust
//! functions over [`Value`]s. The extension and the wrapper walk
//! [`FUNCTIONS`] and register each entry the same way; they only convert
//! SQLite values to and from [`Value`] and hand over a [`Connection`].

use crate::content;
use crate::db::{Connection, Value};
use crate::history::{self, HistoryOptions};
use crate::index_tokens::encoding::SCOPE_MARKER;
use crate::list::{self, ListOptions};
use crate::redact::{Redactor, Settings};
use crate::search::{self, SearchOptions};
use crate::store::{self, IndexingMode};
use crate::tokenizer::{ArgumentError, Options, Tokenizer, TOKENIZER_VERSION};
use serde_json::json;
use std::cmp::Ordering;

/// The body of a SQL function: arguments in, result or error message out.
pub type Body = fn(&dyn Connection, &[Value]) -> Result<Value, String>;

/// One SQL function.
pub struct Function {
    /// Its SQL name.
    pub name: &'static str,
    /// The argument counts it accepts.
    pub arities: &'static [i32],
    /// Same result for the same arguments, so usable in triggers, indexes
    /// and replicated statements.
    pub deterministic: bool,
    /// What it does.
    pub body: Body,
}

/// All SQL functions, in the order docs/sql.md documents them.
pub const FUNCTIONS: &[Function] = &[
    Function {
        name: "sessions_version",
        arities: &[0],
        deterministic: true,
        body: |_, _| Ok(Value::Text(version())),
    },
    Function {
        name: "sessions_init",
        arities: &[0],
        deterministic: false,
        body: |db, _| json_text(store::init(db)),
    },
    Function {
        name: "sessions_reconcile",
        arities: &[1],
        deterministic: false,
        body: sessions_reconcile,
    },
    Function {
        name: "sessions_status",
        arities: &[0],
        deterministic: false,
        body: |db, _| json_text(store::status(db)),
    },
    Function {
        name: "sessions_set_indexing",
        arities: &[1],
        deterministic: false,
        body: sessions_set_indexing,
    },
    Function {
        name: "sessions_set_redaction",
        arities: &[1],
        deterministic: false,
        body: sessions_set_redaction,
    },
    Function {
        name: "sessions_history",
        arities: &[2],
        deterministic: false,
        body: sessions_history,
    },
    Function {
        name: "sessions_search",
        arities: &[2],
        deterministic: false,
        body: sessions_search,
    },
    Function {
        name: "sessions_list",
        arities: &[1],
        deterministic: false,
        body: sessions_list,
    },
    Function {
        name: "sessions_text",
        arities: &[1, 2, 3],
        deterministic: true,
        body: sessions_text,
    },
    Function {
        name: "sessions_tokenize",
        arities: &[1, 2],
        deterministic: true,
        body: sessions_tokenize,
    },
    Function {
        name: "sessions_is_utf8",
        arities: &[1],
        deterministic: true,
        // Both hosts hand text that is not UTF-8 over as a blob.
        body: |_, args| Ok(Value::Integer(matches!(args[0], Value::Text(_)).into())),
    },
];

/// A store result as JSON text, or its error message.
fn json_text<T: serde::Serialize>(result: store::Result<T>) -> Result<Value, String> {
    let value = result.map_err(|e| e.to_string())?;
    serde_json::to_string(&value)
        .map(Value::Text)
        .map_err(|e| e.to_string())
}

/// `sessions_version()`: the crate version and the tokenizer version, as JSON,
/// e.g. `{"tokenizer":1,"version":"0.1.0"}`.
pub fn version() -> String {
    json!({ "version": crate::VERSION, "tokenizer": TOKENIZER_VERSION }).to_string()
}

fn sessions_reconcile(db: &dyn Connection, args: &[Value]) -> Result<Value, String> {
    let max_rows = args[0]
        .as_i64()
        .ok_or("sessions_reconcile: max_rows must be a positive integer")?;
    json_text(store::reconcile(db, max_rows))
}

fn sessions_set_indexing(db: &dyn Connection, args: &[Value]) -> Result<Value, String> {
    let mode = args[0]
        .as_str()
        .ok_or("sessions_set_indexing: mode must be 'immediate' or 'deferred'")?;
    let mode = IndexingMode::parse(mode).map_err(|e| e.to_string())?;
    store::set_indexing(db, mode)
        .map(|previous| Value::Text(previous.name().to_owned()))
        .map_err(|e| e.to_string())
}

fn sessions_search(db: &dyn Connection, args: &[Value]) -> Result<Value, String> {
    let query = args[0]
        .as_str()
        .ok_or("sessions_search: query must be text")?;
    let options: SearchOptions = options(&args[1], "sessions_search")?;
    json_text(search::search(db, query, &options))
}

fn sessions_history(db: &dyn Connection, args: &[Value]) -> Result<Value, String> {
    let session_key = args[0]
        .as_str()
        .ok_or("sessions_history: session_key must be text")?;
    let options: HistoryOptions = options(&args[1], "sessions_history")?;
    json_text(history::history(db, session_key, &options))
}

fn sessions_list(db: &dyn Connection, args: &[Value]) -> Result<Value, String> {
    let options: ListOptions = options(&args[0], "sessions_list")?;
    json_text(list::list(db, &options))
}

/// Parses a JSON options argument.
fn options<T: serde::de::DeserializeOwned>(value: &Value, function: &str) -> Result<T, String> {
    let text = value.as_str().ok_or_else(|| {
        format!("{function}: options must be a JSON object such as '{{\"caller\":\"…\"}}'")
    })?;
    serde_json::from_str(text).map_err(|e| format!("{function}: invalid options: {e}"))
}

/// `sessions_text(content [, settings [, tokenizer_version]])`: the
/// searchable text of a message's content (see
/// [`content::searchable_text`]), redacted, or NULL. `settings` are the
/// stored redaction settings ([`Settings`]) and `tokenizer_version` the
/// index's, which the triggers pass; without settings only the default
/// patterns apply. Settings of an earlier default set, or an earlier
/// tokenizer version, give NULL: the index was built by an earlier version
/// and is emptied by its rebuild before it is read, so a host's write after
/// an upgrade goes on, and the rebuild indexes the message; a later set or
/// version is an error, as this build must not write a newer one's index.
/// A text starting with the scope column's marker gets a space before it,
/// so that the tokenizer never takes a message for a scope
/// ([`SCOPE_MARKER`]).
fn sessions_text(_: &dyn Connection, args: &[Value]) -> Result<Value, String> {
    let Some(content) = args[0].as_bytes() else {
        return Ok(Value::Null);
    };
    let Some(text) = content::searchable_text(&content) else {
        return Ok(Value::Null);
    };
    if let Some(version) = args.get(2) {
        let version = version.as_i64().ok_or(
            "sessions_text: the tokenizer version must be an integer; run SELECT sessions_init()",
        )?;
        match version.cmp(&i64::from(TOKENIZER_VERSION)) {
            Ordering::Less => return Ok(Value::Null),
            Ordering::Equal => {}
            Ordering::Greater => {
                return Err(format!(
                    "sessions_text: the index was built with tokenizer version {version} by a newer session-search, and this one has version {TOKENIZER_VERSION}; load the newer extension to write here"
                ))
            }
        }
    }
    let redacted = match args.get(1) {
        None => Redactor::new::<&str>(&[])?.redact(&text),
        Some(Value::Text(settings)) => {
            match Settings::indexing_redactor(settings)
                .map_err(|e| format!("sessions_text: {e}"))?
            {
                Some(redactor) => redactor.redact(&text),
                None => return Ok(Value::Null),
            }
        }
        Some(_) => {
            return Err(
                "sessions_text: the redaction settings are missing; run SELECT sessions_init()"
                    .into(),
            )
        }
    };
    if redacted.starts_with(SCOPE_MARKER) {
        return Ok(Value::Text(format!(" {redacted}")));
    }
    Ok(Value::Text(redacted.into_owned()))
}

fn sessions_set_redaction(db: &dyn Connection, args: &[Value]) -> Result<Value, String> {
    let patterns: Vec<String> = args[0]
        .as_str()
        .and_then(|json| serde_json::from_str(json).ok())
        .ok_or(
            r#"sessions_set_redaction: patterns must be a JSON array of regular expressions, such as '["ACME-[0-9]{6}"]'"#,
        )?;
    json_text(store::set_redaction(db, patterns))
}

fn sessions_tokenize(_: &dyn Connection, args: &[Value]) -> Result<Value, String> {
    let input = args[0].as_bytes().unwrap_or_default();
    let options = match args.get(1) {
        None | Some(Value::Null) => "",
        Some(Value::Text(options)) => options,
        Some(_) => return Err("sessions_tokenize: args must be text such as 'cjk 1'".into()),
    };
    tokenize(&input, options)
        .map(Value::Text)
        .map_err(|e| e.to_string())
}

/// `sessions_tokenize(text [, args])`: the tokens of `text` under the
/// tokenizer arguments `args` (e.g. `'cjk 1'`), as a JSON array of
/// `{"token","start","end"}` objects, one per FTS5 position. Offsets are bytes
/// of the UTF-8 text. Each token is written out as it is made, so a long
/// text costs memory for its JSON, not for a JSON value per token.
///
/// # Errors
///
/// An [`ArgumentError`] naming an unknown or malformed argument.
pub fn tokenize(text: &[u8], args: &str) -> Result<String, ArgumentError> {
    let args: Vec<&str> = args.split_whitespace().collect();
    let mut tokenizer = Tokenizer::new(Options::parse(&args)?);
    let mut json = String::from("[");
    let _ = tokenizer.tokenize::<()>(text, &mut |token| {
        if json.len() > 1 {
            json.push(',');
        }
        let token = json!({ "token": token.text, "start": token.start, "end": token.end });
        json.push_str(&token.to_string());
        Ok(())
    });
    json.push(']');
    Ok(json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_names_both_versions() {
        let v: serde_json::Value = serde_json::from_str(&version()).unwrap();
        assert_eq!(v["version"], crate::VERSION);
        assert_eq!(v["tokenizer"], TOKENIZER_VERSION);
    }

    #[test]
    fn tokenize_reports_tokens_with_byte_offsets() {
        let out = tokenize("Café 東京!".as_bytes(), "cjk 1").unwrap();
        assert_eq!(
            out,
            r#"[{"end":5,"start":0,"token":"cafe"},{"end":9,"start":6,"token":"東"},{"end":12,"start":9,"token":"京"}]"#
        );
    }

    #[test]
    fn tokenize_names_the_bad_argument() {
        let err = tokenize(b"x", "cjk 1 stemmer porter").unwrap_err();
        assert!(err.to_string().contains("'stemmer'"), "{err}");
    }

    #[test]
    fn function_names_are_unique() {
        let mut names: Vec<_> = FUNCTIONS.iter().map(|f| f.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), FUNCTIONS.len());
    }
}
