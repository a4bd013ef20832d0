//! Model-based test of the transcript store: random sequences of writes
//! against a plain in-memory oracle. After every step, the set of messages a
//! search can find must equal the oracle's active-branch user/assistant
//! messages.

use proptest::prelude::*;
use session_search::{IndexingMode, NewMessage, NewSession, Role, Store};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone)]
enum Op {
    CreateSession(u8),
    Append {
        session: u8,
        role: u8,
        branch_from: Option<u8>,
    },
    Rewind {
        session: u8,
        to: Option<u8>,
    },
    DeleteSession(u8),
    DeleteMessage {
        session: u8,
        which: u8,
    },
    EditMessage {
        session: u8,
        which: u8,
        role: u8,
    },
    RolledBackAppend(u8),
    SetDeferred(bool),
    Reconcile(u8),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => (0..4u8).prop_map(Op::CreateSession),
        8 => (0..4u8, 0..4u8, proptest::option::weighted(0.3, any::<u8>()))
            .prop_map(|(session, role, branch_from)| Op::Append { session, role, branch_from }),
        3 => (0..4u8, proptest::option::weighted(0.9, any::<u8>()))
            .prop_map(|(session, to)| Op::Rewind { session, to }),
        1 => (0..4u8).prop_map(Op::DeleteSession),
        1 => (0..4u8, any::<u8>()).prop_map(|(session, which)| Op::DeleteMessage { session, which }),
        1 => (0..4u8, any::<u8>(), 0..4u8).prop_map(|(session, which, role)| Op::EditMessage { session, which, role }),
        1 => (0..4u8).prop_map(Op::RolledBackAppend),
        1 => any::<bool>().prop_map(Op::SetDeferred),
        1 => (1..20u8).prop_map(Op::Reconcile),
    ]
}

const ROLES: [Role; 4] = [Role::User, Role::Assistant, Role::Tool, Role::System];

/// One message of the oracle: its resolved parent and whether its role is
/// searchable.
#[derive(Debug, Clone)]
struct Node {
    parent: Option<i64>,
    searchable: bool,
}

#[derive(Debug, Default)]
struct Session {
    nodes: BTreeMap<i64, Node>,
    leaf: Option<i64>,
}

impl Session {
    fn active_branch(&self) -> Vec<i64> {
        let mut path = Vec::new();
        let mut at = self.leaf;
        while let Some(id) = at {
            path.push(id);
            at = self.nodes[&id].parent;
        }
        path
    }

    fn pick(&self, which: u8) -> Option<i64> {
        let ids: Vec<i64> = self.nodes.keys().copied().collect();
        (!ids.is_empty()).then(|| ids[usize::from(which) % ids.len()])
    }
}

fn key(session: u8) -> String {
    format!("agent:test:{session}")
}

/// Ids of every message whose text the index returns for the word all
/// contents share.
fn found(store: &Store) -> BTreeSet<i64> {
    let mut stmt = store
        .connection()
        .prepare("SELECT ~rowid FROM session_search_fts WHERE session_search_fts MATCH 'shared'")
        .unwrap();
    stmt.query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn content(n: i64) -> String {
    if n % 3 == 0 {
        format!(r#"[{{"type":"text","text":"shared word{n}"}},{{"type":"tool_use","name":"x"}}]"#)
    } else {
        format!("shared word{n} 東京{n}")
    }
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let store = Store::open_in_memory().unwrap();
    let mut oracle: BTreeMap<u8, Session> = BTreeMap::new();
    let mut deferred = false;
    let mut clock = 0;
    for op in ops {
        clock += 1;
        match op {
            Op::CreateSession(s) => {
                let created = store.create_session(&NewSession {
                    session_key: key(s),
                    agent_id: "test".into(),
                    created_at: clock,
                    ..Default::default()
                });
                prop_assert_eq!(created.is_ok(), !oracle.contains_key(&s));
                oracle.entry(s).or_default();
            }
            Op::Append {
                session,
                role,
                branch_from,
            } => {
                let parent = branch_from.and_then(|w| oracle.get(&session)?.pick(w));
                let appended = store.append(&NewMessage {
                    session_key: key(session),
                    parent_id: parent,
                    role: ROLES[usize::from(role)],
                    content: content(clock),
                    created_at: clock,
                    message_id: None,
                });
                match oracle.get_mut(&session) {
                    Some(s) => {
                        let id = appended.unwrap();
                        let parent = parent.or(s.leaf);
                        s.nodes.insert(
                            id,
                            Node {
                                parent,
                                searchable: role < 2,
                            },
                        );
                        s.leaf = Some(id);
                    }
                    None => prop_assert!(matches!(
                        appended,
                        Err(session_search::Error::UnknownSession(_))
                    )),
                }
            }
            Op::Rewind { session, to } => {
                let Some(s) = oracle.get_mut(&session) else {
                    continue;
                };
                let leaf = match to {
                    Some(w) => s.pick(w),
                    None => None,
                };
                store.rewind(&key(session), leaf).unwrap();
                s.leaf = leaf;
            }
            Op::DeleteSession(s) => {
                prop_assert_eq!(
                    store.delete_session(&key(s)).unwrap(),
                    oracle.remove(&s).is_some()
                );
            }
            Op::DeleteMessage { session, which } => {
                let Some(s) = oracle.get_mut(&session) else {
                    continue;
                };
                let Some(id) = s.pick(which) else { continue };
                store
                    .connection()
                    .execute("DELETE FROM messages WHERE id = ?1", [id])
                    .unwrap();
                let removed = s.nodes.remove(&id).unwrap();
                for node in s.nodes.values_mut() {
                    if node.parent == Some(id) {
                        node.parent = removed.parent;
                    }
                }
                if s.leaf == Some(id) {
                    s.leaf = removed.parent;
                }
            }
            Op::EditMessage {
                session,
                which,
                role,
            } => {
                let Some(s) = oracle.get_mut(&session) else {
                    continue;
                };
                let Some(id) = s.pick(which) else { continue };
                store
                    .connection()
                    .execute(
                        "UPDATE messages SET role = ?2, content = ?3 WHERE id = ?1",
                        rusqlite::params![id, ROLES[usize::from(role)].as_str(), content(clock)],
                    )
                    .unwrap();
                s.nodes.get_mut(&id).unwrap().searchable = role < 2;
            }
            Op::RolledBackAppend(session) => {
                let conn = store.connection();
                conn.execute_batch("BEGIN").unwrap();
                let _ = store.append(&NewMessage {
                    session_key: key(session),
                    role: Role::User,
                    content: content(clock),
                    created_at: clock,
                    ..Default::default()
                });
                conn.execute_batch("ROLLBACK").unwrap();
            }
            Op::SetDeferred(on) => {
                let mode = if on {
                    IndexingMode::Deferred
                } else {
                    IndexingMode::Immediate
                };
                store.set_indexing(mode).unwrap();
                deferred = on;
            }
            Op::Reconcile(n) => {
                store.reconcile(i64::from(n)).unwrap();
            }
        }
        if deferred {
            while !store.reconcile(7).unwrap().done {}
        }
        let expected: BTreeSet<i64> = oracle
            .values()
            .flat_map(|s| {
                s.active_branch()
                    .into_iter()
                    .filter(|id| s.nodes[id].searchable)
            })
            .collect();
        prop_assert_eq!(found(&store), expected);
    }
    let status = store.status().unwrap();
    prop_assert_eq!(status.integrity.as_deref(), Some("ok"));
    prop_assert_eq!(status.pending, 0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn search_finds_exactly_the_active_branches(ops in proptest::collection::vec(op(), 1..60)) {
        run(ops)?;
    }
}
