//! A project with its own rusqlite uses session-search: the wrapper
//! registers into the project's connection, and its typed Store works too.

use rusqlite::Connection;
use session_search::{NewMessage, NewSession, Role, SearchRequest, Store};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let conn = Connection::open_in_memory()?;
    session_search::register(&conn)?;
    conn.query_row("SELECT sessions_init()", [], |_| Ok(()))?;
    conn.execute_batch(
        "INSERT INTO sessions(session_key, agent_id, created_at) VALUES ('agent:main:1', 'main', 1);
         INSERT INTO messages(session_key, role, content, created_at)
           VALUES ('agent:main:1', 'user', 'Deploy staging to 東京', 2);",
    )?;
    let json: String = conn.query_row(
        "SELECT sessions_search('東京 staging', '{\"caller\":\"agent:main:1\"}')",
        [],
        |row| row.get(0),
    )?;
    assert!(json.contains("\"sessionKey\":\"agent:main:1\""), "{json}");

    let store = Store::open_in_memory()?;
    store.create_session(&NewSession {
        session_key: "agent:main:2".into(),
        agent_id: "main".into(),
        created_at: 1,
        ..Default::default()
    })?;
    store.append(&NewMessage {
        session_key: "agent:main:2".into(),
        role: Role::Assistant,
        content: "the staging deploy is done".into(),
        created_at: 2,
        ..Default::default()
    })?;
    let found = store.search(&SearchRequest::new("deploy", "agent:main:2"))?;
    assert_eq!(found.results.len(), 1);
    assert_eq!(found.results[0].role, Role::Assistant);
    println!("SQLite {}: ok", rusqlite::version());
    Ok(())
}
