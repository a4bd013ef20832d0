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
//! up as a word of its own. Words whose forms English does not spell with
//! a suffix (`write`, `wrote`, `written`; `index`, `indices`) are forms of
//! one another by the table `IRREGULAR`. Only words of ASCII letters get
//! forms (folding has already taken accents off Latin letters); words with
//! digits, identifiers and other scripts stay as typed.

use rust_stemmers::{Algorithm, Stemmer};
use std::sync::OnceLock;

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

/// Families of words whose forms are not spelled with a suffix: English
/// verbs with irregular past forms (base, past, past participle) and nouns
/// with irregular plurals, the base first. Verbs that only frame a question
/// (`find`, `say`, `tell`) and forms that are also common words of their own
/// (`saw`, `left`, `bound`, `rose`) are not in it.
const IRREGULAR: &[&[&str]] = &[
    &["arise", "arose", "arisen"],
    &["beat", "beaten"],
    &["become", "became"],
    &["begin", "began", "begun"],
    &["bend", "bent"],
    &["blow", "blew", "blown"],
    &["break", "broke", "broken"],
    &["bring", "brought"],
    &["build", "built"],
    &["burn", "burnt"],
    &["buy", "bought"],
    &["catch", "caught"],
    &["come", "came"],
    &["deal", "dealt"],
    &["dig", "dug"],
    &["draw", "drew", "drawn"],
    &["dream", "dreamt"],
    &["drive", "drove", "driven"],
    &["eat", "ate", "eaten"],
    &["fall", "fell", "fallen"],
    &["feed", "fed"],
    &["feel", "felt"],
    &["fight", "fought"],
    &["fly", "flew", "flown"],
    &["forbid", "forbade", "forbidden"],
    &["forget", "forgot", "forgotten"],
    &["forgive", "forgave", "forgiven"],
    &["freeze", "froze", "frozen"],
    &["get", "got", "gotten"],
    &["give", "gave", "given"],
    &["go", "went", "gone"],
    &["grow", "grew", "grown"],
    &["hang", "hung"],
    &["hear", "heard"],
    &["hide", "hid", "hidden"],
    &["hold", "held"],
    &["keep", "kept"],
    &["know", "knew", "known"],
    &["learn", "learnt"],
    &["lend", "lent"],
    &["lose", "lost"],
    &["make", "made"],
    &["mean", "meant"],
    &["meet", "met"],
    &["misunderstand", "misunderstood"],
    &["mistake", "mistook", "mistaken"],
    &["override", "overrode", "overridden"],
    &["overwrite", "overwrote", "overwritten"],
    &["pay", "paid"],
    &["prove", "proven"],
    &["rebuild", "rebuilt"],
    &["rerun", "reran"],
    &["rewrite", "rewrote", "rewritten"],
    &["ride", "rode", "ridden"],
    &["run", "ran"],
    &["seek", "sought"],
    &["sell", "sold"],
    &["send", "sent"],
    &["shake", "shook", "shaken"],
    &["shoot", "shot"],
    &["show", "shown"],
    &["shrink", "shrank", "shrunk"],
    &["sit", "sat"],
    &["sleep", "slept"],
    &["slide", "slid"],
    &["speak", "spoke", "spoken"],
    &["spell", "spelt"],
    &["spend", "spent"],
    &["spill", "spilt"],
    &["spin", "spun"],
    &["stand", "stood"],
    &["steal", "stole", "stolen"],
    &["stick", "stuck"],
    &["strike", "struck"],
    &["swear", "swore", "sworn"],
    &["swim", "swam", "swum"],
    &["take", "took", "taken"],
    &["teach", "taught"],
    &["tear", "tore", "torn"],
    &["think", "thought"],
    &["throw", "threw", "thrown"],
    &["understand", "understood"],
    &["undo", "undid", "undone"],
    &["wake", "woke", "woken"],
    &["wear", "wore", "worn"],
    &["withdraw", "withdrew", "withdrawn"],
    &["write", "wrote", "written"],
    &["analysis", "analyses"],
    &["child", "children"],
    &["criterion", "criteria"],
    &["hypothesis", "hypotheses"],
    &["index", "indices"],
    &["matrix", "matrices"],
    &["mouse", "mice"],
    &["person", "people"],
    &["vertex", "vertices"],
];

/// The other forms of `word` (a folded token): words with its stem, at most
/// [`MOST_FORMS`] per stem, then the words of its `IRREGULAR` family and
/// the forms of that family's base; never itself. None for a word that is
/// not ASCII letters or shorter than [`SHORTEST_WORD`].
pub fn other_forms(word: &str) -> Vec<String> {
    if word.len() < SHORTEST_WORD || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return Vec::new();
    }
    let stemmer = Stemmer::create(Algorithm::English);
    let Some(family) = irregular_family(word, &stemmer) else {
        return suffixed_forms(word, &stemmer);
    };
    // A word spelled apart from its base (`wrote`) has its base's suffixed
    // forms; the base and its suffixed forms (`writing`) have their own.
    let base = family[0];
    let mut forms = if family[1..].contains(&word) {
        let mut forms = vec![base.to_owned()];
        forms.extend(suffixed_forms(base, &stemmer));
        forms
    } else {
        suffixed_forms(word, &stemmer)
    };
    for member in family {
        if *member != word && !forms.iter().any(|f| f == member) {
            forms.push((*member).to_owned());
        }
    }
    forms.retain(|form| form != word);
    forms
}

/// The [`IRREGULAR`] family of `word`: the one that holds it, or whose
/// base has its stem (`writes`, `writing`). The bases' stems are computed
/// once per process.
fn irregular_family(word: &str, stemmer: &Stemmer) -> Option<&'static [&'static str]> {
    static BASE_STEMS: OnceLock<Vec<String>> = OnceLock::new();
    let base_stems = BASE_STEMS.get_or_init(|| {
        IRREGULAR
            .iter()
            .map(|family| stemmer.stem(family[0]).into_owned())
            .collect()
    });
    let stem = stemmer.stem(word);
    IRREGULAR
        .iter()
        .zip(base_stems)
        .find(|(family, base_stem)| family.contains(&word) || **base_stem == stem)
        .map(|(family, _)| *family)
}

/// The forms of `word` spelled with suffixes that share its stem (or, for
/// a word naming who does something, its root), not itself, at most
/// [`MOST_FORMS`] per stem.
fn suffixed_forms(word: &str, stemmer: &Stemmer) -> Vec<String> {
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
    fn irregular_forms_are_forms_of_one_another() {
        has("written", &["write", "wrote", "writes", "writing"]);
        has("wrote", &["write", "written"]);
        has("writing", &["wrote", "written"]);
        has("built", &["build", "building", "builds"]);
        has("broken", &["break", "broke", "breaking"]);
        has("ran", &["run", "running"]);
        has("indices", &["index", "indexes"]);
        has("index", &["indices"]);
        // Every family is of distinct lowercase ASCII words, and a word
        // belongs to one family at most.
        let mut seen = std::collections::HashSet::new();
        for family in IRREGULAR {
            for word in *family {
                assert!(word.bytes().all(|b| b.is_ascii_lowercase()), "{word}");
                assert!(seen.insert(*word), "{word} twice");
            }
        }
    }

    #[test]
    fn identifiers_short_words_and_other_scripts_get_none() {
        for word in ["v2", "ab", "sha256", "東京", "привет", "src_main", "Deploy"] {
            assert!(other_forms(word).is_empty(), "{word}");
        }
    }
}
