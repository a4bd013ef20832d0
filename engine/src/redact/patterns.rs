//! The default secret patterns, grouped by family (docs/redaction.md lists the
//! families). Written from the providers' published token formats.
//!
//! Each pattern either redacts its whole match or, when it has groups whose
//! names start with `secret`, only those groups (the value of `PASSWORD=…`,
//! not the name). Patterns run on the text as written and on its
//! line-joined view (see the parent module), so a hard-wrapped secret is
//! seen whole. Where a match may start ([`Start`]) is checked in code rather
//! than in the pattern: `\b` would not see that a secret whose line was
//! joined to the line above still starts a word, and a pattern that begins
//! with a look at the character before (`(?:\s|^)`, a character class) is
//! scanned byte by byte, while one that begins with a literal lets the
//! search skip ahead to it.

/// Version of the default set. Bump it whenever a pattern changes what it
/// redacts: databases indexed under an earlier version are re-indexed.
pub const REDACTION_VERSION: u32 = 3;

/// What a match must also satisfy to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// Nothing more.
    None,
    /// The secret looks random (see `looks_random`): for values found only
    /// by a nearby keyword, with no shape of their own.
    Random,
    /// The secret can be a value: not a common word of prose (`the
    /// password is required`), a path, URL or host name, or code that
    /// computes it (`os.environ.get(`): for values after a secret's name.
    NotProse,
    /// The secret can be a value (as for `NotProse`) and looks like a
    /// secret: at least six characters, with a digit, a symbol or a
    /// capital after the first letter. For values a sentence or a label
    /// points at, where a word often follows (`the token is included`,
    /// `密钥/权限`).
    Stated,
    /// The match is the argument list of a call that takes credentials:
    /// each quoted string in it that looks random or is 16 or more hex
    /// digits, and is not a URL, path, host name or e-mail address, is a
    /// secret.
    Arguments,
}

/// Where a match may start.
#[derive(Debug, Clone, Copy)]
pub enum Start {
    /// Anywhere.
    Anywhere,
    /// Where a word can start: at the start of the text, after a character
    /// that is not an ASCII letter, digit or `_`, or where two lines were
    /// joined.
    Word,
    /// Right after a byte the function accepts.
    After(fn(u8) -> bool),
    /// Where a part of a name can start: where a word can, after `_`, or
    /// at a capital that follows a small letter or starts a capitalised
    /// part (`create_client`, `createClient`, `SSHClient`).
    NamePart,
}

/// One default pattern.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// The family it belongs to, as docs/redaction.md names it.
    pub family: &'static str,
    /// A regular expression in the syntax of the `regex` crate.
    pub pattern: &'static str,
    /// Where the match may start.
    pub start: Start,
    /// The extra condition on the secret.
    pub check: Check,
}

const fn word(family: &'static str, pattern: &'static str) -> Shape {
    Shape {
        family,
        pattern,
        start: Start::Word,
        check: Check::None,
    }
}

const fn anywhere(family: &'static str, pattern: &'static str) -> Shape {
    Shape {
        family,
        pattern,
        start: Start::Anywhere,
        check: Check::None,
    }
}

const fn checked(family: &'static str, pattern: &'static str, check: Check) -> Shape {
    Shape {
        family,
        pattern,
        start: Start::Anywhere,
        check,
    }
}

/// Characters that end an unquoted secret besides white space: text of a
/// script written without spaces and its punctuation (`DB_PASS=x，然后…`),
/// so the words after a value glued to Chinese or Japanese text stay.
macro_rules! cjk {
    () => {
        r"\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\x{3000}-\x{303F}\x{FF01}-\x{FF0F}\x{FF1A}-\x{FF20}"
    };
}

/// An unquoted secret: a run up to white space, a quote, a separator,
/// [`cjk`] text, or a JSON escape of a line break or quote (`\n`, `\"`: the
/// text of a JSON string inside a message).
macro_rules! unquoted {
    () => {
        concat!(r#"(?:[^\s"',;<>\\"#, cjk!(), r#"]|\\[^nrt"])+"#)
    };
}

/// A secret value after a name or flag: a double- or single-quoted string
/// (also with JSON-escaped quotes, `\"…\"`, and over line breaks, so a
/// hard-wrapped quoted value is found whole), or an unquoted run.
macro_rules! value {
    () => {
        concat!(
            r#"(?:\\?"(?P<secret_dq>(?:[^"\\]|\\[^"])+)\\?"|'(?P<secret_sq>[^']+)'|(?P<secret>"#,
            unquoted!(),
            "))"
        )
    };
}

/// A name that says its value is secret: a keyword as the last part of a
/// snake, kebab, dotted or camel case name (`DB_PASS`, `dbPassword`,
/// `signingKey`; `key` only as the last part of a longer name, `APP_KEY`,
/// as a bare `key` names anything), optionally followed by parts that still name the secret
/// (`client-key-data`, `secret_key_base`, `auth_token`) but not by others
/// (`KeyError`, `tokenizer`, `keyboard`).
macro_rules! secret_name {
    () => {
        concat!(
            r"_*(?:(?:(?:[A-Za-z0-9]+[_.\-])*",
            r"(?i:pass(?:word|wd|phrase|code)?|pwd|secret|token|credentials?|auth|api_?key|access_?key|private_?key|client_?secret|accountkey|sharedaccesskey)",
            r"|(?:[A-Za-z0-9]+[_.\-])+(?i:key)",
            r"|[A-Za-z0-9]*[a-z0-9](?:Pass(?:word|wd|phrase|code)?|Pwd|Secret|Token|Credentials?|Auth|Key|PASSWORD|SECRET|TOKEN|KEY)))s?",
            r"(?:[_.\-]?(?i:key|token|secret|value|data|b64|base64|base|string|str|id|pass|password|phrase|hex|enc|raw|plain|text))*"
        )
    };
}

/// An `Authorization` or `Proxy-Authorization` header up to its value: as
/// a header or `-H` flag (`Authorization: …`), a JSON or code field
/// (`"Authorization": "…"`), or a client's call
/// (`setRequestHeader('Authorization', '…')`), also on the next line.
macro_rules! authorization {
    () => {
        r#"(?i:authorization)(?:\\?['"][ \t]*[:=,]|[ \t]*[:=])[ \t]*(?:\r?\n[ \t]*)?\\?['"]?[ \t]*"#
    };
}

/// A label in Chinese, Japanese or Korean that names a password, key or
/// token.
macro_rules! cjk_label {
    () => {
        r"(?:密码|密碼|口令|密钥|密鑰|令牌|パスワード|暗証番号|トークン|秘密鍵|비밀번호|암호|토큰)"
    };
}

/// One parameter of an `Authorization` header's credential: `name=value`
/// or `name="value"`.
macro_rules! auth_parameter {
    () => {
        concat!(
            r#"[A-Za-z][A-Za-z0-9_\-]*=(?:\\?"(?:[^"\\\n]|\\[^"\n])*\\?"|[^\s,"'\\"#,
            cjk!(),
            "]+)"
        )
    };
}

/// A random-looking token a few words after one of `keywords`, the
/// keywords of a secret name where the name is free text. The keywords
/// come in two groups, a pattern each: one alternation of them all was
/// scanned byte by byte, while each group's search skips ahead to its
/// words (30 ms against 8 on 10 MB of text).
macro_rules! keyword_nearby {
    ($keywords:literal) => {
        checked(
            "keyword nearby",
            concat!(
                "(?i:",
                $keywords,
                r")(?:[^\S\r\n]+\S{1,12}){0,3}?(?:[^\S\r\n]*[:=][^\S\r\n]*|[^\S\r\n]+)(?P<secret>[A-Za-z0-9_\-+/=.]{16,})"
            ),
            Check::Random,
        )
    };
}

/// A password given to a command-line client by a flag (`redis-cli -h
/// cache -a …`): `$client_to_flag` matches from the client's name to the
/// flag. A pattern per client family: one alternation of them all was
/// scanned byte by byte, while each family's search skips ahead to its
/// names (16 ms against about 4 on 10 MB of text).
macro_rules! client_password {
    ($client_to_flag:literal) => {
        anywhere(
            "command line",
            concat!($client_to_flag, r"(?:=|\s*)", value!()),
        )
    };
}

/// The default set.
pub const DEFAULT_SHAPES: &[Shape] = &[
    // OpenAI and Anthropic keys (sk-, sk-proj-, sk-svcacct-, sk-ant-api03-, …)
    word("openai / anthropic", r"sk-[A-Za-z0-9_\-]{16,}"),
    // Stripe keys and webhook signing secrets
    word("stripe", r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    word("stripe", r"whsec_[A-Za-z0-9+/=]{20,}"),
    // GitHub
    word("github", r"gh[pousr]_[A-Za-z0-9]{20,}"),
    word("github", r"github_pat_[A-Za-z0-9_]{22,}"),
    // GitLab
    word(
        "gitlab",
        r"gl(?:pat|ptt|dt|rt|rtr|cbt|soat|ft|imt|agent|oas|wt)-[A-Za-z0-9_\-]{16,}",
    ),
    // Slack tokens, app tokens and webhooks
    word("slack", r"xox[abposre]-[A-Za-z0-9\-]{10,}"),
    word("slack", r"xapp-[0-9]+-[A-Za-z0-9\-]{10,}"),
    anywhere(
        "slack",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]+",
    ),
    // AWS access key ids (secret keys are caught by their names)
    word(
        "aws",
        r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA)[0-9A-Z]{16}",
    ),
    // Google API keys, OAuth tokens and client secrets, FCM server keys
    word("google", r"AIza[0-9A-Za-z_\-]{35}"),
    word("google", r"ya29\.[0-9A-Za-z_\-]{20,}"),
    word("google", r"GOCSPX-[0-9A-Za-z_\-]{20,}"),
    word("google", r"AAAA[A-Za-z0-9_\-]{7}:APA91b[A-Za-z0-9_\-]{60,}"),
    // Hugging Face, npm, PyPI, DigitalOcean, Databricks, Shopify, SendGrid
    word("hugging face", r"hf_[A-Za-z0-9]{30,}"),
    word("npm", r"npm_[A-Za-z0-9]{36}"),
    word("pypi", r"pypi-[A-Za-z0-9_\-]{50,}"),
    word("digitalocean", r"do[opr]_v1_[a-f0-9]{64}"),
    word("databricks", r"dapi[a-f0-9]{32}(?:-[0-9]+)?"),
    word("shopify", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    word("sendgrid", r"SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"),
    // Telegram bot tokens, Discord bot tokens
    anywhere("telegram", r"[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}"),
    word(
        "discord",
        r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,}",
    ),
    // Twilio API key sids, Mailgun keys
    word("twilio", r"SK[0-9a-fA-F]{32}"),
    word("mailgun", r"key-[0-9a-zA-Z]{32}"),
    // HashiCorp Vault and Terraform Cloud, Doppler, Atlassian
    word("vault", r"hv[sbr]\.[A-Za-z0-9_\-]{20,}"),
    word(
        "terraform",
        r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_\-=]{40,}",
    ),
    word(
        "doppler",
        r"dp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{32,}",
    ),
    word("atlassian", r"AT(?:ATT|CTT)[A-Za-z0-9_\-=]{40,}"),
    // More providers whose tokens carry a prefix: Linear, Notion, Postman,
    // New Relic, Grafana, Square, Sentry, Supabase, Groq, xAI, Replicate,
    // Perplexity, Figma, Heroku, Netlify, PlanetScale, Pulumi, Dynatrace,
    // Mapbox secret tokens, Alibaba Cloud and Tencent Cloud key ids
    word("other providers", r"lin_(?:api|oauth)_[A-Za-z0-9]{32,}"),
    word("other providers", r"(?:ntn_|secret_)[A-Za-z0-9]{40,}"),
    word("other providers", r"PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{30,}"),
    word("other providers", r"NR(?:AK|AA|II)-[A-Z0-9]{27}"),
    word("other providers", r"gl(?:sa|c)_[A-Za-z0-9_+/]{32,}=*"),
    word("other providers", r"sq0(?:atp|csp|idp)-[0-9A-Za-z_\-]{22,}"),
    word("other providers", r"sntr[ysu]_[A-Za-z0-9+/=_]{40,}"),
    word("other providers", r"sbp_[a-f0-9]{40}"),
    word("other providers", r"gsk_[A-Za-z0-9]{40,}"),
    word("other providers", r"xai-[A-Za-z0-9]{60,}"),
    word("other providers", r"r8_[A-Za-z0-9]{30,}"),
    word("other providers", r"pplx-[A-Za-z0-9]{40,}"),
    word("other providers", r"fig[dhu]_[A-Za-z0-9_\-]{30,}"),
    word("other providers", r"HRKU-[A-Za-z0-9_\-]{30,}"),
    word("other providers", r"nf[pc]_[A-Za-z0-9]{30,}"),
    word(
        "other providers",
        r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.\-]{30,}",
    ),
    word("other providers", r"pul-[a-f0-9]{40}"),
    word(
        "other providers",
        r"dt0[a-z][0-9]{2}\.[A-Z0-9]{24}\.[A-Z0-9]{64}",
    ),
    word(
        "other providers",
        r"sk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{16,}",
    ),
    word("other providers", r"LTAI[A-Za-z0-9]{16,24}"),
    word("other providers", r"AKID[A-Za-z0-9]{32}"),
    // Cookies: the name=value pairs of a Cookie or Set-Cookie header
    anywhere(
        "headers",
        concat!(
            r"(?i:set-cookie|cookie)[ \t]*:[ \t]*(?P<secret>[^=\s;]+=[^;\s",
            cjk!(),
            r"]+(?:;[ \t]*[^=\s;]+(?:=[^;\s",
            cjk!(),
            r"]+)?)*)"
        ),
    ),
    // age secret keys
    word("age", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    // JSON Web Tokens
    word(
        "jwt",
        r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    ),
    // PEM private keys (also PGP private key blocks), to their end line or
    // the end of the text; inside JSON strings the line breaks are `\n`.
    anywhere(
        "private key",
        r"(?s)-----BEGIN[A-Z0-9\s]*?PRIVATE\s+KEY(?:\s+BLOCK)?-----.*?(?:-----END[A-Z0-9\s]*?PRIVATE\s+KEY(?:\s+BLOCK)?-----|\z)",
    ),
    // PuTTY key files: the private lines and their MAC
    anywhere(
        "private key",
        r"Private-Lines:[ \t]*[0-9]+(?P<secret>(?:(?:\s|\\[nr])*[A-Za-z0-9+/=]{8,})+)",
    ),
    anywhere(
        "private key",
        r"Private-MAC:[ \t]*(?P<secret>[0-9A-Fa-f]{16,})",
    ),
    // Authorization headers of any scheme, and bearer tokens anywhere. The
    // scheme word stays readable; what follows it is the credential: one
    // token (`SSWS 00Lm…`, `Basic …`) or a list of parameters (`Digest
    // username="…", response="…"`, AWS SigV4 `Credential=…, Signature=…`).
    anywhere(
        "authorization",
        r"(?i:bearer)\s+(?P<secret>[A-Za-z0-9._~+/=\-]{8,})",
    ),
    anywhere(
        "authorization",
        concat!(
            authorization!(),
            r"(?i:basic|bearer|token|apikey|api-key|key)\s+(?P<secret>[A-Za-z0-9._~+/\-]{6,}=*)"
        ),
    ),
    anywhere(
        "authorization",
        concat!(
            authorization!(),
            r"[A-Za-z][A-Za-z0-9_.\-]*\s*(?P<secret>",
            auth_parameter!(),
            r"(?:[ \t]*,\s*",
            auth_parameter!(),
            ")*)"
        ),
    ),
    checked(
        "authorization",
        concat!(
            authorization!(),
            r"[A-Za-z][A-Za-z0-9_.\-]*[ \t]+(?P<secret>[A-Za-z0-9._~+/\-]{6,}=*)"
        ),
        Check::Stated,
    ),
    checked(
        "authorization",
        concat!(
            authorization!(),
            // The signing schemes hold digits: not taken for a credential
            r"(?:(?:[A-Z0-9]+-HMAC-SHA[0-9]+|SCRAM-SHA-[0-9]+)\s+)?",
            r"(?P<secret>[A-Za-z0-9._~+/\-]{6,}=*)"
        ),
        Check::Stated,
    ),
    // Passwords in URLs: everything between the user and the last `@`
    // before the host, so passwords holding `/` or `@` are covered.
    anywhere(
        "url password",
        concat!(
            r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@]*:(?P<secret>[^\s",
            cjk!(),
            r"]+)@(?:[A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\])"
        ),
    ),
    // Azure SAS signatures
    anywhere("azure", r"[?&](?i:sig)=(?P<secret>[A-Za-z0-9%+/=\-_]{16,})"),
    // Command-line passwords: a client and the flag it takes a password
    // with (mysql -p…, redis-cli -a, sqlcmd -P, sshpass -p, docker login
    // -p, zip -P, ldapsearch -w, smbclient -U user%pass, openssl -passin
    // pass:…), curl -u user:pass, and flags named like secrets
    anywhere(
        "command line",
        concat!(
            r#"(?i:mysql|mariadb|mysqldump|mysqladmin|mysqlsh|mysqlimport)(?:\s+\S+){0,12}?\s+-p"#,
            value!()
        ),
    ),
    client_password!(r#"redis-cli(?:\s+\S+){0,12}?\s+-a"#),
    client_password!(r#"sqlcmd(?:\s+\S+){0,12}?\s+-P"#),
    client_password!(r#"sshpass\s+-p"#),
    client_password!(r#"(?:zip|unzip|7z)(?:\s+\S+){0,12}?\s+-P"#),
    client_password!(r#"ldap(?:search|add|modify|delete|passwd|whoami)(?:\s+\S+){0,12}?\s+-w"#),
    client_password!(
        r#"(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)(?:\s+\S+){0,12}?\s+-p"#
    ),
    client_password!(
        r#"(?:docker|podman|helm|buildah|skopeo|oras|crane)(?:\s+\S+){0,12}?\s+(?:-p|--password)"#
    ),
    anywhere(
        "command line",
        r#"smbclient(?:\s+\S+){0,12}?\s+-U\s*['"]?[^\s%'"]+%(?P<secret>[^\s'"]+)"#,
    ),
    anywhere(
        "command line",
        r#"-pass(?:in|out)?[ \t]+['"]?pass:(?P<secret>[^\s'"]+)"#,
    ),
    // `curl -u user:pass`: the flag starts a word (checked in code, which
    // lets the search skip ahead to each `-u`, where a leading `(?:\s|^)`
    // made it step through every byte).
    word(
        "command line",
        concat!(
            r#"(?:-u|--user)\s+['"]?[^\s:'"]+:(?P<secret>"#,
            unquoted!(),
            ")"
        ),
    ),
    anywhere(
        "command line",
        concat!(r"--", secret_name!(), r"(?:=|\s+)(?:\\\r?\n\s*)?", value!()),
    ),
    // Assignments, YAML, INI, TOML, .env, connection strings: a secret name,
    // `=`, `:`, `:=` or `=>`, and the value (also on the next, indented line)
    Shape {
        family: "assignment",
        pattern: concat!(
            secret_name!(),
            r#"['"]?[ \t]*(?:=>|:=|[:=])[ \t]*(?:\\?\r?\n[ \t]+)?"#,
            value!()
        ),
        start: Start::Word,
        check: Check::NotProse,
    },
    // A bare `key` names anything, so its value counts when it looks random
    Shape {
        family: "assignment",
        pattern: concat!(r#"(?i:key)['"]?[ \t]*(?:=>|:=|[:=])[ \t]*"#, value!()),
        start: Start::Word,
        check: Check::Random,
    },
    // JSON and Python fields named like secrets, string values, also as
    // JSON escaped inside another JSON string (`{\"password\": \"…\"}`)
    anywhere(
        "json field",
        concat!(
            r#"["']"#,
            secret_name!(),
            r#"["']\s*(?::|=>)\s*(?:"(?P<secret>(?:[^"\\]|\\.)*)"|'(?P<secret_sq>[^'\n]*)')"#
        ),
    ),
    anywhere(
        "json field",
        concat!(
            r#"\\""#,
            secret_name!(),
            r#"\\"\s*:\s*\\"(?P<secret>(?:[^"\\]|\\[^"])*)\\""#
        ),
    ),
    // XML elements and key/value attribute pairs named like secrets
    // (`<add key="ClearTextPassword" value="…"/>`)
    anywhere(
        "xml",
        concat!(r"<", secret_name!(), r"(?:\s[^>]*)?>(?P<secret>[^<]+)</"),
    ),
    anywhere(
        "xml",
        concat!(
            r#"(?i:key|name)\s*=\s*\\?["']"#,
            secret_name!(),
            r#"\\?["']\s+(?i:value)\s*=\s*(?:\\?"(?P<secret>[^"\\]*)\\?"|'(?P<secret_sq>[^']*)')"#
        ),
    ),
    // .pgpass lines (host:port:database:user:password), from the colon
    // after the host, which must end right before it (16 ms instead of 1 on
    // 10 MB of text when the pattern began with the host's characters), and
    // .netrc entries
    Shape {
        family: "pgpass",
        pattern: concat!(
            r":(?:[0-9]{1,5}|\*):[A-Za-z0-9_.\-*]+:[A-Za-z0-9_.@\-*]+:(?P<secret>",
            unquoted!(),
            ")"
        ),
        start: Start::After(|b| b.is_ascii_alphanumeric() || b"_.-*".contains(&b)),
        check: Check::None,
    },
    anywhere(
        "netrc",
        concat!(
            r"(?i:login|machine)\s+\S+\s+(?:(?i:login)\s+\S+\s+)?(?i:password)\s+(?P<secret>",
            unquoted!(),
            ")"
        ),
    ),
    // Secrets stated in prose, in English and labelled in Chinese, Japanese
    // and Korean
    Shape {
        family: "prose",
        pattern: concat!(
            r"(?i:password|passphrase|passcode|pin|secret|token|api key|access key)",
            r"(?:\s+(?i:for|of|to|on)\s+\S+)?",
            r"(?:\s+(?i:is now|is|was|will be|has been set to|set to)[ \t]*[:=]?|[ \t]*[:=])",
            r"[ \t]*(?:\r?\n[ \t]*)?['`]?(?P<secret>",
            unquoted!(),
            ")"
        ),
        start: Start::Word,
        check: Check::Stated,
    },
    checked(
        "prose",
        concat!(
            cjk_label!(),
            r"\s*(?:[:：=]|是|為|为|は|는|은)\s*(?P<secret>[\x21-\x7E]+)"
        ),
        Check::NotProse,
    ),
    // With nothing between label and value (`密钥/权限`, `密码 see below`),
    // what follows is a secret only when it looks like one.
    checked(
        "prose",
        concat!(cjk_label!(), r"[ \t]*(?P<secret>[\x21-\x7E]+)"),
        Check::Stated,
    ),
    // Credentials passed by position to the clients, connections and
    // sign-in helpers that take them (`Client('AC…', '…')`,
    // `psycopg2.connect(host, db, user, '…')`, `new Pusher(id, key,
    // secret)`): every random-looking quoted argument (see
    // `Check::Arguments`). The last part of the call's name is one of the
    // words below, maybe with a few more small letters (`createClient`,
    // `MongoClient`, `authenticate`), or a constructor after it
    // (`Client.new`, `credentials.NewStaticV4`); a call that only
    // mentions one (`getClientById`, `client.get_item`) is not one.
    Shape {
        family: "credential arguments",
        pattern: concat!(
            r"(?:[Cc]lient|[Cc]onnect|[Pp]ool|[Ll]og_?[Ii]n|[Ss]ign(?:_?[Ii]n)?|[Aa]uth|[Cc]redential|[Pp]ass(?:word|wd)|[Ss]ecret|[Tt]oken|[Aa]pi_?[Kk]ey|[Aa]ccess_?[Kk]ey|[Hh]mac|HMAC|[Bb]ind",
            r"|[Rr]edis|[Mm]inio|[Pp]usher|[Tt]wilio|[Ss]equelize|[Aa]lgolia|[Mm]ailgun|[Mm]ailchimp|[Ss]end[Gg]rid|[Cc]loudinary|[Pp]laid|[Ss]tripe|[Bb]raintree|[Oo]ctokit|[Pp]ub[Nn]ub|[Aa]bly|FTP|[Ff]tp)",
            r"[a-z]{0,10}(?:(?:\.|::)(?:new|New[A-Za-z0-9_]*))?[ \t]*",
            r"\((?P<secret>(?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)"
        ),
        start: Start::NamePart,
        check: Check::Arguments,
    },
    // A random-looking token a few words after a secret's keyword
    keyword_nearby!(r"pass(?:word|wd|phrase|code)?|pwd|secret|token|credentials?|auth"),
    keyword_nearby!(r"api[_\- ]?key|access[_\- ]?key|private[_\- ]?key|client[_\- ]?secret"),
];
