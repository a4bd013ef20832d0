//! Registration of the engine's SQL functions into a rusqlite connection, and
//! the engine's [`Connection`] over rusqlite.

use crate::{api, raw};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SqlValue, ValueRef};
use session_search_engine::db::{Connection, ReadHold, SqlError, Value};
use session_search_engine::drain;
use session_search_engine::sql_functions::{Function, FUNCTIONS};
use session_search_sqlite::{KeptStatements, RawConnection};
use std::borrow::Borrow;
use std::sync::Arc;

/// The engine's view of a rusqlite connection: borrowed, or owned (a
/// background drain's own connection).
pub(crate) struct Rusqlite<C: Borrow<rusqlite::Connection>> {
    conn: C,
    /// Whether a search may start a background drain of the database.
    drains: bool,
}

impl<C: Borrow<rusqlite::Connection>> Rusqlite<C> {
    /// `conn`, starting background drains when `drains` says so.
    pub(crate) fn new(conn: C, drains: bool) -> Rusqlite<C> {
        Rusqlite { conn, drains }
    }
}

/// A rusqlite error as the engine's: its extended code and message.
fn sql_error(e: rusqlite::Error) -> SqlError {
    SqlError {
        code: e.sqlite_error().map_or(1, |f| f.extended_code),
        message: e.to_string(),
    }
}

/// A SQLite value as the engine's; text that is not UTF-8 as a blob.
fn from_sql(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Integer(i),
        ValueRef::Real(r) => Value::Real(r),
        ValueRef::Text(t) => match std::str::from_utf8(t) {
            Ok(text) => Value::Text(text.to_owned()),
            Err(_) => Value::Blob(t.to_vec()),
        },
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
    }
}

/// `value` as rusqlite's, its text or bytes moved, not copied (a function's
/// result may be a whole message).
fn to_sql(value: Value) -> SqlValue {
    match value {
        Value::Null => SqlValue::Null,
        Value::Integer(i) => SqlValue::Integer(i),
        Value::Real(r) => SqlValue::Real(r),
        Value::Text(t) => SqlValue::Text(t),
        Value::Blob(b) => SqlValue::Blob(b),
    }
}

impl<C: Borrow<rusqlite::Connection>> Connection for Rusqlite<C> {
    /// As the extension's (the shared layer's).
    fn hold_read(&self) -> ReadHold<'_> {
        raw(self.conn.borrow()).hold()
    }

    fn execute_batch(&self, sql: &str) -> Result<(), SqlError> {
        self.conn.borrow().execute_batch(sql).map_err(sql_error)
    }

    fn query_each(
        &self,
        sql: &str,
        params: &[Value],
        each: &mut dyn FnMut(Vec<Value>),
    ) -> Result<(), SqlError> {
        let mut stmt = self.conn.borrow().prepare_cached(sql).map_err(sql_error)?;
        let columns = stmt.column_count();
        let params: Vec<SqlValue> = params.iter().cloned().map(to_sql).collect();
        let mut rows = stmt
            .query(rusqlite::params_from_iter(params))
            .map_err(sql_error)?;
        while let Some(row) = rows.next().map_err(sql_error)? {
            each(
                (0..columns)
                    .map(|i| row.get_ref(i).map(from_sql))
                    .collect::<Result<_, _>>()
                    .map_err(sql_error)?,
            );
        }
        Ok(())
    }

    /// Starts a drain for a file database opened read-write, unless this
    /// connection's store turned background reconciliation off.
    fn reconcile_elsewhere(&self) -> bool {
        self.drains
            && raw(self.conn.borrow())
                .drain_target()
                .is_some_and(|file| start_drain(&file))
    }
}

/// Starts a background drain of `file`, on a connection of its own.
fn start_drain(file: &str) -> bool {
    let owned = file.to_owned();
    drain::start(file, move || {
        let conn = crate::connect(rusqlite::Connection::open(&owned).ok()?, false).ok()?;
        conn.busy_timeout(drain::BUSY_TIMEOUT).ok()?;
        Some(Rusqlite::new(conn, false))
    })
}

/// Registers every function of [`FUNCTIONS`] into `conn`, with the table
/// that lets them keep their statements between calls (see
/// [`KeptStatements`]); their searches start background drains when
/// `drains` says so.
pub(crate) fn register_functions(
    conn: &rusqlite::Connection,
    drains: bool,
) -> rusqlite::Result<()> {
    let kept = KeptStatements::for_connection(api());
    for function in FUNCTIONS {
        let mut flags = FunctionFlags::SQLITE_UTF8;
        if function.deterministic {
            flags |= FunctionFlags::SQLITE_DETERMINISTIC;
        }
        for &arity in function.arities {
            let kept = Arc::clone(&kept);
            conn.create_scalar_function(function.name, arity, flags, move |ctx| {
                call(function, ctx, drains, &kept)
            })?;
        }
    }
    raw(conn).connect_keeper(&kept).map_err(|e| {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(e.code), Some(e.message))
    })
}

/// Runs `function` on the connection of the call, keeping its statements in
/// `kept`.
fn call(
    function: &Function,
    ctx: &Context<'_>,
    drains: bool,
    kept: &Arc<KeptStatements>,
) -> rusqlite::Result<SqlValue> {
    let args: Vec<Value> = (0..ctx.len()).map(|i| from_sql(ctx.get_raw(i))).collect();
    // SAFETY: the connection reference is used only during this call, while
    // SQLite keeps the connection open.
    let conn = unsafe { ctx.get_connection() }?;
    let drain = drains.then_some(start_drain as fn(&str) -> bool);
    // SAFETY: the handle is of the connection of this call, open for it, of
    // the library of `api()`; the value is dropped before the call returns.
    let conn = unsafe { RawConnection::of_call(api(), conn.handle().cast(), kept, drain) };
    (function.body)(&conn, &args)
        .map(to_sql)
        .map_err(|message| rusqlite::Error::UserFunctionError(message.into()))
}
