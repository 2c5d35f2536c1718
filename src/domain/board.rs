//! The board of a game in progress: the position, how many half-moves led
//! to it, and the positions that can still recur.

use serde::{Deserialize, Serialize};
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use super::{MoveRecord, Ply, Repetition, Timestamp, serde_chess};

/// The position reached, the half-moves played, and the repetition history
/// (FIDE 9.2.3) since the last pawn move or capture.
///
/// Its size is bounded whatever the game's length: the moves themselves live
/// in the game's event log, and the repetition history holds at most the
/// 151 positions the 75-move rule allows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Board {
    #[serde(with = "serde_chess::position")]
    position: Chess,
    ply: Ply,
    repetition: Repetition,
}

impl Board {
    /// A board set up at `start`, before any move.
    pub fn new(start: Chess) -> Self {
        Self::restore(Repetition::starting_at(&start), start, Ply::START)
    }

    /// A board as stored: `position` reached after `ply` half-moves, with the
    /// repetition history that led to it.
    pub(super) fn restore(repetition: Repetition, position: Chess, ply: Ply) -> Self {
        Self {
            position,
            ply,
            repetition,
        }
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.position
    }

    /// Half-moves played.
    pub fn ply(&self) -> Ply {
        self.ply
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.position.turn()
    }

    /// The positions since the last pawn move or capture.
    pub fn repetition(&self) -> &Repetition {
        &self.repetition
    }

    /// Plays `m` (legal in the current position) at `now`, returning its
    /// record. `mode` is the variant's castling notation.
    pub fn play(&mut self, m: Move, mode: CastlingMode, now: Timestamp) -> MoveRecord {
        let (record, after) = MoveRecord::play(&self.position, m, mode, self.ply, now);
        self.position = after;
        self.ply = self.ply.next();
        self.repetition.record(&self.position);
        record
    }
}
