//! Redaction: finding secrets in text before any of it is indexed or leaves
//! the engine.
//!
//! A [`Redactor`] holds the default patterns ([`patterns::DEFAULT_SHAPES`]:
//! API keys and tokens by their published shapes, private key blocks,
//! credentials in assignments, URLs, JSON, XML, command lines and prose)
//! plus patterns a host adds. Write-time redaction uses the defaults and the
//! host patterns stored in the database ([`Settings`]), so the index never
//! holds a secret's characters; excerpts and history are redacted again on
//! the way out, with any per-query patterns too.
//!
//! Hard-wrapped secrets: the patterns run on the text as written and on a
//! view with every line break between two non-space characters removed (and
//! the next line's indentation), so a secret broken anywhere is seen whole.
//! Only matches that cross such a break are taken from the joined view, and
//! a plain word that starts the line after a secret is not taken with it.
//!
//! Cost: each pattern is one linear scan of each view (the `regex` crate
//! guarantees linear time), so redaction is linear in the text; texts of a
//! megabyte or more have the two views scanned on two threads.

pub mod patterns;
mod prefilter;

use crate::tokenizer::{is_spaceless, REDACTED};
use patterns::{Check, Shape, Start, DEFAULT_SHAPES, REDACTION_VERSION};
use prefilter::Prefilter;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::cmp::Ordering;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};

/// Texts longer than this are redacted on the way out only in a window
/// around the excerpt position, wide enough for any pattern (PEM keys are a
/// few KB). The index is always built from the whole text, redacted.
pub const REDACTION_WINDOW: usize = 64 * 1024;

/// Texts at least this long are scanned on two threads.
const PARALLEL_BYTES: usize = 1 << 20;

/// A compiled pattern.
#[derive(Debug, Clone)]
struct Compiled {
    regex: Regex,
    start: Start,
    check: Check,
    /// The groups that hold the secret; empty: the whole match.
    groups: Vec<usize>,
}

impl Compiled {
    fn new(pattern: &str, start: Start, check: Check) -> Result<Compiled, regex::Error> {
        let regex = Regex::new(pattern)?;
        let groups = regex
            .capture_names()
            .enumerate()
            .filter(|(_, name)| name.is_some_and(|n| n.starts_with("secret")))
            .map(|(i, _)| i)
            .collect();
        Ok(Compiled {
            regex,
            start,
            check,
            groups,
        })
    }

    /// `None` when a match may start at `at` (see [`Start`]), else where
    /// to search again.
    fn next_start(&self, view: &View<'_>, at: usize) -> Option<usize> {
        match self.start {
            Start::Anywhere => None,
            Start::Word if view.starts_word(at) => None,
            Start::Word => Some(view.next_word_start(at)),
            Start::After(accepts) if at > 0 && accepts(view.text.as_bytes()[at - 1]) => None,
            Start::After(_) => Some(next_char(&view.text, at)),
            Start::NamePart if view.starts_name_part(at) => None,
            Start::NamePart => Some(next_char(&view.text, at)),
        }
    }

    /// Adds the secrets this pattern finds in `view` to `out` (see
    /// [`View::secret_of`]).
    fn scan(&self, view: &View<'_>, out: &mut Vec<Range<usize>>) {
        let text: &str = &view.text;
        let mut at = 0;
        while at <= text.len() {
            // Finding allocates nothing; groups are resolved only for a match
            // that has them (searching again from its start finds it again).
            let Some(whole) = self.regex.find_at(text, at) else {
                break;
            };
            if let Some(next) = self.next_start(view, whole.start()) {
                at = next;
                continue;
            }
            let mut push = |m: regex::Match<'_>| {
                if m.is_empty() {
                    return;
                }
                if self.check == Check::Arguments {
                    for string in random_strings(m.as_str()) {
                        let secret = m.start() + string.start..m.start() + string.end;
                        out.extend(view.secret_of(whole.range(), secret));
                    }
                } else if self.check.accepts(m.as_str()) {
                    out.extend(view.secret_of(whole.range(), m.range()));
                }
            };
            if self.groups.is_empty() {
                push(whole);
            } else if let Some(captures) = self.regex.captures_at(text, whole.start()) {
                self.groups
                    .iter()
                    .filter_map(|&g| captures.get(g))
                    .for_each(&mut push);
            }
            at = if whole.is_empty() {
                next_char(text, whole.end())
            } else {
                whole.end()
            };
        }
    }
}

fn next_char(text: &str, at: usize) -> usize {
    text[at..]
        .chars()
        .next()
        .map_or(text.len() + 1, |c| at + c.len_utf8())
}

impl Check {
    fn accepts(self, secret: &str) -> bool {
        match self {
            Check::None => true,
            Check::Random => looks_random(secret) && !names_a_place(secret) && !is_code(secret),
            Check::NotProse => is_value(secret),
            Check::Stated => {
                let value = secret.trim_end_matches(|c: char| c.is_ascii_punctuation());
                let inner_capital = value.chars().skip(1).any(|c| c.is_ascii_uppercase());
                let symbol_or_digit = value.chars().any(|c| !c.is_ascii_alphabetic());
                let characters = value.chars().count();
                let alphanumeric = value.chars().filter(char::is_ascii_alphanumeric).count();
                characters >= 6
                    && alphanumeric * 2 >= characters
                    && (inner_capital || symbol_or_digit)
                    && is_value(secret)
            }
            // Decided string by string (`random_strings`).
            Check::Arguments => false,
        }
    }
}

/// Whether `text`, found where a secret's value goes, can be one: not a
/// common word of prose (`the password is required`), a place
/// ([`names_a_place`]) or code ([`is_code`]).
fn is_value(text: &str) -> bool {
    let text = text.trim_start_matches(['`', '\'', '"']);
    let word = text
        .trim_end_matches(|c: char| c.is_ascii_punctuation())
        .to_ascii_lowercase();
    !word.is_empty()
        && !PROSE_WORDS.contains(&word.as_str())
        && !names_a_place(text)
        && !is_code(text)
}

/// Whether `text` is code that computes or names a value rather than the
/// value: a call or index (`os.environ.get(`, `Optional[str]`), a
/// template (`${{`, `{e}`), an escape, or a dotted name
/// (`config.bot_token`, `secrets.GITHUB_TOKEN`).
fn is_code(text: &str) -> bool {
    static CODE: OnceLock<Regex> = OnceLock::new();
    let code = CODE.get_or_init(|| {
        Regex::new(concat!(
            r"^(?:\$?\{|\\|[A-Za-z_]*[a-z]{3}[A-Za-z0-9_]*[(\[]",
            r"|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+[(\[]",
            r"|(?:[a-z_][a-z0-9_]*|[A-Z_][A-Z0-9_]*)(?:\.(?:[a-z_][a-z0-9_]*|[A-Z_][A-Z0-9_]*))+\)?$)"
        ))
        .expect("the pattern of code compiles")
    });
    code.is_match(text)
}

/// Whether `text` is a URL, a path, a host name or an e-mail address
/// (`https://…`, `/etc/…`, `~/.ssh/…`, `cache.internal`, `ops@acme.io`):
/// what calls that take credentials take besides them.
fn names_a_place(text: &str) -> bool {
    static PLACE: OnceLock<Regex> = OnceLock::new();
    let place = PLACE.get_or_init(|| {
        Regex::new(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*://|[~.]?/|(?:[A-Za-z0-9._%+\-]+@)?(?:[A-Za-z0-9\-]+\.)+[A-Za-z]{2,}(?::[0-9]+)?$)")
            .expect("the pattern of places compiles")
    });
    place.is_match(text)
}

/// Whether `text` is words and numbers joined by `_`, `-` or `.`, each
/// part in one case (`orders_2024_archive`, `eu-west-1`): a name, where
/// random parts mix cases and digits.
fn made_of_words(text: &str) -> bool {
    let mut parts = text.split(['_', '-', '.']).filter(|part| !part.is_empty());
    text.contains(['_', '-', '.'])
        && parts.all(|part| {
            let bytes = part.as_bytes();
            bytes.iter().all(u8::is_ascii_lowercase)
                || bytes.iter().all(u8::is_ascii_uppercase)
                || bytes.iter().all(u8::is_ascii_digit)
        })
}

/// The ranges, in `arguments`, of the quoted strings that hold a secret:
/// the text between the quotes looks random or is 16 or more hex digits
/// (Pusher, Twilio and Algolia secrets), and is neither a place
/// ([`names_a_place`]) nor a name ([`made_of_words`]). Quotes may be JSON-escaped (`\"…\"`).
fn random_strings(arguments: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    static STRING: OnceLock<Regex> = OnceLock::new();
    let string = STRING.get_or_init(|| {
        Regex::new(r#"\\?"(?P<dq>(?:[^"\\\n]|\\[^"\n])*)\\?"|'(?P<sq>[^'\n]*)'|`(?P<bq>[^`\n]*)`"#)
            .expect("the pattern of quoted strings compiles")
    });
    string.captures_iter(arguments).filter_map(|captures| {
        let inside = captures.iter().skip(1).flatten().next()?;
        let text = inside.as_str();
        let hex = text.len() >= 16
            && text.bytes().all(|b| b.is_ascii_hexdigit())
            && text.bytes().any(|b| b.is_ascii_digit())
            && text.bytes().any(|b| b.is_ascii_alphabetic());
        ((hex || looks_random(text)) && !names_a_place(text) && !made_of_words(text))
            .then(|| inside.range())
    })
}

/// Words that follow "the password is" in sentences about passwords rather
/// than in sentences that give one.
const PROSE_WORDS: &[&str] = &[
    "a",
    "also",
    "an",
    "asked",
    "at",
    "available",
    "bad",
    "being",
    "blank",
    "case",
    "changed",
    "checked",
    "configured",
    "correct",
    "defined",
    "different",
    "empty",
    "encrypted",
    "expired",
    "exposed",
    "false",
    "fine",
    "for",
    "generated",
    "given",
    "gone",
    "good",
    "hashed",
    "here",
    "hidden",
    "in",
    "incorrect",
    "invalid",
    "it",
    "just",
    "known",
    "leaked",
    "long",
    "missing",
    "my",
    "needed",
    "no",
    "none",
    "not",
    "now",
    "null",
    "ok",
    "okay",
    "on",
    "only",
    "optional",
    "our",
    "provided",
    "removed",
    "required",
    "reset",
    "revoked",
    "right",
    "rotated",
    "same",
    "saved",
    "sent",
    "set",
    "short",
    "shown",
    "still",
    "stored",
    "strong",
    "that",
    "the",
    "their",
    "there",
    "this",
    "too",
    "true",
    "undefined",
    "unknown",
    "unset",
    "used",
    "valid",
    "verified",
    "very",
    "visible",
    "weak",
    "what",
    "wrong",
    "yes",
    "your",
];

/// Whether a value found only by a nearby keyword looks like a generated
/// secret rather than a word or an identifier: letters and digits mixed, or
/// long with both cases and a digit or symbol.
fn looks_random(secret: &str) -> bool {
    let count = |f: fn(&char) -> bool| secret.chars().filter(f).count();
    let (lower, upper, digits) = (
        count(char::is_ascii_lowercase),
        count(char::is_ascii_uppercase),
        count(char::is_ascii_digit),
    );
    let letters = lower + upper;
    let symbols = secret.chars().count() - letters - digits;
    secret.len() >= 16
        && ((digits >= 2 && letters >= 4) || (lower >= 2 && upper >= 2 && digits + symbols >= 1))
}

/// The default patterns, compiled once, and their prefilter.
fn defaults() -> &'static (Vec<Compiled>, Prefilter) {
    static COMPILED: OnceLock<(Vec<Compiled>, Prefilter)> = OnceLock::new();
    COMPILED.get_or_init(|| {
        let compiled = DEFAULT_SHAPES
            .iter()
            .map(|shape: &Shape| {
                Compiled::new(shape.pattern, shape.start, shape.check).unwrap_or_else(|e| {
                    panic!("default pattern of {} is invalid: {e}", shape.family)
                })
            })
            .collect();
        let prefilter = Prefilter::new(DEFAULT_SHAPES.iter().map(|shape| shape.pattern));
        (compiled, prefilter)
    })
}

/// A set of secret patterns: the defaults plus a host's.
#[derive(Debug, Clone)]
pub struct Redactor {
    extra: Vec<Compiled>,
}

impl Redactor {
    /// The default patterns plus `extra`, regular expressions in the syntax
    /// of the `regex` crate (a group named `secret` redacts only itself).
    ///
    /// # Errors
    ///
    /// The first extra pattern that does not compile, with the reason.
    pub fn new<S: AsRef<str>>(extra: &[S]) -> Result<Redactor, String> {
        let extra = extra
            .iter()
            .map(|p| {
                Compiled::new(p.as_ref(), Start::Anywhere, Check::None).map_err(|e| {
                    // The regex crate draws the pattern with a caret over
                    // several lines; its last line says what is wrong.
                    let e = e.to_string();
                    let reason = e.lines().last().unwrap_or_default();
                    let reason = reason.trim().trim_start_matches("error: ");
                    format!("redaction pattern {:?} is invalid: {reason}", p.as_ref())
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Redactor { extra })
    }

    /// This redactor with `more` patterns added.
    ///
    /// # Errors
    ///
    /// As for [`Redactor::new`].
    pub fn with<S: AsRef<str>>(&self, more: &[S]) -> Result<Redactor, String> {
        let mut redactor = Redactor::new(more)?;
        redactor.extra.splice(0..0, self.extra.iter().cloned());
        Ok(redactor)
    }

    /// The byte ranges of `text` that are secret, sorted and merged.
    pub fn secret_spans(&self, text: &str) -> Vec<Range<usize>> {
        self.secret_spans_on(text, text.len() >= PARALLEL_BYTES)
    }

    /// [`Redactor::secret_spans`], on two threads if `parallel`: the text
    /// and its line-joined view are each scanned by their patterns, and
    /// each thread takes the next pattern of a view that no thread has
    /// taken. The first thread starts with the text, the second with the
    /// joined view (it makes it), and each then helps with the other's
    /// view; either finds a view's patterns if it gets there first, so one
    /// thread does it all when no other can be started.
    fn secret_spans_on(&self, text: &str, parallel: bool) -> Vec<Range<usize>> {
        let plain = OnceLock::new();
        let joined = OnceLock::new();
        let plain_work = || Work::new(View::plain(text), self);
        // None when no lines were joined: the joined view is the text.
        let joined_work = || {
            let view = View::joined(text);
            (!view.joins.is_empty()).then(|| Work::new(view, self))
        };
        let mut spans = Vec::new();
        let mut found = Vec::new();
        std::thread::scope(|scope| {
            let second = parallel.then(|| {
                std::thread::Builder::new().spawn_scoped(scope, || {
                    let (mut spans, mut found) = (Vec::new(), Vec::new());
                    if let Some(work) = joined.get_or_init(joined_work) {
                        work.help(&mut found);
                    }
                    plain.get_or_init(plain_work).help(&mut spans);
                    (spans, found)
                })
            });
            plain.get_or_init(plain_work).help(&mut spans);
            if let Some(work) = joined.get_or_init(joined_work) {
                work.help(&mut found);
            }
            if let Some(Ok(second)) = second {
                let (more, more_found) = second
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                spans.extend(more);
                found.extend(more_found);
            }
        });
        let Some(Some(joined)) = joined.into_inner() else {
            return merge(spans);
        };
        let joined = joined.view;
        for span in &mut spans {
            *span = joined.continued(span.clone());
        }
        spans.extend(found.into_iter().map(|span| joined.original(span)));
        merge(spans)
    }

    /// The patterns that scan `view`: the default ones its prefilter
    /// leaves, then every extra one.
    fn patterns(&self, view: &View<'_>) -> Vec<&Compiled> {
        let (defaults, prefilter) = defaults();
        let candidates = prefilter.candidates(&view.text);
        defaults
            .iter()
            .zip(candidates)
            .filter(|(_, may)| *may)
            .map(|(pattern, _)| pattern)
            .chain(&self.extra)
            .collect()
    }

    /// `text` with every secret replaced by [`REDACTED`]; `text` itself
    /// when it holds none.
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let spans = self.secret_spans(text);
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(replace_spans(text, &spans))
    }
}

/// Redaction settings stored in the database (`session_search_meta` key
/// `redaction`): the version of the default set the index was built with
/// and the host's patterns. Serialised as compact JSON, the argument the
/// triggers pass to `sessions_text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// [`REDACTION_VERSION`] of the extension that built the index.
    pub version: u32,
    /// The host's patterns.
    pub patterns: Vec<String>,
}

impl Settings {
    /// The current default set with `patterns`.
    pub fn current(patterns: Vec<String>) -> Settings {
        Settings {
            version: REDACTION_VERSION,
            patterns,
        }
    }

    /// Settings read back from the JSON stored in the database.
    ///
    /// # Errors
    ///
    /// JSON that is not settings, with the reason.
    pub fn from_json(json: &str) -> Result<Settings, String> {
        serde_json::from_str(json).map_err(|e| {
            format!("the stored redaction settings are invalid ({e}); set them again with sessions_set_redaction()")
        })
    }

    /// The JSON stored in the database.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("settings serialise")
    }

    /// The redactor of stored settings `json`, compiled once per distinct
    /// settings, for redacting what is returned: settings of another default
    /// set still give the defaults of this build.
    ///
    /// # Errors
    ///
    /// Settings that do not parse, or a host pattern that does not compile.
    pub fn redactor(json: &str) -> Result<Arc<Redactor>, String> {
        Ok(Settings::compiled(json)?.1)
    }

    /// The redactor of stored settings `json` for indexing, which must use
    /// the default set the rest of the index was built with. `None` for an
    /// earlier default set: that index was built by an earlier version of
    /// session-search, and its rebuild (which `sessions_init()` or a search
    /// starts) empties it before anything reads it.
    ///
    /// # Errors
    ///
    /// As for [`Settings::redactor`], and settings of a later default set:
    /// the index is a newer version's, which this one must not write.
    pub fn indexing_redactor(json: &str) -> Result<Option<Arc<Redactor>>, String> {
        let (version, redactor) = Settings::compiled(json)?;
        match version.cmp(&REDACTION_VERSION) {
            Ordering::Less => Ok(None),
            Ordering::Equal => Ok(Some(redactor)),
            Ordering::Greater => Err(format!(
                "the index was built with default redaction set {version} by a newer session-search, and this one has set {REDACTION_VERSION}; load the newer extension to write here"
            )),
        }
    }

    fn compiled(json: &str) -> Result<(u32, Arc<Redactor>), String> {
        type Entry = (String, u32, Arc<Redactor>);
        static CACHE: Mutex<Option<Entry>> = Mutex::new(None);
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((key, version, redactor)) = cache.as_ref() {
            if key == json {
                return Ok((*version, Arc::clone(redactor)));
            }
        }
        let settings = Settings::from_json(json)?;
        let redactor = Arc::new(Redactor::new(&settings.patterns)?);
        *cache = Some((json.to_owned(), settings.version, Arc::clone(&redactor)));
        Ok((settings.version, redactor))
    }
}

/// Where a joined view removed a line break.
#[derive(Debug, Clone, Copy)]
struct Join {
    /// Offset in the joined text.
    at: usize,
    /// Offset of the removed break in the original.
    original: usize,
    /// Bytes removed here and at every join before.
    removed: usize,
}

/// A text the patterns run on: the original, or the original with its line
/// breaks between non-space characters removed.
struct View<'a> {
    text: std::borrow::Cow<'a, str>,
    /// Where lines were joined, in increasing order.
    joins: Vec<Join>,
}

impl<'a> View<'a> {
    fn plain(text: &'a str) -> View<'a> {
        View {
            text: text.into(),
            joins: Vec::new(),
        }
    }

    /// The text with every line break (`\n`, `\r\n` or `\r`, with the
    /// leading tabs and spaces of the next line) that has a non-space
    /// character on both sides removed.
    fn joined(original: &'a str) -> View<'a> {
        let bytes = original.as_bytes();
        let mut text = String::new();
        let mut joins = Vec::new();
        let mut removed = 0;
        let mut copied = 0;
        let mut at = 0;
        while let Some(offset) = original[at..].find(['\n', '\r']) {
            let start = at + offset;
            let mut end = start + 1;
            if bytes[start] == b'\r' && bytes.get(end) == Some(&b'\n') {
                end += 1;
            }
            while matches!(bytes.get(end), Some(b' ' | b'\t')) {
                end += 1;
            }
            let before = original[..start].chars().next_back();
            let after = original[end..].chars().next();
            if before.is_some_and(|c| !c.is_whitespace())
                && after.is_some_and(|c| !c.is_whitespace())
            {
                text.push_str(&original[copied..start]);
                removed += end - start;
                joins.push(Join {
                    at: text.len(),
                    original: start,
                    removed,
                });
                copied = end;
            }
            at = end;
        }
        if joins.is_empty() {
            return View::plain(original);
        }
        text.push_str(&original[copied..]);
        View {
            text: text.into(),
            joins,
        }
    }

    fn is_join(&self, at: usize) -> bool {
        self.joins.binary_search_by_key(&at, |j| j.at).is_ok()
    }

    /// Whether a word can start at `at`: the text's start, after a byte that
    /// is not an ASCII letter, digit or `_`, after a JSON escape (`\n`,
    /// `\t`), or where lines were joined.
    fn starts_word(&self, at: usize) -> bool {
        let bytes = self.text.as_bytes();
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        at == 0
            || !word(bytes[at - 1])
            || (at >= 2 && bytes[at - 2] == b'\\' && matches!(bytes[at - 1], b'n' | b'r' | b't'))
            || self.is_join(at)
    }

    /// Whether a part of a name can start at `at` (see [`Start::NamePart`]).
    fn starts_name_part(&self, at: usize) -> bool {
        let bytes = self.text.as_bytes();
        let byte = |i: usize| bytes.get(i).copied().unwrap_or(b' ');
        let (before, here, after) = (byte(at.wrapping_sub(1)), byte(at), byte(at + 1));
        self.starts_word(at)
            || before == b'_'
            || (here.is_ascii_uppercase()
                && (before.is_ascii_lowercase()
                    || (before.is_ascii_uppercase() && after.is_ascii_lowercase())))
    }

    /// The first position after `at` where a word can start.
    fn next_word_start(&self, at: usize) -> usize {
        let mut next = next_char(&self.text, at);
        while next < self.text.len() && !self.starts_word(next) {
            next = next_char(&self.text, next);
        }
        next
    }

    /// The joins strictly inside `span`.
    fn crossed(&self, span: &Range<usize>) -> &[Join] {
        let first = self.joins.partition_point(|j| j.at <= span.start);
        &self.joins[first..self.joins.partition_point(|j| j.at < span.end)]
    }

    /// The secret of a match, or `None` when the match adds nothing to the
    /// plain view: in a joined view, a match must cross a join.
    fn secret_of(&self, whole: Range<usize>, secret: Range<usize>) -> Option<Range<usize>> {
        if self.joins.is_empty() {
            return Some(secret);
        }
        if self.crossed(&whole).is_empty() {
            return None;
        }
        Some(self.without_next_word(secret))
    }

    /// `secret` cut before the last join it crosses when the run of letters
    /// and digits that follows that join looks like a word (`…key⏎Next
    /// line`: letters, a capital only first, a vowel) and the part before
    /// does not (a wrapped passphrase is
    /// all letters): the last chunk of a hard-wrapped token is rarely such a
    /// word, a neighbouring word almost always.
    fn without_next_word(&self, secret: Range<usize>) -> Range<usize> {
        let Some(last) = self.crossed(&secret).last().map(|j| j.at) else {
            return secret;
        };
        let head = &self.text[secret.start..last];
        // The whole run of letters and digits after the join, which may go
        // on past the secret (`…aede⏎biba`: a hex secret takes the `b`).
        let rest = &self.text[last..];
        let run = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        let tail = &rest[..run.max(secret.end - last)];
        let mut chars = tail.chars();
        let wordlike = tail.len() >= 2
            && chars.next().is_some_and(|c| c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_lowercase())
            && tail.contains(['a', 'e', 'i', 'o', 'u', 'y']);
        if wordlike && !head.chars().all(|c| c.is_ascii_alphabetic()) {
            secret.start..last
        } else {
            secret
        }
    }

    /// A secret found in the original text that ends where this view joined
    /// a line (`password k6ex⏎EB%D⏎…`) continues over the joined lines up
    /// to white space, a quote or a separator: its original range so
    /// extended.
    fn continued(&self, secret: Range<usize>) -> Range<usize> {
        let Ok(k) = self.joins.binary_search_by_key(&secret.end, |j| j.original) else {
            return secret;
        };
        let at = self.joins[k].at;
        let rest = &self.text[at..];
        let end = at + rest.find(ends_secret).unwrap_or(rest.len());
        let joins_before = self.joins.partition_point(|j| j.original < secret.start);
        let start = secret.start
            - joins_before
                .checked_sub(1)
                .map_or(0, |p| self.joins[p].removed);
        self.original(self.without_next_word(start..end))
    }

    /// The original byte range of `span`.
    fn original(&self, span: Range<usize>) -> Range<usize> {
        let removed_up_to = |at: usize, inclusive: bool| {
            let n = self
                .joins
                .partition_point(|j| if inclusive { j.at <= at } else { j.at < at });
            n.checked_sub(1).map_or(0, |i| self.joins[i].removed)
        };
        span.start + removed_up_to(span.start, true)..span.end + removed_up_to(span.end, false)
    }
}

/// A view and the patterns that scan it, taken one at a time by whichever
/// thread is free.
struct Work<'v, 'r> {
    view: View<'v>,
    patterns: Vec<&'r Compiled>,
    /// How many patterns have been taken.
    taken: AtomicUsize,
}

impl<'v, 'r> Work<'v, 'r> {
    fn new(view: View<'v>, redactor: &'r Redactor) -> Work<'v, 'r> {
        let patterns = redactor.patterns(&view);
        Work {
            view,
            patterns,
            taken: AtomicUsize::new(0),
        }
    }

    /// Scans the view with each pattern not yet taken, adding the secrets
    /// found, in the view's offsets, to `out`.
    fn help(&self, out: &mut Vec<Range<usize>>) {
        while let Some(pattern) = self.patterns.get(self.taken.fetch_add(1, Relaxed)) {
            pattern.scan(&self.view, out);
        }
    }
}

/// Whether `c` ends a secret continued over joined lines: white space, a
/// quote or separator, or text of a script written without spaces.
fn ends_secret(c: char) -> bool {
    c.is_whitespace()
        || "\"'`,;<>".contains(c)
        || is_spaceless(c)
        || matches!(c, '\u{3000}'..='\u{303F}' | '\u{FF01}'..='\u{FF0F}' | '\u{FF1A}'..='\u{FF20}')
}

/// Sorts ranges and merges overlapping or touching ones.
fn merge(mut spans: Vec<Range<usize>>) -> Vec<Range<usize>> {
    spans.sort_by_key(|s| s.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start <= last.end => last.end = last.end.max(span.end),
            _ => merged.push(span),
        }
    }
    merged
}

/// `text` with each of the sorted, disjoint `spans` replaced by [`REDACTED`].
pub fn replace_spans(text: &str, spans: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        out.push_str(&text[at..span.start]);
        out.push_str(REDACTED);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests;
