//! Dead positions (FIDE Art. 5.2.2) and whether a side can still checkmate,
//! decided by the Chess Unwinnability Analyzer (`chasolver`).
//!
//! chasolver reads positions through the `chess` crate, which knows
//! standard castling only: the king on e1 (e8) castling with the rook in
//! the a- or h-corner. Those rights are passed on, so the analysis covers
//! every castling line. A Chess960 right with the king or the rook
//! elsewhere cannot be passed on; such a position is analysed without it,
//! and only the answers that cannot depend on castling are trusted (see
//! [`can_checkmate`] and [`is_dead`]).

use shakmaty::{
    CastlingMode, CastlingSide, Chess, Color, EnPassantMode, File, Position, Rank, Role, fen::Fen,
};

use crate::domain::Ply;

/// Whether a side can still deliver checkmate by some series of legal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mating {
    /// A helpmate exists.
    Possible,
    /// Proven impossible.
    Impossible,
    /// The analysis did not decide: the search hit its limits, or the
    /// position has Chess960 castling rights the analysis cannot follow and
    /// no helpmate was found without castling.
    Undecided,
}

/// Whether every castling right in `pos` is a standard one (king on the
/// e-file, rook in its corner), so that the `chess` crate castles exactly
/// as the position's own rules do. Chess960 castling with king and rook on
/// those squares is the same move as standard castling: the same
/// destination squares, the same squares that must be empty and safe.
fn castling_is_standard(pos: &Chess) -> bool {
    pos.castles().castling_rights().into_iter().all(|rook| {
        let color = if rook.rank() == Rank::First {
            Color::White
        } else {
            Color::Black
        };
        let corner = matches!(rook.file(), File::A | File::H);
        let king_on_e = pos
            .board()
            .king_of(color)
            .is_some_and(|king| king.file() == File::E);
        corner && king_on_e
    })
}

/// Converts to the board type chasolver analyses, keeping the castling
/// rights when `castling` is set (they must be standard ones, see
/// [`castling_is_standard`]) and dropping them otherwise.
///
/// Built square by square, not through a FEN text: this runs on every move
/// (the fast dead-position test), where formatting and parsing a FEN cost
/// more than the test itself. The en passant square is the FIDE one
/// ([`EnPassantMode::Legal`]), as a FEN of the position would write it.
fn board_of(pos: &Chess, castling: bool) -> Option<chess::Board> {
    let color_of = |color: Color| color.fold_wb(chess::Color::White, chess::Color::Black);
    let mut builder = chess::BoardBuilder::new();
    for (square, piece) in pos.board().iter() {
        let role = match piece.role {
            Role::Pawn => chess::Piece::Pawn,
            Role::Knight => chess::Piece::Knight,
            Role::Bishop => chess::Piece::Bishop,
            Role::Rook => chess::Piece::Rook,
            Role::Queen => chess::Piece::Queen,
            Role::King => chess::Piece::King,
        };
        // Both crates number the squares a1 = 0, b1 = 1, ..., h8 = 63.
        builder.piece(
            chess::ALL_SQUARES[square.to_usize()],
            role,
            color_of(piece.color),
        );
    }
    builder.side_to_move(color_of(pos.turn()));
    if castling {
        let castles = pos.castles();
        for color in Color::ALL {
            let rights = match (
                castles.has(color, CastlingSide::KingSide),
                castles.has(color, CastlingSide::QueenSide),
            ) {
                (true, true) => chess::CastleRights::Both,
                (true, false) => chess::CastleRights::KingSide,
                (false, true) => chess::CastleRights::QueenSide,
                (false, false) => chess::CastleRights::NoRights,
            };
            builder.castle_rights(color_of(color), rights);
        }
    }
    builder.en_passant(
        pos.ep_square(EnPassantMode::Legal)
            .map(|square| chess::File::from_index(square.file().to_usize())),
    );
    chess::Board::try_from(&builder).ok()
}

/// The same board through a FEN text: what [`board_of`] must agree with.
#[cfg(test)]
fn board_through_fen(pos: &Chess, castling: bool) -> Option<chess::Board> {
    use std::str::FromStr;
    let mut setup = Fen::from_position(pos, EnPassantMode::Legal).into_setup();
    if !castling {
        setup.castling_rights = shakmaty::Bitboard::EMPTY;
    }
    let fen = super::chess_move::fen_text(&Fen::try_from_setup(setup).ok()?);
    chess::Board::from_str(&fen).ok()
}

/// Whether the position is dead: neither side can checkmate by any series
/// of legal moves. Uses the fast, sound test (true only when proven), which
/// costs microseconds and covers locked pawn walls as well as material.
/// Standard castling rights are part of the analysis; a position with
/// Chess960 castling rights it cannot follow is never declared dead unless
/// neither side has mating material at all.
pub fn is_dead(pos: &Chess) -> bool {
    if pos.is_insufficient_material() {
        return true;
    }
    if !castling_is_standard(pos) {
        return false;
    }
    let Some(board) = board_of(pos, true) else {
        return false;
    };
    chasolver::is_unwinnable_fast(&board, chess::Color::White)
        && chasolver::is_unwinnable_fast(&board, chess::Color::Black)
}

/// Whether `side` can still checkmate, by the full helpmate search.
///
/// Standard castling rights are searched like any other move. With Chess960
/// castling rights the search cannot follow, the position is searched
/// without castling: a helpmate found there is one in the real position
/// too (castling rights forbid no other move, and cannot be used out of
/// check, so they change no checkmate), but a proof that none exists does
/// not cover the lines that castle, so it is [`Mating::Undecided`].
pub fn can_checkmate(pos: &Chess, side: Color) -> Mating {
    if pos.has_insufficient_material(side) {
        // Whatever the castling rights: this material never mates.
        return Mating::Impossible;
    }
    let castling = castling_is_standard(pos);
    let Some(board) = board_of(pos, castling) else {
        return Mating::Undecided;
    };
    let winner = side.fold_wb(chess::Color::White, chess::Color::Black);
    match chasolver::winnability(&board, winner) {
        Some(chasolver::Winnability::Winnable { .. }) => Mating::Possible,
        Some(chasolver::Winnability::Unwinnable) if castling => Mating::Impossible,
        Some(chasolver::Winnability::Unwinnable) | None => Mating::Undecided,
    }
}

/// Whether chasolver's fast test on `pos` is bounded to a fraction of a
/// millisecond: any queen, rook or knight on the board. Its costly phases
/// (searches 7 and 15 plies deep, check chains, reachability closures) run
/// only when nothing but kings, pawns and bishops remain, and its first
/// phase, a 4-ply search, stops at the first line that keeps mating
/// material. Measured on chasolver's own test positions: the slowest of
/// 63,685 with a queen, rook or knight took 0.52 ms (65,536 from Lichess
/// games, 3,146 submitted to its authors as hard cases); among those with
/// only kings, pawns and bishops, several took over a second.
pub fn fast_test_is_quick(pos: &Chess) -> bool {
    let board = pos.board();
    (board.queens() | board.rooks() | board.knights()).any()
}

/// What an exhaustive analysis of a position found (see [`analyse`]).
#[derive(Clone, Debug)]
pub enum Deadness {
    /// Proven dead: neither side can checkmate.
    Dead(DeadProof),
    /// A side can still checkmate.
    Alive,
    /// The analysis did not decide.
    Undecided,
}

/// A proof that a game's position at a ply was dead (FIDE 5.2.2): neither
/// side could checkmate by any series of legal moves. Only the analyses
/// here make one; a game ruled by it (see
/// [`Game::rule_dead_position`](crate::domain::Game::rule_dead_position)) checks
/// that it is about its own position.
///
/// A dead position stays dead whatever is played from it (no series of
/// legal moves from it mates, so none from a position it leads to does),
/// so a proof about an earlier ply of a game also holds for its later ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadProof {
    ply: Ply,
    position: Chess,
}

impl DeadProof {
    /// A proof by the fast, sound test ([`is_dead`]) that `pos`, the
    /// position at `ply`, is dead; `None` when the test does not prove it.
    /// Costs microseconds on most positions, but can take over a second
    /// on a few (kings, pawns and bishops), so a server runs it within a
    /// time budget, off its async workers.
    pub fn fast(pos: &Chess, ply: Ply) -> Option<Self> {
        is_dead(pos).then(|| Self::new(pos, ply))
    }

    fn new(pos: &Chess, ply: Ply) -> Self {
        Self {
            ply,
            position: pos.clone(),
        }
    }

    /// The ply whose position is dead.
    pub fn ply(&self) -> Ply {
        self.ply
    }

    /// Whether this proves `pos`, the position at `ply`, dead: the same
    /// position at the same ply.
    pub fn proves(&self, pos: &Chess, ply: Ply) -> bool {
        self.ply == ply && self.position == *pos
    }
}

/// Decides whether `pos`, the position at `ply`, is dead: the fast test,
/// then the full helpmate search for each side until one can mate. Exact
/// where the fast test is not (it proves every dead position of the
/// Chess Unwinnability Analyzer's test vectors), but it costs tens of
/// microseconds to milliseconds: a server runs it in the background.
pub fn analyse(pos: &Chess, ply: Ply) -> Deadness {
    if let Some(proof) = DeadProof::fast(pos, ply) {
        return Deadness::Dead(proof);
    }
    let mut undecided = false;
    for side in [pos.turn(), !pos.turn()] {
        match can_checkmate(pos, side) {
            Mating::Possible => return Deadness::Alive,
            Mating::Undecided => undecided = true,
            Mating::Impossible => {}
        }
    }
    if undecided {
        Deadness::Undecided
    } else {
        Deadness::Dead(DeadProof::new(pos, ply))
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

    /// The board built square by square is the one a FEN text gives, at
    /// every position of random games: castling rights kept and dropped,
    /// en passant squares legal and not, checks, promotions.
    #[test]
    fn boards_built_directly_equal_boards_read_from_fen() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(20_261_201);
        let mut positions = 0;
        for _ in 0..300 {
            let mut pos = Chess::default();
            for _ in 0..rng.random_range(0..160) {
                for castling in [true, false] {
                    if castling && !castling_is_standard(&pos) {
                        continue;
                    }
                    let direct = board_of(&pos, castling);
                    assert!(direct.is_some());
                    assert_eq!(direct, board_through_fen(&pos, castling));
                    assert_eq!(
                        direct.map(|b| b.get_hash()),
                        board_through_fen(&pos, castling).map(|b| b.get_hash())
                    );
                    positions += 1;
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let pick = rng.random_range(0..moves.len());
                pos.play_unchecked(moves[pick]);
            }
        }
        assert!(positions > 10_000, "{positions}");
    }

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

    /// White may still castle short; Black has king, bishop and pawns that
    /// can never get free: Black cannot checkmate by any series of legal
    /// moves (a labelled test vector of the Chess Unwinnability Analyzer).
    const WHITE_MAY_CASTLE: &str = "k1b5/1pPp4/1P1P3p/1P6/5P1P/5PNR/3NPBBQ/4K2R w K - 0 1";

    fn chess960(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("FEN")
            .into_position(CastlingMode::Chess960)
            .expect("legal Chess960 position")
    }

    #[test]
    fn standard_castling_rights_are_searched_not_assumed() {
        let pos = position(WHITE_MAY_CASTLE).unwrap();
        assert!(pos.castles().any());
        assert_eq!(can_checkmate(&pos, Color::Black), Mating::Impossible);
        // Only castling frees White's pieces: without it the position
        // would be dead, with it White can still mate.
        assert_eq!(can_checkmate(&pos, Color::White), Mating::Possible);
        assert!(!is_dead(&pos));
        let without_castling = position(&WHITE_MAY_CASTLE.replace(" K ", " - ")).unwrap();
        assert!(is_dead(&without_castling));
    }

    #[test]
    fn chess960_castling_from_the_standard_squares_is_searched() {
        // King on e1 and rook on h1: Chess960 castling is standard castling.
        let pos = chess960(WHITE_MAY_CASTLE);
        assert_eq!(can_checkmate(&pos, Color::Black), Mating::Impossible);
        assert_eq!(can_checkmate(&pos, Color::White), Mating::Possible);
    }

    #[test]
    fn other_chess960_castling_is_trusted_only_where_it_cannot_matter() {
        // The same position with the king on f1, castling with the h1 rook:
        // the analysis cannot follow that castling, so no helpmate found
        // without it proves nothing.
        let pos = chess960("k1b5/1pPp4/1P1P3p/1P6/5P1P/5PNR/3NPBBQ/5K1R w K - 0 1");
        assert!(pos.castles().any());
        assert_eq!(can_checkmate(&pos, Color::Black), Mating::Undecided);
        // Nor can it tell whether castling frees White's pieces, as it does
        // from e1: the position is never declared dead.
        assert_eq!(can_checkmate(&pos, Color::White), Mating::Undecided);
        assert!(!is_dead(&pos));
        // A helpmate found without castling is one with castling too.
        let start = chess960(&crate::domain::chess960_fen(0).unwrap());
        assert_eq!(can_checkmate(&start, Color::White), Mating::Possible);
        assert!(!is_dead(&start));
        // A lone king never mates, whatever the castling rights.
        let lone = chess960("5k2/8/8/8/8/8/8/5K1R w K - 0 1");
        assert_eq!(can_checkmate(&lone, Color::Black), Mating::Impossible);
    }

    #[test]
    fn only_kings_pawns_and_bishops_make_the_fast_test_slow() {
        let quick = |fen: &str| fast_test_is_quick(&position(fen).unwrap());
        assert!(quick(crate::domain::game::state::STANDARD_FEN));
        assert!(quick("8/5pk1/6p1/8/3R4/6P1/5PK1/r7 w - - 0 40"));
        assert!(quick("8/8/4k3/8/8/3KN3/8/8 w - - 0 1"));
        assert!(!quick("Bk6/1P3p1p/1P6/8/8/8/5P1P/6K1 w - - 0 1"));
        assert!(!quick("8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/5B2 w - - 0 1"));
    }

    #[test]
    fn the_full_analysis_proves_what_the_fast_test_cannot() {
        // Test vectors of the Chess Unwinnability Analyzer labelled dead.
        for fen in [
            "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - - 0 1",
            "8/3p1p1p/8/1p6/kP6/Pp6/pP1P1P1P/K7 w - - 0 1",
        ] {
            let pos = position(fen).unwrap();
            assert!(!is_dead(&pos), "{fen}");
            let Deadness::Dead(proof) = analyse(&pos, Ply::new(4)) else {
                panic!("{fen} not proven dead");
            };
            assert!(proof.proves(&pos, Ply::new(4)));
            assert!(!proof.proves(&pos, Ply::new(5)));
        }
        // Fast proofs are proofs too; and a position with a helpmate is
        // alive.
        let wall = position("8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/5B2 w - - 0 1").unwrap();
        assert!(matches!(analyse(&wall, Ply::START), Deadness::Dead(_)));
        let knights = position("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1").unwrap();
        assert!(matches!(analyse(&knights, Ply::START), Deadness::Alive));
        assert!(DeadProof::fast(&knights, Ply::START).is_none());
    }

    #[test]
    fn a_lone_king_cannot_checkmate() {
        let pos = position("8/8/4k3/8/8/3K4/8/7R w - - 0 1").unwrap();
        assert_eq!(can_checkmate(&pos, Color::Black), Mating::Impossible);
        assert_eq!(can_checkmate(&pos, Color::White), Mating::Possible);
    }
}
