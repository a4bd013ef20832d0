//! Model-based test of visibility while sessions change: random creations
//! (spawners that exist, do not exist yet, or form cycles), moves to another
//! spawner or agent, deletions and rolled-back moves, against a plain
//! oracle. After every step, for every session as caller and every
//! visibility, `sessions_search` returns exactly the sessions docs/sql.md ("Visibility") makes
//! visible. This pins the scope words of the index (sql/schema.sql), which
//! must follow every change in the same transaction.

use proptest::prelude::*;
use session_search::{NewMessage, NewSession, Role, SearchRequest, Store, Visibility};
use std::collections::{BTreeMap, BTreeSet};

const SESSIONS: u8 = 6;
const AGENTS: u8 = 2;

#[derive(Debug, Clone)]
enum Op {
    Create {
        session: u8,
        agent: u8,
        spawner: Option<u8>,
    },
    Move {
        session: u8,
        spawner: Option<u8>,
    },
    ChangeAgent {
        session: u8,
        agent: u8,
    },
    Delete(u8),
    RolledBackMove {
        session: u8,
        spawner: Option<u8>,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let session = 0..SESSIONS;
    let spawner = proptest::option::weighted(0.7, 0..SESSIONS);
    prop_oneof![
        4 => (session.clone(), 0..AGENTS, spawner.clone())
            .prop_map(|(session, agent, spawner)| Op::Create { session, agent, spawner }),
        2 => (session.clone(), spawner.clone())
            .prop_map(|(session, spawner)| Op::Move { session, spawner }),
        1 => (session.clone(), 0..AGENTS).prop_map(|(session, agent)| Op::ChangeAgent { session, agent }),
        1 => session.clone().prop_map(Op::Delete),
        1 => (session, spawner).prop_map(|(session, spawner)| Op::RolledBackMove { session, spawner }),
    ]
}

fn key(session: u8) -> String {
    format!("agent:model:{session}")
}

/// The oracle: each existing session's agent and spawner.
#[derive(Debug, Default)]
struct Oracle {
    sessions: BTreeMap<u8, (u8, Option<u8>)>,
}

impl Oracle {
    /// docs/sql.md, "Visibility": self, tree (transitively spawned, through existing
    /// sessions), agent.
    fn visible(&self, caller: u8, visibility: Visibility) -> BTreeSet<String> {
        let keys: BTreeSet<u8> = match visibility {
            Visibility::Own => [caller].into(),
            Visibility::Tree => {
                let mut seen: BTreeSet<u8> = [caller].into();
                loop {
                    let more: Vec<u8> = self
                        .sessions
                        .iter()
                        .filter(|(s, (_, spawner))| {
                            !seen.contains(s) && spawner.is_some_and(|p| seen.contains(&p))
                        })
                        .map(|(&s, _)| s)
                        .collect();
                    if more.is_empty() {
                        break seen;
                    }
                    seen.extend(more);
                }
            }
            Visibility::Agent => {
                let agent = self.sessions[&caller].0;
                self.sessions
                    .iter()
                    .filter(|(_, (a, _))| *a == agent)
                    .map(|(&s, _)| s)
                    .collect()
            }
            Visibility::All => self.sessions.keys().copied().collect(),
        };
        keys.into_iter().map(key).collect()
    }
}

fn set_spawner(store: &Store, session: u8, spawner: Option<u8>) -> rusqlite::Result<usize> {
    store.connection().execute(
        "UPDATE sessions SET spawned_by = ?2 WHERE session_key = ?1",
        (key(session), spawner.map(key)),
    )
}

fn found(store: &Store, caller: u8, visibility: Visibility) -> BTreeSet<String> {
    let mut request = SearchRequest::new("kiwi", key(caller));
    request.options.visibility = visibility;
    request.options.limit = Some(25);
    store
        .search(&request)
        .unwrap()
        .results
        .into_iter()
        .map(|hit| hit.session_key)
        .collect()
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let store = Store::open_in_memory().unwrap();
    let mut oracle = Oracle::default();
    for (clock, op) in (1..).zip(ops) {
        match op {
            Op::Create {
                session,
                agent,
                spawner,
            } => {
                if oracle.sessions.contains_key(&session) {
                    continue;
                }
                store
                    .create_session(&NewSession {
                        session_key: key(session),
                        agent_id: format!("agent-{agent}"),
                        spawned_by: spawner.map(key),
                        created_at: clock,
                    })
                    .unwrap();
                store
                    .append(&NewMessage {
                        session_key: key(session),
                        role: Role::User,
                        content: format!("kiwi from session {session}"),
                        created_at: clock,
                        ..NewMessage::default()
                    })
                    .unwrap();
                oracle.sessions.insert(session, (agent, spawner));
            }
            Op::Move { session, spawner } => {
                if let Some(entry) = oracle.sessions.get_mut(&session) {
                    set_spawner(&store, session, spawner).unwrap();
                    entry.1 = spawner;
                }
            }
            Op::ChangeAgent { session, agent } => {
                if let Some(entry) = oracle.sessions.get_mut(&session) {
                    store
                        .connection()
                        .execute(
                            "UPDATE sessions SET agent_id = ?2 WHERE session_key = ?1",
                            (key(session), format!("agent-{agent}")),
                        )
                        .unwrap();
                    entry.0 = agent;
                }
            }
            Op::Delete(session) => {
                let deleted = store.delete_session(&key(session)).unwrap();
                prop_assert_eq!(deleted, oracle.sessions.remove(&session).is_some());
            }
            Op::RolledBackMove { session, spawner } => {
                store.connection().execute_batch("BEGIN").unwrap();
                set_spawner(&store, session, spawner).unwrap();
                store.connection().execute_batch("ROLLBACK").unwrap();
            }
        }
        for &caller in oracle.sessions.keys() {
            for visibility in [
                Visibility::Own,
                Visibility::Tree,
                Visibility::Agent,
                Visibility::All,
            ] {
                prop_assert_eq!(
                    found(&store, caller, visibility),
                    oracle.visible(caller, visibility),
                    "caller {} visibility {:?} after {:?}",
                    caller,
                    visibility,
                    oracle.sessions
                );
            }
        }
    }
    let status = store.status().unwrap();
    prop_assert_eq!(status.integrity.as_deref(), Some("ok"));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn search_sees_exactly_the_visible_sessions(ops in proptest::collection::vec(op(), 1..30)) {
        run(ops)?;
    }
}
