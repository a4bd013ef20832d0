//! The technical side of agent transcripts, shared by all corpora: file
//! paths, identifiers, shell commands, error messages, log lines, URLs, hex
//! hashes and code blocks.
//!
//! Most of it is written as templates whose `{x}` placeholders [`Tech::expand`]
//! fills in (`{{` and `}}` stand for literal braces).

use crate::rng::{Rng, Zipf};

/// Words that identifiers, paths and URLs are made of, most frequent first.
const IDENT_WORDS: &str = "
    get set user id name file data config path value list item key error test
    request response client server handler index message session token query
    result count size buffer cache load save update delete create init build run
    start stop open close read write send fetch check parse format render event
    model view controller service api db table row column field type node tree
    queue worker task job thread pool conn stream reader writer input output log
    debug auth login password hash lock state store map filter sort merge split
    max min total offset limit page search match text line block chunk batch
";

/// English words as chats in other languages embed them, most frequent
/// first.
const EMBEDDED_WORDS: &str = "
    API bug Docker JSON log config PR commit deploy GitHub Python server token
    nginx SQL cache session Rust Redis CI Linux HTTP URL README Kubernetes
    PostgreSQL React TypeScript CPU GPU timeout debug merge branch release
";

/// Well-known files that agents keep mentioning.
const FAMOUS_PATHS: &[&str] = &[
    "src/main.py",
    "src/main.rs",
    "src/lib.rs",
    "Cargo.toml",
    "package.json",
    "README.md",
    "Dockerfile",
    "docker-compose.yml",
    "Makefile",
    ".env",
    "pyproject.toml",
    "tsconfig.json",
    ".github/workflows/ci.yml",
    "/etc/nginx/nginx.conf",
    "/etc/hosts",
    "/var/log/syslog",
    "/var/log/nginx/error.log",
    "/etc/systemd/system/app.service",
    "~/.bashrc",
    "~/.ssh/config",
];

/// Directories of relative paths.
const DIRS: &[&str] = &[
    "src",
    "lib",
    "tests",
    "app",
    "config",
    "scripts",
    "docs",
    "internal",
    "pkg",
    "cmd",
    "utils",
    "components",
    "api",
    "models",
    "services",
    "handlers",
    "migrations",
    "src/core",
    "src/api/v2",
    "web/static",
];

/// Roots of absolute paths.
const ROOTS: &[&str] = &[
    "/etc",
    "/var/log",
    "/usr/local/bin",
    "/home/alice/projects",
    "/opt/app",
    "/tmp",
    "/srv/www",
    "/var/lib/postgresql",
];

/// File name extensions.
const EXTENSIONS: &[&str] = &[
    "py", "rs", "ts", "js", "go", "json", "yaml", "toml", "md", "sh", "sql", "conf", "c", "h",
    "tsx", "css", "html", "txt", "log", "java",
];

/// Shell commands, with placeholders.
const COMMANDS: &[&str] = &[
    "git status",
    "git diff HEAD~1 -- {p}",
    "git log --oneline -n {n}",
    "git checkout -b feature/{i}",
    "git commit -m \"Fix {w} {w} in {i}\"",
    "git push origin main",
    "git rebase -i {h}",
    "git cherry-pick {h}",
    "cargo build --release",
    "cargo test -p {i} -- --nocapture",
    "npm install {w}-{w}",
    "npm run build",
    "pip install {w}=={v}",
    "python3 -m pytest {p} -k {i}",
    "docker compose up -d",
    "docker build -t {i}:{v} .",
    "kubectl get pods -n {w}",
    "kubectl logs deploy/{i} --tail=100",
    "grep -rn \"{c}\" {d}/",
    "ls -la {a}",
    "cat {p}",
    "sed -i 's/{c}/{c}/g' {p}",
    "curl -sS {u}",
    "ssh deploy@{w}.example.com",
    "sudo systemctl restart nginx",
    "chmod +x {p}",
    "find . -name '*.{e}' | xargs wc -l",
    "make test",
    "go test ./...",
    "psql -U postgres -c \"SELECT * FROM {i} LIMIT 10;\"",
    "tail -f {a}",
    "export {I}={n}",
];

/// Error messages, with placeholders.
const ERRORS: &[&str] = &[
    "Error: ENOENT: no such file or directory, open '{a}'",
    "TypeError: Cannot read properties of undefined (reading '{c}')",
    "TypeError: 'NoneType' object is not subscriptable",
    "Traceback (most recent call last):\n  File \"{p}\", line {n}, in {i}\n    {i} = {i}({i})\nKeyError: '{i}'",
    "thread 'main' panicked at {p}:{n}:{n}:\ncalled `Result::unwrap()` on an `Err` value: {C}Error",
    "error[E0382]: borrow of moved value: `{i}`\n  --> {p}:{n}:{n}",
    "fatal: not a git repository (or any of the parent directories): .git",
    "ModuleNotFoundError: No module named '{i}'",
    "Error: connect ECONNREFUSED 127.0.0.1:{n}",
    "git@github.com: Permission denied (publickey).",
    "ERROR 1045 (28000): Access denied for user '{i}'@'localhost'",
    "java.lang.NullPointerException at com.{w}.{C}.{c}({C}.java:{n})",
    "npm ERR! code ERESOLVE unable to resolve dependency tree",
    "Segmentation fault (core dumped)",
    "HTTP 502 Bad Gateway from {u}",
    "panic: runtime error: index out of range [{n}] with length {n}",
    "sqlite3.OperationalError: no such table: {i}",
];

/// Log lines, with placeholders.
const LOGS: &[&str] = &[
    "{t} INFO {i}: {w} {w} completed in {n}ms request_id={h}",
    "{t} WARN {i}: retrying {w} after {n}ms (attempt {n})",
    "{t} ERROR {C}: failed to {w} {w}: timeout after {n}s",
    "{t} DEBUG {c} {p}:{n} {w}={n} {w}={w}",
    "commit {H}\nAuthor: {w} <{w}@example.com>\n\n    Update {i} {w}",
    "{h} Fix {w} handling in {i}",
    "sha256:{H}{H}",
];

/// URLs, with placeholders.
const URLS: &[&str] = &[
    "https://github.com/{w}/{i}/issues/{n}",
    "https://github.com/{w}/{i}/pull/{n}/files",
    "https://docs.{w}.com/{w}/{i}.html",
    "https://api.{w}.io/v2/{i}?id={n}&format=json",
    "http://localhost:{n}/{i}",
    "https://stackoverflow.com/questions/{n}/{w}-{w}-{w}",
    "https://{w}.example.com/{d}/{i}#{c}",
];

/// Code block languages and the line templates their blocks are drawn from.
const CODE: &[(&str, &[&str])] = &[
    (
        "python",
        &[
            "def {i}({i}, {i}=None):",
            "    return {i}.{i}({i})",
            "    {i} = {i}.get(\"{i}\", {n})",
            "    if not {i}:",
            "        raise ValueError(\"invalid {w}: %s\" % {i})",
            "import {i}",
            "from {i}.{i} import {C}",
            "    for {i} in {i}:",
            "        {i}.append({i})",
            "class {C}({C}):",
            "    with open(\"{p}\") as f:",
        ],
    ),
    (
        "rust",
        &[
            "fn {i}(&self, {i}: &str) -> Result<{C}, Error> {{",
            "    let {i} = self.{i}.{i}()?;",
            "    Ok({C}::new({i}))",
            "}}",
            "use crate::{i}::{C};",
            "#[derive(Debug, Clone, PartialEq)]",
            "pub struct {C} {{ {i}: Vec<u8>, {i}: usize }}",
            "    match {i} {{ Some(x) => x, None => return Err(Error::{C}) }}",
            "impl {C} for {C} {{",
        ],
    ),
    (
        "typescript",
        &[
            "const {c} = await {c}({c});",
            "export function {c}({c}: {C}): {C} {{",
            "  return {c}.map(({c}) => {c}.{c});",
            "}}",
            "import {{ {C} }} from './{i}';",
            "  if ({c} === undefined) throw new Error('{w} {w}');",
            "interface {C} {{ {c}: string; {c}?: number }}",
        ],
    ),
    (
        "go",
        &[
            "func {C}({c} string) (*{C}, error) {{",
            "\tif err != nil {{",
            "\t\treturn nil, fmt.Errorf(\"{w}: %w\", err)",
            "\t}}",
            "\t{c} := {c}.{C}({c})",
            "}}",
        ],
    ),
    (
        "sql",
        &[
            "SELECT {i}, count(*) FROM {i} WHERE {i} = ? GROUP BY {i};",
            "CREATE INDEX idx_{i} ON {i}({i});",
            "UPDATE {i} SET {i} = {n} WHERE id = {n};",
            "ALTER TABLE {i} ADD COLUMN {i} TEXT;",
        ],
    ),
    (
        "yaml",
        &[
            "{i}:",
            "  image: {i}:{v}",
            "  ports:",
            "    - \"{n}:{n}\"",
            "  environment:",
            "    {I}: {w}",
        ],
    ),
];

/// Generator of technical text.
#[derive(Debug, Clone)]
pub struct Tech {
    words: Zipf,
    embedded: Zipf,
}

impl Tech {
    /// A generator with its word list.
    pub fn new() -> Tech {
        Tech {
            words: Zipf::new(IDENT_WORDS, 0.6),
            embedded: Zipf::new(EMBEDDED_WORDS, 0.8),
        }
    }

    /// Appends a whole technical segment on its own line(s): a command, an
    /// error, log lines, a code block, or a URL.
    pub fn block(&self, rng: &mut Rng, out: &mut String) {
        out.push('\n');
        match rng.below(10) {
            0..=2 => {
                out.push_str("$ ");
                self.expand(rng.pick(COMMANDS), rng, out);
            }
            3 | 4 => self.expand(rng.pick(ERRORS), rng, out),
            5 | 6 => self.log_lines(rng, out),
            7 | 8 => self.code_block(rng, out),
            _ => self.expand(rng.pick(URLS), rng, out),
        }
        out.push('\n');
    }

    /// Appends a short technical token as it appears inside prose: a path,
    /// an identifier in backticks, a command, a hash or a URL.
    pub fn inline(&self, rng: &mut Rng, out: &mut String) {
        let template = match rng.below(8) {
            0 | 1 => "{p}",
            2 => "`{i}`",
            3 => "`{c}()`",
            4 => "`{C}`",
            5 => "{h}",
            6 => "{u}",
            _ => return self.backticked_command(rng, out),
        };
        self.expand(template, rng, out);
    }

    /// Appends an English word as a sentence in another language embeds it.
    pub fn word(&self, rng: &mut Rng, out: &mut String) {
        out.push_str(self.embedded.sample(rng));
    }

    /// Appends a shell command in backticks.
    fn backticked_command(&self, rng: &mut Rng, out: &mut String) {
        out.push('`');
        self.expand(rng.pick(COMMANDS), rng, out);
        out.push('`');
    }

    /// Appends one to four log lines.
    fn log_lines(&self, rng: &mut Rng, out: &mut String) {
        for line in 0..rng.between(1, 4) {
            if line > 0 {
                out.push('\n');
            }
            self.expand(rng.pick(LOGS), rng, out);
        }
    }

    /// Appends a fenced code block of three to ten lines.
    fn code_block(&self, rng: &mut Rng, out: &mut String) {
        let (language, lines) = rng.pick(CODE);
        out.push_str("```");
        out.push_str(language);
        for _ in 0..rng.between(3, 10) {
            out.push('\n');
            self.expand(rng.pick(lines), rng, out);
        }
        out.push_str("\n```");
    }

    /// Appends `template` with its placeholders filled in.
    pub fn expand(&self, template: &str, rng: &mut Rng, out: &mut String) {
        let mut chars = template.chars();
        while let Some(c) = chars.next() {
            match c {
                '{' => match chars.next() {
                    Some('{') => out.push('{'),
                    Some(key) => {
                        chars.next(); // the closing brace
                        self.fill(key, rng, out);
                    }
                    None => out.push('{'),
                },
                '}' => {
                    chars.next(); // the doubled brace
                    out.push('}');
                }
                _ => out.push(c),
            }
        }
    }

    /// Appends a value for placeholder `key`.
    fn fill(&self, key: char, rng: &mut Rng, out: &mut String) {
        match key {
            'i' => self.identifier(rng, '_', false, out),
            'c' => self.identifier(rng, '\0', false, out),
            'C' => self.identifier(rng, '\0', true, out),
            'I' => {
                let start = out.len();
                self.identifier(rng, '_', false, out);
                out[start..].make_ascii_uppercase();
            }
            'w' => out.push_str(self.words.sample(rng)),
            'p' => self.path(rng, out),
            'a' => self.absolute_path(rng, out),
            'd' => out.push_str(rng.pick(DIRS)),
            'e' => out.push_str(rng.pick(EXTENSIONS)),
            'h' => hex(rng, 7, out),
            'H' => hex(rng, 40, out),
            'u' => self.expand(rng.pick(URLS), rng, out),
            'n' => out.push_str(&number(rng).to_string()),
            'v' => out.push_str(&format!(
                "{}.{}.{}",
                rng.below(4),
                rng.below(30),
                rng.below(20)
            )),
            't' => timestamp(rng, out),
            _ => unreachable!("unknown placeholder {{{key}}}"),
        }
    }

    /// Appends an identifier of two or three words: `snake_case` when
    /// `separator` is `_`, otherwise camelCase (PascalCase if `pascal`).
    fn identifier(&self, rng: &mut Rng, separator: char, pascal: bool, out: &mut String) {
        let mut previous = "";
        for i in 0..rng.between(2, 3) {
            let word = self.words.sample_other(rng, previous);
            previous = word;
            if separator == '_' {
                if i > 0 {
                    out.push('_');
                }
                out.push_str(word);
            } else if i > 0 || pascal {
                let mut chars = word.chars();
                out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
                out.push_str(chars.as_str());
            } else {
                out.push_str(word);
            }
        }
    }

    /// Appends a relative path, or one of the famous ones.
    fn path(&self, rng: &mut Rng, out: &mut String) {
        if rng.chance(0.3) {
            out.push_str(rng.pick(FAMOUS_PATHS));
            return;
        }
        out.push_str(rng.pick(DIRS));
        out.push('/');
        self.file_name(rng, out);
    }

    /// Appends an absolute path.
    fn absolute_path(&self, rng: &mut Rng, out: &mut String) {
        out.push_str(rng.pick(ROOTS));
        out.push('/');
        if rng.chance(0.5) {
            out.push_str(self.words.sample(rng));
            out.push('/');
        }
        self.file_name(rng, out);
    }

    /// Appends `snake_name.ext`.
    fn file_name(&self, rng: &mut Rng, out: &mut String) {
        self.identifier(rng, '_', false, out);
        out.push('.');
        out.push_str(rng.pick(EXTENSIONS));
    }
}

/// A number with a skewed size: mostly small, sometimes large.
fn number(rng: &mut Rng) -> u64 {
    let digits = rng.between(1, 5) as u32;
    rng.next_u64() % 10u64.pow(digits)
}

/// Appends `digits` lower-case hex digits.
fn hex(rng: &mut Rng, digits: usize, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for _ in 0..digits {
        out.push(char::from(HEX[rng.below(16)]));
    }
}

/// Appends an ISO 8601 timestamp in 2025.
fn timestamp(rng: &mut Rng, out: &mut String) {
    out.push_str(&format!(
        "2025-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        rng.between(1, 12),
        rng.between(1, 28),
        rng.below(24),
        rng.below(60),
        rng.below(60),
        rng.below(1000)
    ));
}
