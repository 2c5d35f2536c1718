//! Where a game belongs in a tournament: event, round and board.

use serde::{Deserialize, Serialize};

use crate::domain::{EventId, FieldError};

/// Where a game belongs in a tournament. All parts are optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// The platform's event, if the game belongs to one (stored as a
    /// string, empty when none).
    #[serde(with = "crate::domain::ids::opt_event_id")]
    pub event_id: Option<EventId>,
    /// The round number (0 when none).
    pub round: u32,
    /// The board number within the round (0 when none).
    pub board: u32,
    /// Whether the game is a team match's tie-break game (see
    /// `tournament::match_tie_break`): listed with its match at the
    /// match's first board, but no board of it, and counted by no
    /// standings but the match's. Set only by the arbiter; left out of the
    /// stored form while false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tie_break: bool,
}

impl Pairing {
    /// Highest accepted round number: far beyond any real tournament (a
    /// double round robin of 500 players has 998 rounds), and low enough
    /// that a TRF line, ten columns a round, stays within 10 KB.
    pub const MAX_ROUND: u32 = 1_000;

    /// Highest accepted board number: a round of 20,000 players.
    pub const MAX_BOARD: u32 = 10_000;

    /// The most games an event may list (created games, and the rare
    /// listing a refused creation leaves): every read of a whole event
    /// (standings, TRF) is bounded by it. Two of the largest opens, 1,000
    /// players over 20 rounds, fit.
    pub const MAX_EVENT_GAMES: usize = 20_000;

    /// Validates a pairing taken from a request; an empty `event_id` means
    /// the game belongs to no event.
    pub fn parse(event_id: &str, round: u32, board: u32) -> Result<Self, FieldError> {
        for (field, value, max) in [
            ("round", round, Self::MAX_ROUND),
            ("board", board, Self::MAX_BOARD),
        ] {
            if value > max {
                return Err(FieldError::new(field, format!("must be at most {max}")));
            }
        }
        Ok(Self {
            event_id: EventId::parse_optional(event_id)?,
            round,
            board,
            tie_break: false,
        })
    }
}
