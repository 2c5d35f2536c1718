//! A player gone from an online game, over gRPC: the platform reports the
//! connection (`ReportConnection`), and the opponent claims the game
//! (`ClaimVictory`) once the player has been gone for the game's
//! `claim_after_opponent_left_millis`.
//!
//! Nothing here asserts how long anything took: waits only let the claim's
//! time pass.

use crate::common;

use std::time::Duration;

use arbiter::proto::{self, Color, GameStatus, Outcome, Termination, game_event::Kind};
use common::{
    AdminClient, Backend, Client, NewGame, TestApp, admin, create, create_request, expect_code,
    export_pgn, get, kinds, make_move, period, reason, seat, seat_with_events, watch,
};
use tonic::{Code, Request};
use tonic_types::StatusExt;

/// How long the player must be gone before a claim, in these games.
const CLAIM_AFTER_MS: i32 = 400;

/// A ten-minute game whose rules allow the claim after `claim_after_ms`
/// (0: no claim).
async fn game(admin: &mut AdminClient, claim_after_ms: i32) -> NewGame {
    let request = proto::CreateGameRequest {
        time_control: Some(proto::TimeControl {
            periods: vec![period(600_000, 0, 0, 0)],
            ..Default::default()
        }),
        rules: Some(proto::GameRules {
            claim_after_opponent_left_millis: claim_after_ms,
            ..Default::default()
        }),
        ..create_request("", "")
    };
    create(admin, request).await.expect("create")
}

/// Both players make a move: 1. e4 e5.
async fn opening(client: &mut Client, game: &NewGame) {
    seat(client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("White moves");
    seat(client, &game.black, make_move(&game.id, 1, "e5"))
        .await
        .expect("Black answers");
}

fn report(game_id: &str, color: Color, connected: bool) -> proto::ReportConnectionRequest {
    proto::ReportConnectionRequest {
        game_id: game_id.to_owned(),
        color: color.into(),
        connected,
    }
}

fn claim(game_id: &str) -> proto::ClaimVictoryRequest {
    proto::ClaimVictoryRequest {
        game_id: game_id.to_owned(),
    }
}

/// The platform reports White gone; Black's claim is refused until White
/// has been gone for the rules' time, and then wins. Watchers see the
/// report and the end; the PGN says the game was abandoned; it counts as
/// played.
async fn a_player_gone_long_enough_loses_to_the_opponents_claim(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let game = game(&mut admin_client, CLAIM_AFTER_MS).await;
    opening(&mut client, &game).await;
    let mut stream = watch(&mut client, &game.id, 3).await;

    let reported = admin_client
        .report_connection(admin(report(&game.id, Color::White, false)))
        .await
        .expect("the platform reports White gone")
        .into_inner();
    assert_eq!(kinds(&reported.events), ["connection_reported"]);
    let Some(Kind::ConnectionReported(event)) = &reported.events[0].kind else {
        unreachable!("checked by kind");
    };
    assert_eq!(
        (event.color, event.connected, event.by.as_str()),
        (Color::White as i32, false, "admin")
    );
    let read = reported.game.expect("game");
    let left = read.white_left_time.expect("White is gone");
    assert_eq!(Some(left), reported.events[0].event_time);
    assert_eq!(read.black_left_time, None);
    let watched = tokio::time::timeout(Duration::from_secs(20), common::next_event(&mut stream))
        .await
        .expect("watchers hear of the report");
    assert_eq!(watched, reported.events[0]);

    // A second report of the same absence changes nothing.
    let again = admin_client
        .report_connection(admin(report(&game.id, Color::White, false)))
        .await
        .expect("a repeat succeeds")
        .into_inner();
    assert!(again.events.is_empty());
    assert_eq!(again.game.expect("game").white_left_time, Some(left));

    let early = expect_code(
        seat(&mut client, &game.black, claim(&game.id)).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&early), "OPPONENT_LEFT_TOO_RECENTLY");
    let info = early.get_details_error_info().expect("error info");
    let claimable_at: prost_types::Timestamp = info.metadata["claimable_at"]
        .parse()
        .expect("an RFC 3339 time");
    let millis = |t: &prost_types::Timestamp| t.seconds * 1_000 + i64::from(t.nanos) / 1_000_000;
    assert_eq!(
        millis(&claimable_at),
        millis(&left) + i64::from(CLAIM_AFTER_MS)
    );
    assert_eq!(get(&mut client, &game.id).await.version, read.version);

    tokio::time::sleep(Duration::from_millis(
        u64::from(CLAIM_AFTER_MS.unsigned_abs()) + 100,
    ))
    .await;
    let (over, events) = seat_with_events(&mut client, &game.black, claim(&game.id))
        .await
        .expect("Black claims the game");
    assert_eq!(kinds(&events), ["game_ended"]);
    assert_eq!(over.status, GameStatus::Finished as i32);
    let result = over.result.clone().expect("result");
    assert_eq!(
        (result.outcome, result.termination),
        (Outcome::BlackWins as i32, Termination::OpponentLeft as i32)
    );
    assert!(!common::score(&over).unplayed, "a played game");
    // The claimant's retry changes nothing.
    let (retried, events) = seat_with_events(&mut client, &game.black, claim(&game.id))
        .await
        .expect("a retry succeeds");
    assert!(events.is_empty());
    assert_eq!(retried.version, over.version);
    let pgn = export_pgn(&mut client, &game.id).await;
    assert!(pgn.contains("[Termination \"abandoned\"]"), "{pgn}");
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
}

/// Each refusal names its cause and changes nothing: no rule, no moves
/// yet, no report, a report withdrawn, the claimant's own absence.
async fn a_claim_is_refused_without_the_rule_the_moves_or_the_report(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let refused = |result: Result<proto::Game, tonic::Status>| {
        reason(&expect_code(result, Code::FailedPrecondition))
    };

    let no_rule = game(&mut admin_client, 0).await;
    opening(&mut client, &no_rule).await;
    admin_client
        .report_connection(admin(report(&no_rule.id, Color::White, false)))
        .await
        .expect("reported");
    assert_eq!(
        refused(seat(&mut client, &no_rule.black, claim(&no_rule.id)).await),
        "VICTORY_CLAIM_NOT_ALLOWED"
    );

    let fresh = game(&mut admin_client, 1).await;
    admin_client
        .report_connection(admin(report(&fresh.id, Color::Black, false)))
        .await
        .expect("reported before any move");
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(
        refused(seat(&mut client, &fresh.white, claim(&fresh.id)).await),
        "VICTORY_CLAIM_BEFORE_MOVES"
    );

    let played = game(&mut admin_client, 1).await;
    opening(&mut client, &played).await;
    assert_eq!(
        refused(seat(&mut client, &played.black, claim(&played.id)).await),
        "OPPONENT_CONNECTED"
    );
    admin_client
        .report_connection(admin(report(&played.id, Color::White, false)))
        .await
        .expect("White gone");
    // White's own absence gives White nothing to claim.
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(
        refused(seat(&mut client, &played.white, claim(&played.id)).await),
        "OPPONENT_CONNECTED"
    );
    let back = admin_client
        .report_connection(admin(report(&played.id, Color::White, true)))
        .await
        .expect("White back")
        .into_inner();
    assert_eq!(kinds(&back.events), ["connection_reported"]);
    assert_eq!(back.game.expect("game").white_left_time, None);
    assert_eq!(
        refused(seat(&mut client, &played.black, claim(&played.id)).await),
        "OPPONENT_CONNECTED"
    );
    let read = get(&mut client, &played.id).await;
    assert_eq!(
        read.status,
        GameStatus::Active as i32,
        "refusals change nothing"
    );
    assert_eq!(
        read.version, 5,
        "two moves and two reports after the creation"
    );
}

/// A move by the player reported gone ends the absence.
async fn a_move_ends_a_reported_absence(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let game = game(&mut admin_client, 1).await;
    opening(&mut client, &game).await;
    admin_client
        .report_connection(admin(report(&game.id, Color::White, false)))
        .await
        .expect("White gone");
    let moved = seat(&mut client, &game.white, make_move(&game.id, 2, "Nf3"))
        .await
        .expect("White moves after all");
    assert_eq!(moved.white_left_time, None);
    tokio::time::sleep(Duration::from_millis(20)).await;
    let status = expect_code(
        seat(&mut client, &game.black, claim(&game.id)).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "OPPONENT_CONNECTED");
}

/// Reports are the platform's: they need the admin token, a colour and a
/// game in play.
async fn a_report_needs_the_admin_a_colour_and_a_game_in_play(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let game = game(&mut admin_client, 1).await;
    let status = expect_code(
        admin_client
            .report_connection(common::with_token(
                &game.black,
                report(&game.id, Color::White, false),
            ))
            .await,
        Code::PermissionDenied,
    );
    assert_eq!(reason(&status), "NOT_ADMIN");
    let status = expect_code(
        admin_client
            .report_connection(Request::new(report(&game.id, Color::White, false)))
            .await,
        Code::Unauthenticated,
    );
    assert_eq!(reason(&status), "MISSING_TOKEN");
    let status = expect_code(
        admin_client
            .report_connection(admin(report(&game.id, Color::Unspecified, false)))
            .await,
        Code::InvalidArgument,
    );
    assert_eq!(reason(&status), "INVALID_FIELD");
    let status = expect_code(
        admin_client
            .report_connection(admin(report("no-such-game", Color::White, false)))
            .await,
        Code::NotFound,
    );
    assert_eq!(reason(&status), "GAME_NOT_FOUND");
    seat(&mut client, &game.white, common::resign(&game.id))
        .await
        .expect("White resigns");
    let status = expect_code(
        admin_client
            .report_connection(admin(report(&game.id, Color::White, false)))
            .await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "GAME_OVER");
    let read = get(&mut client, &game.id).await;
    assert_eq!(read.white_left_time, None);
    assert_eq!(read.version, 2, "the creation and the resignation only");
}

on_every_backend!(
    a_player_gone_long_enough_loses_to_the_opponents_claim,
    a_claim_is_refused_without_the_rule_the_moves_or_the_report,
    a_move_ends_a_reported_absence,
    a_report_needs_the_admin_a_colour_and_a_game_in_play,
);
