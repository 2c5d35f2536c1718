//! Refusals over gRPC: every error's status code, `ErrorInfo.reason` and,
//! where the API promises one, its `BadRequest` field; refusals change
//! nothing; idempotent retries; and storage outages on Redis.

use crate::common;

use std::time::Duration;

use arbiter::proto::{self, GameStatus};
use common::{
    ADMIN_TOKEN, AdminClient, Backend, Client, TestApp, admin, create_request, expect_code, get,
    get_full, make_move, next_event, pairing, play_line, resign, seat, with_token,
};
use tonic::{Code, Request, Status, transport::Channel};
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};
use tonic_types::StatusExt;

/// The `ErrorInfo.domain` of every error of the contract.
const ERROR_DOMAIN: &str = "chessarbiter.v1";

/// A well-formed game id that no game has.
const UNKNOWN_ID: &str = "no-such-game-0123456789";

/// The fields named by the `BadRequest` detail of a status.
fn bad_fields(status: &Status) -> Vec<String> {
    status
        .get_details_bad_request()
        .map(|bad| {
            bad.field_violations
                .into_iter()
                .map(|violation| violation.field)
                .collect()
        })
        .unwrap_or_default()
}

/// The `ErrorInfo` of a status, which every error carries, in the
/// contract's domain.
#[track_caller]
fn error_info(status: &Status) -> tonic_types::ErrorInfo {
    let info = status
        .get_details_error_info()
        .unwrap_or_else(|| panic!("an ErrorInfo detail: {status:?}"));
    assert_eq!(info.domain, ERROR_DOMAIN, "{status:?}");
    info
}

/// Asserts an INVALID_ARGUMENT with `expected_reason` naming `field`.
#[track_caller]
fn assert_invalid<T: std::fmt::Debug>(
    result: Result<T, Status>,
    expected_reason: &str,
    field: &str,
) -> Status {
    let status = expect_code(result, Code::InvalidArgument);
    assert_eq!(error_info(&status).reason, expected_reason, "{status:?}");
    assert_eq!(bad_fields(&status), [field], "{status:?}");
    status
}

/// Asserts `code` with `expected_reason`.
#[track_caller]
fn assert_refused<T: std::fmt::Debug>(
    result: Result<T, Status>,
    code: Code,
    expected_reason: &str,
) -> Status {
    let status = expect_code(result, code);
    assert_eq!(error_info(&status).reason, expected_reason, "{status:?}");
    status
}

/// What a refusal must leave untouched.
#[derive(Debug, PartialEq)]
struct Observed {
    version: i32,
    fen: String,
    ply: i32,
    last_move: Option<proto::MoveRecord>,
    status: i32,
    result: Option<proto::GameResult>,
    draw_offered_by: Option<i32>,
}

fn observed(game: &proto::Game) -> Observed {
    Observed {
        version: game.version,
        fen: game.fen.clone(),
        ply: game.ply,
        last_move: game.last_move.clone(),
        status: game.status,
        result: game.result.clone(),
        draw_offered_by: game.draw_offered_by,
    }
}

/// Asserts that the game still is as `before` shows it, its moves
/// included.
async fn assert_unchanged(client: &mut Client, before: &proto::Game, after_what: &str) {
    let now = get_full(client, &before.game_id).await;
    assert_eq!(
        observed(&now),
        observed(before),
        "the game changed after {after_what}"
    );
    assert_eq!(
        i32::try_from(now.moves.len()).expect("few moves"),
        before.ply,
        "the moves changed after {after_what}"
    );
    assert_eq!(
        now.moves.last(),
        before.last_move.as_ref(),
        "the moves changed after {after_what}"
    );
}

async fn create(
    client: &mut AdminClient,
    request: Request<proto::CreateGameRequest>,
) -> Result<proto::CreateGameResponse, Status> {
    client
        .create_game(request)
        .await
        .map(|response| response.into_inner())
}

/// `message` with a raw `authorization` value.
fn with_authorization<T>(message: T, value: &str) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("authorization", value.parse().expect("ascii metadata"));
    request
}

// ---------------------------------------------------------------------------
// INVALID_ARGUMENT
// ---------------------------------------------------------------------------

async fn unparsable_moves_are_invalid_arguments(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let before = get(&mut client, &game.id).await;

    let status = assert_invalid(
        seat(&mut client, &game.white, make_move(&game.id, 0, "hello")).await,
        "UNPARSABLE_MOVE",
        "move",
    );
    assert!(status.message().contains("hello"), "{}", status.message());

    let junk = "zq!?".repeat(100);
    assert_eq!(junk.len(), 400);
    let status = assert_invalid(
        seat(&mut client, &game.white, make_move(&game.id, 0, &junk)).await,
        "UNPARSABLE_MOVE",
        "move",
    );
    assert!(
        status.message().len() < junk.len(),
        "the echoed move is cut short: {}",
        status.message()
    );

    for empty in ["", "   "] {
        assert_invalid(
            seat(&mut client, &game.white, make_move(&game.id, 0, empty)).await,
            "INVALID_FIELD",
            "move",
        );
    }
    assert_unchanged(&mut client, &before, "unparsable moves").await;
}

async fn illegal_moves_are_invalid_arguments(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let before = get(&mut client, &game.id).await;

    // A pawn that cannot go that far, a piece that cannot get there, the
    // opponent's piece, an empty square, a SAN move nobody can make.
    for mv in ["e2e5", "g1g3", "e7e5", "e3e4", "Ke2", "Nd4"] {
        let status = assert_invalid(
            seat(&mut client, &game.white, make_move(&game.id, 0, mv)).await,
            "ILLEGAL_MOVE",
            "move",
        );
        assert!(status.message().contains(mv), "{mv}: {}", status.message());
    }
    assert_unchanged(&mut client, &before, "illegal moves").await;

    // Also once the game is under way.
    let mid = play_line(&mut client, &game, &["e4", "e5"]).await;
    assert_invalid(
        seat(&mut client, &game.white, make_move(&game.id, 2, "e4e5")).await,
        "ILLEGAL_MOVE",
        "move",
    );
    assert_unchanged(&mut client, &mid, "an illegal move mid-game").await;
}

async fn bad_initial_fen_is_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    for (fen, what, words) in [
        ("this is not a chess position", "garbage text", &["FEN"][..]),
        (
            "4k3/8/8/8/8/8/8/K3K3 w - - 0 1",
            "two white kings",
            &["king"][..],
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
            "castling rights without the rook",
            &["castling"][..],
        ),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e6 0 1",
            "an impossible en passant square",
            &["ep square"][..],
        ),
        (
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "a checkmated start position",
            &["finished", "checkmate"][..],
        ),
        (
            "7k/8/5KQ1/8/8/8/8/8 b - - 0 1",
            "a stalemated start position",
            &["finished", "stalemate"][..],
        ),
    ] {
        let status = assert_invalid(
            create(&mut admin_client, admin(create_request("", fen))).await,
            "INVALID_FIELD",
            "initial_fen",
        );
        let message = status.message().to_lowercase();
        assert!(message.contains("initial_fen"), "{what}: {message}");
        for word in words {
            assert!(
                message.contains(&word.to_lowercase()),
                "{what}: the message names the reason ({word}): {message}"
            );
        }
    }
    // The same positions, with a key: nothing was created under it.
    let refused = create(
        &mut admin_client,
        admin(create_request(
            "bad-fen-key",
            "4k3/8/8/8/8/8/8/K3K3 w - - 0 1",
        )),
    )
    .await;
    expect_code(refused, Code::InvalidArgument);
    let created = create(&mut admin_client, admin(create_request("bad-fen-key", "")))
        .await
        .expect("the key is still free");
    assert_eq!(created.game.expect("game").version, 1);
}

async fn missing_or_empty_players_are_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;

    let mut request = create_request("", "");
    request.white = None;
    assert_invalid(
        create(&mut admin_client, admin(request)).await,
        "INVALID_FIELD",
        "white",
    );

    let mut request = create_request("", "");
    request.black = None;
    assert_invalid(
        create(&mut admin_client, admin(request)).await,
        "INVALID_FIELD",
        "black",
    );

    for seat in ["white", "black"] {
        let mut request = create_request("", "");
        let player = if seat == "white" {
            request.white.as_mut()
        } else {
            request.black.as_mut()
        };
        player.expect("player").id = String::new();
        assert_invalid(
            create(&mut admin_client, admin(request)).await,
            "INVALID_FIELD",
            seat,
        );
    }
}

async fn malformed_game_ids_are_refused_everywhere(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let before = get(&mut client, &game.id).await;
    let too_long = "a".repeat(65);

    for id in ["", too_long.as_str(), "a{b}"] {
        let result = client
            .get_game(proto::GetGameRequest {
                game_id: id.to_owned(),
                view: proto::GameView::Basic.into(),
            })
            .await;
        assert_invalid(result, "INVALID_FIELD", "game_id");

        let result = client
            .make_move(with_token(&game.white, make_move(id, 0, "e4")))
            .await;
        assert_invalid(result, "INVALID_FIELD", "game_id");

        let result = client
            .resign_game(with_token(&game.white, resign(id)))
            .await;
        assert_invalid(result, "INVALID_FIELD", "game_id");

        let result = client
            .watch_game(proto::WatchGameRequest {
                game_id: id.to_owned(),
                after_version: 0,
                ..Default::default()
            })
            .await;
        assert_invalid(result, "INVALID_FIELD", "game_id");

        let result = client
            .export_pgn(proto::ExportPgnRequest {
                target: Some(proto::export_pgn_request::Target::GameId(id.to_owned())),
            })
            .await;
        assert_invalid(result, "INVALID_FIELD", "game_id");
    }
    // An export must say what to export.
    let result = client
        .export_pgn(proto::ExportPgnRequest { target: None })
        .await;
    assert_invalid(result, "INVALID_FIELD", "target");
    assert_unchanged(&mut client, &before, "requests with malformed ids").await;
}

async fn malformed_request_ids_are_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let too_long = "k".repeat(129);
    for key in ["has space", " leading", "tab\there", too_long.as_str()] {
        assert_invalid(
            create(&mut admin_client, admin(create_request(key, ""))).await,
            "INVALID_FIELD",
            "request_id",
        );
    }
    // The longest accepted key.
    create(
        &mut admin_client,
        admin(create_request(&"k".repeat(128), "")),
    )
    .await
    .expect("128 printable characters are a valid key");
}

// ---------------------------------------------------------------------------
// FAILED_PRECONDITION
// ---------------------------------------------------------------------------

async fn moving_out_of_turn_is_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let before = get(&mut client, &game.id).await;

    let status = assert_refused(
        seat(&mut client, &game.black, make_move(&game.id, 0, "e5")).await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    assert!(
        status.message().to_lowercase().contains("turn"),
        "{}",
        status.message()
    );
    // Even a move that would be legal for White is refused to Black's seat.
    assert_refused(
        seat(&mut client, &game.black, make_move(&game.id, 0, "e2e4")).await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    assert_unchanged(&mut client, &before, "Black moving out of turn").await;

    let mid = play_line(&mut client, &game, &["e4"]).await;
    assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 1, "d4")).await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    assert_unchanged(&mut client, &mid, "White moving twice").await;
}

async fn finished_games_refuse_moves_and_resignations(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    // Ended by resignation.
    let game = app.new_game().await;
    play_line(&mut client, &game, &["e4"]).await;
    let resigned = seat(&mut client, &game.black, resign(&game.id))
        .await
        .expect("resign");
    assert_eq!(resigned.status, GameStatus::Finished as i32);
    for token in [&game.white, &game.black] {
        assert_refused(
            seat(&mut client, token, make_move(&game.id, resigned.ply, "d5")).await,
            Code::FailedPrecondition,
            "GAME_OVER",
        );
    }
    // The winner cannot resign any more.
    assert_refused(
        seat(&mut client, &game.white, resign(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    // The loser's resignation repeated is a retry: it succeeds and
    // changes nothing.
    let repeated = client
        .resign_game(with_token(&game.black, resign(&game.id)))
        .await
        .expect("a repeated resignation succeeds")
        .into_inner();
    assert!(repeated.events.is_empty(), "{:?}", repeated.events);
    assert_eq!(observed(&repeated.game.expect("game")), observed(&resigned));
    assert_unchanged(&mut client, &resigned, "acting in a resigned game").await;

    // Ended by checkmate (fool's mate).
    let game = app.new_game().await;
    let mated = play_line(&mut client, &game, &["f3", "e5", "g4", "Qh4#"]).await;
    assert_eq!(mated.status, GameStatus::Finished as i32);
    assert_refused(
        seat(
            &mut client,
            &game.white,
            make_move(&game.id, mated.ply, "a3"),
        )
        .await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    for token in [&game.white, &game.black] {
        assert_refused(
            seat(&mut client, token, resign(&game.id)).await,
            Code::FailedPrecondition,
            "GAME_OVER",
        );
    }
    assert_unchanged(&mut client, &mated, "acting in a mated game").await;
}

/// Asserts that a refusal's `ErrorInfo.metadata` describes `game` as it
/// stands: its ply and the side to move (and no start time: `game` has no
/// scheduled start).
#[track_caller]
fn assert_describes(status: &Status, game: &proto::Game) {
    let metadata = error_info(status).metadata;
    let side = match proto::Color::try_from(game.side_to_move) {
        Ok(proto::Color::White) => "white",
        Ok(proto::Color::Black) => "black",
        other => panic!("no side to move: {other:?}"),
    };
    assert_eq!(
        metadata.get("ply").map(String::as_str),
        Some(game.ply.to_string().as_str()),
        "{status:?}"
    );
    assert_eq!(
        metadata.get("side_to_move").map(String::as_str),
        Some(side),
        "{status:?}"
    );
    assert!(!metadata.contains_key("start_time"), "{status:?}");
}

/// A refused command says where the game stands, so that a client can
/// decide again without reading it first.
async fn refusals_carry_the_game_in_their_metadata(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;

    let start = get(&mut client, &game.id).await;
    let status = assert_refused(
        seat(&mut client, &game.black, make_move(&game.id, 0, "e5")).await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    assert_describes(&status, &start);

    let mid = play_line(&mut client, &game, &["e4", "e5", "Nf3"]).await;
    assert_eq!((mid.ply, mid.side_to_move), (3, proto::Color::Black as i32));
    let status = assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 3, "d4")).await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    assert_describes(&status, &mid);
    let status = assert_invalid(
        seat(&mut client, &game.black, make_move(&game.id, 3, "Ke6")).await,
        "ILLEGAL_MOVE",
        "move",
    );
    assert_describes(&status, &mid);
    let status = assert_invalid(
        seat(&mut client, &game.black, make_move(&game.id, 3, "hello")).await,
        "UNPARSABLE_MOVE",
        "move",
    );
    assert_describes(&status, &mid);
    let status = assert_refused(
        seat(&mut client, &game.black, make_move(&game.id, 5, "Nc6")).await,
        Code::Aborted,
        "STALE_PLY",
    );
    assert_describes(&status, &mid);
    assert_unchanged(&mut client, &mid, "refused moves").await;

    // A finished game: the position it ended in.
    let game = app.new_game().await;
    let mated = play_line(&mut client, &game, &["f3", "e5", "g4", "Qh4#"]).await;
    let status = assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 4, "a3")).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    assert_describes(&status, &mated);
    let status = assert_refused(
        seat(&mut client, &game.white, resign(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    assert_describes(&status, &mated);

    // Before a scheduled start, the refusal says when the game starts.
    let starts = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
        + 3600;
    let mut request = create_request("", "");
    request.scheduled_start_time = Some(prost_types::Timestamp {
        seconds: i64::try_from(starts).expect("a near date"),
        nanos: 0,
    });
    let scheduled = common::create(&mut app.admin_client().await, request)
        .await
        .expect("create a scheduled game");
    let status = assert_refused(
        seat(
            &mut client,
            &scheduled.white,
            make_move(&scheduled.id, 0, "e4"),
        )
        .await,
        Code::FailedPrecondition,
        "NOT_STARTED",
    );
    let metadata = error_info(&status).metadata;
    assert_eq!(metadata.get("ply").map(String::as_str), Some("0"));
    assert_eq!(
        metadata.get("side_to_move").map(String::as_str),
        Some("white")
    );
    let start_time: prost_types::Timestamp = metadata
        .get("start_time")
        .unwrap_or_else(|| panic!("a start_time: {status:?}"))
        .parse()
        .expect("RFC 3339");
    assert_eq!(
        Some(start_time),
        common::setup(&scheduled.game).scheduled_start_time
    );

    // Errors about no game in particular say nothing about one.
    let status = assert_refused(
        seat(&mut client, &game.white, make_move(UNKNOWN_ID, 0, "e4")).await,
        Code::NotFound,
        "GAME_NOT_FOUND",
    );
    assert!(error_info(&status).metadata.is_empty(), "{status:?}");
}

// ---------------------------------------------------------------------------
// NOT_FOUND
// ---------------------------------------------------------------------------

async fn unknown_games_are_not_found(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    // A real seat token, of another game.
    let other = app.new_game().await;

    let result = client
        .get_game(proto::GetGameRequest {
            game_id: UNKNOWN_ID.to_owned(),
            view: proto::GameView::Basic.into(),
        })
        .await;
    let status = assert_refused(result, Code::NotFound, "GAME_NOT_FOUND");
    assert!(
        status.message().contains(UNKNOWN_ID),
        "{}",
        status.message()
    );

    assert_refused(
        seat(&mut client, &other.white, make_move(UNKNOWN_ID, 0, "e4")).await,
        Code::NotFound,
        "GAME_NOT_FOUND",
    );
    assert_refused(
        seat(&mut client, &other.white, resign(UNKNOWN_ID)).await,
        Code::NotFound,
        "GAME_NOT_FOUND",
    );
    let result = client
        .watch_game(proto::WatchGameRequest {
            game_id: UNKNOWN_ID.to_owned(),
            after_version: 0,
            ..Default::default()
        })
        .await;
    assert_refused(result, Code::NotFound, "GAME_NOT_FOUND");
    let result = client
        .export_pgn(proto::ExportPgnRequest {
            target: Some(proto::export_pgn_request::Target::GameId(
                UNKNOWN_ID.to_owned(),
            )),
        })
        .await;
    assert_refused(result, Code::NotFound, "GAME_NOT_FOUND");

    // None of that created the game.
    let result = client
        .get_game(proto::GetGameRequest {
            game_id: UNKNOWN_ID.to_owned(),
            view: proto::GameView::Basic.into(),
        })
        .await;
    expect_code(result, Code::NotFound);
}

// ---------------------------------------------------------------------------
// ABORTED
// ---------------------------------------------------------------------------

async fn stale_plies_are_aborted(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mid = play_line(&mut client, &game, &["e4", "e5"]).await;

    // A different move at a ply already played.
    let status = assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 0, "d4")).await,
        Code::Aborted,
        "STALE_PLY",
    );
    assert!(status.message().contains("ply"), "{}", status.message());
    assert_refused(
        seat(&mut client, &game.black, make_move(&game.id, 1, "d5")).await,
        Code::Aborted,
        "STALE_PLY",
    );
    // The same text at that ply, but from the other seat, is no retry.
    assert_refused(
        seat(&mut client, &game.black, make_move(&game.id, 0, "e4")).await,
        Code::Aborted,
        "STALE_PLY",
    );
    // A ply the game has not reached.
    assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 3, "Nf3")).await,
        Code::Aborted,
        "STALE_PLY",
    );
    assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 40, "Nf3")).await,
        Code::Aborted,
        "STALE_PLY",
    );
    assert_unchanged(&mut client, &mid, "stale plies").await;

    // The game goes on at the right ply.
    seat(&mut client, &game.white, make_move(&game.id, 2, "Nf3"))
        .await
        .expect("move at the current ply");
}

// ---------------------------------------------------------------------------
// UNAUTHENTICATED and PERMISSION_DENIED
// ---------------------------------------------------------------------------

async fn missing_or_malformed_credentials_are_unauthenticated(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let game = app.new_game().await;
    let before = get(&mut client, &game.id).await;

    let result = client
        .make_move(Request::new(make_move(&game.id, 0, "e4")))
        .await;
    assert_refused(result, Code::Unauthenticated, "MISSING_TOKEN");
    let result = client.resign_game(Request::new(resign(&game.id))).await;
    assert_refused(result, Code::Unauthenticated, "MISSING_TOKEN");

    let basic = format!("Basic {}", game.white);
    for value in [
        "Basic xyz",
        basic.as_str(),
        "Bearer ",
        "Bearer     ",
        "Bearer",
    ] {
        let result = client
            .make_move(with_authorization(make_move(&game.id, 0, "e4"), value))
            .await;
        assert_refused(result, Code::Unauthenticated, "MISSING_TOKEN");
        let result = client
            .resign_game(with_authorization(resign(&game.id), value))
            .await;
        assert_refused(result, Code::Unauthenticated, "MISSING_TOKEN");
    }
    assert_unchanged(&mut client, &before, "requests without credentials").await;

    // CreateGame needs the admin token when the server has one.
    let result = create(
        &mut admin_client,
        Request::new(create_request("no-token", "")),
    )
    .await;
    assert_refused(result, Code::Unauthenticated, "MISSING_TOKEN");
    let result = create(
        &mut admin_client,
        with_authorization(create_request("no-token", ""), "Basic xyz"),
    )
    .await;
    assert_refused(result, Code::Unauthenticated, "MISSING_TOKEN");
    // Nothing was created under the key: a proper request gets version 1
    // of a fresh game with other players.
    let mut request = create_request("no-token", "");
    request.black = Some(proto::Player {
        id: "carol".to_owned(),
        name: "Carol".to_owned(),
        ..Default::default()
    });
    let created = create(&mut admin_client, admin(request))
        .await
        .expect("the key is still free");
    assert_eq!(
        common::setup(&created.game.expect("game"))
            .black
            .as_ref()
            .expect("black")
            .id,
        "carol"
    );
}

async fn foreign_tokens_are_permission_denied(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let game = app.new_game().await;
    let other = app.new_game().await;
    let before = get(&mut client, &game.id).await;

    for token in [other.white.as_str(), other.black.as_str(), ADMIN_TOKEN, "x"] {
        let status = assert_refused(
            seat(&mut client, token, make_move(&game.id, 0, "e4")).await,
            Code::PermissionDenied,
            "NOT_A_SEAT",
        );
        assert!(!status.message().contains(token), "{}", status.message());
        assert_refused(
            seat(&mut client, token, resign(&game.id)).await,
            Code::PermissionDenied,
            "NOT_A_SEAT",
        );
    }
    assert_unchanged(&mut client, &before, "foreign tokens").await;
    // The other game is untouched as well.
    let other_now = get(&mut client, &other.id).await;
    assert_eq!(other_now.version, 1);
    assert_eq!(other_now.ply, 0);

    // CreateGame with a wrong admin token, or with a seat token.
    for token in ["wrong-admin-token", game.white.as_str()] {
        let result = create(&mut admin_client, with_token(token, create_request("", ""))).await;
        assert_refused(result, Code::PermissionDenied, "NOT_ADMIN");
    }
}

/// A ruling, as the arbiter's intervention to try in each mode.
fn a_ruling(game_id: &str) -> proto::SetGameResultRequest {
    proto::SetGameResultRequest {
        game_id: game_id.to_owned(),
        reason: "adjudicated".to_owned(),
        ruling: Some(proto::set_game_result_request::Ruling::Played(
            proto::PlayedResult {
                outcome: proto::Outcome::Draw.into(),
                termination: proto::Termination::Unspecified.into(),
            },
        )),
        ..Default::default()
    }
}

/// Open mode (no admin token): anyone may create games, seats still need
/// their tokens, and the arbiter's interventions are closed to everyone. On
/// a shared store the server does not even start that way (see
/// `a_shared_store_needs_both_secrets`); in memory it does.
async fn open_mode_creates_games_and_closes_interventions() {
    let mut settings = common::settings(Backend::Memory.store());
    settings.admin_token = None;
    let app = TestApp::spawn_with(settings, None).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;

    let created = create(&mut admin_client, Request::new(create_request("", "")))
        .await
        .expect("open mode creates games without a token");
    let game = created.game.expect("game");
    assert_eq!(game.version, 1);
    // Any credentials are fine too.
    create(
        &mut admin_client,
        with_token("whatever", create_request("", "")),
    )
    .await
    .expect("open mode ignores the token");

    // Seats still need their tokens.
    let result = client
        .make_move(Request::new(make_move(&game.game_id, 0, "e4")))
        .await;
    assert_refused(result, Code::Unauthenticated, "MISSING_TOKEN");
    assert_refused(
        seat(&mut client, ADMIN_TOKEN, make_move(&game.game_id, 0, "e4")).await,
        Code::PermissionDenied,
        "NOT_A_SEAT",
    );
    seat(
        &mut client,
        &created.white_token,
        make_move(&game.game_id, 0, "e4"),
    )
    .await
    .expect("the white seat moves");

    // Nobody intervenes as the arbiter, with or without a token.
    for request in [
        Request::new(a_ruling(&game.game_id)),
        with_token("whatever", a_ruling(&game.game_id)),
    ] {
        let refused = admin_client.set_game_result(request).await;
        assert_refused(refused, Code::PermissionDenied, "ADMIN_TOKEN_NOT_SET");
    }
    assert_eq!(
        get(&mut client, &game.game_id).await.status,
        GameStatus::Active as i32,
        "nothing changed"
    );
}

/// The development flag opens interventions in open mode, on any store.
async fn dev_insecure_opens_interventions(backend: Backend) {
    let mut settings = common::settings(backend.store());
    settings.admin_token = None;
    settings.token_secret = None;
    settings.dev_insecure = true;
    let app = TestApp::spawn_with(settings, None).await;
    let mut admin_client = app.admin_client().await;
    let created = create(&mut admin_client, Request::new(create_request("", "")))
        .await
        .expect("created");
    let game = created.game.expect("game");
    let ruled = admin_client
        .set_game_result(Request::new(a_ruling(&game.game_id)))
        .await
        .expect("an open intervention")
        .into_inner();
    assert_eq!(
        ruled.game.expect("game").status,
        GameStatus::Finished as i32
    );
}

/// On a shared store (Redis), the server refuses to start without the
/// admin token or the token secret, naming what is missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_store_needs_both_secrets() {
    for (admin_token, token_secret, named) in [
        (None, None, "ARBITER_ADMIN_TOKEN and ARBITER_TOKEN_SECRET"),
        (Some(ADMIN_TOKEN), None, "ARBITER_TOKEN_SECRET"),
        (None, Some(common::TOKEN_SECRET), "ARBITER_ADMIN_TOKEN"),
    ] {
        let mut settings = common::settings(Backend::Redis.store());
        settings.admin_token = admin_token.map(str::to_owned);
        settings.token_secret = token_secret.map(str::to_owned);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("port");
        let refused = arbiter::server::serve(
            settings,
            listener,
            tokio_util::sync::CancellationToken::new(),
        )
        .await
        .expect_err("a shared store without both secrets is refused");
        let message = refused.to_string();
        assert!(message.contains(named), "{message}");
        assert!(message.contains("--dev-insecure"), "{message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_mode_in_memory() {
    open_mode_creates_games_and_closes_interventions().await;
}

// ---------------------------------------------------------------------------
// Idempotency
// ---------------------------------------------------------------------------

async fn create_game_is_idempotent_per_request_id(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;

    let first = create(
        &mut admin_client,
        admin(create_request("round-1/board-1", "")),
    )
    .await
    .expect("create");
    let again = create(
        &mut admin_client,
        admin(create_request("round-1/board-1", "")),
    )
    .await
    .expect("repeat");
    let first_game = first.game.clone().expect("game");
    let again_game = again.game.clone().expect("game");
    assert_eq!(again_game.game_id, first_game.game_id);
    assert_eq!(again.white_token, first.white_token);
    assert_eq!(again.black_token, first.black_token);
    assert_eq!(again_game.version, 1);
    assert_ne!(first.white_token, first.black_token);

    // A repeat after play has started returns the game as it now stands.
    let played = seat(
        &mut client,
        &first.white_token,
        make_move(&first_game.game_id, 0, "e4"),
    )
    .await
    .expect("move");
    let late = create(
        &mut admin_client,
        admin(create_request("round-1/board-1", "")),
    )
    .await
    .expect("late repeat");
    assert_eq!(late.white_token, first.white_token);
    assert_eq!(observed(&late.game.expect("game")), observed(&played));

    // The same key with different contents.
    let mut different = create_request("round-1/board-1", "");
    different.black = Some(proto::Player {
        id: "carol".to_owned(),
        name: "Carol".to_owned(),
        ..Default::default()
    });
    let status = assert_refused(
        create(&mut admin_client, admin(different)).await,
        Code::AlreadyExists,
        "REQUEST_ID_REUSED",
    );
    assert!(
        status.message().contains("round-1/board-1"),
        "{}",
        status.message()
    );
    let mut different = create_request("round-1/board-1", "");
    different.start = Some(proto::create_game_request::Start::InitialFen(
        "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1".to_owned(),
    ));
    assert_refused(
        create(&mut admin_client, admin(different)).await,
        Code::AlreadyExists,
        "REQUEST_ID_REUSED",
    );
    // Nothing new: the key still maps to the original game, unchanged.
    let current = get(&mut client, &first_game.game_id).await;
    assert_eq!(observed(&current), observed(&played));
    assert_eq!(
        common::setup(&current).black.as_ref().expect("black").id,
        "bob"
    );
    let still = create(
        &mut admin_client,
        admin(create_request("round-1/board-1", "")),
    )
    .await
    .expect("the original request still repeats");
    assert_eq!(still.game.expect("game").game_id, first_game.game_id);

    // Without a key every call creates a new game.
    let a = create(&mut admin_client, admin(create_request("", "")))
        .await
        .expect("create");
    let b = create(&mut admin_client, admin(create_request("", "")))
        .await
        .expect("create");
    let (a_id, b_id) = (a.game.expect("game").game_id, b.game.expect("game").game_id);
    assert_ne!(a_id, b_id);
    assert_ne!(a_id, first_game.game_id);
    assert_ne!(a.white_token, b.white_token);
    assert_ne!(a.black_token, b.black_token);
}

/// The whole response to a move, its events included.
async fn move_response(
    client: &mut Client,
    token: &str,
    request: proto::MakeMoveRequest,
) -> Result<proto::MakeMoveResponse, Status> {
    client
        .make_move(with_token(token, request))
        .await
        .map(tonic::Response::into_inner)
}

async fn repeated_moves_are_idempotent(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    // The same text again, in UCI and in SAN.
    for mv in ["e2e4", "Nf3"] {
        let game = app.new_game().await;
        let applied = move_response(&mut client, &game.white, make_move(&game.id, 0, mv))
            .await
            .expect("move");
        assert_eq!(common::kinds(&applied.events), ["move_made"], "{mv}");
        let applied = applied.game.expect("game");
        assert_eq!(applied.version, 2);
        assert_eq!(applied.ply, 1);
        for _ in 0..2 {
            let retried = move_response(&mut client, &game.white, make_move(&game.id, 0, mv))
                .await
                .unwrap_or_else(|status| panic!("retry of {mv} refused: {status:?}"));
            assert!(retried.events.is_empty(), "{mv}: {:?}", retried.events);
            let retried = retried.game.expect("game");
            assert_eq!(observed(&retried), observed(&applied), "{mv}");
            assert_eq!(retried.last_move, applied.last_move, "{mv}");
        }
        assert_unchanged(&mut client, &applied, "a retried move").await;
    }

    // A retry after the opponent has replied: the game as it now stands.
    let game = app.new_game().await;
    let after_reply = play_line(&mut client, &game, &["e4", "c5"]).await;
    assert_eq!(after_reply.ply, 2);
    let retried = move_response(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("retry two plies later");
    assert!(retried.events.is_empty(), "{:?}", retried.events);
    let retried = retried.game.expect("game");
    assert_eq!(observed(&retried), observed(&after_reply));
    assert_eq!(
        retried.last_move.as_ref().map(|m| m.san.as_str()),
        Some("c5")
    );
    let retried = seat(&mut client, &game.black, make_move(&game.id, 1, "c7c5"))
        .await
        .expect("black's retry, in UCI as sent");
    assert_eq!(observed(&retried), observed(&after_reply));
    assert_unchanged(&mut client, &after_reply, "retries").await;

    // The retry produced no event: a watcher resuming from the last version
    // has nothing to receive before the next real move.
    let mut watcher = app.client().await;
    let mut stream = common::watch(&mut watcher, &game.id, after_reply.version).await;
    let next = seat(&mut client, &game.white, make_move(&game.id, 2, "Nf3"))
        .await
        .expect("next move");
    let event = next_event(&mut stream).await;
    assert_eq!(event.version, after_reply.version + 1);
    assert_eq!(event.version, next.version);

    // Only the two latest moves can be repeated: White's first move is now
    // three plies back, and its repeat is stale (the game is not searched
    // for it).
    let status = assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 0, "e4")).await,
        Code::Aborted,
        "STALE_PLY",
    );
    assert_eq!(
        error_info(&status).metadata.get("ply"),
        Some(&"3".to_owned())
    );
    seat(&mut client, &game.black, make_move(&game.id, 1, "c5"))
        .await
        .expect("black's move is still one of the two latest");
    assert_unchanged(&mut client, &next, "a stale repeat").await;
}

on_every_backend!(
    unparsable_moves_are_invalid_arguments,
    illegal_moves_are_invalid_arguments,
    bad_initial_fen_is_refused,
    missing_or_empty_players_are_refused,
    malformed_game_ids_are_refused_everywhere,
    malformed_request_ids_are_refused,
    moving_out_of_turn_is_refused,
    finished_games_refuse_moves_and_resignations,
    refusals_carry_the_game_in_their_metadata,
    unknown_games_are_not_found,
    stale_plies_are_aborted,
    missing_or_malformed_credentials_are_unauthenticated,
    foreign_tokens_are_permission_denied,
    dev_insecure_opens_interventions,
    create_game_is_idempotent_per_request_id,
    repeated_moves_are_idempotent,
);

// ---------------------------------------------------------------------------
// UNAVAILABLE
// ---------------------------------------------------------------------------

/// The contract's services, whose health follows readiness.
const SERVICES: [&str; 2] = [
    "chessarbiter.v1.ArbiterService",
    "chessarbiter.v1.AdminService",
];

/// A guard against a hung call: far longer than the store's own bound.
const HANG_GUARD: Duration = Duration::from_secs(30);

async fn guarded<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(HANG_GUARD, future)
        .await
        .expect("the call returns instead of hanging")
}

async fn health(channel: &Channel, service: &str) -> ServingStatus {
    let response = guarded(
        HealthClient::new(channel.clone()).check(HealthCheckRequest {
            service: service.to_owned(),
        }),
    )
    .await
    .unwrap_or_else(|status| panic!("health check of {service}: {status:?}"))
    .into_inner();
    ServingStatus::try_from(response.status).expect("known serving status")
}

/// Polls `service` until it reports `wanted`, for up to `polls` × 100 ms,
/// checking on every poll that liveness stays serving.
async fn await_health(channel: &Channel, service: &str, wanted: ServingStatus, polls: u32) {
    let mut last = None;
    for _ in 0..polls {
        assert_eq!(
            health(channel, "liveness").await,
            ServingStatus::Serving,
            "liveness stays serving"
        );
        let status = health(channel, service).await;
        if status == wanted {
            return;
        }
        last = Some(status);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{service} never became {wanted:?}; last {last:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_outage_is_unavailable_and_recovers() {
    // Redis goes down: a private one, not the one other tests share.
    let mut app = TestApp::spawn_with_private_redis().await;
    let channel = app.channel().await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let game = app.new_game().await;
    await_health(&channel, "readiness", ServingStatus::Serving, 100).await;

    app.redis.as_mut().expect("redis").kill();

    let result = guarded(client.get_game(proto::GetGameRequest {
        game_id: game.id.clone(),
        view: proto::GameView::Basic.into(),
    }))
    .await;
    assert_refused(result, Code::Unavailable, "STORAGE_UNAVAILABLE");
    let result = guarded(seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))).await;
    // The cause (Redis's address, the OS error) stays in the server's log.
    let port = app.redis.as_ref().expect("redis").port().to_string();
    if let Err(status) = &result {
        assert!(
            !status.message().contains(&port) && !status.message().contains("os error"),
            "{status:?}"
        );
    }
    assert_refused(result, Code::Unavailable, "STORAGE_UNAVAILABLE");
    let result = guarded(seat(&mut client, &game.white, resign(&game.id))).await;
    assert_refused(result, Code::Unavailable, "STORAGE_UNAVAILABLE");
    let result = guarded(create(&mut admin_client, admin(create_request("", "")))).await;
    assert_refused(result, Code::Unavailable, "STORAGE_UNAVAILABLE");

    // The process keeps serving: requests that need no storage still get
    // their own answers, and health reports the outage.
    let result = guarded(client.get_game(proto::GetGameRequest {
        game_id: "a{b}".to_owned(),
        view: proto::GameView::Basic.into(),
    }))
    .await;
    assert_invalid(result, "INVALID_FIELD", "game_id");
    let result = guarded(client.make_move(Request::new(make_move(&game.id, 0, "e4")))).await;
    assert_refused(result, Code::Unauthenticated, "MISSING_TOKEN");
    await_health(&channel, "readiness", ServingStatus::NotServing, 100).await;
    for service in SERVICES {
        await_health(&channel, service, ServingStatus::NotServing, 100).await;
    }
    assert_eq!(health(&channel, "liveness").await, ServingStatus::Serving);

    app.redis.as_mut().expect("redis").restart();

    // The restarted Redis is empty: play on a new game once storage answers.
    let mut recovered = None;
    for _ in 0..150 {
        match guarded(create(&mut admin_client, admin(create_request("", "")))).await {
            Ok(created) => {
                recovered = Some(created);
                break;
            }
            Err(status) => {
                assert_eq!(status.code(), Code::Unavailable, "{status:?}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    let created = recovered.expect("CreateGame succeeds again after Redis is back");
    let new_id = created.game.expect("game").game_id;
    let after = guarded(seat(
        &mut client,
        &created.white_token,
        make_move(&new_id, 0, "e4"),
    ))
    .await
    .expect("a move after recovery");
    assert_eq!(after.ply, 1);
    let read = get(&mut client, &new_id).await;
    assert_eq!(observed(&read), observed(&after));
    // The old game was lost with the data.
    let result = guarded(client.get_game(proto::GetGameRequest {
        game_id: game.id.clone(),
        view: proto::GameView::Basic.into(),
    }))
    .await;
    assert_refused(result, Code::NotFound, "GAME_NOT_FOUND");

    await_health(&channel, "readiness", ServingStatus::Serving, 150).await;
    for service in SERVICES {
        await_health(&channel, service, ServingStatus::Serving, 150).await;
    }
    assert_eq!(health(&channel, "liveness").await, ServingStatus::Serving);
}

/// Round and board numbers are bounded, so event ordering is exact in
/// every store.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn round_and_board_numbers_are_bounded() {
    let app = TestApp::spawn(Backend::Memory).await;
    let mut client = app.admin_client().await;
    for (round, board, field) in [
        (1_001, 1, "round"),
        (1, 10_001, "board"),
        (i32::MAX, 1, "round"),
    ] {
        let mut request = create_request("", "");
        request.pairing = Some(pairing("bounded", round, board));
        let status = expect_code(
            client.create_game(admin(request)).await,
            Code::InvalidArgument,
        );
        assert!(status.message().contains(field), "{}", status.message());
    }
    let mut request = create_request("", "");
    request.pairing = Some(pairing("bounded", 1_000, 10_000));
    client
        .create_game(admin(request))
        .await
        .expect("the largest numbers are accepted");
}
