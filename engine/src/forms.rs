//! Other forms of a word, for the fill of a question: `deploy` also finds
//! `deployed`, `deploying` and `deployment`, `compilation` finds `compile`.
//!
//! Two words are forms of one another when the Snowball English stemmer
//! (`rust-stemmers`) gives them the same stem, or when one names who or
//! what does the other (`linter` and `linting`, `formatter` and `format`,
//! `parser` and `parse`): Snowball keeps or half-strips that `-er`, so its
//! root is compared too (`agent_root`). The index is not changed: the
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

/// The most other forms a word gets per stem it is read with (the first
/// ones spelled).
pub const MOST_FORMS: usize = 10;

/// The shortest word, in letters, that gets other forms.
pub const SHORTEST_WORD: usize = 3;

/// The longest stem whose last consonant doubles before a vowel (`stop`,
/// `stopped`): English doubles it after a short stressed syllable, which
/// longer stems rarely end with (`compil`, `error`).
const LONGEST_DOUBLING_STEM: usize = 4;

/// The other forms of `word` (a folded token): words with its stem, not
/// itself, at most [`MOST_FORMS`] per stem; none for a word that is not ASCII
/// letters or shorter than [`SHORTEST_WORD`].
pub fn other_forms(word: &str) -> Vec<String> {
    if word.len() < SHORTEST_WORD || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return Vec::new();
    }
    let stemmer = Stemmer::create(Algorithm::English);
    let stem = stemmer.stem(word).into_owned();
    // The stems a form may have: the word's, and the root of a word that
    // names who does something (`linter`: `lint`).
    let root = agent_root(word, &stem);
    let mut stems = vec![stem.clone()];
    stems.extend(root.clone());
    // Each stem (the root first) as it is spelled before a suffix, with a final `e` it lost
    // (`compil`, `compile`), with `y` for the `i` it got (`retri`, `retry`),
    // with its last consonant doubled (`stop`, `stopp`), and the word.
    let mut bases = Vec::new();
    for stem in stems.iter().rev() {
        bases.extend([stem.clone(), format!("{stem}e")]);
        if let Some(head) = stem.strip_suffix('i') {
            bases.push(format!("{head}y"));
        }
        if stem.len() <= LONGEST_DOUBLING_STEM && ends_consonant_vowel_consonant(stem) {
            bases.push(format!("{stem}{}", &stem[stem.len() - 1..]));
        }
    }
    bases.push(word.to_owned());
    let mut forms: Vec<String> = Vec::new();
    for suffix in SUFFIXES {
        for base in &bases {
            let Some(form) = join(base, suffix) else {
                continue;
            };
            let form_stem = stemmer.stem(&form);
            let related = stems.iter().any(|s| *s == form_stem)
                || agent_root(&form, &form_stem).is_some_and(|r| r == stem);
            if form != word && !forms.contains(&form) && related {
                forms.push(form);
                if forms.len() == MOST_FORMS * stems.len() {
                    return forms;
                }
            }
        }
    }
    forms
}

/// The root of `word` (whose stem is `stem`) when it names who or what
/// does something with `-er` (`linter`, `formatters`): the stem without
/// that `-er`, which Snowball keeps after a short root (`linter`) and takes
/// off after a longer one (`formatt`), and without the consonant the `-er`
/// doubled (`format`, `run`). `None` for other words and roots shorter
/// than [`SHORTEST_WORD`].
fn agent_root(word: &str, stem: &str) -> Option<String> {
    if !(word.ends_with("er") || word.ends_with("ers")) {
        return None;
    }
    let mut root = stem.strip_suffix("er").unwrap_or(stem).to_owned();
    let bytes = root.as_bytes();
    if let [.., a, b] = bytes {
        if a == b && !b"aeious".contains(b) {
            root.pop();
        }
    }
    (root.len() >= SHORTEST_WORD && root != stem).then_some(root)
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
    fn who_does_a_thing_and_the_thing_are_forms() {
        has("linter", &["lint", "linting", "linted"]);
        has("formatter", &["format", "formatting", "formatted"]);
        has("parser", &["parse", "parsing"]);
        has("runner", &["run", "running"]);
        has("lint", &["linter"]);
        has("parse", &["parser"]);
        // A word that only ends like one keeps its own forms.
        assert!(!other_forms("user").contains(&"us".to_owned()));
    }

    #[test]
    fn forms_keep_their_stem_and_are_bounded() {
        let stemmer = Stemmer::create(Algorithm::English);
        for word in ["test", "connect", "search", "happy", "use", "organization"] {
            let forms = other_forms(word);
            assert!(forms.len() <= MOST_FORMS * 2);
            for form in &forms {
                let (stem, form_stem) = (stemmer.stem(word), stemmer.stem(form));
                let names_the_doer = agent_root(form, &form_stem).is_some_and(|r| r == stem);
                assert!(form_stem == stem || names_the_doer, "{word} {form}");
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
