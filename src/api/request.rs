//! Reading request fields into domain values, refusing malformed ones as
//! `INVALID_FIELD`.

use tonic::Status;

use super::{convert::termination_from, status};
use crate::{
    domain::{ClaimReason, Color, EventId, FieldError, GameId, GameStatus, Outcome, Ruling},
    proto,
};

fn invalid(field: &'static str, reason: &str) -> Status {
    status::invalid_field(&FieldError::new(field, reason))
}

/// A request addressed to one game.
pub trait GameRequest {
    /// The game's id, as sent.
    fn game_id(&self) -> &str;
}

/// An arbiter's request about one game, which states its reason.
pub trait ArbiterRequest: GameRequest {
    /// The stated reason, as sent.
    fn reason(&self) -> &str;
}

macro_rules! game_requests {
    ($($request:ident),* $(,)?) => {
        $(impl GameRequest for proto::$request {
            fn game_id(&self) -> &str {
                &self.game_id
            }
        })*
    };
}

game_requests!(
    MakeMoveRequest,
    ResignRequest,
    OfferDrawRequest,
    RespondToDrawOfferRequest,
    ClaimDrawRequest,
    AbortGameRequest,
    AdjustClockRequest,
    PauseClockRequest,
    ResumeClockRequest,
    SetResultRequest,
);

macro_rules! arbiter_requests {
    ($($request:ident),* $(,)?) => {
        $(impl ArbiterRequest for proto::$request {
            fn reason(&self) -> &str {
                &self.reason
            }
        })*
    };
}

arbiter_requests!(
    AdjustClockRequest,
    PauseClockRequest,
    ResumeClockRequest,
    SetResultRequest,
);

/// A game id.
pub fn game_id(raw: &str) -> Result<GameId, Status> {
    GameId::parse(raw).map_err(|err| status::invalid_field(&err))
}

/// A required event id.
pub fn event_id(raw: &str) -> Result<EventId, Status> {
    EventId::parse(raw).map_err(|err| status::invalid_field(&err))
}

/// A colour that must be given.
pub fn color(color: proto::Color) -> Result<Color, Status> {
    match color {
        proto::Color::White => Ok(Color::White),
        proto::Color::Black => Ok(Color::Black),
        proto::Color::Unspecified => Err(invalid("color", "must be COLOR_WHITE or COLOR_BLACK")),
    }
}

/// What a draw claim asserts.
pub fn claim_reason(reason: proto::DrawClaimReason) -> Result<ClaimReason, Status> {
    match reason {
        proto::DrawClaimReason::ThreefoldRepetition => Ok(ClaimReason::ThreefoldRepetition),
        proto::DrawClaimReason::FiftyMoves => Ok(ClaimReason::FiftyMoves),
        proto::DrawClaimReason::Unspecified => Err(invalid(
            "reason",
            "must be DRAW_CLAIM_REASON_THREEFOLD_REPETITION or DRAW_CLAIM_REASON_FIFTY_MOVES",
        )),
    }
}

/// The statuses a list keeps; `None` keeps every game.
pub fn status_filter(status: proto::GameStatus) -> Option<GameStatus> {
    match status {
        proto::GameStatus::Unspecified => None,
        proto::GameStatus::Active => Some(GameStatus::Active),
        proto::GameStatus::Finished => Some(GameStatus::Finished),
        proto::GameStatus::Aborted => Some(GameStatus::Aborted),
    }
}

/// The ruling a `SetResult` asks for: a played result (outcome and an
/// optional termination) or a forfeit, not both.
pub fn ruling(req: &proto::SetResultRequest) -> Result<Ruling, Status> {
    let played_fields_given = req.outcome() != proto::Outcome::Unspecified
        || req.termination() != proto::Termination::Unspecified;
    Ok(match req.forfeit() {
        proto::Forfeit::Unspecified => {
            let outcome = match req.outcome() {
                proto::Outcome::WhiteWins => Outcome::WhiteWins,
                proto::Outcome::BlackWins => Outcome::BlackWins,
                proto::Outcome::Draw => Outcome::Draw,
                proto::Outcome::Unspecified | proto::Outcome::DoubleForfeit => {
                    return Err(invalid(
                        "outcome",
                        "must be a win or a draw (use forfeit for forfeits)",
                    ));
                }
            };
            Ruling::Played {
                outcome,
                termination: termination_from(req.termination()),
            }
        }
        _ if played_fields_given => {
            return Err(invalid(
                "forfeit",
                "a forfeit takes no outcome or termination",
            ));
        }
        proto::Forfeit::White => Ruling::Forfeit {
            loser: Color::White,
        },
        proto::Forfeit::Black => Ruling::Forfeit {
            loser: Color::Black,
        },
        proto::Forfeit::Both => Ruling::DoubleForfeit,
    })
}

/// What an `ExportPgn` exports.
pub enum PgnSubject {
    /// One game.
    Game(GameId),
    /// Every game of an event.
    Event(EventId),
}

/// The game or the event an `ExportPgn` names (exactly one of them).
pub fn pgn_subject(req: &proto::ExportPgnRequest) -> Result<PgnSubject, Status> {
    match (req.game_id.is_empty(), req.event_id.is_empty()) {
        (false, true) => Ok(PgnSubject::Game(game_id(&req.game_id)?)),
        (true, false) => Ok(PgnSubject::Event(event_id(&req.event_id)?)),
        (false, false) => Err(invalid(
            "event_id",
            "give either game_id or event_id, not both",
        )),
        (true, true) => Err(invalid(
            "game_id",
            "is required (or event_id, for a whole event)",
        )),
    }
}

/// One page of a list: where it starts and how many items it holds.
pub struct Page {
    /// Items to skip.
    pub offset: usize,
    /// Items to return at most.
    pub size: usize,
}

/// The page a request asks for. Sizes are capped so that one request's
/// cost is bounded.
pub fn page(page_size: u32, page_token: &str) -> Result<Page, Status> {
    let size = match page_size {
        0 => 50,
        n @ 1..=500 => n as usize,
        _ => return Err(invalid("page_size", "must be from 1 to 500 (0 means 50)")),
    };
    Ok(Page {
        offset: page_offset(page_token)?,
        size,
    })
}

/// Page tokens are opaque to clients: `p` and an offset in base 36.
pub fn page_token(offset: usize) -> String {
    let mut digits = Vec::new();
    let mut n = offset;
    loop {
        digits.push(char::from_digit((n % 36) as u32, 36).unwrap_or('0'));
        n /= 36;
        if n == 0 {
            break;
        }
    }
    format!("p{}", digits.iter().rev().collect::<String>())
}

fn page_offset(token: &str) -> Result<usize, Status> {
    if token.is_empty() {
        return Ok(0);
    }
    token
        .strip_prefix('p')
        .filter(|digits| {
            !digits.is_empty()
                && digits.len() <= 12
                && digits.bytes().all(|b| b.is_ascii_alphanumeric())
        })
        .and_then(|digits| usize::from_str_radix(digits, 36).ok())
        .ok_or_else(|| invalid("page_token", "is not a token this server issued"))
}
