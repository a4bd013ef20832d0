//! The common words: the words whose pair tokens are indexed (see
//! [`super::pairs`]) and which get no prefix tokens (see
//! [`super::prefixes`]).

/// The words whose pairs are indexed: English words found in a large share
/// of messages, sorted. Changing the list changes the token stream (bump
/// [`crate::tokenizer::TOKENIZER_VERSION`]).
pub const COMMON_WORDS: [&str; 20] = [
    "a", "and", "are", "as", "be", "for", "i", "in", "is", "it", "not", "of", "on", "or", "that",
    "the", "this", "to", "we", "you",
];

/// Whether `token` is one of [`COMMON_WORDS`]: asked of every indexed
/// token, so words are compared as numbers: their length and bytes.
pub fn is_common(token: &str) -> bool {
    token.len() <= 4 && COMMON_KEYS.contains(&packed(token.as_bytes()))
}

/// [`COMMON_WORDS`], each [`packed`].
const COMMON_KEYS: [u64; COMMON_WORDS.len()] = {
    let mut keys = [0; COMMON_WORDS.len()];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = packed(COMMON_WORDS[i].as_bytes());
        i += 1;
    }
    keys
};

/// A word of at most four bytes as one number: its length, then its bytes.
const fn packed(word: &[u8]) -> u64 {
    let mut key = word.len() as u64;
    let mut i = 0;
    while i < word.len() {
        key = key << 8 | word[i] as u64;
        i += 1;
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_lower_case_and_short() {
        assert!(COMMON_WORDS.windows(2).all(|w| w[0] < w[1]));
        for word in COMMON_WORDS {
            assert!(is_common(word), "{word}");
            assert_eq!(word, word.to_lowercase());
        }
        for other in [
            "error", "them", "", "th", "thes", "ae", "t", "\u{1}", "ı", "the\0",
        ] {
            assert!(!is_common(other), "{other:?}");
        }
    }
}
