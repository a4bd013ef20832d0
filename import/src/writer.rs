//! The part every importer shares: the session row, the host's entry ids
//! mapped to `messages.id`, parents resolved through entries that are not
//! messages, messages already imported recognised, and the active leaf set
//! at the end.
//!
//! A message already imported is recognised by its host id, and also when
//! its id is new but the session holds the same message under another id:
//! the same role, time and content, stored by an earlier import and not yet
//! matched by a message of this file. That is a transcript whose host gave
//! its entries new ids (pi rewrites a session of format v1, whose entries
//! we key by line, `L<n>`, with generated ids; a position id shifts when a
//! line is lost or added). Two such messages in one file stay two: each
//! stored message is matched once per file, and a message whose host id is
//! stored matches by that id first. In a text format keyed by line alone
//! (Aider, SpecStory), the content decides first and the id last, a
//! message is written again where the file's order puts it, and a turn a
//! damaged read split off is removed (see [`Writer::positional_message`]).

use super::{FileReport, Format, Issue, LineIssue};
use rusqlite::OptionalExtension;
use serde_json::Value;
use session_search::{NewMessage, NewSession, Result, Role, Store};
use session_search_engine::content::searchable_text;
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

/// How far up from the previous message a fork is looked for when deciding
/// whether it is a parallel tool call (see [`Writer::place`]).
const FORK_SEARCH_DEPTH: usize = 64;

/// The session a file holds, as far as its format says.
#[derive(Debug)]
pub(super) struct SessionInfo {
    /// The session's id; the key is `<format>:<id>`.
    pub(super) id: String,
    /// The host's own id for it, the one its resume command takes: `id`,
    /// but for a Claude Code subagent the id of the session it ran in.
    pub(super) host_id: String,
    /// The host's id of the session that spawned it.
    pub(super) spawned_by: Option<String>,
    /// Creation time; the first message's time when absent.
    pub(super) created_at: Option<i64>,
}

/// Where a message hangs in the host's tree.
#[derive(Debug)]
pub(super) enum Parent {
    /// After the previous message of the file (linear formats).
    Previous,
    /// A root: the host gave no parent.
    Root,
    /// The host's id of the parent entry.
    Id(String),
}

impl Parent {
    /// `Id` for a string, `Root` for null, `Previous` when absent.
    pub(super) fn from_field(value: Option<&Value>) -> Parent {
        match value {
            Some(Value::String(id)) => Parent::Id(id.clone()),
            Some(Value::Null) => Parent::Root,
            _ => Parent::Previous,
        }
    }
}

/// A message read from a transcript.
#[derive(Debug)]
pub(super) struct HostMessage {
    /// The host's id, stored in `messages.message_id`.
    pub(super) id: String,
    pub(super) parent: Parent,
    pub(super) role: Role,
    /// Content blocks, stored as a JSON array.
    pub(super) content: Vec<Value>,
    pub(super) created_at: Option<i64>,
}

/// What a parent reference comes to.
enum Resolved {
    Root,
    Message(i64),
    Unknown(String),
}

/// Writes one session: a line format's file, or one of the sessions a file
/// read as records or text holds; the format's reader calls it once per
/// entry or message.
pub(super) struct Writer<'a> {
    store: &'a Store,
    format: Format,
    agent_id: String,
    report: &'a mut FileReport,
    line: usize,
    part: usize,
    info: SessionInfo,
    /// The session key, once its row exists.
    key: Option<String>,
    /// Host id → (`messages.id`, line) of the messages met in this file.
    seen: HashMap<String, (i64, usize)>,
    /// Host id of an entry that is not a message → its parent: a message
    /// whose parent is such an entry hangs from that entry's parent.
    aliases: HashMap<String, Parent>,
    parent_of: HashMap<i64, Option<i64>>,
    has_child: HashSet<i64>,
    previous: Option<i64>,
    /// The active leaf so far: `Some(None)` is an empty branch.
    leaf: Option<Option<i64>>,
    last_time: Option<i64>,
    /// The working directory the session ran in, as the file first names it.
    cwd: Option<String>,
    /// Another id the host gave the session (see [`Writer::also_named`]).
    also_named: Option<String>,
    /// Messages this writer wrote (the file's report may hold several
    /// sessions).
    imported: usize,
    /// The host named the session's active leaf ([`Writer::name_leaf`]).
    leaf_named: bool,
    /// This writer created the session row: nothing stored before can be
    /// one of the file's messages under another id.
    created: bool,
    /// The ids of the session's messages stored when [`Writer::same_message`]
    /// first looked, by `created_at`, oldest first: one read of the session
    /// instead of an index of every message's time.
    stored_at: OnceCell<HashMap<i64, Vec<i64>>>,
    /// The file is a text format keyed by line ([`Writer::positional_message`]).
    positional: bool,
}

impl<'a> Writer<'a> {
    /// A writer for a file whose session is `info` unless the file says
    /// otherwise before its first message.
    pub(super) fn new(
        store: &'a Store,
        format: Format,
        agent_id: String,
        info: SessionInfo,
        report: &'a mut FileReport,
    ) -> Writer<'a> {
        Writer {
            store,
            format,
            agent_id,
            report,
            line: 0,
            part: 0,
            info,
            key: None,
            seen: HashMap::new(),
            aliases: HashMap::new(),
            parent_of: HashMap::new(),
            has_child: HashSet::new(),
            previous: None,
            leaf: None,
            last_time: None,
            cwd: None,
            also_named: None,
            imported: 0,
            leaf_named: false,
            created: false,
            stored_at: OnceCell::new(),
            positional: false,
        }
    }

    /// The store being written.
    pub(super) fn store(&self) -> &Store {
        self.store
    }

    /// Sets the number of the line being read.
    pub(super) fn set_line(&mut self, line: usize) {
        self.line = line;
        self.part = 0;
    }

    /// Sets which of the JSON objects on the line is being read (from 0;
    /// a line normally holds one, a botched write two or more).
    pub(super) fn set_part(&mut self, part: usize) {
        self.part = part;
    }

    /// Where in the file the writer is: `(line, part)`, see
    /// [`Writer::set_line`] and [`Writer::set_part`].
    pub(super) fn position(&self) -> (usize, usize) {
        (self.line, self.part)
    }

    /// Goes back to a position [`Writer::position`] gave, to write what was
    /// read there and kept back.
    pub(super) fn set_position(&mut self, (line, part): (usize, usize)) {
        self.line = line;
        self.part = part;
    }

    /// An id for an entry the host gave none: its position, `L<line>`, or
    /// `L<line>.<part>` for a later object on the same line.
    pub(super) fn position_id(&self) -> String {
        match self.part {
            0 => format!("L{}", self.line),
            part => format!("L{}.{part}", self.line),
        }
    }

    /// Records a problem with the current line.
    pub(super) fn issue(&mut self, issue: Issue) {
        self.report.issues.push(LineIssue {
            line: self.line,
            issue,
        });
    }

    /// Names the file's session; ignored once its first message is written.
    pub(super) fn set_session(&mut self, info: SessionInfo) {
        if self.key.is_none() {
            self.info = info;
        }
    }

    /// Records the session's working directory, unless the file named one
    /// before.
    pub(super) fn set_cwd(&mut self, cwd: &str) {
        if self.cwd.is_none() {
            self.cwd = Some(cwd.to_owned());
        }
    }

    /// Records another id the host gave the session (a resumed Codex
    /// rollout's name), by which it is found too
    /// (`session_search_aliases`).
    pub(super) fn also_named(&mut self, id: &str) {
        self.also_named = Some(id.to_owned());
    }

    /// Counts an entry that is not conversation (by its type) and, when it
    /// has an id, lets messages hang from it through its parent.
    pub(super) fn skip_entry(&mut self, kind: &str, id: Option<&str>, parent: Parent) {
        *self
            .report
            .skipped_types
            .entry(kind.to_owned())
            .or_default() += 1;
        if let Some(id) = id {
            self.aliases.entry(id.to_owned()).or_insert(parent);
        }
    }

    /// Whether an entry with the host id `id` came earlier in the file.
    pub(super) fn knows(&self, id: &str) -> bool {
        self.seen.contains_key(id) || self.aliases.contains_key(id)
    }

    /// Whether an earlier import stored `message` in the session: its host
    /// id with its role and content (an id alone may have named another
    /// message in a file written differently then).
    ///
    /// # Errors
    ///
    /// Database failures.
    pub(super) fn stored(&self, message: &HostMessage) -> Result<bool> {
        let key = format!("{}:{}", self.format.name(), self.info.id);
        let content = Value::Array(message.content.clone()).to_string();
        let found = self
            .store
            .connection()
            .prepare_cached(
                "SELECT 1 FROM messages WHERE session_key = ?1 AND message_id = ?2 AND role = ?3 AND content = ?4",
            )?
            .exists((key, &message.id, message.role.as_str(), content))?;
        Ok(found)
    }

    /// Moves the active leaf to the host's entry `id` (`None`: empty).
    pub(super) fn move_leaf(&mut self, id: Option<&str>) {
        let target = id.map_or(Parent::Root, |id| Parent::Id(id.to_owned()));
        match self.resolve(&target) {
            Resolved::Root => self.leaf = Some(None),
            Resolved::Message(id) => self.leaf = Some(Some(id)),
            Resolved::Unknown(leaf) => self.issue(Issue::UnknownLeaf { leaf }),
        }
    }

    /// Makes the host's entry `id` the session's active leaf, as the host
    /// says for the whole session (a data export's current node): unlike
    /// [`Writer::move_leaf`] it holds even when the file adds no message.
    pub(super) fn name_leaf(&mut self, id: &str) {
        self.move_leaf(Some(id));
        self.leaf_named = matches!(self.leaf, Some(Some(_)));
    }

    /// Writes a message unless the file had it already (a duplicate id,
    /// reported and skipped) or the database has it (counted).
    ///
    /// # Errors
    ///
    /// Database failures.
    pub(super) fn message(&mut self, message: HostMessage) -> Result<()> {
        self.write_message(message, Revise::Never)
    }

    /// Writes a message like [`Writer::message`]; one the database has
    /// already takes the content read now when it differs, for a host that
    /// writes a message's parts as they come (OpenCode): an answer imported
    /// while it was being written is completed by the next import.
    ///
    /// # Errors
    ///
    /// Database failures.
    pub(super) fn revised_message(&mut self, message: HostMessage) -> Result<()> {
        self.write_message(message, Revise::Any)
    }

    /// Writes a message like [`Writer::message`] for a text format whose
    /// ids are line numbers (`L<n>`: Aider, SpecStory). A stored message is
    /// found by its id when it holds the same content, else by its content
    /// (the message moved to another line), else by its id, and then takes
    /// the content read now: the file ended at the end of a line inside the
    /// message, or was damaged (a line lost, moved or added), and is read
    /// whole now. A stored message under another parent than the previous
    /// message of the file is deleted and written again after it (under
    /// the host id it had), unless this read matched it already, and at
    /// [`Writer::finish`] the turns a damaged read split off are removed.
    /// So importing the whole file over one read before leaves what the
    /// whole file holds, in its order.
    ///
    /// # Errors
    ///
    /// Database failures.
    pub(super) fn positional_message(&mut self, message: HostMessage) -> Result<()> {
        self.positional = true;
        self.write_message(message, Revise::Positional)
    }

    /// Writes a message for [`Writer::message`], [`Writer::revised_message`]
    /// and [`Writer::positional_message`]: under its resolved parent, at its
    /// time, as the stored message it is or a new one, and records it for the
    /// messages after it.
    fn write_message(&mut self, message: HostMessage, revise: Revise) -> Result<()> {
        if let Some(&(_, first_line)) = self.seen.get(&message.id) {
            self.issue(Issue::DuplicateId {
                id: message.id,
                first_line,
            });
            return Ok(());
        }
        let parent = self.parent_for(&message.parent, message.role);
        let created_at = self.time_of(message.created_at);
        let row = MessageRow {
            key: self.session(created_at)?,
            role: message.role,
            created_at,
            content: Value::Array(message.content).to_string(),
        };
        let existing = self.existing(&row, &message.id, revise)?;
        let replaced = match existing {
            Some((id, _)) if revise == Revise::Positional => self.replace_misplaced(id, parent)?,
            _ => None,
        };
        let id = match existing.filter(|_| replaced.is_none()) {
            Some((id, takes_content)) => {
                self.update_stored(id, takes_content, &row)?;
                id
            }
            None => {
                let host_id = replaced.clone().unwrap_or_else(|| message.id.clone());
                self.append(row, parent, host_id, replaced.is_some())?
            }
        };
        self.seen.insert(message.id, (id, self.line));
        self.parent_of.insert(id, parent);
        if let Some(parent) = parent {
            self.has_child.insert(parent);
        }
        self.previous = Some(id);
        self.leaf = Some(Some(id));
        Ok(())
    }

    /// The parent a message is written under: the entry the host names,
    /// resolved (an unknown one is reported and the previous message taken),
    /// then [placed](Writer::place).
    fn parent_for(&mut self, parent: &Parent, role: Role) -> Option<i64> {
        let stated = match self.resolve(parent) {
            Resolved::Root => None,
            Resolved::Message(id) => Some(id),
            Resolved::Unknown(parent) => {
                self.issue(Issue::UnknownParent { parent });
                self.previous
            }
        };
        self.place(stated, role)
    }

    /// A message's time: its own, else the previous message's, else the
    /// session's creation time, else 0; the next message's default.
    fn time_of(&mut self, created_at: Option<i64>) -> i64 {
        let created_at = created_at
            .or(self.last_time)
            .or(self.info.created_at)
            .unwrap_or(0);
        self.last_time = Some(created_at);
        created_at
    }

    /// The stored message this one is, and whether it takes the role and
    /// content read now (see [`Revise`]).
    fn existing(
        &self,
        row: &MessageRow,
        host_id: &str,
        revise: Revise,
    ) -> Result<Option<(i64, bool)>> {
        let by_id = self.stored_by_id(row, host_id)?;
        let by_position = host_id == self.position_id();
        let same = || self.same_message(&row.key, row.role, row.created_at, &row.content);
        let unmatched = |id: &i64| !self.parent_of.contains_key(id);
        let takes_content = revise != Revise::Never;
        Ok(match (revise, by_id) {
            (Revise::Positional, Some((id, true, false))) if unmatched(&id) => Some((id, false)),
            // Under an id another message of this file already matched by
            // its content, it is kept as stored: one message per id.
            (Revise::Positional, by_id) => match same()? {
                Some(id) => Some((id, false)),
                None => by_id.map(|(id, ..)| (id, unmatched(&id))),
            },
            (_, Some((id, _, other_role))) => {
                Some((id, takes_content || other_role && !by_position))
            }
            (_, None) => same()?.map(|id| (id, takes_content)),
        })
    }

    /// The stored message under the host id `host_id`: its id, whether it
    /// holds this content, and whether it has another role. (Under an id the
    /// host gave, an earlier read, damaged, may have stored another message's
    /// text: it takes the role and content read now whatever the format. An
    /// id that is the message's position shifts with a line lost or added.)
    fn stored_by_id(&self, row: &MessageRow, host_id: &str) -> Result<Option<(i64, bool, bool)>> {
        Ok(self
            .store
            .connection()
            .prepare_cached(
                "SELECT id, content IS ?3, role IS NOT ?4 FROM messages WHERE session_key = ?1 AND message_id = ?2 ORDER BY id LIMIT 1",
            )?
            .query_row((&row.key, host_id, &row.content, row.role.as_str()), |found| {
                Ok((found.get::<_, i64>(0)?, found.get::<_, bool>(1)?, found.get::<_, bool>(2)?))
            })
            .optional()?)
    }

    /// Deletes the line-keyed stored message `id` when it hangs under
    /// another parent than the file's order gives it (an earlier read,
    /// damaged, had turns merged or split around it), so that it is written
    /// again in its place, under the host id it was stored with, returned: a
    /// message's place in the tree cannot change. One this read matched
    /// already stays where it is.
    fn replace_misplaced(&self, id: i64, parent: Option<i64>) -> Result<Option<String>> {
        if self.parent_of.contains_key(&id) || self.stored_parent(id)? == parent {
            return Ok(None);
        }
        let conn = self.store.connection();
        let host_id: String = conn.query_row(
            "SELECT message_id FROM messages WHERE id = ?1",
            [id],
            |row| row.get(0),
        )?;
        conn.execute("DELETE FROM messages WHERE id = ?1", [id])?;
        Ok(Some(host_id))
    }

    /// Counts a message the store has: updated when it takes the role and
    /// content read now and they differ, else already present.
    fn update_stored(&mut self, id: i64, takes_content: bool, row: &MessageRow) -> Result<()> {
        let changed = takes_content
            && self.store.connection().execute(
                "UPDATE messages SET content = ?2, role = ?3 WHERE id = ?1 AND (content IS NOT ?2 OR role IS NOT ?3)",
                (id, &row.content, row.role.as_str()),
            )? > 0;
        match changed {
            true => self.report.updated += 1,
            false => self.report.already_present += 1,
        }
        Ok(())
    }

    /// Appends a message the store does not have under `parent`, stored
    /// under `host_id`; counted as updated when it replaces a misplaced one
    /// ([`Writer::replace_misplaced`]), else as imported.
    fn append(
        &mut self,
        row: MessageRow,
        parent: Option<i64>,
        host_id: String,
        replacing: bool,
    ) -> Result<i64> {
        if parent.is_none() && self.store.leaf(&row.key)?.is_some() {
            // A second root: empty the branch so the message does not
            // follow the current leaf.
            self.store.rewind(&row.key, None)?;
        }
        let id = self.store.append(&NewMessage {
            session_key: row.key,
            parent_id: parent,
            role: row.role,
            content: row.content,
            created_at: row.created_at,
            message_id: Some(host_id),
        })?;
        match replacing {
            true => self.report.updated += 1,
            false => self.report.imported += 1,
        }
        self.imported += 1;
        Ok(id)
    }

    /// Sets the session's leaf to the file's active leaf when the file added a
    /// message, and records where the session came from and its other id (`session_search_origins`, see
    /// `sql/import.sql`); a working directory stored before stays when the
    /// file names none.
    ///
    /// # Errors
    ///
    /// Database failures.
    pub(super) fn finish(mut self) -> Result<()> {
        let Some(key) = self.key.clone() else {
            return Ok(());
        };
        let key = &key;
        if self.positional {
            self.remove_split_off_turns(key)?;
        }
        // A file that adds no message leaves the branch as it is: a transcript
        // cut short, or rewritten shorter, must not hide what it lost. A leaf
        // the host named for the whole session holds regardless.
        if let Some(leaf) = self.leaf.filter(|_| self.imported > 0 || self.leaf_named) {
            if self.store.leaf(key)? != leaf {
                self.store.rewind(key, leaf)?;
            }
        }
        self.store.connection().execute(
            "INSERT INTO session_search_origins(session_key, format, host_id, cwd) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(session_key) DO UPDATE SET
               format = excluded.format, host_id = excluded.host_id, cwd = coalesce(excluded.cwd, cwd)",
            (key, self.format.name(), &self.info.host_id, &self.cwd),
        )?;
        if let Some(id) = &self.also_named {
            self.store.connection().execute(
                "INSERT OR REPLACE INTO session_search_aliases(alias, session_key) VALUES (?1, ?2)",
                (format!("{}:{id}", self.format.name()), key),
            )?;
        }
        Ok(())
    }

    /// Removes the turns an earlier read of a damaged text transcript split
    /// off a message (a marker line moved into it), which this read holds
    /// inside that message again: each stored message under a line id that
    /// this read did not match, whose text is part of the text of a message
    /// of the same role that it did. A message the file no longer holds
    /// anywhere stays, as a transcript cut short must not lose what it had.
    fn remove_split_off_turns(&mut self, key: &str) -> Result<()> {
        let conn = self.store.connection();
        let unmatched = conn
            .prepare_cached(
                "SELECT id FROM messages WHERE session_key = ?1 AND message_id GLOB 'L[0-9]*'",
            )?
            .query_map([key], |row| row.get::<_, i64>(0))?
            .filter(|id| {
                id.as_ref()
                    .map_or(true, |id| !self.parent_of.contains_key(id))
            })
            .collect::<rusqlite::Result<Vec<_>>>()?;
        if unmatched.is_empty() {
            return Ok(());
        }
        // (role, trimmed searchable text) of a stored message, if it has text.
        let mut read = conn.prepare_cached("SELECT role, content FROM messages WHERE id = ?1")?;
        let mut text_of = |id: i64| -> Result<Option<(String, String)>> {
            let stored = read
                .query_row([id], |row| {
                    Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
                })
                .optional()?;
            Ok(stored.and_then(|(role, content)| {
                searchable_text(content.as_bytes()).map(|text| (role, text.trim().to_owned()))
            }))
        };
        let mut matched = Vec::new();
        for &id in self.parent_of.keys() {
            matched.extend(text_of(id)?);
        }
        for id in unmatched {
            let Some((role, fragment)) = text_of(id)?.filter(|(_, text)| !text.is_empty()) else {
                continue;
            };
            if matched
                .iter()
                .any(|(other_role, whole)| *other_role == role && whole.contains(&fragment))
            {
                conn.execute("DELETE FROM messages WHERE id = ?1", [id])?;
                self.report.removed += 1;
            }
        }
        Ok(())
    }

    /// The session key, creating the session row first if needed.
    fn session(&mut self, first_time: i64) -> Result<String> {
        if let Some(key) = &self.key {
            return Ok(key.clone());
        }
        let prefix = self.format.name();
        let key = format!("{prefix}:{}", self.info.id);
        let exists = self
            .store
            .connection()
            .query_row(
                "SELECT 1 FROM sessions WHERE session_key = ?1",
                [&key],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        self.created = !exists;
        if !exists {
            self.store.create_session(&NewSession {
                session_key: key.clone(),
                agent_id: self.agent_id.clone(),
                spawned_by: self
                    .info
                    .spawned_by
                    .as_ref()
                    .map(|parent| format!("{prefix}:{parent}")),
                created_at: self.info.created_at.unwrap_or(first_time),
            })?;
        }
        if self.report.session_key.is_none() {
            self.report.session_key = Some(key.clone());
        }
        self.report.sessions += 1;
        self.report.sessions_created += usize::from(!exists);
        self.key = Some(key.clone());
        Ok(key)
    }

    /// A message stored by an earlier import under another host id that is
    /// this one: of the session, with the same role, time and content, and
    /// not yet matched by another message of this file (the first such, in
    /// the order stored). None in a session this writer created.
    fn same_message(
        &self,
        key: &str,
        role: Role,
        created_at: i64,
        content: &str,
    ) -> Result<Option<i64>> {
        if self.created {
            return Ok(None);
        }
        let connection = self.store.connection();
        if self.stored_at.get().is_none() {
            let mut by_time: HashMap<i64, Vec<i64>> = HashMap::new();
            let mut statement = connection.prepare_cached(
                "SELECT id, created_at FROM messages WHERE session_key = ?1 ORDER BY id",
            )?;
            let mut rows = statement.query([key])?;
            while let Some(row) = rows.next()? {
                by_time.entry(row.get(1)?).or_default().push(row.get(0)?);
            }
            let _ = self.stored_at.set(by_time);
        }
        let Some(ids) = self
            .stored_at
            .get()
            .and_then(|by_time| by_time.get(&created_at))
        else {
            return Ok(None);
        };
        let mut same = connection.prepare_cached(
            "SELECT 1 FROM messages WHERE id = ?1 AND role = ?2 AND content = ?3",
        )?;
        for &id in ids {
            if !self.parent_of.contains_key(&id) && same.exists((id, role.as_str(), content))? {
                return Ok(Some(id));
            }
        }
        Ok(None)
    }

    /// The parent of stored message `id` in the session's tree.
    fn stored_parent(&self, id: i64) -> Result<Option<i64>> {
        Ok(self
            .store
            .connection()
            .prepare_cached("SELECT parent FROM session_search_nodes WHERE id = ?1")?
            .query_row([id], |row| row.get(0))?)
    }

    /// Follows `parent` through entries that are not messages.
    fn resolve(&self, parent: &Parent) -> Resolved {
        let mut current = parent;
        // Each step uses one alias, so more steps than aliases is a cycle.
        for _ in 0..=self.aliases.len() {
            match current {
                Parent::Previous => return self.previous.map_or(Resolved::Root, Resolved::Message),
                Parent::Root => return Resolved::Root,
                Parent::Id(id) => match (self.seen.get(id), self.aliases.get(id)) {
                    (Some(&(message, _)), _) => return Resolved::Message(message),
                    (None, Some(next)) => current = next,
                    (None, None) => return Resolved::Unknown(id.clone()),
                },
            }
        }
        match parent {
            Parent::Id(id) => Resolved::Unknown(id.clone()),
            Parent::Previous | Parent::Root => Resolved::Root,
        }
    }

    /// The parent a message is written under. Hosts record the results of
    /// parallel tool calls as siblings (each under its call, or all under
    /// one message), though the conversation went on through all of them.
    /// So a tool result whose parent already has a child, and that the
    /// previous message descends from (closely), goes after the previous
    /// message instead, keeping every result on the active branch. Any
    /// other message keeps its parent: a branch there is real.
    fn place(&self, stated: Option<i64>, role: Role) -> Option<i64> {
        let (Some(parent), Some(previous)) = (stated, self.previous) else {
            return stated;
        };
        if role != Role::Tool || !self.has_child.contains(&parent) {
            return stated;
        }
        let mut node = previous;
        for _ in 0..FORK_SEARCH_DEPTH {
            if node == parent {
                return Some(previous);
            }
            match self.parent_of.get(&node) {
                Some(&Some(up)) => node = up,
                _ => break,
            }
        }
        stated
    }
}

/// A message as the store holds it: its session, role, time, and content
/// as a JSON array.
struct MessageRow {
    key: String,
    role: Role,
    created_at: i64,
    content: String,
}

/// How a write finds the stored message it is, and whether that takes the
/// content read now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Revise {
    /// By id, else by content; kept as stored.
    Never,
    /// By id, else by content; takes the content read now.
    Any,
    /// Ids are line numbers: by id with the same content, else by content,
    /// else by id; takes the content read now.
    Positional,
}
