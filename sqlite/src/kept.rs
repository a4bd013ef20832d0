//! Statements kept prepared across function calls on one connection.
//!
//! A search runs a dozen statements, and preparing its largest costs about
//! as much as running it. They are kept between calls, but SQLite's
//! `sqlite3_close` refuses to close a connection with a statement left
//! open, and it calls no function's destructor before that check. It does
//! first disconnect every virtual table, so that tables can finalize the
//! statements they keep: each connection gets an eponymous table,
//! [`KEEPER_TABLE`], connected once at registration, whose disconnection
//! finalizes the kept statements and stops keeping more.

use crate::connection::Statement;
use crate::{sqlite3, sqlite3_context, sqlite3_value, Routines};
use std::ffi::{c_char, c_int, c_void, CString};
use std::sync::{Arc, Mutex, MutexGuard};

/// The eponymous table whose disconnection ends the keeping. It has no rows.
pub const KEEPER_TABLE: &str = "session_search_kept_statements";

/// Statements kept at most per connection.
const KEPT_STATEMENTS: usize = 32;

const SQLITE_OK: c_int = 0;
const SQLITE_ERROR: c_int = 1;

/// The statements one connection keeps, by SQL text, while it may.
pub struct KeptStatements {
    api: &'static Routines,
    kept: Mutex<Kept>,
}

struct Kept {
    /// Whether statements may be kept: set while [`KEEPER_TABLE`] is
    /// connected (or, for a [`KeptStatements::for_one_use`], until its owner
    /// finalizes them).
    open: bool,
    statements: Vec<(String, Statement)>,
}

impl KeptStatements {
    /// A store that keeps nothing until [`KEEPER_TABLE`] is connected.
    pub fn for_connection(api: &'static Routines) -> Arc<KeptStatements> {
        Arc::new(KeptStatements {
            api,
            kept: Mutex::new(Kept {
                open: false,
                statements: Vec::new(),
            }),
        })
    }

    /// A store that keeps statements until it is finalized or dropped: for one function call, or a connection opened here.
    pub fn for_one_use(api: &'static Routines) -> Arc<KeptStatements> {
        let kept = KeptStatements::for_connection(api);
        kept.lock().open = true;
        kept
    }

    fn lock(&self) -> MutexGuard<'_, Kept> {
        // A panic while the list was held leaves it whole: it is only ever
        // pushed to, removed from or cleared.
        self.kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The statement of `sql` kept from an earlier run, if any; it is no
    /// longer kept while the caller runs it.
    pub(crate) fn take(&self, sql: &str) -> Option<Statement> {
        let mut kept = self.lock();
        let at = kept.statements.iter().position(|(text, _)| text == sql)?;
        Some(kept.statements.swap_remove(at).1)
    }

    /// Keeps `stmt`, of `sql`, reset and unbound, for the next run; finalizes
    /// it when statements may not be kept.
    pub(crate) fn keep(&self, sql: &str, stmt: Statement) {
        let mut kept = self.lock();
        if !kept.open {
            return;
        }
        if kept.statements.len() == KEPT_STATEMENTS {
            kept.statements.remove(0);
        }
        kept.statements.push((sql.to_owned(), stmt));
    }

    /// Finalizes every kept statement and keeps no more.
    pub(crate) fn finalize(&self) {
        let mut kept = self.lock();
        kept.open = false;
        kept.statements.clear();
    }
}

/// Registers [`KEEPER_TABLE`] into `db`, connected to `kept`; returns
/// SQLite's result code.
pub(crate) fn register_keeper(
    api: &'static Routines,
    db: *mut sqlite3,
    kept: &Arc<KeptStatements>,
) -> c_int {
    let Ok(name) = CString::new(KEEPER_TABLE) else {
        return SQLITE_ERROR;
    };
    let aux = Arc::into_raw(Arc::clone(kept)).cast_mut().cast::<c_void>();
    // SAFETY: the handle is open; the module is static; SQLite owns `aux`
    // from here and hands it to `drop_aux` exactly once, also on failure.
    unsafe { (api.create_module_v2)(db, name.as_ptr(), &MODULE, aux, Some(drop_aux)) }
}

/// A routine of a virtual table this one does not provide.
type Absent = Option<unsafe extern "C" fn()>;

/// `sqlite3_module`, version 1 (SQLite reads no later member of it).
#[repr(C)]
pub struct Module {
    version: c_int,
    create: Absent,
    connect: Option<
        unsafe extern "C" fn(
            *mut sqlite3,
            *mut c_void,
            c_int,
            *const *const c_char,
            *mut *mut Vtab,
            *mut *mut c_char,
        ) -> c_int,
    >,
    best_index: Option<unsafe extern "C" fn(*mut Vtab, *mut IndexInfo) -> c_int>,
    disconnect: Option<unsafe extern "C" fn(*mut Vtab) -> c_int>,
    destroy: Option<unsafe extern "C" fn(*mut Vtab) -> c_int>,
    open: Option<unsafe extern "C" fn(*mut Vtab, *mut *mut Cursor) -> c_int>,
    close: Option<unsafe extern "C" fn(*mut Cursor) -> c_int>,
    filter: Option<
        unsafe extern "C" fn(
            *mut Cursor,
            c_int,
            *const c_char,
            c_int,
            *mut *mut sqlite3_value,
        ) -> c_int,
    >,
    next: Option<unsafe extern "C" fn(*mut Cursor) -> c_int>,
    eof: Option<unsafe extern "C" fn(*mut Cursor) -> c_int>,
    column: Option<unsafe extern "C" fn(*mut Cursor, *mut sqlite3_context, c_int) -> c_int>,
    rowid: Option<unsafe extern "C" fn(*mut Cursor, *mut i64) -> c_int>,
    update: Absent,
    begin: Absent,
    sync: Absent,
    commit: Absent,
    rollback: Absent,
    find_function: Absent,
    rename: Absent,
}

/// The table's routines: it has no rows. Without `create` it is
/// eponymous-only.
static MODULE: Module = Module {
    version: 1,
    create: None,
    connect: Some(connect),
    best_index: Some(best_index),
    disconnect: Some(disconnect),
    destroy: Some(disconnect),
    open: Some(open),
    close: Some(close),
    filter: Some(filter),
    next: Some(next),
    eof: Some(eof),
    column: Some(column),
    rowid: Some(rowid),
    update: None,
    begin: None,
    sync: None,
    commit: None,
    rollback: None,
    find_function: None,
    rename: None,
};

/// `sqlite3_vtab`.
#[repr(C)]
struct Vtab {
    module: *const Module,
    references: c_int,
    error: *mut c_char,
}

/// `sqlite3_vtab_cursor`.
#[repr(C)]
struct Cursor {
    table: *mut Vtab,
}

/// The members of `sqlite3_index_info` up to the one this table sets.
#[repr(C)]
struct IndexInfo {
    constraints: c_int,
    constraint: *mut c_void,
    order_bys: c_int,
    order_by: *mut c_void,
    constraint_usage: *mut c_void,
    index_number: c_int,
    index_text: *mut c_char,
    free_index_text: c_int,
    order_by_consumed: c_int,
    estimated_cost: f64,
}

/// A connected [`KEEPER_TABLE`].
#[repr(C)]
struct Keeper {
    /// SQLite's part; first, as SQLite reads the struct as this.
    base: Vtab,
    kept: Arc<KeptStatements>,
}

unsafe extern "C" fn drop_aux(aux: *mut c_void) {
    // SAFETY: `aux` came from Arc::into_raw in `register_keeper`.
    drop(unsafe { Arc::from_raw(aux.cast_const().cast::<KeptStatements>()) });
}

unsafe extern "C" fn connect(
    db: *mut sqlite3,
    aux: *mut c_void,
    _: c_int,
    _: *const *const c_char,
    table: *mut *mut Vtab,
    _: *mut *mut c_char,
) -> c_int {
    let shared = aux.cast_const().cast::<KeptStatements>();
    // SAFETY: `aux` is the Arc registered with the module, alive until
    // `drop_aux`; this takes one more reference to it, released when
    // `disconnect` drops the table.
    let kept = unsafe {
        Arc::increment_strong_count(shared);
        Arc::from_raw(shared)
    };
    // SAFETY: `db` is the connecting connection, of the library of the
    // routines; the text is static.
    let rc = unsafe { (kept.api.declare_vtab)(db, c"CREATE TABLE x(unused)".as_ptr()) };
    if rc != SQLITE_OK {
        return rc;
    }
    kept.lock().open = true;
    let keeper = Box::new(Keeper {
        base: Vtab {
            module: std::ptr::null(),
            references: 0,
            error: std::ptr::null_mut(),
        },
        kept,
    });
    // SAFETY: SQLite passes where to write the new table.
    unsafe { *table = Box::into_raw(keeper).cast() };
    SQLITE_OK
}

/// The table is disconnected: the connection is closing (or the functions
/// were registered into it again).
unsafe extern "C" fn disconnect(table: *mut Vtab) -> c_int {
    // SAFETY: `table` came from Box::into_raw in `connect`, and SQLite
    // disconnects it once.
    let keeper = unsafe { Box::from_raw(table.cast::<Keeper>()) };
    keeper.kept.finalize();
    SQLITE_OK
}

unsafe extern "C" fn best_index(_: *mut Vtab, info: *mut IndexInfo) -> c_int {
    // SAFETY: SQLite passes the index info it is planning with.
    unsafe { (*info).estimated_cost = 1.0 };
    SQLITE_OK
}

unsafe extern "C" fn open(_: *mut Vtab, cursor: *mut *mut Cursor) -> c_int {
    let new = Box::new(Cursor {
        table: std::ptr::null_mut(),
    });
    // SAFETY: SQLite passes where to write the cursor, freed in `close`.
    unsafe { *cursor = Box::into_raw(new) };
    SQLITE_OK
}

unsafe extern "C" fn close(cursor: *mut Cursor) -> c_int {
    // SAFETY: `cursor` came from Box::into_raw in `open`, closed once.
    drop(unsafe { Box::from_raw(cursor) });
    SQLITE_OK
}

unsafe extern "C" fn filter(
    _: *mut Cursor,
    _: c_int,
    _: *const c_char,
    _: c_int,
    _: *mut *mut sqlite3_value,
) -> c_int {
    SQLITE_OK
}

unsafe extern "C" fn next(_: *mut Cursor) -> c_int {
    SQLITE_OK
}

unsafe extern "C" fn eof(_: *mut Cursor) -> c_int {
    1
}

unsafe extern "C" fn column(_: *mut Cursor, _: *mut sqlite3_context, _: c_int) -> c_int {
    SQLITE_OK
}

unsafe extern "C" fn rowid(_: *mut Cursor, rowid: *mut i64) -> c_int {
    // SAFETY: SQLite passes where to write the rowid.
    unsafe { *rowid = 0 };
    SQLITE_OK
}
