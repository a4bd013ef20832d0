//! The questions and their planted answers. A question is a template, in
//! the words people and models ask with, whose slots take topic words drawn
//! at random; its answer is a sentence around those topic words that uses
//! none of the template's own words, joined to ordinary corpus text with
//! those words taken out. [`Chatter`] makes the corpus mention every
//! question word too.

use crate::rng::{Rng, Zipf};
use session_search::tokenizer::Tokenizer;
use session_search_engine::query::INDEX_OPTIONS;
use std::collections::HashSet;

/// Question templates. `{s}` is a system, `{a}` a part of one, `{p}` a
/// problem, `{q}` a quality, `{x}` and `{y}` two alternatives; every other
/// word is a filler word, which an answer does not repeat.
pub const TEMPLATES: &[&str] = &[
    "where did we discuss the {s} {a} {p}?",
    "what was the fix for the {q} {s} {a}?",
    "did we decide to use {x} or {y} for the {s}?",
    "how did we configure the {s} {a}?",
    "when did we last talk about the {s} {a}?",
    "what did we end up doing about the {s} {p}?",
    "why was the {s} {a} so {q}?",
    "which {a} did we pick for {s}?",
    "can you find the conversation about the {s} {p}?",
    "remind me what caused the {s} {a} {p} last time",
    "was it {x} or {y} that we chose for {s} in the end?",
    "what were the steps to set up the {s} {a}?",
    "who looked into the {q} {s} {a} last week?",
    "have we seen this {s} {p} before?",
];

/// Systems of a software stack (`{s}`).
const SYSTEMS: &[&str] = &[
    "staging",
    "production",
    "nginx",
    "postgres",
    "sqlite",
    "redis",
    "docker",
    "kubernetes",
    "login",
    "checkout",
    "billing",
    "webhook",
    "scheduler",
    "cron",
    "auth",
    "payment",
    "search",
    "dashboard",
    "gateway",
    "frontend",
    "backend",
    "worker",
    "queue",
    "cache",
    "session",
    "email",
    "notification",
    "cluster",
    "database",
    "api",
    "ci",
    "kafka",
    "terraform",
    "grafana",
    "s3",
    "cdn",
    "oauth",
    "websocket",
    "graphql",
    "importer",
];

/// Parts or aspects of a system (`{a}`).
const PARTS: &[&str] = &[
    "deploy",
    "migration",
    "timeouts",
    "proxy",
    "tests",
    "build",
    "pipeline",
    "config",
    "certificate",
    "backup",
    "index",
    "rollout",
    "upgrade",
    "logging",
    "alerts",
    "metrics",
    "endpoint",
    "retries",
    "permissions",
    "schema",
    "replica",
    "pool",
    "memory",
    "latency",
    "port",
    "secrets",
    "healthcheck",
    "throttling",
    "tokens",
    "limits",
];

/// Problems (`{p}`).
const PROBLEMS: &[&str] = &[
    "failure",
    "crash",
    "outage",
    "leak",
    "regression",
    "error",
    "slowdown",
    "deadlock",
    "corruption",
    "errors",
    "mismatch",
    "downtime",
    "bug",
    "panic",
    "hang",
];

/// Qualities (`{q}`).
const QUALITIES: &[&str] = &[
    "flaky",
    "slow",
    "broken",
    "intermittent",
    "stuck",
    "failing",
    "noisy",
    "stale",
];

/// Alternatives one chooses between (`{x}`, `{y}`).
const CHOICES: &[(&str, &str)] = &[
    ("postgres", "sqlite"),
    ("redis", "memcached"),
    ("kafka", "rabbitmq"),
    ("nginx", "caddy"),
    ("docker", "podman"),
    ("react", "svelte"),
    ("jwt", "cookies"),
    ("grpc", "rest"),
    ("yaml", "toml"),
    ("pytest", "unittest"),
    ("celery", "cron"),
    ("terraform", "pulumi"),
];

/// The sentences an answer is written in; `{}` takes the question's content
/// words. A question gets the first, from a random start, that shares no
/// word with its template.
const ANSWER_FRAMES: &[&str] = &[
    "Root cause of {}: one node kept an old value after its restart; rolled back, then patched.",
    "Notes on {}: bumped it to 60s, added backoff between attempts, verified under load.",
    "Settled: {}. Benchmarks favoured it by 3x, so no further changes planned.",
    "Summary re {}: pinned versions, cleared old state, reran everything; green since Tuesday.",
    "Postmortem, {}: disk filled overnight; added rotation plus an alarm at 80%.",
    "Quick recap of {} - two lines changed in settings, plus a restart. Works now.",
    "Investigated {} yesterday: happens only under concurrent writes; workaround merged, proper patch pending.",
    "Decision log: {}. Reason: simpler operations, fewer moving parts, team already knows it.",
    "Heads up about {}: keep values below 30s or requests pile up behind it.",
    "Checklist for {}: 1) export variables 2) apply manifests 3) smoke-check endpoints 4) watch logs.",
];

/// Exponent of the Zipf weights of the question words in [`Chatter`].
const CHATTER_ZIPF: f64 = 1.0;

/// Most question words [`Chatter`] adds to one message (from 0, uniform).
pub const CHATTER_MOST: usize = 3;

/// Mentions of the question words in corpus text, so that the corpus holds
/// them as a team's history would: every word of every slot list and every
/// template word, ranked in a random order (drawn from the seed, not
/// chosen), with Zipf weights, so some are in many messages and some in few.
#[derive(Debug, Clone)]
pub struct Chatter {
    words: Zipf,
    /// How many words it draws from.
    pub vocabulary: usize,
}

impl Chatter {
    /// The vocabulary, ranked by `rng`.
    pub fn new(rng: &mut Rng) -> Chatter {
        let mut words: Vec<&'static str> = Vec::new();
        let slots = SYSTEMS.iter().chain(PARTS).chain(PROBLEMS).chain(QUALITIES);
        let choices = CHOICES.iter().flat_map(|&(x, y)| [x, y]);
        let template_words = TEMPLATES
            .iter()
            .flat_map(|t| t.split_whitespace())
            .filter(|word| !word.starts_with('{'))
            .map(|word| word.trim_end_matches('?'));
        for word in slots.copied().chain(choices).chain(template_words) {
            if !words.contains(&word) {
                words.push(word);
            }
        }
        for i in (1..words.len()).rev() {
            words.swap(i, rng.below(i + 1));
        }
        Chatter {
            vocabulary: words.len(),
            words: Zipf::from_words(words, CHATTER_ZIPF),
        }
    }

    /// `text` with 0 to [`CHATTER_MOST`] question words inserted between
    /// its space-separated pieces.
    pub fn mention(&self, text: String, rng: &mut Rng) -> String {
        let n = rng.below(CHATTER_MOST + 1);
        if n == 0 {
            return text;
        }
        let mut pieces: Vec<&str> = text.split(' ').collect();
        for _ in 0..n {
            let at = rng.below(pieces.len() + 1);
            pieces.insert(at, self.words.sample(rng));
        }
        pieces.join(" ")
    }
}

/// The number of answer sentences.
pub fn frames() -> usize {
    ANSWER_FRAMES.len()
}

/// A question and what its answer holds.
#[derive(Debug, Clone)]
pub struct Question {
    /// As asked.
    pub text: String,
    /// The topic words filled into the template: what an answer holds.
    pub content: Vec<&'static str>,
    /// The tokens of the template's own words: what an answer leaves out.
    pub filler: HashSet<String>,
}

/// The tokens of `text`, as the index folds them.
fn tokens(tokenizer: &mut Tokenizer, text: &str) -> Vec<String> {
    tokenizer
        .tokens(text.as_bytes())
        .into_iter()
        .map(|(token, ..)| token)
        .collect()
}

/// `n` different questions, the templates in turn, their slots drawn from
/// `rng`; a draw whose content words repeat or include a filler word is
/// drawn again.
pub fn questions(n: usize, rng: &mut Rng) -> Vec<Question> {
    let mut tokenizer = Tokenizer::new(INDEX_OPTIONS);
    let mut questions: Vec<Question> = Vec::with_capacity(n);
    while questions.len() < n {
        let template = TEMPLATES[questions.len() % TEMPLATES.len()];
        let (text, content) = fill(template, rng);
        let filler: HashSet<String> = tokens(&mut tokenizer, &without_slots(template))
            .into_iter()
            .collect();
        let content_tokens = tokens(&mut tokenizer, &content.join(" "));
        let distinct: HashSet<&String> = content_tokens.iter().collect();
        if distinct.len() < content_tokens.len()
            || content_tokens.iter().any(|token| filler.contains(token))
            || questions.iter().any(|q| q.text == text)
        {
            continue;
        }
        questions.push(Question {
            text,
            content,
            filler,
        });
    }
    questions
}

/// `template` with its slots filled from `rng`, and the words put in them.
fn fill(template: &str, rng: &mut Rng) -> (String, Vec<&'static str>) {
    let (s, a, p, q) = (
        rng.pick(SYSTEMS),
        rng.pick(PARTS),
        rng.pick(PROBLEMS),
        rng.pick(QUALITIES),
    );
    let (x, y) = rng.pick(CHOICES);
    let mut text = String::new();
    let mut content = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        text.push_str(&rest[..open]);
        let word = match &rest[open..open + 3] {
            "{s}" => s,
            "{a}" => a,
            "{p}" => p,
            "{q}" => q,
            "{x}" => x,
            "{y}" => y,
            slot => unreachable!("unknown slot {slot} in {template:?}"),
        };
        text.push_str(word);
        content.push(word);
        rest = &rest[open + 3..];
    }
    text.push_str(rest);
    (text, content)
}

/// `template` with its slots blanked: its filler words.
fn without_slots(template: &str) -> String {
    let mut text = template.to_owned();
    for slot in ["{s}", "{a}", "{p}", "{q}", "{x}", "{y}"] {
        text = text.replace(slot, " ");
    }
    text
}

/// The answer to `question`: an answer sentence around its content words,
/// before or after `text` (a corpus message) from which every
/// space-separated piece holding one of the question's filler words is
/// removed.
///
/// # Errors
///
/// When no answer sentence avoids the question's filler words, or the
/// answer written holds one or lacks a content word (a mistake in the lists
/// above).
pub fn answer(question: &Question, text: &str, rng: &mut Rng) -> Result<String, String> {
    let mut tokenizer = Tokenizer::new(INDEX_OPTIONS);
    let mut clean = |text: &str| {
        tokens(&mut tokenizer, text)
            .iter()
            .all(|token| !question.filler.contains(token))
    };
    let start = rng.below(ANSWER_FRAMES.len());
    let frame = (0..ANSWER_FRAMES.len())
        .map(|i| ANSWER_FRAMES[(start + i) % ANSWER_FRAMES.len()])
        .find(|frame| clean(&frame.replace("{}", " ")))
        .ok_or_else(|| format!("no answer sentence avoids the words of {:?}", question.text))?;
    let sentence = frame.replace("{}", &question.content.join(" "));
    let kept: Vec<&str> = text.split(' ').filter(|piece| clean(piece)).collect();
    let kept = kept.join(" ");
    let answer = if rng.chance(0.5) {
        format!("{sentence} {kept}")
    } else {
        format!("{kept} {sentence}")
    };
    let answer = answer.trim().to_owned();
    let found: HashSet<String> = tokens(&mut tokenizer, &answer).into_iter().collect();
    let wanted = tokens(&mut tokenizer, &question.content.join(" "));
    if found.iter().any(|token| question.filler.contains(token))
        || wanted.iter().any(|token| !found.contains(token))
    {
        return Err(format!(
            "the answer to {:?} holds a filler word or lacks a content word",
            question.text
        ));
    }
    Ok(answer)
}
