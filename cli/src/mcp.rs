//! `session-search mcp`: a Model Context Protocol server over stdio with the
//! tools `sessions_search`, `sessions_history` and `sessions_list`.
//!
//! Who is asking is the server's configuration, never a tool argument: a
//! host pins `--caller` (and `--visibility`, `--sandboxed`), and without a
//! caller the database's owner is asking, so every session is visible.
//! Every answer is structured content (the JSON of the SQL function) plus
//! readable text; a bad argument is a tool error whose text says what was
//! wrong, so the model can correct itself.

use crate::{first_session, time_bound, Failure};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use session_search::timestamp::format_iso8601;
use session_search::{
    GroupBy, HistoryOptions, ListOptions, MessageRef, Order, Role, SearchOptions, SearchRequest,
    Store, Visibility,
};
use session_search_import::resolve_session_key;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// Whose view the tools take.
#[derive(Clone)]
pub struct Viewer {
    /// The caller session; `None` for the database owner (visibility `all`).
    pub caller: Option<String>,
    /// Applied with a caller.
    pub visibility: Visibility,
    /// Clamps the caller to `tree`.
    pub sandboxed: bool,
}

/// Serves the tools on stdin/stdout until the client closes the stream.
pub fn serve(store: Store, viewer: Viewer) -> Result<(), String> {
    let server = Server {
        store: Arc::new(Mutex::new(store)),
        viewer,
        tool_router: Server::tool_router(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the MCP server: {e}"))?;
    runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("MCP initialisation failed: {e}"))?;
        running
            .waiting()
            .await
            .map_err(|e| format!("MCP server stopped: {e}"))?;
        Ok(())
    })
}

#[derive(Clone)]
struct Server {
    store: Arc<Mutex<Store>>,
    viewer: Viewer,
    tool_router: ToolRouter<Server>,
}

/// Tool arguments decoded by the tool itself, so that a wrong type or an
/// unknown field is a tool error the model reads, not a protocol error. The
/// input schema is `T`'s.
struct Checked<T>(Result<T, String>);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        Ok(Checked(
            serde_json::from_value(value).map_err(|e| format!("invalid arguments: {e}")),
        ))
    }
}

impl<T: JsonSchema> JsonSchema for Checked<T> {
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

/// A point in time: unix milliseconds, or an ISO 8601 date or date-time.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum Time {
    /// Unix milliseconds.
    Millis(i64),
    /// `2025-11-04` or `2025-11-04T09:30:00Z`.
    Text(String),
}

impl Time {
    /// Unix ms; a date as `until` means its last millisecond.
    fn millis(time: &Option<Time>, end_of_day: bool) -> Result<Option<i64>, String> {
        match time {
            None => Ok(None),
            Some(Time::Millis(ms)) => Ok(Some(*ms)),
            Some(Time::Text(text)) => time_bound(text, end_of_day).map(Some),
        }
    }
}

/// Searchable roles.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum SearchRole {
    /// What the person wrote.
    User,
    /// What the agent answered.
    Assistant,
}

/// Result grouping.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Grouping {
    /// One best hit per session.
    Session,
}

/// Result order.
#[derive(Deserialize, JsonSchema, Clone, Copy, Default)]
#[serde(rename_all = "lowercase")]
enum SearchOrder {
    /// Best match first (BM25).
    #[default]
    Relevance,
    /// Newest first.
    Recent,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SearchArgs {
    /// Exact words to find, as they would appear in the conversation: `staging
    /// deploy` finds messages containing both words (any order, any case or
    /// accents); "quoted phrase" for words next to each other; `deplo*` for a
    /// prefix; `a OR b` for either. Chinese/Japanese/Korean text matches any
    /// substring. Fewer than `limit` all-word matches are topped up with the
    /// best partial matches (marked `partial`, with the words each holds in
    /// `matched`), which may also match other forms of a word (deployment
    /// for deploy) and pieces of CJK text.
    query: String,
    /// 1-25 results (default 10).
    limit: Option<i64>,
    /// Only messages of these roles.
    roles: Option<Vec<SearchRole>>,
    /// Only messages at or after this time.
    since: Option<Time>,
    /// Only messages at or before this time (a date means its end).
    until: Option<Time>,
    /// Only these sessions (keys from earlier results or sessions_list).
    session_keys: Option<Vec<String>>,
    /// `relevance` (default) or `recent`.
    order: Option<SearchOrder>,
    /// `session`: one best hit per session, with the session's hit count.
    group_by: Option<Grouping>,
    /// Longest excerpt in characters, 1-300 (default 300).
    snippet_chars: Option<i64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct HistoryArgs {
    /// The session to read (`sessionKey` of a search hit or of sessions_list;
    /// without a pinned caller, a unique start of it will do).
    session_key: String,
    /// Centre on this message: the `messageId` of a search hit.
    around: Option<String>,
    /// Messages before `around`, 0-100 (default 5).
    before: Option<i64>,
    /// Messages after `around`, 0-100 (default 5).
    after: Option<i64>,
    /// Most messages, 1-200 (default 50); without `around`, the newest.
    limit: Option<i64>,
    /// Longest text per message in characters, 1-20000 (default 2000).
    max_chars: Option<i64>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ListArgs {
    /// Only sessions of this agent.
    agent: Option<String>,
    /// Only sessions whose key starts with this text.
    prefix: Option<String>,
    /// Only sessions last active at or after this time.
    since: Option<Time>,
    /// Only sessions last active at or before this time.
    until: Option<Time>,
    /// 1-100 sessions (default 20).
    limit: Option<i64>,
    /// Sessions skipped first, for the next page.
    offset: Option<i64>,
}

#[tool_router(router = tool_router)]
impl Server {
    /// Full-text search over past conversations.
    #[tool(
        name = "sessions_search",
        description = "Search past agent conversations for exact words. Use the distinctive words \
            the conversation would have contained (names, errors, commands, file names), not a \
            question: `staging deploy timeout` rather than `when did we talk about deploys?`. \
            Quote phrases (\"connection refused\"), use `deplo*` for prefixes and `OR` for \
            alternatives. Each hit gives sessionKey, messageId, role, time and a redacted \
            excerpt; open the surrounding conversation with sessions_history(sessionKey, \
            around=messageId). groupBy=session gives one hit per session. Hits with every \
            word come first; `partial` hits hold only the words in their `matched` and are \
            weaker guesses. When fewer than `limit` hits hold every word, `terms` says how \
            many messages hold each word: search again without a word that matched nothing \
            (messages 0), or with another spelling or a synonym of it; a word found in 1000+ \
            messages narrows little."
    )]
    async fn search(&self, Parameters(args): Parameters<Checked<SearchArgs>>) -> CallToolResult {
        self.answer(args.0.and_then(|args| self.run_search(args)))
    }

    /// A window of one session's conversation.
    #[tool(
        name = "sessions_history",
        description = "Read a past conversation: the messages of one session's active branch in \
            order (tool output and reasoning summarised, secrets redacted). Pass around=<messageId \
            of a search hit> with before/after to see what led to it and what followed; without \
            around, the newest messages."
    )]
    async fn history(&self, Parameters(args): Parameters<Checked<HistoryArgs>>) -> CallToolResult {
        self.answer(args.0.and_then(|args| self.run_history(args)))
    }

    /// The visible sessions, newest activity first.
    #[tool(
        name = "sessions_list",
        description = "List past sessions, newest activity first, with key, agent, times, \
            message count and a title (the first user message). Page with offset; filter by \
            agent, key prefix or time."
    )]
    async fn list(&self, Parameters(args): Parameters<Checked<ListArgs>>) -> CallToolResult {
        self.answer(args.0.and_then(|args| self.run_list(args)))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "session-search",
                session_search_engine::VERSION,
            ))
            .with_instructions(
                "Memory of past agent conversations. Search with sessions_search (exact words, \
                 quoted phrases, prefixes), then read context with sessions_history around a \
                 hit's messageId; browse with sessions_list.",
            )
    }
}

/// A tool's answer: the structured JSON and its readable text.
struct Answer {
    json: serde_json::Value,
    text: String,
}

impl Server {
    /// The caller and visibility of every call: the pinned caller, or the
    /// owner's view of everything.
    fn view(&self, store: &Store) -> Result<(String, Visibility, bool), String> {
        match &self.viewer.caller {
            Some(caller) => Ok((
                caller.clone(),
                self.viewer.visibility,
                self.viewer.sandboxed,
            )),
            None => Ok((
                first_session(store).map_err(|failure| match failure {
                    Failure::Message(message) => message,
                    Failure::Closed => "stdout closed".to_owned(),
                })?,
                Visibility::All,
                false,
            )),
        }
    }

    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        // A panic while holding the lock cannot leave the store half-written
        // (every write is a transaction), so a poisoned lock is still usable.
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn answer(&self, result: Result<Answer, String>) -> CallToolResult {
        match result {
            Ok(answer) => {
                let mut result = CallToolResult::structured(answer.json);
                result.content = vec![ContentBlock::text(answer.text)];
                result
            }
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        }
    }

    fn run_search(&self, args: SearchArgs) -> Result<Answer, String> {
        let store = self.store();
        let (caller, visibility, sandboxed) = self.view(&store)?;
        let options = SearchOptions {
            caller: Some(caller),
            visibility,
            sandboxed,
            limit: args.limit,
            roles: args.roles.map(|roles| {
                roles
                    .into_iter()
                    .map(|role| match role {
                        SearchRole::User => Role::User,
                        SearchRole::Assistant => Role::Assistant,
                    })
                    .collect()
            }),
            since: Time::millis(&args.since, false)?,
            until: Time::millis(&args.until, true)?,
            session_keys: args.session_keys,
            order: match args.order.unwrap_or_default() {
                SearchOrder::Relevance => Order::Relevance,
                SearchOrder::Recent => Order::Recent,
            },
            group_by: args.group_by.map(|Grouping::Session| GroupBy::Session),
            snippet_chars: args.snippet_chars,
            ..SearchOptions::default()
        };
        let response = store
            .search(&SearchRequest {
                query: args.query,
                options,
            })
            .map_err(|e| e.to_string())?;
        let mut text = String::new();
        for (n, hit) in response.results.iter().enumerate() {
            let _ = write!(
                text,
                "{}. {} · {} · {} · messageId {}",
                n + 1,
                hit.session_key,
                format_iso8601(hit.timestamp),
                hit.role,
                hit.message_id
            );
            if let Some(hits) = hit.hits {
                let _ = write!(text, " · {hits} hits in this session");
            }
            if hit.partial {
                let _ = write!(text, " · partial match: {}", hit.matched.join(", "));
            }
            let _ = writeln!(text, "\n   {}", hit.snippet);
        }
        if response.results.is_empty() {
            text.push_str(
                "No matches. Try other exact words, fewer words, or a prefix (deplo*).\n",
            );
        }
        if let Some(terms) = &response.terms {
            let counts: Vec<String> = terms
                .iter()
                .filter_map(|term| {
                    let messages = term.messages?;
                    let plus = if term.at_least { "+" } else { "" };
                    Some(match term.other_forms {
                        Some(others) if others > 0 => {
                            format!("{} {messages}{plus} (+{others} in other forms)", term.term)
                        }
                        _ => format!("{} {messages}{plus}", term.term),
                    })
                })
                .collect();
            let _ = writeln!(text, "Messages holding each word: {}.", counts.join(", "));
        }
        if response.truncated {
            text.push_str("More matches exist: raise limit or narrow the search.\n");
        }
        if let Some(warning) = &response.warning {
            let _ = writeln!(text, "Note: {warning}.");
        }
        Ok(Answer {
            json: to_json(&response)?,
            text,
        })
    }

    fn run_history(&self, args: HistoryArgs) -> Result<Answer, String> {
        let store = self.store();
        let (session_key, (caller, visibility, sandboxed)) = match &self.viewer.caller {
            Some(_) => (args.session_key, self.view(&store)?),
            // The owner names a session as on the command line (a unique
            // start of its key will do) and reads it as itself. A pinned
            // caller names it whole: a start could tell of keys it cannot
            // see.
            None => {
                let key =
                    resolve_session_key(&store, &args.session_key).map_err(|e| e.to_string())?;
                (key.clone(), (key, Visibility::Own, false))
            }
        };
        let options = HistoryOptions {
            caller: Some(caller),
            visibility,
            sandboxed,
            around: args.around.map(MessageRef::Text),
            before: args.before,
            after: args.after,
            limit: args.limit,
            max_chars: args.max_chars,
            ..HistoryOptions::default()
        };
        let response = store
            .history(&session_key, &options)
            .map_err(|e| e.to_string())?;
        let mut text = format!("Session {}\n", response.session_key);
        if response.before > 0 {
            let _ = writeln!(text, "({} earlier messages not shown)", response.before);
        }
        for message in &response.messages {
            let _ = writeln!(
                text,
                "\n[{} · {} · messageId {}]\n{}",
                format_iso8601(message.timestamp),
                message.role,
                message.message_id,
                message.text
            );
        }
        if response.after > 0 {
            let _ = writeln!(text, "\n({} later messages not shown)", response.after);
        }
        Ok(Answer {
            json: to_json(&response)?,
            text,
        })
    }

    fn run_list(&self, args: ListArgs) -> Result<Answer, String> {
        let store = self.store();
        let (caller, visibility, sandboxed) = self.view(&store)?;
        let options = ListOptions {
            caller: Some(caller),
            visibility,
            sandboxed,
            agent: args.agent,
            prefix: args.prefix,
            since: Time::millis(&args.since, false)?,
            until: Time::millis(&args.until, true)?,
            limit: args.limit,
            offset: args.offset,
            ..ListOptions::default()
        };
        let response = store.list(&options).map_err(|e| e.to_string())?;
        let mut text = String::new();
        for session in &response.sessions {
            let _ = writeln!(
                text,
                "{} · agent {} · last active {} · {} messages{}\n   {}",
                session.session_key,
                session.agent_id,
                format_iso8601(session.last_activity),
                session.messages,
                session
                    .spawned_by
                    .as_deref()
                    .map_or_else(String::new, |parent| format!(" · spawned by {parent}")),
                session.title
            );
        }
        if response.sessions.is_empty() {
            text.push_str("No sessions.\n");
        }
        if response.truncated {
            let next = options.offset.unwrap_or(0) + response.sessions.len() as i64;
            let _ = writeln!(text, "More sessions follow: ask again with offset {next}.");
        }
        Ok(Answer {
            json: to_json(&response)?,
            text,
        })
    }
}

fn to_json(value: &impl Serialize) -> Result<serde_json::Value, String> {
    serde_json::to_value(value).map_err(|e| e.to_string())
}
