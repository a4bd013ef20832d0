//! Which characters belong to scripts written without spaces between words.
//!
//! With `cjk 1`, runs of these characters are indexed as character n-grams
//! instead of words (see the parent module). The ranges are the Unicode blocks
//! of each script, minus their punctuation and symbols, which separate runs
//! like any other punctuation does.

/// Returns true for letters, digits and marks of Han, Hiragana, Katakana,
/// Hangul, Thai, Lao, Khmer and Myanmar.
pub fn is_spaceless(c: char) -> bool {
    matches!(c as u32,
        // Han: radicals, iteration mark 々, 〇, Hangzhou numerals, ideographs
        0x2E80..=0x2FDF
        | 0x3005 | 0x3007
        | 0x3021..=0x3029
        | 0x3038..=0x303B
        | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF
        | 0xF900..=0xFAFF
        | 0x20000..=0x323AF
        // Hiragana, with the combining voicing marks and iteration marks
        | 0x3041..=0x309F
        // Katakana (without the middle dot U+30FB), phonetic extensions,
        // half-width forms, kana supplements
        | 0x30A1..=0x30FA
        | 0x30FC..=0x30FF
        | 0x31F0..=0x31FF
        | 0xFF66..=0xFF9F
        | 0x1B000..=0x1B16F
        // Hangul: jamo, compatibility jamo, syllables, half-width forms
        | 0x1100..=0x11FF
        | 0x3131..=0x318E
        | 0xA960..=0xA97F
        | 0xAC00..=0xD7A3
        | 0xD7B0..=0xD7FF
        | 0xFFA0..=0xFFDC
        // Thai letters, vowels, tone marks and digits (not ฿, ๏, ๚, ๛)
        | 0x0E01..=0x0E3A
        | 0x0E40..=0x0E4E
        | 0x0E50..=0x0E59
        // Lao
        | 0x0E81..=0x0EDF
        // Khmer letters, signs and digits (not the punctuation 17D4..17DA)
        | 0x1780..=0x17D3
        | 0x17D7
        | 0x17DC..=0x17DD
        | 0x17E0..=0x17E9
        // Myanmar (not the punctuation 104A..104F) and its extensions
        | 0x1000..=0x1049
        | 0x1050..=0x109F
        | 0xA9E0..=0xA9FE
        | 0xAA60..=0xAA7F
    )
}

/// Characters that extend a run without starting one: combining marks,
/// variation selectors and the zero-width joiner, so `葛` + U+E0100 + `飾` is
/// one run.
pub fn continues_run(c: char) -> bool {
    is_spaceless(c)
        || unicode_normalization::char::is_combining_mark(c)
        || matches!(c as u32, 0x200D | 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
}

#[cfg(test)]
mod tests {
    use super::is_spaceless;

    #[test]
    fn covers_each_script() {
        for c in "東京ひらがなカタカナーｶﾀｶﾅ서울ภาษาไทยພາສາລາວភាសាខ្មែរမြန်မာ々〇".chars()
        {
            assert!(is_spaceless(c), "{c:?} U+{:04X}", c as u32);
        }
    }

    #[test]
    fn excludes_punctuation_and_other_scripts() {
        for c in "。、・「」！？ a Z 9 é Ж ا ש ฿ ๚ ។ ၊ 　".chars() {
            assert!(!is_spaceless(c), "{c:?} U+{:04X}", c as u32);
        }
    }
}
