//! The `sessions` tokenizer, as pure Rust: bytes in, folded tokens with byte
//! offsets out.
//!
//! # Contract
//!
//! Every [`Token`] satisfies `text[token.start..token.end]` = the original
//! characters it stands for; folding never moves offsets. Tokens come in
//! increasing order of `start`, one FTS5 position each. The one exception to
//! the span rule is the zero-width [`RUN_BOUNDARY`] token (see below).
//!
//! # Words
//!
//! Input is split into valid UTF-8 pieces (invalid bytes separate tokens and
//! are otherwise skipped), then into Unicode UAX #29 words. A token is a run of
//! letters and digits inside a word, together with the marks that follow them:
//! `src/main.py` gives `src`, `main`, `py`, `don't` gives `don`, `t`, so a
//! search for `main` finds `main.py`, as with FTS5's `unicode61`. Each token is
//! folded by the `fold` module and cut to [`MAX_TOKEN_BYTES`].
//!
//! The redaction marker [`REDACTED`] is never a token: it stands where a
//! secret was, so no query can match it; the text on either side is
//! tokenized as if the marker were a space.
//!
//! ASCII fast path: ASCII punctuation and white space never belong to a token,
//! so the input is first cut at them; a piece that is pure ASCII is one token
//! (lower-cased) without running the UAX #29 segmenter, which would find the
//! same single word in it.
//!
//! # Scripts written without spaces (`cjk 1`)
//!
//! Runs of Han, Hiragana, Katakana, Hangul, Thai, Lao, Khmer and Myanmar have
//! no word separators, so any substring may be what a user searches for. Each
//! grapheme cluster of such a run is its own token (a character unigram), and
//! a query run becomes the phrase of its clusters, which FTS5 matches on
//! consecutive positions: a substring of any length is found through the
//! index, and `highlight()` marks exactly its characters.
//!
//! So that a phrase cannot match across two runs (`京大` in `東京。大阪`), a
//! zero-width [`RUN_BOUNDARY`] token is emitted after a run when another token
//! follows it, in documents and queries alike.
//!
//! Why unigrams rather than overlapping bigrams or trigrams: measured by
//! `make bench` on 20 MB of mixed CJK text, unigram + colocated bigram
//! postings made an index of 0.70× SQLite's `trigram`, unigrams alone a
//! fraction of that, while phrase queries over unigrams stayed within a few
//! milliseconds (docs/benchmarks.md has the figures). Unlike `trigram`, 1- and
//! 2-character queries work.

mod fold;
mod script;

pub use fold::Folder;
pub use script::{continues_run, is_spaceless};

use std::fmt;
use unicode_segmentation::UnicodeSegmentation;

/// Longest token text, in bytes, that is indexed; longer tokens (base64
/// blobs, minified code) are cut at a character boundary, the same way in
/// documents and queries, so they still match themselves.
pub const MAX_TOKEN_BYTES: usize = 256;

/// Version of the token stream. Bump it whenever a change to this module
/// changes any token, so databases indexed by an older version are rebuilt.
pub const TOKENIZER_VERSION: u32 = 14;

/// What redaction ([`crate::redact`]) writes in place of every secret, in
/// the index and in everything returned. It is never a token: the text on
/// either side is tokenized as if it were a space, so no query matches it.
pub const REDACTED: &str = "[REDACTED]";

/// The token that follows a run of a spaceless script when more tokens
/// follow it; it cannot come from text, since control characters are never
/// part of a token.
pub const RUN_BOUNDARY: &str = "\u{1}";

/// The tokenizer's arguments, as written after its name in
/// `tokenize = 'sessions cjk 1'`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// `remove_diacritics 0|1`, default 1: fold accents away.
    pub remove_diacritics: bool,
    /// `cjk 0|1`, default 0: index scripts written without spaces as n-grams.
    pub cjk: bool,
    /// `markers 0|1`, default 0: documents also get the tokens that
    /// `sessions_search` reads in its own index (scope words, pair and
    /// prefix tokens, tier markers: see [`crate::index_tokens`]), and queries
    /// may ask for them. A table that only `MATCH` queries has no use for
    /// them.
    pub markers: bool,
    /// `pairs 0|1`, default 1: with `markers 1`, documents get pair tokens
    /// ([`crate::index_tokens::pairs`]).
    pub pairs: bool,
    /// `prefixes 0|1`, default 1: with `markers 1`, documents get prefix
    /// tokens ([`crate::index_tokens::prefixes`]).
    pub prefixes: bool,
    /// `tiers 0|1`, default 1: with `markers 1`, documents get tier markers
    /// ([`crate::index_tokens::tiers`]).
    ///
    /// These three only say what a table's documents hold, to measure what
    /// each family costs; `sessions_search` asks its own index for every
    /// family, so its table keeps all three.
    pub tiers: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            remove_diacritics: true,
            cjk: false,
            markers: false,
            pairs: true,
            prefixes: true,
            tiers: true,
        }
    }
}

/// An argument list that the tokenizer does not accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgumentError {
    /// An argument name the tokenizer does not know.
    Unknown(String),
    /// A known argument whose value is not `0` or `1`.
    InvalidValue {
        /// The argument.
        name: String,
        /// What was given for it.
        value: String,
    },
    /// A known argument given without a value.
    MissingValue(String),
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentError::Unknown(name) => write!(
                f,
                "sessions tokenizer: unknown argument '{name}' (expected remove_diacritics, cjk, markers, pairs, prefixes or tiers)"
            ),
            ArgumentError::InvalidValue { name, value } => write!(
                f,
                "sessions tokenizer: argument '{name}' must be 0 or 1, not '{value}'"
            ),
            ArgumentError::MissingValue(name) => {
                write!(
                    f,
                    "sessions tokenizer: argument '{name}' needs a value, 0 or 1"
                )
            }
        }
    }
}

impl std::error::Error for ArgumentError {}

impl Options {
    /// Parses FTS5-style `name value` pairs, e.g. `["cjk", "1"]`.
    ///
    /// # Errors
    ///
    /// An [`ArgumentError`] naming the first unknown argument, missing value
    /// or value other than `0`/`1`.
    pub fn parse<S: AsRef<str>>(args: &[S]) -> Result<Options, ArgumentError> {
        let mut options = Options::default();
        let mut args = args.iter().map(AsRef::as_ref);
        while let Some(name) = args.next() {
            let slot = match name {
                "remove_diacritics" => &mut options.remove_diacritics,
                "cjk" => &mut options.cjk,
                "markers" => &mut options.markers,
                "pairs" => &mut options.pairs,
                "prefixes" => &mut options.prefixes,
                "tiers" => &mut options.tiers,
                _ => return Err(ArgumentError::Unknown(name.to_owned())),
            };
            *slot = match args.next() {
                Some("0") => false,
                Some("1") => true,
                Some(value) => {
                    return Err(ArgumentError::InvalidValue {
                        name: name.to_owned(),
                        value: value.to_owned(),
                    })
                }
                None => return Err(ArgumentError::MissingValue(name.to_owned())),
            };
        }
        Ok(options)
    }
}

/// One token: folded text and the byte span of the original text it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    /// Folded text, at most [`MAX_TOKEN_BYTES`] long.
    pub text: &'a str,
    /// Byte offset of the first original byte.
    pub start: usize,
    /// Byte offset just past the last original byte.
    pub end: usize,
}

/// A reusable tokenizer: the options plus scratch buffers.
#[derive(Debug, Default)]
pub struct Tokenizer {
    options: Options,
    folder: Folder,
    /// A spaceless run has ended and no token has followed it yet.
    after_run: bool,
}

impl Tokenizer {
    /// A tokenizer with the given options.
    pub fn new(options: Options) -> Tokenizer {
        Tokenizer {
            options,
            ..Tokenizer::default()
        }
    }

    /// The options this tokenizer was made with.
    pub fn options(&self) -> Options {
        self.options
    }

    /// Calls `emit` for every token of `text`, stopping at the first error
    /// `emit` returns and returning it.
    ///
    /// `text` may hold invalid UTF-8: the valid pieces are tokenized with
    /// their offsets in `text`.
    pub fn tokenize<E>(
        &mut self,
        text: &[u8],
        emit: &mut dyn FnMut(Token<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.after_run = false;
        let mut offset = 0;
        for chunk in text.utf8_chunks() {
            let valid = chunk.valid();
            let mut at = offset;
            for part in valid.split(REDACTED) {
                self.tokenize_str(part, at, emit)?;
                at += part.len() + REDACTED.len();
            }
            offset += valid.len() + chunk.invalid().len();
        }
        Ok(())
    }

    /// Collects the tokens of `text` as `(text, start, end)`.
    pub fn tokens(&mut self, text: &[u8]) -> Vec<(String, usize, usize)> {
        let mut tokens = Vec::new();
        let _ = self.tokenize::<()>(text, &mut |t| {
            tokens.push((t.text.to_owned(), t.start, t.end));
            Ok(())
        });
        tokens
    }

    fn tokenize_str<E>(
        &mut self,
        text: &str,
        base: usize,
        emit: &mut dyn FnMut(Token<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let pieces = text
            .split(|c: char| c.is_ascii() && !c.is_ascii_alphanumeric())
            .filter(|piece| !piece.is_empty());
        for piece in pieces {
            let start = base + (piece.as_ptr() as usize - text.as_ptr() as usize);
            if piece.is_ascii() {
                self.emit_word(piece, start, emit)?;
            } else if self.options.cjk {
                self.split_spaceless_runs(piece, start, emit)?;
            } else {
                self.emit_words(piece, start, emit)?;
            }
        }
        Ok(())
    }

    /// Splits a non-ASCII piece into runs of spaceless scripts, indexed as
    /// n-grams, and the text between them, indexed as words.
    fn split_spaceless_runs<E>(
        &mut self,
        piece: &str,
        base: usize,
        emit: &mut dyn FnMut(Token<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut rest = piece;
        let mut offset = base;
        while !rest.is_empty() {
            let run_start = rest.find(is_spaceless).unwrap_or(rest.len());
            self.emit_words(&rest[..run_start], offset, emit)?;
            rest = &rest[run_start..];
            offset += run_start;
            let run_len = rest.find(|c: char| !continues_run(c)).unwrap_or(rest.len());
            self.emit_run(&rest[..run_len], offset, emit)?;
            rest = &rest[run_len..];
            offset += run_len;
        }
        Ok(())
    }

    /// Emits the letter-and-digit runs of the UAX #29 words of `text`.
    fn emit_words<E>(
        &mut self,
        text: &str,
        base: usize,
        emit: &mut dyn FnMut(Token<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        for (word_start, word) in text.split_word_bound_indices() {
            let mut run_start = None;
            for (i, c) in word.char_indices() {
                let continues = c.is_alphanumeric()
                    || (run_start.is_some() && unicode_normalization::char::is_combining_mark(c));
                match (continues, run_start) {
                    (true, None) => run_start = Some(i),
                    (false, Some(start)) => {
                        self.emit_word(&word[start..i], base + word_start + start, emit)?;
                        run_start = None;
                    }
                    _ => {}
                }
            }
            if let Some(start) = run_start {
                self.emit_word(&word[start..], base + word_start + start, emit)?;
            }
        }
        Ok(())
    }

    /// Emits a run of a spaceless script, one token per grapheme cluster.
    fn emit_run<E>(
        &mut self,
        run: &str,
        base: usize,
        emit: &mut dyn FnMut(Token<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        if run.is_empty() {
            return Ok(());
        }
        let mut emitted = false;
        for (start, cluster) in run.grapheme_indices(true) {
            emitted |= self.emit_word(cluster, base + start, emit)?;
        }
        self.after_run |= emitted;
        Ok(())
    }

    /// Folds `word` (original text starting at byte `start`) and emits it,
    /// preceded by [`RUN_BOUNDARY`] when it follows a spaceless run. A word
    /// that folds to nothing is skipped; returns whether it was emitted.
    fn emit_word<E>(
        &mut self,
        word: &str,
        start: usize,
        emit: &mut dyn FnMut(Token<'_>) -> Result<(), E>,
    ) -> Result<bool, E> {
        let folded = self.folder.fold(word, self.options.remove_diacritics);
        let text = truncate(folded, MAX_TOKEN_BYTES);
        if text.is_empty() {
            return Ok(false);
        }
        if std::mem::take(&mut self.after_run) {
            emit(Token {
                text: RUN_BOUNDARY,
                start,
                end: start,
            })?;
        }
        emit(Token {
            text,
            start,
            end: start + word.len(),
        })?;
        Ok(true)
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character
/// boundary.
fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests;
