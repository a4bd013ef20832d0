//! The engine's [`Connection`] over a raw SQLite handle, calling SQLite
//! through a [`Routines`] table.

use crate::kept::{KeptStatements, KEEPER_TABLE};
use crate::{sqlite3, sqlite3_context, sqlite3_stmt, sqlite3_vfs, Routines};
use session_search_engine::db::{Connection, Held, ReadHold, SqlError, Value, HOLD_READ_SQL};
use session_search_engine::drain;
use session_search_engine::fts5::Fts5Api;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::ptr::{null, null_mut};
use std::sync::Arc;

const SQLITE_OK: c_int = 0;
const SQLITE_ROW: c_int = 100;
const SQLITE_DONE: c_int = 101;
const SQLITE_OPEN_READWRITE: c_int = 2;
const SQLITE_FCNTL_VFS_POINTER: c_int = 27;

/// `SQLITE_TRANSIENT`: SQLite copies bound text and blobs.
fn transient() -> Option<unsafe extern "C" fn(*mut c_void)> {
    // SAFETY: SQLite defines SQLITE_TRANSIENT as the destructor value -1,
    // which it compares against and never calls.
    Some(unsafe { std::mem::transmute::<isize, unsafe extern "C" fn(*mut c_void)>(-1) })
}

/// A connection handle borrowed from SQLite, with the statements prepared
/// through it kept for reuse (see [`KeptStatements`]): those of the
/// connection's store in a function call, or its own until it is dropped.
pub struct RawConnection {
    api: &'static Routines,
    handle: *mut sqlite3,
    kept: Arc<KeptStatements>,
    /// Starts a background drain of the named database file, if this
    /// connection's searches may.
    drain: Option<fn(&str) -> bool>,
    /// Whether the connection was opened here, and is closed on drop.
    owned: bool,
}

impl RawConnection {
    /// The connection `handle`, keeping statements until it is dropped,
    /// starting no drain.
    ///
    /// # Safety
    ///
    /// `handle` must be null or an open connection of the library of `api`,
    /// open while the value lives, and used by no other thread meanwhile.
    pub unsafe fn new(api: &'static Routines, handle: *mut sqlite3) -> RawConnection {
        RawConnection {
            api,
            handle,
            kept: KeptStatements::for_one_use(api),
            drain: None,
            owned: false,
        }
    }

    /// The connection `handle` a function call runs on, keeping statements
    /// in `kept`; its searches start background drains with `drain`, given
    /// the database file.
    ///
    /// # Safety
    ///
    /// As for [`RawConnection::new`].
    pub unsafe fn of_call(
        api: &'static Routines,
        handle: *mut sqlite3,
        kept: &Arc<KeptStatements>,
        drain: Option<fn(&str) -> bool>,
    ) -> RawConnection {
        RawConnection {
            api,
            handle,
            kept: Arc::clone(kept),
            drain,
            owned: false,
        }
    }

    /// The connection of the function call of `context`, as
    /// [`RawConnection::of_call`].
    ///
    /// # Safety
    ///
    /// `context` must be the live context of the current call, of the
    /// library of `api`.
    pub unsafe fn of_context(
        api: &'static Routines,
        context: *mut sqlite3_context,
        kept: &Arc<KeptStatements>,
        drain: Option<fn(&str) -> bool>,
    ) -> RawConnection {
        // SAFETY: `context` is the live context of the current call, whose
        // connection is open for the call on this thread.
        unsafe { RawConnection::of_call(api, (api.context_db_handle)(context), kept, drain) }
    }

    /// Registers the eponymous table [`KEEPER_TABLE`], connected to `kept`,
    /// and connects it, after which the connection's statements are kept
    /// across calls in `kept`. Without virtual tables in this SQLite they
    /// are kept for one call only.
    ///
    /// # Errors
    ///
    /// SQLite's, when it cannot register the table.
    pub fn connect_keeper(&self, kept: &Arc<KeptStatements>) -> Result<(), SqlError> {
        let rc = crate::kept::register_keeper(self.api, self.handle, kept);
        if rc != SQLITE_OK {
            return Err(self.error());
        }
        // Preparing the statement connects the eponymous table; the
        // statement itself is finalized at once, as one left open would
        // keep the table from being disconnected at close.
        let _ = self.prepare(&format!("SELECT * FROM {KEEPER_TABLE}"));
        Ok(())
    }

    /// A statement of `sql` kept from an earlier run, else a new one.
    fn statement(&self, sql: &str) -> Result<Statement, SqlError> {
        match self.kept.take(sql) {
            Some(stmt) => Ok(stmt),
            None => Ok(self.prepare(sql)?.0),
        }
    }

    /// The file of the main database; `None` for an in-memory or temporary
    /// one, which no other connection can open.
    fn filename(&self) -> Option<String> {
        // SAFETY: the connection is open; the name is static and
        // NUL-terminated; db_filename returns null or a NUL-terminated
        // string owned by SQLite, copied at once.
        let name = unsafe { (self.api.db_filename)(self.handle, c"main".as_ptr()) };
        if name.is_null() {
            return None;
        }
        // SAFETY: as above.
        let name = unsafe { CStr::from_ptr(name) }.to_str().ok()?;
        (!name.is_empty()).then(|| name.to_owned())
    }

    /// Whether the main database is reached through the process's default
    /// VFS, the one a drain's own connection opens it with.
    fn on_default_vfs(&self) -> bool {
        let mut vfs: *mut sqlite3_vfs = null_mut();
        // SAFETY: the connection is open and the schema name static and
        // NUL-terminated; this opcode writes one `sqlite3_vfs` pointer
        // into `vfs`, which outlives the call.
        let rc = unsafe {
            (self.api.file_control)(
                self.handle,
                c"main".as_ptr(),
                SQLITE_FCNTL_VFS_POINTER,
                (&raw mut vfs).cast::<c_void>(),
            )
        };
        // SAFETY: vfs_find with null returns the default VFS, or null.
        rc == SQLITE_OK && !vfs.is_null() && vfs == unsafe { (self.api.vfs_find)(null()) }
    }

    /// The database file a background drain may index: that of a main
    /// database opened read-write through the default VFS, when this SQLite
    /// may be used from several threads.
    pub fn drain_target(&self) -> Option<String> {
        // SAFETY: threadsafe takes no argument.
        if unsafe { (self.api.threadsafe)() } == 0 {
            return None;
        }
        // SAFETY: the connection is open and the schema name static and
        // NUL-terminated; db_readonly only reads the connection's state.
        if unsafe { (self.api.db_readonly)(self.handle, c"main".as_ptr()) } != 0 {
            return None;
        }
        if !self.on_default_vfs() {
            return None;
        }
        self.filename()
    }

    fn error(&self) -> SqlError {
        // SAFETY: the connection is open; errmsg returns a NUL-terminated
        // string owned by SQLite, copied at once.
        let message = unsafe { CStr::from_ptr((self.api.errmsg)(self.handle)) };
        SqlError {
            // SAFETY: as above.
            code: unsafe { (self.api.extended_errcode)(self.handle) },
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
            (self.api.prepare_v2)(self.handle, sql.as_ptr().cast(), len, &mut stmt, &mut tail)
        };
        if rc != SQLITE_OK {
            return Err(self.error());
        }
        let consumed = if tail.is_null() {
            sql.len()
        } else {
            tail as usize - sql.as_ptr() as usize
        };
        Ok((
            Statement {
                api: self.api,
                stmt,
            },
            &sql[consumed..],
        ))
    }

    /// Fetches the connection's `fts5_api` with `SELECT fts5(?1)`; null when
    /// FTS5 wrote none.
    ///
    /// # Errors
    ///
    /// SQLite's, when the statement cannot be prepared (no `fts5()`
    /// function, a file that is not a database).
    pub fn fts5_api(&self) -> Result<*mut Fts5Api, SqlError> {
        let (stmt, _) = self.prepare("SELECT fts5(?1)")?;
        if stmt.stmt.is_null() {
            return Ok(null_mut());
        }
        let mut api: *mut Fts5Api = null_mut();
        // SAFETY: `stmt` is live; `api` outlives the step, during which FTS5
        // writes the pointer into it; the type name is static.
        unsafe {
            (self.api.bind_pointer)(
                stmt.stmt,
                1,
                (&mut api as *mut *mut Fts5Api).cast(),
                c"fts5_api_ptr".as_ptr(),
                None,
            );
            (self.api.step)(stmt.stmt);
        }
        Ok(api)
    }

    fn bind(&self, stmt: &Statement, params: &[Value]) -> Result<(), SqlError> {
        for (i, param) in params.iter().enumerate() {
            let index = c_int::try_from(i + 1).map_err(|_| SqlError::new("too many parameters"))?;
            let api = self.api;
            // SAFETY: `stmt` is live; text and blobs are copied by SQLite
            // (SQLITE_TRANSIENT) and their lengths fit the 64-bit variants.
            let rc = unsafe {
                match param {
                    Value::Null => (api.bind_null)(stmt.stmt, index),
                    Value::Integer(v) => (api.bind_int64)(stmt.stmt, index, *v),
                    Value::Real(v) => (api.bind_double)(stmt.stmt, index, *v),
                    Value::Text(v) => (api.bind_text64)(
                        stmt.stmt,
                        index,
                        v.as_ptr().cast(),
                        v.len() as u64,
                        transient(),
                        1,
                    ),
                    Value::Blob(v) => (api.bind_blob64)(
                        stmt.stmt,
                        index,
                        v.as_ptr().cast(),
                        v.len() as u64,
                        transient(),
                    ),
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
            match unsafe { (self.api.step)(stmt.stmt) } {
                SQLITE_ROW => {
                    // SAFETY: a row is available, so its columns are readable.
                    let columns = unsafe { (self.api.column_count)(stmt.stmt) };
                    each(
                        (0..columns)
                            // SAFETY: as above; the column value is used before
                            // the next step, on this thread.
                            .map(|i| unsafe {
                                self.api.value((self.api.column_value)(stmt.stmt, i))
                            })
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
pub struct Statement {
    api: &'static Routines,
    stmt: *mut sqlite3_stmt,
}

// SAFETY: a statement is only used through its own connection, whose calls
// SQLite serializes; a kept one moves between the calls, not into two at once.
unsafe impl Send for Statement {}

impl Statement {
    /// Returns the statement to its prepared state, for a next run.
    fn reset(&self) {
        // SAFETY: the statement is live and not running elsewhere; reset and
        // clear_bindings only return it to its prepared state.
        unsafe {
            (self.api.reset)(self.stmt);
            (self.api.clear_bindings)(self.stmt);
        }
    }
}

impl Drop for Statement {
    fn drop(&mut self) {
        // SAFETY: finalize accepts null and each statement is finalized once.
        unsafe { (self.api.finalize)(self.stmt) };
    }
}

/// Keeps `stmt`, of `sql`, in `kept` for the next run, reset and unbound.
fn keep(kept: &KeptStatements, sql: &str, stmt: Statement) {
    stmt.reset();
    kept.keep(sql, stmt);
}

impl RawConnection {
    /// Opens the database file `filename` read-write, with the drain's busy
    /// timeout, for a background drain: the connection is closed when the
    /// value is dropped. `None` if SQLite cannot open it.
    pub fn open(api: &'static Routines, filename: &str) -> Option<RawConnection> {
        let filename = CString::new(filename).ok()?;
        let mut db = null_mut();
        // SAFETY: `filename` is NUL-terminated; SQLite writes the handle
        // (possibly one to close, even on failure) into `db`.
        let rc =
            unsafe { (api.open_v2)(filename.as_ptr(), &mut db, SQLITE_OPEN_READWRITE, null()) };
        // SAFETY: `db` is null or the connection just opened, owned and
        // closed by this value.
        let mut conn = unsafe { RawConnection::new(api, db) };
        conn.owned = true;
        if rc != SQLITE_OK {
            return None;
        }
        let timeout = c_int::try_from(drain::BUSY_TIMEOUT.as_millis()).unwrap_or(c_int::MAX);
        // SAFETY: the connection was just opened.
        unsafe { (api.busy_timeout)(db, timeout) };
        Some(conn)
    }

    /// The handle, for registering the functions.
    pub fn handle(&self) -> *mut sqlite3 {
        self.handle
    }
}

impl Drop for RawConnection {
    /// Closes a connection [`RawConnection::open`] opened.
    fn drop(&mut self) {
        if !self.owned {
            return;
        }
        // Its kept statements first, so that the close finds none open.
        self.kept.finalize();
        // SAFETY: the handle came from open_v2 and is closed once; close
        // accepts null. It first disconnects the virtual tables, whose
        // keeper finalizes the statements kept for the functions, and no
        // other statement is left open.
        unsafe { (self.api.close)(self.handle) };
    }
}

/// The statement of a [`RawConnection::hold_read`], reset and kept when
/// dropped.
struct HeldRead {
    kept: Arc<KeptStatements>,
    stmt: Option<Statement>,
}

impl Held for HeldRead {}

impl Drop for HeldRead {
    fn drop(&mut self) {
        if let Some(stmt) = self.stmt.take() {
            keep(&self.kept, HOLD_READ_SQL, stmt);
        }
    }
}

impl RawConnection {
    /// [`Connection::hold_read`], the hold independent of this value: it
    /// steps [`HOLD_READ_SQL`] to its first row; nothing is held when it
    /// has none or fails (each statement then reads on its own).
    pub fn hold(&self) -> ReadHold<'static> {
        let Ok(stmt) = self.statement(HOLD_READ_SQL) else {
            return ReadHold::none();
        };
        // SAFETY: `stmt` is live and not running elsewhere.
        let rc = unsafe { (self.api.step)(stmt.stmt) };
        let held = HeldRead {
            kept: Arc::clone(&self.kept),
            stmt: Some(stmt),
        };
        if rc == SQLITE_ROW {
            ReadHold::new(held)
        } else {
            ReadHold::none()
        }
    }
}

impl Connection for RawConnection {
    fn hold_read(&self) -> ReadHold<'_> {
        self.hold()
    }

    /// Starts a drain of [`RawConnection::drain_target`], when this
    /// connection starts drains.
    fn reconcile_elsewhere(&self) -> bool {
        let Some(start) = self.drain else {
            return false;
        };
        self.drain_target().is_some_and(|file| start(&file))
    }

    fn execute_batch(&self, sql: &str) -> Result<(), SqlError> {
        let mut rest = sql;
        while !rest.trim().is_empty() {
            let (stmt, tail) = self.prepare(rest)?;
            if !stmt.stmt.is_null() {
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
        if stmt.stmt.is_null() {
            return Ok(());
        }
        let done = self
            .bind(&stmt, params)
            .and_then(|()| self.run(&stmt, each));
        keep(&self.kept, sql, stmt);
        done
    }
}
