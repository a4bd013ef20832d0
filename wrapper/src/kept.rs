//! Statements kept prepared across function calls on one connection.
//!
//! A search runs a dozen statements, and preparing its largest costs about
//! as much as running it. A function call only sees the raw handle, so the
//! statements are kept in a second, non-owning rusqlite `Connection` on it
//! (its statement cache). But `sqlite3_close` refuses to close a connection
//! with a statement left open, and it calls no function's destructor before
//! that check. It does first disconnect every virtual table, so that tables
//! can finalize the statements they keep: each connection gets an eponymous
//! table, [`KEEPER_TABLE`], connected once at registration, whose
//! disconnection drops the keeping connection and its statements.

use rusqlite::{ffi, Connection};
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::{Arc, Mutex, OnceLock};

/// The eponymous table whose disconnection ends the keeping. It has no rows.
pub(crate) const KEEPER_TABLE: &str = "session_search_kept_statements";

/// Statements kept at most per connection.
const KEPT_STATEMENTS: usize = 32;

/// The connection whose statement cache keeps one database connection's
/// statements, while [`KEEPER_TABLE`] is connected.
#[derive(Default)]
pub(crate) struct KeptStatements(pub(crate) Mutex<Option<Connection>>);

/// Registers [`KEEPER_TABLE`] into `conn`, connected to `kept`, and
/// connects it. Without virtual tables in this SQLite, statements are kept
/// for one call only.
pub(crate) fn register_keeper(
    conn: &Connection,
    kept: &Arc<KeptStatements>,
) -> rusqlite::Result<()> {
    let name = CString::new(KEEPER_TABLE).expect("no NUL in the table name");
    let aux = Arc::into_raw(Arc::clone(kept)).cast_mut().cast::<c_void>();
    // SAFETY: the handle is open; the module is static; SQLite owns `aux`
    // from here and hands it to `drop_aux` exactly once, also on failure.
    let rc = unsafe {
        ffi::sqlite3_create_module_v2(conn.handle(), name.as_ptr(), module(), aux, Some(drop_aux))
    };
    if rc != ffi::SQLITE_OK {
        return Err(rusqlite::Error::SqliteFailure(ffi::Error::new(rc), None));
    }
    // Preparing connects the eponymous table; the statement is finalized at
    // once, as one left open would keep the table from being disconnected.
    drop(conn.prepare(&format!("SELECT * FROM {KEEPER_TABLE}")));
    Ok(())
}

/// The table's routines: it has no rows.
fn module() -> &'static ffi::sqlite3_module {
    static MODULE: OnceLock<ffi::sqlite3_module> = OnceLock::new();
    MODULE.get_or_init(|| {
        // SAFETY: sqlite3_module is plain data; zero is "no routine" for
        // every optional member this table does not provide.
        let mut module: ffi::sqlite3_module = unsafe { std::mem::zeroed() };
        module.iVersion = 1;
        module.xConnect = Some(connect);
        module.xBestIndex = Some(best_index);
        module.xDisconnect = Some(disconnect);
        module.xDestroy = Some(disconnect);
        module.xOpen = Some(open);
        module.xClose = Some(close);
        module.xFilter = Some(filter);
        module.xNext = Some(next);
        module.xEof = Some(eof);
        module.xColumn = Some(column);
        module.xRowid = Some(rowid);
        module
    })
}

/// A connected [`KEEPER_TABLE`].
#[repr(C)]
struct Keeper {
    /// SQLite's part; first, as SQLite reads the struct as this.
    base: ffi::sqlite3_vtab,
    kept: Arc<KeptStatements>,
}

unsafe extern "C" fn drop_aux(aux: *mut c_void) {
    // SAFETY: `aux` came from Arc::into_raw in `register_keeper`.
    drop(unsafe { Arc::from_raw(aux.cast_const().cast::<KeptStatements>()) });
}

unsafe extern "C" fn connect(
    db: *mut ffi::sqlite3,
    aux: *mut c_void,
    _: c_int,
    _: *const *const c_char,
    table: *mut *mut ffi::sqlite3_vtab,
    _: *mut *mut c_char,
) -> c_int {
    // SAFETY: `db` is the connecting connection; the text is static.
    let rc = unsafe { ffi::sqlite3_declare_vtab(db, c"CREATE TABLE x(unused)".as_ptr()) };
    if rc != ffi::SQLITE_OK {
        return rc;
    }
    let shared = aux.cast_const().cast::<KeptStatements>();
    // SAFETY: `aux` is the Arc registered with the module, alive until
    // `drop_aux`; this takes one more reference to it, released when
    // `disconnect` drops the table.
    let kept = unsafe {
        Arc::increment_strong_count(shared);
        Arc::from_raw(shared)
    };
    // SAFETY: the handle outlives the keeping connection, which
    // `disconnect` drops before the handle closes, and which never closes it.
    let Ok(keeping) = (unsafe { Connection::from_handle(db) }) else {
        return ffi::SQLITE_ERROR;
    };
    keeping.set_prepared_statement_cache_capacity(KEPT_STATEMENTS);
    *kept.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(keeping);
    let keeper = Box::new(Keeper {
        // SAFETY: sqlite3_vtab is plain data; zeros are its initial state.
        base: unsafe { std::mem::zeroed() },
        kept,
    });
    // SAFETY: SQLite passes where to write the new table.
    unsafe { *table = Box::into_raw(keeper).cast() };
    ffi::SQLITE_OK
}

unsafe extern "C" fn disconnect(table: *mut ffi::sqlite3_vtab) -> c_int {
    // SAFETY: `table` came from Box::into_raw in `connect`, and SQLite
    // disconnects it once.
    let keeper = unsafe { Box::from_raw(table.cast::<Keeper>()) };
    // Dropping the keeping connection finalizes its statements.
    keeper
        .kept
        .0
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take();
    ffi::SQLITE_OK
}

unsafe extern "C" fn best_index(
    _: *mut ffi::sqlite3_vtab,
    info: *mut ffi::sqlite3_index_info,
) -> c_int {
    // SAFETY: SQLite passes the index info it is planning with.
    unsafe { (*info).estimatedCost = 1.0 };
    ffi::SQLITE_OK
}

unsafe extern "C" fn open(
    _: *mut ffi::sqlite3_vtab,
    cursor: *mut *mut ffi::sqlite3_vtab_cursor,
) -> c_int {
    // SAFETY: sqlite3_vtab_cursor is plain data; SQLite passes where to
    // write the cursor, freed in `close`.
    unsafe { *cursor = Box::into_raw(Box::new(std::mem::zeroed::<ffi::sqlite3_vtab_cursor>())) };
    ffi::SQLITE_OK
}

unsafe extern "C" fn close(cursor: *mut ffi::sqlite3_vtab_cursor) -> c_int {
    // SAFETY: `cursor` came from Box::into_raw in `open`, closed once.
    drop(unsafe { Box::from_raw(cursor) });
    ffi::SQLITE_OK
}

unsafe extern "C" fn filter(
    _: *mut ffi::sqlite3_vtab_cursor,
    _: c_int,
    _: *const c_char,
    _: c_int,
    _: *mut *mut ffi::sqlite3_value,
) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn next(_: *mut ffi::sqlite3_vtab_cursor) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn eof(_: *mut ffi::sqlite3_vtab_cursor) -> c_int {
    1
}

unsafe extern "C" fn column(
    _: *mut ffi::sqlite3_vtab_cursor,
    _: *mut ffi::sqlite3_context,
    _: c_int,
) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn rowid(
    _: *mut ffi::sqlite3_vtab_cursor,
    rowid: *mut ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: SQLite passes where to write the rowid.
    unsafe { *rowid = 0 };
    ffi::SQLITE_OK
}
