//! Chess variants the arbiter runs: standard chess and Chess960.

use rand::Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use shakmaty::CastlingMode;

use crate::domain::{FieldError, RequestId};

/// The variant of a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// Standard chess.
    #[default]
    Standard,
    /// Chess960 (Fischer random chess, FIDE Laws Appendix "Chess960 rules"):
    /// pieces start on one of 960 back-rank arrangements and castle by the
    /// Chess960 rules.
    Chess960,
}

impl Variant {
    /// How castling moves are written and read in this variant.
    pub fn castling_mode(self) -> CastlingMode {
        match self {
            Variant::Standard => CastlingMode::Standard,
            Variant::Chess960 => CastlingMode::Chess960,
        }
    }
}

/// Number of Chess960 starting positions.
pub const CHESS960_POSITIONS: u32 = 960;

/// The FEN of Chess960 starting position `number` (0 to 959) in the
/// standard numbering scheme (Scharnagl's); 518 is the standard start.
pub fn chess960_fen(number: u32) -> Result<String, FieldError> {
    if number >= CHESS960_POSITIONS {
        return Err(FieldError::new(
            "chess960_position",
            format!("must be from 0 to 959, not {number}"),
        ));
    }
    let mut rank: [Option<char>; 8] = [None; 8];
    let mut n = number as usize;
    // Light-squared bishop on b, d, f or h; dark-squared on a, c, e or g.
    rank[2 * (n % 4) + 1] = Some('B');
    n /= 4;
    rank[2 * (n % 4)] = Some('B');
    n /= 4;
    place_on_empty(&mut rank, n % 6, 'Q');
    n /= 6;
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (first, second) = KNIGHTS[n];
    // Place the later knight first so the earlier index is not shifted.
    place_on_empty(&mut rank, second, 'N');
    place_on_empty(&mut rank, first, 'N');
    // The three squares left take rook, king, rook from left to right.
    for piece in ['R', 'K', 'R'] {
        place_on_empty(&mut rank, 0, piece);
    }
    let white: String = rank.iter().map(|p| p.unwrap_or('?')).collect();
    let black = white.to_ascii_lowercase();
    Ok(format!(
        "{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1"
    ))
}

/// The Chess960 starting position for a request that names none: derived
/// from the idempotency key when there is one (so a repeated request, even
/// one served by a newer release, gets the same position), random
/// otherwise.
pub fn chess960_position_for(request_id: Option<&RequestId>) -> u32 {
    match request_id {
        Some(key) => {
            let digest = Sha256::digest(format!("chess-arbiter/chess960/{}", key.as_str()));
            let mut first = [0u8; 8];
            first.copy_from_slice(&digest[..8]);
            // 2^64 is not a multiple of 960; the bias is below 1e-16.
            (u64::from_le_bytes(first) % u64::from(CHESS960_POSITIONS)) as u32
        }
        None => rand::rng().random_range(0..CHESS960_POSITIONS),
    }
}

/// Puts `piece` on the `index`-th empty square from the a-file.
fn place_on_empty(rank: &mut [Option<char>; 8], index: usize, piece: char) {
    if let Some(square) = rank.iter_mut().filter(|s| s.is_none()).nth(index) {
        *square = Some(piece);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::StartPosition;

    #[test]
    fn position_518_is_the_standard_start() {
        assert_eq!(
            chess960_fen(518).unwrap(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
        );
    }

    #[test]
    fn known_positions_match_the_published_table() {
        assert!(chess960_fen(0).unwrap().ends_with("/BBQNNRKR w KQkq - 0 1"));
        assert!(
            chess960_fen(959)
                .unwrap()
                .ends_with("/RKRNNQBB w KQkq - 0 1")
        );
        assert!(chess960_fen(1).unwrap().ends_with("/BQNBNRKR w KQkq - 0 1"));
    }

    #[test]
    fn every_number_gives_a_distinct_legal_arrangement() {
        let mut seen = std::collections::HashSet::new();
        for number in 0..CHESS960_POSITIONS {
            let fen = chess960_fen(number).unwrap();
            let back = fen
                .split('/')
                .next_back()
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .to_owned();
            let king = back.find('K').unwrap();
            let rooks: Vec<usize> = back.match_indices('R').map(|(i, _)| i).collect();
            assert!(rooks[0] < king && king < rooks[1], "{back}");
            let bishops: Vec<usize> = back.match_indices('B').map(|(i, _)| i).collect();
            assert_ne!(bishops[0] % 2, bishops[1] % 2, "{back}");
            assert!(seen.insert(back));
        }
        assert!(chess960_fen(960).is_err());
    }

    #[test]
    fn the_default_chess960_position_is_fixed_by_the_idempotency_key() {
        let key = |text| RequestId::parse(text).unwrap().unwrap();
        // Pinned: a retry served by another release must get the same
        // position.
        assert_eq!(
            chess960_position_for(Some(&key("960/round-1/board-1"))),
            463
        );
        assert_eq!(chess960_position_for(Some(&key("a"))), 103);
        for text in ["x", "round-3/board-7", "960/round-1/board-1"] {
            let number = chess960_position_for(Some(&key(text)));
            assert!(number < CHESS960_POSITIONS);
            assert_eq!(number, chess960_position_for(Some(&key(text))));
        }
        assert!(chess960_position_for(None) < CHESS960_POSITIONS);
    }

    #[test]
    fn a_request_names_a_fen_or_a_chess960_number_not_both() {
        let key = RequestId::parse("k").unwrap();
        let start =
            |variant, fen, number| StartPosition::requested(variant, fen, number, key.as_ref());
        assert_eq!(
            start(Variant::Chess960, " 8/8 ", Some(3)),
            Err(FieldError::new(
                "chess960_position",
                "cannot be combined with initial_fen"
            ))
        );
        assert_eq!(
            start(Variant::Chess960, "", Some(3)),
            Ok(StartPosition::Chess960(3))
        );
        assert_eq!(
            start(Variant::Standard, "  ", None),
            Ok(StartPosition::Standard)
        );
        assert_eq!(
            start(Variant::Standard, " 8/8 w ", None),
            Ok(StartPosition::Fen("8/8 w".to_owned()))
        );
        assert_eq!(
            start(Variant::Chess960, "", None),
            Ok(StartPosition::Chess960(chess960_position_for(key.as_ref())))
        );
    }
}
