//! session-search as a SQLite loadable extension.
//!
//! The library loads under any file name without naming an entry point:
//! SQLite first looks for [`sqlite3_extension_init`], so cargo's own
//! `libsession_search_ext.so`, `dist/session_search.so` and any renamed copy
//! all load; [`sqlite3_sessionsearch_init`] is the name SQLite's naming rule
//! derives from `session_search.so`, for hosts that name it. It registers the
//! `sessions` FTS5 tokenizer, the `sessions_rank` FTS5 function and every function of the engine's
//! [`FUNCTIONS`] table; their logic lives in `session-search-engine`, this
//! crate only adapts values.
//!
//! One loaded copy serves one SQLite library: a load into a connection of
//! another SQLite library in the same process is refused with an error.

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod routines;

use session_search_engine::db::Value;
use session_search_engine::drain;
use session_search_engine::fts5;
use session_search_engine::sql_functions::{Function, FUNCTIONS};
use session_search_sqlite::{KeptStatements, RawConnection, Routines};
use sqlite_loadable::prelude::*;
use sqlite_loadable::{api, define_scalar_function, Error, Result};
use std::panic::catch_unwind;
use std::sync::Arc;

/// The code of the refused load.
const SQLITE_ERROR: c_uint = 1;

/// Entry point called by `sqlite3_load_extension` when the host names none,
/// whatever the file is called.
///
/// # Safety
///
/// Called by SQLite with an open connection and its API routines.
#[no_mangle]
pub unsafe extern "C" fn sqlite3_extension_init(
    db: *mut sqlite3,
    err: *mut *mut c_char,
    routines: *mut sqlite3_api_routines,
) -> c_uint {
    // SAFETY: SQLite passes its routines table.
    let api = match unsafe { routines::claim_routines(routines) } {
        Ok(api) => api,
        Err(message) => {
            // SAFETY: SQLite passes its routines table and the error pointer
            // of this load.
            unsafe { routines::report_load_error(routines, err, message) };
            return SQLITE_ERROR;
        }
    };
    register_entrypoint(db, err, routines, |db| register(api, db))
}

/// The same entry point under the name SQLite derives from
/// `session_search.so`, for hosts that pass it explicitly.
///
/// # Safety
///
/// As [`sqlite3_extension_init`].
#[no_mangle]
pub unsafe extern "C" fn sqlite3_sessionsearch_init(
    db: *mut sqlite3,
    err: *mut *mut c_char,
    routines: *mut sqlite3_api_routines,
) -> c_uint {
    // SAFETY: the caller's guarantees are those of sqlite3_extension_init.
    unsafe { sqlite3_extension_init(db, err, routines) }
}

fn register(api: &'static Routines, db: *mut sqlite3) -> Result<()> {
    // The handle types are sqlite3ext-sys's and the shared layer's, both
    // opaque.
    let db_ffi = db.cast::<session_search_sqlite::sqlite3>();
    // SAFETY: SQLite passes an open connection of the library of `api`,
    // which outlives the registration.
    let conn = unsafe { RawConnection::new(api, db_ffi) };
    let fts5_api = conn
        .fts5_api()
        .map_err(|e| Error::new_message(&e.message))?;
    // SAFETY: `fts5_api` was just returned by this connection's FTS5.
    unsafe { fts5::register_tokenizer(fts5_api) }
        .map_err(|e| Error::new_message(&e.to_string()))?;
    // SAFETY: as above; the routines are this SQLite's.
    unsafe { fts5::register_rank_function(fts5_api, &api.aux) }
        .map_err(|e| Error::new_message(&e.to_string()))?;
    let kept = KeptStatements::for_connection(api);
    for function in FUNCTIONS {
        let mut flags = FunctionFlags::UTF8;
        if function.deterministic {
            flags |= FunctionFlags::DETERMINISTIC;
        }
        for &arity in function.arities {
            let adapter = adapter(api, function, &kept);
            define_scalar_function(db, function.name, arity, adapter, flags)?;
        }
    }
    conn.connect_keeper(&kept)
        .map_err(|e| Error::new_message(&e.message))
}

/// Starts a background drain of `file`, on a connection of its own.
fn start_drain(file: &str) -> bool {
    let owned = file.to_owned();
    drain::start(file, move || drain_connection(&owned))
}

/// A connection of its own for a background drain of `file`, with every
/// function registered as on a connection that loaded the extension.
fn drain_connection(file: &str) -> Option<RawConnection> {
    let api = routines::api()?;
    let conn = RawConnection::open(api, file)?;
    register(api, conn.handle().cast()).ok()?;
    Some(conn)
}

/// The sqlite-loadable callback that runs `function`.
fn adapter(
    api: &'static Routines,
    function: &'static Function,
    kept: &Arc<KeptStatements>,
) -> impl Fn(*mut sqlite3_context, &[*mut sqlite3_value]) -> Result<()> {
    let kept = Arc::clone(kept);
    move |context, values| {
        let result = catch_unwind(|| {
            // SAFETY: SQLite passes the protected values of this call, on
            // this thread.
            let args: Vec<Value> = values
                .iter()
                .map(|v| unsafe { api.value(v.cast()) })
                .collect();
            // SAFETY: SQLite passes the live context of this call.
            let conn =
                unsafe { RawConnection::of_context(api, context.cast(), &kept, Some(start_drain)) };
            (function.body)(&conn, &args)
        })
        .unwrap_or_else(|_| Err(format!("{}: internal error (panic)", function.name)));
        match result {
            Ok(Value::Null) => {
                api::result_null(context);
                Ok(())
            }
            Ok(Value::Integer(i)) => {
                api::result_int64(context, i);
                Ok(())
            }
            Ok(Value::Real(r)) => {
                api::result_double(context, r);
                Ok(())
            }
            Ok(Value::Text(text)) => api::result_text(context, text),
            Ok(Value::Blob(blob)) => {
                api::result_blob(context, &blob);
                Ok(())
            }
            Err(message) => Err(Error::new_message(&message)),
        }
    }
}
