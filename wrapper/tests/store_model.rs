//! Model-based test of the transcript store: random sequences of writes
//! against a plain in-memory oracle. After every step, the set of messages a
//! search can find must equal the oracle's active-branch user/assistant
//! messages.

use proptest::prelude::*;
use session_search::{IndexingMode, NewMessage, NewSession, Role, Store};
use std::collections::{BTreeMap, BTreeSet};

/// One step of a test: a write, a change of indexing mode, or a
/// reconciliation slice. Sessions and messages are picked by small numbers.
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

/// Random steps, writes the most often.
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

/// One session of the oracle: its messages and its leaf.
#[derive(Debug, Default)]
struct Session {
    nodes: BTreeMap<i64, Node>,
    leaf: Option<i64>,
}

impl Session {
    /// The ids from the leaf up to the root.
    fn active_branch(&self) -> Vec<i64> {
        let mut path = Vec::new();
        let mut at = self.leaf;
        while let Some(id) = at {
            path.push(id);
            at = self.nodes[&id].parent;
        }
        path
    }

    /// The message `which` picks, if the session has any.
    fn pick(&self, which: u8) -> Option<i64> {
        let ids: Vec<i64> = self.nodes.keys().copied().collect();
        (!ids.is_empty()).then(|| ids[usize::from(which) % ids.len()])
    }
}

/// Session `session` of the oracle and the message `which` picks in it,
/// when both exist.
fn picked(
    oracle: &mut BTreeMap<u8, Session>,
    session: u8,
    which: u8,
) -> Option<(&mut Session, i64)> {
    let s = oracle.get_mut(&session)?;
    let id = s.pick(which)?;
    Some((s, id))
}

/// The key of session number `session`.
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

/// The content of a message written at step `n`: plain text, or every
/// third one blocks with a tool call; all hold the word `shared`.
fn content(n: i64) -> String {
    if n % 3 == 0 {
        format!(r#"[{{"type":"text","text":"shared word{n}"}},{{"type":"tool_use","name":"x"}}]"#)
    } else {
        format!("shared word{n} 東京{n}")
    }
}

/// Applies `ops` one by one, checking after each that search finds exactly
/// the oracle's searchable messages, and at the end that the store is whole
/// and nothing is left to index.
fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut model = Model {
        store: Store::open_in_memory().unwrap(),
        oracle: BTreeMap::new(),
        deferred: false,
        clock: 0,
    };
    for op in ops {
        model.apply(op)?;
    }
    let status = model.store.status().unwrap();
    prop_assert_eq!(status.integrity.as_deref(), Some("ok"));
    prop_assert_eq!(status.pending, 0);
    Ok(())
}

/// The store under test and the oracle it is checked against.
struct Model {
    store: Store,
    oracle: BTreeMap<u8, Session>,
    /// Indexing is deferred: each step reconciles everything before the check.
    deferred: bool,
    /// The step's number: every write's time, and its content's word.
    clock: i64,
}

impl Model {
    /// Applies `op` to the store and the oracle, then checks what search
    /// finds; a step on a session or message that does not exist changes
    /// nothing and is not checked.
    fn apply(&mut self, op: Op) -> Result<(), TestCaseError> {
        self.clock += 1;
        let applied = match op {
            Op::CreateSession(s) => self.create_session(s)?,
            Op::Append {
                session,
                role,
                branch_from,
            } => self.append(session, role, branch_from)?,
            Op::Rewind { session, to } => self.rewind(session, to),
            Op::DeleteSession(s) => {
                prop_assert_eq!(
                    self.store.delete_session(&key(s)).unwrap(),
                    self.oracle.remove(&s).is_some()
                );
                true
            }
            Op::DeleteMessage { session, which } => self.delete_message(session, which),
            Op::EditMessage {
                session,
                which,
                role,
            } => self.edit_message(session, which, role),
            Op::RolledBackAppend(session) => self.rolled_back_append(session),
            Op::SetDeferred(on) => self.set_deferred(on),
            Op::Reconcile(n) => {
                self.store.reconcile(i64::from(n)).unwrap();
                true
            }
        };
        if applied {
            self.check()?;
        }
        Ok(())
    }

    /// Creates session `s`, which fails when it exists.
    fn create_session(&mut self, s: u8) -> Result<bool, TestCaseError> {
        let created = self.store.create_session(&NewSession {
            session_key: key(s),
            agent_id: "test".into(),
            created_at: self.clock,
            ..Default::default()
        });
        prop_assert_eq!(created.is_ok(), !self.oracle.contains_key(&s));
        self.oracle.entry(s).or_default();
        Ok(true)
    }

    /// Appends a message of role `role` to `session`, after its leaf or
    /// branching from the message `branch_from` picks; an unknown session is
    /// refused.
    fn append(
        &mut self,
        session: u8,
        role: u8,
        branch_from: Option<u8>,
    ) -> Result<bool, TestCaseError> {
        let parent = branch_from.and_then(|w| self.oracle.get(&session)?.pick(w));
        let appended = self.store.append(&NewMessage {
            session_key: key(session),
            parent_id: parent,
            role: ROLES[usize::from(role)],
            content: content(self.clock),
            created_at: self.clock,
            message_id: None,
        });
        match self.oracle.get_mut(&session) {
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
        Ok(true)
    }

    /// Moves the leaf of `session` to the message `to` picks, or empties
    /// the branch.
    fn rewind(&mut self, session: u8, to: Option<u8>) -> bool {
        let Some(s) = self.oracle.get_mut(&session) else {
            return false;
        };
        let leaf = match to {
            Some(w) => s.pick(w),
            None => None,
        };
        self.store.rewind(&key(session), leaf).unwrap();
        s.leaf = leaf;
        true
    }

    /// Deletes the message `which` picks with plain SQL: its children hang
    /// from its parent, as does a leaf it was.
    fn delete_message(&mut self, session: u8, which: u8) -> bool {
        let Some((s, id)) = picked(&mut self.oracle, session, which) else {
            return false;
        };
        self.store
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
        true
    }

    /// Gives the message `which` picks another role and content with plain
    /// SQL.
    fn edit_message(&mut self, session: u8, which: u8, role: u8) -> bool {
        let Some((s, id)) = picked(&mut self.oracle, session, which) else {
            return false;
        };
        self.store
            .connection()
            .execute(
                "UPDATE messages SET role = ?2, content = ?3 WHERE id = ?1",
                rusqlite::params![id, ROLES[usize::from(role)].as_str(), content(self.clock)],
            )
            .unwrap();
        s.nodes.get_mut(&id).unwrap().searchable = role < 2;
        true
    }

    /// Appends a message in a transaction that is rolled back: nothing
    /// changes.
    fn rolled_back_append(&mut self, session: u8) -> bool {
        let conn = self.store.connection();
        conn.execute_batch("BEGIN").unwrap();
        let _ = self.store.append(&NewMessage {
            session_key: key(session),
            role: Role::User,
            content: content(self.clock),
            created_at: self.clock,
            ..Default::default()
        });
        conn.execute_batch("ROLLBACK").unwrap();
        true
    }

    /// Defers indexing, or makes it immediate again.
    fn set_deferred(&mut self, on: bool) -> bool {
        let mode = if on {
            IndexingMode::Deferred
        } else {
            IndexingMode::Immediate
        };
        self.store.set_indexing(mode).unwrap();
        self.deferred = on;
        true
    }

    /// Search finds exactly the searchable messages of the oracle's active
    /// branches (everything reconciled first when indexing is deferred).
    fn check(&self) -> Result<(), TestCaseError> {
        if self.deferred {
            while !self.store.reconcile(7).unwrap().done {}
        }
        let expected: BTreeSet<i64> = self
            .oracle
            .values()
            .flat_map(|s| {
                s.active_branch()
                    .into_iter()
                    .filter(|id| s.nodes[id].searchable)
            })
            .collect();
        prop_assert_eq!(found(&self.store), expected);
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn search_finds_exactly_the_active_branches(ops in proptest::collection::vec(op(), 1..60)) {
        run(ops)?;
    }
}
