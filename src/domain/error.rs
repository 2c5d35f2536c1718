//! Why the arbiter refuses a request: each variant names one exact cause.

use std::fmt;

use shakmaty::Square;
use thiserror::Error;

use crate::domain::{Color, DrawOfferRefusal, Ply, VictoryClaimRefusal};

/// A request field that failed validation, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{field} {reason}")]
pub struct FieldError {
    /// The request field, as named in the API.
    pub field: &'static str,
    /// Why the value was refused.
    pub reason: String,
}

impl FieldError {
    /// A refusal of `field` for `reason`.
    pub fn new(field: &'static str, reason: impl Into<String>) -> Self {
        Self {
            field,
            reason: reason.into(),
        }
    }
}

/// A command the rules refuse. The game is left exactly as it was.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Rejection {
    /// A field of the request is malformed or missing.
    #[error("invalid {0}")]
    InvalidField(#[from] FieldError),
    /// The move text is neither UCI nor SAN.
    #[error("move '{text}' is neither UCI (e2e4, e7e8q) nor SAN (Nf3, exd6, O-O, e8=Q)")]
    UnparsableMove {
        /// The text as received.
        text: String,
    },
    /// The move is well-formed but not legal in the position.
    #[error("move '{text}' is illegal in this position: {reason}")]
    IllegalMove {
        /// The text as received.
        text: String,
        /// What makes it illegal.
        reason: IllegalMoveReason,
    },
    /// The seat that acted is not the side to move.
    #[error("it is {to_move}'s turn, not {seat}'s")]
    NotYourTurn {
        /// The seat that sent the move.
        seat: Color,
        /// The side to move.
        to_move: Color,
    },
    /// The game has already ended.
    #[error("the game is already over")]
    GameOver,
    /// The game was aborted.
    #[error("the game was aborted")]
    GameAborted,
    /// Both players have made a move: the game can no longer be aborted.
    #[error("a game can be aborted only before both players have made their first move")]
    AbortTooLate,
    /// The game's regulations do not allow a draw offer now.
    #[error("no draw offer allowed: {reason}")]
    DrawOfferNotAllowed {
        /// Which regulation forbids it.
        reason: DrawOfferRefusal,
    },
    /// The player has used up a per-game cap on draw offers or on refused
    /// draw claims.
    #[error("no more {what} in this game: the limit is {limit} per player")]
    DrawRequestLimit {
        /// What is capped.
        what: &'static str,
        /// The cap.
        limit: u16,
    },
    /// The game is scheduled to start later.
    #[error("the game starts at its scheduled time, {starts_at_ms} ms after the Unix epoch")]
    NotStarted {
        /// The scheduled start, in milliseconds since the Unix epoch.
        starts_at_ms: u64,
    },
    /// The game's rules forbid aborting it.
    #[error("this game may not be aborted: the event's rules require it to be played")]
    AbortNotAllowed,
    /// The game's rules forbid a player giving the opponent time.
    #[error("this game's rules do not allow a player to give the opponent time")]
    GiveTimeNotAllowed,
    /// A claim of the game against an opponent gone is refused.
    #[error("the game cannot be claimed: {reason}")]
    VictoryClaimRefused {
        /// Why.
        reason: VictoryClaimRefusal,
    },
    /// The game waits for an arbiter to start it (a round's games do,
    /// unless scheduled).
    #[error("the game has not been started yet: it starts when the arbiter starts its round")]
    AwaitingStart,
    /// An arbiter has paused the clock: nothing may be played until it
    /// resumes.
    #[error("the clock is paused by the arbiter")]
    ClockPaused,
    /// The clock is not paused, so it cannot be resumed.
    #[error("the clock is not paused")]
    ClockNotPaused,
    /// The game has no clock.
    #[error("the game is untimed")]
    Untimed,
    /// There is no pending draw offer from the opponent to answer.
    #[error("there is no draw offer from the opponent to answer")]
    NoDrawOffer,
    /// A request id already used for a different arbiter command.
    #[error("request_id '{request_id}' was already used for a different request")]
    RequestIdReused {
        /// The reused key.
        request_id: String,
    },
    /// A fair-play signal for a game that keeps no fair-play record.
    #[error("this game keeps no fair-play record: its event did not ask for one")]
    FairPlayNotRecorded,
    /// The game's fair-play record holds as many signals as it may.
    #[error(
        "this seat's share of the game's fair-play record is full: at most {limit} signals a \
         seat are kept"
    )]
    FairPlayRecordFull {
        /// The cap.
        limit: usize,
    },
    /// The move was chosen at a different ply than the game's current one.
    #[error("move was sent for ply {requested} but the game is at ply {current}")]
    StalePly {
        /// The ply the client sent.
        requested: Ply,
        /// The game's current ply.
        current: Ply,
    },
}

/// Why a well-formed move is not legal; its `Display` says it in the words
/// a player would use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IllegalMoveReason {
    /// A UCI null move or drop: not a chess move here.
    NotPlayable,
    /// The from-square is empty.
    NoPieceOn {
        /// The square named.
        square: Square,
    },
    /// The piece on the from-square is the opponent's.
    OpponentsPiece {
        /// The square named.
        square: Square,
    },
    /// In check, and the move does not get out of it.
    DoesNotEscapeCheck {
        /// Where the piece moves from.
        from: Square,
        /// Where it would go.
        to: Square,
    },
    /// The piece cannot go there, or going there leaves the king in check.
    CannotMoveThere {
        /// Where the piece moves from.
        from: Square,
        /// Where it would go.
        to: Square,
    },
    /// A pawn reaches the last rank without naming its promotion.
    PromotionMissing,
    /// A pawn promotes to a piece it may not become.
    PromotionInvalid,
    /// The SAN fits more than one piece.
    AmbiguousSan,
    /// The SAN fits no piece.
    NoPieceCanMakeIt,
}

impl fmt::Display for IllegalMoveReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMoveReason::NotPlayable => f.write_str("that kind of move is not playable here"),
            IllegalMoveReason::NoPieceOn { square } => write!(f, "there is no piece on {square}"),
            IllegalMoveReason::OpponentsPiece { square } => {
                write!(f, "the piece on {square} belongs to the opponent")
            }
            IllegalMoveReason::DoesNotEscapeCheck { from, to } => {
                write!(f, "{from}{to} does not get the king out of check")
            }
            IllegalMoveReason::CannotMoveThere { from, to } => write!(
                f,
                "the piece on {from} cannot move to {to}, or doing so would leave the king in check"
            ),
            IllegalMoveReason::PromotionMissing => {
                f.write_str("a pawn reaching the last rank must promote: add q, r, b or n")
            }
            IllegalMoveReason::PromotionInvalid => {
                f.write_str("a pawn may promote only to a queen, rook, bishop or knight")
            }
            IllegalMoveReason::AmbiguousSan => {
                f.write_str("it is ambiguous: more than one piece can make it")
            }
            IllegalMoveReason::NoPieceCanMakeIt => f.write_str("no piece can make that move"),
        }
    }
}
