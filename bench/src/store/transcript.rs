//! The messages the store benchmarks write: the English corpus' text with a
//! mix of roles, each addressed to a session.

use crate::corpus::{Kind, Lengths, Messages};
use crate::rng::Rng;

/// Share of `tool` messages; the rest are `user` and `assistant` in equal
/// parts.
const TOOL_SHARE: f64 = 0.2;

/// `created_at` of the first message, unix milliseconds.
const FIRST_CREATED_AT: i64 = 1_700_000_000_000;

/// One message to insert into `messages`.
#[derive(Debug, Clone)]
pub struct Row {
    /// The session it belongs to.
    pub session_key: String,
    /// `user`, `assistant` or `tool`.
    pub role: &'static str,
    /// Plain text.
    pub content: String,
    /// Unix milliseconds, one apart from message to message.
    pub created_at: i64,
}

/// The key of the `session`-th session of a benchmark.
pub fn session_key(session: usize) -> String {
    format!("agent:main:bench:{session}")
}

/// An endless, deterministic writer of [`Row`]s.
pub struct Transcript {
    messages: Messages,
    roles: Rng,
    written: i64,
}

impl Transcript {
    /// A writer drawing from `seed`, with message lengths `lengths`.
    pub fn new(seed: u64, lengths: Lengths) -> Transcript {
        Transcript {
            messages: Messages::new(Kind::English, seed, lengths),
            roles: Rng::new(seed ^ 0x0001_0000_0000),
            written: 0,
        }
    }

    /// The next message, for session `session_key`.
    pub fn row(&mut self, session_key: &str) -> Row {
        let role = if self.roles.chance(TOOL_SHARE) {
            "tool"
        } else if self.roles.chance(0.5) {
            "user"
        } else {
            "assistant"
        };
        let created_at = FIRST_CREATED_AT + self.written;
        self.written += 1;
        Row {
            session_key: session_key.to_owned(),
            role,
            content: self.messages.next().expect("the stream never ends"),
            created_at,
        }
    }

    /// The next `count` messages, spread round-robin over the sessions
    /// `keys` (continuing where the previous call left off), as concurrent
    /// conversations write them.
    pub fn interleaved(&mut self, count: usize, keys: &[String]) -> Vec<Row> {
        (0..count)
            .map(|_| {
                let session = self.written as usize % keys.len();
                self.row(&keys[session])
            })
            .collect()
    }
}
