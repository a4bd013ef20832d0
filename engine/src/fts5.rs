//! The FTS5 C ABI: the structs of `fts5.h` that registration needs, the
//! three callbacks of the `sessions` tokenizer, and the `sessions_rank`
//! auxiliary function ([`crate::rank`] holds its arithmetic).
//!
//! This is the only module of the engine that touches raw pointers. It does
//! not call SQLite itself: the extension and the wrapper each fetch the
//! `fts5_api` pointer through their own SQLite binding (`SELECT fts5(?1)` with
//! the pointer bound as type `fts5_api_ptr`) and hand it to
//! [`register_tokenizer`] and [`register_rank_function`]. See
//! <https://sqlite.org/fts5.html#custom_tokenizers> and
//! <https://sqlite.org/fts5.html#custom_auxiliary_functions>.

use crate::index_tokens;
use crate::rank::{estimate_hits, BestRanks, Bm25, RankTotals};
use crate::tokenizer::{Options, Token, Tokenizer};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The name the tokenizer is registered under.
pub const TOKENIZER_NAME: &CStr = c"sessions";

const SQLITE_OK: c_int = 0;
const SQLITE_ERROR: c_int = 1;
const SQLITE_INTEGER: c_int = 1;
const SQLITE_DONE: c_int = 101;
/// `xTokenize` flag: the text is a query.
const FTS5_TOKENIZE_QUERY: c_int = 0x0001;
/// `xTokenize` flag: the text is a document being indexed or deleted.
const FTS5_TOKENIZE_DOCUMENT: c_int = 0x0004;
/// `xToken` flag: the token is at the same position as the previous one.
const FTS5_TOKEN_COLOCATED: c_int = 0x0001;

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
    x_create_function: Option<
        unsafe extern "C" fn(
            *mut Fts5Api,
            *const c_char,
            *mut c_void,
            AuxFunction,
            Option<unsafe extern "C" fn(*mut c_void)>,
        ) -> c_int,
    >,
}

/// Why the tokenizer could not be registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterError {
    /// `SELECT fts5(?1)` gave no pointer: this SQLite has no FTS5.
    NoFts5,
    /// The `fts5_api` is older than version 2.
    UnsupportedVersion(i32),
    /// `xCreateTokenizer` or `xCreateFunction` failed with this SQLite result
    /// code.
    Sqlite(i32),
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterError::NoFts5 => write!(f, "this SQLite was built without FTS5"),
            RegisterError::UnsupportedVersion(v) => {
                write!(f, "fts5_api version {v} is too old (need 2 or later)")
            }
            RegisterError::Sqlite(rc) => write!(f, "FTS5 refused a registration with code {rc}"),
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
    // SAFETY: passed on from the caller.
    let api_ref = unsafe { checked(api) }?;
    let Some(create) = api_ref.x_create_tokenizer else {
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

/// `api` as a reference, once it is known to be a usable `fts5_api`.
///
/// # Safety
///
/// As for [`register_tokenizer`].
unsafe fn checked<'a>(api: *mut Fts5Api) -> Result<&'a Fts5Api, RegisterError> {
    if api.is_null() {
        return Err(RegisterError::NoFts5);
    }
    // SAFETY: the caller guarantees `api` points to a live fts5_api; its first
    // four fields have had this layout since version 2, checked next.
    let api = unsafe { &*api };
    if api.i_version < 2 {
        return Err(RegisterError::UnsupportedVersion(api.i_version));
    }
    Ok(api)
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
/// Documents and queries are tokenized alike; with `markers 1`, documents
/// also get the index's own tokens and queries may ask for them (see
/// [`index_tokens`]).
unsafe extern "C" fn x_tokenize(
    tokenizer: *mut Fts5Tokenizer,
    ctx: *mut c_void,
    flags: c_int,
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
        let mut emit = |token: Token<'_>, colocated: bool| {
            // Lengths and offsets fit: the text is at most `c_int::MAX` long.
            // SAFETY: `x_token` and `ctx` are the pair FTS5 gave us; the token
            // text is valid for the call.
            ok(unsafe {
                x_token(
                    ctx,
                    if colocated { FTS5_TOKEN_COLOCATED } else { 0 },
                    token.text.as_ptr().cast(),
                    token.text.len() as c_int,
                    token.start as c_int,
                    token.end as c_int,
                )
            })
        };
        let markers = instance.options.markers;
        let document = markers && flags & FTS5_TOKENIZE_DOCUMENT != 0;
        let query = markers && flags & FTS5_TOKENIZE_QUERY != 0;
        let mut run = |tokenizer: &mut Tokenizer| {
            if document {
                index_tokens::tokenize_document(tokenizer, bytes, &mut emit)
            } else if query {
                index_tokens::tokenize_query(tokenizer, bytes, &mut |t| emit(t, false))
            } else {
                tokenizer.tokenize(bytes, &mut |t| emit(t, false))
            }
        };
        match instance.tokenizer.try_borrow_mut() {
            Ok(mut tokenizer) => run(&mut tokenizer),
            // Re-entered from inside `x_token`: use fresh scratch buffers.
            Err(_) => run(&mut Tokenizer::new(instance.options)),
        }
    }));
    match result {
        Ok(Ok(())) => SQLITE_OK,
        Ok(Err(rc)) => rc,
        Err(_) => SQLITE_ERROR,
    }
}

/// The name the rank function is registered under.
pub const RANK_FUNCTION_NAME: &CStr = c"sessions_rank";

/// Opaque FTS5 cursor context (`Fts5Context` in `fts5.h`).
#[repr(C)]
pub struct Fts5Context {
    _private: [u8; 0],
}

/// `fts5_extension_function`: an auxiliary function's C signature.
pub type AuxFunction = Option<
    unsafe extern "C" fn(
        *const Fts5ExtensionApi,
        *mut Fts5Context,
        *mut c_void,
        c_int,
        *mut *mut c_void,
    ),
>;

type QueryPhraseCallback =
    unsafe extern "C" fn(*const Fts5ExtensionApi, *mut Fts5Context, *mut c_void) -> c_int;

/// The leading part of `Fts5ExtensionApi` that `sessions_rank` uses; later
/// versions only append members.
#[repr(C)]
pub struct Fts5ExtensionApi {
    i_version: c_int,
    x_user_data: unsafe extern "C" fn(*mut Fts5Context) -> *mut c_void,
    x_column_count: unsafe extern "C" fn(*mut Fts5Context) -> c_int,
    x_row_count: unsafe extern "C" fn(*mut Fts5Context, *mut i64) -> c_int,
    x_column_total_size: unsafe extern "C" fn(*mut Fts5Context, c_int, *mut i64) -> c_int,
    x_tokenize: unsafe extern "C" fn(),
    x_phrase_count: unsafe extern "C" fn(*mut Fts5Context) -> c_int,
    x_phrase_size: unsafe extern "C" fn(*mut Fts5Context, c_int) -> c_int,
    x_inst_count: unsafe extern "C" fn(*mut Fts5Context, *mut c_int) -> c_int,
    x_inst:
        unsafe extern "C" fn(*mut Fts5Context, c_int, *mut c_int, *mut c_int, *mut c_int) -> c_int,
    x_rowid: unsafe extern "C" fn(*mut Fts5Context) -> i64,
    x_column_text: unsafe extern "C" fn(),
    x_column_size: unsafe extern "C" fn(*mut Fts5Context, c_int, *mut c_int) -> c_int,
    x_query_phrase:
        unsafe extern "C" fn(*mut Fts5Context, c_int, *mut c_void, QueryPhraseCallback) -> c_int,
    x_set_auxdata: unsafe extern "C" fn(
        *mut Fts5Context,
        *mut c_void,
        Option<unsafe extern "C" fn(*mut c_void)>,
    ) -> c_int,
    x_get_auxdata: unsafe extern "C" fn(*mut Fts5Context, c_int) -> *mut c_void,
}

/// The SQLite routines an auxiliary function needs, from the binding that
/// registers it (the engine links no SQLite): reading an integer argument
/// and setting the result. Contexts and values are passed as `*mut c_void`.
#[derive(Debug)]
pub struct Routines {
    /// `sqlite3_value_type`.
    pub value_type: unsafe extern "C" fn(*mut c_void) -> c_int,
    /// `sqlite3_value_int64`.
    pub value_int64: unsafe extern "C" fn(*mut c_void) -> i64,
    /// `sqlite3_result_double`.
    pub result_double: unsafe extern "C" fn(*mut c_void, f64),
    /// `sqlite3_result_error_code`.
    pub result_error_code: unsafe extern "C" fn(*mut c_void, c_int),
}

/// Registers `sessions_rank(fts [, last_rowid [, ranked [, keep [,
/// other_forms]]]])`: FTS5's own
/// BM25 (a row's length is that of all its columns: the text, and the scope
/// column's one token) of the phrases found in the first column, the
/// message text, so the scope words of the second neither score nor cost a
/// pass over their long doclists. With `last_rowid` (the largest rowid in the index), the row
/// count of a phrase in more than [`HIT_SAMPLE`] rows is estimated from the
/// first ones (see [`crate::rank::estimate_hits`]) instead of counted.
/// With `ranked`, only the query's first `ranked` phrases are scored: the
/// phrases that follow them only select rows. With `keep`, a row that
/// cannot rank among the best `keep` of the rows ranked before it in the
/// same query gets infinity instead of its rank (see [`BestRanks`]): a query
/// that keeps its best `keep` rows of those it ranks, every one of them,
/// gets the same rows and ranks, sooner. With `other_forms` (an integer, NULL
/// for none), every phrase counts by its own IDF, and those whose bit is
/// set are other forms of a term (see [`Bm25::with_other_forms`]), and
/// terms found together add to the score ([`Bm25::proximity`]): the
/// scoring of a question's fill.
///
/// # Safety
///
/// As for [`register_tokenizer`]; `routines` must be those of the same
/// SQLite.
///
/// # Errors
///
/// As for [`register_tokenizer`].
pub unsafe fn register_rank_function(
    api: *mut Fts5Api,
    routines: &'static Routines,
) -> Result<(), RegisterError> {
    // SAFETY: passed on from the caller.
    let api_ref = unsafe { checked(api) }?;
    let Some(create) = api_ref.x_create_function else {
        return Err(RegisterError::NoFts5);
    };
    // SAFETY: the name is static and NUL-terminated; `routines` lives for
    // the whole program, so FTS5 may keep the pointer and needs no destructor.
    let rc = unsafe {
        create(
            api,
            RANK_FUNCTION_NAME.as_ptr(),
            std::ptr::from_ref(routines).cast_mut().cast(),
            Some(x_rank),
            None,
        )
    };
    if rc == SQLITE_OK {
        Ok(())
    } else {
        Err(RegisterError::Sqlite(rc))
    }
}

/// `sessions_rank`: sets the row's rank, or an error code.
unsafe extern "C" fn x_rank(
    api: *const Fts5ExtensionApi,
    fts: *mut Fts5Context,
    result: *mut c_void,
    arg_count: c_int,
    args: *mut *mut c_void,
) {
    // SAFETY: FTS5 calls with its live extension API and cursor context; the
    // user data is the `&'static Routines` given at registration; `args`
    // holds `arg_count` protected values.
    let (api, routines, arguments) = unsafe {
        let api = &*api;
        let routines = &*(api.x_user_data)(fts).cast::<Routines>();
        let integer = |n: c_int| {
            if arg_count <= n {
                return None;
            }
            let arg = *args.add(n as usize);
            ((routines.value_type)(arg) == SQLITE_INTEGER).then(|| (routines.value_int64)(arg))
        };
        let arguments = RankArguments {
            last_rowid: integer(0),
            ranked: integer(1).and_then(|n| usize::try_from(n).ok()),
            keep: integer(2).and_then(|n| usize::try_from(n).ok()),
            other_forms: integer(3).map(|bits| bits as u64),
        };
        (api, routines, arguments)
    };
    // SAFETY: the pair (`api`, `fts`) is valid for this call.
    let rank = catch_unwind(AssertUnwindSafe(|| unsafe { rank(api, fts, &arguments) }));
    // SAFETY: `result` is this call's sqlite3_context.
    unsafe {
        match rank {
            Ok(Ok(rank)) => (routines.result_double)(result, rank),
            Ok(Err(rc)) => (routines.result_error_code)(result, rc),
            Err(_) => (routines.result_error_code)(result, SQLITE_ERROR),
        }
    }
}

/// The optional arguments of `sessions_rank` after the table.
struct RankArguments {
    last_rowid: Option<i64>,
    ranked: Option<usize>,
    keep: Option<usize>,
    other_forms: Option<u64>,
}

/// What one query's calls of `sessions_rank` share (its aux data): BM25's
/// state and, with `keep`, the best ranks so far.
struct QueryRank {
    bm25: Bm25,
    best: Option<BestRanks>,
}

/// `rc` as a result: `Ok` for `SQLITE_OK`, else the code as the error.
fn ok(rc: c_int) -> Result<(), c_int> {
    if rc == SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

/// The row's BM25 rank (lower is better, as FTS5's `rank`), or, with
/// `keep`, infinity for a row that cannot rank among the best `keep` of
/// the query's rows ranked so far.
///
/// A row's length is only read (from FTS5's `docsize` table: a lookup per
/// row, most of a rank's cost) when the row may still be among the best:
/// the positions of its matches give a length it has at least (a column
/// holds at least one token past its last match), hence a rank it can at
/// best reach.
///
/// # Safety
///
/// `api` and `fts` must be the pair FTS5 passed to an auxiliary function.
unsafe fn rank(
    api: &Fts5ExtensionApi,
    fts: *mut Fts5Context,
    arguments: &RankArguments,
) -> Result<f64, c_int> {
    // SAFETY: passed on from the caller; the state lives as long as the
    // query's aux data, past this call, and nothing else borrows it.
    let QueryRank { bm25, best } = unsafe { &mut *query_rank(api, fts, arguments)? };
    // SAFETY: passed on from the caller.
    let found = unsafe { RowMatches::read(api, fts, bm25.phrases(), arguments) }?;
    // SAFETY: passed on from the caller.
    unsafe { count_hits(api, fts, bm25, &found.frequencies, arguments.last_rowid) }?;
    // The query's calls share one state (FTS5 keeps aux data per
    // function and cursor): only a call with the `keep` it was made
    // with may skip a row.
    let together = bm25.proximity(&found.positions);
    if let Some(best) = best.as_ref().filter(|b| Some(b.keep()) == arguments.keep) {
        let least_length = found.least_lengths[0].saturating_add(found.least_lengths[1]);
        if !best.may_hold(bm25.rank(&found.frequencies, least_length) - together) {
            return Ok(f64::INFINITY);
        }
    }
    let mut length = 0;
    // SAFETY: FTS5's own context and a valid out-pointer.
    ok(unsafe { (api.x_column_size)(fts, -1, &mut length) })?;
    let rank = bm25.rank(&found.frequencies, length) - together;
    if let Some(best) = best {
        // SAFETY: FTS5's own context.
        best.add(unsafe { (api.x_rowid)(fts) }, rank);
    }
    Ok(rank)
}

/// The query's shared state: its aux data, made and set at the query's
/// first call from the index's totals and the query's phrases (the first
/// `ranked` of them, when given).
///
/// # Safety
///
/// As for [`rank`].
unsafe fn query_rank(
    api: &Fts5ExtensionApi,
    fts: *mut Fts5Context,
    arguments: &RankArguments,
) -> Result<*mut QueryRank, c_int> {
    // SAFETY: every call passes FTS5's own context and valid out-pointers;
    // the aux data is only ever a `Box<QueryRank>` set below.
    unsafe {
        let state = (api.x_get_auxdata)(fts, 0).cast::<QueryRank>();
        if !state.is_null() {
            return Ok(state);
        }
        let mut rows = 0;
        let mut tokens = 0;
        ok((api.x_row_count)(fts, &mut rows))?;
        ok((api.x_column_total_size)(fts, -1, &mut tokens))?;
        let mut phrases = usize::try_from((api.x_phrase_count)(fts)).unwrap_or(0);
        if let Some(ranked) = arguments.ranked {
            phrases = phrases.min(ranked);
        }
        let mut bm25 = Bm25::new(RankTotals { rows, tokens }, phrases);
        if let Some(other_forms) = arguments.other_forms {
            bm25 = bm25.with_other_forms(other_forms);
        }
        let fresh = Box::into_raw(Box::new(QueryRank {
            bm25,
            best: arguments.keep.map(BestRanks::new),
        }));
        ok((api.x_set_auxdata)(
            fts,
            fresh.cast(),
            Some(drop_query_rank),
        ))?;
        Ok(fresh)
    }
}

/// What the row's matches say: how often each scored phrase is found in
/// the text, where (for proximity, with `other_forms` only), and per
/// column (text, scope) one past the last position matched.
struct RowMatches {
    frequencies: Vec<u32>,
    positions: Vec<(usize, i32)>,
    least_lengths: [i32; 2],
}

impl RowMatches {
    /// Reads the row's matches of the first `phrases` phrases.
    ///
    /// # Safety
    ///
    /// As for [`rank`].
    unsafe fn read(
        api: &Fts5ExtensionApi,
        fts: *mut Fts5Context,
        phrases: usize,
        arguments: &RankArguments,
    ) -> Result<RowMatches, c_int> {
        let mut row = RowMatches {
            frequencies: vec![0; phrases],
            positions: Vec::new(),
            least_lengths: [0; 2],
        };
        let mut instances = 0;
        // SAFETY: FTS5's own context and a valid out-pointer.
        ok(unsafe { (api.x_inst_count)(fts, &mut instances) })?;
        for i in 0..instances {
            let (mut phrase, mut column, mut offset) = (0, 0, 0);
            // SAFETY: FTS5's own context, an instance it counted and valid
            // out-pointers.
            ok(unsafe { (api.x_inst)(fts, i, &mut phrase, &mut column, &mut offset) })?;
            if let Some(least) = usize::try_from(column)
                .ok()
                .and_then(|c| row.least_lengths.get_mut(c))
            {
                *least = (*least).max(offset.saturating_add(1));
            }
            if let (0, Ok(phrase)) = (column, usize::try_from(phrase)) {
                if let Some(f) = row.frequencies.get_mut(phrase) {
                    *f += 1;
                    if arguments.other_forms.is_some() {
                        row.positions.push((phrase, offset));
                    }
                }
            }
        }
        Ok(row)
    }
}

/// Gives `bm25` the row count of each phrase that needs one for this row's
/// `frequencies`: counted through `xQueryPhrase`, or with `last_rowid`
/// (the largest rowid in the index), estimated from the first
/// [`HIT_SAMPLE`] rows when the phrase has more.
///
/// # Safety
///
/// As for [`rank`].
unsafe fn count_hits(
    api: &Fts5ExtensionApi,
    fts: *mut Fts5Context,
    bm25: &mut Bm25,
    frequencies: &[u32],
    last_rowid: Option<i64>,
) -> Result<(), c_int> {
    for phrase in bm25.phrases_needing_hits(frequencies) {
        let mut sample = HitSample {
            limit: if last_rowid.is_some() {
                HIT_SAMPLE
            } else {
                u64::MAX
            },
            hits: 0,
            first: 0,
            last: 0,
        };
        // SAFETY: FTS5's own context; `sample` outlives the call, which
        // hands it to `sample_row` only.
        ok(unsafe {
            (api.x_query_phrase)(
                fts,
                phrase as c_int,
                std::ptr::from_mut(&mut sample).cast(),
                sample_row,
            )
        })?;
        let hits = match last_rowid {
            Some(end) if sample.hits == sample.limit => {
                estimate_hits(sample.hits, sample.first..=sample.last, end)
            }
            _ => sample.hits as f64,
        };
        bm25.set_hits(phrase, hits);
    }
    Ok(())
}

/// Rows at most read to count a phrase's rows when the index's last rowid
/// is known; beyond, the count is estimated.
pub const HIT_SAMPLE: u64 = 1024;

/// The rows of a phrase seen by `xQueryPhrase`, in rowid order.
struct HitSample {
    limit: u64,
    hits: u64,
    first: i64,
    last: i64,
}

/// `xQueryPhrase` callback: counts a row and stops at the sample's limit.
unsafe extern "C" fn sample_row(
    api: *const Fts5ExtensionApi,
    fts: *mut Fts5Context,
    sample: *mut c_void,
) -> c_int {
    // SAFETY: `sample` is the `&mut HitSample` passed to xQueryPhrase in
    // `rank`; `api` and `fts` are the phrase cursor's, valid for this call.
    unsafe {
        let sample = &mut *sample.cast::<HitSample>();
        let rowid = ((*api).x_rowid)(fts);
        if sample.hits == 0 {
            sample.first = rowid;
        }
        sample.last = rowid;
        sample.hits += 1;
        if sample.hits >= sample.limit {
            SQLITE_DONE
        } else {
            SQLITE_OK
        }
    }
}

/// Frees the aux data of one query.
unsafe extern "C" fn drop_query_rank(state: *mut c_void) {
    // SAFETY: the pointer came from Box::into_raw in `rank`; FTS5 frees it once.
    drop(unsafe { Box::from_raw(state.cast::<QueryRank>()) });
}
