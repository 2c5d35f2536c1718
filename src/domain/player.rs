//! The players who take the seats of a game.

use serde::{Deserialize, Serialize};

use crate::domain::FieldError;

/// A player as the platform identifies them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// The platform's identifier, opaque to the arbiter (1 to 128 characters).
    pub id: String,
    /// Display name for exports (up to 200 characters; may be empty).
    pub name: String,
}

impl Player {
    /// Longest accepted identifier.
    pub const MAX_ID_LEN: usize = 128;
    /// Longest accepted name.
    pub const MAX_NAME_LEN: usize = 200;

    /// Validates a player taken from a request; `field` names the seat.
    pub fn parse(field: &'static str, id: &str, name: &str) -> Result<Self, FieldError> {
        if id.is_empty() {
            return Err(FieldError::new(field, "needs a player id"));
        }
        if id.chars().count() > Self::MAX_ID_LEN {
            return Err(FieldError::new(
                field,
                format!("id is longer than {} characters", Self::MAX_ID_LEN),
            ));
        }
        if name.chars().count() > Self::MAX_NAME_LEN {
            return Err(FieldError::new(
                field,
                format!("name is longer than {} characters", Self::MAX_NAME_LEN),
            ));
        }
        if id.chars().chain(name.chars()).any(char::is_control) {
            return Err(FieldError::new(field, "contains control characters"));
        }
        Ok(Self {
            id: id.to_owned(),
            name: name.to_owned(),
        })
    }

    /// The name to show: the display name, or the id when there is none.
    pub fn display_name(&self) -> &str {
        if self.name.is_empty() {
            &self.id
        } else {
            &self.name
        }
    }
}
