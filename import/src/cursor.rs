//! Cursor's chats, read from its SQLite databases without the editor:
//! `User/globalStorage/state.vscdb` and, in older versions,
//! `User/workspaceStorage/<hash>/state.vscdb`, under Cursor's settings
//! folder.
//!
//! Both are key-value tables of JSON. In the global database's
//! `cursorDiskKV`, `composerData:<composerId>` is a conversation (a
//! "composer": `createdAt` in milliseconds, `name`, and the ids of its
//! messages in order in `fullConversationHeadersOnly`, or, in older
//! versions, the messages themselves in `conversation`), and
//! `bubbleId:<composerId>:<bubbleId>` one message (a "bubble": `type` 1
//! the user's, 2 the assistant's, `text`, `thinking`, `toolFormerData`
//! for a tool call with its result, `createdAt`). A composer is the
//! session `cursor:<composerId>`, a bubble the message `<bubbleId>`; the
//! composers a composer ran (`subComposerIds`) are spawned by it. Older
//! workspace databases keep the chat panel's tabs in `ItemTable`
//! (`workbench.panel.aichat.view.aichat.chatdata`: `tabs` of `bubbles`,
//! `type` `user` or `ai`), each the session `cursor:<tabId>`, at the
//! tab's last send time (the only time they have), and may keep
//! composers inline (`composer.composerData`, `allComposers`).
//!
//! What the user typed and the assistant's text are searchable; thinking,
//! tool calls and their results, and images are stored, not searchable. A
//! bubble that is missing or not JSON is reported with the composer's
//! number (in key order) and its key. Conversations are linear. The agent
//! is `cursor`.

use super::blocks::{text_block, unix_ms, user_message};
use super::database::{self, DatabaseReader};
use super::locations::{Tool, EDITOR_DATA};
use super::records::Sessions;
use super::registry::Importer;
use super::writer::{HostMessage, Parent, SessionInfo, Writer};
use super::Issue;
use super::{Format, Open};
use rusqlite::{Connection, OptionalExtension};
use serde_json::{json, Value};
use session_search::{Result, Role};
use std::collections::HashMap;
use std::path::Path;

/// The database's file name.
const DATABASE_NAME: &str = "state.vscdb";

/// The `ItemTable` keys of chats in older versions.
const LEGACY_CHAT: &str = "workbench.panel.aichat.view.aichat.chatdata";
const WORKSPACE_COMPOSERS: &str = "composer.composerData";

/// The key prefix of conversations in `cursorDiskKV`.
const COMPOSER: &str = "composerData:";

/// Whether `db` is one of Cursor's databases holding chats.
pub(super) fn recognises_database(db: &Connection) -> bool {
    database::has_table(db, "cursorDiskKV")
        || (database::has_table(db, "ItemTable")
            && [LEGACY_CHAT, WORKSPACE_COMPOSERS]
                .iter()
                .any(|key| item(db, key).ok().flatten().is_some()))
}

pub(super) fn open() -> database::Opened {
    database::Opened {
        reader: Box::new(StateVscdb),
        agent_id: "cursor".to_owned(),
    }
}

/// The value of `key` in `ItemTable`.
fn item(db: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
    db.prepare_cached("SELECT value FROM ItemTable WHERE key = ?1")?
        .query_row([key], |row| row.get_ref(0).map(database::text))
        .optional()
        .map(Option::flatten)
}

/// The value of `key` in `cursorDiskKV`.
fn disk_value(db: &Connection, key: &str) -> rusqlite::Result<Option<String>> {
    db.prepare_cached("SELECT value FROM cursorDiskKV WHERE key = ?1")?
        .query_row([key], |row| row.get_ref(0).map(database::text))
        .optional()
        .map(Option::flatten)
}

/// Reads `state.vscdb`.
struct StateVscdb;

impl DatabaseReader for StateVscdb {
    fn read(&mut self, db: &Connection, out: &mut Sessions<'_>) -> Result<rusqlite::Result<()>> {
        if database::has_table(db, "cursorDiskKV") {
            if let Err(e) = global_composers(db, out)? {
                return Ok(Err(e));
            }
        }
        if database::has_table(db, "ItemTable") {
            if let Err(e) = workspace_chats(db, out)? {
                return Ok(Err(e));
            }
        }
        Ok(Ok(()))
    }
}

/// The keys of the composers in `cursorDiskKV`, in key order, and each
/// sub-composer's parent.
fn composer_keys(db: &Connection) -> rusqlite::Result<(Vec<String>, HashMap<String, String>)> {
    let mut statement = db.prepare(
        "SELECT key, value FROM cursorDiskKV WHERE key >= 'composerData:' AND key < 'composerData;' ORDER BY key",
    )?;
    let mut rows = statement.query([])?;
    let (mut keys, mut parents) = (Vec::new(), HashMap::new());
    while let Some(row) = rows.next()? {
        let key: String = row.get(0)?;
        let value = row.get_ref(1)?;
        let children = value
            .as_bytes()
            .ok()
            .filter(|bytes| bytes.windows(14).any(|w| w == b"subComposerIds"))
            .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok());
        if let Some(composer) = children {
            let id = &key[COMPOSER.len()..];
            for child in composer["subComposerIds"].as_array().into_iter().flatten() {
                if let Some(child) = child.as_str() {
                    parents.insert(child.to_owned(), id.to_owned());
                }
            }
        }
        keys.push(key);
    }
    Ok((keys, parents))
}

/// Imports the composers of `cursorDiskKV`.
fn global_composers(db: &Connection, out: &mut Sessions<'_>) -> Result<rusqlite::Result<()>> {
    let (keys, parents) = match composer_keys(db) {
        Ok(found) => found,
        Err(e) => return Ok(Err(e)),
    };
    for (at, key) in keys.iter().enumerate() {
        out.set_record(at + 1);
        let read =
            disk_value(db, key).map(|value| value.map(|v| serde_json::from_str::<Value>(&v)));
        let composer = match read {
            Err(e) => return Ok(Err(e)),
            Ok(None) => {
                out.skip("composer without data");
                continue;
            }
            Ok(Some(Err(e))) => {
                out.issue(Issue::NotUnderstood {
                    reason: format!("{key}: not JSON ({e})"),
                });
                continue;
            }
            Ok(Some(Ok(composer))) => composer,
        };
        let id = &key[COMPOSER.len()..];
        let bubbles = match bubbles(db, id, &composer, out) {
            Ok(bubbles) => bubbles,
            Err(e) => return Ok(Err(e)),
        };
        write_composer(id, &composer, bubbles, parents.get(id), out)?;
    }
    Ok(Ok(()))
}

/// The bubbles of a composer, in order: the ones its headers name, or
/// the ones it holds inline. A bubble missing or not JSON is reported.
fn bubbles(
    db: &Connection,
    id: &str,
    composer: &Value,
    out: &mut Sessions<'_>,
) -> rusqlite::Result<Vec<Value>> {
    let Some(headers) = composer["fullConversationHeadersOnly"]
        .as_array()
        .filter(|headers| !headers.is_empty())
    else {
        return Ok(composer["conversation"]
            .as_array()
            .cloned()
            .unwrap_or_default());
    };
    let mut bubbles = Vec::with_capacity(headers.len());
    for header in headers {
        let Some(bubble_id) = header["bubbleId"].as_str() else {
            continue;
        };
        let key = format!("bubbleId:{id}:{bubble_id}");
        match disk_value(db, &key)?.map(|value| serde_json::from_str::<Value>(&value)) {
            Some(Ok(mut bubble)) => {
                if bubble["bubbleId"].is_null() {
                    bubble["bubbleId"] = Value::from(bubble_id);
                }
                bubbles.push(bubble);
            }
            Some(Err(e)) => out.issue(Issue::NotUnderstood {
                reason: format!("{key}: not JSON ({e})"),
            }),
            None => out.issue(Issue::NotUnderstood {
                reason: format!("{key} is missing"),
            }),
        }
    }
    Ok(bubbles)
}

/// Writes a composer's bubbles as the session `cursor:<id>`.
fn write_composer(
    id: &str,
    composer: &Value,
    bubbles: Vec<Value>,
    parent: Option<&String>,
    out: &mut Sessions<'_>,
) -> Result<()> {
    if bubbles.is_empty() {
        out.skip("composer without messages");
        return Ok(());
    }
    let info = SessionInfo {
        id: id.to_owned(),
        host_id: id.to_owned(),
        spawned_by: parent.cloned(),
        created_at: time(&composer["createdAt"]),
    };
    let record = out.record();
    out.session(info, |out| {
        for (at, bubble) in bubbles.into_iter().enumerate() {
            write_bubble(bubble, record, at, out)?;
        }
        Ok(())
    })
}

/// Imports the chats an older workspace database holds.
fn workspace_chats(db: &Connection, out: &mut Sessions<'_>) -> Result<rusqlite::Result<()>> {
    let (chats, composers) = match (item(db, LEGACY_CHAT), item(db, WORKSPACE_COMPOSERS)) {
        (Ok(chats), Ok(composers)) => (chats, composers),
        (Err(e), _) | (_, Err(e)) => return Ok(Err(e)),
    };
    let parse = |out: &mut Sessions<'_>, key: &str, value: Option<String>| {
        let value = value?;
        serde_json::from_str::<Value>(&value)
            .map_err(|e| {
                out.issue(Issue::NotUnderstood {
                    reason: format!("{key}: not JSON ({e})"),
                })
            })
            .ok()
    };
    let mut number = 0;
    if let Some(chats) = parse(out, LEGACY_CHAT, chats) {
        for tab in chats["tabs"].as_array().into_iter().flatten() {
            number += 1;
            out.set_record(number);
            write_tab(tab, out)?;
        }
    }
    if let Some(composers) = parse(out, WORKSPACE_COMPOSERS, composers) {
        for composer in composers["allComposers"].as_array().into_iter().flatten() {
            number += 1;
            out.set_record(number);
            let Some(id) = composer["composerId"].as_str() else {
                out.issue(Issue::NotUnderstood {
                    reason: format!("{WORKSPACE_COMPOSERS}: a composer without a composerId"),
                });
                continue;
            };
            match composer["conversation"].as_array() {
                Some(bubbles) => write_composer(id, composer, bubbles.clone(), None, out)?,
                // Only listed here; the global database holds it.
                None => out.skip("composer listed only"),
            }
        }
    }
    Ok(Ok(()))
}

/// Writes a chat panel tab as the session `cursor:<tabId>`.
fn write_tab(tab: &Value, out: &mut Sessions<'_>) -> Result<()> {
    let Some(id) = tab["tabId"].as_str() else {
        out.issue(Issue::NotUnderstood {
            reason: format!("{LEGACY_CHAT}: a tab without a tabId"),
        });
        return Ok(());
    };
    let bubbles = tab["bubbles"].as_array().cloned().unwrap_or_default();
    if bubbles.is_empty() {
        out.skip("chat tab without messages");
        return Ok(());
    }
    let info = SessionInfo {
        id: id.to_owned(),
        host_id: id.to_owned(),
        spawned_by: None,
        created_at: time(&tab["lastSendTime"]),
    };
    let record = out.record();
    out.session(info, |out| {
        for (at, bubble) in bubbles.into_iter().enumerate() {
            write_bubble(bubble, record, at, out)?;
        }
        Ok(())
    })
}

/// A time in milliseconds or ISO 8601 text.
fn time(value: &Value) -> Option<i64> {
    unix_ms(value).or_else(|| value.as_f64().map(|ms| ms.round() as i64))
}

/// Writes one bubble; `at` is its place in the conversation (its id when
/// it names none).
fn write_bubble(mut bubble: Value, record: usize, at: usize, out: &mut Writer<'_>) -> Result<()> {
    out.set_line(record);
    let id = bubble["bubbleId"]
        .as_str()
        .or(bubble["id"].as_str())
        .map_or_else(|| format!("B{}", at + 1), str::to_owned);
    let user = matches!(bubble["type"].as_i64(), Some(1)) || bubble["type"] == "user";
    let assistant = matches!(bubble["type"].as_i64(), Some(2))
        || bubble["type"] == "ai"
        || bubble["type"] == "assistant";
    let text = bubble["text"]
        .as_str()
        .filter(|text| !text.trim().is_empty())
        .or(bubble["rawText"].as_str())
        .filter(|text| !text.trim().is_empty())
        .map(str::to_owned);
    let mut blocks = Vec::new();
    let role = if user {
        blocks.extend(text.as_deref().map(text_block));
        let images = bubble["images"].as_array_mut().map(std::mem::take);
        for image in images.into_iter().flatten() {
            blocks.push(json!({"type": "image", "image": image}));
        }
        let (role, typed) = user_message(blocks);
        blocks = typed;
        role
    } else if assistant {
        blocks.extend(thinking(&mut bubble));
        blocks.extend(text.as_deref().map(text_block));
        blocks.extend(tool(&mut bubble["toolFormerData"]));
        Role::Assistant
    } else {
        out.skip_entry(
            &format!("bubble type {}", bubble["type"]),
            Some(&id),
            Parent::Previous,
        );
        return Ok(());
    };
    if blocks.is_empty() {
        out.skip_entry("empty bubble", Some(&id), Parent::Previous);
        return Ok(());
    }
    out.message(HostMessage {
        id,
        parent: Parent::Previous,
        role,
        content: blocks,
        created_at: time(&bubble["createdAt"]),
    })
}

/// A bubble's thinking, as thinking blocks.
fn thinking(bubble: &mut Value) -> Vec<Value> {
    let block = |text: &str| json!({"type": "thinking", "thinking": text});
    let single = bubble["thinking"]
        .as_str()
        .or(bubble["thinking"]["text"].as_str())
        .filter(|text| !text.trim().is_empty());
    if let Some(text) = single {
        return vec![block(text)];
    }
    bubble["allThinkingBlocks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|part| part["thinking"].as_str().or(part["text"].as_str()))
        .filter(|text| !text.trim().is_empty())
        .map(block)
        .collect()
}

/// A tool call and its result (`toolFormerData`), as tool blocks.
fn tool(data: &mut Value) -> Vec<Value> {
    if !data.is_object() {
        return Vec::new();
    }
    let input = match data["rawArgs"].take() {
        Value::Null => data["params"].take(),
        args => args,
    };
    let mut blocks = vec![json!({
        "type": "tool_use",
        "id": data["toolCallId"],
        "name": data["name"],
        "input": input,
    })];
    if !data["result"].is_null() {
        blocks.push(json!({
            "type": "tool_result",
            "tool_use_id": data["toolCallId"],
            "status": data["status"],
            "content": data["result"].take(),
        }));
    }
    blocks
}

/// Where Cursor keeps its chats, in the editors' data folder.
pub(super) const TOOLS: &[Tool] = &[Tool {
    name: "Cursor",
    variable: EDITOR_DATA.0,
    home_folder: EDITOR_DATA.1,
    folders: &[
        "Cursor/User/globalStorage/state.vscdb",
        "Cursor/User/workspaceStorage",
    ],
}];

/// The importer of Cursor's chat databases.
pub(super) struct CursorImporter;

impl Importer for CursorImporter {
    fn reads_file_named(&self, name: &str) -> bool {
        name == DATABASE_NAME
    }

    fn is_database_name(&self, name: &str) -> bool {
        name == DATABASE_NAME
    }

    fn recognises_database(&self, db: &Connection) -> bool {
        recognises_database(db)
    }

    fn open(&self, _format: Format, _path: &Path) -> Open {
        Open::Database(open())
    }
}
