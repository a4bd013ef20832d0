//! Folding: the normal form a token is indexed and searched under.
//!
//! The steps, in order: compatibility decomposition (NFKD: `ＡＢＣ` → `ABC`,
//! `ﬁ` → `fi`, `é` → `e` + U+0301), full lower-casing, case folds that
//! lower-casing does not do (`ß` → `ss`, final `ς` → `σ`), and, when
//! diacritics are removed, dropping the accent marks of the scripts that use
//! them as accents and mapping the letters that decomposition does not split
//! (`ø` → `o`, `æ` → `ae`, …). Last comes canonical recomposition (NFC), so
//! Hangul syllables and kana with voicing marks become single characters again.
//!
//! Marks that make a different letter in their script are not accents and are
//! always kept: kana voicing (U+3099, U+309A), Indic vowel signs and viramas,
//! Thai and Lao vowel and tone marks. None of them lies in the ranges of
//! [`is_accent_mark`].

use std::sync::OnceLock;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Characters below this (Basic Latin through Latin Extended-B) are folded
/// one at a time from a table: none of them is a combining mark, so folding
/// a word of them equals concatenating their folds.
const LATIN_TABLE_END: u32 = 0x250;

/// Scratch buffers reused across tokens, so folding allocates only while a
/// buffer grows.
#[derive(Debug, Default)]
pub struct Folder {
    decomposed: String,
    folded: String,
}

impl Folder {
    /// Folds `word` and returns the folded text, valid until the next call.
    ///
    /// Two fast paths give the same result as the full one: ASCII, for which
    /// every step but lower-casing is the identity, and words of Latin
    /// letters, folded per character from a table built by the full path.
    pub fn fold(&mut self, word: &str, remove_diacritics: bool) -> &str {
        self.folded.clear();
        if word.is_ascii() {
            self.folded
                .extend(word.bytes().map(|b| char::from(b.to_ascii_lowercase())));
            return &self.folded;
        }
        if word.chars().all(|c| (c as u32) < LATIN_TABLE_END) {
            let table = latin_table(remove_diacritics);
            for c in word.chars() {
                self.folded.push_str(&table[c as usize]);
            }
            return &self.folded;
        }
        self.fold_fully(word, remove_diacritics);
        &self.folded
    }

    /// The full folding pipeline, into `self.folded`.
    fn fold_fully(&mut self, word: &str, remove_diacritics: bool) {
        self.folded.clear();
        self.decomposed.clear();
        let mut previous = '\0';
        let mut after_space = false;
        for c in word.nfkd().flat_map(char::to_lowercase) {
            // Spacing marks (´, ゛) decompose to a space and a combining mark:
            // they are symbols, not letters, and add nothing to a token.
            if c.is_whitespace() || (after_space && is_combining_mark(c)) {
                after_space = true;
                continue;
            }
            after_space = false;
            if is_variation_selector(c) {
                continue;
            }
            if remove_diacritics && is_accent_mark(c) && !makes_cyrillic_letter(previous, c) {
                continue;
            }
            previous = c;
            match letter_fold(c, remove_diacritics) {
                Some(replacement) => self.decomposed.push_str(replacement),
                None => self.decomposed.push(c),
            }
        }
        self.folded.extend(self.decomposed.nfc());
    }
}

/// The folds of every character below [`LATIN_TABLE_END`], computed once per
/// `remove_diacritics` setting by the full pipeline.
fn latin_table(remove_diacritics: bool) -> &'static [Box<str>] {
    static TABLES: [OnceLock<Vec<Box<str>>>; 2] = [OnceLock::new(), OnceLock::new()];
    TABLES[usize::from(remove_diacritics)].get_or_init(|| {
        let mut folder = Folder::default();
        (0..LATIN_TABLE_END)
            .map(|code| {
                let c = char::from_u32(code).expect("no surrogates below U+0250");
                folder.fold_fully(c.encode_utf8(&mut [0; 4]), remove_diacritics);
                folder.folded.as_str().into()
            })
            .collect()
    })
}

/// Variation selectors choose a glyph, not a character, so they are dropped:
/// `葛` followed by U+E0100 still matches `葛`.
fn is_variation_selector(c: char) -> bool {
    matches!(c as u32, 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
}

/// Cyrillic letters written with a mark that are letters of their own, not
/// accented ones: й (и + breve), ў (у + breve), ї (і + diaeresis). `ё` stays
/// an accented `е`, as it is commonly written without its dots.
fn makes_cyrillic_letter(base: char, mark: char) -> bool {
    matches!((base, mark), ('и' | 'у', '\u{306}') | ('і', '\u{308}'))
}

/// Combining marks that are accents: Latin, Greek and Cyrillic diacritics
/// (U+0300–036F and the extended and supplementary blocks), Cyrillic
/// titlo-style marks, Hebrew points and cantillation, Arabic vowel points, and
/// combining marks for symbols and half marks.
pub fn is_accent_mark(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F
        | 0x0483..=0x0489
        | 0x0591..=0x05BD
        | 0x05BF
        | 0x05C1..=0x05C2
        | 0x05C4..=0x05C5
        | 0x05C7
        | 0x0610..=0x061A
        | 0x064B..=0x065F
        | 0x0670
        | 0x06D6..=0x06DC
        | 0x06DF..=0x06E4
        | 0x06E7..=0x06E8
        | 0x06EA..=0x06ED
        | 0x1AB0..=0x1AFF
        | 0x1DC0..=0x1DFF
        | 0x20D0..=0x20FF
        | 0xFE20..=0xFE2F
    )
}

/// Replacement for one lower-case letter, if it has one.
///
/// `ß` and `ς` are case folds and always apply; the others are letters that
/// carry a stroke or are ligatures that NFKD leaves whole, and apply only when
/// diacritics are removed.
fn letter_fold(c: char, remove_diacritics: bool) -> Option<&'static str> {
    let case_fold = match c {
        'ß' => Some("ss"),
        'ς' => Some("σ"),
        _ => None,
    };
    if case_fold.is_some() || !remove_diacritics {
        return case_fold;
    }
    Some(match c {
        'æ' => "ae",
        'œ' => "oe",
        'ø' => "o",
        'đ' => "d",
        'ð' => "d",
        'ł' => "l",
        'þ' => "th",
        'ı' => "i",
        'ħ' => "h",
        'ŧ' => "t",
        'ƀ' => "b",
        'ǥ' => "g",
        'ɨ' => "i",
        'ƶ' => "z",
        'ȼ' => "c",
        'ɇ' => "e",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::Folder;

    fn fold(word: &str) -> String {
        Folder::default().fold(word, true).to_owned()
    }

    fn fold_keeping_marks(word: &str) -> String {
        Folder::default().fold(word, false).to_owned()
    }

    #[test]
    fn removes_latin_greek_cyrillic_accents() {
        assert_eq!(fold("Café"), "cafe");
        assert_eq!(fold("NAÏVE"), "naive");
        assert_eq!(fold("Ελληνικά"), "ελληνικα");
        assert_eq!(fold("ёлка"), "елка");
        assert_eq!(fold("Край"), "край");
        assert_ne!(fold("край"), fold("краи"));
        assert_eq!(fold("Україна"), "україна");
        assert_eq!(fold("ўсё"), "ўсе");
        assert_eq!(fold("Crème"), "creme");
        assert_eq!(fold("Brûlée"), "brulee");
    }

    #[test]
    fn fold_table_letters() {
        assert_eq!(fold("Straße"), "strasse");
        assert_eq!(fold("STRASSE"), "strasse");
        assert_eq!(fold("ẞ"), "ss");
        assert_eq!(fold("Ærøskøbing"), "aeroskobing");
        assert_eq!(fold("Œuvre"), "oeuvre");
        assert_eq!(fold("Łódź"), "lodz");
        assert_eq!(fold("Đorđe"), "dorde");
        assert_eq!(fold("Þórður"), "thordur");
        assert_eq!(fold("ıstanbul"), "istanbul");
        assert_eq!(fold("İstanbul"), "istanbul");
    }

    #[test]
    fn compatibility_forms() {
        assert_eq!(fold("ＡＢＣ"), "abc");
        assert_eq!(fold("ﬁle"), "file");
        assert_eq!(fold("①"), "1");
        assert_eq!(fold("ｶﾞ"), "ガ");
    }

    #[test]
    fn keeps_letters_that_marks_make_different() {
        assert_eq!(fold("が"), "が");
        assert_ne!(fold("が"), fold("か"));
        assert_eq!(fold("ぱ"), "ぱ");
        assert_eq!(fold("हिन्दी"), "हिन्दी");
        assert_eq!(fold("ภาษาไทย"), "ภาษาไทย");
        assert_eq!(fold("ພາສາລາວ"), "ພາສາລາວ");
    }

    #[test]
    fn variation_selectors_and_decomposed_spaces_are_dropped() {
        assert_eq!(fold("葛\u{E0100}"), "葛");
        assert_eq!(
            fold("か\u{309B}"),
            "か",
            "a spacing voicing mark is a symbol"
        );
        assert_eq!(fold("½"), "1⁄2");
    }

    #[test]
    fn hangul_stays_composed() {
        let folded = fold("서울시");
        assert_eq!(folded, "서울시");
        assert_eq!(folded.chars().count(), 3);
        let decomposed: String = unicode_normalization::UnicodeNormalization::nfd("서울").collect();
        assert_eq!(fold(&decomposed), "서울");
    }

    #[test]
    fn arabic_and_hebrew_points_removed() {
        assert_eq!(fold("كَتَبَ"), "كتب");
        assert_eq!(fold("שָׁלוֹם"), "שלום");
    }

    proptest::proptest! {
        #[test]
        fn latin_table_matches_the_full_pipeline(word in "[a-zA-Z\u{80}-\u{24F}]{1,12}", remove_diacritics: bool) {
            let mut fast = Folder::default();
            let mut full = Folder::default();
            full.fold_fully(&word, remove_diacritics);
            proptest::prop_assert_eq!(fast.fold(&word, remove_diacritics), full.folded.as_str());
        }
    }

    #[test]
    fn keeping_marks_still_folds_case_and_width() {
        assert_eq!(fold_keeping_marks("Café"), "café");
        assert_eq!(fold_keeping_marks("Straße"), "strasse");
        assert_eq!(fold_keeping_marks("Ø"), "ø");
        assert_eq!(fold_keeping_marks("ＡＢＣ"), "abc");
        assert_eq!(fold_keeping_marks("ΣΟΦΟΣ"), fold_keeping_marks("σοφος"));
    }
}
