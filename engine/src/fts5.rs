//! The FTS5 C ABI: the structs of `fts5.h` that registration needs, and the
//! three callbacks of the `sessions` tokenizer.
//!
//! This is the only module of the engine that touches raw pointers. It does
//! not call SQLite itself: the extension and the wrapper each fetch the
//! `fts5_api` pointer through their own SQLite binding (`SELECT fts5(?1)` with
//! the pointer bound as type `fts5_api_ptr`) and hand it to
//! [`register_tokenizer`]. See <https://sqlite.org/fts5.html#custom_tokenizers>.

use crate::tokenizer::{Options, Tokenizer};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The name the tokenizer is registered under.
pub const TOKENIZER_NAME: &CStr = c"sessions";

const SQLITE_OK: c_int = 0;
const SQLITE_ERROR: c_int = 1;

/// Opaque tokenizer instance (`Fts5Tokenizer` in `fts5.h`).
#[repr(C)]
pub struct Fts5Tokenizer {
    _private: [u8; 0],
}

/// `xToken`: the callback FTS5 passes to `xTokenize`.
pub type TokenCallback = unsafe extern "C" fn(
    ctx: *mut c_void,
    flags: c_int,
    token: *const c_char,
    token_len: c_int,
    start: c_int,
    end: c_int,
) -> c_int;

/// `fts5_tokenizer` (version 1 of the tokenizer interface, which every FTS5
/// accepts).
#[repr(C)]
pub struct Fts5TokenizerMethods {
    x_create: Option<
        unsafe extern "C" fn(
            *mut c_void,
            *const *const c_char,
            c_int,
            *mut *mut Fts5Tokenizer,
        ) -> c_int,
    >,
    x_delete: Option<unsafe extern "C" fn(*mut Fts5Tokenizer)>,
    x_tokenize: Option<
        unsafe extern "C" fn(
            *mut Fts5Tokenizer,
            *mut c_void,
            c_int,
            *const c_char,
            c_int,
            Option<TokenCallback>,
        ) -> c_int,
    >,
}

/// The leading, stable part of `fts5_api`; versions after 2 only append.
#[repr(C)]
pub struct Fts5Api {
    /// 2 up to SQLite 3.46, 3 from 3.47.
    pub i_version: c_int,
    x_create_tokenizer: Option<
        unsafe extern "C" fn(
            *mut Fts5Api,
            *const c_char,
            *mut c_void,
            *mut Fts5TokenizerMethods,
            Option<unsafe extern "C" fn(*mut c_void)>,
        ) -> c_int,
    >,
    x_find_tokenizer: Option<unsafe extern "C" fn()>,
    x_create_function: Option<unsafe extern "C" fn()>,
}

/// Why the tokenizer could not be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterError {
    /// `SELECT fts5(?1)` gave no pointer: this SQLite has no FTS5.
    NoFts5,
    /// The `fts5_api` is older than version 2.
    UnsupportedVersion(i32),
    /// `xCreateTokenizer` failed with this SQLite result code.
    Sqlite(i32),
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterError::NoFts5 => write!(f, "this SQLite was built without FTS5"),
            RegisterError::UnsupportedVersion(v) => {
                write!(f, "fts5_api version {v} is too old (need 2 or later)")
            }
            RegisterError::Sqlite(rc) => write!(f, "xCreateTokenizer failed with code {rc}"),
        }
    }
}

impl std::error::Error for RegisterError {}

/// Registers the `sessions` tokenizer with FTS5.
///
/// # Safety
///
/// `api` must be null or the `fts5_api` pointer that SQLite returned for a
/// connection that is still open.
///
/// # Errors
///
/// [`RegisterError`] when the pointer is null, the API too old, or FTS5
/// refuses the registration.
pub unsafe fn register_tokenizer(api: *mut Fts5Api) -> Result<(), RegisterError> {
    if api.is_null() {
        return Err(RegisterError::NoFts5);
    }
    // SAFETY: the caller guarantees `api` points to a live fts5_api; its first
    // four fields have had this layout since version 2, checked next.
    let version = unsafe { (*api).i_version };
    if version < 2 {
        return Err(RegisterError::UnsupportedVersion(version));
    }
    // SAFETY: as above; the field is set by FTS5 for every version ≥ 2.
    let Some(create) = (unsafe { (*api).x_create_tokenizer }) else {
        return Err(RegisterError::NoFts5);
    };
    let mut methods = Fts5TokenizerMethods {
        x_create: Some(x_create),
        x_delete: Some(x_delete),
        x_tokenize: Some(x_tokenize),
    };
    // SAFETY: the name is NUL-terminated and static; FTS5 copies `methods`
    // before returning; no user data, so no destructor.
    let rc = unsafe {
        create(
            api,
            TOKENIZER_NAME.as_ptr(),
            std::ptr::null_mut(),
            &mut methods,
            None,
        )
    };
    if rc == SQLITE_OK {
        Ok(())
    } else {
        Err(RegisterError::Sqlite(rc))
    }
}

/// What an `Fts5Tokenizer` pointer really points to.
struct Instance {
    options: Options,
    tokenizer: RefCell<Tokenizer>,
}

/// `xCreate`: parses the arguments into a new instance.
unsafe extern "C" fn x_create(
    _user_data: *mut c_void,
    args: *const *const c_char,
    arg_count: c_int,
    out: *mut *mut Fts5Tokenizer,
) -> c_int {
    let result = catch_unwind(|| {
        let count = usize::try_from(arg_count).unwrap_or(0);
        let args: Vec<String> = (0..count)
            .map(|i| {
                // SAFETY: FTS5 passes `arg_count` valid NUL-terminated strings.
                unsafe { CStr::from_ptr(*args.add(i)) }
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        Options::parse(&args)
    });
    match result {
        Ok(Ok(options)) => {
            let instance = Box::new(Instance {
                options,
                tokenizer: RefCell::new(Tokenizer::new(options)),
            });
            // SAFETY: `out` is a valid out-pointer provided by FTS5.
            unsafe { *out = Box::into_raw(instance).cast() };
            SQLITE_OK
        }
        Ok(Err(_)) | Err(_) => SQLITE_ERROR,
    }
}

/// `xDelete`: frees an instance made by [`x_create`].
unsafe extern "C" fn x_delete(tokenizer: *mut Fts5Tokenizer) {
    if !tokenizer.is_null() {
        // SAFETY: the pointer came from Box::into_raw in x_create and FTS5
        // deletes each instance once.
        drop(unsafe { Box::from_raw(tokenizer.cast::<Instance>()) });
    }
}

/// `xTokenize`: runs the tokenizer and forwards every token to `x_token`,
/// returning at once any code other than `SQLITE_OK` that it gives.
/// Documents and queries are tokenized alike, so the FTS5 flags are unused.
unsafe extern "C" fn x_tokenize(
    tokenizer: *mut Fts5Tokenizer,
    ctx: *mut c_void,
    _flags: c_int,
    text: *const c_char,
    text_len: c_int,
    x_token: Option<TokenCallback>,
) -> c_int {
    let (Some(x_token), false) = (x_token, tokenizer.is_null()) else {
        return SQLITE_ERROR;
    };
    let bytes: &[u8] = match usize::try_from(text_len) {
        Ok(len) if len > 0 && !text.is_null() => {
            // SAFETY: FTS5 passes `text_len` readable bytes at `text`, alive
            // for the duration of this call.
            unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) }
        }
        _ => return SQLITE_OK,
    };
    // SAFETY: the pointer came from x_create and is alive until x_delete.
    let instance = unsafe { &*tokenizer.cast::<Instance>() };
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut emit = |token: crate::tokenizer::Token<'_>| {
            // Lengths and offsets fit: the text is at most `c_int::MAX` long.
            // SAFETY: `x_token` and `ctx` are the pair FTS5 gave us; the token
            // text is valid for the call.
            let rc = unsafe {
                x_token(
                    ctx,
                    0,
                    token.text.as_ptr().cast(),
                    token.text.len() as c_int,
                    token.start as c_int,
                    token.end as c_int,
                )
            };
            if rc == SQLITE_OK {
                Ok(())
            } else {
                Err(rc)
            }
        };
        match instance.tokenizer.try_borrow_mut() {
            Ok(mut tokenizer) => tokenizer.tokenize(bytes, &mut emit),
            // Re-entered from inside `x_token`: use fresh scratch buffers.
            Err(_) => Tokenizer::new(instance.options).tokenize(bytes, &mut emit),
        }
    }));
    match result {
        Ok(Ok(())) => SQLITE_OK,
        Ok(Err(rc)) => rc,
        Err(_) => SQLITE_ERROR,
    }
}
