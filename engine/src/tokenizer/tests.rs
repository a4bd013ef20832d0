use super::*;

/// Asserts the document tokens of `text` under `args`, as
/// `(folded text, original text)` pairs, and that every token's offsets
/// slice the original text exactly.
fn assert_tokens(args: &[&str], text: &str, expected: &[(&str, &str)]) {
    let tokens =
        Tokenizer::new(Options::parse(args).unwrap()).tokens(text.as_bytes(), Purpose::Document);
    let actual: Vec<(&str, &str)> = tokens
        .iter()
        .map(|(token, start, end, _)| (token.as_str(), &text[*start..*end]))
        .collect();
    assert_eq!(actual, expected, "tokens of {text:?}");
}

fn query_tokens(args: &[&str], text: &str) -> Vec<String> {
    Tokenizer::new(Options::parse(args).unwrap())
        .tokens(text.as_bytes(), Purpose::Query)
        .into_iter()
        .map(|(token, ..)| token)
        .collect()
}

#[test]
fn words_are_letter_digit_runs_with_original_offsets() {
    assert_tokens(
        &[],
        "Café src/main.py don't naïve_thing #123 C# alice@example.com",
        &[
            ("cafe", "Café"),
            ("src", "src"),
            ("main", "main"),
            ("py", "py"),
            ("don", "don"),
            ("t", "t"),
            ("naive", "naïve"),
            ("thing", "thing"),
            ("123", "123"),
            ("c", "C"),
            ("alice", "alice"),
            ("example", "example"),
            ("com", "com"),
        ],
    );
}

#[test]
fn folding_applies_inside_tokens_only() {
    assert_tokens(
        &[],
        "Straße ＡＢＣ ﬁle Ærøskøbing",
        &[
            ("strasse", "Straße"),
            ("abc", "ＡＢＣ"),
            ("file", "ﬁle"),
            ("aeroskobing", "Ærøskøbing"),
        ],
    );
}

#[test]
fn remove_diacritics_0_keeps_accents_but_folds_case() {
    assert_tokens(
        &["remove_diacritics", "0"],
        "Café Straße",
        &[("café", "Café"), ("strasse", "Straße")],
    );
}

#[test]
fn without_cjk_han_splits_per_character_and_katakana_stays_whole() {
    assert_tokens(
        &[],
        "東京のラーメン",
        &[
            ("東", "東"),
            ("京", "京"),
            ("の", "の"),
            ("ラーメン", "ラーメン"),
        ],
    );
}

#[test]
fn cjk_runs_index_unigrams_with_colocated_bigrams() {
    let tokens = Tokenizer::new(Options {
        cjk: true,
        ..Options::default()
    })
    .tokens("東京タワー".as_bytes(), Purpose::Document);
    let expected = [
        ("東", 0, 3, false),
        ("東京", 0, 6, true),
        ("京", 3, 6, false),
        ("京タ", 3, 9, true),
        ("タ", 6, 9, false),
        ("タワ", 6, 12, true),
        ("ワ", 9, 12, false),
        ("ワー", 9, 15, true),
        ("ー", 12, 15, false),
    ];
    let actual: Vec<_> = tokens
        .iter()
        .map(|(t, s, e, c)| (t.as_str(), *s, *e, *c))
        .collect();
    assert_eq!(actual, expected);
}

#[test]
fn cjk_queries_are_bigram_phrases_ending_in_a_unigram() {
    let cjk = ["cjk", "1"];
    assert_eq!(query_tokens(&cjk, "東"), ["東"]);
    assert_eq!(query_tokens(&cjk, "東京"), ["東京", "京"]);
    assert_eq!(query_tokens(&cjk, "서울시"), ["서울", "울시", "시"]);
    assert_eq!(
        query_tokens(&cjk, "ラーメン wifi"),
        ["ラー", "ーメ", "メン", "ン", "wifi"]
    );
}

#[test]
fn cjk_runs_are_split_from_latin_and_punctuation() {
    assert_tokens(
        &["cjk", "1"],
        "用Rust写。OK",
        &[("用", "用"), ("rust", "Rust"), ("写", "写"), ("ok", "OK")],
    );
}

#[test]
fn thai_ngrams_use_grapheme_clusters() {
    let tokens = Tokenizer::new(Options {
        cjk: true,
        ..Options::default()
    })
    .tokens("ที่นี่".as_bytes(), Purpose::Document);
    let unigrams: Vec<&str> = tokens
        .iter()
        .filter(|t| !t.3)
        .map(|t| t.0.as_str())
        .collect();
    assert_eq!(unigrams, ["ที่", "นี่"]);
}

#[test]
fn halfwidth_katakana_with_voicing_folds_to_fullwidth() {
    assert_tokens(&["cjk", "1"], "ｶﾞ", &[("ガ", "ｶﾞ")]);
}

#[test]
fn invalid_utf8_separates_tokens_and_keeps_valid_pieces() {
    let text = b"caf\xC3\xA9\xFFworld \xE6\x9D\xB1\xE4";
    let tokens = Tokenizer::new(Options::default()).tokens(text, Purpose::Document);
    let actual: Vec<_> = tokens
        .iter()
        .map(|(t, s, e, _)| (t.as_str(), *s, *e))
        .collect();
    assert_eq!(actual, [("cafe", 0, 5), ("world", 6, 11), ("東", 12, 15)]);
}

#[test]
fn empty_and_separator_only_input_gives_no_tokens() {
    for text in ["", " ", "...", "\u{3000}。、", "🙂🙂"] {
        assert!(
            Tokenizer::default()
                .tokens(text.as_bytes(), Purpose::Document)
                .is_empty(),
            "{text:?}"
        );
    }
}

#[test]
fn long_tokens_are_cut_at_a_char_boundary() {
    let long = "é".repeat(1000);
    let tokens = Tokenizer::new(Options {
        remove_diacritics: false,
        cjk: false,
    })
    .tokens(long.as_bytes(), Purpose::Document);
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0].0.len(), MAX_TOKEN_BYTES);
    assert_eq!((tokens[0].1, tokens[0].2), (0, long.len()));
}

#[test]
fn unknown_and_malformed_arguments_are_named() {
    assert_eq!(
        Options::parse(&["porter"]),
        Err(ArgumentError::Unknown("porter".into()))
    );
    assert_eq!(
        Options::parse(&["cjk", "2"]),
        Err(ArgumentError::InvalidValue {
            name: "cjk".into(),
            value: "2".into()
        })
    );
    assert_eq!(
        Options::parse(&["cjk"]),
        Err(ArgumentError::MissingValue("cjk".into()))
    );
    assert!(ArgumentError::Unknown("porter".into())
        .to_string()
        .contains("'porter'"));
}

#[test]
fn emit_errors_stop_tokenizing_at_once() {
    let mut seen = 0;
    let result = Tokenizer::default().tokenize(b"a b c d", Purpose::Document, &mut |_| {
        seen += 1;
        if seen == 2 {
            Err("stop")
        } else {
            Ok(())
        }
    });
    assert_eq!(result, Err("stop"));
    assert_eq!(seen, 2);
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn offsets_are_valid_for_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200), cjk: bool) {
            let tokens = Tokenizer::new(Options { cjk, ..Options::default() }).tokens(&bytes, Purpose::Document);
            let mut last_start = 0;
            for (i, (text, start, end, colocated)) in tokens.iter().enumerate() {
                prop_assert!(start < end && *end <= bytes.len());
                prop_assert!(*start >= last_start);
                prop_assert!(!(i == 0 && *colocated));
                prop_assert!(!text.is_empty() && text.len() <= MAX_TOKEN_BYTES);
                prop_assert!(std::str::from_utf8(&bytes[*start..*end]).is_ok());
                last_start = *start;
            }
        }

        #[test]
        fn folding_is_idempotent(word in "\\PC{1,12}") {
            let mut folder = Folder::default();
            let once = folder.fold(&word, true).to_owned();
            let twice = folder.fold(&once, true).to_owned();
            prop_assert_eq!(once, twice);
        }
    }
}
