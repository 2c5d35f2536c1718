//! Reading request fields into domain values, refusing malformed ones as
//! `INVALID_FIELD`.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use sha2::{Digest, Sha256};
use tonic::Status;

use super::{convert::termination_from, status};
use crate::{
    arbiter::{ListCursor, ResumeToken, WatchFrom},
    domain::{
        ArbiterReason, ClaimReason, Color, EventId, FieldError, GameId, GameStatus, MoveReport,
        Outcome, Ply, ReportedLag, RequestId, Ruling, SignalKind, Timestamp,
    },
    proto,
};

pub(super) fn invalid(field: &'static str, reason: &str) -> Status {
    status::invalid_field(&FieldError::new(field, reason))
}

/// A game id.
/// A required game id; recorded on the call's span for traces and logs.
pub fn game_id(raw: &str) -> Result<GameId, Status> {
    let id = GameId::parse(raw).map_err(|err| status::invalid_field(&err))?;
    tracing::Span::current().record("game_id", id.as_str());
    Ok(id)
}

/// A required event id.
pub fn event_id(raw: &str) -> Result<EventId, Status> {
    EventId::parse(raw).map_err(|err| status::invalid_field(&err))
}

/// An optional idempotency key (empty: none).
pub fn request_id(raw: &str) -> Result<Option<RequestId>, Status> {
    RequestId::parse(raw).map_err(|err| status::invalid_field(&err))
}

/// An arbiter's stated reason.
pub fn reason(raw: &str) -> Result<ArbiterReason, Status> {
    ArbiterReason::parse(raw).map_err(|err| status::invalid_field(&err))
}

/// A time a request carries, within what the arbiter (from 1970) and
/// RFC 3339 (to the year 9999) can hold, its nanos a fraction of a second.
pub fn timestamp(field: &'static str, at: &prost_types::Timestamp) -> Result<Timestamp, Status> {
    Timestamp::from_unix_parts(at.seconds, i64::from(at.nanos))
        .map_err(|err| invalid(field, &err.to_string()))
}

/// A number the contract carries as `int32` that must not be negative.
pub fn non_negative(field: &'static str, value: i32) -> Result<u32, Status> {
    u32::try_from(value).map_err(|_| invalid(field, "must not be negative"))
}

/// A tournament's number of rounds as a request states it: 0 for unknown.
pub fn total_rounds(value: i32) -> Result<Option<u32>, Status> {
    Ok(match non_negative("total_rounds", value)? {
        0 => None,
        rounds => Some(rounds),
    })
}

/// Where a `WatchGame` starts: a resume token (with no after_version, or
/// the same version), else after_version.
pub fn watch_from(after_version: i32, resume_token: &str) -> Result<WatchFrom, Status> {
    let after = non_negative("after_version", after_version)?;
    if resume_token.is_empty() {
        return Ok(match after {
            0 => WatchFrom::Snapshot,
            after => WatchFrom::Version(u64::from(after)),
        });
    }
    let token: ResumeToken =
        resume_token
            .parse()
            .map_err(|err: crate::arbiter::InvalidResumeToken| {
                invalid("resume_token", &err.to_string())
            })?;
    if after != 0 && u64::from(after) != token.version() {
        return Err(invalid(
            "after_version",
            "names another version than resume_token; send one of them",
        ));
    }
    Ok(WatchFrom::Token(token))
}

/// A ply (half-moves played) as sent.
pub fn ply(value: i32) -> Result<Ply, Status> {
    non_negative("ply", value).map(Ply::new)
}

/// The network lag reported with a move (`lag_millis`).
pub fn lag(value: i32) -> Result<ReportedLag, Status> {
    ReportedLag::parse("lag_millis", i64::from(value)).map_err(|err| status::invalid_field(&err))
}

/// What the platform reports with a move: the lag (`lag_millis`) and the
/// client's move time (`client_move_millis`, when sent).
pub fn move_report(lag_millis: i32, client_move_millis: Option<i32>) -> Result<MoveReport, Status> {
    MoveReport::new(
        lag(lag_millis)?,
        "client_move_millis",
        client_move_millis.map(i64::from),
    )
    .map_err(|err| status::invalid_field(&err))
}

/// A client signal's kind, which must be given.
pub fn signal_kind(raw: i32) -> Result<SignalKind, Status> {
    match proto::ClientSignalKind::try_from(raw) {
        Ok(proto::ClientSignalKind::Disconnected) => Ok(SignalKind::Disconnected),
        Ok(proto::ClientSignalKind::Reconnected) => Ok(SignalKind::Reconnected),
        Ok(proto::ClientSignalKind::FocusLost) => Ok(SignalKind::FocusLost),
        Ok(proto::ClientSignalKind::FocusRegained) => Ok(SignalKind::FocusRegained),
        Ok(proto::ClientSignalKind::Unspecified) => Err(invalid("kind", "is required")),
        Err(_) => Err(invalid("kind", &format!("{raw} is not a ClientSignalKind"))),
    }
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
        proto::GameStatus::Pending => Some(GameStatus::Pending),
        proto::GameStatus::Active => Some(GameStatus::Active),
        proto::GameStatus::Finished => Some(GameStatus::Finished),
        proto::GameStatus::Aborted => Some(GameStatus::Aborted),
    }
}

/// Whether a move's reply is to be compact (`REPLY_VIEW_COMPACT`); a value
/// the contract does not define is refused.
pub fn compact_reply(view: i32) -> Result<bool, Status> {
    match proto::ReplyView::try_from(view) {
        Ok(proto::ReplyView::Compact) => Ok(true),
        Ok(proto::ReplyView::Unspecified | proto::ReplyView::Game) => Ok(false),
        Err(_) => Err(status::invalid_field(&FieldError::new(
            "reply_view",
            format!("{view} is not a ReplyView"),
        ))),
    }
}

/// Whether a read asks for the full view (with the moves).
pub fn full_view(view: proto::GameView) -> bool {
    view == proto::GameView::Full
}

/// The ruling a `SetGameResult` asks for.
pub fn ruling(req: &proto::SetGameResultRequest) -> Result<Ruling, Status> {
    use proto::set_game_result_request::Ruling as Requested;
    match &req.ruling {
        None => Err(invalid("ruling", "is required: played or forfeit")),
        Some(Requested::Played(played)) => {
            let outcome = match played.outcome() {
                proto::Outcome::WhiteWins => Outcome::WhiteWins,
                proto::Outcome::BlackWins => Outcome::BlackWins,
                proto::Outcome::Draw => Outcome::Draw,
                proto::Outcome::Unspecified | proto::Outcome::DoubleForfeit => {
                    return Err(invalid(
                        "played.outcome",
                        "must be a win or a draw (use forfeit for forfeits)",
                    ));
                }
            };
            Ruling::played(outcome, termination_from(played.termination()))
                .map_err(|err| status::invalid_field(&err))
        }
        Some(Requested::Forfeit(forfeit)) => match proto::Forfeit::try_from(*forfeit) {
            Ok(proto::Forfeit::White) => Ok(Ruling::Forfeit {
                loser: Color::White,
            }),
            Ok(proto::Forfeit::Black) => Ok(Ruling::Forfeit {
                loser: Color::Black,
            }),
            Ok(proto::Forfeit::Both) => Ok(Ruling::DoubleForfeit),
            _ => Err(invalid(
                "forfeit",
                "must be FORFEIT_WHITE, FORFEIT_BLACK or FORFEIT_BOTH",
            )),
        },
    }
}

/// What an `ExportPgn` exports.
pub enum PgnSubject {
    /// One game.
    Game(GameId),
    /// Every game of an event.
    Event(EventId),
}

/// The game or the event an `ExportPgn` names.
pub fn pgn_subject(req: &proto::ExportPgnRequest) -> Result<PgnSubject, Status> {
    use proto::export_pgn_request::Target;
    match &req.target {
        Some(Target::GameId(id)) => Ok(PgnSubject::Game(game_id(id)?)),
        Some(Target::EventId(id)) => Ok(PgnSubject::Event(event_id(id)?)),
        None => Err(invalid("target", "is required: game_id or event_id")),
    }
}

/// A page size as AIP-158 reads it: 0 means `default`, anything above
/// `max` is taken as `max`, a negative size is refused.
pub fn page_size(value: i32, default: usize, max: usize) -> Result<usize, Status> {
    match usize::try_from(value) {
        Ok(0) => Ok(default),
        Ok(n) => Ok(n.min(max)),
        Err(_) => Err(invalid("page_size", "must not be negative")),
    }
}

/// Page tokens are opaque to clients: the position where the next page
/// starts, and a digest of the query they belong to, so that a token is
/// refused with another query rather than silently misread.
pub fn token(query: &str, position: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("1|{}|{position}", binding(query)))
}

/// A short digest of the query a token belongs to.
fn binding(query: &str) -> String {
    Sha256::digest(query.as_bytes())[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn read_token(query: &str, token_text: &str) -> Result<String, Status> {
    let refused = || {
        invalid(
            "page_token",
            "is not a token this server issued for this query",
        )
    };
    let bytes = URL_SAFE_NO_PAD.decode(token_text).map_err(|_| refused())?;
    let text = String::from_utf8(bytes).map_err(|_| refused())?;
    let mut parts = text.splitn(3, '|');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("1"), Some(bound), Some(position)) if bound == binding(query) => {
            Ok(position.to_owned())
        }
        _ => Err(refused()),
    }
}

/// The query a ListGames (or event ExportPgn) token belongs to.
pub fn list_query(
    event_id: &EventId,
    status: proto::GameStatus,
    view: proto::GameView,
    needs_review: bool,
) -> String {
    let review = if needs_review { "\nreview" } else { "" };
    format!(
        "games\n{event_id}\n{}\n{}{review}",
        status as i32, view as i32
    )
}

/// The token of a list page that ends at `cursor`.
pub fn list_token(query: &str, cursor: &ListCursor) -> String {
    token(
        query,
        &format!("{}:{}:{}", cursor.round, cursor.board, cursor.game),
    )
}

/// Where a list page starts, from its token (empty: the first page).
pub fn list_cursor(query: &str, page_token: &str) -> Result<Option<ListCursor>, Status> {
    if page_token.is_empty() {
        return Ok(None);
    }
    let position = read_token(query, page_token)?;
    let refused = || {
        invalid(
            "page_token",
            "is not a token this server issued for this query",
        )
    };
    let mut parts = position.splitn(3, ':');
    let round = parts
        .next()
        .and_then(|r| r.parse().ok())
        .ok_or_else(refused)?;
    let board = parts
        .next()
        .and_then(|b| b.parse().ok())
        .ok_or_else(refused)?;
    let game = parts
        .next()
        .and_then(|g| GameId::parse(g).ok())
        .ok_or_else(refused)?;
    Ok(Some(ListCursor { round, board, game }))
}

/// The query a GetStandings token belongs to: the event and everything
/// the request says of its regulations (all of it but the page).
pub fn standings_query(req: &proto::GetStandingsRequest) -> String {
    use prost::Message;
    let rules = proto::GetStandingsRequest {
        page_size: 0,
        page_token: String::new(),
        ..req.clone()
    };
    format!(
        "standings\n{}\n{}",
        req.event_id,
        binding(&URL_SAFE_NO_PAD.encode(rules.encode_to_vec()))
    )
}

/// The token of the standings page that starts at line `offset`.
pub fn standings_token(query: &str, offset: usize) -> String {
    token(query, &offset.to_string())
}

/// The line a standings page starts at, from its token (empty: 0).
pub fn standings_offset(query: &str, page_token: &str) -> Result<usize, Status> {
    if page_token.is_empty() {
        return Ok(0);
    }
    read_token(query, page_token)?.parse().map_err(|_| {
        invalid(
            "page_token",
            "is not a token this server issued for this query",
        )
    })
}

/// The query a ListMoves token belongs to.
pub fn moves_query(game_id: &GameId) -> String {
    format!("moves\n{game_id}")
}

/// Where a page of moves starts: after an event version of the game's log,
/// keeping moves from `start_ply` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MovesFrom {
    /// The event version the page starts after (0: the log's start).
    pub after: u64,
    /// The first ply listed.
    pub start_ply: u32,
}

/// The token of the moves page that starts at `from`.
pub fn moves_token(query: &str, from: MovesFrom) -> String {
    token(query, &format!("{}:{}", from.after, from.start_ply))
}

/// Where a moves page starts, from its token (`None`: the first page).
pub fn moves_from(query: &str, page_token: &str) -> Result<Option<MovesFrom>, Status> {
    if page_token.is_empty() {
        return Ok(None);
    }
    let refused = || {
        invalid(
            "page_token",
            "is not a token this server issued for this query",
        )
    };
    let position = read_token(query, page_token)?;
    let (after, start_ply) = position.split_once(':').ok_or_else(refused)?;
    Ok(Some(MovesFrom {
        after: after.parse().map_err(|_| refused())?,
        start_ply: start_ply.parse().map_err(|_| refused())?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_tokens_resume_their_own_query_only() {
        let event = EventId::parse("spring-open").expect("event id");
        let query = list_query(
            &event,
            proto::GameStatus::Unspecified,
            proto::GameView::Basic,
            false,
        );
        let cursor = ListCursor {
            round: 3,
            board: 12,
            game: GameId::parse("abc").expect("id"),
        };
        let token = list_token(&query, &cursor);
        assert_eq!(list_cursor(&query, &token).expect("valid"), Some(cursor));
        let other = list_query(
            &event,
            proto::GameStatus::Finished,
            proto::GameView::Basic,
            false,
        );
        assert!(list_cursor(&other, &token).is_err());
        let review = list_query(
            &event,
            proto::GameStatus::Unspecified,
            proto::GameView::Basic,
            true,
        );
        assert!(list_cursor(&review, &token).is_err());
        for junk in ["p12", "!!", "MXxhYmN8MTIz"] {
            assert!(list_cursor(&query, junk).is_err(), "{junk}");
        }
        let moves = moves_query(&GameId::parse("abc").expect("id"));
        let from = MovesFrom {
            after: 41,
            start_ply: 30,
        };
        assert_eq!(
            moves_from(&moves, &moves_token(&moves, from)).expect("valid"),
            Some(from)
        );
        assert!(moves_from(&query, &moves_token(&moves, from)).is_err());
    }

    #[test]
    fn page_sizes_are_coerced_not_refused() {
        assert_eq!(page_size(0, 50, 500).expect("default"), 50);
        assert_eq!(page_size(7, 50, 500).expect("as asked"), 7);
        assert_eq!(page_size(100_000, 50, 500).expect("capped"), 500);
        assert!(page_size(-1, 50, 500).is_err());
    }
}
