//! The routines table SQLite hands to the entry point, claimed for this
//! copy of the extension and read into the shared layer's [`Routines`].

use session_search_sqlite::{routines, Routines};
use sqlite3ext_sys::sqlite3_api_routines;
use std::ffi::{c_char, c_int};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

/// The routines table of the one SQLite library this copy of the extension
/// serves. sqlite-loadable keeps the table in a process-wide global too, and
/// the kept statements, drains and registered callbacks all call through it,
/// so connections of a second library in the same process (another copy of
/// SQLite, with its own heap and locks) would run on the first one's
/// routines and corrupt both.
static ROUTINES: AtomicPtr<sqlite3_api_routines> = AtomicPtr::new(null_mut());

/// The routines of [`ROUTINES`], `None` when the table lacks one.
static API: OnceLock<Option<Routines>> = OnceLock::new();

/// Records the routines table passed to the entry point, unless a table of
/// another SQLite library was recorded before: each library passes the same
/// table, its own, to every load. Returns the routines read from it.
///
/// # Errors
///
/// The message to report when another library's table is recorded, or
/// this one lacks a routine.
///
/// # Safety
///
/// `routines` must be the table SQLite passed to the entry point.
pub unsafe fn claim_routines(
    routines: *mut sqlite3_api_routines,
) -> Result<&'static Routines, &'static str> {
    match ROUTINES.compare_exchange(null_mut(), routines, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => {}
        Err(recorded) if recorded == routines => {}
        Err(_) => return Err(ANOTHER_LIBRARY),
    }
    // SAFETY: `routines` is SQLite's table (the caller's), which it keeps
    // alive; the one recorded, so the same at every call.
    API.get_or_init(|| unsafe { read(routines) })
        .as_ref()
        .ok_or(TOO_OLD)
}

/// The routines claimed by the entry point.
pub fn api() -> Option<&'static Routines> {
    API.get()?.as_ref()
}

/// The routines of `table`; `None` when it lacks one.
///
/// # Safety
///
/// `table` must be null or a routines table SQLite passed to an entry point.
unsafe fn read(table: *mut sqlite3_api_routines) -> Option<Routines> {
    // SAFETY: the caller's.
    let table = unsafe { table.as_ref() }?;
    macro_rules! address {
        ($field:ident, $name:ident) => {
            table.$field? as *const ()
        };
    }
    // SAFETY: each member of SQLite's table is the routine `sqlite3_` and
    // its name, as `routines!` takes it.
    Some(unsafe { routines!(address) })
}

/// Why a load into a second SQLite library is refused.
const ANOTHER_LIBRARY: &str = "session-search is already loaded into another SQLite library in this process; \
     a loaded copy of the extension serves one SQLite library (pysqlite3, sqlean and apsw each carry their own): \
     load a copy of the file under another path into this one";

/// Why a load into a SQLite without a routine the extension calls is refused.
const TOO_OLD: &str = "session-search needs SQLite 3.40 or later";

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
