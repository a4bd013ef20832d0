//! Other forms of a word, for the fill of a question: `deploy` also finds
//! `deployed`, `deploying` and `deployment`, `compilation` finds `compile`.
//!
//! Two words are forms of one another when the Snowball English stemmer
//! (`rust-stemmers`) gives them the same stem. The index is not changed: the
//! candidates are spelled from the word and its stem with English suffixes
//! (dropping a final `e`, doubling a final consonant, `y` after `i`), the
//! stemmer keeps those that share the word's stem, and each is then looked
//! up as a word of its own. Only words of ASCII letters get forms (folding
//! has already taken accents off Latin letters); words with digits,
//! identifiers and other scripts stay as typed.

use rust_stemmers::{Algorithm, Stemmer};

/// Suffixes a candidate form ends with, inflections first: every base gets
/// one suffix before any gets the next.
const SUFFIXES: [&str; 17] = [
    "", "s", "es", "ed", "ing", "er", "ers", "ion", "ions", "ation", "ations", "ment", "ments",
    "able", "ize", "ized", "ization",
];

/// The most other forms a word gets (the first ones spelled).
pub const MOST_FORMS: usize = 10;

/// The shortest word, in letters, that gets other forms.
pub const SHORTEST_WORD: usize = 3;

/// The longest stem whose last consonant doubles before a vowel (`stop`,
/// `stopped`): English doubles it after a short stressed syllable, which
/// longer stems rarely end with (`compil`, `error`).
const LONGEST_DOUBLING_STEM: usize = 4;

/// The other forms of `word` (a folded token): words with its stem, not
/// itself, at most [`MOST_FORMS`]; none for a word that is not ASCII
/// letters or shorter than [`SHORTEST_WORD`].
pub fn other_forms(word: &str) -> Vec<String> {
    if word.len() < SHORTEST_WORD || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return Vec::new();
    }
    let stemmer = Stemmer::create(Algorithm::English);
    let stem = stemmer.stem(word).into_owned();
    // The stem as it is spelled before a suffix, with a final `e` it lost
    // (`compil`, `compile`), with `y` for the `i` it got (`retri`, `retry`),
    // with its last consonant doubled (`stop`, `stopp`), and the word.
    let mut bases = vec![stem.clone(), format!("{stem}e")];
    if let Some(head) = stem.strip_suffix('i') {
        bases.push(format!("{head}y"));
    }
    if stem.len() <= LONGEST_DOUBLING_STEM && ends_consonant_vowel_consonant(&stem) {
        bases.push(format!("{stem}{}", &stem[stem.len() - 1..]));
    }
    bases.push(word.to_owned());
    let mut forms: Vec<String> = Vec::new();
    for suffix in SUFFIXES {
        for base in &bases {
            let Some(form) = join(base, suffix) else {
                continue;
            };
            if form != word && !forms.contains(&form) && stemmer.stem(&form) == stem {
                forms.push(form);
                if forms.len() == MOST_FORMS {
                    return forms;
                }
            }
        }
    }
    forms
}

/// `base` and `suffix` as English spells them together, `None` where it
/// would not: a final `e` goes before a suffix that starts with a vowel,
/// `es` follows a hissing sound or an `i`, `s` anything else, and a base
/// ending in `e` takes no other suffix that starts with a consonant.
fn join(base: &str, suffix: &str) -> Option<String> {
    let hissing = ["s", "x", "z", "ch", "sh", "i"]
        .iter()
        .any(|end| base.ends_with(end));
    let vowel_next = suffix.starts_with(['a', 'e', 'i', 'o', 'u']);
    match (base.strip_suffix('e'), suffix) {
        (_, "es") if !hissing => None,
        (_, "s") if hissing => None,
        (Some(head), _) if vowel_next => Some(format!("{head}{suffix}")),
        (Some(_), "" | "s" | "ment" | "ments") | (None, _) => Some(format!("{base}{suffix}")),
        (Some(_), _) => None,
    }
}

/// Whether `word` ends in a consonant, a vowel and a consonant other than
/// `w`, `x` or `y` (`stop`, whose last letter doubles in `stopped`).
fn ends_consonant_vowel_consonant(word: &str) -> bool {
    let vowel = |b: u8| b"aeiou".contains(&b);
    match word.as_bytes() {
        [.., a, b, c] => !vowel(*a) && vowel(*b) && !vowel(*c) && !b"wxy".contains(c),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(word: &str, forms: &[&str]) {
        let found = other_forms(word);
        for form in forms {
            assert!(
                found.iter().any(|f| f == form),
                "{word}: {form} not in {found:?}"
            );
        }
        assert!(!found.iter().any(|f| f == word), "{word} in {found:?}");
    }

    #[test]
    fn inflections_and_derivations_that_share_the_stem() {
        has(
            "compile",
            &[
                "compiling",
                "compiled",
                "compiles",
                "compilation",
                "compiler",
            ],
        );
        has("compilation", &["compile", "compiling", "compiled"]);
        has("compiling", &["compile", "compilation"]);
        has(
            "deploy",
            &["deployed", "deploying", "deployment", "deploys"],
        );
        has("deployment", &["deploy", "deployed"]);
        has("fail", &["failed", "failing", "fails"]);
        has("failed", &["fail", "failing"]);
        has("retry", &["retries", "retried", "retrying"]);
        has("stop", &["stopped", "stopping", "stops"]);
        has("configuration", &["configure", "configured"]);
        has("databases", &["database"]);
        has("indexing", &["index", "indexed", "indexes"]);
    }

    #[test]
    fn forms_keep_their_stem_and_are_bounded() {
        let stemmer = Stemmer::create(Algorithm::English);
        for word in ["test", "connect", "search", "happy", "use", "organization"] {
            let forms = other_forms(word);
            assert!(forms.len() <= MOST_FORMS);
            for form in &forms {
                assert_eq!(stemmer.stem(form), stemmer.stem(word), "{word} {form}");
            }
        }
        // `testimony` is not a form of `test`.
        assert!(!other_forms("test").contains(&"testimony".to_owned()));
    }

    #[test]
    fn identifiers_short_words_and_other_scripts_get_none() {
        for word in ["v2", "ab", "sha256", "東京", "привет", "src_main", "Deploy"] {
            assert!(other_forms(word).is_empty(), "{word}");
        }
    }
}
