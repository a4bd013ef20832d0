//! The fill of a question: what `sessions_search` looks for when every-term
//! matching finds fewer than `limit` hits.
//!
//! A query read as a question is a list of [`Unit`]s, each found by its own
//! FTS5 strings and ranked by BM25 over all of them (see
//! [`crate::rank::Bm25::with_other_forms`]):
//!
//! - Words that only frame a question (`where did we discuss`, `上次`,
//!   `什麼`, `どこ`, `어떻게`) are left out, unless nothing else is left.
//! - A word typed without quotes also matches its other forms
//!   ([`crate::forms`]), which weigh less than the form typed.
//! - A run of a script written without spaces (Han, Kana, Hangul, Thai…),
//!   typed without quotes, is cut into its framing words and its pieces:
//!   overlapping pairs of characters, each a unit (`資料庫` is `資料` and
//!   `料庫`), so that an answer holding some of its words is found.
//! - Quoted phrases and prefixes stay as typed.

use crate::forms;
use crate::query::{scan, Pattern, Query};
use crate::rank::{MOST_MARKED_PHRASES, NEAR_TOKENS};
use crate::role::Role;
use crate::tokenizer::{is_spaceless, RUN_BOUNDARY};
use std::ops::{ControlFlow, Range};

/// The most units whose pairs [`Question::near_pairs`] joins (28 pairs):
/// the groups grow with the square of the units, and a query may hold
/// hundreds of words.
pub const NEAR_MOST_UNITS: usize = 8;

/// Words that frame a question rather than say what it is about
/// (interrogatives, auxiliaries, pronouns, function words, the verbs of
/// asking about a conversation or a decision and words of when: "where did
/// we discuss…", "did we decide to use…", "last week"; the negated
/// auxiliaries without their `n't`, as `didn't` is split), sorted.
const FRAMING_WORDS: [&str; 192] = [
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "ago",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "aren",
    "as",
    "ask",
    "asked",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "cannot",
    "chat",
    "chats",
    "choose",
    "chose",
    "chosen",
    "conversation",
    "conversations",
    "could",
    "couldn",
    "day",
    "decide",
    "decided",
    "did",
    "didn",
    "discuss",
    "discussed",
    "discussing",
    "do",
    "does",
    "doesn",
    "doing",
    "don",
    "done",
    "during",
    "each",
    "earlier",
    "ever",
    "few",
    "find",
    "for",
    "from",
    "further",
    "had",
    "hadn",
    "has",
    "hasn",
    "have",
    "haven",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "isn",
    "it",
    "its",
    "itself",
    "just",
    "last",
    "look",
    "looked",
    "may",
    "me",
    "mention",
    "mentioned",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "pick",
    "picked",
    "recall",
    "remember",
    "remind",
    "said",
    "same",
    "say",
    "see",
    "seen",
    "shall",
    "she",
    "should",
    "shouldn",
    "so",
    "some",
    "such",
    "talk",
    "talked",
    "talking",
    "tell",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "time",
    "to",
    "today",
    "told",
    "too",
    "under",
    "until",
    "up",
    "us",
    "use",
    "used",
    "using",
    "very",
    "was",
    "wasn",
    "we",
    "week",
    "were",
    "weren",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "won",
    "would",
    "wouldn",
    "yesterday",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// The framing words of Chinese (simplified and traditional) and the Han
/// ones of Japanese, found anywhere in a run of Han characters: particles,
/// pronouns, question words, words of when and the verbs of asking about a
/// conversation. Single characters are only those that stand alone as such
/// words (`的`, `了`, `吗`), not those that begin many words (`用`, `问`).
const HAN_FRAMING: &[&str] = &[
    "的",
    "了",
    "吗",
    "嗎",
    "呢",
    "吧",
    "啊",
    "呀",
    "么",
    "麼",
    "是",
    "我",
    "你",
    "您",
    "他",
    "她",
    "它",
    "这",
    "這",
    "那",
    "哪",
    "谁",
    "誰",
    "和",
    "与",
    "與",
    "或",
    "都",
    "也",
    "就",
    "还",
    "還",
    "又",
    "把",
    "被",
    "给",
    "給",
    "过",
    "過",
    "在",
    "有",
    "我们",
    "我們",
    "你们",
    "你們",
    "他们",
    "他們",
    "咱们",
    "咱們",
    "这个",
    "這個",
    "那个",
    "那個",
    "这些",
    "這些",
    "那些",
    "什么",
    "什麼",
    "甚么",
    "甚麼",
    "哪些",
    "哪个",
    "哪個",
    "哪里",
    "哪裡",
    "哪儿",
    "哪兒",
    "怎么",
    "怎麼",
    "怎样",
    "怎樣",
    "如何",
    "为什么",
    "為什麼",
    "为何",
    "為何",
    "多少",
    "几个",
    "幾個",
    "上次",
    "上回",
    "之前",
    "以前",
    "当时",
    "當時",
    "时候",
    "時候",
    "那时",
    "那時",
    "曾经",
    "曾經",
    "讨论",
    "討論",
    "谈过",
    "談過",
    "说过",
    "說過",
    "提到",
    "提过",
    "提過",
    "聊过",
    "聊過",
    "问过",
    "問過",
    "用了",
    "用过",
    "用過",
    "一下",
    "请",
    "請",
    "帮我",
    "幫我",
    "告诉",
    "告訴",
    "记得",
    "記得",
    "对话",
    "對話",
    "那次",
    "哪次",
    "关于",
    "關於",
    "是不是",
    "有没有",
    "有沒有",
    "何",
    "誰",
    "前回",
    "以前",
    "私",
    "僕",
];

/// Endings of a Korean word that frame it (particles and the endings of
/// asking), taken off its end, and Korean words that only frame a
/// question.
const HANGUL_ENDINGS: &[&str] = &[
    "이",
    "가",
    "은",
    "는",
    "을",
    "를",
    "에",
    "의",
    "와",
    "과",
    "도",
    "로",
    "으로",
    "에서",
    "에게",
    "한테",
    "까지",
    "부터",
    "이랑",
    "랑",
    "했나요",
    "했어요",
    "했어",
    "했지",
    "했나",
    "했죠",
    "했는지",
    "인가요",
    "이었나요",
    "였나요",
    "나요",
    "까요",
    "습니까",
    "했습니까",
    "했습니다",
    "합니다",
    "해요",
    "했던",
    "하는",
    "하던",
];

/// Korean words that only frame a question.
const HANGUL_FRAMING: &[&str] = &[
    "뭐",
    "무엇",
    "무슨",
    "어떤",
    "어떻게",
    "언제",
    "어디",
    "어디서",
    "왜",
    "누가",
    "누구",
    "우리",
    "우리가",
    "제가",
    "내가",
    "저",
    "나",
    "지난번",
    "전에",
    "이전에",
    "그때",
    "얘기",
    "이야기",
    "대화",
    "했던",
    "있나요",
    "있어",
    "알려줘",
    "찾아줘",
];

/// A thing the fill looks for: a term as typed (with its other forms), or a
/// piece of one.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// The index of the query term it comes from.
    pub term: usize,
    /// Its FTS5 strings: the form typed first, then its other forms.
    pub phrases: Vec<Phrase>,
    /// A piece of a run of a spaceless script, not the whole term.
    pub piece: bool,
}

/// One FTS5 string of a [`Unit`].
#[derive(Debug, Clone, PartialEq)]
pub struct Phrase {
    /// The FTS5 string (quoted, maybe with `*`).
    pub fts5: String,
    /// Another form of the word typed.
    pub other_form: bool,
    /// Its tokens, to find it in a text.
    pub tokens: Vec<String>,
    /// Its last token matches any token it starts.
    pub prefix: bool,
}

/// A query read as a question.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// What the fill looks for, in the order typed.
    pub units: Vec<Unit>,
    /// The query terms left out as framing words.
    pub framing: Vec<usize>,
    /// Whose words the question asks about, when it says so (`what did I
    /// say about …` the user's, `where did you suggest …` the
    /// assistant's): the first `I` or `you` followed by a verb of saying.
    pub speaker: Option<Role>,
}

impl Question {
    /// Reads `query` as a question.
    pub fn new(query: &Query) -> Question {
        let framing: Vec<usize> = (0..query.terms.len())
            .filter(|&term| frames_question(query, term))
            .collect();
        let kept: Vec<usize> = if framing.len() == query.terms.len() {
            (0..query.terms.len()).collect()
        } else {
            (0..query.terms.len())
                .filter(|term| !framing.contains(term))
                .collect()
        };
        let mut units = Vec::new();
        for &term in &kept {
            units.extend(term_units(query, term));
        }
        if units.is_empty() {
            // A question made only of framing pieces: every term as typed.
            units = (0..query.terms.len())
                .map(|term| typed_unit(query, term))
                .collect();
        }
        let framing = if kept.len() == query.terms.len() {
            Vec::new()
        } else {
            framing
        };
        Question {
            units,
            framing,
            speaker: speaker(query),
        }
    }

    /// Keeps only the other forms for which `found` (given a form's FTS5
    /// string) is true: a form no message holds would cost every statement
    /// of the fill a lookup for nothing.
    ///
    /// # Errors
    ///
    /// What `found` returns.
    pub fn keep_forms<E>(
        &mut self,
        found: &mut dyn FnMut(&str) -> Result<bool, E>,
    ) -> Result<(), E> {
        for unit in &mut self.units {
            let mut kept = Vec::with_capacity(unit.phrases.len());
            for phrase in unit.phrases.drain(..) {
                if !phrase.other_form || found(&phrase.fts5)? {
                    kept.push(phrase);
                }
            }
            unit.phrases = kept;
        }
        Ok(())
    }

    /// Whether the fill may find messages that every-term matching does
    /// not: the query has two clauses or more, or a term has other forms or
    /// pieces.
    pub fn adds_to(&self, query: &Query) -> bool {
        query.clauses.len() > 1
            || self
                .units
                .iter()
                .any(|unit| unit.piece || unit.phrases.len() > 1 && unit.phrases[1].other_form)
    }

    /// Every unit's phrases joined by `OR`, how many phrases they are, and
    /// the bits of those that are other forms: the scored part of every
    /// expression of the fill. An other form that would come after the
    /// first [`MOST_MARKED_PHRASES`] phrases, which a mark cannot reach, is
    /// left out: every word as typed is scored, however many.
    pub fn scored(&self) -> (String, usize, u64) {
        let mut strings = Vec::new();
        let mut marks = 0u64;
        for phrase in self.units.iter().flat_map(|unit| &unit.phrases) {
            if phrase.other_form {
                if strings.len() >= MOST_MARKED_PHRASES {
                    continue;
                }
                marks |= 1 << strings.len();
            }
            strings.push(phrase.fts5.as_str());
        }
        (strings.join(" OR "), strings.len(), marks)
    }

    /// The phrases of the units at `units`, joined by `OR`.
    pub fn alternatives(&self, units: &[usize]) -> String {
        let strings: Vec<&str> = units
            .iter()
            .flat_map(|&unit| &self.units[unit].phrases)
            .map(|phrase| phrase.fts5.as_str())
            .collect();
        strings.join(" OR ")
    }

    /// The messages holding one of the units at `units`, scored by every
    /// unit (see [`Question::scored`]).
    pub fn holding(&self, units: &[usize], scope: Option<&str>) -> String {
        let (scored, ..) = self.scored();
        let required = self.alternatives(units);
        Query::scoped(format!("({scored}) AND ({required})"), scope)
    }

    /// The messages holding any unit, scored by every unit.
    pub fn any(&self, scope: Option<&str>) -> String {
        Query::scoped(self.scored().0, scope)
    }

    /// The messages holding two units within [`NEAR_TOKENS`] tokens of each
    /// other (one `NEAR` group per pair of their forms typed), scored by
    /// every unit: where a question's words are discussed together. Units
    /// whose form typed is several strings (a prefix read through its
    /// prefix tokens) join no group, and only the first [`NEAR_MOST_UNITS`]
    /// of the others do; `None` when fewer than two remain.
    pub fn near_pairs(&self, scope: Option<&str>) -> Option<String> {
        let typed: Vec<&str> = self
            .units
            .iter()
            .filter(|unit| unit.phrases.len() == 1 || unit.phrases[1].other_form)
            .map(|unit| unit.phrases[0].fts5.as_str())
            .take(NEAR_MOST_UNITS)
            .collect();
        let mut groups = Vec::new();
        for (i, first) in typed.iter().enumerate() {
            for second in &typed[i + 1..] {
                groups.push(format!("NEAR({first} {second}, {NEAR_TOKENS})"));
            }
        }
        if groups.is_empty() {
            return None;
        }
        let (scored, ..) = self.scored();
        Some(Query::scoped(
            format!("({scored}) AND ({})", groups.join(" OR ")),
            scope,
        ))
    }

    /// The FTS5 strings, joined by `OR`, that find query term `term` by
    /// other forms or pieces (not as typed), if it has any.
    pub fn other_forms_of(&self, term: usize) -> Option<String> {
        let strings: Vec<&str> = self
            .units
            .iter()
            .filter(|unit| unit.term == term)
            .flat_map(|unit| {
                unit.phrases
                    .iter()
                    .filter(move |p| unit.piece || p.other_form)
            })
            .map(|phrase| phrase.fts5.as_str())
            .collect();
        (!strings.is_empty()).then(|| strings.join(" OR "))
    }

    /// Byte ranges of `text` where a unit matches (as typed, in another
    /// form or a piece), in order of position.
    pub fn match_spans(&self, text: &str) -> Vec<Range<usize>> {
        let patterns: Vec<Pattern<'_>> = self.patterns().into_iter().map(|(.., p)| p).collect();
        let mut spans = Vec::new();
        scan(&patterns, text, &mut |_, _, _, span| {
            spans.push(span);
            ControlFlow::Continue(())
        });
        spans.sort_by_key(|span| (span.start, span.end));
        spans.dedup();
        spans
    }

    /// The match of `text` an excerpt centres on: of the units in
    /// `preferred` order (most distinctive first), the first that `text`
    /// holds, at its first match as typed, else in another form. The scan
    /// stops at the first unit's match as typed, or [`FOCUS_REACH`] bytes
    /// after the first match of any, so a long text costs a bounded time.
    pub fn focus(&self, text: &str, preferred: &[usize]) -> Option<Range<usize>> {
        let best = preferred.first().copied();
        let mut reach = usize::MAX;
        let first = self.first_matches(text, &mut |unit, other_form, span| {
            reach = reach.min(span.end.saturating_add(FOCUS_REACH));
            span.start > reach || (Some(unit) == best && !other_form)
        });
        pick(&first, preferred)
    }

    /// [`Question::focus`] of `text`, and the indices of the query terms
    /// that a unit of which it holds (as typed, in another form or a piece),
    /// in order, looked for in its first [`MATCHED_REACH`] bytes.
    pub fn focus_and_terms(
        &self,
        text: &str,
        preferred: &[usize],
    ) -> (Option<Range<usize>>, Vec<usize>) {
        let mut end = text.len().min(MATCHED_REACH);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let first = self.first_matches(&text[..end], &mut |_, _, _| false);
        let mut terms: Vec<usize> = (0..self.units.len())
            .filter(|&unit| first[unit].iter().any(Option::is_some))
            .map(|unit| self.units[unit].term)
            .collect();
        terms.sort_unstable();
        terms.dedup();
        let focus = pick(&first, preferred).or_else(|| self.focus(text, preferred));
        (focus, terms)
    }

    /// Per unit, its first match in `text` as typed and its first in
    /// another form, until `stop` (given the unit, whether the match is
    /// another form, and its span) says the scan may end.
    fn first_matches(
        &self,
        text: &str,
        stop: &mut dyn FnMut(usize, bool, &Range<usize>) -> bool,
    ) -> Vec<[Option<Range<usize>>; 2]> {
        let entries = self.patterns();
        let patterns: Vec<Pattern<'_>> = entries.iter().map(|&(.., p)| p).collect();
        let mut first: Vec<[Option<Range<usize>>; 2]> = vec![[None, None]; self.units.len()];
        scan(&patterns, text, &mut |pattern, _, _, span| {
            let (unit, other_form, _) = entries[pattern];
            let done = stop(unit, other_form, &span);
            let slot = &mut first[unit][usize::from(other_form)];
            if slot.is_none() {
                *slot = Some(span);
            }
            if done {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        first
    }

    /// Every phrase as a pattern to find in a text, with its unit's index
    /// and whether it is another form.
    fn patterns(&self) -> Vec<(usize, bool, Pattern<'_>)> {
        self.units
            .iter()
            .enumerate()
            .flat_map(|(index, unit)| {
                unit.phrases.iter().map(move |phrase| {
                    (
                        index,
                        phrase.other_form,
                        Pattern {
                            tokens: &phrase.tokens,
                            prefix: phrase.prefix,
                        },
                    )
                })
            })
            .collect()
    }
}

/// Of `first` (per unit, its first match as typed and in another form), the
/// match of the first unit of `preferred` that has one, as typed first.
fn pick(first: &[[Option<Range<usize>>; 2]], preferred: &[usize]) -> Option<Range<usize>> {
    preferred.iter().find_map(|&unit| {
        let [typed, other] = first.get(unit)?;
        typed.clone().or_else(|| other.clone())
    })
}

/// How far past the first match in a text [`Question::focus`] looks for a
/// more distinctive one, in bytes.
pub const FOCUS_REACH: usize = 64 * 1024;

/// How much of a text [`Question::focus_and_terms`] reads, in bytes.
pub const MATCHED_REACH: usize = 256 * 1024;

/// Verbs of saying: after `I` or `you` (`did I ask`, `you suggested`),
/// they make a question about someone's words. Sorted.
const SAYING_VERBS: [&str; 31] = [
    "answer",
    "answered",
    "ask",
    "asked",
    "explain",
    "explained",
    "mention",
    "mentioned",
    "paste",
    "pasted",
    "propose",
    "proposed",
    "recommend",
    "recommended",
    "replied",
    "reply",
    "request",
    "requested",
    "said",
    "say",
    "share",
    "shared",
    "suggest",
    "suggested",
    "tell",
    "told",
    "type",
    "typed",
    "write",
    "written",
    "wrote",
];

/// Words that may stand between `I` or `you` and a verb of saying
/// (`I just asked`, `you already said`). Sorted.
const BEFORE_SAYING: [&str; 8] = [
    "already",
    "also",
    "first",
    "just",
    "once",
    "originally",
    "previously",
    "then",
];

/// Whose words an English question asks about: the user's when `I` says
/// something in it (`what did I say about …`, `the image I asked about`),
/// the assistant's when `you` does (`where did you suggest …`), by the
/// first such pair; `None` otherwise. The fill then prefers that role's
/// messages (see [`crate::rank::SPEAKER_WEIGHT`]).
fn speaker(query: &Query) -> Option<Role> {
    let words: Vec<Option<&str>> = query
        .terms
        .iter()
        .map(|term| match term.tokens.as_slice() {
            [word] if !term.quoted && !term.prefix => Some(word.as_str()),
            _ => None,
        })
        .collect();
    words.iter().enumerate().find_map(|(at, word)| {
        let role = match (*word)? {
            "i" => Role::User,
            "you" => Role::Assistant,
            _ => return None,
        };
        let mut next = words[at + 1..].iter().map_while(|word| *word);
        let verb = next.next()?;
        let verb = if BEFORE_SAYING.binary_search(&verb).is_ok() {
            next.next()?
        } else {
            verb
        };
        SAYING_VERBS.binary_search(&verb).is_ok().then_some(role)
    })
}

/// Whether the term at `index` of `query` only frames a question: one
/// framing word, or a run of a spaceless script made of framing words.
fn frames_question(query: &Query, index: usize) -> bool {
    let term = &query.terms[index];
    if term.prefix || term.quoted {
        return false;
    }
    if let Some(word) = without_clitic(term) {
        return FRAMING_WORDS.binary_search(&word).is_ok();
    }
    match term.tokens.as_slice() {
        [word] if !word.chars().all(is_spaceless) => {
            FRAMING_WORDS.binary_search(&word.as_str()).is_ok()
        }
        tokens => {
            let run: Vec<&str> = tokens.iter().map(String::as_str).collect();
            run.iter().all(|t| t.chars().all(is_spaceless)) && content_parts(&run).is_empty()
        }
    }
}

/// The endings an apostrophe joins to an English word (`Microsoft's`,
/// `didn't`, `we'll`), which the tokenizer splits off as words of their own.
const CLITICS: [&str; 7] = ["d", "ll", "m", "re", "s", "t", "ve"];

/// The word of a term typed without quotes that is one word and a clitic
/// (`Microsoft's`): a question means the word.
fn without_clitic(term: &crate::query::Term) -> Option<&str> {
    if term.quoted || term.prefix || !term.text.contains(['\'', '\u{2019}']) {
        return None;
    }
    match term.tokens.as_slice() {
        [word, clitic] if CLITICS.contains(&clitic.as_str()) => Some(word),
        _ => None,
    }
}

/// The term at `index` as typed, with no other forms.
fn typed_unit(query: &Query, index: usize) -> Unit {
    let term = &query.terms[index];
    Unit {
        term: index,
        phrases: query
            .fts5_phrases(index)
            .into_iter()
            .map(|fts5| Phrase {
                fts5,
                other_form: false,
                tokens: term.tokens.clone(),
                prefix: term.prefix,
            })
            .collect(),
        piece: false,
    }
}

/// The units of the term at `index`: as typed (a quoted phrase, a prefix, a
/// term of several words such as a path), with other forms (one word), or
/// its parts and pieces (a term with a spaceless run).
fn term_units(query: &Query, index: usize) -> Vec<Unit> {
    let term = &query.terms[index];
    if let Some(word) = without_clitic(term) {
        return vec![word_unit(index, &[word])];
    }
    let spaceless = |token: &String| token.chars().next().is_some_and(is_spaceless);
    if term.quoted || term.prefix || !term.tokens.iter().any(spaceless) {
        let mut unit = typed_unit(query, index);
        if let ([word], false, false) = (term.tokens.as_slice(), term.quoted, term.prefix) {
            unit.phrases.extend(other_forms(word));
        }
        return vec![unit];
    }
    // Split into runs of spaceless characters and runs of other words.
    let mut units = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let mut words: Vec<&str> = Vec::new();
    let flush_words = |words: &mut Vec<&str>, units: &mut Vec<Unit>| {
        if !words.is_empty() {
            units.push(word_unit(index, words));
            words.clear();
        }
    };
    for token in term.tokens.iter().filter(|t| *t != RUN_BOUNDARY) {
        if spaceless(token) {
            flush_words(&mut words, &mut units);
            run.push(token);
        } else {
            units.extend(pieces(index, &run));
            run.clear();
            words.push(token);
        }
    }
    flush_words(&mut words, &mut units);
    units.extend(pieces(index, &run));
    units
}

/// The phrases of the other forms of `word` ([`forms::other_forms`]).
fn other_forms(word: &str) -> impl Iterator<Item = Phrase> {
    forms::other_forms(word).into_iter().map(|form| Phrase {
        fts5: format!("\"{form}\""),
        other_form: true,
        tokens: vec![form],
        prefix: false,
    })
}

/// The unit of the words `words` (tokens of a term that are not of a
/// spaceless script), as a phrase; one word also gets its other forms.
fn word_unit(term: usize, words: &[&str]) -> Unit {
    let text = words.join(" ");
    let mut phrases = vec![Phrase {
        fts5: format!("\"{text}\""),
        other_form: false,
        tokens: words.iter().map(|w| (*w).to_owned()).collect(),
        prefix: false,
    }];
    if let [word] = words {
        phrases.extend(other_forms(word));
    }
    Unit {
        term,
        phrases,
        piece: true,
    }
}

/// The pieces of a run of spaceless characters `run` (one token each):
/// its framing words taken out, each part left is cut into overlapping
/// pairs of characters (a part of one character is itself).
fn pieces(term: usize, run: &[&str]) -> Vec<Unit> {
    let mut units: Vec<Unit> = Vec::new();
    for part in content_parts(run) {
        let grams: Vec<&[&str]> = if part.len() < 2 {
            vec![&part[..]]
        } else {
            part.windows(2).collect()
        };
        for gram in grams {
            let text = gram.concat();
            if units
                .iter()
                .any(|u| u.phrases[0].fts5 == format!("\"{text}\""))
            {
                continue;
            }
            units.push(Unit {
                term,
                phrases: vec![Phrase {
                    fts5: format!("\"{text}\""),
                    other_form: false,
                    tokens: gram.iter().map(|t| (*t).to_owned()).collect(),
                    prefix: false,
                }],
                piece: true,
            });
        }
    }
    units
}

/// The parts of `run` (characters of spaceless scripts) that say what a
/// question is about: Hiragana goes when the run also has other characters
/// (it is Japanese grammar around Kanji and Katakana words), a Hangul word
/// loses a framing ending and is dropped when only framing is left, and
/// Han framing words are cut out wherever they are (longest first).
fn content_parts<'a>(run: &[&'a str]) -> Vec<Vec<&'a str>> {
    let is = |token: &str, range: std::ops::RangeInclusive<u32>| {
        token
            .chars()
            .next()
            .is_some_and(|c| range.contains(&(c as u32)))
    };
    let hiragana = |t: &str| is(t, 0x3041..=0x309F);
    let hangul =
        |t: &str| is(t, 0xAC00..=0xD7AF) || is(t, 0x1100..=0x11FF) || is(t, 0x3130..=0x318F);
    let mixed = run.iter().any(|t| !hiragana(t));
    let mut parts: Vec<Vec<&str>> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut at = 0;
    while at < run.len() {
        let token = run[at];
        if hangul(token) {
            let end = (at..run.len())
                .find(|&i| !hangul(run[i]))
                .unwrap_or(run.len());
            parts.push(std::mem::take(&mut current));
            parts.push(hangul_content(&run[at..end]));
            at = end;
            continue;
        }
        if mixed && hiragana(token) {
            parts.push(std::mem::take(&mut current));
            at += 1;
            continue;
        }
        let framing = (1..=run.len() - at)
            .rev()
            .find(|&n| HAN_FRAMING.contains(&run[at..at + n].concat().as_str()));
        match framing {
            Some(n) => {
                parts.push(std::mem::take(&mut current));
                at += n;
            }
            None => {
                current.push(token);
                at += 1;
            }
        }
    }
    parts.push(current);
    parts.retain(|part| !part.is_empty());
    parts
}

/// A Hangul word without its framing ending, empty when it only frames.
fn hangul_content<'a>(word: &[&'a str]) -> Vec<&'a str> {
    let text = word.concat();
    if HANGUL_FRAMING.contains(&text.as_str()) {
        return Vec::new();
    }
    let ending = (1..word.len())
        .rev()
        .find(|&n| HANGUL_ENDINGS.contains(&word[word.len() - n..].concat().as_str()));
    let content = &word[..word.len() - ending.unwrap_or(0)];
    if HANGUL_FRAMING.contains(&content.concat().as_str()) {
        return Vec::new();
    }
    content.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(input: &str) -> Vec<Vec<String>> {
        let query = Query::parse(input).unwrap();
        Question::new(&query)
            .units
            .iter()
            .map(|unit| unit.phrases.iter().map(|p| p.fts5.clone()).collect())
            .collect()
    }

    fn typed(input: &str) -> Vec<String> {
        units(input).into_iter().map(|u| u[0].clone()).collect()
    }

    #[test]
    fn framing_words_are_left_out_unless_nothing_else_is_left() {
        assert!(FRAMING_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(SAYING_VERBS.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(BEFORE_SAYING.windows(2).all(|pair| pair[0] < pair[1]));
        let query = Query::parse("Where did we DISCUSS \"the deploy\" of Ünicode the*").unwrap();
        let question = Question::new(&query);
        // where, did, we, discuss, of frame it; a phrase, a prefix and a
        // word that says what it is about do not.
        assert_eq!(question.framing, [0, 1, 2, 3, 5]);
        assert_eq!(
            question.units.iter().map(|u| u.term).collect::<Vec<_>>(),
            [4, 6, 7]
        );
        assert_eq!(typed("where did we"), ["\"where\"", "\"did\"", "\"we\""]);
        assert!(Question::new(&Query::parse("where did we").unwrap())
            .framing
            .is_empty());
        // English function words that only join a question's topic words.
        let query = Query::parse("the site fails because it cannot save, not only once").unwrap();
        assert_eq!(Question::new(&query).framing, [0, 3, 4, 5, 7, 8, 9]);
    }

    #[test]
    fn a_word_typed_without_quotes_also_matches_its_other_forms() {
        let found = units("deploy \"failed\" compil*");
        assert_eq!(found[0][0], "\"deploy\"");
        assert!(found[0].contains(&"\"deployment\"".to_owned()));
        assert_eq!(found[1], ["\"failed\""]);
        // A prefix is itself, no other forms.
        assert_eq!(found[2], ["\"compil\"*"]);
        let query = Query::parse("deploy").unwrap();
        let question = Question::new(&query);
        let (_, phrases, marks) = question.scored();
        assert_eq!(phrases, question.units[0].phrases.len());
        assert_eq!(marks, (1u64 << phrases) - 2);
        assert!(question.adds_to(&query));
        let quoted = Query::parse("\"deploy\"").unwrap();
        assert!(!Question::new(&quoted).adds_to(&quoted));
    }

    proptest::proptest! {
        #[test]
        fn any_question_and_text_are_read_without_panicking(
            query in "[a-zé'’ 東京機器人資料庫的了嗎はどこを데이터를어떻게ไทย\"*]{1,40}",
            text in "[a-zé'’ 東京機器人資料庫的了嗎はどこを데이터를어떻게ไทย]{0,80}",
        ) {
            let Ok(query) = Query::parse(&query) else {
                return Ok(());
            };
            let question = Question::new(&query);
            let (scored, phrases, marks) = question.scored();
            proptest::prop_assert_eq!(scored.matches(" OR ").count() + 1, phrases.max(1));
            proptest::prop_assert!(marks >> MOST_MARKED_PHRASES == 0);
            let order: Vec<usize> = (0..question.units.len()).collect();
            let (focus, terms) = question.focus_and_terms(&text, &order);
            if let Some(span) = focus {
                proptest::prop_assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            }
            proptest::prop_assert!(terms.iter().all(|&t| t < query.terms.len()));
            for span in question.match_spans(&text) {
                proptest::prop_assert!(span.start < span.end && span.end <= text.len());
            }
        }
    }

    #[test]
    fn a_word_with_a_clitic_is_the_word() {
        assert_eq!(
            typed("Microsoft's licence"),
            ["\"microsoft\"", "\"licence\""]
        );
        assert_eq!(typed("Microsoft\u{2019}s"), ["\"microsoft\""]);
        assert!(units("Microsoft's")[0].contains(&"\"microsofts\"".to_owned()));
        let query = Query::parse("what's the fix? didn't we").unwrap();
        assert_eq!(Question::new(&query).framing, [0, 1, 3, 4]);
        // Quoted, it is the phrase typed.
        assert_eq!(typed("\"Microsoft's\""), ["\"Microsoft's\""]);
    }

    #[test]
    fn a_spaceless_run_is_cut_into_pieces_without_its_framing_words() {
        assert_eq!(
            typed("上次那個 Telegram 機器人用了什麼資料庫？"),
            [
                "\"Telegram\"",
                "\"機器\"",
                "\"器人\"",
                "\"資料\"",
                "\"料庫\""
            ]
        );
        assert_eq!(typed("数据库是什么"), ["\"数据\"", "\"据库\""]);
        assert_eq!(
            typed("データベースはどこ"),
            ["\"デー\"", "\"ータ\"", "\"タベ\"", "\"ベー\"", "\"ース\""]
        );
        assert_eq!(
            typed("데이터베이스를 어떻게"),
            ["\"데이\"", "\"이터\"", "\"터베\"", "\"베이\"", "\"이스\""]
        );
        // Quoted, a run is a phrase as typed; all framing, it is cut whole.
        assert_eq!(typed("\"資料庫\""), ["\"資料庫\""]);
        assert_eq!(typed("什麼"), ["\"什麼\""]);
        // Words and a run in one term are parts of their own.
        assert_eq!(typed("機器人abc"), ["\"機器\"", "\"器人\"", "\"abc\""]);
    }

    #[test]
    fn near_pairs_join_every_two_units_typed_as_one_string() {
        let query = Query::parse("staging \"the deploy\" web* rollback").unwrap();
        let question = Question::new(&query);
        let near = question.near_pairs(Some("t61")).unwrap();
        assert!(near.ends_with(r#" AND {scope} : "t61""#), "{near}");
        let groups = near.matches("NEAR(").count();
        assert_eq!(groups, 3, "{near}");
        assert!(!near.contains("NEAR(\"web\""));
        assert!(Question::new(&Query::parse("staging").unwrap())
            .near_pairs(None)
            .is_none());
        let words: Vec<String> = (0..40).map(|i| format!("w{i}")).collect();
        let long = Query::parse(&words.join(" ")).unwrap();
        let near = Question::new(&long).near_pairs(None).unwrap();
        let pairs = NEAR_MOST_UNITS * (NEAR_MOST_UNITS - 1) / 2;
        assert_eq!(near.matches("NEAR(").count(), pairs);
    }

    #[test]
    fn every_word_typed_is_scored_however_many_other_forms_come_before() {
        let words: Vec<String> = [
            "deploy",
            "compile",
            "configure",
            "install",
            "connect",
            "index",
        ]
        .iter()
        .cycle()
        .take(12)
        .enumerate()
        .map(|(i, w)| format!("{w}{}", "s".repeat(i / 6)))
        .chain((0..80).map(|i| format!("word{i}")))
        .collect();
        let query = Query::parse(&words.join(" ")).unwrap();
        let question = Question::new(&query);
        let (scored, phrases, marks) = question.scored();
        assert_eq!(question.units.len(), 92);
        for word in &words {
            assert!(scored.contains(&format!("\"{word}\"")), "{word}");
        }
        assert!(phrases > MOST_MARKED_PHRASES);
        assert!(marks.leading_zeros() >= 1);
        assert_eq!(phrases - marks.count_ones() as usize, 92);
    }

    #[test]
    fn a_question_about_someones_words_names_their_role() {
        let speaker = |input: &str| Question::new(&Query::parse(input).unwrap()).speaker;
        assert_eq!(speaker("what did I say about the cache?"), Some(Role::User));
        assert_eq!(speaker("the image I asked about"), Some(Role::User));
        assert_eq!(speaker("where did I just paste the log"), Some(Role::User));
        assert_eq!(
            speaker("what did you suggest for retries"),
            Some(Role::Assistant)
        );
        assert_eq!(speaker("you already said that"), Some(Role::Assistant));
        // The first pair decides.
        assert_eq!(speaker("what did I tell you to say"), Some(Role::User));
        // No verb of saying right after, or typed in quotes: no one.
        assert_eq!(speaker("did you move the digest to 10 PM?"), None);
        assert_eq!(speaker("how did I fix the ports error"), None);
        assert_eq!(speaker("\"I said\" in the logs"), None);
        assert_eq!(speaker("say what I"), None);
    }
}
