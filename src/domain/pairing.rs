//! Where a game belongs in a tournament: event, round and board.

use serde::{Deserialize, Serialize};

use super::{EventId, FieldError};

/// Where a game belongs in a tournament. All parts are optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// The platform's event, if the game belongs to one (stored as a
    /// string, empty when none).
    #[serde(with = "super::ids::opt_event_id")]
    pub event_id: Option<EventId>,
    /// The round number (0 when none).
    pub round: u32,
    /// The board number within the round (0 when none).
    pub board: u32,
}

impl Pairing {
    /// Highest accepted round and board number.
    pub const MAX_NUMBER: u32 = 100_000;

    /// Validates a pairing taken from a request; an empty `event_id` means
    /// the game belongs to no event.
    pub fn parse(event_id: &str, round: u32, board: u32) -> Result<Self, FieldError> {
        for (field, value) in [("round", round), ("board", board)] {
            if value > Self::MAX_NUMBER {
                return Err(FieldError::new(
                    field,
                    format!("must be at most {}", Self::MAX_NUMBER),
                ));
            }
        }
        Ok(Self {
            event_id: EventId::parse_optional(event_id)?,
            round,
            board,
        })
    }
}
