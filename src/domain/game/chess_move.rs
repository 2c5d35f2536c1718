//! Reading a client's move (UCI or SAN), recording a played move, and the
//! texts of moves and positions written in one allocation each.

use serde::{Deserialize, Serialize};
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, Move, Position,
    fen::Fen,
    san::{San, SanError, SanPlus, Suffix},
    uci::UciMove,
};

use crate::domain::{
    IllegalMoveReason, MoveReport, MoveTime, Ply, Rejection, Timestamp, game::serde_chess,
};

/// Longest move text accepted (the longest SAN, e.g. `Qa1xh8=Q#`, is shorter).
const MAX_MOVE_LEN: usize = 16;

/// Reads `text` as a move in `pos`: UCI first (`e2e4`, `e7e8q`, `e1g1`, and
/// king-takes-rook `e1h1` for castling), then SAN (`Nf3`, `exd6`, `O-O`,
/// `e8=Q+`). `mode` is the variant's castling notation, used to explain
/// refusals.
///
/// ```
/// use arbiter::domain::parse_move;
/// use shakmaty::{CastlingMode, Chess};
///
/// let pos = Chess::default();
/// let mode = CastlingMode::Standard;
/// assert_eq!(parse_move(&pos, mode, "e2e4"), parse_move(&pos, mode, "e4"));
/// assert!(parse_move(&pos, mode, "e5").is_err());
/// ```
pub fn parse_move(pos: &Chess, mode: CastlingMode, text: &str) -> Result<Move, Rejection> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(crate::domain::FieldError::new("move", "is required").into());
    }
    if trimmed.len() > MAX_MOVE_LEN {
        return Err(Rejection::UnparsableMove {
            text: truncate(trimmed),
        });
    }
    if let Ok(uci) = trimmed.parse::<UciMove>() {
        return uci.to_move(pos).map_err(|_| Rejection::IllegalMove {
            text: trimmed.to_owned(),
            reason: illegal_uci_reason(pos, mode, &uci),
        });
    }
    match trimmed.parse::<SanPlus>() {
        Ok(san) => san.san.to_move(pos).map_err(|err| Rejection::IllegalMove {
            text: trimmed.to_owned(),
            reason: match err {
                SanError::AmbiguousSan => IllegalMoveReason::AmbiguousSan,
                SanError::IllegalSan => IllegalMoveReason::NoPieceCanMakeIt,
            },
        }),
        Err(_) => Err(Rejection::UnparsableMove {
            text: trimmed.to_owned(),
        }),
    }
}

/// Why a well-formed UCI move is not legal in `pos`.
fn illegal_uci_reason(pos: &Chess, mode: CastlingMode, uci: &UciMove) -> IllegalMoveReason {
    let UciMove::Normal {
        from,
        to,
        promotion,
    } = *uci
    else {
        return IllegalMoveReason::NotPlayable;
    };
    let Some(piece) = pos.board().piece_at(from) else {
        return IllegalMoveReason::NoPieceOn { square: from };
    };
    if piece.color != pos.turn() {
        return IllegalMoveReason::OpponentsPiece { square: from };
    }
    let legal = pos.legal_moves();
    let candidates: Vec<&Move> = legal
        .iter()
        .filter(|m| {
            m.from() == Some(from)
                && (UciMove::from_move(**m, mode).to() == Some(to)
                    || UciMove::from_move(**m, CastlingMode::Standard).to() == Some(to))
        })
        .collect();
    if candidates.is_empty() {
        if pos.is_check() {
            IllegalMoveReason::DoesNotEscapeCheck { from, to }
        } else {
            IllegalMoveReason::CannotMoveThere { from, to }
        }
    } else if promotion.is_none() {
        IllegalMoveReason::PromotionMissing
    } else {
        IllegalMoveReason::PromotionInvalid
    }
}

fn truncate(text: &str) -> String {
    text.chars().take(MAX_MOVE_LEN).collect::<String>() + "…"
}

/// A move the arbiter accepted, with everything a client shows about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// Half-moves played before this move.
    pub ply: Ply,
    /// UCI notation.
    pub uci: String,
    /// SAN with `+`/`#`.
    pub san: String,
    /// The side that moved.
    #[serde(with = "serde_chess::color")]
    pub color: Color,
    /// The position after the move, in FEN.
    pub fen_after: String,
    /// When the arbiter accepted the move.
    pub played_at: Timestamp,
    /// Thinking time and the mover's clock after the move, in a timed game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<MoveTime>,
    /// What the platform reported with the move, in a game that keeps a
    /// fair-play record: for the people who review fair play, not for the
    /// players or the public.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<MoveReport>,
}

impl MoveRecord {
    /// Records `m` played in `before` (which must be legal there), returning
    /// the record and the position after it. `mode` is the variant's
    /// castling notation for the UCI form.
    pub fn play(
        before: &Chess,
        m: Move,
        mode: CastlingMode,
        ply: Ply,
        now: Timestamp,
    ) -> (Self, Chess) {
        let mut after = before.clone();
        let san = San::from_move(before, m);
        after.play_unchecked(m);
        let san = SanPlus {
            san,
            suffix: check_suffix(&after),
        };
        let record = Self {
            ply,
            uci: uci_text(UciMove::from_move(m, mode)),
            san: san.to_string(),
            color: before.turn(),
            fen_after: fen_text(&Fen::from_position(&after, EnPassantMode::Legal)),
            played_at: now,
            time: None,
            report: None,
        };
        (record, after)
    }

    /// Whether `text` names this move as a client would have sent it
    /// (its UCI, or its SAN with or without the check mark).
    pub fn is_written_as(&self, text: &str) -> bool {
        let text = text.trim();
        let bare = |s: &str| s.trim_end_matches(['+', '#']).to_owned();
        text == self.uci || bare(text) == bare(&self.san)
    }
}

/// The check mark of a move that led to `after`: what shakmaty's
/// `Suffix::from_position` says, without its look at the legal moves of a
/// position not in check (standard chess and Chess960 end decisively by
/// checkmate alone), which would generate them once more than the
/// automatic endings do.
fn check_suffix(after: &Chess) -> Option<Suffix> {
    if !after.is_check() {
        None
    } else if after.is_checkmate() {
        Some(Suffix::Checkmate)
    } else {
        Some(Suffix::Check)
    }
}

/// The longest FEN of a legal position is about 90 characters.
const FEN_CAPACITY: usize = 96;

/// `fen`'s text, as its `Display` writes it, in one allocation: a move
/// writes the position's FEN for its record, for the record's check and
/// for the reply, and written piece by piece a string grows four times.
pub(in crate::domain) fn fen_text(fen: &Fen) -> String {
    let mut text = String::with_capacity(FEN_CAPACITY);
    fen.append_to_string(&mut text);
    text
}

/// `uci`'s text, as its `Display` writes it, in one allocation of its size:
/// a reply lists every legal move so, some forty a position.
pub(in crate::domain) fn uci_text(uci: UciMove) -> String {
    match uci {
        UciMove::Normal {
            from,
            to,
            promotion,
        } => {
            let mut text = String::with_capacity(4 + usize::from(promotion.is_some()));
            for square in [from, to] {
                text.push(square.file().char());
                text.push(square.rank().char());
            }
            if let Some(role) = promotion {
                text.push(role.char());
            }
            text
        }
        UciMove::Put { .. } | UciMove::Null => uci.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Square, fen::Fen};

    use super::*;

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn uci_and_san_name_the_same_move() {
        let pos = Chess::default();
        assert_eq!(
            parse_move(&pos, CastlingMode::Standard, "g1f3"),
            parse_move(&pos, CastlingMode::Standard, "Nf3")
        );
        assert_eq!(
            parse_move(&pos, CastlingMode::Standard, " e2e4 "),
            parse_move(&pos, CastlingMode::Standard, "e4")
        );
    }

    #[test]
    fn promotion_needs_a_piece() {
        let pos = position("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
        assert!(parse_move(&pos, CastlingMode::Standard, "e7e8q").is_ok());
        assert!(parse_move(&pos, CastlingMode::Standard, "e8=N+").is_ok());
        let Err(Rejection::IllegalMove { reason, .. }) =
            parse_move(&pos, CastlingMode::Standard, "e7e8")
        else {
            panic!("promotion without a piece was accepted");
        };
        assert_eq!(reason, IllegalMoveReason::PromotionMissing);
        assert_eq!(
            reason.to_string(),
            "a pawn reaching the last rank must promote: add q, r, b or n"
        );
        assert!(matches!(
            parse_move(&pos, CastlingMode::Standard, "e7e8k"),
            Err(Rejection::IllegalMove { .. }) | Err(Rejection::UnparsableMove { .. })
        ));
    }

    #[test]
    fn garbage_is_unparsable_and_empty_is_missing() {
        let pos = Chess::default();
        assert!(matches!(
            parse_move(&pos, CastlingMode::Standard, "hello"),
            Err(Rejection::UnparsableMove { .. })
        ));
        assert!(matches!(
            parse_move(&pos, CastlingMode::Standard, &"x".repeat(400)),
            Err(Rejection::UnparsableMove { .. })
        ));
        assert!(matches!(
            parse_move(&pos, CastlingMode::Standard, ""),
            Err(Rejection::InvalidField(_))
        ));
    }

    #[test]
    fn illegal_moves_say_why() {
        let pos = Chess::default();
        let reason = |text| match parse_move(&pos, CastlingMode::Standard, text) {
            Err(Rejection::IllegalMove { reason, .. }) => reason,
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(
            reason("e3e4"),
            IllegalMoveReason::NoPieceOn { square: Square::E3 }
        );
        assert_eq!(
            reason("e7e5"),
            IllegalMoveReason::OpponentsPiece { square: Square::E7 }
        );
        assert_eq!(
            reason("e2e5"),
            IllegalMoveReason::CannotMoveThere {
                from: Square::E2,
                to: Square::E5
            }
        );
        assert_eq!(reason("Nd2"), IllegalMoveReason::NoPieceCanMakeIt);
        assert_eq!(reason("0000"), IllegalMoveReason::NotPlayable);
        assert_eq!(
            reason("e2e5").to_string(),
            "the piece on e2 cannot move to e5, or doing so would leave the king in check"
        );
        assert_eq!(reason("e3e4").to_string(), "there is no piece on e3");
    }

    #[test]
    fn a_move_that_leaves_the_king_in_check_says_so() {
        // The black rook on e8 checks the white king on e1.
        let pos = position("4r2k/8/8/8/8/8/8/R3K3 w Q - 0 1");
        let Err(Rejection::IllegalMove { reason, .. }) =
            parse_move(&pos, CastlingMode::Standard, "a1a2")
        else {
            panic!("a move ignoring check was accepted");
        };
        assert_eq!(
            reason,
            IllegalMoveReason::DoesNotEscapeCheck {
                from: Square::A1,
                to: Square::A2
            }
        );
        assert_eq!(
            reason.to_string(),
            "a1a2 does not get the king out of check"
        );
    }

    #[test]
    fn record_carries_san_with_check_marks() {
        let pos = position("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
        let m = parse_move(&pos, CastlingMode::Standard, "a1a8").unwrap();
        let (record, after) = MoveRecord::play(
            &pos,
            m,
            CastlingMode::Standard,
            Ply::START,
            Timestamp::from_unix_millis(1),
        );
        assert_eq!(record.san, "Ra8+");
        assert_eq!(record.uci, "a1a8");
        assert!(after.is_check());
        assert!(record.is_written_as("Ra8"));
        assert!(record.is_written_as("Ra8+"));
        assert!(record.is_written_as("a1a8"));
        assert!(!record.is_written_as("Rb1"));
    }

    /// Calls `visit` with every position fewer than `plies` moves from
    /// `root` (the root first), each of its legal moves and the position
    /// the move leads to.
    fn for_each_move(root: Chess, plies: usize, mut visit: impl FnMut(&Chess, Move, &Chess)) {
        let mut frontier = vec![root];
        for _ in 0..plies {
            let mut next = Vec::new();
            for position in &frontier {
                for m in position.legal_moves() {
                    let mut after = position.clone();
                    after.play_unchecked(m);
                    visit(position, m, &after);
                    next.push(after);
                }
            }
            frontier = next;
        }
    }

    /// A record's SAN is shakmaty's, check and mate marks included, for
    /// every move three plies deep from positions with checks, mates
    /// (back rank, smothered, by promotion, discovered), castling and
    /// stalemates at hand.
    #[test]
    fn a_records_san_is_shakmatys() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
            "6rk/6pp/8/6N1/8/8/6PP/6K1 w - - 0 1",
            "3k4/1P6/3K4/8/8/8/8/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
            "k7/2Q5/1K6/8/8/8/8/8 w - - 0 1",
            "k7/8/1K6/8/8/8/1B6/1R6 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ];
        let (mut checks, mut mates) = (0, 0);
        for fen in fens {
            let root = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            for_each_move(root, 3, |position, m, after| {
                let mut expected = position.clone();
                let san = SanPlus::from_move_and_play_unchecked(&mut expected, m);
                let (record, played) = MoveRecord::play(
                    position,
                    m,
                    CastlingMode::Standard,
                    Ply::START,
                    Timestamp::from_unix_millis(1),
                );
                assert_eq!(record.san, san.to_string(), "{fen}: {m:?}");
                assert_eq!(&played, after);
                assert_eq!(played, expected);
                checks += usize::from(san.suffix == Some(Suffix::Check));
                mates += usize::from(san.suffix == Some(Suffix::Checkmate));
            });
        }
        assert!(
            checks > 1_000 && mates > 20,
            "{checks} checks, {mates} mates"
        );
    }

    /// Every move's text, from positions with promotions, captures that
    /// promote, en passant and castling in both notations, and every FEN of
    /// the positions they lead to, read as shakmaty writes them.
    #[test]
    fn moves_and_fens_read_as_shakmaty_writes_them() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rk2r3/8/8/8/8/8/8/RK2R3 w AEae - 0 1",
        ];
        let mut seen = 0;
        for fen in fens {
            for mode in [CastlingMode::Standard, CastlingMode::Chess960] {
                let root = fen
                    .parse::<Fen>()
                    .unwrap()
                    .into_position(CastlingMode::Chess960)
                    .unwrap();
                for_each_move(root, 2, |_, m, after| {
                    let uci = UciMove::from_move(m, mode);
                    assert_eq!(uci_text(uci), uci.to_string(), "{fen}: {m:?}");
                    seen += 1;
                    let fen = Fen::from_position(after, EnPassantMode::Legal);
                    assert_eq!(fen_text(&fen), fen.to_string());
                });
            }
        }
        assert!(seen > 5_000, "{seen} moves");
        assert_eq!(uci_text(UciMove::Null), "0000");
    }
}
