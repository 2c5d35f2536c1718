//! Position identity and repetition counting (FIDE Art. 9.2.3).

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, EnPassantMode, Position, fen::Epd};

/// The positions since the last pawn move or capture, oldest first, ending
/// with the current one. Earlier positions can never recur, so this is all
/// repetition needs; the 75-move rule bounds it to 151 entries.
///
/// Each position is kept as its identity in the sense of FIDE 9.2.3: side to
/// move, pieces on squares, castling rights, and an en passant square only
/// when an en passant capture is actually legal. Comparing identities is
/// full position equality, not a hash that might collide.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Repetition {
    positions: Vec<String>,
}

/// The FIDE identity of a position.
pub fn identity(pos: &Chess) -> String {
    Epd::from_position(pos, EnPassantMode::Legal).to_string()
}

impl Repetition {
    /// The history of a game starting at `start`.
    pub fn starting_at(start: &Chess) -> Self {
        Self {
            positions: vec![identity(start)],
        }
    }

    /// Records the position reached by a move.
    pub fn record(&mut self, after: &Chess) {
        if after.halfmoves() == 0 {
            // A pawn move or capture: nothing before it can recur.
            self.positions.clear();
        }
        self.positions.push(identity(after));
    }

    /// How often `pos` has appeared, counting the current position.
    pub fn count(&self, pos: &Chess) -> usize {
        let wanted = identity(pos);
        self.positions.iter().filter(|p| **p == wanted).count()
    }

    /// How often the current position has appeared (at least 1).
    pub fn current_count(&self) -> usize {
        self.positions.last().map_or(0, |current| {
            self.positions.iter().filter(|p| *p == current).count()
        })
    }

    /// How often the position after a move would have appeared, counting
    /// that occurrence (history plus one when it matches).
    pub fn count_after(&self, after: &Chess) -> usize {
        if after.halfmoves() == 0 {
            1
        } else {
            self.count(after) + 1
        }
    }
}
