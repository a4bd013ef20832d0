//! Who wrote a message: the four values of `messages.role`.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Who wrote a message. Serialized as its `messages.role` text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person talking to the agent.
    #[default]
    User,
    /// The agent.
    Assistant,
    /// A tool's output (stored, never searchable).
    Tool,
    /// A system prompt or text a tool injected (stored, never searchable).
    System,
}

impl Role {
    /// Every role, in the order above.
    pub const ALL: [Role; 4] = [Role::User, Role::Assistant, Role::Tool, Role::System];

    /// The role as stored in `messages.role`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::System => "system",
        }
    }

    /// Whether messages of this role are indexed (docs/sql.md, "Schema and write path").
    pub fn is_searchable(self) -> bool {
        matches!(self, Role::User | Role::Assistant)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A text that is not one of the four roles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRole(pub String);

impl fmt::Display for UnknownRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown role {:?}: a role is user, assistant, tool or system",
            self.0
        )
    }
}

impl std::error::Error for UnknownRole {}

impl FromStr for Role {
    type Err = UnknownRole;

    fn from_str(text: &str) -> Result<Role, UnknownRole> {
        Role::ALL
            .into_iter()
            .find(|role| role.as_str() == text)
            .ok_or_else(|| UnknownRole(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_json_round_trip() {
        for role in Role::ALL {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role));
            let json = serde_json::to_string(&role).unwrap();
            assert_eq!(json, format!("\"{role}\""));
            assert_eq!(serde_json::from_str::<Role>(&json).unwrap(), role);
        }
        assert_eq!(
            "User".parse::<Role>().unwrap_err().to_string(),
            "unknown role \"User\": a role is user, assistant, tool or system"
        );
    }
}
