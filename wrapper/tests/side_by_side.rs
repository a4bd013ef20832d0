//! The `sessions` tokenizer next to FTS5's `unicode61 remove_diacritics 2`
//! (what OpenClaw uses) on one multilingual corpus, in one connection.
//!
//! 1. Where unicode61 finds something, `sessions` and `sessions cjk 1` find
//!    exactly the same rows: nothing that worked before breaks.
//! 2. Where unicode61 is wrong (finds nothing, or misses rows), `sessions`
//!    gives the right rows, each asserted against a hand-written answer.

use rusqlite::Connection;

/// The corpus; row ids are positions counted from 1.
const CORPUS: &[&str] = &[
    // 1-9: English with code, paths and punctuation.
    "Run cargo build --release in src/main.rs before the deploy",
    "The staging deploy failed: see logs/deploy-2024.log line 42",
    "Configure the CI pipeline with .github/workflows/ci.yml",
    "Fixed the off-by-one bug in parse_args(argv) and added tests",
    "Email alice@example.com about issue #123 and the config file",
    "SELECT * FROM users WHERE id = 7; -- slow query, needs an index",
    "The conference call moved to Thursday; confirm with Bob",
    "def main(): print('hello world')  # python entry point",
    "Docker image tag v1.2.3 pushed to registry.example.com/app",
    // 10-13: French.
    "Le déploiement de la version française est prévu à Noël",
    "Où est le café ? Il est fermé le dimanche.",
    "Crème brûlée et pâtisserie pour l'équipe",
    "Voilà, l'élève a réussi son examen à l'école",
    // 14-17: German.
    "Die Straße in München ist wegen Bauarbeiten gesperrt",
    "Größere Änderungen an der Konfiguration: bitte prüfen",
    "Wir treffen uns an der Strasse beim Bahnhof",
    "Übermorgen fahren wir nach Köln und Düsseldorf",
    // 18-20: Danish.
    "Ærøskøbing er en by på Ærø i Danmark",
    "Søren spiser rødgrød med fløde",
    "Vi ses i København på fredag",
    // 21-23: Polish.
    "Łódź i Kraków to piękne miasta",
    "Zażółć gęślą jaźń",
    "Dziękuję za pomoc przy wdrożeniu",
    // 24-25: Greek.
    "Καλημέρα, η Αθήνα είναι όμορφη",
    "Το σφάλμα εμφανίστηκε στον διακομιστή",
    // 26-27: Russian.
    "Привет, мир! Ёлка стоит в Москве",
    "Развёртывание на сервере завершено успешно",
    // 28-30: Chinese.
    "我们明天在东京都开会",
    "北京大学的图书馆",
    "部署到生产环境失败了",
    // 31-34: Japanese.
    "今日はラーメンを食べました",
    "東京都庁で会議があります",
    "ラーメン屋は駅の近くです",
    "デプロイが失敗しました",
    // 35-37: Korean.
    "서울시에서 회의가 있습니다",
    "부산에서 서울까지 기차로 갔다",
    "배포가 완료되었습니다",
    // 38-39: Thai.
    "ภาษาไทยง่ายนิดเดียว",
    "สวัสดีครับ ยินดีต้อนรับ",
    // 40-41: fullwidth forms.
    "Ｆｕｌｌｗｉｄｔｈ ＡＢＣ and ＳＱＬ text",
    "Order number １２３４５ confirmed",
    // 42-43: ligatures, and the same words spelled plainly.
    "The ﬁle was ﬂagged by the ofﬁce",
    "Plain file and office and flagged",
    // 44-47: mixed.
    "Deploy to 東京 staging at 9:00, then ラーメン with Søren",
    "café cafe CAFÉ Café",
    "naïve résumé coöperate",
    "İstanbul ve ıspanak",
];

const TABLES: [(&str, &str); 3] = [
    ("u61", "unicode61 remove_diacritics 2"),
    ("ses", "sessions"),
    ("cjk", "sessions cjk 1"),
];

fn setup() -> Connection {
    let conn = session_search::open_in_memory().unwrap();
    for (name, tokenize) in TABLES {
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE {name} USING fts5(body, tokenize = '{tokenize}')"
        ))
        .unwrap();
        let mut insert = conn
            .prepare(&format!("INSERT INTO {name}(rowid, body) VALUES (?1, ?2)"))
            .unwrap();
        for (i, body) in CORPUS.iter().enumerate() {
            insert
                .execute(rusqlite::params![i as i64 + 1, body])
                .unwrap();
        }
    }
    conn
}

/// Row ids of `table` matching `query`, sorted.
fn hits(conn: &Connection, table: &str, query: &str) -> Vec<i64> {
    let sql = format!("SELECT rowid FROM {table} WHERE {table} MATCH ?1 ORDER BY rowid");
    let mut stmt = conn.prepare(&sql).unwrap();
    let rows = stmt
        .query_map([query], |row| row.get(0))
        .unwrap_or_else(|e| panic!("{table} MATCH {query:?}: {e}"));
    rows.collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{table} MATCH {query:?}: {e}"))
}

/// Queries that unicode61 answers correctly: English words, code fragments,
/// accented words typed with their accents (and, for Latin letters that
/// decompose, without), phrases, boolean operators and prefixes.
const AGREED: &[&str] = &[
    // English, code, paths.
    "deploy",
    "DEPLOY",
    "staging",
    "main",
    "rs",
    "src",
    "release",
    "logs",
    "2024",
    "42",
    "workflows",
    "yml",
    "parse",
    "args",
    "argv",
    "alice",
    "example",
    "com",
    "123",
    "config",
    "users",
    "thursday",
    "hello",
    "\"hello world\"",
    "hello AND python",
    "\"staging deploy failed\"",
    "\"src main rs\"",
    "deploy NOT staging",
    "bob OR alice",
    "v1",
    "registry",
    "9",
    "00",
    // Prefixes.
    "conf*",
    "deplo*",
    "regis*",
    "\"the staging\" + depl*",
    // French.
    "déploiement",
    "deploiement",
    "française",
    "francaise",
    "Noël",
    "noel",
    "café",
    "cafe",
    "CAFÉ",
    "ferme",
    "\"crème brûlée\"",
    "\"creme brulee\"",
    "eleve",
    "école",
    "ecole",
    "equipe",
    // German (words without ß).
    "München",
    "munchen",
    "größere",
    "anderungen",
    "konfiguration",
    "prüfen",
    "prufen",
    "ubermorgen",
    "köln",
    "koln",
    "dusseldorf",
    // Danish, typed with its letters.
    "Ærøskøbing",
    "ærø",
    "danmark",
    "søren",
    "rødgrød",
    "fløde",
    "københavn",
    // Polish.
    "Łódź",
    "krakow",
    "piękne",
    "piekne",
    "zażółć",
    "gesla",
    "jazn",
    "wdrozeniu",
    "dziekuje",
    // Greek, typed with its accents.
    "Καλημέρα",
    "αθήνα",
    "σφάλμα",
    // Russian.
    "привет",
    "мир",
    "Москве",
    "ёлка",
    "Развёртывание",
    "сервере",
    // Whole space-separated words in CJK and Thai text.
    "회의가",
    "서울까지",
    "배포가",
    "ภาษาไทยง่ายนิดเดียว",
    "สวัสดีครับ",
    // unicode61 cuts Thai at its vowel and tone marks (they are not letters
    // to it), so this substring happens to be a phrase of its tokens.
    "\"ครับ\"",
    // Fullwidth typed as fullwidth: unicode61 folds its case.
    "ＡＢＣ",
    // Mixed.
    "naïve",
    "naive",
    "resume",
    "cooperate",
    "istanbul",
];

#[test]
fn where_unicode61_finds_rows_sessions_finds_the_same_rows() {
    let conn = setup();
    let mut wrong = Vec::new();
    for query in AGREED {
        let expected = hits(&conn, "u61", query);
        if expected.is_empty() {
            wrong.push(format!(
                "unicode61 finds nothing for {query:?}: not a comparison"
            ));
        }
        for table in ["ses", "cjk"] {
            let got = hits(&conn, table, query);
            if got != expected {
                wrong.push(format!(
                    "{query:?}: unicode61 {expected:?}, {table} {got:?}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Queries that unicode61 gets wrong, with the right rows: (query, rows for
/// `sessions`, rows for `sessions cjk 1`). Substrings of CJK words need
/// `cjk 1`; whole words are found by both.
///
/// Some of these unicode61 answers with a non-empty but incomplete row set
/// (`strasse` finds only the row spelled "Strasse", `"東京"` only the row
/// where 東京 stands alone, `file` misses "ﬁle"); they are excluded from
/// [`AGREED`] for that reason, and checked here to lose none of unicode61's
/// rows.
const UNICODE61_WRONG: &[(&str, &[i64], &[i64])] = &[
    // CJK: unicode61 takes a whole run of Han and kana as one token.
    ("\"東京\"", &[32, 44], &[32, 44]), // 東京 inside 東京都庁で…
    ("\"東京都\"", &[32], &[32]),
    ("\"京\"", &[28, 29, 32, 44], &[28, 29, 32, 44]), // one Han character
    ("\"东京\"", &[28], &[28]),
    ("\"图书馆\"", &[29], &[29]),
    ("\"失败\"", &[30], &[30]),
    ("\"会議\"", &[32], &[32]),
    ("\"食べ\"", &[31], &[31]),
    ("\"ラーメン\"", &[31, 33, 44], &[31, 33, 44]),
    ("\"ラー\"", &[], &[31, 33, 44]), // part of a katakana word
    ("\"デプロイ\"", &[34], &[34]),
    ("\"서울\"", &[], &[35, 36]), // 서울 in 서울시에서, 서울까지
    ("\"에서\"", &[], &[35, 36]),
    ("\"배포\"", &[], &[37]),
    ("\"ไทย\"", &[38], &[38]),
    // ß / ss, both ways and as prefixes.
    ("strasse", &[14, 16], &[14, 16]),
    ("straße", &[14, 16], &[14, 16]),
    ("STRASSE", &[14, 16], &[14, 16]),
    ("straß*", &[14, 16], &[14, 16]),
    ("stras*", &[14, 16], &[14, 16]),
    ("grossere", &[15], &[15]),
    // æ / ae, ø / o, ł / l and the other letters NFKD does not split.
    ("aeroskobing", &[18], &[18]),
    ("aero", &[18], &[18]),
    ("soren", &[19, 44], &[19, 44]),
    ("rodgrod", &[19], &[19]),
    ("kobenhavn", &[20], &[20]),
    ("lodz", &[21], &[21]),
    ("zazolc", &[22], &[22]),
    ("ispanak", &[47], &[47]),
    // Greek and Cyrillic accents, which remove_diacritics 2 keeps.
    ("καλημερα", &[24], &[24]),
    ("ΑΘΗΝΑ", &[24], &[24]),
    ("σφαλμα", &[25], &[25]),
    ("елка", &[26], &[26]),
    ("развертывание", &[27], &[27]),
    // Fullwidth forms.
    ("abc", &[40], &[40]),
    ("sql", &[40], &[40]),
    ("fullwidth", &[40], &[40]),
    ("12345", &[41], &[41]),
    // Ligatures ﬁ and ﬂ, also inside a word (ofﬁce).
    ("file", &[5, 42, 43], &[5, 42, 43]),
    ("ﬁle", &[5, 42, 43], &[5, 42, 43]),
    ("flagged", &[42, 43], &[42, 43]),
    ("office", &[42, 43], &[42, 43]),
];

#[test]
fn where_unicode61_is_wrong_sessions_is_right() {
    let conn = setup();
    let mut wrong = Vec::new();
    for &(query, words, cjk) in UNICODE61_WRONG {
        let u61 = hits(&conn, "u61", query);
        if u61 == cjk {
            wrong.push(format!(
                "{query:?}: unicode61 is right ({u61:?}), not a counter-example"
            ));
        }
        if let Some(lost) = u61.iter().find(|row| !cjk.contains(row)) {
            wrong.push(format!(
                "{query:?}: unicode61 finds row {lost}, sessions does not"
            ));
        }
        for (table, expected) in [("ses", words), ("cjk", cjk)] {
            let got = hits(&conn, table, query);
            if got != expected {
                wrong.push(format!("{query:?}: {table} {got:?}, expected {expected:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn highlight_marks_the_original_characters_in_every_script() {
    let conn = setup();
    let cases = [
        (
            "ses",
            "strasse",
            14,
            "Die [Straße] in München ist wegen Bauarbeiten gesperrt",
        ),
        ("ses", "office", 42, "The ﬁle was ﬂagged by the [ofﬁce]"),
        (
            "ses",
            "abc",
            40,
            "Ｆｕｌｌｗｉｄｔｈ [ＡＢＣ] and ＳＱＬ text",
        ),
        (
            "ses",
            "main",
            1,
            "Run cargo build --release in src/[main].rs before the deploy",
        ),
        ("cjk", "\"東京\"", 32, "[東京]都庁で会議があります"),
        ("cjk", "\"ラー\"", 33, "[ラー]メン屋は駅の近くです"),
        ("cjk", "\"서울\"", 35, "[서울]시에서 회의가 있습니다"),
        (
            "cjk",
            "deploy AND \"東京\" AND soren",
            44,
            "[Deploy] to [東京] staging at 9:00, then ラーメン with [Søren]",
        ),
    ];
    for (table, query, rowid, expected) in cases {
        let got: String = conn
            .query_row(
                &format!(
                    "SELECT highlight({table}, 0, '[', ']') FROM {table} WHERE {table} MATCH ?1 AND rowid = ?2"
                ),
                rusqlite::params![query, rowid],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(got, expected, "{table} {query:?}");
    }
}
