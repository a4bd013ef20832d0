//! The SQLite C API as session-search uses it, written once for its two
//! bindings: the loadable extension calls SQLite through the routines table
//! SQLite hands to its entry point, the rusqlite wrapper through the library
//! rusqlite links. Each builds one [`Routines`] of the addresses of those
//! functions with [`routines!`]; everything here calls SQLite through it.
//!
//! [`RawConnection`] is the engine's [`Connection`](session_search_engine::db::Connection)
//! over a raw handle, with its statements kept across function calls
//! ([`KeptStatements`], finalized by the eponymous table [`KEEPER_TABLE`]).

#![deny(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod connection;
mod kept;

pub use connection::{RawConnection, Statement};
pub use kept::{KeptStatements, Module, KEEPER_TABLE};
#[doc(hidden)]
pub use session_search_engine::fts5::Routines as AuxRoutines;

use session_search_engine::db::Value;
use std::ffi::{c_char, c_int, c_uchar, c_void};

/// Declares opaque C types, only ever used behind pointers.
macro_rules! opaque {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[allow(non_camel_case_types)]
        #[repr(C)]
        pub struct $name {
            _private: [u8; 0],
        }
    )*};
}

opaque!(
    /// A database connection.
    sqlite3,
    /// A prepared statement.
    sqlite3_stmt,
    /// A protected or unprotected value.
    sqlite3_value,
    /// The context of a function call.
    sqlite3_context,
    /// A virtual file system.
    sqlite3_vfs,
);

/// The destructor argument of the bind routines.
pub type Destructor = Option<unsafe extern "C" fn(*mut c_void)>;

/// The SQLite routines session-search calls, all of one SQLite library.
/// Built by [`routines!`]; the pointer types are this crate's, which pass
/// exactly as the C declarations' do.
#[allow(missing_docs)]
pub struct Routines {
    pub prepare_v2: unsafe extern "C" fn(
        *mut sqlite3,
        *const c_char,
        c_int,
        *mut *mut sqlite3_stmt,
        *mut *const c_char,
    ) -> c_int,
    pub step: unsafe extern "C" fn(*mut sqlite3_stmt) -> c_int,
    pub reset: unsafe extern "C" fn(*mut sqlite3_stmt) -> c_int,
    pub clear_bindings: unsafe extern "C" fn(*mut sqlite3_stmt) -> c_int,
    pub finalize: unsafe extern "C" fn(*mut sqlite3_stmt) -> c_int,
    pub errmsg: unsafe extern "C" fn(*mut sqlite3) -> *const c_char,
    pub extended_errcode: unsafe extern "C" fn(*mut sqlite3) -> c_int,
    pub column_count: unsafe extern "C" fn(*mut sqlite3_stmt) -> c_int,
    pub column_value: unsafe extern "C" fn(*mut sqlite3_stmt, c_int) -> *mut sqlite3_value,
    pub value_type: unsafe extern "C" fn(*mut sqlite3_value) -> c_int,
    pub value_int64: unsafe extern "C" fn(*mut sqlite3_value) -> i64,
    pub value_double: unsafe extern "C" fn(*mut sqlite3_value) -> f64,
    pub value_text: unsafe extern "C" fn(*mut sqlite3_value) -> *const c_uchar,
    pub value_blob: unsafe extern "C" fn(*mut sqlite3_value) -> *const c_void,
    pub value_bytes: unsafe extern "C" fn(*mut sqlite3_value) -> c_int,
    pub bind_null: unsafe extern "C" fn(*mut sqlite3_stmt, c_int) -> c_int,
    pub bind_int64: unsafe extern "C" fn(*mut sqlite3_stmt, c_int, i64) -> c_int,
    pub bind_double: unsafe extern "C" fn(*mut sqlite3_stmt, c_int, f64) -> c_int,
    pub bind_text64: unsafe extern "C" fn(
        *mut sqlite3_stmt,
        c_int,
        *const c_char,
        u64,
        Destructor,
        c_uchar,
    ) -> c_int,
    pub bind_blob64:
        unsafe extern "C" fn(*mut sqlite3_stmt, c_int, *const c_void, u64, Destructor) -> c_int,
    pub bind_pointer: unsafe extern "C" fn(
        *mut sqlite3_stmt,
        c_int,
        *mut c_void,
        *const c_char,
        Destructor,
    ) -> c_int,
    pub db_filename: unsafe extern "C" fn(*mut sqlite3, *const c_char) -> *const c_char,
    pub db_readonly: unsafe extern "C" fn(*mut sqlite3, *const c_char) -> c_int,
    pub file_control:
        unsafe extern "C" fn(*mut sqlite3, *const c_char, c_int, *mut c_void) -> c_int,
    pub vfs_find: unsafe extern "C" fn(*const c_char) -> *mut sqlite3_vfs,
    pub threadsafe: unsafe extern "C" fn() -> c_int,
    pub context_db_handle: unsafe extern "C" fn(*mut sqlite3_context) -> *mut sqlite3,
    pub create_module_v2: unsafe extern "C" fn(
        *mut sqlite3,
        *const c_char,
        *const kept::Module,
        *mut c_void,
        Destructor,
    ) -> c_int,
    pub declare_vtab: unsafe extern "C" fn(*mut sqlite3, *const c_char) -> c_int,
    pub open_v2:
        unsafe extern "C" fn(*const c_char, *mut *mut sqlite3, c_int, *const c_char) -> c_int,
    pub busy_timeout: unsafe extern "C" fn(*mut sqlite3, c_int) -> c_int,
    pub close: unsafe extern "C" fn(*mut sqlite3) -> c_int,
    /// The four the engine's FTS5 auxiliary functions call.
    pub aux: AuxRoutines,
}

/// Builds the [`Routines`] of one SQLite library, in an `unsafe` block:
/// `$address!(field, sqlite3_name)` gives the address (as `*const ()`) of
/// the routine `sqlite3_name`, the member `field` of SQLite's
/// loadable-extension routines table.
#[macro_export]
macro_rules! routines {
    ($address:ident) => {
        $crate::Routines {
            prepare_v2: $crate::to_fn($address!(prepare_v2, sqlite3_prepare_v2)),
            step: $crate::to_fn($address!(step, sqlite3_step)),
            reset: $crate::to_fn($address!(reset, sqlite3_reset)),
            clear_bindings: $crate::to_fn($address!(clear_bindings, sqlite3_clear_bindings)),
            finalize: $crate::to_fn($address!(finalize, sqlite3_finalize)),
            errmsg: $crate::to_fn($address!(errmsg, sqlite3_errmsg)),
            extended_errcode: $crate::to_fn($address!(extended_errcode, sqlite3_extended_errcode)),
            column_count: $crate::to_fn($address!(column_count, sqlite3_column_count)),
            column_value: $crate::to_fn($address!(column_value, sqlite3_column_value)),
            value_type: $crate::to_fn($address!(value_type, sqlite3_value_type)),
            value_int64: $crate::to_fn($address!(value_int64, sqlite3_value_int64)),
            value_double: $crate::to_fn($address!(value_double, sqlite3_value_double)),
            value_text: $crate::to_fn($address!(value_text, sqlite3_value_text)),
            value_blob: $crate::to_fn($address!(value_blob, sqlite3_value_blob)),
            value_bytes: $crate::to_fn($address!(value_bytes, sqlite3_value_bytes)),
            bind_null: $crate::to_fn($address!(bind_null, sqlite3_bind_null)),
            bind_int64: $crate::to_fn($address!(bind_int64, sqlite3_bind_int64)),
            bind_double: $crate::to_fn($address!(bind_double, sqlite3_bind_double)),
            bind_text64: $crate::to_fn($address!(bind_text64, sqlite3_bind_text64)),
            bind_blob64: $crate::to_fn($address!(bind_blob64, sqlite3_bind_blob64)),
            bind_pointer: $crate::to_fn($address!(bind_pointer, sqlite3_bind_pointer)),
            db_filename: $crate::to_fn($address!(db_filename, sqlite3_db_filename)),
            db_readonly: $crate::to_fn($address!(db_readonly, sqlite3_db_readonly)),
            file_control: $crate::to_fn($address!(file_control, sqlite3_file_control)),
            vfs_find: $crate::to_fn($address!(vfs_find, sqlite3_vfs_find)),
            threadsafe: $crate::to_fn($address!(xthreadsafe, sqlite3_threadsafe)),
            context_db_handle: $crate::to_fn($address!(
                context_db_handle,
                sqlite3_context_db_handle
            )),
            create_module_v2: $crate::to_fn($address!(create_module_v2, sqlite3_create_module_v2)),
            declare_vtab: $crate::to_fn($address!(declare_vtab, sqlite3_declare_vtab)),
            open_v2: $crate::to_fn($address!(open_v2, sqlite3_open_v2)),
            busy_timeout: $crate::to_fn($address!(busy_timeout, sqlite3_busy_timeout)),
            close: $crate::to_fn($address!(close, sqlite3_close)),
            aux: $crate::AuxRoutines {
                value_type: $crate::to_fn($address!(value_type, sqlite3_value_type)),
                value_int64: $crate::to_fn($address!(value_int64, sqlite3_value_int64)),
                result_double: $crate::to_fn($address!(result_double, sqlite3_result_double)),
                result_error_code: $crate::to_fn($address!(
                    result_error_code,
                    sqlite3_result_error_code
                )),
            },
        }
    };
}

/// The function pointer of type `F` at `address`.
///
/// # Safety
///
/// `address` must be that of a C function whose declaration `F` matches,
/// up to the types pointer arguments and results point to (which Rust
/// passes alike: see "ABI compatibility" in the documentation of `fn`).
#[doc(hidden)]
pub unsafe fn to_fn<F: Copy>(address: *const ()) -> F {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*const ()>()) };
    // SAFETY: `F` is a function pointer type of the size of `address`
    // (asserted above) that matches the function there (the caller's).
    unsafe { std::mem::transmute_copy(&address) }
}

const SQLITE_INTEGER: c_int = 1;
const SQLITE_FLOAT: c_int = 2;
const SQLITE_TEXT: c_int = 3;
const SQLITE_BLOB: c_int = 4;

impl Routines {
    /// Reads a function argument or column value.
    ///
    /// # Safety
    ///
    /// `value` must be a live value of this library, used by no other
    /// thread during the call.
    pub unsafe fn value(&self, value: *mut sqlite3_value) -> Value {
        // SAFETY: `value` is live (the caller's); text and blob pointers are
        // valid for `value_bytes` bytes and copied before returning.
        unsafe {
            match (self.value_type)(value) {
                SQLITE_INTEGER => Value::Integer((self.value_int64)(value)),
                SQLITE_FLOAT => Value::Real((self.value_double)(value)),
                SQLITE_TEXT => {
                    let text = bytes((self.value_text)(value), (self.value_bytes)(value));
                    match std::str::from_utf8(text) {
                        Ok(text) => Value::Text(text.to_owned()),
                        Err(_) => Value::Blob(text.to_vec()),
                    }
                }
                SQLITE_BLOB => Value::Blob(
                    bytes((self.value_blob)(value).cast(), (self.value_bytes)(value)).to_vec(),
                ),
                _ => Value::Null,
            }
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
