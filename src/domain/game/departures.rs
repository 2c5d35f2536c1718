//! Who the platform reported gone from an online game, and since when; and
//! why a claim of the game against a player gone is refused.
//!
//! Only the platform knows whether a player's connection dropped: it says
//! so with a report ([`crate::domain::Game::report_connection`]), and the
//! arbiter keeps the time of the report. A game whose rules allow it lets
//! the opponent claim the game once the player has been gone long enough
//! (lichess's "claim victory"; its `noClaimWin` is a rule of 0).

use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::domain::Timestamp;

/// When each player was reported gone; `None` while connected (or never
/// reported otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Departures {
    /// Since when White is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    white: Option<Timestamp>,
    /// Since when Black is gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    black: Option<Timestamp>,
}

impl Departures {
    /// Since when `color` is reported gone, if it is.
    pub fn left_at(self, color: Color) -> Option<Timestamp> {
        color.fold_wb(self.white, self.black)
    }

    /// These departures with `color` gone since `at` (`None`: connected).
    #[must_use]
    pub fn with(mut self, color: Color, at: Option<Timestamp>) -> Self {
        match color {
            Color::White => self.white = at,
            Color::Black => self.black = at,
        }
        self
    }

    /// Whether nobody is reported gone.
    pub fn is_empty(&self) -> bool {
        self.white.is_none() && self.black.is_none()
    }
}

/// Why a claim of the game against an opponent gone is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VictoryClaimRefusal {
    /// The game's rules give no such claim
    /// (`claim_after_opponent_left_ms` is 0).
    NotAllowed,
    /// Both players have not yet made a move: a player who never arrived
    /// loses by the default time (FIDE 6.7), not by a claim.
    BeforeBothMoved,
    /// The platform has not reported the opponent gone.
    OpponentConnected,
    /// The opponent has not been gone long enough.
    TooSoon {
        /// When the claim becomes possible, if the opponent stays gone.
        claimable_at: Timestamp,
    },
}

impl fmt::Display for VictoryClaimRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VictoryClaimRefusal::NotAllowed => {
                f.write_str("this game's rules give no claim when the opponent leaves")
            }
            VictoryClaimRefusal::BeforeBothMoved => f.write_str(
                "the game can be claimed only once both players have made a move (before \
                 that, a player who does not arrive loses by the default time)",
            ),
            VictoryClaimRefusal::OpponentConnected => {
                f.write_str("the platform has not reported the opponent gone")
            }
            VictoryClaimRefusal::TooSoon { claimable_at } => write!(
                f,
                "the opponent has not been gone long enough: the game can be claimed from \
                 {} ms after the Unix epoch if the opponent stays gone",
                claimable_at.unix_millis()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_departures_are_stored() {
        let json = |d: Departures| serde_json::to_string(&d).expect("serialize");
        assert_eq!(json(Departures::default()), "{}");
        let at = Timestamp::from_unix_millis(5);
        let black_gone = Departures::default().with(Color::Black, Some(at));
        assert_eq!(json(black_gone), r#"{"black":5}"#);
        assert_eq!(black_gone.left_at(Color::Black), Some(at));
        assert_eq!(black_gone.left_at(Color::White), None);
        assert!(black_gone.with(Color::Black, None).is_empty());
        let back: Departures = serde_json::from_str(r#"{"white":7}"#).expect("deserialize");
        assert_eq!(
            back.left_at(Color::White),
            Some(Timestamp::from_unix_millis(7))
        );
    }
}
