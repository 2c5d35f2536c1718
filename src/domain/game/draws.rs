//! Draws by agreement (FIDE 9.1) and by claim (FIDE 9.2, 9.3, 9.5).

use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::domain::{
    GameResult, Outcome, Ply, Rejection, Termination,
    game::endings::{FIFTY_MOVES, THREEFOLD},
    game::serde_chess,
};

/// What a draw claim asserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimReason {
    /// The same position has appeared (or is about to appear) at least three
    /// times (FIDE 9.2).
    ThreefoldRepetition,
    /// The last 50 moves by each player (or those completed by the intended
    /// move) had no pawn move and no capture (FIDE 9.3).
    FiftyMoves,
}

/// How the arbiter ruled on a draw claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimVerdict {
    /// The claim is correct: the game is drawn.
    Upheld,
    /// The claim is incorrect; the game goes on (and the claim stands as a
    /// draw offer where offers are allowed).
    Refused(ClaimRefusal),
    /// The intended move ended the game by itself (e.g. checkmate), so
    /// there was nothing left to claim.
    Moot,
}

impl ClaimVerdict {
    /// What the claimant is told beyond the verdict itself: why a claim was
    /// refused or moot; nothing when upheld.
    pub fn explanation(&self) -> Option<String> {
        match self {
            ClaimVerdict::Upheld => None,
            ClaimVerdict::Refused(refusal) => Some(refusal.to_string()),
            ClaimVerdict::Moot => Some(
                "the intended move ended the game by itself; there was nothing to claim".to_owned(),
            ),
        }
    }
}

/// Why a draw claim does not hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimRefusal {
    /// The position has appeared fewer than three times (FIDE 9.2).
    TooFewRepetitions {
        /// How often it has appeared.
        count: usize,
        /// Whether the claim was about the position after an intended move.
        after_intended_move: bool,
    },
    /// Fewer than fifty moves by each player without a pawn move or capture
    /// (FIDE 9.3).
    TooFewQuietMoves {
        /// The half-moves without a pawn move or capture.
        halfmoves: u32,
        /// Whether the claim was about the position after an intended move.
        after_intended_move: bool,
    },
}

impl fmt::Display for ClaimRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ClaimRefusal::TooFewRepetitions {
                count,
                after_intended_move,
            } => write!(
                f,
                "the position {} appeared {count} time{}, not {THREEFOLD}",
                if after_intended_move {
                    "after the intended move has"
                } else {
                    "has"
                },
                if count == 1 { "" } else { "s" },
            ),
            ClaimRefusal::TooFewQuietMoves {
                halfmoves,
                after_intended_move,
            } => write!(
                f,
                "only {halfmoves} half-moves without a pawn move or capture{}, not {FIFTY_MOVES}",
                if after_intended_move {
                    " after the intended move"
                } else {
                    ""
                },
            ),
        }
    }
}

/// The most draw offers one player may make in a game. The Laws set no
/// number (a player who offers again and again is distracting the
/// opponent, 11.5, for the arbiter to judge); a cap keeps a game's log,
/// and what a client can make its watchers receive, bounded.
pub const MAX_DRAW_OFFERS: u16 = 20;

/// The most draw claims of one player that may be refused in a game; each
/// refused claim already gives the opponent time (9.5.3). A claim that
/// holds is upheld whatever the count.
pub const MAX_REFUSED_CLAIMS: u16 = 10;

/// How many draw offers each player made in a game, and how many of their
/// claims were refused, counted from the events the game commits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawRequests {
    /// Offers by White and by Black.
    pub(in crate::domain) offers: [u16; 2],
    /// Refused claims of White and of Black.
    pub(in crate::domain) refused_claims: [u16; 2],
}

pub(in crate::domain) fn index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl DrawRequests {
    /// Whether nothing was counted yet (a state without the field).
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Refuses a new offer from `seat` past [`MAX_DRAW_OFFERS`].
    pub(in crate::domain) fn ensure_may_offer(&self, seat: Color) -> Result<(), Rejection> {
        if self.offers[index(seat)] >= MAX_DRAW_OFFERS {
            return Err(Rejection::DrawRequestLimit {
                what: "draw offers",
                limit: MAX_DRAW_OFFERS,
            });
        }
        Ok(())
    }

    /// Refuses a new claim from `seat` past [`MAX_REFUSED_CLAIMS`] refused
    /// ones.
    pub(in crate::domain) fn ensure_may_claim(&self, seat: Color) -> Result<(), Rejection> {
        if self.refused_claims[index(seat)] >= MAX_REFUSED_CLAIMS {
            return Err(Rejection::DrawRequestLimit {
                what: "refused draw claims",
                limit: MAX_REFUSED_CLAIMS,
            });
        }
        Ok(())
    }
}

impl ClaimReason {
    /// The result of an upheld claim.
    pub(in crate::domain) fn upheld(self) -> GameResult {
        GameResult {
            outcome: Outcome::Draw,
            termination: match self {
                ClaimReason::ThreefoldRepetition => Termination::ThreefoldRepetition,
                ClaimReason::FiftyMoves => Termination::FiftyMoves,
            },
        }
    }
}

/// A game's latest draw claim, so that a client's retry of it gets the same
/// ruling instead of a second one (a refused claim would otherwise be
/// penalised twice).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastClaim {
    #[serde(with = "serde_chess::color")]
    pub(in crate::domain) seat: Color,
    pub(in crate::domain) ply: Ply,
    pub(in crate::domain) reason: ClaimReason,
    pub(in crate::domain) intended: Option<String>,
    /// The game's version right after the ruling.
    pub(in crate::domain) version: u64,
    pub(in crate::domain) verdict: ClaimVerdict,
}

impl LastClaim {
    /// Whether `claim` (made at its `version`) repeats this one with nothing
    /// committed since.
    pub(in crate::domain) fn repeats(&self, claim: &LastClaim) -> bool {
        self.version == claim.version
            && self.seat == claim.seat
            && self.ply == claim.ply
            && self.reason == claim.reason
            && self.intended == claim.intended
    }
}
