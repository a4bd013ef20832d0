//! The tokens of the index: what the `sessions` tokenizer gives FTS5 with
//! `markers 1` (the index of `sessions_search`), besides the words that
//! every table gets.
//!
//! # The pipeline
//!
//! FTS5 hands the tokenizer each column value of a row it indexes or
//! deletes, and [`tokenize_document`] sends it down one of two chains:
//!
//! - **scope words** ([`scope_words`]): the scope column's text (it starts
//!   with [`encoding::SCOPE_MARKER`]): its words, all at one position;
//! - **a message's text** ([`document::tokenize_text`], on a second thread
//!   for a long one, [`threaded`]), stage by stage:
//!   1. **words** ([`crate::tokenizer`]): the folded words, and
//!      [`RUN_BOUNDARY`](crate::tokenizer::RUN_BOUNDARY) after a run of a
//!      script written without spaces;
//!   2. **pair tokens** ([`pairs`]): before each word, the pair token of
//!      the word before and this one when the word before is one of the
//!      [`common_words`], colocated with the word before;
//!   3. **prefix tokens** ([`prefixes`]): where a word longer than three
//!      characters first occurs, its first three, colocated with it (none
//!      for the [`common_words::FREQUENT_WORDS`]);
//!   4. **tier markers** ([`tiers`]): after the last word, colocated with
//!      it, each word whose BM25 weight reaches a tier, once per occurrence.
//!
//! A query is its words, unless it is one of the strings the query compiler
//! writes to ask for a family's tokens ([`tokenize_query`]; what each
//! family's query string is, and how it is read back: [`query`]).
//!
//! # Reserved encodings
//!
//! Every token of a message's text that is not one of its words starts
//! with [`MARKER`](encoding::MARKER), a character no word holds; the scope
//! column's text starts with another,
//! [`SCOPE_MARKER`](encoding::SCOPE_MARKER), so no message's text is taken
//! for a scope. The constants are in [`encoding`], except the two that the
//! word tokenizer reads or writes in every table, with or without
//! `markers 1`, defined with it (below this module).
//!
//! | encoding | family | meaning | example |
//! | --- | --- | --- | --- |
//! | [`MARKER`](encoding::MARKER) U+E000, a tier's tag ([`FIRST_TIER_TAG`](encoding::FIRST_TIER_TAG) `1` for the best, … `7` for the seventh), a word | tier marker | the word weighs at least the tier's floor in this message; once per occurrence of the word, at the message's last position | `\u{E000}1deploy` |
//! | [`MARKER`](encoding::MARKER), [`PAIRS_TAG`](encoding::PAIRS_TAG) `+`, a word, a space, the next word | pair token | the two words follow each other here (the first one common); at the first word's position | `\u{E000}+the error` |
//! | [`MARKER`](encoding::MARKER), [`PAIRS_TAG`](encoding::PAIRS_TAG) `+`, a phrase as typed | pair string (queries only) | match this phrase with its pair tokens | `\u{E000}+fix the error` |
//! | [`MARKER`](encoding::MARKER), [`PREFIX_TAG`](encoding::PREFIX_TAG) `*`, 3 characters | prefix token | a word of this message (not a frequent one) starts with them; at the word's first position | `\u{E000}*dep` |
//! | [`MARKER`](encoding::MARKER), [`PREFIX_TAIL_TAG`](encoding::PREFIX_TAIL_TAG) `~`, 2 ASCII letters or digits | prefix tail token | a word of this message starts with them and then a character that is neither (`deλta`); at the word's first position | `\u{E000}~de` |
//! | [`SCOPE_MARKER`](encoding::SCOPE_MARKER) U+E001 (`char(57345)` in `sql/schema.sql`), then words | scope column | the text of the scope column: its words share one position | `\u{E001}a6f7073 t6d31` |
//! | [`AGENT_SCOPE_TAG`](encoding::AGENT_SCOPE_TAG) `a`, the hex of an `agent_id` | scope word | the message's session belongs to that agent | `a6f7073` |
//! | [`TREE_SCOPE_TAG`](encoding::TREE_SCOPE_TAG) `t`, the hex of a session key | scope word | the message's session is that session or descends from it through `spawned_by` (keys at most 3 levels below the chain's top) | `t6d31` |
//! | [`NO_TOP_SCOPE_WORD`](encoding::NO_TOP_SCOPE_WORD) `tz` | scope word | the message's session has a `spawned_by` chain with no top | `tz` |
//! | [`RUN_BOUNDARY`](crate::tokenizer::RUN_BOUNDARY) U+0001 | word stage | a run of a script written without spaces ended and another token follows: no phrase matches across it | `東京。大阪`: `東 京 U+0001 大 阪` |
//! | [`REDACTED`](crate::tokenizer::REDACTED) `[REDACTED]` | word stage (never a token) | a secret was here; read as a space | `key [REDACTED] done`: `key done` |

pub mod common_words;
pub mod document;
pub mod encoding;
pub mod pairs;
pub mod prefixes;
pub mod query;
pub mod scope_words;
pub mod threaded;
pub mod tiers;

use crate::tokenizer::{Token, Tokenizer};

/// Tokenizes a document FTS5 indexes or deletes (a column value) with
/// `markers 1`: a scope column's text as its [`scope_words`], a message's
/// text through the stages of [`document::tokenize_text`], on a second
/// thread when it is at least [`threaded::SECOND_THREAD_BYTES`] long.
/// `emit` gets each token with whether it is colocated with the one before.
pub fn tokenize_document<E>(
    tokenizer: &mut Tokenizer,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>, bool) -> Result<(), E>,
) -> Result<(), E> {
    if text.starts_with(encoding::SCOPE_MARKER.as_bytes()) {
        scope_words::tokenize_scope(tokenizer, text, emit)
    } else if text.len() >= threaded::SECOND_THREAD_BYTES {
        threaded::tokenize_text(tokenizer.options(), text, emit)
    } else {
        document::tokenize_text(tokenizer, text, emit)
    }
}

/// Tokenizes a query with `markers 1`: a tier marker's or prefix token's
/// string as that token ([`query::marker_token`]), a pair string as its
/// pair tokens ([`query::pair_tokens`]), anything else as its words.
pub fn tokenize_query<E>(
    tokenizer: &mut Tokenizer,
    text: &[u8],
    emit: &mut dyn FnMut(Token<'_>) -> Result<(), E>,
) -> Result<(), E> {
    if let Some(marker) = query::marker_token(tokenizer, text) {
        return emit(Token {
            text: &marker,
            start: 0,
            end: text.len(),
        });
    }
    if let Some(tokens) = query::pair_tokens(tokenizer, text) {
        for (token, start, end) in &tokens {
            emit(Token {
                text: token,
                start: *start,
                end: *end,
            })?;
        }
        return Ok(());
    }
    tokenizer.tokenize(text, emit)
}
