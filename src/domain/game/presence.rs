//! Who has arrived at the chessboard, for the default time (FIDE 6.7.1:
//! "Any player who arrives at the chessboard after the default time shall
//! lose the game unless the arbiter decides otherwise").
//!
//! A player arrives by checking in ([`crate::domain::Game::check_in`], which the
//! platform calls when the player joins the board) or by making a move.
//! Check-ins are stored with the game; moves need not be, since the board
//! says who has moved.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::domain::GameResult;

/// A set of seats: who is at the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Presence {
    /// White is present.
    #[serde(default, skip_serializing_if = "is_false")]
    white: bool,
    /// Black is present.
    #[serde(default, skip_serializing_if = "is_false")]
    black: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl Presence {
    /// Nobody.
    pub const NOBODY: Presence = Presence {
        white: false,
        black: false,
    };

    /// Whether `color` is present.
    pub fn contains(self, color: Color) -> bool {
        color.fold_wb(self.white, self.black)
    }

    /// This set with `color` present too.
    #[must_use]
    pub fn with(mut self, color: Color) -> Self {
        match color {
            Color::White => self.white = true,
            Color::Black => self.black = true,
        }
        self
    }

    /// Whether nobody is present.
    pub fn is_empty(&self) -> bool {
        !self.white && !self.black
    }

    /// Whether both players are present.
    pub fn is_complete(self) -> bool {
        self.white && self.black
    }

    /// Everyone present in either set.
    #[must_use]
    pub fn union(self, other: Presence) -> Self {
        Self {
            white: self.white || other.white,
            black: self.black || other.black,
        }
    }

    /// The result when the default time runs out with this presence, or
    /// `None` when both players are present: a single absent player loses
    /// by forfeit; when neither is present both do (a double forfeit,
    /// scored as a loss for each and counted as unplayed).
    pub fn default_time_result(self) -> Option<GameResult> {
        use crate::domain::{Outcome, Termination};
        let outcome = match (self.white, self.black) {
            (true, true) => return None,
            (false, false) => Outcome::DoubleForfeit,
            (false, true) => Outcome::BlackWins,
            (true, false) => Outcome::WhiteWins,
        };
        Some(GameResult {
            outcome,
            termination: Termination::NoShow,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Outcome, Termination};

    #[test]
    fn absent_players_lose_at_the_default_time() {
        let no_show = |outcome| {
            Some(GameResult {
                outcome,
                termination: Termination::NoShow,
            })
        };
        let white = Presence::NOBODY.with(Color::White);
        let black = Presence::NOBODY.with(Color::Black);
        assert_eq!(
            Presence::NOBODY.default_time_result(),
            no_show(Outcome::DoubleForfeit)
        );
        assert_eq!(white.default_time_result(), no_show(Outcome::WhiteWins));
        assert_eq!(black.default_time_result(), no_show(Outcome::BlackWins));
        assert_eq!(white.union(black).default_time_result(), None);
        assert!(white.with(Color::Black).is_complete());
        assert!(white.contains(Color::White) && !white.contains(Color::Black));
        assert!(Presence::default().is_empty());
    }

    #[test]
    fn only_the_present_are_stored() {
        let json = |p: Presence| serde_json::to_string(&p).expect("serialize");
        assert_eq!(json(Presence::NOBODY), "{}");
        assert_eq!(
            json(Presence::NOBODY.with(Color::Black)),
            r#"{"black":true}"#
        );
        let back: Presence = serde_json::from_str(r#"{"white":true}"#).expect("deserialize");
        assert_eq!(back, Presence::NOBODY.with(Color::White));
    }
}
