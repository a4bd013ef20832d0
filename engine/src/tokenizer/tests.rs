use super::*;

/// Asserts the document tokens of `text` under `args`, as
/// `(folded text, original text)` pairs, and that every token's offsets
/// slice the original text exactly.
fn assert_tokens(args: &[&str], text: &str, expected: &[(&str, &str)]) {
    let tokens = Tokenizer::new(Options::parse(args).unwrap()).tokens(text.as_bytes());
    let actual: Vec<(&str, &str)> = tokens
        .iter()
        .map(|(token, start, end)| (token.as_str(), &text[*start..*end]))
        .collect();
    assert_eq!(actual, expected, "tokens of {text:?}");
}

#[test]
fn cjk_runs_index_one_token_per_character() {
    assert_tokens(
        &["cjk", "1"],
        "東京タワー 서울",
        &[
            ("東", "東"),
            ("京", "京"),
            ("タ", "タ"),
            ("ワ", "ワ"),
            ("ー", "ー"),
            (RUN_BOUNDARY, ""),
            ("서", "서"),
            ("울", "울"),
        ],
    );
}

#[test]
fn run_boundary_only_between_a_run_and_a_following_token() {
    let cjk = Options {
        cjk: true,
        ..Options::default()
    };
    let tokens = Tokenizer::new(cjk).tokens("東京。大阪 tower".as_bytes());
    let texts: Vec<&str> = tokens.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(
        texts,
        ["東", "京", RUN_BOUNDARY, "大", "阪", RUN_BOUNDARY, "tower"]
    );
    assert_eq!(
        (tokens[2].1, tokens[2].2),
        (9, 9),
        "zero-width, at the next token"
    );
    let trailing = Tokenizer::new(cjk).tokens("tower 東京。".as_bytes());
    assert_eq!(trailing.last().unwrap().0, "京");
}

#[test]
fn thai_runs_use_grapheme_clusters() {
    assert_tokens(&["cjk", "1"], "ที่นี่", &[("ที่", "ที่"), ("นี่", "นี่")]);
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
fn cjk_runs_are_split_from_latin_and_punctuation() {
    assert_tokens(
        &["cjk", "1"],
        "用Rust写。OK",
        &[
            ("用", "用"),
            (RUN_BOUNDARY, ""),
            ("rust", "Rust"),
            ("写", "写"),
            (RUN_BOUNDARY, ""),
            ("ok", "OK"),
        ],
    );
}

#[test]
fn halfwidth_katakana_with_voicing_folds_to_fullwidth() {
    assert_tokens(&["cjk", "1"], "ｶﾞ", &[("ガ", "ｶﾞ")]);
}

#[test]
fn invalid_utf8_separates_tokens_and_keeps_valid_pieces() {
    let text = b"caf\xC3\xA9\xFFworld \xE6\x9D\xB1\xE4";
    let tokens = Tokenizer::new(Options::default()).tokens(text);
    let actual: Vec<_> = tokens
        .iter()
        .map(|(t, s, e)| (t.as_str(), *s, *e))
        .collect();
    assert_eq!(actual, [("cafe", 0, 5), ("world", 6, 11), ("東", 12, 15)]);
}

#[test]
fn empty_and_separator_only_input_gives_no_tokens() {
    for text in ["", " ", "...", "\u{3000}。、", "🙂🙂"] {
        assert!(
            Tokenizer::default().tokens(text.as_bytes()).is_empty(),
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
        markers: false,
        ..Options::default()
    })
    .tokens(long.as_bytes());
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
    let result = Tokenizer::default().tokenize(b"a b c d", &mut |_| {
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
            let tokens = Tokenizer::new(Options { cjk, ..Options::default() }).tokens(&bytes);
            let mut last_start = 0;
            for (i, (text, start, end)) in tokens.iter().enumerate() {
                prop_assert!(*end <= bytes.len());
                if text == RUN_BOUNDARY {
                    prop_assert!(start == end && i > 0 && i + 1 < tokens.len());
                } else {
                    prop_assert!(start < end);
                }
                prop_assert!(*start >= last_start);
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

#[test]
fn variation_selector_inside_a_run_keeps_it_whole() {
    assert_tokens(
        &["cjk", "1"],
        "葛\u{E0100}飾区",
        &[("葛", "葛\u{E0100}"), ("飾", "飾"), ("区", "区")],
    );
}

#[test]
fn the_redaction_marker_is_never_a_token() {
    assert_tokens(
        &["cjk", "1"],
        "key [REDACTED] redacted 東京[REDACTED]大阪",
        &[
            ("key", "key"),
            ("redacted", "redacted"),
            ("東", "東"),
            ("京", "京"),
            (RUN_BOUNDARY, ""),
            ("大", "大"),
            ("阪", "阪"),
        ],
    );
}
