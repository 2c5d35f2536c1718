//! Endings the position itself decides, with no claim (FIDE 5.1.1, 5.2.1,
//! 5.2.2, 9.6).

use shakmaty::{Chess, Position};

use crate::domain::{GameResult, Outcome, Repetition, Termination};

/// Half-moves without a pawn move or capture that end the game by
/// themselves (75 moves by each player).
pub const SEVENTY_FIVE_MOVES: u32 = 150;
/// Half-moves without a pawn move or capture that allow a claim.
pub const FIFTY_MOVES: u32 = 100;
/// Occurrences of a position that end the game by themselves.
pub const FIVEFOLD: usize = 5;
/// Occurrences of a position that allow a claim.
pub const THREEFOLD: usize = 3;

/// The ending the position decides, if any, in order of precedence:
/// checkmate (which takes precedence even on the 75th move), stalemate,
/// insufficient material, any other dead position, fivefold repetition,
/// the 75-move rule.
///
/// Material is judged here; any other dead position only when
/// `proven_dead` says an analysis proved it (see
/// [`DeadProof`](crate::domain::game::dead_position::DeadProof)): that analysis can take
/// far longer than a move, so the caller decides when and where it runs.
pub fn automatic_ending(
    pos: &Chess,
    repetition: &Repetition,
    proven_dead: bool,
) -> Option<GameResult> {
    let draw = |termination| {
        Some(GameResult {
            outcome: Outcome::Draw,
            termination,
        })
    };
    if pos.is_checkmate() {
        Some(GameResult {
            outcome: Outcome::win_for(!pos.turn()),
            termination: Termination::Checkmate,
        })
    } else if pos.is_stalemate() {
        draw(Termination::Stalemate)
    } else if pos.is_insufficient_material() {
        draw(Termination::InsufficientMaterial)
    } else if proven_dead {
        draw(Termination::DeadPosition)
    } else if repetition.current_count() >= FIVEFOLD {
        draw(Termination::FivefoldRepetition)
    } else if pos.halfmoves() >= SEVENTY_FIVE_MOVES {
        draw(Termination::SeventyFiveMoves)
    } else {
        None
    }
}

#[cfg(test)]
#[path = "endings_tests.rs"]
mod tests;
