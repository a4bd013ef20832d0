//! Message content: plain text, or a JSON array of content blocks in the
//! common agent formats (docs/sql.md, "Schema and write path").

use serde_json::Value;
use std::borrow::Cow;

/// Block types whose `text` is what the user or the assistant wrote.
const TEXT_BLOCK_TYPES: [&str; 3] = ["text", "input_text", "output_text"];

/// The searchable text of a message's content: the `text` of its text blocks
/// joined by newlines when the content is a JSON array of content blocks
/// (objects with a string `type`), otherwise the content itself. `None` when
/// there is nothing to search (no text blocks, or empty text).
///
/// Invalid UTF-8 is replaced by U+FFFD, so the result is a pure function of
/// the bytes and the same text is produced when an entry is later removed.
pub fn searchable_text(content: &[u8]) -> Option<Cow<'_, str>> {
    let text = String::from_utf8_lossy(content);
    let text = match blocks(&text) {
        Some(blocks) => {
            let parts: Vec<&str> = blocks
                .iter()
                .filter(|block| {
                    block["type"]
                        .as_str()
                        .is_some_and(|t| TEXT_BLOCK_TYPES.contains(&t))
                })
                .filter_map(|block| block["text"].as_str())
                .collect();
            Cow::Owned(parts.join("\n"))
        }
        None => text,
    };
    (!text.is_empty()).then_some(text)
}

/// What a message shows in history: the text of user and assistant messages,
/// with every other block summarised by its type (`[reasoning]`,
/// `[tool call: bash]`, `[tool result]`, `[image]`), and tool and system
/// messages summarised whole. Not yet redacted.
pub fn history_text(role: &str, content: &[u8]) -> String {
    let text = String::from_utf8_lossy(content);
    match role {
        "user" | "assistant" => {}
        "tool" => return format!("[tool result: {} characters]", text.chars().count()),
        other => return format!("[{other} message: {} characters]", text.chars().count()),
    }
    let Some(blocks) = blocks(&text) else {
        return text.into_owned();
    };
    let parts: Vec<String> = blocks
        .iter()
        .map(|block| {
            let kind = block["type"].as_str().unwrap_or_default();
            match kind {
                _ if TEXT_BLOCK_TYPES.contains(&kind) => {
                    block["text"].as_str().unwrap_or_default().to_owned()
                }
                "thinking" | "reasoning" | "redacted_thinking" => "[reasoning]".to_owned(),
                "tool_use" | "toolCall" | "function_call" => match block["name"].as_str() {
                    Some(name) => format!("[tool call: {name}]"),
                    None => "[tool call]".to_owned(),
                },
                "tool_result" | "toolResult" | "function_call_output" => "[tool result]".to_owned(),
                "image" | "input_image" => "[image]".to_owned(),
                other => format!("[{other}]"),
            }
        })
        .collect();
    parts.join("\n")
}

/// The content blocks of `content`, if it is a JSON array of objects that
/// each have a string `type`.
pub fn blocks(content: &str) -> Option<Vec<Value>> {
    if !content.trim_start().starts_with('[') {
        return None;
    }
    let Ok(Value::Array(items)) = serde_json::from_str::<Value>(content) else {
        return None;
    };
    items
        .iter()
        .all(|item| item.get("type").is_some_and(Value::is_string))
        .then_some(items)
}

#[cfg(test)]
mod tests {
    use super::searchable_text;

    fn text(content: &str) -> Option<String> {
        searchable_text(content.as_bytes()).map(std::borrow::Cow::into_owned)
    }

    #[test]
    fn plain_text_is_its_own_text() {
        assert_eq!(
            text("deploy to staging").as_deref(),
            Some("deploy to staging")
        );
        assert_eq!(text(""), None);
    }

    #[test]
    fn text_blocks_of_every_format_are_joined() {
        let content = r#"[{"type":"text","text":"first"},{"type":"input_text","text":"second"},{"type":"output_text","text":"third"}]"#;
        assert_eq!(text(content).as_deref(), Some("first\nsecond\nthird"));
    }

    #[test]
    fn tool_reasoning_and_image_blocks_are_not_searchable() {
        let content = r#"[
            {"type":"thinking","thinking":"secret plan"},
            {"type":"reasoning","text":"hidden"},
            {"type":"tool_use","name":"bash","input":{"cmd":"ls"}},
            {"type":"toolCall","name":"read","arguments":{}},
            {"type":"tool_result","content":[{"type":"text","text":"output"}]},
            {"type":"image","source":{"data":"AAAA"}},
            {"type":"text","text":"visible"}
        ]"#;
        assert_eq!(text(content).as_deref(), Some("visible"));
        assert_eq!(text(r#"[{"type":"tool_result","content":"x"}]"#), None);
    }

    #[test]
    fn malformed_or_foreign_json_stays_plain_text() {
        for content in [
            r#"[{"type":"text","text":"unclosed"#,
            "[1, 2, 3]",
            r#"["a", "b"]"#,
            "[]x",
        ] {
            assert_eq!(text(content).as_deref(), Some(content));
        }
        assert_eq!(text("[]"), None);
    }

    #[test]
    fn history_summarises_what_is_not_text() {
        let content = r#"[{"type":"thinking","thinking":"plan"},{"type":"text","text":"Done."},{"type":"tool_use","name":"bash","input":{}},{"type":"image","source":{}}]"#;
        assert_eq!(
            super::history_text("assistant", content.as_bytes()),
            "[reasoning]\nDone.\n[tool call: bash]\n[image]"
        );
        assert_eq!(
            super::history_text("tool", b"output!"),
            "[tool result: 7 characters]"
        );
        assert_eq!(super::history_text("user", b"plain"), "plain");
    }

    #[test]
    fn invalid_utf8_is_replaced_deterministically() {
        assert_eq!(
            searchable_text(b"ok \xFF fine").as_deref(),
            Some("ok \u{FFFD} fine")
        );
    }
}
