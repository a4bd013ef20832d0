//! The little the engine needs from a SQLite connection, so its logic is
//! written once for both bindings: the extension implements [`Connection`]
//! over the loadable-extension API, the wrapper over rusqlite.

use std::fmt;

/// A value bound to or read from a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// A 64-bit integer.
    Integer(i64),
    /// A double.
    Real(f64),
    /// Valid UTF-8 text (TEXT holding invalid UTF-8 arrives as a blob).
    Text(String),
    /// A blob.
    Blob(Vec<u8>),
}

impl Value {
    /// The integer, if this is one.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Integer(i) => Some(*i),
            _ => None,
        }
    }

    /// The text, if this is text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is an integer or a real.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Integer(i) => Some(*i as f64),
            Value::Real(r) => Some(*r),
            _ => None,
        }
    }

    /// The bytes, if this is a blob.
    pub fn as_blob(&self) -> Option<&[u8]> {
        match self {
            Value::Blob(b) => Some(b),
            _ => None,
        }
    }

    /// The bytes of text or a blob, numbers as SQLite renders them as
    /// text; `None` for NULL.
    pub fn as_bytes(&self) -> Option<std::borrow::Cow<'_, [u8]>> {
        use std::borrow::Cow;
        match self {
            Value::Null => None,
            Value::Integer(i) => Some(Cow::Owned(i.to_string().into_bytes())),
            Value::Real(r) => Some(Cow::Owned(real_text(*r).into_bytes())),
            Value::Text(s) => Some(Cow::Borrowed(s.as_bytes())),
            Value::Blob(b) => Some(Cow::Borrowed(b)),
        }
    }
}

/// A double as SQLite renders it as text (`printf("%!.15g")`): 15
/// significant digits, `.0` kept on whole numbers, `1.0e+20` style exponents
/// outside 1e-4 ..= 1e15.
pub fn real_text(r: f64) -> String {
    if !r.is_finite() {
        return if r.is_nan() {
            String::new()
        } else if r > 0.0 {
            "Inf".into()
        } else {
            "-Inf".into()
        };
    }
    let scientific = format!("{r:.14e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let trim = |digits: &str| -> String {
        let digits = digits.trim_end_matches('0');
        if digits.ends_with('.') {
            format!("{digits}0")
        } else {
            digits.to_owned()
        }
    };
    if !(-4..15).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mantissa), exponent.abs());
    }
    let decimals = usize::try_from(14 - exponent).unwrap_or(0);
    trim(&format!("{r:.decimals$}"))
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Integer(i)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_owned())
    }
}

/// An error SQLite reported: its extended result code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError {
    /// SQLite's extended result code (`SQLITE_ERROR` = 1 when unknown).
    pub code: i32,
    /// SQLite's message.
    pub message: String,
}

impl SqlError {
    /// An error with a message of our own (`SQLITE_ERROR`).
    pub fn new(message: impl Into<String>) -> SqlError {
        SqlError {
            code: 1,
            message: message.into(),
        }
    }

    /// Another connection holds the lock (`SQLITE_BUSY` and its extended
    /// codes): the operation may succeed if retried.
    pub fn is_busy(&self) -> bool {
        self.code & 0xff == 5
    }

    /// The connection or database is read-only (`SQLITE_READONLY`).
    pub fn is_read_only(&self) -> bool {
        self.code & 0xff == 8
    }
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SqlError {}

/// A parameter bound by name, as the SQL writes it (`":caller"`).
pub type Param<'a> = (&'a str, Value);

/// The names of the parameters of `sql` in the order SQLite numbers them:
/// `?N` takes slot N (named `?N`), a `:name`, `@name` or `$name` the slot
/// after the largest taken when first seen; a slot no parameter takes is
/// empty. Comments, string literals and quoted identifiers are skipped.
fn parameter_names(sql: &str) -> Vec<&str> {
    let bytes = sql.as_bytes();
    let end_of = |from: usize, pattern: &str| {
        sql[from..]
            .find(pattern)
            .map_or(bytes.len(), |at| from + at + pattern.len())
    };
    let word_end = |from: usize, digits_only: bool| {
        let mut j = from;
        while j < bytes.len()
            && (bytes[j].is_ascii_digit()
                || (!digits_only && (bytes[j].is_ascii_alphabetic() || bytes[j] == b'_')))
        {
            j += 1;
        }
        j
    };
    let mut names: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        i = match (bytes[i], bytes.get(i + 1)) {
            (b'-', Some(b'-')) => end_of(i, "\n"),
            (b'/', Some(b'*')) => end_of(i + 2, "*/"),
            (b'\'', _) => end_of(i + 1, "'"),
            (b'"', _) => end_of(i + 1, "\""),
            (b'`', _) => end_of(i + 1, "`"),
            (b'[', _) => end_of(i + 1, "]"),
            (b'?', _) => {
                let j = word_end(i + 1, true);
                if let Ok(n) = sql[i + 1..j].parse::<usize>() {
                    if names.len() < n {
                        names.resize(n, "");
                    }
                    names[n - 1] = &sql[i..j];
                }
                j
            }
            (b':' | b'@' | b'$', _) => {
                let j = word_end(i + 1, false);
                if j > i + 1 && !names.contains(&&sql[i..j]) {
                    names.push(&sql[i..j]);
                }
                j.max(i + 1)
            }
            _ => i + 1,
        };
    }
    names
}

/// The values of `params` in the order of the parameters of `sql` (see
/// [`Connection::query_named_each`]); a slot no parameter takes is NULL.
///
/// # Errors
///
/// A parameter of `sql` that `params` has no value for.
pub fn positional(sql: &str, params: &[Param<'_>]) -> Result<Vec<Value>, SqlError> {
    parameter_names(sql)
        .into_iter()
        .map(|name| match params.iter().find(|(n, _)| *n == name) {
            Some((_, value)) => Ok(value.clone()),
            None if name.is_empty() => Ok(Value::Null),
            None => Err(SqlError::new(format!("no value for parameter {name}"))),
        })
        .collect()
}

/// A result row read by column name.
pub struct Row<'c> {
    columns: &'c [&'c str],
    values: Vec<Value>,
}

impl<'c> Row<'c> {
    /// `values` under the names of `columns`, the statement's result
    /// columns in order.
    pub fn new(columns: &'c [&'c str], values: Vec<Value>) -> Row<'c> {
        Row { columns, values }
    }

    /// Takes the value of column `name` (NULL when the statement has no
    /// such column: one row type is read from statements with fewer).
    pub fn take(&mut self, name: &str) -> Value {
        let at = self.columns.iter().position(|c| *c == name);
        at.and_then(|at| self.values.get_mut(at))
            .map_or(Value::Null, |value| std::mem::replace(value, Value::Null))
    }
}

/// A statement that keeps the main database's read transaction open while
/// it rests on its first row (see [`Connection::hold_read`]).
pub const HOLD_READ_SQL: &str = "SELECT 1 FROM sqlite_master";

/// The read transaction of [`Connection::hold_read`], ended when dropped.
pub struct ReadHold<'c> {
    /// Kept only to be dropped with the hold.
    _guard: Option<Box<dyn Held + 'c>>,
}

impl<'c> ReadHold<'c> {
    /// A hold kept by `guard` (which ends it when dropped).
    pub fn new(guard: impl Held + 'c) -> ReadHold<'c> {
        ReadHold {
            _guard: Some(Box::new(guard)),
        }
    }

    /// A hold of nothing: each statement reads on its own.
    pub fn none() -> ReadHold<'c> {
        ReadHold { _guard: None }
    }
}

/// What a binding keeps to hold a read transaction (a statement on its
/// first row); dropping it ends the hold.
pub trait Held {}

/// A connection with the session-search functions registered.
pub trait Connection {
    /// Runs `sql`, which may hold several statements without parameters.
    fn execute_batch(&self, sql: &str) -> Result<(), SqlError>;

    /// Runs one statement with `params` bound to `?1`, `?2`, … and hands
    /// each result row to `each` as it is read, so that a caller keeping a
    /// few of many rows holds only those.
    fn query_each(
        &self,
        sql: &str,
        params: &[Value],
        each: &mut dyn FnMut(Vec<Value>),
    ) -> Result<(), SqlError>;

    /// Runs one statement with `params` bound to `?1`, `?2`, … and returns all
    /// result rows.
    fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Vec<Value>>, SqlError> {
        let mut rows = Vec::new();
        self.query_each(sql, params, &mut |row| rows.push(row))?;
        Ok(rows)
    }

    /// [`Connection::query_each`] with `params` bound by name: each
    /// parameter of `sql` (`:name`, `@name`, `$name` or `?N`) takes the
    /// value given under its name; values no parameter names are unused.
    fn query_named_each(
        &self,
        sql: &str,
        params: &[Param<'_>],
        each: &mut dyn FnMut(Vec<Value>),
    ) -> Result<(), SqlError> {
        self.query_each(sql, &positional(sql, params)?, each)
    }

    /// [`Connection::query`] with `params` bound by name (see
    /// [`Connection::query_named_each`]).
    fn query_named(&self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Vec<Value>>, SqlError> {
        self.query(sql, &positional(sql, params)?)
    }

    /// The first column of the first row, or `Null` when there is no row.
    fn query_value(&self, sql: &str, params: &[Value]) -> Result<Value, SqlError> {
        Ok(self
            .query(sql, params)?
            .into_iter()
            .next()
            .and_then(|row| row.into_iter().next())
            .unwrap_or(Value::Null))
    }

    /// Opens a read transaction on the main database, unless one is open,
    /// and keeps it until the hold is dropped (with [`HOLD_READ_SQL`] on its
    /// first row): the statements run meanwhile share one snapshot instead
    /// of each taking and releasing the read lock. Writes on this
    /// connection still work; ones by another connection are not seen
    /// until it ends. By default nothing is held.
    fn hold_read(&self) -> ReadHold<'_> {
        ReadHold::none()
    }

    /// Starts a [`crate::drain`] of this database's reconciliation backlog
    /// on another connection (called through
    /// [`crate::store::request_drain`], in WAL mode only), and says whether
    /// one runs. A search then leaves the
    /// work to it instead of doing a slice itself. A binding starts none
    /// when this connection reaches the file through a VFS other than the
    /// process's default, with which the drain's connection opens it: the
    /// two would not see each other's locks (or the other's encryption). By
    /// default nothing is started: a database only this connection can
    /// reach (in memory), or a binding without threads.
    fn reconcile_elsewhere(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::{parameter_names, positional, real_text, Value};

    #[test]
    fn parameters_are_numbered_as_sqlite_numbers_them() {
        let sql = "-- :not ?9\nSELECT ':no', \"@no\", [$no], `:no`, ?2, :b, /* @no */ @c, :b, $d";
        assert_eq!(parameter_names(sql), ["", "?2", ":b", "@c", "$d"]);
        let values = positional(
            sql,
            &[
                ("$d", 4.into()),
                (":b", 2.into()),
                ("@c", 3.into()),
                ("?2", 1.into()),
                (":x", 0.into()),
            ],
        )
        .unwrap();
        assert_eq!(
            values,
            [Value::Null, 1.into(), 2.into(), 3.into(), 4.into()]
        );
        assert!(positional("SELECT :a", &[]).is_err());
    }

    #[test]
    fn reals_render_as_sqlite_renders_them() {
        assert_eq!(real_text(1e20), "1.0e+20");
        assert_eq!(real_text(123456789012.0), "123456789012.0");
        assert_eq!(real_text(0.1), "0.1");
        assert_eq!(real_text(-2.5), "-2.5");
        assert_eq!(real_text(1.5e-5), "1.5e-05");
        assert_eq!(real_text(3.0), "3.0");
    }
}
