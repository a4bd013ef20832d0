//! The tokens of the index: the auxiliary token families that a document
//! gets besides its words (tier markers, pair tokens, prefix tokens), and
//! long documents tokenized on a second thread.

pub mod pairs;
pub mod prefixes;
pub mod threaded;
pub mod tiers;
