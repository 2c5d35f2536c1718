//! Dead positions (FIDE Art. 5.2.2) and whether a side can still checkmate,
//! decided by the Chess Unwinnability Analyzer (`chasolver`).

use std::str::FromStr;

use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, fen::Fen};

/// Whether a side can still deliver checkmate by some series of legal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mating {
    /// A helpmate exists.
    Possible,
    /// Proven impossible.
    Impossible,
    /// The analysis did not decide within its limits.
    Undecided,
}

/// Converts to the board type chasolver analyses. Castling rights are not
/// carried over (that library does not know Chess960 castling), so callers
/// treat positions with castling rights conservatively.
fn board_of(pos: &Chess) -> Option<chess::Board> {
    let mut setup = Fen::from_position(pos, EnPassantMode::Legal).into_setup();
    setup.castling_rights = shakmaty::Bitboard::EMPTY;
    let fen = Fen::try_from_setup(setup).ok()?.to_string();
    chess::Board::from_str(&fen).ok()
}

/// Whether the position is dead: neither side can checkmate by any series
/// of legal moves. Uses the fast, sound test (true only when proven), which
/// costs microseconds and covers locked pawn walls as well as material.
/// A position where castling is still possible is never declared dead.
pub fn is_dead(pos: &Chess) -> bool {
    if pos.castles().any() {
        return false;
    }
    let Some(board) = board_of(pos) else {
        return false;
    };
    chasolver::is_unwinnable_fast(&board, chess::Color::White)
        && chasolver::is_unwinnable_fast(&board, chess::Color::Black)
}

/// Whether `side` can still checkmate, by the full helpmate search.
pub fn can_checkmate(pos: &Chess, side: Color) -> Mating {
    if pos.castles().any() {
        // Castling rights mean king and rook are unmoved: far too much
        // material to be unwinnable; do not second-guess it.
        return Mating::Possible;
    }
    let Some(board) = board_of(pos) else {
        return Mating::Undecided;
    };
    let winner = side.fold_wb(chess::Color::White, chess::Color::Black);
    match chasolver::winnability(&board, winner) {
        Some(chasolver::Winnability::Winnable { .. }) => Mating::Possible,
        Some(chasolver::Winnability::Unwinnable) => Mating::Impossible,
        None => Mating::Undecided,
    }
}

/// A position from FEN in standard castling mode (for tests and tools).
pub fn position(fen: &str) -> Option<Chess> {
    fen.parse::<Fen>()
        .ok()?
        .into_position(CastlingMode::Standard)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dead(fen: &str) -> bool {
        is_dead(&position(fen).expect("legal FEN"))
    }

    #[test]
    fn material_cases_are_dead() {
        assert!(dead("8/8/4k3/8/8/3K4/8/8 w - - 0 1"));
        assert!(dead("8/8/4k3/8/8/3KB3/8/8 w - - 0 1"));
        assert!(dead("8/8/4k3/8/8/3KN3/8/8 b - - 0 1"));
        // Bishops all on light squares.
        assert!(dead("8/8/4k3/1b6/8/3K4/2B5/8 w - - 0 1"));
    }

    #[test]
    fn locked_pawn_walls_are_dead() {
        // Kings on either side of a complete locked wall.
        assert!(dead("8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/8 w - - 0 1"));
        assert!(dead("8/2k5/8/1p1p1p1p/1P1P1P1P/8/5K2/8 b - - 0 1"));
        // A light-squared bishop cannot attack the wall's dark-square pawns
        // nor mate alone behind it.
        assert!(dead("8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/5B2 w - - 0 1"));
    }

    #[test]
    fn positions_with_a_helpmate_are_alive() {
        // Two knights cannot force mate, but a helpmate exists.
        assert!(!dead("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1"));
        // Opposite-coloured bishops: a helpmate exists (king in a corner).
        assert!(!dead("8/8/4k3/2b5/8/3K4/2B5/8 w - - 0 1"));
        // The same wall with a dark-squared bishop, which can win a pawn.
        assert!(!dead("8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/2B5 w - - 0 1"));
        // K+N v K+P: the pawn side can be helpmated.
        assert!(!dead("8/8/4k3/8/8/3KN3/7p/8 w - - 0 1"));
        assert!(!dead(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        ));
    }

    #[test]
    fn a_lone_king_cannot_checkmate() {
        let pos = position("8/8/4k3/8/8/3K4/8/7R w - - 0 1").unwrap();
        assert_eq!(can_checkmate(&pos, Color::Black), Mating::Impossible);
        assert_eq!(can_checkmate(&pos, Color::White), Mating::Possible);
    }
}
