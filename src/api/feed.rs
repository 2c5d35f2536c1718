//! The broadcast feed: every game in PGN over plain HTTP, for the relays
//! that poll a URL (lichess's broadcasts, chess.com's and club sites'
//! relays), with each game's broadcast delay applied here, as for any
//! public read:
//!
//! - `GET /games/{game}.pgn`: one game;
//! - `GET /events/{event}/games.pgn`: every game of an event, in round and
//!   board order;
//! - `GET /events/{event}/rounds/{round}/games.pgn`: the games of one
//!   round, in board order (what a lichess broadcast round polls).
//!
//! Event ids are percent-encoded in the path. Each game carries `GameId`
//! (stable for its life), `Round "round.board"`, `[%clk]` after every timed
//! move and, while it is played, `WhiteClock`/`BlackClock` (see
//! [`crate::domain::tournament::pgn::export_for_broadcast`]). Answers are
//! `200` with `application/x-chess-pgn`, `404` for an unknown game, `400`
//! for a malformed id or round, `503` while the store is unreachable; an
//! event without games is an empty `200`.

use axum::{
    Router,
    extract::{Path, State},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};
use tonic::Code;

use super::{request, rounds};
use crate::arbiter::{Arbiter, ArbiterError};

/// The media type of PGN.
const PGN: &str = "application/x-chess-pgn; charset=utf-8";

/// The feed's routes over `arbiter`.
pub fn router(arbiter: Arbiter) -> Router {
    Router::new()
        .route("/games/{file}", get(game))
        .route("/events/{event}/games.pgn", get(event))
        .route("/events/{event}/rounds/{round}/games.pgn", get(round))
        .with_state(arbiter)
}

async fn game(State(arbiter): State<Arbiter>, Path(file): Path<String>) -> Response {
    let Some(raw) = file.strip_suffix(".pgn") else {
        return refused(
            StatusCode::NOT_FOUND,
            "games are served as /games/{game}.pgn",
        );
    };
    let id = match request::game_id(raw) {
        Ok(id) => id,
        Err(status) => return refused(StatusCode::BAD_REQUEST, status.message()),
    };
    answer(arbiter.broadcast_game(&id).await)
}

async fn event(State(arbiter): State<Arbiter>, Path(event): Path<String>) -> Response {
    let event_id = match request::event_id(&event) {
        Ok(id) => id,
        Err(status) => return refused(StatusCode::BAD_REQUEST, status.message()),
    };
    answer(arbiter.broadcast_event(&event_id, None).await)
}

async fn round(
    State(arbiter): State<Arbiter>,
    Path((event, round)): Path<(String, String)>,
) -> Response {
    let event_id = match request::event_id(&event) {
        Ok(id) => id,
        Err(status) => return refused(StatusCode::BAD_REQUEST, status.message()),
    };
    let number = match round.parse::<i32>().map(rounds::round_number) {
        Ok(Ok(number)) => number,
        Ok(Err(status)) => return refused(StatusCode::BAD_REQUEST, status.message()),
        Err(_) => return refused(StatusCode::BAD_REQUEST, "the round is not a number"),
    };
    answer(arbiter.broadcast_event(&event_id, Some(number)).await)
}

/// The PGN, or the error as a status and a line of text.
fn answer(read: Result<String, ArbiterError>) -> Response {
    match read {
        Ok(pgn) => (
            [
                (header::CONTENT_TYPE, PGN),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            pgn,
        )
            .into_response(),
        Err(err) => {
            let status = tonic::Status::from(err);
            let code = match status.code() {
                Code::NotFound => StatusCode::NOT_FOUND,
                Code::InvalidArgument | Code::OutOfRange => StatusCode::BAD_REQUEST,
                Code::Unavailable | Code::Aborted => StatusCode::SERVICE_UNAVAILABLE,
                Code::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            refused(code, status.message())
        }
    }
}

fn refused(code: StatusCode, message: &str) -> Response {
    (
        code,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{message}\n"),
    )
        .into_response()
}
