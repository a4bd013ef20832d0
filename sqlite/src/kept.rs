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

use crate::raw::Statement;
use sqlite3ext_sys::{sqlite3, sqlite3_context, sqlite3_value, sqlite3_vtab, sqlite3_vtab_cursor};
use sqlite_loadable::table::{BestIndexError, IndexInfo, VTab, VTabArguments, VTabCursor};
use std::ffi::c_int;
use std::sync::{Arc, Mutex, MutexGuard};

/// The eponymous table whose disconnection ends the keeping. It has no rows.
pub const KEEPER_TABLE: &str = "session_search_kept_statements";

/// Statements kept at most per connection.
const KEPT_STATEMENTS: usize = 32;

/// The statements one connection keeps, by SQL text, while it may.
pub struct KeptStatements(Mutex<Kept>);

struct Kept {
    /// Whether statements may be kept: set while [`KEEPER_TABLE`] is
    /// connected (or, for a [`KeptStatements::for_one_use`], until its owner
    /// finalizes them).
    open: bool,
    statements: Vec<(String, Statement)>,
}

impl KeptStatements {
    /// A store that keeps nothing until [`KEEPER_TABLE`] is connected.
    pub fn for_connection() -> Arc<KeptStatements> {
        Arc::new(KeptStatements(Mutex::new(Kept {
            open: false,
            statements: Vec::new(),
        })))
    }

    /// A store that keeps statements until [`KeptStatements::finalize`] or
    /// its drop: for one function call, or a connection the extension owns.
    pub fn for_one_use() -> Arc<KeptStatements> {
        let kept = KeptStatements::for_connection();
        kept.lock().open = true;
        kept
    }

    fn lock(&self) -> MutexGuard<'_, Kept> {
        // A panic while the list was held leaves it whole: it is only ever
        // pushed to, removed from or cleared.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The statement of `sql` kept from an earlier run, if any; it is no
    /// longer kept while the caller runs it.
    pub fn take(&self, sql: &str) -> Option<Statement> {
        let mut kept = self.lock();
        let at = kept.statements.iter().position(|(text, _)| text == sql)?;
        Some(kept.statements.swap_remove(at).1)
    }

    /// Keeps `stmt`, of `sql`, reset and unbound, for the next run; finalizes
    /// it when statements may not be kept.
    pub fn keep(&self, sql: &str, stmt: Statement) {
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
    pub fn finalize(&self) {
        let mut kept = self.lock();
        kept.open = false;
        kept.statements.clear();
    }
}

/// The virtual table [`KEEPER_TABLE`]: while connected, its connection's
/// statements are kept.
#[repr(C)]
pub struct Keeper {
    /// SQLite's part; first, as SQLite reads the struct as this.
    base: sqlite3_vtab,
    kept: Arc<KeptStatements>,
}

impl Drop for Keeper {
    /// The table is disconnected: the connection is closing (or the
    /// extension was loaded into it again).
    fn drop(&mut self) {
        self.kept.finalize();
    }
}

impl VTab<'_> for Keeper {
    type Aux = Arc<KeptStatements>;
    type Cursor = NoRows;

    fn connect(
        _: *mut sqlite3,
        aux: Option<&Self::Aux>,
        _: VTabArguments,
    ) -> sqlite_loadable::Result<(String, Self)> {
        let kept = aux
            .cloned()
            .ok_or_else(|| sqlite_loadable::Error::new_message("no statement store"))?;
        kept.lock().open = true;
        Ok((
            "CREATE TABLE x(unused)".to_owned(),
            Keeper {
                // SAFETY: sqlite3_vtab is plain data that SQLite fills in;
                // all zeros is its documented initial state.
                base: unsafe { std::mem::zeroed() },
                kept,
            },
        ))
    }

    fn best_index(&self, mut info: IndexInfo) -> Result<(), BestIndexError> {
        info.set_estimated_cost(1.0);
        Ok(())
    }

    fn open(&mut self) -> sqlite_loadable::Result<NoRows> {
        Ok(NoRows {
            // SAFETY: as for `Keeper::base`.
            base: unsafe { std::mem::zeroed() },
        })
    }
}

/// The cursor of [`KEEPER_TABLE`], which has no rows.
#[repr(C)]
pub struct NoRows {
    /// SQLite's part; first, as SQLite reads the struct as this.
    base: sqlite3_vtab_cursor,
}

impl VTabCursor for NoRows {
    fn filter(
        &mut self,
        _: c_int,
        _: Option<&str>,
        _: &[*mut sqlite3_value],
    ) -> sqlite_loadable::Result<()> {
        Ok(())
    }

    fn next(&mut self) -> sqlite_loadable::Result<()> {
        Ok(())
    }

    fn eof(&self) -> bool {
        true
    }

    fn column(&self, _: *mut sqlite3_context, _: c_int) -> sqlite_loadable::Result<()> {
        Ok(())
    }

    fn rowid(&self) -> sqlite_loadable::Result<i64> {
        Ok(0)
    }
}
