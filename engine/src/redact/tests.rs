use super::*;

fn redact(text: &str) -> String {
    Redactor::new::<&str>(&[])
        .unwrap()
        .redact(text)
        .into_owned()
}

#[test]
fn token_shapes_are_replaced_whole() {
    assert_eq!(
        redact("use sk-proj-AbCdEf0123456789XyZ0123 now"),
        "use [REDACTED] now"
    );
    assert_eq!(redact("AKIAIOSFODNN7EXAMPLE ok"), "[REDACTED] ok");
}

#[test]
fn a_shape_must_start_a_word() {
    assert_eq!(
        redact("task-management-system-for-everyone"),
        "task-management-system-for-everyone"
    );
    assert_eq!(redact("monkey=banana"), "monkey=banana");
}

#[test]
fn assignments_keep_their_name() {
    assert_eq!(redact("PASSWORD=hunter2hunter2"), "PASSWORD=[REDACTED]");
    assert_eq!(
        redact(r#"{"api_key": "abc\"def"}"#),
        r#"{"api_key": "[REDACTED]"}"#
    );
    assert_eq!(
        redact("curl --token abcdefgh123 x"),
        "curl --token [REDACTED] x"
    );
    assert_eq!(
        redact("postgres://admin:s3cretpass@db:5432"),
        "postgres://admin:[REDACTED]@db:5432"
    );
    assert_eq!(redact("DB_PASS=Xq7vLm2p ok"), "DB_PASS=[REDACTED] ok");
    assert_eq!(redact("dbPassword: 'a b c'"), "dbPassword: '[REDACTED]'");
}

#[test]
fn names_that_only_look_like_keywords_are_left_alone() {
    for text in [
        "tokenize = 'sessions cjk 1'",
        "author: Jane Doe",
        "keyboard=us",
        "the passport: blue",
    ] {
        assert_eq!(redact(text), text);
    }
}

#[test]
fn url_passwords_may_hold_slashes_and_at_signs() {
    assert_eq!(
        redact("https://bob:pa/ss@w0rd@git.example.com/repo"),
        "https://bob:[REDACTED]@git.example.com/repo"
    );
}

#[test]
fn passwords_in_prose_and_cjk_labels() {
    assert_eq!(
        redact("my password is Tr0ub4dor&3 ok"),
        "my password is [REDACTED] ok"
    );
    assert_eq!(
        redact("the password is required here"),
        "the password is required here"
    );
    assert_eq!(redact("密码：Xq7vLm2pQ9 请保管"), "密码：[REDACTED] 请保管");
    assert_eq!(
        redact("パスワードはXq7vLm2pQ9です"),
        "パスワードは[REDACTED]です"
    );
}

#[test]
fn a_cjk_label_without_a_separator_takes_only_what_looks_like_a_secret() {
    for text in [
        "ssh 密钥/权限",
        "别名/密钥/端口转发配置",
        "密码 see below",
        "令牌 ~/.config/gh/hosts.yml",
    ] {
        assert_eq!(redact(text), text);
    }
    assert_eq!(redact("密钥 Xq7vLm2pQ9 请保管"), "密钥 [REDACTED] 请保管");
}

#[test]
fn authorization_of_any_scheme_keeps_only_the_scheme() {
    for (text, shown) in [
        ("Authorization: SSWS 00LmRfX3tq9yZp", "Authorization: SSWS [REDACTED]"),
        (
            r#"{"Authorization": "Splunk 4f1c2e9a-77b0-4c1d"}"#,
            r#"{"Authorization": "Splunk [REDACTED]"}"#,
        ),
        (
            r#"Authorization: Digest username="ops", response="6629fae49393a05397450978507c4ef1""#,
            "Authorization: Digest [REDACTED]",
        ),
        (
            "Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7",
            "Authorization: AWS4-HMAC-SHA256 [REDACTED]",
        ),
        (
            "conn.setRequestProperty(\"Authorization\", \"Bot Mz9yNTk0ODU3OTQ1\");",
            "conn.setRequestProperty(\"Authorization\", \"Bot [REDACTED]\");",
        ),
    ] {
        assert_eq!(redact(text), shown);
    }
    for prose in [
        "Authorization: required for every admin route",
        "Authorization, authentication and auditing",
    ] {
        assert_eq!(redact(prose), prose);
    }
}

#[test]
fn random_arguments_of_calls_that_take_credentials_are_secrets() {
    assert_eq!(
        redact(
            "c = Client('AC0123456789abcdef0123456789abcdef', 'f00dfeed0123456789abcdef01234567')"
        ),
        "c = Client('[REDACTED]', '[REDACTED]')"
    );
    assert_eq!(
        redact(r#"db = pymysql.connect("db.internal", "app", "Xq7vLm2pQ9zT4wRs", port=3306)"#),
        r#"db = pymysql.connect("db.internal", "app", "[REDACTED]", port=3306)"#
    );
    // Identifiers in other calls, and places in these, stay searchable.
    for text in [
        "row = getClientById('550e8400-e29b-41d4-a716-446655440000')",
        "client.get_item('550e8400-e29b-41d4-a716-446655440000')",
        "git show 4d8c89b1a2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7",
        "api = Client('https://api.acme.io/v2/orders/12345678')",
        "conn = connect('replica-2.db.internal:5432', 'orders_2024_archive')",
        "load_session('6f1c2a9e-3b4d-4e5f-8a9b-0c1d2e3f4a5b')",
    ] {
        assert_eq!(redact(text), text);
    }
}

#[test]
fn hard_wrapped_tokens_are_followed_to_the_next_line() {
    let text = "key ghp_0123456789abcdefghijABCDEF\nGHIJKLMNOP0123\n\nnext words";
    assert_eq!(redact(text), "key [REDACTED]\n\nnext words");
    let glued = "密钥是ghp_0123456789abcdefghijABCDEFGH请保管好";
    assert_eq!(redact(glued), "密钥是[REDACTED]请保管好");
    let cjk = "鍵は ghp_0123456789abcdefghijABCDEFGH。終わり";
    assert_eq!(redact(cjk), "鍵は [REDACTED]。終わり");
    let narrow = "token ghp_012345678\n  9abcdefghijABCD\n  EFGH done";
    assert_eq!(redact(narrow), "token [REDACTED] done");
    let short_head = "token ghp_\n0123456789abcdefghijABCDEFGHIJ done";
    assert_eq!(redact(short_head), "token [REDACTED] done");
    let every_four = "the key is\nghp_\n0123\n4567\n89ab\ncdef\nghij\nABCD\nEFGH\nIJKL\n done";
    assert_eq!(redact(every_four), "the key is\n[REDACTED]\n done");
}

#[test]
fn a_word_after_a_wrapped_secret_is_not_taken_with_it() {
    let text = "PASSWORD=Xq7vLm2pQ9zz\nand then we moved on";
    assert_eq!(redact(text), "PASSWORD=[REDACTED]\nand then we moved on");
    assert_eq!(redact("the quick\nbrown fox"), "the quick\nbrown fox");
}

#[test]
fn host_patterns_add_to_the_defaults() {
    let redactor = Redactor::new(&[r"ACME-[0-9]{6}", r"pin (?P<secret>\d{4})"]).unwrap();
    assert_eq!(
        redactor.redact("ACME-123456 pin 1234"),
        "[REDACTED] pin [REDACTED]"
    );
    let err = Redactor::new(&["("]).unwrap_err();
    assert!(err.contains("redaction pattern \"(\" is invalid"), "{err}");
}

#[test]
fn settings_of_an_earlier_default_set_index_nothing_and_of_a_later_one_are_refused() {
    let current = Settings::current(vec!["ACME-[0-9]{6}".into()]).to_json();
    assert_eq!(
        Settings::indexing_redactor(&current)
            .unwrap()
            .unwrap()
            .redact("id ACME-123456"),
        "id [REDACTED]"
    );
    let earlier = Settings {
        version: REDACTION_VERSION - 1,
        patterns: vec![],
    };
    assert!(Settings::redactor(&earlier.to_json()).is_ok());
    assert!(Settings::indexing_redactor(&earlier.to_json())
        .unwrap()
        .is_none());
    let later = Settings {
        version: REDACTION_VERSION + 1,
        patterns: vec![],
    };
    assert!(Settings::redactor(&later.to_json()).is_ok());
    let err = Settings::indexing_redactor(&later.to_json()).unwrap_err();
    assert!(err.contains("newer session-search"), "{err}");
}

#[test]
fn overlapping_spans_are_merged() {
    assert_eq!(merge(vec![5..9, 0..3, 2..6, 12..13]), vec![0..9, 12..13]);
}

#[test]
fn joined_offsets_map_back_to_the_original() {
    let text = "ab\n  cd\r\nef gh";
    let view = View::joined(text);
    assert_eq!(view.text, "abcdef gh");
    assert_eq!(view.original(0..6), 0..11);
    assert_eq!(&text[view.original(2..4)], "cd");
}

#[test]
fn the_last_chunk_of_a_hard_wrapped_secret_is_kept_with_it() {
    let text = "key ghp_\nABCD\nEFGH\nIJKL\nMNOP\nQRST\nUVWX\nYZ01\n2345\nbcdf done";
    assert_eq!(redact(text), "key [REDACTED] done");
}

#[test]
fn more_command_lines_and_forms() {
    for (text, expected) in [
        (
            "redis-cli -h cache -a Xq7vLm2pQ9zz ping",
            "redis-cli -h cache -a [REDACTED] ping",
        ),
        (
            "sqlcmd -S db -U sa -P 'Xq7v Lm2p' -Q x",
            "sqlcmd -S db -U sa -P '[REDACTED]' -Q x",
        ),
        (
            r#"<add key="ClearTextPassword" value="Xq7vLm2pQ9zz" />"#,
            r#"<add key="ClearTextPassword" value="[REDACTED]" />"#,
        ),
        (
            r#"{\"SecretAccessKey\": \"Xq7vLm2p/Q9zz+abc\"}"#,
            r#"{\"SecretAccessKey\": \"[REDACTED]\"}"#,
        ),
        (
            "the root passphrase is now Xq7vLm2pQ9zz.",
            "the root passphrase is now [REDACTED]",
        ),
        (
            "DB_PASS=Xq7vLm2p，然后重启了服务。",
            "DB_PASS=[REDACTED]，然后重启了服务。",
        ),
        (
            "the password for staging is:\n  Xq7vLm2pQ9zz",
            "the password for staging is:\n  [REDACTED]",
        ),
        (
            "--user bob:Hk29xLq8 first, then (-u eve:Pq81zZk, twice)",
            "--user bob:[REDACTED] first, then (-u eve:[REDACTED], twice)",
        ),
        (
            "menu-u bob:Hk29xLq8 is a label",
            "menu-u bob:Hk29xLq8 is a label",
        ),
        (
            "lines db-1.internal:5432:app:ops:Xq7vLm2p and *:*:*:pg:Hk29xLq8 end",
            "lines db-1.internal:5432:app:ops:[REDACTED] and *:*:*:pg:[REDACTED] end",
        ),
        (
            "no host :5432:app:ops:Xq7vLm2p, nor (:5432:app:ops:Xq7vLm2p)",
            "no host :5432:app:ops:Xq7vLm2p, nor (:5432:app:ops:Xq7vLm2p)",
        ),
        (
            "echo ok && docker push x && helm repo add --password Xq7vLm2p r",
            "echo ok && docker push x && helm repo add --password [REDACTED] r",
        ),
        ("spin is fast", "spin is fast"),
    ] {
        assert_eq!(redact(text), expected, "{text}");
    }
}

#[test]
fn a_secret_ending_a_line_continues_on_the_joined_lines() {
    assert_eq!(
        redact("machine x.io\n  login ops\n  password k6ex\nEB%D\n547v\nrFJh\nGX ok"),
        "machine x.io\n  login ops\n  password [REDACTED] ok"
    );
    assert_eq!(
        redact("access_key = V6T3\nG1WW\nsecret_key = rSn0\nujet\nkdOJ end"),
        "access_key = [REDACTED] = [REDACTED] end"
    );
}

#[test]
fn leading_underscores_and_cookies() {
    assert_eq!(
        redact("//registry.npmjs.org/:_authToken=Xq7vLm2pQ9zzKk"),
        "//registry.npmjs.org/:_authToken=[REDACTED]"
    );
    assert_eq!(
        redact("Cookie: sid=Xq7vLm2pQ9; theme=dark\nnext"),
        "Cookie: [REDACTED]\nnext"
    );
    assert_eq!(
        redact("use lin_api_0123456789abcdefghijABCDEFGHIJklmnopqr now"),
        "use [REDACTED] now"
    );
}

#[test]
fn a_value_ending_a_line_leaves_the_next_secret_to_be_found() {
    assert_eq!(
        redact("DB_PASS=f~TfCXrHCOKyzq4L6N\nJWT_SECRET=\"qrX9LAqnUQohGOBv8s7Fp6vAwtB4cRbMf\nCcrMA5ZAYj5ibNM\" done"),
        "DB_PASS=[REDACTED]\"[REDACTED]\" done"
    );
    assert_eq!(
        redact("Private-MAC: e378d62c0a36a9ae92ee0e3b36a905a6df98decfa58a0cfbf992e9eb3935aede\nbiba lemi"),
        "Private-MAC: [REDACTED]\nbiba lemi"
    );
}

/// The secrets of every default pattern in `text`, without the prefilter.
fn scanned_by_every_default(text: &str) -> Vec<Range<usize>> {
    let view = View::plain(text);
    let mut spans = Vec::new();
    for pattern in &defaults().0 {
        pattern.scan(&view, &mut spans);
    }
    merge(spans)
}

/// Texts of pieces of secrets of every family, glued at random.
fn glued_pieces() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::strategy::Strategy;
    proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..24)
        .prop_map(|pieces| pieces.concat())
}

/// What [`glued_pieces`] glues.
const PIECES: &[&str] = &[
    "ghp_",
    "sk-",
    "sk_live_",
    "xoxb-",
    "AKIA",
    "AIza",
    "eyJ",
    "hf_",
    "glpat-",
    "SG.",
    "Bearer",
    "AUTHORIZATION",
    "Cookie",
    "Set-Cookie",
    "password",
    "PassWord",
    "secret",
    "token",
    "api_key",
    "DB_PASS",
    "key",
    "Key",
    "\u{212A}ey",
    "\u{17F}ecret",
    "://",
    "user:",
    "@host",
    "=",
    ":",
    ": ",
    "\"",
    "'",
    "\\\"",
    " ",
    "\n",
    "\n  ",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "mysql -u root -p",
    "--password",
    "-u",
    "sig=",
    "?",
    "&",
    "Private-Lines: 2",
    "Private-MAC: ",
    "密码",
    "是",
    "パスワード",
    "<password>",
    "</",
    "login x password ",
    "0123456789",
    "abcdefghijklmnop",
    "ABCDEFGHIJKLMNOP",
    "Zx9Qw8Er7Ty6Ui5Op4",
    "host:5432:db:user:",
    "123456789:AA",
    "MTIzNDU2Nzg5MDEyMzQ1Njc4",
    ".abcdef.",
    "atlasv1",
    "the",
    "is",
    "now",
];

proptest::proptest! {
    /// The prefilter never changes what the patterns find.
    #[test]
    fn the_prefilter_never_changes_what_is_found(text in glued_pieces()) {
        let redactor = Redactor::new::<&str>(&[]).unwrap();
        let work = Work::new(View::plain(&text), &redactor);
        let mut spans = Vec::new();
        work.help(&mut spans);
        proptest::prop_assert_eq!(merge(spans), scanned_by_every_default(&text), "{:?}", text);
    }

    /// Two threads sharing the patterns of the text and of its joined view
    /// find what one thread finds, host patterns included.
    #[test]
    fn two_threads_find_what_one_finds(text in glued_pieces()) {
        let redactor = Redactor::new(&["(?i:the)[ \\n]+is"]).unwrap();
        proptest::prop_assert_eq!(
            redactor.secret_spans_on(&text, true),
            redactor.secret_spans_on(&text, false),
            "{:?}", text
        );
    }
}

#[test]
fn nearly_every_default_pattern_is_prefiltered() {
    let always = DEFAULT_SHAPES
        .iter()
        .filter(|shape| {
            Prefilter::new([shape.pattern])
                .candidates("")
                .iter()
                .all(|&may| may)
        })
        .count();
    assert!(
        always * 10 < DEFAULT_SHAPES.len(),
        "{always} of {}",
        DEFAULT_SHAPES.len()
    );
}

/// Every match of a default pattern in the real transcripts, and in
/// texts of pieces of secrets, holds one of the literals the prefilter
/// looks for in its place.
#[test]
fn every_match_holds_a_literal_the_prefilter_looks_for() {
    let mut texts = fixture_strings();
    texts.push(PIECES.concat());
    texts.push(PIECES.join(" "));
    texts.push(PIECES.iter().rev().copied().collect::<Vec<_>>().join("\n"));
    let mut checked = 0;
    for shape in DEFAULT_SHAPES {
        let Some(literals) = prefilter::required_literals(shape.pattern) else {
            continue;
        };
        let regex = regex::Regex::new(shape.pattern).unwrap();
        for text in &texts {
            for found in regex.find_iter(text) {
                let lowered = found.as_str().as_bytes().to_ascii_lowercase();
                assert!(
                    literals
                        .iter()
                        .any(|l| lowered.windows(l.len()).any(|w| w == l.as_slice())),
                    "{:?} found {:?}",
                    shape.pattern,
                    found.as_str()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked} matches");
}

/// Every string of the real transcripts beside the repository
/// (`../shared/fixtures`): the string values of JSON and JSON Lines
/// files, other files whole.
fn fixture_strings() -> Vec<String> {
    fn strings(value: serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::String(text) => out.push(text),
            serde_json::Value::Array(values) => values.into_iter().for_each(|v| strings(v, out)),
            serde_json::Value::Object(fields) => {
                fields.into_iter().for_each(|(_, v)| strings(v, out))
            }
            _ => {}
        }
    }
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/fixtures");
    let mut folders = vec![std::path::PathBuf::from(root)];
    let mut out = Vec::new();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            if let Ok(value) = serde_json::from_str(&text) {
                strings(value, &mut out);
                continue;
            }
            let lines: Vec<serde_json::Value> = text
                .lines()
                .filter_map(|line| serde_json::from_str(line).ok())
                .collect();
            if lines.is_empty() {
                out.push(text);
            }
            lines.into_iter().for_each(|v| strings(v, &mut out));
        }
    }
    out
}

/// The rules that find a secret by the words around it, not by its shape,
/// take nothing from the real transcripts, which hold no secret stated in
/// prose, labelled in CJK or passed by position. (Before these rules
/// looked at what they took, the prose and CJK label rules took 71 values
/// there, every one a word, code or a path: `the token is included`,
/// `password: str`, `密钥/权限`.)
#[test]
fn the_rules_by_context_take_nothing_from_the_real_transcripts() {
    let texts = fixture_strings();
    assert!(texts.iter().map(String::len).sum::<usize>() > 5_000_000);
    let by_context = ["prose", "keyword nearby", "credential arguments"];
    let mut taken = Vec::new();
    for shape in DEFAULT_SHAPES
        .iter()
        .filter(|s| by_context.contains(&s.family))
    {
        let compiled = Compiled::new(shape.pattern, shape.start, shape.check).unwrap();
        for text in &texts {
            let mut spans = Vec::new();
            compiled.scan(&View::plain(text), &mut spans);
            taken.extend(
                spans
                    .into_iter()
                    .map(|span| (shape.family, text[span].to_owned())),
            );
        }
    }
    assert!(taken.is_empty(), "taken: {taken:?}");
}
