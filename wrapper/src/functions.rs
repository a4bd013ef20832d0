//! Registration of the engine's SQL functions into a rusqlite connection, and
//! the engine's [`Connection`] over rusqlite.

use crate::kept::{register_keeper, KeptStatements};
use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value as SqlValue, ValueRef};
use session_search_engine::db::{Connection, Held, ReadHold, SqlError, Value, HOLD_READ_SQL};
use session_search_engine::drain;
use session_search_engine::sql_functions::{Function, FUNCTIONS};
use std::sync::Arc;

/// The engine's view of a rusqlite connection.
pub(crate) struct Rusqlite<'a> {
    conn: &'a rusqlite::Connection,
    /// Whether a search may start a background drain of the database.
    drains: bool,
}

impl<'a> Rusqlite<'a> {
    /// `conn`, starting background drains when `drains` says so.
    pub(crate) fn new(conn: &'a rusqlite::Connection, drains: bool) -> Rusqlite<'a> {
        Rusqlite { conn, drains }
    }
}

/// The connection of a background drain, which starts none itself.
struct DrainConnection(rusqlite::Connection);

impl Connection for DrainConnection {
    fn execute_batch(&self, sql: &str) -> Result<(), SqlError> {
        Rusqlite::new(&self.0, false).execute_batch(sql)
    }

    fn query_each(
        &self,
        sql: &str,
        params: &[Value],
        each: &mut dyn FnMut(Vec<Value>),
    ) -> Result<(), SqlError> {
        Rusqlite::new(&self.0, false).query_each(sql, params, each)
    }
}

fn sql_error(e: rusqlite::Error) -> SqlError {
    SqlError {
        code: e.sqlite_error().map_or(1, |f| f.extended_code),
        message: e.to_string(),
    }
}

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

/// A statement of [`HOLD_READ_SQL`] resting on its first row, finalized
/// (ending the hold) when dropped.
struct HeldRead(*mut rusqlite::ffi::sqlite3_stmt);

impl Held for HeldRead {}

impl Drop for HeldRead {
    fn drop(&mut self) {
        // SAFETY: the statement was prepared by `hold_read` and is
        // finalized once, here.
        unsafe { rusqlite::ffi::sqlite3_finalize(self.0) };
    }
}

impl Connection for Rusqlite<'_> {
    /// Steps [`HOLD_READ_SQL`] to its first row; nothing is held when it
    /// has none or fails. (Through ffi: a rusqlite statement resting on a
    /// row borrows the statement, which the hold would then have to own.)
    fn hold_read(&self) -> ReadHold<'_> {
        let sql = std::ffi::CString::new(HOLD_READ_SQL).unwrap_or_default();
        let mut stmt = std::ptr::null_mut();
        // SAFETY: the handle is this open connection's, `sql` is
        // NUL-terminated, and SQLite writes the statement (or null) into
        // `stmt`; a statement that is not left resting on a row is
        // finalized at once by dropping its `HeldRead`.
        unsafe {
            let db = self.conn.handle();
            if rusqlite::ffi::sqlite3_prepare_v2(
                db,
                sql.as_ptr(),
                -1,
                &mut stmt,
                std::ptr::null_mut(),
            ) != rusqlite::ffi::SQLITE_OK
                || stmt.is_null()
            {
                rusqlite::ffi::sqlite3_finalize(stmt);
                return ReadHold::none();
            }
            let held = HeldRead(stmt);
            if rusqlite::ffi::sqlite3_step(stmt) == rusqlite::ffi::SQLITE_ROW {
                ReadHold::new(held)
            } else {
                ReadHold::none()
            }
        }
    }

    fn execute_batch(&self, sql: &str) -> Result<(), SqlError> {
        self.conn.execute_batch(sql).map_err(sql_error)
    }

    fn query_each(
        &self,
        sql: &str,
        params: &[Value],
        each: &mut dyn FnMut(Vec<Value>),
    ) -> Result<(), SqlError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(sql_error)?;
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
        let Some(file) = self.conn.path().filter(|p| !p.is_empty()) else {
            return false;
        };
        // SAFETY: the handle is this open connection's (the functions run
        // on it) and the schema name static and NUL-terminated;
        // db_readonly only reads the connection's state. (Through ffi, as
        // rusqlite's own `is_readonly` changed its signature within the
        // versions the wrapper supports.)
        if unsafe { rusqlite::ffi::sqlite3_db_readonly(self.conn.handle(), c"main".as_ptr()) } != 0
        {
            return false;
        }
        if !on_default_vfs(self.conn) {
            return false;
        }
        let name = file.to_owned();
        let file = name.clone();
        self.drains
            && drain::start(&name, move || {
                let conn = crate::connect(rusqlite::Connection::open(&file).ok()?, false).ok()?;
                conn.busy_timeout(drain::BUSY_TIMEOUT).ok()?;
                Some(DrainConnection(conn))
            })
    }
}

/// Whether `conn` reaches its main database through the process's default
/// VFS, the one the drain's own connection opens it with.
fn on_default_vfs(conn: &rusqlite::Connection) -> bool {
    let mut vfs: *mut rusqlite::ffi::sqlite3_vfs = std::ptr::null_mut();
    // SAFETY: the handle is this open connection's and the schema name
    // static and NUL-terminated; this opcode writes one `sqlite3_vfs`
    // pointer into `vfs`, which outlives the call. vfs_find with null
    // returns the default VFS, or null.
    unsafe {
        let rc = rusqlite::ffi::sqlite3_file_control(
            conn.handle(),
            c"main".as_ptr(),
            rusqlite::ffi::SQLITE_FCNTL_VFS_POINTER,
            (&raw mut vfs).cast(),
        );
        rc == rusqlite::ffi::SQLITE_OK
            && !vfs.is_null()
            && vfs == rusqlite::ffi::sqlite3_vfs_find(std::ptr::null())
    }
}

/// Registers every function of [`FUNCTIONS`] into `conn`, with the table
/// that lets them keep their statements between calls (see [`crate::kept`]);
/// their searches start background drains when `drains` says so.
pub(crate) fn register_functions(
    conn: &rusqlite::Connection,
    drains: bool,
) -> rusqlite::Result<()> {
    let kept = Arc::new(KeptStatements::default());
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
    register_keeper(conn, &kept)
}

/// Runs `function` through the connection that keeps its statements; a
/// call made while another runs (a function inside a search's statement),
/// or before the keeping starts, runs through one of its own.
fn call(
    function: &Function,
    ctx: &Context<'_>,
    drains: bool,
    kept: &KeptStatements,
) -> rusqlite::Result<SqlValue> {
    let args: Vec<Value> = (0..ctx.len()).map(|i| from_sql(ctx.get_raw(i))).collect();
    let keeping = kept.0.try_lock();
    let result = match keeping.as_deref() {
        Ok(Some(conn)) => (function.body)(&Rusqlite::new(conn, drains), &args),
        _ => {
            // SAFETY: the connection reference is used only during this
            // call, while SQLite keeps the connection open.
            let conn = unsafe { ctx.get_connection() }?;
            (function.body)(&Rusqlite::new(&conn, drains), &args)
        }
    };
    result
        .map(to_sql)
        .map_err(|message| rusqlite::Error::UserFunctionError(message.into()))
}
