//! FTS5's BM25 parameters, in one place for the two that must score alike:
//! `sessions_rank` ([`crate::rank`]) and the weights of the impact tiers
//! ([`crate::index_tokens::tiers`]), which decide at indexing time which
//! messages a word's tier markers hold.

/// FTS5's `k1`: how quickly repeated occurrences stop adding to the score.
pub const K1: f64 = 1.2;

/// FTS5's `b`: how much a long message is penalised.
pub const B: f64 = 0.75;
