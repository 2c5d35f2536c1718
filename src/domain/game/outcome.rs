//! Results of finished games.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

/// Who won a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// 1-0.
    WhiteWins,
    /// 0-1.
    BlackWins,
    /// ½-½.
    Draw,
    /// Neither player appeared, or both were forfeited by the arbiter: no
    /// winner, each scores a loss.
    DoubleForfeit,
}

impl Outcome {
    /// A win for `winner`.
    pub fn win_for(winner: Color) -> Self {
        winner.fold_wb(Outcome::WhiteWins, Outcome::BlackWins)
    }

    /// The PGN result token (PGN has none for a double forfeit: `*`, with
    /// the closing comment saying what happened).
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::DoubleForfeit => "*",
        }
    }
}

/// What ended a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The side to move is checkmated (FIDE 5.1.1).
    Checkmate,
    /// A player resigned (FIDE 5.1.2).
    Resignation,
    /// The side to move has no legal move and is not in check (FIDE 5.2.1).
    Stalemate,
    /// Neither side has the material to checkmate (FIDE 5.2.2).
    InsufficientMaterial,
    /// The players agreed a draw (FIDE 9.1).
    Agreement,
    /// A correct claim of threefold repetition (FIDE 9.2).
    ThreefoldRepetition,
    /// A correct claim under the fifty-move rule (FIDE 9.3).
    FiftyMoves,
    /// The same position appeared five times (FIDE 9.6.1).
    FivefoldRepetition,
    /// Seventy-five moves by each player without a pawn move or capture
    /// (FIDE 9.6.2).
    SeventyFiveMoves,
    /// Neither side can checkmate by any series of legal moves, though
    /// material remains (FIDE 5.2.2), e.g. behind a locked pawn wall.
    DeadPosition,
    /// The player's flag fell and the opponent could checkmate (FIDE 6.9).
    Timeout,
    /// The player's flag fell but the opponent cannot checkmate by any
    /// series of legal moves (FIDE 6.9), or has material USCF 14E draws.
    TimeoutVsInsufficientMaterial,
    /// The flag fell while the opponent's draw offer was pending, in a game
    /// whose rules make that a draw.
    TimeoutWithPendingDrawOffer,
    /// The player (with [`Outcome::DoubleForfeit`]: both players) had not
    /// arrived at the board, by checking in or moving, when the default time
    /// after the scheduled start ran out (FIDE 6.7.1): lost by forfeit.
    NoShow,
    /// The arbiter forfeited one player or both: not a played game.
    Forfeit,
    /// The arbiter decided the result of a played game (adjudication, or a
    /// correction).
    ArbiterDecision,
    /// The platform reported the player gone for longer than the game's
    /// rules allow, and the opponent claimed the game: won, or drawn when
    /// the claimant cannot checkmate by any series of legal moves (judged
    /// as a flag under the game's profile). A played game.
    OpponentLeft,
}

impl Termination {
    /// A short human description.
    pub fn describe(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Resignation => "resignation",
            Termination::Stalemate => "stalemate",
            Termination::InsufficientMaterial => "insufficient material",
            Termination::Agreement => "agreement",
            Termination::ThreefoldRepetition => "threefold repetition",
            Termination::FiftyMoves => "the fifty-move rule",
            Termination::FivefoldRepetition => "fivefold repetition",
            Termination::SeventyFiveMoves => "the seventy-five-move rule",
            Termination::DeadPosition => "dead position",
            Termination::Timeout => "time forfeit",
            Termination::TimeoutVsInsufficientMaterial => {
                "timeout against a side that cannot checkmate"
            }
            Termination::TimeoutWithPendingDrawOffer => "timeout with a draw offer pending",
            Termination::NoShow => "forfeit: absent when the default time ran out",
            Termination::Forfeit => "forfeit",
            Termination::ArbiterDecision => "arbiter's decision",
            Termination::OpponentLeft => "claim after the opponent left the game",
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// Who won.
    pub outcome: Outcome,
    /// What ended the game.
    pub termination: Termination,
}
