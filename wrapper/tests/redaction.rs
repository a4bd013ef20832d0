//! Redaction of secrets in search excerpts and history (SPEC §4, §5).
//!
//! A corpus of realistic secret shapes (values generated from a fixed seed,
//! so no live-looking secret is written into the repository) is embedded in
//! transcripts in seven placements:
//!
//! - `prose`: inside an ordinary sentence;
//! - `boundary`: before or after the searched word at distances and
//!   `snippetChars` values that put the excerpt's edge inside the secret;
//! - `wrapped`: the value hard-wrapped every 20–40 characters;
//! - `wrapped-crlf-indented`: the same with `\r\n` and indented lines;
//! - `adjacent`: in backticks, parentheses, quotes, after a colon or emoji;
//! - `cjk-adjacent`: glued to Chinese or Japanese text with no space;
//! - `split`: name and value on separate lines (`Authorization:\n  Bearer …`).
//!
//! Neither `sessions_search` nor `sessions_history` may show the secret or
//! any 8 characters of its value, and a search whose only match is inside a
//! secret must not return the message.

mod common;

use common::*;
use session_search::{Error, HistoryOptions, MessageRef, Role, SearchOptions, Store};
use std::collections::BTreeMap;

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdef";
const BECH32: &str = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";

fn alnum() -> String {
    format!("{UPPER}{}{DIGITS}", UPPER.to_lowercase())
}
fn b64url() -> String {
    alnum() + "-_"
}
fn b64() -> String {
    alnum() + "+/"
}
fn upper_alnum() -> String {
    format!("{UPPER}{DIGITS}")
}

/// One secret as it appears in a transcript.
#[derive(Debug, Clone)]
struct Shape {
    name: &'static str,
    /// The secret as written, e.g. `PASSWORD=…`.
    text: String,
    /// What must never be shown (the part after `PASSWORD=`, a PEM body).
    value: String,
    /// The same secret with name and value on separate lines, for shapes
    /// that have a name.
    split: Option<String>,
}

fn bare(name: &'static str, value: String) -> Shape {
    Shape {
        name,
        text: value.clone(),
        value,
        split: None,
    }
}

/// A shape `template` with `{}` standing for the value, and optionally the
/// name and value on separate lines.
fn named(name: &'static str, template: &str, value: String, split: Option<&str>) -> Shape {
    Shape {
        name,
        text: template.replace("{}", &value),
        split: split.map(|s| s.replace("{}", &value)),
        value,
    }
}

fn pem(r: &mut Rng, kind: &str, line: usize, lines: usize) -> (String, String) {
    let mut body: Vec<String> = (0..lines).map(|_| r.string(&b64(), line)).collect();
    body.push(r.string(&b64(), line / 3) + "==");
    let body = body.join("\n");
    let text = format!("-----BEGIN {kind}-----\n{body}\n-----END {kind}-----");
    (text, body)
}

fn digits(r: &mut Rng, n: usize) -> String {
    format!("{}{}", 1 + r.below(9), r.string(DIGITS, n - 1))
}

/// The corpus: every documented default shape, and realistic variants of
/// them (a Telegram token inside its bot URL, a password-only Redis URL, a
/// Python dict, a `.netrc` line, a shell line continuation).
fn shapes() -> Vec<Shape> {
    let r = &mut Rng(0x0005_eed0_f5ec_2e75);
    let (alnum, b64url, b64, upper_alnum) = (alnum(), b64url(), b64(), upper_alnum());
    let mut v = vec![
        bare("openai sk-", format!("sk-{}", r.string(&alnum, 48))),
        bare(
            "openai sk-proj-",
            format!("sk-proj-{}", r.string(&b64url, 120)),
        ),
        bare(
            "openai sk-svcacct-",
            format!("sk-svcacct-{}", r.string(&b64url, 100)),
        ),
        bare(
            "anthropic sk-ant-api03-",
            format!("sk-ant-api03-{}AA", r.string(&b64url, 93)),
        ),
        bare(
            "anthropic sk-ant-admin01-",
            format!("sk-ant-admin01-{}AA", r.string(&b64url, 93)),
        ),
        bare("github ghp_", format!("ghp_{}", r.string(&alnum, 36))),
        bare("github gho_", format!("gho_{}", r.string(&alnum, 36))),
        bare("github ghs_", format!("ghs_{}", r.string(&alnum, 36))),
        bare("github ghu_", format!("ghu_{}", r.string(&alnum, 36))),
        bare(
            "github github_pat_",
            format!(
                "github_pat_11{}_{}",
                r.string(&upper_alnum, 20),
                r.string(&alnum, 59)
            ),
        ),
        bare("gitlab glpat-", format!("glpat-{}", r.string(&b64url, 20))),
        bare(
            "slack xoxb-",
            format!(
                "xoxb-{}-{}-{}",
                digits(r, 12),
                digits(r, 13),
                r.string(&alnum, 24)
            ),
        ),
        bare(
            "slack xoxp-",
            format!(
                "xoxp-{}-{}-{}-{}",
                digits(r, 12),
                digits(r, 12),
                digits(r, 13),
                r.string(HEX, 32)
            ),
        ),
    ];
    let hook = format!(
        "T{}/B{}/{}",
        r.string(&upper_alnum, 8),
        r.string(&upper_alnum, 10),
        r.string(&alnum, 24)
    );
    v.push(named(
        "slack webhook",
        "https://hooks.slack.com/services/{}",
        hook,
        None,
    ));
    v.push(bare(
        "aws AKIA key id",
        format!("AKIA{}", r.string(&upper_alnum, 16)),
    ));
    v.push(bare(
        "aws ASIA key id",
        format!("ASIA{}", r.string(&upper_alnum, 16)),
    ));
    v.push(named(
        "aws secret key assignment",
        "aws_secret_access_key = {}",
        r.string(&b64, 40),
        Some("aws_secret_access_key =\n    {}"),
    ));
    v.push(named(
        "aws secret key env quoted",
        "export AWS_SECRET_ACCESS_KEY=\"{}\"",
        r.string(&b64, 40),
        None,
    ));
    v.push(bare(
        "google AIza",
        format!("AIza{}", r.string(&b64url, 35)),
    ));
    v.push(bare(
        "google ya29.",
        format!("ya29.{}", r.string(&b64url, 120)),
    ));
    v.push(bare(
        "huggingface hf_",
        format!("hf_{}", r.string(&alnum, 34)),
    ));
    v.push(bare(
        "stripe sk_live_",
        format!("sk_live_{}", r.string(&alnum, 99)),
    ));
    v.push(bare(
        "stripe rk_live_",
        format!("rk_live_{}", r.string(&alnum, 40)),
    ));
    v.push(bare("npm npm_", format!("npm_{}", r.string(&alnum, 36))));
    v.push(bare(
        "pypi pypi-",
        format!("pypi-AgEIcHlwaS5vcmc{}", r.string(&b64url, 140)),
    ));
    v.push(bare(
        "sendgrid SG.",
        format!("SG.{}.{}", r.string(&b64url, 22), r.string(&b64url, 43)),
    ));
    v.push(bare(
        "digitalocean dop_v1_",
        format!("dop_v1_{}", r.string(HEX, 64)),
    ));
    v.push(bare(
        "databricks dapi",
        format!("dapi{}", r.string(HEX, 32)),
    ));
    v.push(bare(
        "shopify shpat_",
        format!("shpat_{}", r.string(HEX, 32)),
    ));
    let telegram = format!("{}:AA{}", digits(r, 10), r.string(&b64url, 33));
    v.push(bare("telegram bot token", telegram));
    let telegram = format!("{}:AA{}", digits(r, 10), r.string(&b64url, 33));
    v.push(named(
        "telegram bot token in bot URL",
        "https://api.telegram.org/bot{}/sendMessage",
        telegram,
        None,
    ));
    v.push(bare(
        "discord bot token",
        format!(
            "M{}.{}.{}",
            r.string(&alnum, 25),
            r.string(&b64url, 6),
            r.string(&b64url, 38)
        ),
    ));
    v.push(bare(
        "age secret key",
        format!("AGE-SECRET-KEY-1{}", r.string(BECH32, 58)),
    ));
    v.push(bare(
        "jwt",
        format!(
            "eyJ{}.eyJ{}.{}",
            r.string(&b64url, 33),
            r.string(&b64url, 90),
            r.string(&b64url, 43)
        ),
    ));
    for (name, kind, line, lines) in [
        ("pem rsa", "RSA PRIVATE KEY", 64, 12),
        ("pem ec", "EC PRIVATE KEY", 64, 3),
        ("pem openssh", "OPENSSH PRIVATE KEY", 70, 7),
        ("pem pkcs8", "PRIVATE KEY", 64, 10),
        ("pem encrypted pkcs8", "ENCRYPTED PRIVATE KEY", 64, 8),
    ] {
        let (text, value) = pem(r, kind, line, lines);
        v.push(Shape {
            name,
            text,
            value,
            split: None,
        });
    }
    v.extend([
        named(
            "authorization bearer",
            "Authorization: Bearer {}",
            r.string(&b64url, 48),
            Some("Authorization:\n  Bearer {}"),
        ),
        named(
            "authorization basic",
            "Authorization: Basic {}",
            r.string(&b64, 38) + "=",
            Some("Authorization:\n  Basic {}"),
        ),
        named(
            "authorization token",
            "Authorization: token {}",
            r.string(HEX, 40),
            Some("Authorization:\n  token {}"),
        ),
        named(
            "curl bearer header",
            "curl -H \"Authorization: Bearer {}\" https://api.example.com/v1/jobs",
            r.string(&b64url, 40),
            None,
        ),
        named(
            "PASSWORD= assignment",
            "PASSWORD={}",
            r.string(&(alnum.clone() + "!@#%^&*"), 18),
            None,
        ),
        named(
            "DB_PASSWORD: yaml",
            "DB_PASSWORD: {}",
            r.string(&alnum, 20),
            Some("DB_PASSWORD:\n  {}"),
        ),
        named(
            "export GITHUB_TOKEN=",
            "export GITHUB_TOKEN={}",
            format!("ghp_{}", r.string(&alnum, 36)),
            None,
        ),
        named(
            "export SERVICE_API_TOKEN=",
            "export SERVICE_API_TOKEN={}",
            r.string(HEX, 40),
            None,
        ),
        named(
            "api_key: yaml",
            "api_key: {}",
            r.string(&alnum, 32),
            Some("api_key:\n  {}"),
        ),
        named(
            "X-Api-Key header",
            "X-Api-Key: {}",
            r.string(&alnum, 32),
            None,
        ),
        named(
            "azure AccountKey",
            "DefaultEndpointsProtocol=https;AccountName=prodstore;AccountKey={};EndpointSuffix=core.windows.net",
            r.string(&b64, 86) + "==",
            None,
        ),
        named(
            "postgres URL password",
            "postgres://deploy:{}@db.internal:5432/app",
            r.string(&alnum, 24),
            None,
        ),
        named(
            "mongodb+srv URL password",
            "mongodb+srv://admin:{}@cluster0.ab1cd.mongodb.net/prod",
            r.string(&alnum, 24),
            None,
        ),
        named(
            "https URL password",
            "https://bob:{}@git.example.com/team/repo.git",
            r.string(&alnum, 20),
            None,
        ),
        named(
            "redis URL password only",
            "redis://:{}@cache.internal:6379/0",
            r.string(&alnum, 24),
            None,
        ),
        named(
            "json password",
            r#"{"user": "deploy", "password": "{}"}"#,
            r.string(&(alnum.clone() + "!#%&*"), 20),
            Some("{\n  \"user\": \"deploy\",\n  \"password\":\n    \"{}\"\n}"),
        ),
        named(
            "json api_key",
            r#"{"api_key": "{}", "region": "eu-west-1"}"#,
            r.string(&alnum, 32),
            Some("{\n  \"api_key\":\n    \"{}\"\n}"),
        ),
        named(
            "json client_secret",
            r#"{"client_id": "web", "client_secret": "{}"}"#,
            r.string(&b64url, 40),
            None,
        ),
        named(
            "json access_token",
            r#"{"access_token":"{}","token_type":"bearer","expires_in":3600}"#,
            r.string(&b64url, 64),
            None,
        ),
        named(
            "--token flag",
            "vault login --token {} -address=https://vault.internal",
            format!("hvs.{}", r.string(&b64url, 90)),
            Some("vault login \\\n  --token \\\n  {}"),
        ),
        named(
            "--password= flag",
            "mysql -u root --password={} -h db.internal",
            r.string(&alnum, 20),
            None,
        ),
        named(
            "--api-key flag",
            "deployctl push --api-key {} --env prod",
            r.string(&alnum, 32),
            None,
        ),
        named(
            "python dict password",
            "config = {'user': 'deploy', 'password': '{}'}",
            r.string(&alnum, 20),
            None,
        ),
        named(
            "netrc password",
            "machine api.example.com login deploy password {}",
            r.string(&alnum, 24),
            None,
        ),
    ]);
    v
}

/// The first 8-character piece of `value` (within one of its white-space
/// separated parts) that `output` shows.
fn leaked(value: &str, output: &str) -> Option<String> {
    value.split_whitespace().find_map(|piece| {
        let chars: Vec<char> = piece.chars().collect();
        chars
            .windows(8)
            .map(|w| w.iter().collect::<String>())
            .find(|w| output.contains(w.as_str()))
    })
}

/// `value` without line breaks, cut into lines of `width` characters.
fn wrap(value: &str, width: usize) -> String {
    let chars: Vec<char> = value.chars().filter(|c| !c.is_whitespace()).collect();
    chars
        .chunks(width)
        .map(|c| c.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Filler prose of about `len` characters that shares no word with the
/// corpus or the searched words.
fn filler(len: usize) -> String {
    let words = "the build ran again and we moved on to the next step ";
    words.repeat(len / words.len() + 1)[..len].to_owned()
}

/// One message of the corpus and how to search for it.
struct Case {
    shape: usize,
    placement: &'static str,
    /// What the placement varies (`after 40`, `width 27`), for reports.
    detail: String,
    word: String,
    id: i64,
    /// `snippetChars` values to search with.
    snippet_chars: Vec<i64>,
    /// `maxChars` values to read history with.
    max_chars: Vec<i64>,
    /// Search for the value's words too: they must not find this message.
    search_value: bool,
}

const KEY: &str = "agent:main:secrets";

struct Corpus {
    store: Store,
    shapes: Vec<Shape>,
    cases: Vec<Case>,
}

/// The corpus in the placements `placements`.
fn corpus(placements: &[&str]) -> Corpus {
    let store = store();
    session(&store, KEY, "main", None);
    let shapes = shapes();
    let mut cases = Vec::new();
    let mut n = 0;
    let mut add = |cases: &mut Vec<Case>,
                   shape: usize,
                   placement: &'static str,
                   detail: String,
                   text: &dyn Fn(&str) -> String,
                   snippet_chars: Vec<i64>,
                   max_chars: Vec<i64>,
                   search_value: bool| {
        if !placements.contains(&placement) {
            return;
        }
        let word = unique_word(n);
        n += 1;
        let text = text(&word);
        let id = say(&store, KEY, Role::Assistant, &text, 1_000 + n as i64);
        cases.push(Case {
            shape,
            placement,
            detail,
            word,
            id,
            snippet_chars,
            max_chars,
            search_value,
        });
    };
    // snippetChars values that put an excerpt's edge between `lo` and `hi`
    // characters from the word (excerpts keep about a third of their
    // budget before the match and two thirds after it).
    let crossing = |lo: usize, hi: usize| -> Vec<i64> {
        (8..=300)
            .step_by(5)
            .filter(|&m| m >= lo && m <= hi)
            .map(|m| m as i64)
            .collect()
    };
    for (i, shape) in shapes.iter().enumerate() {
        let secret = &shape.text;
        add(
            &mut cases,
            i,
            "prose",
            String::new(),
            &|w| format!("Earlier today {w} I set {secret} for the deploy pipeline and it worked."),
            vec![300, 120, 40],
            vec![20000],
            true,
        );
        let offset = |text: &str| text.find(secret.as_str()).unwrap() as i64;
        let len = secret.chars().count();
        for gap in [0, 40] {
            let after = |w: &str| {
                format!(
                    "{} {w} {} {secret} {}",
                    filler(200),
                    filler(gap),
                    filler(200)
                )
            };
            let at = offset(&after("x"));
            add(
                &mut cases,
                i,
                "boundary",
                format!("secret {gap} after the word"),
                &after,
                crossing(gap, 2 * (gap + len) + 12),
                vec![at, at + 4, at + 9, at + 20],
                false,
            );
            let before = |w: &str| {
                format!(
                    "{} {secret} {} {w} {}",
                    filler(200),
                    filler(gap),
                    filler(200)
                )
            };
            let at = offset(&before("x"));
            add(
                &mut cases,
                i,
                "boundary",
                format!("secret {gap} before the word"),
                &before,
                crossing(2 * gap, 3 * (gap + len) + 12),
                vec![at + 1, at + 9, at + 20],
                false,
            );
        }
        for width in [20, 24, 27, 32, 36, 40] {
            let wrapped = shape
                .text
                .replacen(&shape.value, &wrap(&shape.value, width), 1);
            add(
                &mut cases,
                i,
                "wrapped",
                format!("width {width}"),
                &|w| format!("{w} the value was\n{wrapped}\nand then we moved on."),
                vec![300, 60],
                vec![20000],
                true,
            );
        }
        for width in [20, 33] {
            // Windows line ends and an indented continuation, as in a
            // quoted e-mail or a YAML block.
            let chunks = wrap(&shape.value, width).replace('\n', "\r\n    ");
            let wrapped = shape.text.replacen(&shape.value, &chunks, 1);
            add(
                &mut cases,
                i,
                "wrapped-crlf-indented",
                format!("width {width}"),
                &|w| format!("{w} the value was\r\n    {wrapped}\r\nand then we moved on."),
                vec![300, 60],
                vec![20000],
                true,
            );
        }
        for (how, before, after) in [
            ("in backticks", "`", "`"),
            ("in parentheses", "(", ")."),
            ("in single quotes", "'", "'"),
            ("after a colon", "key:", ","),
            ("between CJK words", "密钥是", "请保管好"),
            ("between Japanese words", "トークンは", "です"),
            ("after an emoji", "🔑", "✅"),
            ("between CJK words", "密钥是", "请保管好"),
            ("between Japanese words", "トークンは", "です"),
        ] {
            let text = format!("{before}{secret}{after}");
            let placement = if how.contains("CJK") || how.contains("Japanese") {
                "cjk-adjacent"
            } else {
                "adjacent"
            };
            add(
                &mut cases,
                i,
                placement,
                how.to_owned(),
                &|w| format!("{w} note {text} done"),
                vec![300, 50],
                vec![20000],
                true,
            );
        }
        if let Some(split) = &shape.split {
            add(
                &mut cases,
                i,
                "split",
                String::new(),
                &|w| format!("{w} the settings were\n{split}\nand then we moved on."),
                vec![300, 60],
                vec![20000],
                true,
            );
        }
    }
    Corpus {
        store,
        shapes,
        cases,
    }
}

/// Every way `case` leaks, as report lines.
fn leaks(corpus: &Corpus, case: &Case) -> Vec<String> {
    let shape = &corpus.shapes[case.shape];
    let mut found = Vec::new();
    let mut report = |how: String, output: &str, piece: String| {
        found.push(format!(
            "{} / {} {}: {how} shows {piece:?} in {output:?}",
            shape.name, case.placement, case.detail
        ));
    };
    for &chars in &case.snippet_chars {
        let response = search(
            &corpus.store,
            &case.word,
            &SearchOptions {
                snippet_chars: Some(chars),
                ..options(KEY)
            },
        );
        let hit = response.results.iter().find(|h| h.id == case.id);
        let Some(hit) = hit else {
            report(
                format!("search {:?} (snippetChars {chars})", case.word),
                "no hit",
                "no hit for a word outside the secret".into(),
            );
            continue;
        };
        if let Some(piece) = leaked(&shape.value, &hit.snippet) {
            report(format!("snippetChars {chars}"), &hit.snippet, piece);
        }
    }
    for &chars in &case.max_chars {
        let window = history(
            &corpus.store,
            KEY,
            &HistoryOptions {
                around: Some(MessageRef::Id(case.id)),
                before: Some(0),
                after: Some(0),
                max_chars: Some(chars),
                ..history_options(KEY)
            },
        );
        let text = &window.messages[0].text;
        if let Some(piece) = leaked(&shape.value, text) {
            report(format!("history maxChars {chars}"), text, piece);
        }
    }
    if case.search_value {
        let mut queries = vec![shape.value.clone()];
        queries.extend(
            shape
                .value
                .split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| w.len() >= 6)
                .take(3)
                .map(str::to_owned),
        );
        for query in queries {
            let response = search(&corpus.store, &query, &options(KEY));
            if let Some(hit) = response.results.iter().find(|h| h.id == case.id) {
                report(
                    format!("searching for the secret ({query:?})"),
                    &hit.snippet,
                    "a hit".into(),
                );
            }
        }
    }
    found
}

/// Runs every case and returns the leaks: first the leaking
/// `(shape, placement)` pairs, then every leak.
fn run(corpus: &Corpus) -> Vec<String> {
    let mut pairs = std::collections::BTreeSet::new();
    let mut all = Vec::new();
    for case in &corpus.cases {
        let name = corpus.shapes[case.shape].name;
        let found = leaks(corpus, case);
        if !found.is_empty() {
            pairs.insert(format!("(\"{name}\", \"{}\"),", case.placement));
        }
        all.extend(found);
    }
    pairs.into_iter().chain(all).collect()
}

const PLACEMENTS: [&str; 7] = [
    "prose",
    "cjk-adjacent",
    "boundary",
    "wrapped",
    "wrapped-crlf-indented",
    "adjacent",
    "split",
];

#[test]
fn the_corpus_has_forty_shapes_and_every_placement() {
    let corpus = corpus(&PLACEMENTS);
    assert!(corpus.shapes.len() >= 40, "{}", corpus.shapes.len());
    let mut per_placement: BTreeMap<&str, usize> = BTreeMap::new();
    for case in &corpus.cases {
        *per_placement.entry(case.placement).or_default() += 1;
    }
    assert_eq!(
        per_placement.keys().copied().collect::<Vec<_>>(),
        [
            "adjacent",
            "boundary",
            "cjk-adjacent",
            "prose",
            "split",
            "wrapped",
            "wrapped-crlf-indented"
        ]
    );
    // Each value really is a secret the check would notice when shown.
    for shape in &corpus.shapes {
        assert!(shape.text.contains(&shape.value), "{}", shape.name);
        assert!(
            leaked(&shape.value, &shape.text).is_some(),
            "{}",
            shape.name
        );
    }
}

/// Fails with every leak of `placement`.
fn assert_no_leaks(placement: &str) {
    let corpus = corpus(&[placement]);
    let found = run(&corpus);
    assert!(
        found.is_empty(),
        "{} leaks:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn no_secret_leaks_from_prose() {
    assert_no_leaks("prose");
}

#[test]
fn no_secret_leaks_when_the_excerpt_edge_falls_inside_the_secret() {
    assert_no_leaks("boundary");
}

#[test]
fn no_secret_leaks_when_the_secret_is_hard_wrapped() {
    assert_no_leaks("wrapped");
}

#[test]
fn no_secret_leaks_when_hard_wrapped_with_crlf_and_indentation() {
    assert_no_leaks("wrapped-crlf-indented");
}

#[test]
fn no_secret_leaks_when_glued_to_punctuation_or_emoji() {
    assert_no_leaks("adjacent");
}

#[test]
fn no_secret_leaks_when_glued_to_cjk_text() {
    assert_no_leaks("cjk-adjacent");
}

#[test]
fn no_secret_leaks_when_name_and_value_are_on_separate_lines() {
    assert_no_leaks("split");
}

#[test]
fn a_secret_at_the_edge_of_the_redaction_window_is_not_shown() {
    // Texts longer than the redaction window are redacted only in a window
    // around the match, and excerpts collapse white space. A key cut by the
    // window's edge must not be seen without its `sk-` prefix (or with a
    // head too short for its pattern) when 64 KiB of spaces collapse to
    // one and bring it next to the match.
    let store = store();
    session(&store, KEY, "main", None);
    let secret = format!("sk-proj-{}", Rng(11).string(&alnum(), 60));
    let mut shown = Vec::new();
    for (name, text) in [
        (
            "before",
            format!(
                "{secret}{}zebra tail",
                " ".repeat(65536 + 10 - secret.len())
            ),
        ),
        (
            "after",
            format!("zebra{}{secret} tail", " ".repeat(65536 - 15)),
        ),
    ] {
        let id = say(&store, KEY, Role::User, &text, 10);
        let response = search(&store, "zebra", &options(KEY));
        let hit = response.results.iter().find(|h| h.id == id).unwrap();
        if leaked(&secret, &hit.snippet).is_some() {
            shown.push(format!("{name}: {:?}", hit.snippet));
        }
        store
            .connection()
            .execute("DELETE FROM messages WHERE id = ?1", [id])
            .unwrap();
    }
    assert!(shown.is_empty(), "{}", shown.join("\n"));
}

#[test]
fn a_token_glued_to_cjk_text_is_redacted() {
    let store = store();
    session(&store, KEY, "main", None);
    let token = format!("ghp_{}", Rng(5).string(&alnum(), 36));
    say(
        &store,
        KEY,
        Role::User,
        &format!("密钥是{token}请保管好"),
        10,
    );
    let snippet = snippet_with(&store, "密钥", None).unwrap();
    assert!(
        snippet.contains("[REDACTED]") && !snippet.contains(&token[4..12]),
        "{snippet}"
    );
    assert_eq!(snippet_with(&store, &token, None), None);
    let text = history_with(&store, None);
    assert!(!text.contains(&token[4..12]), "{text}");
}

/// The text of the first hit for `query`, with `redact` patterns.
fn snippet_with(store: &Store, query: &str, redact: Option<Vec<String>>) -> Option<String> {
    let response = search(
        store,
        query,
        &SearchOptions {
            redact,
            ..options(KEY)
        },
    );
    response.results.first().map(|h| h.snippet.clone())
}

fn history_with(store: &Store, redact: Option<Vec<String>>) -> String {
    history(
        store,
        KEY,
        &HistoryOptions {
            redact,
            ..history_options(KEY)
        },
    )
    .messages
    .iter()
    .map(|m| m.text.as_str())
    .collect::<Vec<_>>()
    .join("\n")
}

#[test]
fn host_patterns_redact_in_search_and_history() {
    let store = store();
    session(&store, KEY, "main", None);
    say(
        &store,
        KEY,
        Role::User,
        "ticket ACME-7Q2XK9LM4P0Z belongs to employee id 482915 in the payroll system",
        10,
    );
    let patterns = Some(vec![
        r"ACME-[0-9A-Z]{12}".to_owned(),
        r"employee id (?P<secret>\d{6})".to_owned(),
    ]);

    let plain = snippet_with(&store, "payroll", None).unwrap();
    assert!(
        plain.contains("ACME-7Q2XK9LM4P0Z") && plain.contains("482915"),
        "{plain}"
    );
    let redacted = snippet_with(&store, "payroll", patterns.clone()).unwrap();
    assert_eq!(
        redacted,
        "ticket [REDACTED] belongs to employee id [REDACTED] in the payroll system"
    );

    assert!(history_with(&store, None).contains("ACME-7Q2XK9LM4P0Z"));
    assert_eq!(
        history_with(&store, patterns.clone()),
        "ticket [REDACTED] belongs to employee id [REDACTED] in the payroll system"
    );

    // Through SQL, the option is the same JSON array.
    let json = search_sql(
        &store,
        "payroll",
        &SearchOptions {
            redact: patterns,
            ..options(KEY)
        },
    )
    .unwrap();
    assert!(
        !json.contains("7Q2XK9LM4P0Z") && json.contains("[REDACTED]"),
        "{json}"
    );
}

#[test]
fn stored_host_patterns_keep_their_secrets_out_of_the_index() {
    let store = store();
    session(&store, KEY, "main", None);
    say(
        &store,
        KEY,
        Role::User,
        "ticket ACME-7Q2XK9LM4P0Z is done",
        10,
    );
    let request_only = Some(vec![r"ACME-[0-9A-Z]{12}".to_owned()]);
    // A request's own patterns redact its excerpt but not the index.
    assert_eq!(
        snippet_with(&store, "7Q2XK9LM4P0Z", request_only).as_deref(),
        Some("ticket [REDACTED] is done")
    );
    let change = store.set_redaction(&[r"ACME-[0-9A-Z]{12}"]).unwrap();
    assert!(change.changed && change.pending == 1, "{change:?}");
    assert!(store.reconcile(1000).unwrap().done);
    for query in [
        "7Q2XK9LM4P0Z",
        "ACME-7Q2XK9LM4P0Z",
        "7q2x*",
        "acme*",
        "ticket 7Q2XK*",
    ] {
        assert_eq!(snippet_with(&store, query, None), None, "{query}");
    }
    assert_eq!(
        snippet_with(&store, "ticket", None).as_deref(),
        Some("ticket [REDACTED] is done")
    );
    assert_eq!(history_with(&store, None), "ticket [REDACTED] is done");
    let unchanged = store.set_redaction(&[r"ACME-[0-9A-Z]{12}"]).unwrap();
    assert!(
        !unchanged.changed && unchanged.pending == 0,
        "{unchanged:?}"
    );
    let err = store.set_redaction(&["("]).unwrap_err().to_string();
    assert!(err.contains("redaction pattern \"(\" is invalid"), "{err}");
}

#[test]
fn a_search_for_a_default_shape_secret_returns_nothing() {
    let store = store();
    session(&store, KEY, "main", None);
    let token = format!("ghp_{}", Rng(7).string(&alnum(), 36));
    say(
        &store,
        KEY,
        Role::User,
        &format!("my token is {token} keep it safe"),
        10,
    );
    say(
        &store,
        KEY,
        Role::User,
        "PASSWORD=correcthorsebatterystaple",
        11,
    );
    assert_eq!(snippet_with(&store, &token, None), None);
    assert_eq!(snippet_with(&store, &token[4..], None), None);
    assert_eq!(
        snippet_with(&store, "correcthorsebatterystaple", None),
        None
    );
    assert_eq!(snippet_with(&store, "correcthorse*", None), None);
    // A match outside the secret still finds the message, redacted.
    assert_eq!(
        snippet_with(&store, "password", None).as_deref(),
        Some("PASSWORD=[REDACTED]")
    );
    assert_eq!(
        snippet_with(&store, "safe", None).as_deref(),
        Some("my token is [REDACTED] keep it safe")
    );
}

#[test]
fn an_invalid_host_pattern_is_a_clear_error() {
    let store = store();
    session(&store, KEY, "main", None);
    say(&store, KEY, Role::User, "hello world", 10);
    let bad = Some(vec!["ok-[0-9]+".to_owned(), "(unclosed".to_owned()]);
    let err = try_search(
        &store,
        "hello",
        &SearchOptions {
            redact: bad.clone(),
            ..options(KEY)
        },
    )
    .unwrap_err();
    assert!(matches!(err, Error::Store(_)), "{err:?}");
    let message = err.to_string();
    assert!(
        message.starts_with("sessions_search: redaction pattern \"(unclosed\" is invalid"),
        "{message}"
    );
    let err = store
        .history(
            KEY,
            &HistoryOptions {
                redact: bad.clone(),
                ..history_options(KEY)
            },
        )
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("sessions_history: redaction pattern \"(unclosed\" is invalid"),
        "{err}"
    );
    let sql = search_sql(
        &store,
        "hello",
        &SearchOptions {
            redact: bad,
            ..options(KEY)
        },
    )
    .unwrap_err();
    assert!(
        sql.contains("redaction pattern \"(unclosed\" is invalid"),
        "{sql}"
    );
}
