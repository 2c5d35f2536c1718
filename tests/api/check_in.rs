//! Check-in and the default time over gRPC (FIDE 6.7.1): a player arrives
//! at the board by `CheckIn` or by a move; when the default time runs out
//! an absent player loses by forfeit, and both lose when neither arrived.
//! Games nobody touches are ended by the sweeper, so the deadline it
//! follows must account for presence too.
//!
//! Nothing here asserts how long anything took: waits only let a deadline
//! pass, with an overall limit so a failure never hangs.

use crate::common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arbiter::proto::{self, Color, GameStatus, Outcome, Termination, game_event::Kind};
use common::{
    AdminClient, Backend, Client, NewGame, TestApp, check_in, create, create_request, drain,
    expect_code, get, kinds, make_move, period, reason, resign, seat, seat_with_events, watch,
    with_token,
};
use tonic::{Code, Request};

/// The longest a test waits for the server to end a game by itself.
const PATIENCE: Duration = Duration::from_secs(20);

/// A protobuf timestamp `ms` milliseconds from now.
fn from_now(ms: u64) -> prost_types::Timestamp {
    let at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        + Duration::from_millis(ms);
    prost_types::Timestamp {
        seconds: i64::try_from(at.as_secs()).expect("seconds"),
        nanos: i32::try_from(at.subsec_nanos()).expect("nanos"),
    }
}

/// Sleeps until `ms` after `at`.
async fn sleep_until(at: prost_types::Timestamp, ms: u64) {
    let at = Duration::new(
        u64::try_from(at.seconds).expect("seconds"),
        u32::try_from(at.nanos).expect("nanos"),
    );
    if let Ok(left) =
        (UNIX_EPOCH + at + Duration::from_millis(ms)).duration_since(SystemTime::now())
    {
        tokio::time::sleep(left).await;
    }
}

/// A game with an hour each, starting `start_in_ms` from now, with a
/// default time of `default_ms`.
async fn scheduled(
    admin: &mut AdminClient,
    start_in_ms: u64,
    default_ms: i32,
) -> (NewGame, prost_types::Timestamp) {
    let start = from_now(start_in_ms);
    let request = proto::CreateGameRequest {
        time_control: Some(proto::TimeControl {
            periods: vec![period(3_600_000, 0, 0, 0)],
            ..Default::default()
        }),
        scheduled_start_time: Some(start),
        default_time_millis: default_ms,
        ..create_request("", "")
    };
    let game = create(admin, request).await.expect("create");
    (game, start)
}

/// Every event after `after_version` until the game ends by itself.
async fn events_until_the_end(
    client: &mut Client,
    game_id: &str,
    after_version: i32,
) -> Vec<proto::GameEvent> {
    let mut stream = watch(client, game_id, after_version).await;
    tokio::time::timeout(PATIENCE, drain(&mut stream))
        .await
        .expect("the game ends (and its stream closes) by itself")
}

#[track_caller]
fn assert_result(game: &proto::Game, outcome: Outcome, termination: Termination) {
    assert_eq!(game.status, GameStatus::Finished as i32, "{game:?}");
    let result = game.result.clone().expect("a finished game has a result");
    assert_eq!(result.outcome, outcome as i32, "{result:?}");
    assert_eq!(result.termination, termination as i32, "{result:?}");
}

#[track_caller]
fn assert_checked_in(events: &[proto::GameEvent], color: Color) {
    assert_eq!(kinds(events), ["player_checked_in"]);
    let Some(Kind::PlayerCheckedIn(checked)) = &events[0].kind else {
        unreachable!("checked by kind");
    };
    assert_eq!(checked.color, color as i32);
}

/// Black checks in; White makes the first move late in the default time.
/// Black, who could not move before White, is present and is not
/// forfeited when the default time runs out.
async fn check_in_then_a_late_white_move_does_not_forfeit_black(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let (game, start) = scheduled(&mut app.admin_client().await, 0, 2_000).await;
    let (checked, events) = seat_with_events(&mut client, &game.black, check_in(&game.id))
        .await
        .expect("Black checks in");
    assert_checked_in(&events, Color::Black);
    assert!(checked.black_present && !checked.white_present);

    sleep_until(start, 1_000).await;
    let moved = seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("White moves within the default time");
    assert!(moved.white_present && moved.black_present);
    // Well past the default time, the sweeper having had every chance.
    sleep_until(start, 3_000).await;
    let read = get(&mut client, &game.id).await;
    assert_eq!(read.status, GameStatus::Active as i32, "{read:?}");
    assert_eq!(read.version, moved.version, "nothing happened meanwhile");
    let answered = seat(&mut client, &game.black, make_move(&game.id, 1, "e5"))
        .await
        .expect("Black plays on");
    assert_eq!(answered.ply, 2);
}

/// Neither player checks in nor moves: when the default time runs out the
/// sweeper ends the game, and both lose.
async fn neither_present_at_the_default_time_is_a_double_forfeit(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let (game, _) = scheduled(&mut app.admin_client().await, 100, 300).await;
    let events = events_until_the_end(&mut client, &game.id, 1).await;
    assert_eq!(kinds(&events), ["game_ended"]);
    let read = get(&mut client, &game.id).await;
    assert_result(&read, Outcome::DoubleForfeit, Termination::NoShow);
    let score = common::score(&read);
    assert!(score.unplayed);
    assert_eq!(
        (score.white_points.as_str(), score.black_points.as_str()),
        ("0", "0")
    );
    assert!(!read.white_present && !read.black_present);
}

/// Only one player checks in: the other loses by forfeit, whichever colour.
async fn only_one_present_the_other_forfeits(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    for (present, winner) in [
        (Color::White, Outcome::WhiteWins),
        (Color::Black, Outcome::BlackWins),
    ] {
        let (game, _) = scheduled(&mut admin, 100, 600).await;
        let token = if present == Color::White {
            &game.white
        } else {
            &game.black
        };
        let (checked, _) = seat_with_events(&mut client, token, check_in(&game.id))
            .await
            .expect("checks in");
        let events = events_until_the_end(&mut client, &game.id, checked.version).await;
        assert_eq!(kinds(&events), ["game_ended"]);
        let read = get(&mut client, &game.id).await;
        assert_result(&read, winner, Termination::NoShow);
        assert!(common::score(&read).unplayed);
    }
}

/// A repeated check-in, or one by a seat that has already moved, changes
/// nothing and succeeds; check-in is allowed before the scheduled start.
async fn a_repeated_check_in_changes_nothing(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let (game, _) = scheduled(&mut app.admin_client().await, 60_000, 60_000).await;
    let mut stream = watch(&mut client, &game.id, 1).await;
    let (first, events) = seat_with_events(&mut client, &game.white, check_in(&game.id))
        .await
        .expect("White checks in before the start");
    assert_eq!(first.status, GameStatus::Pending as i32);
    assert_checked_in(&events, Color::White);
    assert_eq!(first.version, 2);
    assert!(first.white_present);
    let watched = tokio::time::timeout(PATIENCE, common::next_event(&mut stream))
        .await
        .expect("watchers hear of the check-in");
    assert_eq!(watched, events[0]);

    let (again, events) = seat_with_events(&mut client, &game.white, check_in(&game.id))
        .await
        .expect("a repeat succeeds");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(again.version, first.version);
    assert!(again.white_present);

    // An untimed game: White moves, then checks in: nothing to record.
    let untimed = create(&mut app.admin_client().await, create_request("", ""))
        .await
        .expect("create");
    let moved = seat(&mut client, &untimed.white, make_move(&untimed.id, 0, "e4"))
        .await
        .expect("White moves");
    assert!(moved.white_present && !moved.black_present);
    let (after, events) = seat_with_events(&mut client, &untimed.white, check_in(&untimed.id))
        .await
        .expect("a seat that moved is present already");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(after.version, moved.version);
}

/// Once the game is over a check-in is refused, and changes nothing.
async fn a_check_in_after_the_end_is_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    let resigned = seat(&mut client, &game.white, resign(&game.id))
        .await
        .expect("White resigns");
    for token in [&game.white, &game.black] {
        let refused = seat(&mut client, token, check_in(&game.id)).await;
        let status = expect_code(refused, Code::FailedPrecondition);
        assert_eq!(reason(&status), "GAME_OVER", "{status:?}");
    }
    assert_eq!(get(&mut client, &game.id).await.version, resigned.version);

    // Ended by the default time: the absent player cannot arrive later.
    let (late, _) = scheduled(&mut admin, 0, 200).await;
    let (checked, _) = seat_with_events(&mut client, &late.white, check_in(&late.id))
        .await
        .expect("White checks in");
    events_until_the_end(&mut client, &late.id, checked.version).await;
    let refused = seat(&mut client, &late.black, check_in(&late.id)).await;
    assert_eq!(
        reason(&expect_code(refused, Code::FailedPrecondition)),
        "GAME_OVER"
    );
    assert_result(
        &get(&mut client, &late.id).await,
        Outcome::WhiteWins,
        Termination::NoShow,
    );

    // An aborted game.
    let aborted = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    seat(&mut client, &aborted.black, common::abort(&aborted.id))
        .await
        .expect("abort");
    let refused = seat(&mut client, &aborted.black, check_in(&aborted.id)).await;
    assert_eq!(
        reason(&expect_code(refused, Code::FailedPrecondition)),
        "GAME_ABORTED"
    );
}

/// A check-in needs the token of one of the game's seats.
async fn a_check_in_needs_a_seat_token(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    let other = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    let refused = client
        .check_in(with_token(&other.white, check_in(&game.id)))
        .await;
    assert_eq!(
        reason(&expect_code(refused, Code::PermissionDenied)),
        "NOT_A_SEAT"
    );
    let refused = client.check_in(Request::new(check_in(&game.id))).await;
    assert_eq!(
        reason(&expect_code(refused, Code::Unauthenticated)),
        "MISSING_TOKEN"
    );
    let read = get(&mut client, &game.id).await;
    assert_eq!(read.version, 1, "a refusal changes nothing");
    assert!(!read.white_present && !read.black_present);
}

on_every_backend!(
    check_in_then_a_late_white_move_does_not_forfeit_black,
    neither_present_at_the_default_time_is_a_double_forfeit,
    only_one_present_the_other_forfeits,
    a_repeated_check_in_changes_nothing,
    a_check_in_after_the_end_is_refused,
    a_check_in_needs_a_seat_token,
);
