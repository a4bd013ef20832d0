//! Part `questions`: questions in plain language (`where did we discuss the
//! staging deploy failure?`) against answers planted in a corpus of
//! transcripts, searched as typed. It counts the answers on the first page
//! with the any-term fill of `sessions_search` (hits marked `partial`) and,
//! from the same responses, without it: the hits that are not partial are
//! exactly what every-term matching, the semantics before the fill, returns.
//! Each question is asked again with every match ranked, which tells what
//! the ranking misses from what the ranked window leaves out.
//!
//! The planted answers hold a question's topic words and none of its
//! template's words, as an answer phrased differently does; the corpus holds
//! many of both, so an answer is found on its words' merit or not at all.

mod plant;

use crate::corpus::{Kind, Lengths, Messages};
use crate::report::{load_average, Target, MB};
use crate::rng::Rng;
use crate::stats::{median, sorted};
use crate::store::databases::{self, TRANSACTION_ROWS};
use plant::{Chatter, Question};
use session_search::{
    IndexingMode, NewMessage, NewSession, Role, SearchOptions, SearchRequest, SearchResponse,
    Store, StoreOptions, Visibility,
};
use session_search_engine::query::Query;
use session_search_engine::search::{DEFAULT_RANK_WINDOW, MAX_RANK_WINDOW};
use std::error::Error;
use std::path::Path;
use std::time::Instant;

/// Sessions at scale 1.
const SESSIONS: f64 = 3000.0;

/// Mean messages per session; a session has half to one and a half times
/// as many, drawn uniformly.
const SESSION_MESSAGES: usize = 33;

/// Agents the sessions belong to (session `g` to agent `g % AGENTS`).
const AGENTS: usize = 10;

/// Share of `tool` messages; the others alternate user / assistant.
const TOOL_SHARE: f64 = 0.1;

/// Message lengths aimed at, as in the search part (mean about 300 B).
const LENGTHS: Lengths = Lengths { min: 40, max: 840 };

/// Questions asked, each with one planted answer.
const QUESTIONS: usize = 40;

/// Results per search: the first page.
const LIMIT: i64 = 10;

/// Share of the questions whose answer must be on the first page. Four in
/// five is where asking in plain words is worth it for an agent or a person:
/// most questions are answered at once, and the rest can still be asked
/// again in keywords; much below, plain questions would fail too often to
/// be asked at all. Chosen before the first run, not fitted to it.
const TARGET_SHARE: f64 = 0.8;

/// Share of the answers that the fill with every match ranked (BM25 of the
/// same words over every match of each of its steps) puts on the first
/// page that the fill must find too: its windows may cost at most one
/// answer in twenty.
const WINDOW_SHARE: f64 = 0.95;

/// Rows per reconciliation slice after the load.
const LOAD_SLICE_ROWS: i64 = 50_000;

/// Seed of the plan, the corpus and the answers.
const SEED: u64 = 0x5E55_0501;

/// `created_at` of the first message, unix milliseconds; one second apart.
const FIRST_CREATED_AT: i64 = 1_700_000_000_000;

/// The number of sessions at `scale`.
fn sessions(scale: f64) -> usize {
    ((SESSIONS * scale).round() as usize).max(AGENTS)
}

/// The key of session `g`.
fn session_key(g: usize) -> String {
    format!("agent:agent-{:02}:chat:{g}", g % AGENTS)
}

/// One planted answer.
#[derive(Debug, Clone)]
struct Planted {
    /// The session it is in.
    session: usize,
    /// How many corpus messages of its session come before it.
    position: usize,
    /// Its text.
    text: String,
    /// `messages.id`, once appended.
    id: i64,
    /// Messages appended after it, once the load is done.
    newer: usize,
}

/// What the load wrote.
#[derive(Debug, Clone, Copy)]
struct Load {
    /// Sessions created.
    sessions: usize,
    /// Messages appended, the answers included.
    messages: usize,
    /// Bytes of their content.
    bytes: usize,
    /// Seconds of the load and its reconciliation.
    seconds: f64,
}

/// The outcome of one question.
#[derive(Debug, Clone)]
struct Outcome {
    /// Rank of the answer among the hits that are not partial (from 1).
    before: Option<usize>,
    /// Rank of the answer on the whole page.
    after: Option<usize>,
    /// Its rank on the page when every match is ranked
    /// ([`MAX_RANK_WINDOW`]).
    every: Option<usize>,
    /// Hits with every term.
    full: usize,
    /// Milliseconds of the timed search.
    ms: f64,
}

/// Runs the part in the directory `work`, prints its tables and returns its
/// target.
///
/// # Errors
///
/// Any SQLite or session-search error.
pub fn run(scale: f64, work: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
    let path = work.join("questions.db");
    let result = measure(scale, &path);
    databases::remove(&path)?;
    result
}

/// Builds the database at `path`, asks the questions and reports.
fn measure(scale: f64, path: &Path) -> Result<Vec<Target>, Box<dyn Error>> {
    let mut rng = Rng::new(SEED);
    let questions = plant::questions(QUESTIONS, &mut rng);
    let counts: Vec<usize> = (0..sessions(scale))
        .map(|_| rng.between(SESSION_MESSAGES / 2, SESSION_MESSAGES * 3 / 2))
        .collect();
    let chatter = Chatter::new(&mut rng);
    let mut corpus_text = Messages::new(Kind::English, SEED ^ 1, LENGTHS);
    let mut planted = Vec::with_capacity(questions.len());
    for question in &questions {
        let u = rng.unit();
        let session = (counts.len() as f64 * u * u) as usize;
        let text = chatter.mention(corpus_text.next().expect("endless"), &mut rng);
        planted.push(Planted {
            session,
            position: rng.below(counts[session] + 1),
            text: plant::answer(question, &text, &mut rng)?,
            id: 0,
            newer: 0,
        });
    }
    header(&counts, &questions, &planted, &chatter);

    let store = Store::open_with(
        path,
        &StoreOptions {
            background_reconcile: false,
        },
    )?;
    let load = load(&store, &counts, &chatter, &mut planted, &mut rng)?;
    println!(
        "\ndatabase: {} messages ({:.1} MB) in {} sessions; deferred insert + reconcile({LOAD_SLICE_ROWS}) {:.1} s",
        load.messages,
        load.bytes as f64 / MB,
        load.sessions,
        load.seconds
    );

    let request = |question: &Question, rank_window: Option<i64>| SearchRequest {
        query: question.text.clone(),
        options: SearchOptions {
            caller: Some(session_key(0)),
            visibility: Visibility::All,
            limit: Some(LIMIT),
            rank_window,
            ..SearchOptions::default()
        },
    };
    for question in &questions {
        store.search(&request(question, None))?;
    }
    let mut outcomes = Vec::with_capacity(questions.len());
    for (question, answer) in questions.iter().zip(&planted) {
        let started = Instant::now();
        let response = store.search(&request(question, None))?;
        let ms = started.elapsed().as_secs_f64() * 1e3;
        let every = store.search(&request(question, Some(MAX_RANK_WINDOW)))?;
        outcomes.push(Outcome {
            every: rank(&every, answer.id, true),
            ..outcome(&response, answer.id, ms)
        });
    }
    let found = print(&store, &questions, &planted, &outcomes, load.messages)?;
    Ok(vec![
        Target::at_least(
            "plain-language questions: answers in the top 10 after the fill".into(),
            found.after as f64 / found.questions as f64,
            TARGET_SHARE,
            " of questions",
        ),
        Target::at_least(
            "plain-language questions: answers found, fill / the fill with every match ranked"
                .into(),
            found.after as f64 / found.every.max(1) as f64,
            WINDOW_SHARE,
            "x",
        ),
    ])
}

/// Where the answer `id` is in `response` (its rank on the page, or
/// without `partial_too` among the hits that are not partial).
fn rank(response: &SearchResponse, id: i64, partial_too: bool) -> Option<usize> {
    response
        .results
        .iter()
        .filter(|hit| partial_too || !hit.partial)
        .position(|hit| hit.id == id)
        .map(|i| i + 1)
}

/// The outcome of the answer `id` in `response`, found in `ms`.
fn outcome(response: &SearchResponse, id: i64, ms: f64) -> Outcome {
    Outcome {
        before: rank(response, id, false),
        after: rank(response, id, true),
        every: None,
        full: response.results.iter().filter(|hit| !hit.partial).count(),
        ms,
    }
}

/// Creates the sessions and appends their messages, `counts[g]` corpus
/// messages to session `g` with the planted answers among them, in
/// transactions of [`TRANSACTION_ROWS`] with deferred indexing, then
/// reconciles. Fills in the answers' ids and how many messages are newer.
fn load(
    store: &Store,
    counts: &[usize],
    chatter: &Chatter,
    planted: &mut [Planted],
    rng: &mut Rng,
) -> Result<Load, Box<dyn Error>> {
    let started = Instant::now();
    let conn = store.connection();
    conn.execute_batch("PRAGMA synchronous = NORMAL;")?;
    store.set_indexing(IndexingMode::Deferred)?;
    let mut corpus = Messages::new(Kind::English, SEED ^ 2, LENGTHS);
    let mut here: Vec<Vec<usize>> = vec![Vec::new(); counts.len()];
    for (i, answer) in planted.iter().enumerate() {
        here[answer.session].push(i);
    }
    let mut load = Load {
        sessions: counts.len(),
        messages: 0,
        bytes: 0,
        seconds: 0.0,
    };
    let mut appended_at = vec![0; planted.len()];
    let mut tx = conn.unchecked_transaction()?;
    for (g, &count) in counts.iter().enumerate() {
        let key = session_key(g);
        store.create_session(&NewSession {
            session_key: key.clone(),
            agent_id: format!("agent-{:02}", g % AGENTS),
            created_at: FIRST_CREATED_AT + load.messages as i64 * 1000,
            ..NewSession::default()
        })?;
        let mut turns = 0;
        let mut alternate = || {
            turns += 1;
            if turns % 2 == 1 {
                Role::User
            } else {
                Role::Assistant
            }
        };
        for k in 0..=count {
            let mut messages: Vec<(Role, String, Option<usize>)> = here[g]
                .iter()
                .filter(|&&i| planted[i].position == k)
                .map(|&i| (alternate(), planted[i].text.clone(), Some(i)))
                .collect();
            if k < count {
                let role = if rng.chance(TOOL_SHARE) {
                    Role::Tool
                } else {
                    alternate()
                };
                let text = chatter.mention(corpus.next().expect("endless"), rng);
                messages.push((role, text, None));
            }
            for (role, content, answer) in messages {
                load.bytes += content.len();
                let id = store.append(&NewMessage {
                    session_key: key.clone(),
                    role,
                    content,
                    created_at: FIRST_CREATED_AT + load.messages as i64 * 1000,
                    ..NewMessage::default()
                })?;
                if let Some(i) = answer {
                    planted[i].id = id;
                    appended_at[i] = load.messages;
                }
                load.messages += 1;
                if load.messages % TRANSACTION_ROWS == 0 {
                    tx.commit()?;
                    tx = conn.unchecked_transaction()?;
                }
            }
        }
    }
    tx.commit()?;
    while !store.reconcile(LOAD_SLICE_ROWS)?.done {}
    store.set_indexing(IndexingMode::Immediate)?;
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")?;
    for (answer, at) in planted.iter_mut().zip(appended_at) {
        answer.newer = load.messages - 1 - at;
    }
    load.seconds = started.elapsed().as_secs_f64();
    Ok(load)
}

/// Prints what is measured and how.
fn header(counts: &[usize], questions: &[Question], planted: &[Planted], chatter: &Chatter) {
    let messages: usize = counts.iter().sum::<usize>() + planted.len();
    println!(
        "\n=== part questions: plain-language questions against planted answers, {messages} messages in {} sessions ===",
        counts.len()
    );
    println!(
        "\
One database, built in a temp dir through the wrapper (Store::open_with, no background thread,
create_session and append in transactions of {rows}), WAL, synchronous=NORMAL, deferred indexing,
then reconcile({slice}) until done: {sessions} sessions of {AGENTS} agents written one after another,
{min}..{max} messages each, {tool:.0}% tool, else user and assistant in turn, one second apart:
English corpus text ({lmin}..{lmax} B aimed at), each message with 0..{most} question words
inserted between its words, drawn with Zipf weights (s = 1) from all {vocabulary} question words
(every slot word and template word below) ranked in a seeded random order, so the corpus holds
each of them, some in many messages and some in few.
Questions: {n}, the {templates} templates in turn (\"{first}\", …)
with their slots drawn at random from lists of systems, parts, problems, qualities and
alternatives (nginx, staging, deploy, timeouts, failure, flaky, postgres or sqlite…). A
question's content words are the slot words, its filler words the template's own. Each gets
one planted answer, in session floor(n*u*u) for a uniform u (half of them in the oldest
quarter), at a random place in it, as the user or assistant turn due: one of {frames}
sentences around the content words that shares no word with the template, before or after a
corpus message (question words inserted as above) from which every space-separated piece
holding a filler word is removed, so it has a corpus message's length and words. Each
question is searched as typed (punctuation included) with Store::search, caller session 0,
visibility all (the owner's view), limit {LIMIT}, every other option default (rankWindow
{window}); one untimed pass, then one timed pass. Load average at the start of the
part (other work on the machine skews timings): {load}
  after   the answer's rank on the page the search returns, partial hits included
  before  the previous semantics, every term must match: the answer's rank among the hits
          that are not marked partial (the fill only adds partial hits after those)
  every   the answer's rank with every match ranked (rankWindow {max_window}), partial hits included
          (an untimed search after each timed one)
  full    hits with every term on the page
  newer   share of the messages written after the answer
  words   each content word with the number of messages of the index that hold it; the fill
          ranks by those words alone first the newest rankWindow messages holding two of them
          within 10 tokens of each other, then every message holding one that is in at most
          rankWindow messages, and only if that leaves the page short the newest rankWindow
          holding any",
        rows = TRANSACTION_ROWS,
        slice = LOAD_SLICE_ROWS,
        sessions = counts.len(),
        min = SESSION_MESSAGES / 2,
        max = SESSION_MESSAGES * 3 / 2,
        tool = TOOL_SHARE * 100.0,
        lmin = LENGTHS.min,
        lmax = LENGTHS.max,
        n = questions.len(),
        templates = plant::TEMPLATES.len(),
        first = plant::TEMPLATES[0],
        frames = plant::frames(),
        most = plant::CHATTER_MOST,
        vocabulary = chatter.vocabulary,
        window = DEFAULT_RANK_WINDOW,
        max_window = MAX_RANK_WINDOW,
        load = load_average(),
    );
    if let (Some(question), Some(answer)) = (questions.first(), planted.first()) {
        let shown: String = answer.text.chars().take(240).collect::<String>();
        let shown = shown.replace('\n', "\n  ");
        println!(
            "Example: {:?}, answer planted in session {}:\n  {shown}{}",
            question.text,
            answer.session,
            if answer.text.chars().count() > 240 {
                "…"
            } else {
                ""
            }
        );
    }
}

/// Prints the table and the totals; returns the share of answers on the
/// first page after the fill.
fn print(
    store: &Store,
    questions: &[Question],
    planted: &[Planted],
    outcomes: &[Outcome],
    messages: usize,
) -> Result<Found, Box<dyn Error>> {
    let rank = |rank: Option<usize>| rank.map_or("-".to_owned(), |r| r.to_string());
    println!(
        "\n{:>2}  {:>5}  {:>6}  {:>5}  {:>4}  {:>5}  {:<66}  words",
        "#", "after", "before", "every", "full", "newer", "question"
    );
    let mut all_common = (0, 0);
    for (i, ((question, answer), outcome)) in
        questions.iter().zip(planted).zip(outcomes).enumerate()
    {
        let mut words = Vec::new();
        let mut common = true;
        for word in &question.content {
            let n = matching(store, word)?;
            common &= n > DEFAULT_RANK_WINDOW;
            words.push(format!("{word} {n}"));
        }
        if common {
            all_common.0 += 1;
            all_common.1 += usize::from(outcome.after.is_some());
        }
        println!(
            "{:>2}  {:>5}  {:>6}  {:>5}  {:>4}  {:>5.2}  {:<66}  {}",
            i + 1,
            rank(outcome.after),
            rank(outcome.before),
            rank(outcome.every),
            outcome.full,
            answer.newer as f64 / messages as f64,
            question.text,
            words.join(", ")
        );
    }
    let n = questions.len();
    let count = |f: &dyn Fn(&Outcome) -> bool| outcomes.iter().filter(|o| f(o)).count();
    let before = count(&|o| o.before.is_some());
    let after = count(&|o| o.after.is_some());
    let first = count(&|o| o.after == Some(1));
    let every = count(&|o| o.every.is_some());
    let every_first = count(&|o| o.every == Some(1));
    let times = sorted(outcomes.iter().map(|o| o.ms).collect());
    println!(
        "\nanswers in the top {LIMIT}: before (every term must match; counted among the hits not marked partial) {before}/{n}, after (the whole page, partial hits included) {after}/{n}; at rank 1 after: {first}/{n}; after with every match ranked (rankWindow {MAX_RANK_WINDOW}): {every}/{n}, at rank 1: {every_first}/{n}"
    );
    println!(
        "questions with some hit having every term: {}/{n}; questions whose every content word is in over {DEFAULT_RANK_WINDOW} messages: {}, answered {}",
        count(&|o| o.full > 0),
        all_common.0,
        all_common.1
    );
    println!(
        "latency of these searches (fill included): median {:.2} ms, max {:.2} ms",
        median(&times),
        times.last().copied().unwrap_or(0.0)
    );
    Ok(Found {
        after,
        every,
        questions: n,
    })
}

/// How many answers a run found on the first page.
struct Found {
    /// With the fill, as searches run.
    after: usize,
    /// With every match of each step of the fill ranked.
    every: usize,
    /// Questions asked.
    questions: usize,
}

/// Messages of the index that hold `word`.
fn matching(store: &Store, word: &str) -> Result<i64, Box<dyn Error>> {
    let expression = Query::parse(word)?.fts5_expression(None);
    Ok(store.connection().query_row(
        "SELECT count(*) FROM session_search_fts WHERE session_search_fts MATCH ?1",
        [expression],
        |row| row.get(0),
    )?)
}
