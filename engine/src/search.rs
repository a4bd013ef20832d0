//! `sessions_search(query, options_json)`: compile the query, filter by
//! visibility inside SQL, redact and cut excerpts, and bound the answer.

use crate::content;
use crate::db::{Connection, Param, Row, Value};
use crate::error::{Error, Result};
use crate::excerpt::excerpt;
use crate::index_tokens::tiers;
use crate::query::Query;
use crate::question::Question;
use crate::rank::{estimate_hits, RankTotals, SPEAKER_WEIGHT};
use crate::redact::Redactor;
use crate::role::Role;
use crate::scope::{self, Visibility};
use crate::store;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::ops::Range;

/// One search's window of candidates (see `sql/search_window.sql`), whose
/// rows the search keeps the page of as they come; public so that the
/// benchmark can show its query plan.
pub const SEARCH_SQL: &str = concat!(
    include_str!("../sql/visible.sql"),
    include_str!("../sql/search_window.sql"),
    include_str!("../sql/search.sql")
);

/// The message of one hit of a [`Page`].
const HIT_SQL: &str = include_str!("../sql/search_hit.sql");

/// One search's page of hits, the best of each session.
const GROUPED_SEARCH_SQL: &str = concat!(
    include_str!("../sql/visible.sql"),
    include_str!("../sql/search_window.sql"),
    include_str!("../sql/search_grouped.sql")
);
/// How many candidates one search's window reads.
const COUNT_SQL: &str = concat!(
    include_str!("../sql/visible.sql"),
    include_str!("../sql/search_window.sql"),
    include_str!("../sql/search_count.sql")
);
const RECENT_COMPLETE_SQL: &str = include_str!("../sql/recent_complete.sql");

/// Matches a one-word search ranks at most from its impact tiers, and the
/// most it ranks in full when no tier proves its page: a word with more
/// matches and no proof is ranked over its newest `rankWindow` matches
/// instead. Most of the matches of a tier are passed over without their
/// length being read (`sessions_rank`'s `keep`), so a tier of thousands
/// costs a few milliseconds: on the 3 M-message bench index at `all`, `2025`
/// (a year in log timestamps) has 13 700 messages in its best tier, ranked
/// in 5 ms.
pub const TIER_BUDGET: i64 = 20_000;

/// The most messages holding a rare term that an any-term search ranks by
/// every term they hold (see [`partial_rows`]).
const RARE_TERM_BUDGET: i64 = 3000;

/// Matches in the whole index above which a one-word search is ranked from
/// its impact tiers even within `rankWindow`: reading a tier's marker costs
/// less than ranking a few hundred matches (on the 1 M-message bench index,
/// a word with a few hundred matches at `agent` took 1.2–1.7 ms from the
/// tiers, 2–4 ms ranked in full), while a handful is ranked in full at
/// once. They are counted without the caller's scope word, which FTS5
/// would step through to each match: one CJK character at `agent` on the
/// 3 M-message bench index took 16% less time so; a word common in the
/// index but found in a few of the caller's messages goes through its
/// tiers before it is ranked in full (about 10% more time).
const TIERS_FROM: i64 = 100;

/// How many rows (at most :most) match FTS5 expression :expression: enough
/// to tell a rare term from a common one without counting all of a common
/// one.
const TERM_COUNT_SQL: &str = "SELECT count(*) FROM (SELECT 1 FROM session_search_fts \
     WHERE session_search_fts MATCH :expression LIMIT :most)";

/// Whether FTS5 expression `expression` matches at most `n` rows, reading at
/// most `n + 1` of them.
fn matches_at_most(db: &dyn Connection, expression: &str, n: i64) -> Result<bool> {
    let params = [
        (":expression", expression.into()),
        (":most", (n + 1).into()),
    ];
    let count = db.query_named(TERM_COUNT_SQL, &params)?;
    Ok(count.first().and_then(|row| row[0].as_i64()).unwrap_or(0) <= n)
}

/// Backlog rows a search indexes itself when no background drain runs (an
/// in-memory database, a rollback journal, deferred indexing) and the write
/// lock is free: enough that steady writes with a search now and then never
/// grow the backlog, a few milliseconds per search while there is one.
pub const SEARCH_RECONCILE_ROWS: i64 = 200;

/// Messages ranked by default: the newest matching ones that the caller may
/// see and that pass the filters.
pub const DEFAULT_RANK_WINDOW: i64 = 1000;

/// The largest `rankWindow`.
pub const MAX_RANK_WINDOW: i64 = 100_000_000;

/// Said with `indexing: true`.
const INDEXING_WARNING: &str =
    "the search index is still being built; results may be incomplete until reconciliation finishes";

/// Said when the index was built by an earlier version and cannot be rebuilt
/// by this connection yet: nothing is read from it.
const STALE_WARNING: &str =
    "the search index was built by an earlier version of session-search and is being rebuilt; search again shortly";

/// How hits are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// BM25, ties broken by newer first.
    #[default]
    Relevance,
    /// Newest first.
    Recent,
}

/// How hits are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupBy {
    /// The best hit of each session, with the session's hit count.
    Session,
}

/// The options of `sessions_search` (docs/sql.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchOptions {
    /// The session asking; required.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub caller: Option<String>,
    /// Which sessions may be searched; default `tree`.
    #[serde(default)]
    pub visibility: Visibility,
    /// A sandboxed caller is clamped to `tree`.
    #[serde(default)]
    pub sandboxed: bool,
    /// 1–25 results, default 10.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<i64>,
    /// Only these roles (`user`, `assistant`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roles: Option<Vec<Role>>,
    /// Only messages at or after this time (unix ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
    /// Only messages at or before this time (unix ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// Only these sessions (still within visibility).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_keys: Option<Vec<String>>,
    /// `relevance` (default) or `recent`.
    #[serde(default)]
    pub order: Order,
    /// Longest excerpt in characters, ≤ 300 (default 300).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet_chars: Option<i64>,
    /// Largest `results` array in bytes of JSON, ≤ 32768 (default 32768).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<i64>,
    /// With `relevance`, how many of the newest matching messages are ranked
    /// (default [`DEFAULT_RANK_WINDOW`], at most [`MAX_RANK_WINDOW`]): a
    /// bound on the work of a query that matches much of the history. A
    /// one-word query is ranked exactly whenever its impact tiers prove its
    /// page or it matches at most [`TIER_BUDGET`] messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank_window: Option<i64>,
    /// `session`: the best hit of each session instead of every hit, so
    /// that `limit` results are `limit` different sessions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_by: Option<GroupBy>,
    /// Extra redaction patterns (regular expressions) for the excerpts of
    /// this search. They do not change what the index holds, so they cannot
    /// stop a search from confirming such a secret: store patterns with
    /// `sessions_set_redaction` for that.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redact: Option<Vec<String>>,
}

/// One hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// The session it is in.
    pub session_key: String,
    /// The host's `message_id`, or `id` as text when the host gave none.
    pub message_id: String,
    /// `messages.id`.
    pub id: i64,
    /// `user` or `assistant`.
    pub role: Role,
    /// `created_at`, unix ms.
    pub timestamp: i64,
    /// Redacted excerpt around a match.
    pub snippet: String,
    /// Higher is better (BM25, negated).
    pub score: f64,
    /// With `groupBy: "session"`, how many ranked hits its session has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hits: Option<i64>,
    /// The hit lacks some of the query's terms: it fills a page that the
    /// hits with every term could not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// Of a partial hit, the query's terms it holds (as typed, in another
    /// form or, for a run of CJK text, in pieces), in the order typed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<String>,
}

/// The answer of `sessions_search`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchResponse {
    /// The hits, best first.
    pub results: Vec<Hit>,
    /// Reconciliation has work left: results may be incomplete.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub indexing: bool,
    /// More hits existed than were returned.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Why results may be incomplete; only with `indexing`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Only when full matches (every term) are fewer than `limit`: what
    /// each query term matched among the messages the caller may see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms: Option<Vec<TermCount>>,
}

fn invalid(message: String) -> Error {
    Error::InvalidArgument(format!("sessions_search: {message}"))
}

/// The smallest, largest and default `limit` of a search.
pub const LIMIT: (i64, i64, i64) = (1, 25, 10);

/// `value` within `min..=max`, or `default` when absent.
pub(crate) fn bounded(
    function: &str,
    name: &str,
    value: Option<i64>,
    (min, max, default): (i64, i64, i64),
) -> Result<i64> {
    match value {
        None => Ok(default),
        Some(v) if (min..=max).contains(&v) => Ok(v),
        Some(v) => Err(Error::InvalidArgument(format!(
            "{function}: {name} must be between {min} and {max}, not {v}"
        ))),
    }
}

fn json_list<T: Serialize>(list: &Option<Vec<T>>) -> Value {
    list.as_ref().map_or(Value::Null, |items| {
        Value::Text(serde_json::to_string(items).unwrap_or_default())
    })
}

/// The options of a search within their bounds.
struct Bounds {
    limit: i64,
    snippet_chars: i64,
    max_bytes: i64,
    rank_window: i64,
}

/// Step 1 of [`search`]: the options' numbers within their bounds, and only
/// searchable roles.
fn check(options: &SearchOptions) -> Result<Bounds> {
    let function = "sessions_search";
    let limit = bounded(function, "limit", options.limit, LIMIT)?;
    let snippet_chars = bounded(
        function,
        "snippetChars",
        options.snippet_chars,
        (1, 300, 300),
    )?;
    let max_bytes = bounded(function, "maxBytes", options.max_bytes, (2, 32768, 32768))?;
    if let Some(role) = options.roles.iter().flatten().find(|r| !r.is_searchable()) {
        return Err(invalid(format!(
            "roles may only contain user and assistant, not \"{role}\""
        )));
    }
    let rank_window = bounded(
        function,
        "rankWindow",
        options.rank_window,
        (1, MAX_RANK_WINDOW, DEFAULT_RANK_WINDOW),
    )?;
    Ok(Bounds {
        limit,
        snippet_chars,
        max_bytes,
        rank_window,
    })
}

/// Runs a search: checks the options, catches the index up, fetches the
/// page of hits by the strategy the query calls for (`fetch`), and
/// renders it (`render`).
///
/// # Errors
///
/// [`Error::InvalidArgument`] for a bad query or option, a missing or
/// unknown caller; [`Error::Schema`] before `sessions_init()`.
pub fn search(db: &dyn Connection, query: &str, options: &SearchOptions) -> Result<SearchResponse> {
    let bounds = check(options)?;
    let query = Query::parse(query).map_err(|e| invalid(e.to_string()))?;
    store::require_schema(db, "sessions_search")?;
    let redactor = store::redactor(
        db,
        "sessions_search",
        options.redact.as_deref().unwrap_or_default(),
    )?;
    let caller = scope::caller(db, "sessions_search", options.caller.as_deref())?;
    let index = store::catch_up(db, SEARCH_RECONCILE_ROWS)?;
    // The rest only reads: one snapshot for its statements.
    let _snapshot = db.hold_read();
    let indexing = index != store::Index::Complete;
    if index == store::Index::Stale {
        return Ok(SearchResponse {
            results: Vec::new(),
            indexing,
            truncated: false,
            warning: Some(STALE_WARNING.to_owned()),
            terms: None,
        });
    }
    let searcher = Searcher::new(db, options, caller)?;
    let rows = fetch(&searcher, &query, &bounds)?;
    let more = rows.len() as i64 > bounds.limit;
    let (hits, terms) = render(&searcher, &query, &bounds, &redactor, &rows)?;
    let (results, cut) = fit(hits, bounds.max_bytes);
    Ok(SearchResponse {
        truncated: more || cut,
        results,
        indexing,
        warning: indexing.then(|| INDEXING_WARNING.to_owned()),
        terms,
    })
}

/// Runs the window statements of one search for one caller and its
/// options.
struct Searcher<'a> {
    db: &'a dyn Connection,
    options: &'a SearchOptions,
    caller: String,
    visibility: Visibility,
    scope: Option<scope::ScopeWord>,
    grouped: bool,
    /// A filter on roles, time or sessions is given.
    filtered: bool,
    /// When the scope word selects what the caller may see, or at `all`
    /// (deleting a session deletes its messages), the rows' sessions are
    /// checked instead of each candidate's; a row the caller may not see
    /// (the scopes or the messages disagreeing with `sessions`, which the
    /// triggers rule out) turns the per-candidate check on for the rest of
    /// the search.
    scope_decides: Cell<bool>,
    /// The sessions found visible so far.
    seen: RefCell<HashSet<String>>,
}

impl<'a> Searcher<'a> {
    /// Step 2 of [`search`]: the cheapest visibility that means the same,
    /// and the caller's scope word.
    fn new(db: &'a dyn Connection, options: &'a SearchOptions, caller: String) -> Result<Self> {
        let visibility =
            scope::cheapest(db, scope::effective(options.visibility, options.sandboxed))?;
        let scope = scope::scope_word(db, &caller, visibility)?;
        let scope_decides = match &scope {
            Some(scope) => scope.decides,
            None => visibility == Visibility::All,
        };
        Ok(Searcher {
            db,
            options,
            caller,
            visibility,
            scope,
            grouped: options.group_by == Some(GroupBy::Session),
            filtered: options.roles.is_some()
                || options.since.is_some()
                || options.until.is_some()
                || options.session_keys.is_some(),
            scope_decides: Cell::new(scope_decides),
            seen: RefCell::new(HashSet::new()),
        })
    }

    /// The caller's scope word, if it has one.
    fn scope_word(&self) -> Option<&str> {
        self.scope.as_ref().map(|scope| scope.word.as_str())
    }

    /// The named parameters of the window statement (`sql/search_window.sql`).
    fn params(&self, window: &WindowRun<'_>, scope_decides: bool) -> Vec<Param<'static>> {
        let options = self.options;
        let recent = window.order == Order::Recent;
        let page_rows = Value::Integer(window.limit + 1);
        // The page keeps the best `limit + 1` by rank of every candidate; a
        // count keeps none, so no candidate's length is read. A speaker's
        // weight applies after the rank, so every candidate is ranked.
        let speaker = window.scoring.speaker;
        let keep = if window.scoring.count_only {
            0.into()
        } else if self.grouped || recent || speaker.is_some() {
            Value::Null
        } else {
            page_rows.clone()
        };
        // Each candidate's row: to check or filter it, for its time, its
        // session or its role; else only the page's rows are read.
        let read_messages =
            !scope_decides || self.filtered || self.grouped || recent || speaker.is_some();
        let optional = |value: Option<i64>| value.map_or(Value::Null, Value::Integer);
        vec![
            (":caller", self.caller.as_str().into()),
            (":visibility", self.visibility.name().into()),
            (":expression", window.expression.into()),
            (":roles", json_list(&options.roles)),
            (":since", optional(options.since)),
            (":until", optional(options.until)),
            (":session_keys", json_list(&options.session_keys)),
            (":order", if recent { "recent" } else { "relevance" }.into()),
            (":page_rows", page_rows),
            (":window", window.window.into()),
            (":scored_phrases", optional(window.scoring.ranked)),
            (":scope_decides", i64::from(scope_decides).into()),
            (":read_messages", i64::from(read_messages).into()),
            (":keep", keep),
            (
                ":other_forms",
                optional(window.scoring.other_forms.map(|bits| bits as i64)),
            ),
            (
                ":speaker",
                speaker.map_or(Value::Null, |role| role.as_str().into()),
            ),
            (":speaker_weight", Value::Real(SPEAKER_WEIGHT)),
        ]
    }

    /// The page of one window statement, its sessions checked when the
    /// statement did not check each candidate's.
    fn run(&self, window: WindowRun<'_>) -> Result<Vec<PageRow>> {
        let decides = self.scope_decides.get();
        let rows = self.page(&window, decides)?;
        if decides && !self.all_seen(&rows)? {
            self.scope_decides.set(false);
            return self.page(&window, false);
        }
        Ok(rows)
    }

    /// How many candidates the window of `expression` reads, at most
    /// [`TERM_COUNT_CAP`].
    fn count(&self, expression: &str) -> Result<i64> {
        let window = WindowRun {
            expression,
            order: Order::Relevance,
            limit: TERM_COUNT_CAP,
            window: TERM_COUNT_CAP,
            scoring: Scoring::COUNT,
        };
        let params = self.params(&window, self.scope_decides.get());
        let rows = self.db.query_named(COUNT_SQL, &params)?;
        Ok(rows.first().and_then(|row| row[0].as_i64()).unwrap_or(0))
    }

    /// The page of the window statement: grouped by session in SQL, else
    /// kept by a [`Page`] as the candidates come.
    fn page(&self, window: &WindowRun<'_>, scope_decides: bool) -> Result<Vec<PageRow>> {
        let params = self.params(window, scope_decides);
        if self.grouped {
            let rows = self.db.query_named(GROUPED_SEARCH_SQL, &params)?;
            return Ok(rows
                .into_iter()
                .filter_map(|values| PageRow::read(Row::new(PAGE_COLUMNS, values)))
                .collect());
        }
        let mut page = Page::new(window.order, window.limit + 1);
        self.db
            .query_named_each(SEARCH_SQL, &params, &mut |values| page.add(values))?;
        page.rows(self.db)
    }

    /// Whether the caller may see the session of every row; the sessions
    /// found visible are remembered.
    fn all_seen(&self, rows: &[PageRow]) -> Result<bool> {
        let mut seen = self.seen.borrow_mut();
        for row in rows {
            if !seen.contains(&row.session_key) {
                if !scope::sees(self.db, &self.caller, self.visibility, &row.session_key)? {
                    return Ok(false);
                }
                seen.insert(row.session_key.clone());
            }
        }
        Ok(true)
    }
}

/// One run of the window statement: what it matches, in what order, how
/// many rows its page keeps (`limit + 1`), how many candidates it reads
/// (`window`, -1 for every match) and how it scores them.
#[derive(Debug, Clone, Copy)]
struct WindowRun<'e> {
    expression: &'e str,
    order: Order,
    limit: i64,
    window: i64,
    scoring: Scoring,
}

impl<'e> WindowRun<'e> {
    /// A run in `order` with every term scored.
    fn exact(expression: &'e str, order: Order, limit: i64, window: i64) -> WindowRun<'e> {
        WindowRun {
            expression,
            order,
            limit,
            window,
            scoring: Scoring::EXACT,
        }
    }
}

/// Step 3 of [`search`]: the page of full matches, `limit + 1` rows at
/// most: with `relevance` ranked exactly from the impact tiers when they
/// can ([`exact_by_tiers`]), else over the newest `rankWindow` matches;
/// with `recent` the newest by time ([`newest`]).
fn fetch(searcher: &Searcher<'_>, query: &Query, bounds: &Bounds) -> Result<Vec<PageRow>> {
    let db = searcher.db;
    let limit = bounds.limit;
    let expression = query.fts5_expression(searcher.scope_word());
    match searcher.options.order {
        Order::Relevance => {
            // A session's hit count needs all its hits, not the tiers'.
            let tiered = if searcher.grouped {
                None
            } else {
                exact_by_tiers(
                    db,
                    query,
                    searcher.scope_word(),
                    (limit, bounds.rank_window),
                    |tiered, window| {
                        searcher.run(WindowRun::exact(tiered, Order::Relevance, limit, window))
                    },
                )?
            };
            match tiered {
                Some(rows) => Ok(rows),
                None => searcher.run(WindowRun::exact(
                    &expression,
                    Order::Relevance,
                    limit,
                    bounds.rank_window,
                )),
            }
        }
        Order::Recent => newest(db, limit, |window| {
            searcher.run(WindowRun::exact(&expression, Order::Recent, limit, window))
        }),
    }
}

/// Step 4 of [`search`]: the hits of `rows` with their excerpts; when they
/// are fewer than the limit, the best partial matches after them and what
/// each query term matched.
fn render(
    searcher: &Searcher<'_>,
    query: &Query,
    bounds: &Bounds,
    redactor: &Redactor,
    rows: &[PageRow],
) -> Result<(Vec<Hit>, Option<Vec<TermCount>>)> {
    let db = searcher.db;
    let limit = bounds.limit;
    let mut question = Question::new(query);
    let short = (rows.len() as i64) < limit;
    if short {
        question.keep_forms(&mut |form| held(db, form))?;
    }
    let excerpts = !rows.is_empty() || question.adds_to(query);
    let focus = Focus::new(db, query, &question, excerpts)?;
    let render = |row: &PageRow, partial| hit(row, &focus, redactor, bounds.snippet_chars, partial);
    let mut hits: Vec<Hit> = rows
        .iter()
        .take(limit as usize)
        .filter_map(|row| render(row, false))
        .collect();
    if !short {
        return Ok((hits, None));
    }
    if question.adds_to(query) {
        let mut fill = partial_rows(
            db,
            &question,
            searcher.scope_word(),
            (limit, bounds.rank_window, searcher.grouped),
            &hits,
            |expression, n, window, scoring| {
                searcher.run(WindowRun {
                    expression,
                    order: Order::Relevance,
                    limit: n,
                    window,
                    scoring,
                })
            },
        )?;
        if searcher.options.order == Order::Recent {
            sort_rows(&mut fill, Order::Recent);
        }
        hits.extend(fill.iter().filter_map(|row| render(row, true)));
    }
    let terms = term_counts(query, &question, redactor, searcher.scope_word(), |e| {
        searcher.count(e)
    })?;
    Ok((hits, Some(terms)))
}

/// How the window statement scores its candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Scoring {
    /// How many leading phrases score (`None`: all).
    ranked: Option<i64>,
    /// The bits of the phrases that are other forms (see
    /// [`crate::rank::Bm25::with_other_forms`]); `Some` for a question's
    /// fill, whose every phrase counts by its own IDF.
    other_forms: Option<u64>,
    /// Only count the candidates ([`COUNT_SQL`]).
    count_only: bool,
    /// The role whose messages score [`crate::rank::SPEAKER_WEIGHT`] times
    /// higher: the fill of a question about that role's words.
    speaker: Option<Role>,
}

impl Scoring {
    /// Every-term matching: every phrase scores, as FTS5's `bm25()`.
    const EXACT: Scoring = Scoring {
        ranked: None,
        other_forms: None,
        count_only: false,
        speaker: None,
    };

    /// Counting the window's candidates.
    const COUNT: Scoring = Scoring {
        ranked: None,
        other_forms: None,
        count_only: true,
        speaker: None,
    };
}

/// How many messages the `terms` of a response count at most for a term.
pub const TERM_COUNT_CAP: i64 = 100;

/// What a response says of one query term when full matches are fewer than
/// the limit: how many messages the caller may see, under the search's
/// filters, hold it (and its other forms or pieces), so that a reader can
/// drop or replace a word that matched nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TermCount {
    /// The term as typed, without quotes or the prefix `*`.
    pub term: String,
    /// Messages holding it, at most [`TERM_COUNT_CAP`]; absent for a word
    /// that only frames the question, which is not looked for in the fill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<i64>,
    /// `messages` is the cap: at least that many hold it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub at_least: bool,
    /// For a word with other forms (`deployment` for `deploy`) or a run of
    /// a spaceless script (its two-character pieces), the messages that
    /// hold one of those but not the term as typed (at most the cap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_forms: Option<i64>,
    /// A word that only frames the question (`where`, `did`, `什麼`), left
    /// out of the fill.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub framing: bool,
}

/// The `terms` of a response: each query term in the order typed (as
/// [`crate::query::Term::shown`], redacted by `redactor`), with the
/// messages `count` finds for an FTS5 expression (visible to the caller,
/// under the search's filters, at most [`TERM_COUNT_CAP`]).
fn term_counts(
    query: &Query,
    question: &Question,
    redactor: &Redactor,
    scope: Option<&str>,
    count: impl Fn(&str) -> Result<i64>,
) -> Result<Vec<TermCount>> {
    let mut counts = Vec::with_capacity(query.terms.len());
    for (index, term) in query.terms.iter().enumerate() {
        let shown = redactor.redact(term.shown()).into_owned();
        if question.framing.contains(&index) {
            counts.push(TermCount {
                term: shown,
                messages: None,
                at_least: false,
                other_forms: None,
                framing: true,
            });
            continue;
        }
        let typed = query.fts5_term(index);
        let messages = count(&Query::scoped(typed.clone(), scope))?;
        let at_least = messages >= TERM_COUNT_CAP;
        let other_forms = match question.other_forms_of(index) {
            Some(others) if !at_least => Some(count(&Query::scoped(
                format!("({others}) NOT {typed}"),
                scope,
            ))?),
            _ => None,
        };
        counts.push(TermCount {
            term: shown,
            messages: Some(messages),
            at_least,
            other_forms,
            framing: false,
        });
    }
    Ok(counts)
}

/// Where the excerpt of a hit is centred: on the match of the query's most
/// distinctive unit it holds (see [`Question::focus`]), the units ordered
/// by how many messages of the index hold them, fewest first.
struct Focus<'a> {
    query: &'a Query,
    question: &'a Question,
    rarest_first: Vec<usize>,
}

impl<'a> Focus<'a> {
    /// Orders the units of `question` by the messages of the index holding
    /// each, estimated from its newest [`FOCUS_SAMPLE`] ones (a single unit
    /// needs no count, nor a search without `excerpts` to cut).
    fn new(
        db: &dyn Connection,
        query: &'a Query,
        question: &'a Question,
        excerpts: bool,
    ) -> Result<Focus<'a>> {
        let mut rarest_first: Vec<usize> = (0..question.units.len()).collect();
        if excerpts && rarest_first.len() > 1 {
            let last_rowid = db.query_value(LAST_ROWID_SQL, &[])?.as_i64().unwrap_or(0);
            let mut holding = Vec::with_capacity(rarest_first.len());
            for unit in 0..question.units.len() {
                let expression = Query::scoped(question.alternatives(&[unit]), None);
                let row = db.query(
                    SAMPLE_SQL,
                    &[expression.as_str().into(), FOCUS_SAMPLE.into()],
                )?;
                let (seen, first, last) = match row.first().map(Vec::as_slice) {
                    Some([seen, first, last]) => (
                        seen.as_i64().unwrap_or(0),
                        first.as_i64().unwrap_or(0),
                        last.as_i64().unwrap_or(0),
                    ),
                    _ => (0, 0, 0),
                };
                holding.push(if seen >= FOCUS_SAMPLE {
                    estimate_hits(seen as u64, first..=last, last_rowid)
                } else {
                    seen as f64
                });
            }
            rarest_first.sort_by(|&a, &b| holding[a].total_cmp(&holding[b]));
        }
        Ok(Focus {
            query,
            question,
            rarest_first,
        })
    }

    /// The match of `text` to centre an excerpt on.
    fn find(&self, text: &str) -> Option<Range<usize>> {
        self.question
            .focus(text, &self.rarest_first)
            .or_else(|| self.query.first_match(text))
    }

    /// [`Focus::find`] of `text`, and the query terms it holds, as shown.
    fn find_with_terms(&self, text: &str) -> (Option<Range<usize>>, Vec<&'a str>) {
        let (found, terms) = self.question.focus_and_terms(text, &self.rarest_first);
        let terms = terms
            .into_iter()
            .map(|t| self.query.terms[t].shown())
            .collect();
        (found.or_else(|| self.query.first_match(text)), terms)
    }
}

/// Rows of a unit's newest matches in the index that [`Focus`] reads to
/// tell a rare unit from a common one.
const FOCUS_SAMPLE: i64 = 128;

/// Whether some message holds FTS5 expression ?1.
const HELD_SQL: &str =
    "SELECT EXISTS (SELECT 1 FROM session_search_fts WHERE session_search_fts MATCH ?1)";

/// Whether some message of the index holds the FTS5 string `phrase`.
fn held(db: &dyn Connection, phrase: &str) -> Result<bool> {
    let expression = Query::scoped(phrase.to_owned(), None);
    Ok(db
        .query_value(HELD_SQL, &[expression.as_str().into()])?
        .as_i64()
        == Some(1))
}

/// The largest rowid of the index (the oldest message's).
const LAST_ROWID_SQL: &str = "SELECT ~min(id) FROM messages";

/// How many of the first ?2 rows (newest first) match FTS5 expression ?1,
/// and the first and last of their rowids.
const SAMPLE_SQL: &str = "SELECT count(*), min(rowid), max(rowid) FROM \
     (SELECT rowid FROM session_search_fts WHERE session_search_fts MATCH ?1 ORDER BY rowid LIMIT ?2)";

/// The rows of a one-word query ranked exactly from the impact tiers (see
/// [`tiers`]): the tiers are ranked one at a time, best first, each page
/// merged with the best of those before, until the page's last hit scores
/// at least what any message of a later tier can, with one more hit to
/// tell that the page is full. When no tier proves its page, or the tiers
/// tried hold more than [`TIER_BUDGET`] visible matches, a word found in at
/// most [`TIER_BUDGET`] messages has every match ranked. `None` when the
/// query is not one word, when the whole index holds at most the smaller of
/// `window` and [`TIERS_FROM`] messages that match it (ranking the window
/// is then exhaustive, and cheap), or when it matches more than the budget
/// and no tier proves its page (the caller then ranks the newest matches).
fn exact_by_tiers(
    db: &dyn Connection,
    query: &Query,
    scope: Option<&str>,
    (limit, window): (i64, i64),
    run: impl Fn(&str, i64) -> Result<Vec<PageRow>>,
) -> Result<Option<Vec<PageRow>>> {
    if query.single_word().is_none() {
        return Ok(None);
    }
    // Counted in the whole index, from the word's own list: counting the
    // caller's matches would step through the scope word's list to each.
    if matches_at_most(db, &query.fts5_expression(None), window.min(TIERS_FROM))? {
        return Ok(None);
    }
    let every_match = query.fts5_expression(scope);
    // Ranking every match when the tiers prove nothing: at most the budget.
    let every_match_ranked = || -> Result<Option<Vec<PageRow>>> {
        if window >= TIER_BUDGET || !matches_at_most(db, &every_match, TIER_BUDGET)? {
            return Ok(None);
        }
        Ok(Some(run(&every_match, TIER_BUDGET)?))
    };
    let Some(totals) = RankTotals::read(db)? else {
        return every_match_ranked();
    };
    let average = totals.average_length();
    let mut budget = TIER_BUDGET;
    let mut page: Vec<PageRow> = Vec::new();
    for (tier, &floor) in tiers::TIER_FLOORS.iter().enumerate() {
        let Some(expression) = query.tier_expression(tier, scope) else {
            return Ok(None);
        };
        let rows = run(&expression, budget)?;
        let ranked = rows.first().map_or(0, |row| row.window_rows);
        if ranked >= budget {
            // The tiers of this word are too large to rank in full.
            return every_match_ranked();
        }
        budget -= ranked;
        page = best_of(page, rows, limit + 1);
        let last_score = page
            .get(limit as usize - 1)
            .and_then(|row| row.rank)
            .map(|rank| -rank);
        if page.len() as i64 > limit
            && last_score.is_some_and(|s| s >= tiers::bound(floor, average))
        {
            return Ok(Some(page));
        }
    }
    every_match_ranked()
}

/// The best `keep` rows of two pages of the search statement in its relevance order
/// (rank, then newer, then larger id).
fn best_of(mut page: Vec<PageRow>, more: Vec<PageRow>, keep: i64) -> Vec<PageRow> {
    page.extend(more);
    sort_rows(&mut page, Order::Relevance);
    page.truncate(usize::try_from(keep).unwrap_or(usize::MAX));
    page
}

/// Sorts rows of the search statement best first: by rank or, `recent`,
/// by time, then newer, then larger id.
fn sort_rows(rows: &mut [PageRow], order: Order) {
    let key = |row: &PageRow| {
        let first = match order {
            Order::Relevance => row.rank.unwrap_or(f64::INFINITY),
            Order::Recent => -(row.created_at as f64),
        };
        (
            first,
            std::cmp::Reverse(row.created_at),
            std::cmp::Reverse(row.id),
        )
    };
    rows.sort_by(|a, b| {
        key(a)
            .partial_cmp(&key(b))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
}

/// The columns of a [`PageRow`]: those of `sql/search_grouped.sql`.
const PAGE_COLUMNS: &[&str] = &[
    "session_key",
    "id",
    "message_id",
    "role",
    "created_at",
    "rank",
    "content",
    "window_rows",
    "window_oldest",
    "session_hits",
];

/// A row of a search's page: a message, its rank and what its window read.
#[derive(Debug, Clone)]
struct PageRow {
    session_key: String,
    /// `messages.id`.
    id: i64,
    /// The host's id, if it gave one.
    message_id: Option<String>,
    role: String,
    created_at: i64,
    /// BM25 (lower is better).
    rank: Option<f64>,
    content: Value,
    /// How many candidates the window read, and the oldest message id
    /// among them.
    window_rows: i64,
    window_oldest: Option<i64>,
    /// Grouped by session, how many hits its session has in the window.
    session_hits: Option<i64>,
}

impl PageRow {
    /// The row of `row`'s columns (those of [`PAGE_COLUMNS`] it has); `None`
    /// without a session, id, role or time.
    fn read(mut row: Row<'_>) -> Option<PageRow> {
        Some(PageRow {
            window_rows: row.take("window_rows").as_i64().unwrap_or(0),
            window_oldest: row.take("window_oldest").as_i64(),
            session_hits: row.take("session_hits").as_i64(),
            rank: row.take("rank").as_f64(),
            content: row.take("content"),
            message_id: row.take("message_id").as_str().map(str::to_owned),
            created_at: row.take("created_at").as_i64()?,
            role: row.take("role").as_str()?.to_owned(),
            id: row.take("id").as_i64()?,
            session_key: row.take("session_key").as_str()?.to_owned(),
        })
    }
}

/// The columns of a row of [`HIT_SQL`].
const HIT_COLUMNS: &[&str] = &[
    "session_key",
    "id",
    "message_id",
    "role",
    "created_at",
    "content",
];

/// The columns of a [`Candidate`]: those of [`SEARCH_SQL`].
const CANDIDATE_COLUMNS: &[&str] = &["id", "rank", "created_at"];

/// A candidate of a search's window (a row of [`SEARCH_SQL`]).
struct Candidate {
    id: i64,
    rank: f64,
    /// `None` when the window read no message rows (see `:read_messages`).
    created_at: Option<i64>,
}

impl Candidate {
    /// The candidate of a row of [`SEARCH_SQL`]; `None` without an id.
    fn read(mut row: Row<'_>) -> Option<Candidate> {
        Some(Candidate {
            id: row.take("id").as_i64()?,
            rank: row.take("rank").as_f64().unwrap_or(f64::INFINITY),
            created_at: row.take("created_at").as_i64(),
        })
    }
}

/// The page of a search not grouped by session, kept as its window's
/// candidates are read: the `keep` newest with `recent`; with `relevance`
/// every candidate ranked at least as well as the `keep`-th best, whose
/// ties are then told apart by the time of their rows. It holds a few
/// times `keep` candidates (plus ties) whatever the window's size.
struct Page {
    order: Order,
    keep: usize,
    kept: Vec<Candidate>,
    /// How many candidates `kept` may hold before it is cut back.
    room: usize,
    /// With `relevance`, the worst rank the page can still hold.
    worst: f64,
    /// How many candidates the window read, and its oldest message id.
    read: i64,
    oldest: Option<i64>,
}

impl Page {
    fn new(order: Order, keep: i64) -> Page {
        let keep = usize::try_from(keep).unwrap_or(1).max(1);
        Page {
            order,
            keep,
            kept: Vec::new(),
            room: Self::room_for(keep, 0),
            worst: f64::INFINITY,
            read: 0,
            oldest: None,
        }
    }

    /// Room for `held` candidates after a cut and as many again, so that
    /// cutting costs a constant time per candidate read.
    fn room_for(keep: usize, held: usize) -> usize {
        (2 * held).max(2 * keep).max(64)
    }

    /// Reads one row of [`SEARCH_SQL`].
    fn add(&mut self, values: Vec<Value>) {
        let Some(candidate) = Candidate::read(Row::new(CANDIDATE_COLUMNS, values)) else {
            return;
        };
        self.read += 1;
        let id = candidate.id;
        self.oldest = Some(self.oldest.map_or(id, |oldest| oldest.min(id)));
        if candidate.rank > self.worst {
            return;
        }
        self.kept.push(candidate);
        if self.kept.len() >= self.room {
            self.cut();
        }
    }

    /// Drops the candidates that cannot be on the page.
    fn cut(&mut self) {
        if self.kept.len() > self.keep {
            match self.order {
                Order::Recent => {
                    let newest = |c: &Candidate| std::cmp::Reverse((c.created_at, c.id));
                    self.kept.select_nth_unstable_by_key(self.keep - 1, newest);
                    self.kept.truncate(self.keep);
                }
                Order::Relevance => {
                    let by_rank = |a: &Candidate, b: &Candidate| a.rank.total_cmp(&b.rank);
                    self.kept.select_nth_unstable_by(self.keep - 1, by_rank);
                    self.worst = self.kept[self.keep - 1].rank;
                    let worst = self.worst;
                    self.kept.retain(|c| c.rank <= worst);
                }
            }
        }
        self.room = Self::room_for(self.keep, self.kept.len());
    }

    /// The page's rows, best first, at most `keep`; a message deleted
    /// since its candidate was read is left out.
    fn rows(mut self, db: &dyn Connection) -> Result<Vec<PageRow>> {
        self.cut();
        let mut rows = Vec::with_capacity(self.kept.len());
        for candidate in &self.kept {
            let Some(values) = db
                .query_named(HIT_SQL, &[(":id", candidate.id.into())])?
                .pop()
            else {
                continue;
            };
            let Some(row) = PageRow::read(Row::new(HIT_COLUMNS, values)) else {
                continue;
            };
            rows.push(PageRow {
                rank: Some(candidate.rank),
                window_rows: self.read,
                window_oldest: self.oldest,
                ..row
            });
        }
        sort_rows(&mut rows, self.order);
        rows.truncate(self.keep);
        Ok(rows)
    }
}

/// The rows of the best partial matches that are not among `found` (nor,
/// `grouped`, in their sessions), at most enough to fill a page of
/// `limit`: the best by one score, BM25 over every unit of the question
/// (see [`Question`]), of every candidate read. The candidates are read in
/// up to three windows, each of which ranks its own and keeps the best
/// `found + limit`: the newest `window` messages holding two units within
/// [`crate::rank::NEAR_TOKENS`] tokens of each other; every message
/// (up to [`RARE_TERM_BUDGET`]) holding a rare unit, one with at most
/// `window` matches, so that a unit in most messages cannot push them out;
/// and, when some unit is not rare and those two leave the page short, the
/// newest `window` messages holding any unit.
fn partial_rows(
    db: &dyn Connection,
    question: &Question,
    scope: Option<&str>,
    (limit, window, grouped): (i64, i64, bool),
    found: &[Hit],
    run: impl Fn(&str, i64, i64, Scoring) -> Result<Vec<PageRow>>,
) -> Result<Vec<PageRow>> {
    let (_, phrases, marks) = question.scored();
    let scoring = Scoring {
        ranked: Some(phrases as i64),
        other_forms: Some(marks),
        count_only: false,
        speaker: question.speaker,
    };
    let mut rare = Vec::new();
    for unit in 0..question.units.len() {
        let expression = Query::scoped(question.alternatives(&[unit]), scope);
        if matches_at_most(db, &expression, window)? {
            rare.push(unit);
        }
    }
    let mut windows = Vec::new();
    if let Some(near) = question.near_pairs(scope) {
        windows.push((near, window));
    }
    if !rare.is_empty() {
        let every_match = (rare.len() as i64 * window).clamp(window, RARE_TERM_BUDGET.max(window));
        windows.push((question.holding(&rare, scope), every_match));
    }
    if rare.len() < question.units.len() {
        windows.push((question.any(scope), window));
    }
    let mut ids: HashSet<i64> = found.iter().map(|hit| hit.id).collect();
    let mut candidates: Vec<PageRow> = Vec::new();
    for (expression, ranked) in windows {
        for row in run(&expression, found.len() as i64 + limit, ranked, scoring)? {
            if ids.insert(row.id) {
                candidates.push(row);
            }
        }
    }
    sort_rows(&mut candidates, Order::Relevance);
    let mut sessions: HashSet<String> = found.iter().map(|h| h.session_key.clone()).collect();
    let wanted = (limit as usize).saturating_sub(found.len());
    let rows = candidates
        .into_iter()
        .filter(|row| !grouped || sessions.insert(row.session_key.clone()))
        .take(wanted)
        .collect();
    Ok(rows)
}

/// Blocks of 256 message ids `recent_complete.sql` looks at before it
/// gives up (8 388 608 messages).
const RECENT_CHECK_BLOCKS: i64 = 32_768;

/// The windows `order: recent` reads in turn, after the first of
/// `limit + 1` matches: each is read only when the one before could not
/// show that it held the newest by time; then every match.
const RECENT_WINDOWS: [i64; 3] = [128, 2048, 32768];

/// What `sql/recent_complete.sql` says of a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Window {
    /// It holds the newest by time.
    HoldsTheNewest,
    /// A message older by id is newer by time: a wider window may hold them.
    Shuffled,
    /// Too many messages are newer than its oldest row to tell.
    Unknown,
}

/// The rows of the search statement for `order: recent`: the newest `limit + 1` by
/// `created_at` among the fewest matches read in index order (newest id
/// first) that provably hold them. A window holds them when it read every
/// match, or when no message older by id than the window's oldest is newer
/// by time than the oldest row returned (`sql/recent_complete.sql`). Rows
/// written in time order need the first window only, locally shuffled ones
/// a wider one; sparse matches, and history imported out of order, read
/// every match.
fn newest(
    db: &dyn Connection,
    limit: i64,
    run: impl Fn(i64) -> Result<Vec<PageRow>>,
) -> Result<Vec<PageRow>> {
    for window in std::iter::once(limit + 1).chain(RECENT_WINDOWS) {
        let rows = run(window)?;
        let read = rows.first().map_or(0, |row| row.window_rows);
        if read < window {
            return Ok(rows);
        }
        match check_window(db, &rows)? {
            Window::HoldsTheNewest => return Ok(rows),
            Window::Shuffled => {}
            Window::Unknown => break,
        }
    }
    run(-1)
}

/// Whether the window of `rows` holds the newest by time.
fn check_window(db: &dyn Connection, rows: &[PageRow]) -> Result<Window> {
    let oldest_time = rows.iter().map(|row| row.created_at).min();
    let window_oldest = rows.first().and_then(|row| row.window_oldest);
    let (Some(time), Some(id)) = (oldest_time, window_oldest) else {
        return Ok(Window::Unknown);
    };
    let params = [
        (":oldest_time", time.into()),
        (":window_oldest", id.into()),
        (":blocks", RECENT_CHECK_BLOCKS.into()),
    ];
    let answer = db.query_named(RECENT_COMPLETE_SQL, &params)?;
    Ok(match answer.first().and_then(|row| row[0].as_i64()) {
        Some(0) => Window::HoldsTheNewest,
        Some(1) => Window::Shuffled,
        _ => Window::Unknown,
    })
}

/// A hit from a row of the search statement, with an excerpt of its searchable
/// text redacted by `redactor` (the stored patterns and the request's),
/// centred where `focus` says; a `partial` one with the terms it holds.
fn hit(
    row: &PageRow,
    focus: &Focus<'_>,
    redactor: &Redactor,
    snippet_chars: i64,
    partial: bool,
) -> Option<Hit> {
    let content = row.content.as_bytes()?;
    let text = content::searchable_text(&content)?;
    let (found, matched) = if partial {
        focus.find_with_terms(&text)
    } else {
        (focus.find(&text), Vec::new())
    };
    // `excerpt` looks for the match in the text first, in its redacted
    // window after: the first is already known.
    let known = Cell::new(Some(found));
    let snippet = excerpt(
        &text,
        &|t| known.take().unwrap_or_else(|| focus.find(t)),
        redactor,
        usize::try_from(snippet_chars).ok()?,
    );
    let matched = matched
        .into_iter()
        .map(|term| redactor.redact(term).into_owned())
        .collect();
    Some(Hit {
        session_key: row.session_key.clone(),
        message_id: row.message_id.clone().unwrap_or_else(|| row.id.to_string()),
        id: row.id,
        role: row.role.parse().ok()?,
        timestamp: row.created_at,
        snippet,
        score: -row.rank.unwrap_or(0.0),
        hits: row.session_hits,
        partial,
        matched,
    })
}

/// The longest prefix of `hits` whose JSON array fits in `max_bytes`, and
/// whether any hit was left out.
fn fit(hits: Vec<Hit>, max_bytes: i64) -> (Vec<Hit>, bool) {
    let budget = usize::try_from(max_bytes).unwrap_or(0);
    let mut used = 2; // the brackets
    let total = hits.len();
    let kept: Vec<Hit> = hits
        .into_iter()
        .take_while(|hit| {
            let size = serde_json::to_string(hit).map_or(usize::MAX, |json| json.len());
            let separator = usize::from(used > 2);
            if used + separator + size > budget {
                return false;
            }
            used += separator + size;
            true
        })
        .collect();
    let cut = kept.len() < total;
    (kept, cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(snippet: &str) -> Hit {
        Hit {
            session_key: "s".into(),
            message_id: "1".into(),
            id: 1,
            role: Role::User,
            timestamp: 0,
            snippet: snippet.into(),
            score: 1.0,
            hits: None,
            partial: false,
            matched: Vec::new(),
        }
    }

    #[test]
    fn fit_keeps_the_serialized_array_within_the_budget() {
        let hits: Vec<Hit> = (0..10).map(|i| hit(&"x".repeat(i * 10))).collect();
        for budget in [2, 50, 100, 500, 5000] {
            let (kept, cut) = fit(hits.clone(), budget);
            let json = serde_json::to_string(&kept).unwrap();
            assert!(json.len() as i64 <= budget, "{budget}: {}", json.len());
            assert_eq!(cut, kept.len() < hits.len());
        }
    }

    #[test]
    fn only_true_flags_are_serialized() {
        let response = SearchResponse {
            results: vec![],
            indexing: false,
            truncated: false,
            warning: None,
            terms: None,
        };
        assert_eq!(
            serde_json::to_string(&response).unwrap(),
            r#"{"results":[]}"#
        );
    }

    #[test]
    fn unknown_options_are_rejected() {
        let err = serde_json::from_str::<SearchOptions>(r#"{"caller":"a","visiblity":"all"}"#)
            .unwrap_err();
        assert!(err.to_string().contains("visiblity"), "{err}");
    }

    /// The names of the result columns of `sql`'s last statement: its last
    /// `SELECT` at the start of a line, up to its `FROM`, each column's
    /// alias or the name after its table.
    fn result_columns(sql: &str) -> Vec<String> {
        let start = sql.rfind("\nSELECT ").map_or(0, |at| at + 1) + "SELECT ".len();
        let list = &sql[start..];
        let mut columns = Vec::new();
        let (mut depth, mut from) = (0, 0);
        for (at, c) in list.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    columns.push(&list[from..at]);
                    from = at + 1;
                }
                _ if depth == 0 && list[at..].starts_with("FROM") => {
                    columns.push(&list[from..at]);
                    break;
                }
                _ => {}
            }
        }
        columns
            .into_iter()
            .map(|column| {
                let column = column.trim();
                let name = column.rsplit(" AS ").next().unwrap_or(column);
                name.rsplit('.').next().unwrap_or(name).to_owned()
            })
            .collect()
    }

    #[test]
    fn rows_are_read_by_the_names_their_statements_select() {
        assert_eq!(result_columns(SEARCH_SQL), CANDIDATE_COLUMNS);
        assert_eq!(result_columns(GROUPED_SEARCH_SQL), PAGE_COLUMNS);
        assert_eq!(result_columns(HIT_SQL), HIT_COLUMNS);
    }
}
