//! The engine's [`Connection`] over SQLite's loadable-extension API: the
//! routines table SQLite hands to the entry point. sqlite-loadable covers
//! registration; running statements from inside a function needs a few more
//! routines (errmsg, column_count, bind_*), which are called from the table
//! directly.

use crate::kept::{KeptStatements, KEEPER_TABLE};
use session_search_engine::db::{Connection, Held, ReadHold, SqlError, Value, HOLD_READ_SQL};
use session_search_engine::drain;
use session_search_engine::fts5::{Fts5Api, Routines};
use sqlite3ext_sys::{
    sqlite3, sqlite3_api_routines, sqlite3_context, sqlite3_stmt, sqlite3_value, sqlite3_vfs,
    SQLITE_FCNTL_VFS_POINTER,
};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

const SQLITE_OK: c_int = 0;
const SQLITE_ROW: c_int = 100;
const SQLITE_DONE: c_int = 101;
const SQLITE_INTEGER: c_int = 1;
const SQLITE_FLOAT: c_int = 2;
const SQLITE_TEXT: c_int = 3;
const SQLITE_BLOB: c_int = 4;
const SQLITE_OPEN_READWRITE: c_int = 2;

/// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs.
fn transient() -> Option<unsafe extern "C" fn(*mut c_void)> {
    // SAFETY: SQLite defines SQLITE_TRANSIENT as the destructor value -1,
    // which it compares against and never calls.
    Some(unsafe { std::mem::transmute::<isize, unsafe extern "C" fn(*mut c_void)>(-1) })
}

/// The routines table of the one SQLite library this copy of the extension
/// serves. sqlite-loadable keeps the table in a process-wide global too, and
/// the kept statements, drains and registered callbacks all call through it,
/// so connections of a second library in the same process (another copy of
/// SQLite, with its own heap and locks) would run on the first one's
/// routines and corrupt both.
static ROUTINES: AtomicPtr<sqlite3_api_routines> = AtomicPtr::new(null_mut());

/// Records the routines table passed to the entry point, unless a table of
/// another SQLite library was recorded before: each library passes the same
/// table, its own, to every load.
///
/// # Errors
///
/// The message to report when another library's table is recorded.
pub fn claim_routines(routines: *mut sqlite3_api_routines) -> Result<(), &'static str> {
    match ROUTINES.compare_exchange(null_mut(), routines, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => Ok(()),
        Err(recorded) if recorded == routines => Ok(()),
        Err(_) => Err(ANOTHER_LIBRARY),
    }
}

/// Why a load into a second SQLite library is refused.
const ANOTHER_LIBRARY: &str = "session-search is already loaded into another SQLite library in this process; \
     a loaded copy of the extension serves one SQLite library (pysqlite3, sqlean and apsw each carry their own): \
     load a copy of the file under another path into this one";

/// Hands `message` to SQLite as the load's error, allocated with the
/// library's own allocator as SQLite frees it with `sqlite3_free`.
///
/// # Safety
///
/// `routines` must be the table passed to the entry point and `err` its
/// error pointer (possibly null).
pub unsafe fn report_load_error(
    routines: *mut sqlite3_api_routines,
    err: *mut *mut c_char,
    message: &str,
) {
    // SAFETY: the caller passes SQLite's live routines table.
    let Some(malloc) = (unsafe { routines.as_ref() }).and_then(|r| r.malloc) else {
        return;
    };
    let Ok(size) = c_int::try_from(message.len() + 1) else {
        return;
    };
    if err.is_null() {
        return;
    }
    // SAFETY: sqlite3_malloc returns null or `size` writable bytes.
    let copy = unsafe { malloc(size) }.cast::<u8>();
    if copy.is_null() {
        return;
    }
    // SAFETY: `copy` holds `message.len() + 1` bytes, written in full here;
    // `err` is SQLite's non-null out pointer for the message.
    unsafe {
        copy.copy_from_nonoverlapping(message.as_ptr(), message.len());
        copy.add(message.len()).write(0);
        *err = copy.cast();
    }
}

fn routines() -> &'static sqlite3_api_routines {
    // SAFETY: set by the entry point before any function is registered, so
    // before any call can reach here; SQLite keeps the table alive.
    unsafe { &*ROUTINES.load(Ordering::Acquire) }
}

/// Calls routine `$name` of the table; every routine this module uses exists
/// in SQLite 3.40 and later.
macro_rules! sqlite {
    ($name:ident($($arg:expr),* $(,)?)) => {
        (routines().$name.expect(concat!("SQLite routine ", stringify!($name))))($($arg),*)
    };
}

/// The routines the engine's FTS5 auxiliary functions call.
pub static AUX_ROUTINES: Routines = Routines {
    value_type: aux_value_type,
    value_int64: aux_value_int64,
    result_double: aux_result_double,
    result_error_code: aux_result_error_code,
};

unsafe extern "C" fn aux_value_type(value: *mut c_void) -> c_int {
    // SAFETY: FTS5 passes the protected values of the running call.
    unsafe { sqlite!(value_type(value.cast::<sqlite3_value>())) }
}

unsafe extern "C" fn aux_value_int64(value: *mut c_void) -> i64 {
    // SAFETY: as in `aux_value_type`.
    unsafe { sqlite!(value_int64(value.cast::<sqlite3_value>())) }
}

unsafe extern "C" fn aux_result_double(context: *mut c_void, value: f64) {
    // SAFETY: FTS5 passes the sqlite3_context of the running call.
    unsafe { sqlite!(result_double(context.cast::<sqlite3_context>(), value)) }
}

unsafe extern "C" fn aux_result_error_code(context: *mut c_void, code: c_int) {
    // SAFETY: as in `aux_result_double`.
    unsafe { sqlite!(result_error_code(context.cast::<sqlite3_context>(), code)) }
}

/// Reads a function argument or column value.
pub fn value(value: *mut sqlite3_value) -> Value {
    // SAFETY: `value` is a live protected value for the duration of the
    // callback; text and blob pointers are valid for `value_bytes` bytes and
    // copied before returning.
    unsafe {
        match sqlite!(value_type(value)) {
            SQLITE_INTEGER => Value::Integer(sqlite!(value_int64(value))),
            SQLITE_FLOAT => Value::Real(sqlite!(value_double(value))),
            SQLITE_TEXT => {
                let text = bytes(
                    sqlite!(value_text(value)).cast(),
                    sqlite!(value_bytes(value)),
                );
                match std::str::from_utf8(text) {
                    Ok(text) => Value::Text(text.to_owned()),
                    Err(_) => Value::Blob(text.to_vec()),
                }
            }
            SQLITE_BLOB => Value::Blob(
                bytes(
                    sqlite!(value_blob(value)).cast(),
                    sqlite!(value_bytes(value)),
                )
                .to_vec(),
            ),
            _ => Value::Null,
        }
    }
}

/// # Safety
///
/// `ptr` must be null (with `len` 0) or valid for `len` bytes.
unsafe fn bytes<'a>(ptr: *const u8, len: c_int) -> &'a [u8] {
    match usize::try_from(len) {
        Ok(len) if len > 0 && !ptr.is_null() => {
            // SAFETY: forwarded to the caller.
            unsafe { std::slice::from_raw_parts(ptr, len) }
        }
        _ => &[],
    }
}

/// A connection handle borrowed from SQLite, with the statements prepared
/// through it kept for reuse (see [`KeptStatements`]): those of the
/// connection's store in a function call, or its own until it is dropped.
pub struct RawConnection {
    handle: *mut sqlite3,
    kept: Arc<KeptStatements>,
}

impl RawConnection {
    /// The connection `handle`, keeping statements until it is dropped.
    pub fn new(handle: *mut sqlite3) -> RawConnection {
        RawConnection {
            handle,
            kept: KeptStatements::for_one_use(),
        }
    }

    /// The connection a function call runs on, keeping statements in `kept`.
    pub fn of_context(context: *mut sqlite3_context, kept: &Arc<KeptStatements>) -> RawConnection {
        RawConnection {
            // SAFETY: `context` is the live context of the current call.
            handle: unsafe { sqlite!(context_db_handle(context)) },
            kept: Arc::clone(kept),
        }
    }

    /// Connects the connection's [`KEEPER_TABLE`], after which its
    /// statements are kept across calls. Without it (virtual tables left
    /// out of this SQLite) they are kept for one call only.
    pub fn connect_keeper(&self) {
        // Preparing the statement connects the eponymous table; the
        // statement itself is finalized at once, as one left open would
        // keep the table from being disconnected at close.
        let _ = self.prepare(&format!("SELECT * FROM {KEEPER_TABLE}"));
    }

    /// A statement of `sql` kept from an earlier run, else a new one.
    fn statement(&self, sql: &str) -> Result<Statement, SqlError> {
        match self.kept.take(sql) {
            Some(stmt) => Ok(stmt),
            None => Ok(self.prepare(sql)?.0),
        }
    }

    /// Keeps `stmt`, of `sql`, for the next run, reset and unbound.
    fn keep(&self, sql: &str, stmt: Statement) {
        // SAFETY: `stmt` is live and not running elsewhere; reset and
        // clear_bindings only return it to its prepared state.
        unsafe {
            sqlite!(reset(stmt.0));
            sqlite!(clear_bindings(stmt.0));
        }
        self.kept.keep(sql, stmt);
    }

    /// The file of the main database; `None` for an in-memory or temporary
    /// one, which no other connection can open.
    fn filename(&self) -> Option<String> {
        // SAFETY: the connection is open; the name is static and
        // NUL-terminated; db_filename returns null or a NUL-terminated
        // string owned by SQLite, copied at once.
        let name = unsafe { sqlite!(db_filename(self.handle, c"main".as_ptr())) };
        if name.is_null() {
            return None;
        }
        // SAFETY: as above.
        let name = unsafe { CStr::from_ptr(name) }.to_str().ok()?;
        (!name.is_empty()).then(|| name.to_owned())
    }

    /// Whether the main database is reached through the process's default
    /// VFS, the one [`OwnedConnection::open`] opens it with.
    fn on_default_vfs(&self) -> bool {
        let mut vfs: *mut sqlite3_vfs = null_mut();
        let opcode = c_int::try_from(SQLITE_FCNTL_VFS_POINTER).unwrap_or(c_int::MAX);
        // SAFETY: the connection is open and the schema name static and
        // NUL-terminated; this opcode writes one `sqlite3_vfs` pointer
        // into `vfs`, which outlives the call.
        let rc = unsafe {
            sqlite!(file_control(
                self.handle,
                c"main".as_ptr(),
                opcode,
                (&raw mut vfs).cast::<c_void>()
            ))
        };
        // SAFETY: vfs_find with null returns the default VFS, or null.
        rc == SQLITE_OK && !vfs.is_null() && vfs == unsafe { sqlite!(vfs_find(null())) }
    }

    fn error(&self) -> SqlError {
        // SAFETY: the connection is open; errmsg returns a NUL-terminated
        // string owned by SQLite, copied at once.
        let message = unsafe { CStr::from_ptr(sqlite!(errmsg(self.handle))) };
        SqlError {
            // SAFETY: as above.
            code: unsafe { sqlite!(extended_errcode(self.handle)) },
            message: message.to_string_lossy().into_owned(),
        }
    }

    /// Prepares the first statement of `sql`, returning it (null for an empty
    /// statement) and the rest of the text.
    fn prepare<'s>(&self, sql: &'s str) -> Result<(Statement, &'s str), SqlError> {
        let mut stmt = null_mut();
        let mut tail: *const c_char = null_mut();
        let len = c_int::try_from(sql.len()).map_err(|_| SqlError::new("SQL text too long"))?;
        // SAFETY: `sql` is valid for `len` bytes; `tail` points into it.
        let rc = unsafe {
            sqlite!(prepare_v2(
                self.handle,
                sql.as_ptr().cast(),
                len,
                &mut stmt,
                &mut tail
            ))
        };
        if rc != SQLITE_OK {
            return Err(self.error());
        }
        let consumed = if tail.is_null() {
            sql.len()
        } else {
            tail as usize - sql.as_ptr() as usize
        };
        Ok((Statement(stmt), &sql[consumed..]))
    }

    /// Fetches the connection's `fts5_api` with `SELECT fts5(?1)`.
    pub fn fts5_api(&self) -> Result<*mut Fts5Api, SqlError> {
        let (stmt, _) = self.prepare("SELECT fts5(?1)")?;
        let mut api: *mut Fts5Api = null_mut();
        // SAFETY: `stmt` is live; `api` outlives the step, during which FTS5
        // writes the pointer into it; the type name is static.
        unsafe {
            sqlite!(bind_pointer(
                stmt.0,
                1,
                (&mut api as *mut *mut Fts5Api).cast(),
                c"fts5_api_ptr".as_ptr(),
                None,
            ));
            sqlite!(step(stmt.0));
        }
        Ok(api)
    }

    fn bind(&self, stmt: &Statement, params: &[Value]) -> Result<(), SqlError> {
        for (i, param) in params.iter().enumerate() {
            let index = c_int::try_from(i + 1).map_err(|_| SqlError::new("too many parameters"))?;
            // SAFETY: `stmt` is live; text and blobs are copied by SQLite
            // (SQLITE_TRANSIENT) and their lengths fit the 64-bit variants.
            let rc = unsafe {
                match param {
                    Value::Null => sqlite!(bind_null(stmt.0, index)),
                    Value::Integer(v) => sqlite!(bind_int64(stmt.0, index, *v)),
                    Value::Real(v) => sqlite!(bind_double(stmt.0, index, *v)),
                    Value::Text(v) => sqlite!(bind_text64(
                        stmt.0,
                        index,
                        v.as_ptr().cast(),
                        v.len() as u64,
                        transient(),
                        1
                    )),
                    Value::Blob(v) => sqlite!(bind_blob64(
                        stmt.0,
                        index,
                        v.as_ptr().cast(),
                        v.len() as u64,
                        transient()
                    )),
                }
            };
            if rc != SQLITE_OK {
                return Err(self.error());
            }
        }
        Ok(())
    }

    /// Steps `stmt` to the end, handing each row to `each`.
    fn run(&self, stmt: &Statement, each: &mut dyn FnMut(Vec<Value>)) -> Result<(), SqlError> {
        loop {
            // SAFETY: `stmt` is live.
            match unsafe { sqlite!(step(stmt.0)) } {
                SQLITE_ROW => {
                    // SAFETY: a row is available, so its columns are readable.
                    let columns = unsafe { sqlite!(column_count(stmt.0)) };
                    each(
                        (0..columns)
                            // SAFETY: as above; the column value is used before
                            // the next step.
                            .map(|i| value(unsafe { sqlite!(column_value(stmt.0, i)) }))
                            .collect(),
                    );
                }
                SQLITE_DONE => return Ok(()),
                _ => return Err(self.error()),
            }
        }
    }
}

/// A prepared statement, finalized on drop.
pub struct Statement(*mut sqlite3_stmt);

// SAFETY: a statement is only used through its own connection, whose calls
// SQLite serializes; a kept one moves between the calls, not into two at once.
unsafe impl Send for Statement {}

impl Drop for Statement {
    fn drop(&mut self) {
        // SAFETY: finalize accepts null and each statement is finalized once.
        unsafe { sqlite!(finalize(self.0)) };
    }
}

/// A connection the extension opened itself, for a background drain, and
/// closes when dropped.
pub struct OwnedConnection(RawConnection);

impl OwnedConnection {
    /// Opens the database file `filename` read-write, with the drain's busy
    /// timeout; `None` if SQLite cannot.
    pub fn open(filename: &str) -> Option<OwnedConnection> {
        let filename = CString::new(filename).ok()?;
        let mut db = null_mut();
        // SAFETY: `filename` is NUL-terminated; SQLite writes the handle
        // (possibly one to close, even on failure) into `db`.
        let rc = unsafe {
            sqlite!(open_v2(
                filename.as_ptr(),
                &mut db,
                SQLITE_OPEN_READWRITE,
                null_mut()
            ))
        };
        let conn = OwnedConnection(RawConnection::new(db));
        if rc != SQLITE_OK {
            return None;
        }
        let timeout = c_int::try_from(drain::BUSY_TIMEOUT.as_millis()).unwrap_or(c_int::MAX);
        // SAFETY: the connection was just opened.
        unsafe { sqlite!(busy_timeout(db, timeout)) };
        Some(conn)
    }

    /// The handle, for registering the functions.
    pub fn handle(&self) -> *mut sqlite3 {
        self.0.handle
    }
}

impl Drop for OwnedConnection {
    fn drop(&mut self) {
        // Its kept statements first, so that the close finds none open.
        self.0.kept.finalize();
        // SAFETY: the handle came from open_v2 and is closed once; close_v2
        // accepts null.
        unsafe { sqlite!(close_v2(self.0.handle)) };
    }
}

impl Connection for OwnedConnection {
    fn hold_read(&self) -> ReadHold<'_> {
        self.0.hold_read()
    }

    fn execute_batch(&self, sql: &str) -> Result<(), SqlError> {
        self.0.execute_batch(sql)
    }

    fn query_each(
        &self,
        sql: &str,
        params: &[Value],
        each: &mut dyn FnMut(Vec<Value>),
    ) -> Result<(), SqlError> {
        self.0.query_each(sql, params, each)
    }
}

/// The statement of a [`RawConnection::hold_read`], reset and kept when
/// dropped.
struct HeldRead<'c> {
    conn: &'c RawConnection,
    stmt: Option<Statement>,
}

impl Held for HeldRead<'_> {}

impl Drop for HeldRead<'_> {
    fn drop(&mut self) {
        if let Some(stmt) = self.stmt.take() {
            self.conn.keep(HOLD_READ_SQL, stmt);
        }
    }
}

impl Connection for RawConnection {
    /// Steps [`HOLD_READ_SQL`] to its first row; nothing is held when it
    /// has none or fails (each statement then reads on its own).
    fn hold_read(&self) -> ReadHold<'_> {
        let Ok(stmt) = self.statement(HOLD_READ_SQL) else {
            return ReadHold::none();
        };
        // SAFETY: `stmt` is live and not running elsewhere.
        let rc = unsafe { sqlite!(step(stmt.0)) };
        let held = HeldRead {
            conn: self,
            stmt: Some(stmt),
        };
        if rc == SQLITE_ROW {
            ReadHold::new(held)
        } else {
            ReadHold::none()
        }
    }

    /// Starts a drain for a file database opened read-write, when this
    /// SQLite may be used from several threads.
    fn reconcile_elsewhere(&self) -> bool {
        // SAFETY: xthreadsafe takes no argument.
        if unsafe { sqlite!(xthreadsafe()) } == 0 {
            return false;
        }
        // SAFETY: the connection is open and the schema name static and
        // NUL-terminated; db_readonly only reads the connection's state.
        if unsafe { sqlite!(db_readonly(self.handle, c"main".as_ptr())) } != 0 {
            return false;
        }
        if !self.on_default_vfs() {
            return false;
        }
        let Some(file) = self.filename() else {
            return false;
        };
        let name = file.clone();
        drain::start(&name, move || crate::drain_connection(&file))
    }

    fn execute_batch(&self, sql: &str) -> Result<(), SqlError> {
        let mut rest = sql;
        while !rest.trim().is_empty() {
            let (stmt, tail) = self.prepare(rest)?;
            if !stmt.0.is_null() {
                self.run(&stmt, &mut |_| {})?;
            }
            rest = tail;
        }
        Ok(())
    }

    fn query_each(
        &self,
        sql: &str,
        params: &[Value],
        each: &mut dyn FnMut(Vec<Value>),
    ) -> Result<(), SqlError> {
        let stmt = self.statement(sql)?;
        if stmt.0.is_null() {
            return Ok(());
        }
        let done = self
            .bind(&stmt, params)
            .and_then(|()| self.run(&stmt, each));
        self.keep(sql, stmt);
        done
    }
}
