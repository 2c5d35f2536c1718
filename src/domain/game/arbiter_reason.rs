//! The reason an arbiter states for a ruling or a clock command.

use std::fmt;

use crate::domain::FieldError;

/// An arbiter's stated reason: 1 to [`ArbiterReason::MAX_LEN`] characters,
/// without control characters, surrounding whitespace trimmed. It is
/// recorded in the game's event log and shown to players.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArbiterReason(String);

impl ArbiterReason {
    /// Longest accepted reason, in characters.
    pub const MAX_LEN: usize = 500;

    /// Parses the reason given with a request.
    pub fn parse(text: &str) -> Result<Self, FieldError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(FieldError::new("reason", "is required"));
        }
        if text.chars().count() > Self::MAX_LEN || text.chars().any(char::is_control) {
            return Err(FieldError::new(
                "reason",
                format!(
                    "must be at most {} characters without control characters",
                    Self::MAX_LEN
                ),
            ));
        }
        Ok(Self(text.to_owned()))
    }

    /// The reason as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ArbiterReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_required_trimmed_and_bounded() {
        assert_eq!(
            ArbiterReason::parse("  illegal move claim upheld \n")
                .unwrap()
                .as_str(),
            "illegal move claim upheld"
        );
        assert_eq!(
            ArbiterReason::parse(" \t "),
            Err(FieldError::new("reason", "is required"))
        );
        let refused = Err(FieldError::new(
            "reason",
            "must be at most 500 characters without control characters",
        ));
        assert_eq!(ArbiterReason::parse("line\nbreak"), refused);
        assert_eq!(ArbiterReason::parse(&"x".repeat(501)), refused);
        // Characters, not bytes, count.
        assert!(ArbiterReason::parse(&"é".repeat(500)).is_ok());
    }
}
