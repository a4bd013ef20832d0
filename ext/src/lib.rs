//! session-search as a SQLite loadable extension.
//!
//! `.load dist/session_search` finds the entry point
//! [`sqlite3_sessionsearch_init`] by SQLite's naming rule. It registers the
//! `sessions` FTS5 tokenizer and the SQL functions; their logic lives in
//! `session-search-engine`, this crate only adapts values.

use session_search_engine::{fts5, sql_functions};
use sqlite_loadable::ext::{
    sqlite3ext_bind_pointer, sqlite3ext_finalize, sqlite3ext_prepare_v2, sqlite3ext_step,
};
use sqlite_loadable::prelude::*;
use sqlite_loadable::{api, define_scalar_function, Error, FunctionFlags, Result};
use std::ffi::c_void;

/// Entry point called by `sqlite3_load_extension`.
#[sqlite_entrypoint]
pub fn sqlite3_sessionsearch_init(db: *mut sqlite3) -> Result<()> {
    register(db)
}

fn register(db: *mut sqlite3) -> Result<()> {
    // SAFETY: `db` is the open connection SQLite is loading us into.
    let api = unsafe { fts5_api(db) }?;
    // SAFETY: `api` was just returned by this connection's FTS5.
    unsafe { fts5::register_tokenizer(api) }.map_err(|e| Error::new_message(&e.to_string()))?;
    let deterministic = FunctionFlags::UTF8 | FunctionFlags::DETERMINISTIC;
    define_scalar_function(db, "sessions_version", 0, sessions_version, deterministic)?;
    define_scalar_function(db, "sessions_tokenize", 1, sessions_tokenize, deterministic)?;
    define_scalar_function(db, "sessions_tokenize", 2, sessions_tokenize, deterministic)?;
    Ok(())
}

/// Fetches the connection's `fts5_api` with `SELECT fts5(?1)`.
///
/// # Safety
///
/// `db` must be an open connection.
unsafe fn fts5_api(db: *mut sqlite3) -> Result<*mut fts5::Fts5Api> {
    let sql = c"SELECT fts5(?1)";
    let mut stmt = std::ptr::null_mut();
    // SAFETY: `db` is open and `sql` NUL-terminated (length -1).
    let rc =
        unsafe { sqlite3ext_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, std::ptr::null_mut()) };
    if rc != 0 || stmt.is_null() {
        return Err(Error::new_message(
            "session_search: this SQLite has no FTS5",
        ));
    }
    let mut api: *mut fts5::Fts5Api = std::ptr::null_mut();
    // SAFETY: `stmt` is a live statement; `api` outlives the step below, where
    // FTS5 writes the pointer into it; the type name is static.
    unsafe {
        sqlite3ext_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut fts5::Fts5Api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
        );
        sqlite3ext_step(stmt);
        sqlite3ext_finalize(stmt);
    }
    Ok(api)
}

/// `sessions_version()`.
fn sessions_version(context: *mut sqlite3_context, _values: &[*mut sqlite3_value]) -> Result<()> {
    api::result_text(context, sql_functions::version())
}

/// `sessions_tokenize(text [, args])`.
fn sessions_tokenize(context: *mut sqlite3_context, values: &[*mut sqlite3_value]) -> Result<()> {
    let text = api::value_blob(&values[0]);
    let args = match values.get(1) {
        Some(value) => api::value_text(value)
            .map_err(|_| Error::new_message("sessions_tokenize: args must be UTF-8 text"))?,
        None => "",
    };
    match sql_functions::tokenize(text, args) {
        Ok(json) => api::result_text(context, json),
        Err(e) => Err(Error::new_message(&e.to_string())),
    }
}
