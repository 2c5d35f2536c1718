//! Chess clocks over gRPC, in real time with short controls: the controls a
//! game accepts and reports, what each move records, flags noticed on a
//! read, on a move and by the sweeper with nobody connected (exactly once
//! across replicas), the scheduled start and default time, the untimed
//! first moves of the online convention, flag adjudication (FIDE 6.9, USCF
//! 14E), a draw offer pending at the flag, the arbiter's clock controls,
//! claim penalties and `%clk` in PGN.
//!
//! Nothing here asserts how long anything took: waits only let a deadline
//! pass, and every wait for the server has a generous overall limit so a
//! failure never hangs.

use crate::common;

use std::{
    collections::HashMap,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use arbiter::{
    domain::{self, game::dead_position, on_flag},
    proto::{
        self, Color, DelayMode, DrawClaimReason, DrawClaimVerdict, GameStatus, Outcome, Pace,
        RulesProfile, Termination, game_event::Kind,
    },
};
use common::{
    AdminClient, Backend, Client, NewGame, TestApp, WatchKind, claim_draw, create, create_request,
    drain, drain_messages, expect_code, export_pgn, get, get_full, kinds, make_move,
    make_move_offering_draw, pairing, period, play_line, reason, seat, watch, with_token,
};
use tonic::{Code, Request, Status};
use tonic_types::StatusExt;

/// A control short enough for a flag to fall during a test.
pub(crate) const FLAG_MS: i32 = 300;
/// How long to sleep for a `FLAG_MS` deadline to have certainly passed.
const PAST_FLAG: Duration = Duration::from_millis(FLAG_MS as u64 + 250);
/// The longest a test waits for the server to do something by itself
/// (the sweeper runs every 50 ms; this only keeps failures from hanging).
const PATIENCE: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A control with simple delay (stated explicitly, so the game echoes it
/// unchanged).
fn control(periods: &[proto::TimeControlPeriod]) -> proto::TimeControl {
    proto::TimeControl {
        periods: periods.to_vec(),
        delay_mode: DelayMode::Simple.into(),
    }
}

pub(crate) fn sudden_death(time_ms: i32) -> proto::TimeControl {
    control(&[period(time_ms, 0, 0, 0)])
}

/// A CreateGame request from `fen` (empty: the standard start) with
/// `control` for both players.
pub(crate) fn timed(fen: &str, control: proto::TimeControl) -> proto::CreateGameRequest {
    proto::CreateGameRequest {
        time_control: Some(control),
        ..create_request("", fen)
    }
}

async fn create_ok(admin: &mut AdminClient, request: proto::CreateGameRequest) -> NewGame {
    create(admin, request).await.expect("create a timed game")
}

#[track_caller]
fn clock(game: &proto::Game) -> proto::ClockState {
    game.clock.expect("a timed game shows its clock")
}

/// The clocks of a timed game, as its setup holds them.
#[track_caller]
fn timing(game: &proto::Game) -> &proto::Timing {
    common::setup(game)
        .timing
        .as_ref()
        .expect("a timed game has timing")
}

/// The side whose clock runs, `None` when none does.
fn running(state: &proto::ClockState) -> Option<Color> {
    state
        .running
        .map(|color| Color::try_from(color).expect("a known colour"))
}

/// A protobuf timestamp `ms` milliseconds from now, in whole milliseconds.
fn from_now(ms: u64) -> prost_types::Timestamp {
    let at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as u64
        + ms;
    prost_types::Timestamp {
        seconds: (at / 1000) as i64,
        nanos: ((at % 1000) * 1_000_000) as i32,
    }
}

/// `message`, with `Bearer token` when a token is given.
fn authorized<T>(message: T, token: Option<&str>) -> Request<T> {
    match token {
        Some(token) => with_token(token, message),
        None => Request::new(message),
    }
}

/// An adjustment without a request id.
fn adjustment(game_id: &str, color: Color, delta: i32, why: &str) -> proto::AdjustClockRequest {
    proto::AdjustClockRequest {
        request_id: String::new(),
        game_id: game_id.to_owned(),
        color: color.into(),
        delta_millis: delta,
        reason: why.to_owned(),
        players_request: false,
    }
}

/// A pause without a request id.
fn pausing(game_id: &str, why: &str) -> proto::PauseClockRequest {
    proto::PauseClockRequest {
        request_id: String::new(),
        game_id: game_id.to_owned(),
        reason: why.to_owned(),
    }
}

/// A resumption without a request id.
fn resuming(game_id: &str, why: &str) -> proto::ResumeClockRequest {
    proto::ResumeClockRequest {
        request_id: String::new(),
        game_id: game_id.to_owned(),
        reason: why.to_owned(),
    }
}

async fn adjust_clock(
    admin: &mut AdminClient,
    request: proto::AdjustClockRequest,
    token: Option<&str>,
) -> Result<proto::AdjustClockResponse, Status> {
    admin
        .adjust_clock(authorized(request, token))
        .await
        .map(tonic::Response::into_inner)
}

async fn pause_clock(
    admin: &mut AdminClient,
    request: proto::PauseClockRequest,
    token: Option<&str>,
) -> Result<proto::PauseClockResponse, Status> {
    admin
        .pause_clock(authorized(request, token))
        .await
        .map(tonic::Response::into_inner)
}

async fn resume_clock(
    admin: &mut AdminClient,
    request: proto::ResumeClockRequest,
    token: Option<&str>,
) -> Result<proto::ResumeClockResponse, Status> {
    admin
        .resume_clock(authorized(request, token))
        .await
        .map(tonic::Response::into_inner)
}

async fn adjust(
    admin: &mut AdminClient,
    game_id: &str,
    color: Color,
    delta: i32,
    why: &str,
    token: Option<&str>,
) -> Result<proto::Game, Status> {
    adjust_clock(admin, adjustment(game_id, color, delta, why), token)
        .await
        .map(|r| *r.game.expect("game in response"))
}

async fn pause(
    admin: &mut AdminClient,
    game_id: &str,
    why: &str,
    token: Option<&str>,
) -> Result<proto::Game, Status> {
    pause_clock(admin, pausing(game_id, why), token)
        .await
        .map(|r| *r.game.expect("game in response"))
}

async fn resume(
    admin: &mut AdminClient,
    game_id: &str,
    why: &str,
    token: Option<&str>,
) -> Result<proto::Game, Status> {
    resume_clock(admin, resuming(game_id, why), token)
        .await
        .map(|r| *r.game.expect("game in response"))
}

const ADMIN: Option<&str> = Some(common::ADMIN_TOKEN);

/// Asserts `code` with `expected_reason`.
#[track_caller]
fn assert_refused<T: std::fmt::Debug>(
    result: Result<T, Status>,
    code: Code,
    expected_reason: &str,
) -> Status {
    let status = expect_code(result, code);
    assert_eq!(reason(&status), expected_reason, "{status:?}");
    status
}

/// Asserts INVALID_ARGUMENT naming `field` in its BadRequest detail.
#[track_caller]
fn assert_invalid_field<T: std::fmt::Debug>(result: Result<T, Status>, field: &str) {
    let status = assert_refused(result, Code::InvalidArgument, "INVALID_FIELD");
    let bad = status
        .get_details_bad_request()
        .expect("a BadRequest detail");
    assert_eq!(bad.field_violations[0].field, field, "{status:?}");
}

/// The `ErrorInfo.metadata` of a status.
fn metadata(status: &Status) -> HashMap<String, String> {
    status
        .get_details_error_info()
        .map(|info| info.metadata)
        .unwrap_or_default()
}

#[track_caller]
fn assert_result(game: &proto::Game, outcome: Outcome, termination: Termination) {
    assert_eq!(game.status, GameStatus::Finished as i32, "{game:?}");
    let result = game.result.clone().expect("a finished game has a result");
    assert_eq!(result.outcome, outcome as i32, "{result:?}");
    assert_eq!(result.termination, termination as i32, "{result:?}");
    let clock = clock(game);
    assert_eq!(
        clock.running, None,
        "no clock runs once the game is over: {clock:?}"
    );
}

#[track_caller]
fn assert_ended_with(event: &proto::GameEvent, outcome: Outcome, termination: Termination) {
    let Some(Kind::GameEnded(ended)) = &event.kind else {
        panic!("not a game_ended event: {event:?}");
    };
    let result = ended.result.clone().expect("result");
    assert_eq!(result.outcome, outcome as i32, "{result:?}");
    assert_eq!(result.termination, termination as i32, "{result:?}");
    let clock = event.clock.expect("a timed game's events carry the clock");
    assert_eq!(clock.running, None, "{clock:?}");
}

/// Every event left on `stream` until the server closes it after the
/// game's final event, which must come within [`PATIENCE`] without anyone
/// reading or writing the game.
async fn until_the_end(
    stream: &mut tonic::Streaming<proto::WatchGameResponse>,
) -> Vec<proto::GameEvent> {
    tokio::time::timeout(PATIENCE, drain(stream))
        .await
        .expect("the game ends (and its stream closes) by itself")
}

/// Like [`until_the_end`] for a watch from version 0: the snapshot it
/// starts with, then every event.
async fn snapshot_until_the_end(
    stream: &mut tonic::Streaming<proto::WatchGameResponse>,
) -> (proto::Game, Vec<proto::GameEvent>) {
    let messages = tokio::time::timeout(PATIENCE, drain_messages(stream))
        .await
        .expect("the game ends (and its stream closes) by itself");
    let mut messages = messages.into_iter();
    let Some(WatchKind::Snapshot(snapshot)) = messages.next() else {
        panic!("a watch from version 0 starts with a snapshot");
    };
    let events = messages
        .map(|message| match message {
            WatchKind::Event(event) => event,
            other => panic!("only events follow the snapshot: {other:?}"),
        })
        .collect();
    (snapshot, events)
}

// ---------------------------------------------------------------------------
// Controls accepted and reported
// ---------------------------------------------------------------------------

async fn typical_controls_are_accepted_and_reported(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;

    // 90 minutes for 40 moves, then 30 minutes, 30 s increment from move 1.
    let classical = control(&[
        period(5_400_000, 40, 30_000, 0),
        period(1_800_000, 0, 30_000, 0),
    ]);
    let game = create_ok(&mut admin, timed("", classical.clone())).await;
    for shown in [game.game.clone(), get(&mut client, &game.id).await] {
        let timing = timing(&shown);
        assert_eq!(timing.pace, Pace::Standard as i32);
        assert_eq!(timing.white.as_ref(), Some(&classical));
        assert_eq!(timing.black.as_ref(), Some(&classical));
        assert!(!timing.clock_starts_after_first_moves);
        let clock = clock(&shown);
        assert_eq!(clock.white_moves_left, 40);
        assert_eq!(clock.black_moves_left, 40);
        assert_eq!((clock.white_period, clock.black_period), (0, 0));
        assert_eq!(running(&clock), Some(Color::White), "White's clock runs");
        assert!(!clock.paused);
        assert_eq!(clock.black_millis, 5_400_000);
        assert!(clock.white_millis <= 5_400_000);
        assert_eq!(clock.delay_left_millis, 0);
        assert!(clock.read_time.is_some());
    }

    // 5 minutes + 3 s: 5 + 60 × 3 s = 8 minutes, blitz.
    let blitz = control(&[period(300_000, 0, 3_000, 0)]);
    let game = create_ok(&mut admin, timed("", blitz.clone())).await;
    assert_eq!(timing(&game.game).pace, Pace::Blitz as i32);
    assert_eq!(timing(&game.game).white.as_ref(), Some(&blitz));
    assert_eq!(clock(&game.game).white_moves_left, 0, "rest of the game");

    // 15 minutes + 10 s: rapid.
    let rapid = control(&[period(900_000, 0, 10_000, 0)]);
    let game = create_ok(&mut admin, timed("", rapid)).await;
    assert_eq!(timing(&game.game).pace, Pace::Rapid as i32);

    // G/60;d5 simple delay: standard, the delay shown while White's runs.
    let g60d5 = control(&[period(3_600_000, 0, 0, 5_000)]);
    let game = create_ok(&mut admin, timed("", g60d5.clone())).await;
    let shown = get(&mut client, &game.id).await;
    assert_eq!(timing(&shown).pace, Pace::Standard as i32);
    assert_eq!(timing(&shown).white.as_ref(), Some(&g60d5));
    let state = clock(&shown);
    assert!(
        state.delay_left_millis > 0 && state.delay_left_millis <= 5_000,
        "{state:?}"
    );
    // Consistency of one view: within the delay nothing is charged.
    assert_eq!(state.white_millis, 3_600_000, "{state:?}");
    let moved = seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("e4");
    let record = moved.last_move.clone().expect("the move is recorded");
    let charged = record.time_spent_millis.saturating_sub(5_000).max(0);
    assert_eq!(record.clock_millis, 3_600_000 - charged, "{record:?}");
    // Black's delay now runs.
    let state = clock(&moved);
    assert_eq!(running(&state), Some(Color::Black));
    assert!(state.delay_left_millis > 0, "{state:?}");

    // Bronstein 3 s: the time used, up to the delay, is given back.
    let bronstein = proto::TimeControl {
        periods: vec![period(180_000, 0, 0, 3_000)],
        delay_mode: DelayMode::Bronstein.into(),
    };
    let game = create_ok(&mut admin, timed("", bronstein.clone())).await;
    assert_eq!(timing(&game.game).pace, Pace::Blitz as i32);
    assert_eq!(timing(&game.game).white.as_ref(), Some(&bronstein));
    assert_eq!(
        clock(&game.game).delay_left_millis,
        0,
        "Bronstein shows no delay"
    );
    let moved = seat(&mut client, &game.white, make_move(&game.id, 0, "d4"))
        .await
        .expect("d4");
    let record = moved.last_move.clone().expect("the move is recorded");
    let spent = record.time_spent_millis;
    assert_eq!(
        record.clock_millis,
        180_000 - spent + spent.min(3_000),
        "{record:?}"
    );

    // Time odds: 5 minutes against 4.
    let mut request = timed("", sudden_death(300_000));
    request.black_time_control = Some(sudden_death(240_000));
    let game = create_ok(&mut admin, request).await;
    let shown = get(&mut client, &game.id).await;
    assert_eq!(timing(&shown).white, Some(sudden_death(300_000)));
    assert_eq!(timing(&shown).black, Some(sudden_death(240_000)));
    let state = clock(&shown);
    assert_eq!(state.black_millis, 240_000);
    assert!(state.white_millis <= 300_000 && state.white_millis > state.black_millis);
    assert_eq!(timing(&shown).pace, Pace::Blitz as i32);

    // An untimed game shows no clock and no timing at all.
    let untimed = app.new_game().await;
    assert!(untimed.game.clock.is_none());
    assert!(common::setup(&untimed.game).timing.is_none());
    let read = get(&mut client, &untimed.id).await;
    assert!(read.clock.is_none());
    assert!(common::setup(&read).timing.is_none());
}

async fn malformed_controls_are_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let day = 24 * 60 * 60 * 1000;
    let bad_controls = [
        ("no period", control(&[])),
        ("nothing on the clock", control(&[period(0, 0, 2_000, 0)])),
        (
            "a period after the rest of the game",
            control(&[period(600_000, 0, 0, 0), period(300_000, 0, 0, 0)]),
        ),
        ("longer than a day", control(&[period(day + 1, 0, 0, 0)])),
        (
            "an increment longer than a day",
            control(&[period(60_000, 0, day + 1, 0)]),
        ),
        ("negative time", control(&[period(-1, 0, 0, 0)])),
        (
            "a negative increment",
            control(&[period(60_000, 0, -1_000, 0)]),
        ),
    ];
    for (what, bad) in &bad_controls {
        let result = create(&mut admin, timed("", bad.clone())).await;
        assert!(result.is_err(), "{what} was accepted");
        assert_invalid_field(result, "time_control");
        // The same for Black's own control.
        let mut request = timed("", sudden_death(60_000));
        request.black_time_control = Some(bad.clone());
        assert_invalid_field(create(&mut admin, request).await, "black_time_control");
    }

    let mut request = create_request("", "");
    request.black_time_control = Some(sudden_death(60_000));
    assert_invalid_field(create(&mut admin, request).await, "black_time_control");

    let mut request = create_request("", "");
    request.clock_starts_after_first_moves = true;
    assert_invalid_field(
        create(&mut admin, request).await,
        "clock_starts_after_first_moves",
    );

    let mut request = timed("", sudden_death(60_000));
    request.scheduled_start_time = Some(from_now(60_000));
    request.default_time_millis = -1;
    assert_invalid_field(create(&mut admin, request).await, "default_time_millis");
}

/// A default time counts from a scheduled start (FIDE 6.7): without one it
/// is refused, and the refusal names the request's field.
async fn a_default_time_needs_a_scheduled_start(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut request = timed("", sudden_death(60_000));
    request.default_time_millis = 60_000;
    assert_invalid_field(create(&mut admin, request).await, "default_time_millis");
}

// ---------------------------------------------------------------------------
// What moves record
// ---------------------------------------------------------------------------

async fn moves_record_their_time_and_the_increment(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let game = create_ok(
        &mut admin,
        timed("", control(&[period(300_000, 0, 3_000, 0)])),
    )
    .await;
    let mut stream = watch(&mut client, &game.id, 0).await;
    assert_eq!(running(&clock(&game.game)), Some(Color::White));

    // Remaining time before each side's next move.
    let (mut white_before, mut black_before) = (300_000, 300_000);
    let mut current = game.game.clone();
    let mut records = Vec::new();
    for mv in ["e4", "c5", "Nf3", "d6", "d4"] {
        let mover = current.side_to_move;
        let token = common::token_to_move(&game, &current);
        current = seat(&mut client, token, make_move(&game.id, current.ply, mv))
            .await
            .unwrap_or_else(|status| panic!("{mv}: {status:?}"));
        let record = current.last_move.clone().expect("the move is recorded");
        assert_eq!(record.color, mover);
        assert_eq!(record.ply + 1, current.ply);
        let before = if mover == Color::White as i32 {
            &mut white_before
        } else {
            &mut black_before
        };
        // Charged exactly the thinking time, then credited the increment.
        let spent = record.time_spent_millis;
        assert_eq!(record.clock_millis, *before - spent + 3_000, "{record:?}");
        if spent < 3_000 {
            assert!(record.clock_millis > *before, "a quick move gains time");
        }
        *before = record.clock_millis;

        // The clock now runs for the other side; the mover's stands still
        // at what the move recorded.
        let state = clock(&current);
        assert_eq!(state.running, Some(current.side_to_move), "{state:?}");
        assert_ne!(state.running, Some(mover));
        let standing = if mover == Color::White as i32 {
            state.white_millis
        } else {
            state.black_millis
        };
        assert_eq!(standing, record.clock_millis);
        records.push(record);
    }
    // The stored game carries the same records.
    let stored = get_full(&mut client, &game.id).await;
    assert_eq!(stored.moves, records);
    assert_eq!(running(&clock(&stored)), Some(Color::Black));

    common::seat(&mut client, &game.black, common::resign(&game.id))
        .await
        .expect("resign");
    let (snapshot, events) = snapshot_until_the_end(&mut stream).await;
    let state = clock(&snapshot);
    assert!(state.read_time.is_some(), "{state:?}");
    assert_eq!(
        kinds(&events),
        [
            "move_made",
            "move_made",
            "move_made",
            "move_made",
            "move_made",
            "game_ended"
        ]
    );
    for event in &events {
        let state = event
            .clock
            .unwrap_or_else(|| panic!("every event of a timed game carries the clock: {event:?}"));
        assert_eq!(state.read_time, event.event_time);
        if let Some(Kind::MoveMade(made)) = &event.kind {
            assert_eq!(state.running, Some(made.side_to_move));
            let record = made.r#move.as_ref().expect("record");
            assert_eq!(record, &stored.moves[record.ply as usize]);
            assert_eq!(made.ply, record.ply + 1);
        }
    }
    let Some(Kind::MoveMade(last)) = &events[4].kind else {
        unreachable!()
    };
    assert_eq!(last.fen, stored.fen, "the event carries the position after");
    assert_eq!(
        events.last().and_then(|e| e.clock).map(|c| c.running),
        Some(None)
    );
}

// ---------------------------------------------------------------------------
// Flags
// ---------------------------------------------------------------------------

async fn a_flag_is_noticed_on_read(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = create_ok(
        &mut app.admin_client().await,
        timed("", sudden_death(FLAG_MS)),
    )
    .await;
    assert_eq!(game.game.status, GameStatus::Active as i32);
    tokio::time::sleep(PAST_FLAG).await;

    let read = get(&mut client, &game.id).await;
    assert_result(&read, Outcome::BlackWins, Termination::Timeout);
    let state = clock(&read);
    assert!(state.white_millis <= 0, "{state:?}");
    assert_eq!(state.black_millis, FLAG_MS);
    assert_eq!(read.ply, 0);
    assert!(read.last_move.is_none());
    assert!(get_full(&mut client, &game.id).await.moves.is_empty());
    assert!(read.legal_moves.is_empty());
    assert_eq!(read.version, 2, "created, then ended once");
    // Reading again changes nothing.
    let again = get(&mut client, &game.id).await;
    assert_eq!(again.version, 2);
    assert_eq!(again.result, read.result);
    assert_eq!(again.clock, read.clock, "a finished game's clock is frozen");
}

async fn a_move_after_the_flag_is_refused_and_the_game_ends_on_time(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;

    // White's flag falls before White's first move.
    let game = create_ok(&mut admin, timed("", sudden_death(FLAG_MS))).await;
    tokio::time::sleep(PAST_FLAG).await;
    assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 0, "e4")).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    let after = get_full(&mut client, &game.id).await;
    assert_result(&after, Outcome::BlackWins, Termination::Timeout);
    assert!(after.moves.is_empty(), "no move is recorded after the flag");
    assert!(after.last_move.is_none());
    assert_eq!(after.ply, 0);

    // Black's, on time odds, after White's move started it.
    let mut request = timed("", sudden_death(60_000));
    request.black_time_control = Some(sudden_death(FLAG_MS));
    let game = create_ok(&mut admin, request).await;
    seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("White moves in time");
    tokio::time::sleep(PAST_FLAG).await;
    assert_refused(
        seat(&mut client, &game.black, make_move(&game.id, 1, "e5")).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    let after = get_full(&mut client, &game.id).await;
    assert_result(&after, Outcome::WhiteWins, Termination::Timeout);
    assert_eq!(after.moves.len(), 1);
    assert_eq!(after.ply, 1);
    assert!(clock(&after).black_millis <= 0);
}

/// Nobody reads or writes the game after creating it: the sweeper ends it
/// and the watcher hears of it.
async fn the_sweeper_ends_an_unattended_game(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = create_ok(
        &mut app.admin_client().await,
        timed("", sudden_death(FLAG_MS)),
    )
    .await;
    let mut stream = watch(&mut client, &game.id, 0).await;

    let (snapshot, events) = snapshot_until_the_end(&mut stream).await;
    assert!(snapshot.clock.is_some());
    assert_eq!(kinds(&events), ["game_ended"]);
    assert_ended_with(&events[0], Outcome::BlackWins, Termination::Timeout);
    assert_eq!(events[0].version, 2);
    assert_eq!(events[0].game_id, game.id);
    assert!(events[0].clock.expect("clock").white_millis <= 0);
    let read = get(&mut client, &game.id).await;
    assert_result(&read, Outcome::BlackWins, Termination::Timeout);
    assert_eq!(read.version, 2);
}

/// The sweeper follows the clock as the game goes on: after White's move
/// the deadline is Black's flag, which here falls long before White's
/// would have.
async fn the_sweeper_follows_the_clock_after_a_move(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut request = timed("", sudden_death(60_000));
    request.black_time_control = Some(sudden_death(FLAG_MS));
    let game = create_ok(&mut app.admin_client().await, request).await;
    let mut stream = watch(&mut client, &game.id, 1).await;
    seat(&mut client, &game.white, make_move(&game.id, 0, "Nf3"))
        .await
        .expect("White moves in time");

    let events = until_the_end(&mut stream).await;
    assert_eq!(kinds(&events), ["move_made", "game_ended"]);
    assert_ended_with(&events[1], Outcome::WhiteWins, Termination::Timeout);
}

async fn until_finished(client: &mut Client, game_id: &str) -> proto::Game {
    tokio::time::timeout(PATIENCE, async {
        loop {
            let game = get(client, game_id).await;
            if game.status != GameStatus::Active as i32 {
                return game;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the game ends on time")
}

/// Two servers share one Redis; both sweep, and clients read through both
/// while the flags fall. Every game still ends exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_end_each_flagged_game_exactly_once() {
    let first = TestApp::spawn(Backend::Redis).await;
    // Same Redis, same key prefix.
    let second = TestApp::spawn_with(first.settings.clone(), None).await;
    let mut client = first.client().await;
    let mut admin = first.admin_client().await;
    let mut games = Vec::new();
    for i in 0..10 {
        let request = timed("", sudden_death(200 + 40 * i));
        games.push(create_ok(&mut admin, request).await);
    }
    // Half the games are read through both replicas until they end, racing
    // the two sweepers; the others are left to the sweepers alone.
    let mut readers = Vec::new();
    for game in games.iter().step_by(2) {
        for app in [&first, &second] {
            let mut reader = app.client().await;
            let id = game.id.clone();
            readers.push(tokio::spawn(async move {
                until_finished(&mut reader, &id).await
            }));
        }
    }
    for reader in readers {
        let ended = reader.await.expect("reader task");
        assert_result(&ended, Outcome::BlackWins, Termination::Timeout);
    }
    let mut on_second = second.client().await;
    for game in games.iter().skip(1).step_by(2) {
        let mut stream = watch(&mut on_second, &game.id, 1).await;
        until_the_end(&mut stream).await;
    }

    for (i, game) in games.iter().enumerate() {
        let watcher = if i % 2 == 0 {
            &mut client
        } else {
            &mut on_second
        };
        let mut stream = watch(watcher, &game.id, 1).await;
        let events = until_the_end(&mut stream).await;
        let versions: Vec<i32> = events.iter().map(|e| e.version).collect();
        let expected: Vec<i32> = (2..).take(events.len()).collect();
        assert_eq!(versions, expected);
        let endings = events
            .iter()
            .filter(|e| matches!(e.kind, Some(Kind::GameEnded(_))))
            .count();
        assert_eq!(endings, 1, "game {i}: {:?}", kinds(&events));
        assert_eq!(kinds(&events), ["game_ended"], "game {i}");
        assert_ended_with(&events[0], Outcome::BlackWins, Termination::Timeout);
        for reader in [&mut client, &mut on_second] {
            let read = get(reader, &game.id).await;
            assert_eq!(read.version, 2, "game {i}");
            assert_result(&read, Outcome::BlackWins, Termination::Timeout);
        }
    }
}

// ---------------------------------------------------------------------------
// Scheduled start, default time, untimed first moves
// ---------------------------------------------------------------------------

async fn a_player_who_does_not_show_up_forfeits(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;

    // Black checks in, White never shows up: White forfeits.
    let start = from_now(200);
    let mut request = timed("", sudden_death(60_000));
    request.scheduled_start_time = Some(start);
    request.default_time_millis = 300;
    let game = create_ok(&mut admin, request).await;
    assert_eq!(common::setup(&game.game).scheduled_start_time, Some(start));
    assert_eq!(common::setup(&game.game).default_time_millis, 300);
    seat(&mut client, &game.black, common::check_in(&game.id))
        .await
        .expect("Black checks in");
    let mut stream = watch(&mut client, &game.id, 0).await;
    let (_, events) = snapshot_until_the_end(&mut stream).await;
    assert_eq!(kinds(&events), ["game_ended"]);
    assert_ended_with(&events[0], Outcome::BlackWins, Termination::NoShow);
    let read = get(&mut client, &game.id).await;
    assert_result(&read, Outcome::BlackWins, Termination::NoShow);
    assert!(clock(&read).white_millis > 0, "a forfeit, not a flag");
    assert!(common::score(&read).unplayed);

    // White shows up and moves; Black never does.
    let mut request = timed("", sudden_death(60_000));
    request.scheduled_start_time = Some(from_now(100));
    request.default_time_millis = 1_500;
    let game = create_ok(&mut admin, request).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let moved = seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("White moves within the default time");
    let mut stream = watch(&mut client, &game.id, moved.version).await;
    let events = until_the_end(&mut stream).await;
    assert_eq!(kinds(&events), ["game_ended"]);
    assert_ended_with(&events[0], Outcome::WhiteWins, Termination::NoShow);
    let read = get_full(&mut client, &game.id).await;
    assert_result(&read, Outcome::WhiteWins, Termination::NoShow);
    assert_eq!(read.moves.len(), 1);
}

/// While the arbiter has the clock paused, the default time stands still:
/// nobody forfeits for not showing up, and after the resumption the player
/// still has the default time that was left at the pause.
async fn the_default_time_stands_still_while_paused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let mut request = timed("", sudden_death(60_000));
    request.scheduled_start_time = Some(from_now(0));
    request.default_time_millis = 3_000;
    let game = create_ok(&mut admin, request).await;
    pause_clock(&mut admin, pausing(&game.id, "hall evacuated"), ADMIN)
        .await
        .expect("paused before White's first move");
    // Well past the default time: still in play, moves refused as paused.
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    let read = get(&mut client, &game.id).await;
    assert_eq!(read.status, GameStatus::Active as i32, "{read:?}");
    let paused = seat(&mut client, &game.white, make_move(&game.id, 0, "e4")).await;
    assert_eq!(
        reason(&expect_code(paused, Code::FailedPrecondition)),
        "CLOCK_PAUSED"
    );
    resume_clock(&mut admin, resuming(&game.id, "back in the hall"), ADMIN)
        .await
        .expect("resumed: the game did not end");
    let moved = seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("White moves in the default time left");
    assert_eq!(moved.ply, 1);
}

async fn the_clock_waits_for_the_scheduled_start(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    // A control that would have flagged long before the start.
    let start = from_now(60_000);
    let mut request = timed("", sudden_death(FLAG_MS));
    request.scheduled_start_time = Some(start);
    let game = create_ok(&mut app.admin_client().await, request).await;
    tokio::time::sleep(PAST_FLAG).await;
    let read = get(&mut client, &game.id).await;
    assert_eq!(read.status, GameStatus::Pending as i32);
    assert_eq!(common::setup(&read).scheduled_start_time, Some(start));
    assert_eq!(common::setup(&read).default_time_millis, 0);
    let state = clock(&read);
    assert_eq!(state.white_millis, FLAG_MS, "full time until the start");
    assert_eq!(state.black_millis, FLAG_MS);
    assert_eq!(state.running, None, "no clock runs yet");
    // Nobody may move before the start.
    let early = seat(&mut client, &game.white, make_move(&game.id, 0, "e4")).await;
    let status = expect_code(early, Code::FailedPrecondition);
    assert_eq!(reason(&status), "NOT_STARTED");
    let after = get(&mut client, &game.id).await;
    assert_eq!(after.ply, 0);
    assert_eq!(after.version, 1, "a refusal changes nothing");
}

/// The scheduled start of a game as an RFC 3339 text, read back.
fn parse_rfc3339(text: &str) -> prost_types::Timestamp {
    text.parse()
        .unwrap_or_else(|err| panic!("'{text}' is not an RFC 3339 time: {err:?}"))
}

/// A game is pending until its scheduled start, in every read (the game,
/// the list of its event, the creation's response) and for every move;
/// then it is active without anyone touching it.
async fn a_game_is_pending_until_its_scheduled_start(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Pending {start} – ⏳";

    // Far in the future: pending in every read, however slow the test.
    let start = from_now(60_000);
    let mut request = timed("", sudden_death(60_000));
    request.pairing = Some(pairing(event, 1, 1));
    request.scheduled_start_time = Some(start);
    let later = create_ok(&mut admin, request).await;
    assert_eq!(later.game.status, GameStatus::Pending as i32);
    let read = get(&mut client, &later.id).await;
    assert_eq!(read.status, GameStatus::Pending as i32);
    assert_eq!(read.side_to_move, Color::White as i32);
    assert!(!read.legal_moves.is_empty(), "the position is there to see");
    assert_eq!(clock(&read).running, None);
    let listed = list(&mut client, event, GameStatus::Unspecified).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].game_id, later.id);
    assert_eq!(listed[0].status, GameStatus::Pending as i32);
    let pending = list(&mut client, event, GameStatus::Pending).await;
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].game_id, later.id);
    assert!(
        list(&mut client, event, GameStatus::Active)
            .await
            .is_empty()
    );

    // A move before the start is refused, saying when the game starts.
    let status = assert_refused(
        seat(&mut client, &later.white, make_move(&later.id, 0, "e4")).await,
        Code::FailedPrecondition,
        "NOT_STARTED",
    );
    let info = metadata(&status);
    let start_time = info.get("start_time").expect("start_time in the metadata");
    assert_eq!(parse_rfc3339(start_time), start, "{info:?}");
    assert_eq!(info.get("ply").map(String::as_str), Some("0"), "{info:?}");
    assert_eq!(
        info.get("side_to_move").map(String::as_str),
        Some("white"),
        "{info:?}"
    );
    // So is a claim.
    assert_refused(
        seat(
            &mut client,
            &later.white,
            claim_draw(&later.id, DrawClaimReason::ThreefoldRepetition, "", 0),
        )
        .await,
        Code::FailedPrecondition,
        "NOT_STARTED",
    );
    let after = get(&mut client, &later.id).await;
    assert_eq!(after.version, 1, "the refusals changed nothing");
    assert_eq!(after.status, GameStatus::Pending as i32);

    // Soon: pending when created, then active once the start has passed,
    // noticed by a read alone. The reads are bounded, not timed.
    let mut request = timed("", sudden_death(60_000));
    request.pairing = Some(pairing(event, 1, 2));
    request.scheduled_start_time = Some(from_now(400));
    let soon = create_ok(&mut admin, request).await;
    assert_eq!(soon.game.status, GameStatus::Pending as i32);
    let mut seen = Vec::new();
    let active = tokio::time::timeout(PATIENCE, async {
        loop {
            let game = get(&mut client, &soon.id).await;
            seen.push(game.status);
            if game.status != GameStatus::Pending as i32 {
                return game;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    })
    .await
    .expect("the game starts at its scheduled time");
    assert_eq!(active.status, GameStatus::Active as i32, "{seen:?}");
    assert_eq!(active.version, 1, "starting is no event");
    assert_eq!(running(&clock(&active)), Some(Color::White));
    let listed = list(&mut client, event, GameStatus::Active).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].game_id, soon.id);
    let pending = list(&mut client, event, GameStatus::Pending).await;
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].game_id, later.id);
    let moved = seat(&mut client, &soon.white, make_move(&soon.id, 0, "e4"))
        .await
        .expect("a move once the game has started");
    assert_eq!(moved.status, GameStatus::Active as i32);
    assert_eq!(moved.ply, 1);
}

/// Every game of `event` with `status` (all when unspecified), in one page.
async fn list(client: &mut Client, event: &str, status: GameStatus) -> Vec<proto::Game> {
    let page = client
        .list_games(proto::ListGamesRequest {
            event_id: event.to_owned(),
            status: status.into(),
            ..Default::default()
        })
        .await
        .expect("list games")
        .into_inner();
    assert_eq!(page.next_page_token, "", "one page holds them all");
    page.games
}

async fn the_clock_starts_after_both_first_moves_when_asked(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut request = timed("", sudden_death(FLAG_MS));
    request.clock_starts_after_first_moves = true;
    let game = create_ok(&mut app.admin_client().await, request).await;
    assert!(timing(&game.game).clock_starts_after_first_moves);
    assert_eq!(clock(&game.game).running, None);

    // Neither first move is timed, however long it takes.
    tokio::time::sleep(PAST_FLAG).await;
    let white = seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("White's untimed first move");
    assert_eq!(clock(&white).running, None);
    tokio::time::sleep(PAST_FLAG).await;
    let mut stream = watch(&mut client, &game.id, white.version).await;
    let black = seat(&mut client, &game.black, make_move(&game.id, 1, "e5"))
        .await
        .expect("Black's untimed first move");
    let both = get_full(&mut client, &game.id).await;
    assert_eq!(both.moves.len(), 2);
    for record in &both.moves {
        assert_eq!(record.time_spent_millis, 0, "{record:?}");
        assert_eq!(record.clock_millis, FLAG_MS, "{record:?}");
    }
    // Black's first move started White's clock.
    let state = clock(&black);
    assert_eq!(running(&state), Some(Color::White), "{state:?}");
    assert_eq!(state.black_millis, FLAG_MS);

    // Left alone, White's flag falls; the sweeper must notice.
    let events = until_the_end(&mut stream).await;
    assert_eq!(kinds(&events), ["move_made", "game_ended"]);
    assert_ended_with(&events[1], Outcome::BlackWins, Termination::Timeout);
    let read = get_full(&mut client, &game.id).await;
    assert_result(&read, Outcome::BlackWins, Termination::Timeout);
    assert_eq!(read.moves.len(), 2);
}

// ---------------------------------------------------------------------------
// Flag adjudication
// ---------------------------------------------------------------------------

struct FlagCase {
    name: &'static str,
    fen: &'static str,
    profile: RulesProfile,
    outcome: Outcome,
    termination: Termination,
}

const fn case(
    name: &'static str,
    fen: &'static str,
    profile: RulesProfile,
    outcome: Outcome,
    termination: Termination,
) -> FlagCase {
    FlagCase {
        name,
        fen,
        profile,
        outcome,
        termination,
    }
}

/// In each position the side to move lets its flag fall.
const FLAG_CASES: [FlagCase; 10] = [
    case(
        "a lone king cannot win on time",
        "8/8/4k3/8/8/3K4/8/7R w - - 0 1",
        RulesProfile::Fide,
        Outcome::Draw,
        Termination::TimeoutVsInsufficientMaterial,
    ),
    case(
        "K+N can be helpmated by K+P: FIDE gives the win",
        "8/8/4k3/8/8/3K4/7P/6n1 w - - 0 1",
        RulesProfile::Fide,
        Outcome::BlackWins,
        Termination::Timeout,
    ),
    case(
        "a lone knight draws on time under USCF 14E",
        "8/8/4k3/8/8/3K4/7P/6n1 w - - 0 1",
        RulesProfile::Uscf,
        Outcome::Draw,
        Termination::TimeoutVsInsufficientMaterial,
    ),
    case(
        "opposite-coloured bishops can mate",
        "8/8/4k3/2b5/8/3K4/2B5/8 w - - 0 1",
        RulesProfile::Fide,
        Outcome::BlackWins,
        Termination::Timeout,
    ),
    case(
        "a light bishop cannot mate a king whose only other pieces are a \
         rook and a light bishop",
        "8/5b2/4k3/8/8/3K4/2B5/R7 w - - 0 1",
        RulesProfile::Fide,
        Outcome::Draw,
        Termination::TimeoutVsInsufficientMaterial,
    ),
    case(
        "dark bishops cannot break a wall of pawns on light squares",
        "5k2/1B6/3b3b/p1p1p1p1/P1P1P1P1/8/4K3/8 w - - 0 1",
        RulesProfile::Fide,
        Outcome::Draw,
        Termination::TimeoutVsInsufficientMaterial,
    ),
    case(
        "the light bishop behind the wall can mate the self-blocked king",
        "5k2/1B6/3b3b/p1p1p1p1/P1P1P1P1/8/4K3/8 b - - 0 1",
        RulesProfile::Fide,
        Outcome::WhiteWins,
        Termination::Timeout,
    ),
    case(
        "the only legal move takes the queen, leaving a lone king",
        "4k3/8/8/8/8/R7/6q1/7K w - - 0 1",
        RulesProfile::Fide,
        Outcome::Draw,
        Termination::TimeoutVsInsufficientMaterial,
    ),
    case(
        "the same queen wins when nothing forces its capture",
        "4k3/8/8/8/8/R5q1/8/7K w - - 0 1",
        RulesProfile::Fide,
        Outcome::BlackWins,
        Termination::Timeout,
    ),
    case(
        "a castling right does not let a side that cannot mate win on time",
        WHITE_MAY_CASTLE,
        RulesProfile::Fide,
        Outcome::Draw,
        Termination::TimeoutVsInsufficientMaterial,
    ),
];

/// White may still castle short; Black has king, bishop and pawns that can
/// never get free, so cannot checkmate by any series of legal moves.
const WHITE_MAY_CASTLE: &str = "k1b5/1pPp4/1P1P3p/1P6/5P1P/5PNR/3NPBBQ/4K2R w K - 0 1";

/// The same with White's king on f1, in Chess960: castling the helpmate
/// search cannot follow, so it cannot decide whether Black can mate.
pub(crate) const CHESS960_KING_ON_F1: &str =
    "k1b5/1pPp4/1P1P3p/1P6/5P1P/5PNR/3NPBBQ/5K1R w K - 0 1";

fn domain_profile(profile: RulesProfile) -> domain::RulesProfile {
    match profile {
        RulesProfile::Uscf => domain::RulesProfile::Uscf,
        RulesProfile::Unspecified | RulesProfile::Fide => domain::RulesProfile::Fide,
    }
}

fn domain_result(outcome: Outcome, termination: Termination) -> domain::GameResult {
    domain::GameResult {
        outcome: match outcome {
            Outcome::WhiteWins => domain::Outcome::WhiteWins,
            Outcome::BlackWins => domain::Outcome::BlackWins,
            Outcome::Draw | Outcome::Unspecified => domain::Outcome::Draw,
            Outcome::DoubleForfeit => domain::Outcome::DoubleForfeit,
        },
        termination: match termination {
            Termination::Timeout => domain::Termination::Timeout,
            Termination::TimeoutVsInsufficientMaterial => {
                domain::Termination::TimeoutVsInsufficientMaterial
            }
            other => panic!("not a flag termination: {other:?}"),
        },
    }
}

/// The positions mean what the cases say: alive at the start, and ruled so
/// by the domain's own adjudication.
#[test]
fn flag_positions_are_what_they_claim() {
    for case in &FLAG_CASES {
        let pos = dead_position::position(case.fen).expect(case.fen);
        assert!(
            !dead_position::is_dead(&pos),
            "{}: a dead start is refused",
            case.name
        );
        let flagger = shakmaty::Position::turn(&pos);
        let ruling = on_flag(&pos, flagger, domain_profile(case.profile));
        assert_eq!(
            ruling.result,
            domain_result(case.outcome, case.termination),
            "{}",
            case.name
        );
        assert_eq!(ruling.note, None, "{}: decided, not guessed", case.name);
    }
}

async fn flags_are_adjudicated_by_what_the_opponent_can_still_do(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let mut games = Vec::new();
    for case in &FLAG_CASES {
        let mut request = timed(case.fen, sudden_death(FLAG_MS));
        request.rules = Some(proto::GameRules {
            profile: case.profile.into(),
            ..Default::default()
        });
        let game = create(&mut admin, request)
            .await
            .unwrap_or_else(|status| panic!("{}: {status:?}", case.name));
        assert_eq!(game.game.status, GameStatus::Active as i32, "{}", case.name);
        games.push(game);
    }
    tokio::time::sleep(PAST_FLAG).await;
    for (case, game) in FLAG_CASES.iter().zip(&games) {
        let read = get(&mut client, &game.id).await;
        assert_eq!(read.status, GameStatus::Finished as i32, "{}", case.name);
        let result = read.result.clone().expect("result");
        assert_eq!(
            (result.outcome, result.termination),
            (case.outcome as i32, case.termination as i32),
            "{}: {result:?}",
            case.name
        );
        assert!(!result.needs_review, "{}: decided, not guessed", case.name);
        assert_eq!(result.review_reason, "", "{}", case.name);
        let rules = common::setup(&read).rules.expect("rules");
        assert_eq!(rules.profile, case.profile as i32);
        assert_eq!(read.ply, 0, "{}", case.name);
        assert!(read.last_move.is_none(), "{}", case.name);
    }
}

async fn an_undecided_flag_ruling_awaits_the_arbiters_review(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let mut request = timed(CHESS960_KING_ON_F1, sudden_death(FLAG_MS));
    request.variant = proto::Variant::Chess960.into();
    let game = create_ok(&mut admin, request).await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;

    // White's flag falls; the search cannot decide whether Black can mate,
    // so Black wins, provisionally, and the result says it needs review.
    let events = until_the_end(&mut stream).await;
    assert_eq!(kinds(&events), ["game_ended"]);
    assert_ended_with(&events[0], Outcome::BlackWins, Termination::Timeout);
    let Some(Kind::GameEnded(ended)) = &events[0].kind else {
        unreachable!()
    };
    let ended = ended.result.clone().expect("result");
    assert!(ended.needs_review, "{ended:?}");
    assert!(
        ended.review_reason.contains("helpmate search")
            && ended.review_reason.contains("until an arbiter reviews it"),
        "{}",
        ended.review_reason
    );
    let read = get(&mut client, &game.id).await;
    assert_result(&read, Outcome::BlackWins, Termination::Timeout);
    assert_eq!(read.result, Some(ended.clone()));

    // The arbiter corrects it: the ruling clears the review.
    let ruling = proto::SetGameResultRequest {
        request_id: String::new(),
        game_id: game.id.clone(),
        ruling: Some(proto::set_game_result_request::Ruling::Played(
            proto::PlayedResult {
                outcome: Outcome::Draw.into(),
                termination: Termination::TimeoutVsInsufficientMaterial.into(),
            },
        )),
        reason: "Black cannot checkmate (FIDE 6.9)".to_owned(),
    };
    let ruled = admin
        .set_game_result(authorized(ruling, ADMIN))
        .await
        .expect("a ruling")
        .into_inner();
    let corrected = ruled.game.expect("game").result.expect("result");
    assert_eq!(corrected.outcome, Outcome::Draw as i32);
    assert!(!corrected.needs_review);
    assert_eq!(corrected.review_reason, "");
    let Some(Kind::ResultDecided(decided)) = &ruled.events[0].kind else {
        panic!("{:?}", ruled.events);
    };
    assert!(!decided.result.as_ref().expect("result").needs_review);
    let read = get(&mut client, &game.id).await;
    assert!(!read.result.expect("result").needs_review);
}

/// ListGames with `needs_review` is the arbiter's work list: the results
/// that await review, until a ruling settles them.
async fn the_review_list_holds_the_results_awaiting_review(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let mut undecided = timed(CHESS960_KING_ON_F1, sudden_death(FLAG_MS));
    undecided.variant = proto::Variant::Chess960.into();
    undecided.pairing = Some(crate::common::pairing("review-open", 1, 1));
    let flagged = create_ok(&mut admin, undecided).await;
    let mut decided = timed("", sudden_death(FLAG_MS));
    decided.pairing = Some(crate::common::pairing("review-open", 1, 2));
    let other = create_ok(&mut admin, decided).await;
    let review_list = |needs_review| proto::ListGamesRequest {
        event_id: "review-open".to_owned(),
        needs_review,
        ..Default::default()
    };
    // Both flags fall; only the undecided one awaits review.
    let listed = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let all = client
                .list_games(review_list(false))
                .await
                .expect("list")
                .into_inner();
            if all
                .games
                .iter()
                .all(|game| game.status == GameStatus::Finished as i32)
            {
                return client
                    .list_games(review_list(true))
                    .await
                    .expect("the review list")
                    .into_inner();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("both flags fall");
    let ids: Vec<&str> = listed
        .games
        .iter()
        .map(|game| game.game_id.as_str())
        .collect();
    assert_eq!(ids, [flagged.id.as_str()], "not {}", other.id);

    let ruling = proto::SetGameResultRequest {
        request_id: String::new(),
        game_id: flagged.id.clone(),
        ruling: Some(proto::set_game_result_request::Ruling::Played(
            proto::PlayedResult {
                outcome: Outcome::Draw.into(),
                termination: Termination::TimeoutVsInsufficientMaterial.into(),
            },
        )),
        reason: "Black cannot checkmate (FIDE 6.9)".to_owned(),
    };
    admin
        .set_game_result(authorized(ruling, ADMIN))
        .await
        .expect("a ruling");
    let listed = client
        .list_games(review_list(true))
        .await
        .expect("the review list")
        .into_inner();
    assert!(listed.games.is_empty(), "{:?}", listed.games);
}

async fn a_pending_offer_draws_on_the_flag_only_when_the_rules_say_so(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    for (drawn_on_flag, outcome, termination) in [
        (
            true,
            Outcome::Draw,
            Termination::TimeoutWithPendingDrawOffer,
        ),
        (false, Outcome::WhiteWins, Termination::Timeout),
    ] {
        // Black is on a short clock, which starts after the first moves.
        let mut request = timed("", sudden_death(60_000));
        request.black_time_control = Some(sudden_death(FLAG_MS));
        request.clock_starts_after_first_moves = true;
        request.rules = Some(proto::GameRules {
            pending_offer_draws_on_flag: drawn_on_flag,
            ..Default::default()
        });
        let game = create_ok(&mut admin, request).await;
        assert_eq!(
            common::setup(&game.game)
                .rules
                .expect("rules")
                .pending_offer_draws_on_flag,
            drawn_on_flag
        );
        play_line(&mut client, &game, &["e4", "e5"]).await;
        let offered = seat(
            &mut client,
            &game.white,
            make_move_offering_draw(&game.id, 2, "Nf3"),
        )
        .await
        .expect("White moves and offers a draw");
        assert_eq!(offered.draw_offered_by, Some(Color::White as i32));
        assert_eq!(running(&clock(&offered)), Some(Color::Black));

        tokio::time::sleep(PAST_FLAG).await;
        let read = get(&mut client, &game.id).await;
        assert_result(&read, outcome, termination);
        assert_eq!(read.draw_offered_by, None, "the offer lapsed");
    }
}

// ---------------------------------------------------------------------------
// The arbiter's clock controls
// ---------------------------------------------------------------------------

async fn clock_controls_need_the_admin_token_a_reason_and_a_clock(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;

    let untimed = app.new_game().await;
    assert_refused(
        adjust(&mut admin, &untimed.id, Color::White, 1_000, "why", ADMIN).await,
        Code::FailedPrecondition,
        "UNTIMED",
    );
    assert_refused(
        pause(&mut admin, &untimed.id, "why", ADMIN).await,
        Code::FailedPrecondition,
        "UNTIMED",
    );
    assert_refused(
        resume(&mut admin, &untimed.id, "why", ADMIN).await,
        Code::FailedPrecondition,
        "UNTIMED",
    );

    let game = create_ok(&mut admin, timed("", sudden_death(60_000))).await;
    for token in [Some(game.white.as_str()), Some(game.black.as_str())] {
        assert_refused(
            adjust(&mut admin, &game.id, Color::White, 60_000, "why", token).await,
            Code::PermissionDenied,
            "NOT_ADMIN",
        );
        assert_refused(
            pause(&mut admin, &game.id, "why", token).await,
            Code::PermissionDenied,
            "NOT_ADMIN",
        );
        assert_refused(
            resume(&mut admin, &game.id, "why", token).await,
            Code::PermissionDenied,
            "NOT_ADMIN",
        );
    }
    assert_refused(
        adjust(&mut admin, &game.id, Color::White, 60_000, "why", None).await,
        Code::Unauthenticated,
        "MISSING_TOKEN",
    );
    assert_refused(
        pause(&mut admin, &game.id, "why", None).await,
        Code::Unauthenticated,
        "MISSING_TOKEN",
    );
    assert_refused(
        resume(&mut admin, &game.id, "why", None).await,
        Code::Unauthenticated,
        "MISSING_TOKEN",
    );
    for why in ["", "   "] {
        assert_invalid_field(
            adjust(&mut admin, &game.id, Color::White, 1_000, why, ADMIN).await,
            "reason",
        );
        assert_invalid_field(pause(&mut admin, &game.id, why, ADMIN).await, "reason");
        assert_invalid_field(resume(&mut admin, &game.id, why, ADMIN).await, "reason");
    }
    assert_invalid_field(
        adjust(
            &mut admin,
            &game.id,
            Color::Unspecified,
            1_000,
            "why",
            ADMIN,
        )
        .await,
        "color",
    );
    // None of it touched the game.
    assert_eq!(get(&mut client, &game.id).await.version, 1);
}

async fn arbiters_adjust_pause_and_resume_clocks(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let game = create_ok(&mut admin, timed("", sudden_death(60_000))).await;
    let mut stream = watch(&mut client, &game.id, 1).await;

    let added = adjust_clock(
        &mut admin,
        adjustment(&game.id, Color::Black, 30_000, "compensation: disturbed"),
        ADMIN,
    )
    .await
    .expect("add time");
    assert_eq!(kinds(&added.events), ["clock_adjusted"]);
    let added = added.game.expect("game");
    assert_eq!(clock(&added).black_millis, 90_000);
    assert_eq!(running(&clock(&added)), Some(Color::White));
    let deducted = adjust(
        &mut admin,
        &game.id,
        Color::White,
        -10_000,
        "penalty: illegal move",
        ADMIN,
    )
    .await
    .expect("deduct time");
    assert!(clock(&deducted).white_millis <= 50_000);
    assert_eq!(clock(&deducted).black_millis, 90_000);

    let paused = pause_clock(&mut admin, pausing(&game.id, "dispute at the board"), ADMIN)
        .await
        .expect("pause");
    assert_eq!(kinds(&paused.events), ["clock_paused"]);
    let paused = paused.game.expect("game");
    let state = clock(&paused);
    assert!(state.paused);
    assert_eq!(state.running, None);
    assert_refused(
        pause(&mut admin, &game.id, "again", ADMIN).await,
        Code::FailedPrecondition,
        "CLOCK_PAUSED",
    );
    assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 0, "e4")).await,
        Code::FailedPrecondition,
        "CLOCK_PAUSED",
    );
    assert_refused(
        seat(
            &mut client,
            &game.white,
            claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 0),
        )
        .await,
        Code::FailedPrecondition,
        "CLOCK_PAUSED",
    );
    // While paused, leave White only FLAG_MS, then wait past it: the clock
    // stands still, so no flag falls.
    let frozen = state.white_millis;
    let short = adjust(
        &mut admin,
        &game.id,
        Color::White,
        FLAG_MS - frozen,
        "time trouble for the test",
        ADMIN,
    )
    .await
    .expect("deduct while paused");
    assert_eq!(clock(&short).white_millis, FLAG_MS);
    tokio::time::sleep(PAST_FLAG).await;
    let still = get(&mut client, &game.id).await;
    assert_eq!(still.status, GameStatus::Active as i32);
    let state = clock(&still);
    assert!(state.paused);
    assert_eq!(state.white_millis, FLAG_MS, "the paused clock stands still");

    let resumed = resume_clock(&mut admin, resuming(&game.id, "dispute settled"), ADMIN)
        .await
        .expect("resume");
    assert_eq!(kinds(&resumed.events), ["clock_resumed"]);
    let resumed = resumed.game.expect("game");
    let state = clock(&resumed);
    assert!(!state.paused);
    assert_eq!(running(&state), Some(Color::White));
    assert!(state.white_millis <= FLAG_MS);
    assert_refused(
        resume(&mut admin, &game.id, "again", ADMIN).await,
        Code::FailedPrecondition,
        "CLOCK_NOT_PAUSED",
    );

    // Nobody touches the game any more: its flag falls, and the sweeper
    // ends it.
    let events = until_the_end(&mut stream).await;
    assert_eq!(
        kinds(&events),
        [
            "clock_adjusted",
            "clock_adjusted",
            "clock_paused",
            "clock_adjusted",
            "clock_resumed",
            "game_ended"
        ]
    );
    let adjusted: Vec<(i32, i32, String)> = events
        .iter()
        .filter_map(|e| match &e.kind {
            Some(Kind::ClockAdjusted(a)) => Some((a.color, a.delta_millis, a.reason.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        adjusted,
        [
            (
                Color::Black as i32,
                30_000,
                "compensation: disturbed".to_owned()
            ),
            (
                Color::White as i32,
                -10_000,
                "penalty: illegal move".to_owned()
            ),
            (
                Color::White as i32,
                FLAG_MS - frozen,
                "time trouble for the test".to_owned()
            ),
        ]
    );
    let Some(Kind::ClockPaused(p)) = &events[2].kind else {
        unreachable!()
    };
    assert_eq!(p.reason, "dispute at the board");
    assert!(events[2].clock.expect("clock").paused);
    let Some(Kind::ClockResumed(r)) = &events[4].kind else {
        unreachable!()
    };
    assert_eq!(r.reason, "dispute settled");
    assert_eq!(events[0].clock.expect("clock").black_millis, 90_000);
    assert_ended_with(&events[5], Outcome::BlackWins, Termination::Timeout);

    // A finished game's clock is no longer the arbiter's to change.
    assert_refused(
        adjust(&mut admin, &game.id, Color::White, 60_000, "late", ADMIN).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    assert_refused(
        pause(&mut admin, &game.id, "late", ADMIN).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
}

/// The arbiter's clock calls carry an idempotency key: a call repeated with
/// the same request_id applies once (its repeat answers with the game and
/// no events), the same key for another request is refused, and calls
/// without a key apply every time.
async fn clock_calls_with_a_request_id_apply_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let game = create_ok(&mut admin, timed("", sudden_death(60_000))).await;

    // Black's clock does not run: its time shows exactly what was added.
    let add = proto::AdjustClockRequest {
        request_id: "adjust-1".to_owned(),
        ..adjustment(&game.id, Color::Black, 30_000, "compensation")
    };
    let first = adjust_clock(&mut admin, add.clone(), ADMIN)
        .await
        .expect("adjust");
    assert_eq!(kinds(&first.events), ["clock_adjusted"]);
    let first = first.game.expect("game");
    assert_eq!(clock(&first).black_millis, 90_000);
    assert_eq!(first.version, 2);
    let again = adjust_clock(&mut admin, add.clone(), ADMIN)
        .await
        .expect("the same adjustment again");
    assert!(again.events.is_empty(), "{:?}", again.events);
    let again = again.game.expect("game");
    assert_eq!(clock(&again).black_millis, 90_000, "added once");
    assert_eq!(again.version, 2);
    // The same key for a different adjustment (any field) is refused.
    for other in [
        proto::AdjustClockRequest {
            delta_millis: 20_000,
            ..add.clone()
        },
        proto::AdjustClockRequest {
            color: Color::White.into(),
            ..add.clone()
        },
        proto::AdjustClockRequest {
            reason: "another reason".to_owned(),
            ..add.clone()
        },
    ] {
        assert_refused(
            adjust_clock(&mut admin, other, ADMIN).await,
            Code::AlreadyExists,
            "REQUEST_ID_REUSED",
        );
    }
    // Without a key every call applies.
    let plain = adjustment(&game.id, Color::Black, 1_000, "compensation");
    for expected in [91_000, 92_000] {
        let added = adjust_clock(&mut admin, plain.clone(), ADMIN)
            .await
            .expect("adjust without a key");
        assert_eq!(kinds(&added.events), ["clock_adjusted"]);
        assert_eq!(clock(&added.game.expect("game")).black_millis, expected);
    }
    assert_eq!(get(&mut client, &game.id).await.version, 4);

    // A repeated pause succeeds instead of finding the clock paused.
    let hold = proto::PauseClockRequest {
        request_id: "pause-1".to_owned(),
        ..pausing(&game.id, "dispute")
    };
    let paused = pause_clock(&mut admin, hold.clone(), ADMIN)
        .await
        .expect("pause");
    assert_eq!(kinds(&paused.events), ["clock_paused"]);
    let again = pause_clock(&mut admin, hold.clone(), ADMIN)
        .await
        .expect("the same pause again");
    assert!(again.events.is_empty(), "{:?}", again.events);
    let again = again.game.expect("game");
    assert!(clock(&again).paused);
    assert_eq!(again.version, 5);
    // Another pause is still refused: the clock is paused.
    assert_refused(
        pause_clock(
            &mut admin,
            proto::PauseClockRequest {
                request_id: "pause-2".to_owned(),
                ..hold.clone()
            },
            ADMIN,
        )
        .await,
        Code::FailedPrecondition,
        "CLOCK_PAUSED",
    );
    assert_refused(
        pause_clock(
            &mut admin,
            proto::PauseClockRequest {
                reason: "another dispute".to_owned(),
                ..hold.clone()
            },
            ADMIN,
        )
        .await,
        Code::AlreadyExists,
        "REQUEST_ID_REUSED",
    );
    // A key is bound to its command: the adjustment's key cannot pause.
    assert_refused(
        pause_clock(
            &mut admin,
            proto::PauseClockRequest {
                request_id: add.request_id.clone(),
                ..hold.clone()
            },
            ADMIN,
        )
        .await,
        Code::AlreadyExists,
        "REQUEST_ID_REUSED",
    );

    let restart = proto::ResumeClockRequest {
        request_id: "resume-1".to_owned(),
        ..resuming(&game.id, "dispute settled")
    };
    let resumed = resume_clock(&mut admin, restart.clone(), ADMIN)
        .await
        .expect("resume");
    assert_eq!(kinds(&resumed.events), ["clock_resumed"]);
    let again = resume_clock(&mut admin, restart.clone(), ADMIN)
        .await
        .expect("the same resumption again");
    assert!(again.events.is_empty(), "{:?}", again.events);
    let again = again.game.expect("game");
    assert!(!clock(&again).paused);
    assert_eq!(running(&clock(&again)), Some(Color::White));
    assert_eq!(again.version, 6);
    assert_refused(
        resume_clock(
            &mut admin,
            proto::ResumeClockRequest {
                reason: "settled otherwise".to_owned(),
                ..restart.clone()
            },
            ADMIN,
        )
        .await,
        Code::AlreadyExists,
        "REQUEST_ID_REUSED",
    );
    // The earlier calls, repeated now, still change nothing.
    let late = adjust_clock(&mut admin, add, ADMIN)
        .await
        .expect("the first adjustment once more");
    assert!(late.events.is_empty());
    let late = pause_clock(&mut admin, hold, ADMIN)
        .await
        .expect("the first pause once more");
    assert!(late.events.is_empty());
    assert!(!clock(&late.game.expect("game")).paused, "not paused again");

    // The log holds each applied call once.
    let mut stream = watch(&mut client, &game.id, 1).await;
    let mut events = Vec::new();
    for _ in 0..5 {
        events.push(common::next_event(&mut stream).await);
    }
    assert_eq!(
        kinds(&events),
        [
            "clock_adjusted",
            "clock_adjusted",
            "clock_adjusted",
            "clock_paused",
            "clock_resumed"
        ]
    );
    let read = get(&mut client, &game.id).await;
    assert_eq!(read.version, 6);
    assert_eq!(clock(&read).black_millis, 92_000);
}

async fn a_deduction_below_zero_flags_at_the_next_read(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let game = create_ok(&mut admin, timed("", sudden_death(60_000))).await;
    let adjusted = adjust(
        &mut admin,
        &game.id,
        Color::White,
        -61_000,
        "penalty: repeated illegal moves",
        ADMIN,
    )
    .await
    .expect("deduct");
    assert!(clock(&adjusted).white_millis < 0);
    let read = get(&mut client, &game.id).await;
    assert_result(&read, Outcome::BlackWins, Termination::Timeout);
    assert!(clock(&read).white_millis < 0);
    assert_eq!(read.version, 3, "created, adjusted, ended");
}

// ---------------------------------------------------------------------------
// Claim penalties and PGN
// ---------------------------------------------------------------------------

async fn an_incorrect_claim_gives_the_opponent_time(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    for (control, penalty) in [
        (control(&[period(300_000, 0, 3_000, 0)]), 60_000),
        (control(&[period(900_000, 0, 10_000, 0)]), 60_000),
        (
            control(&[
                period(5_400_000, 40, 30_000, 0),
                period(1_800_000, 0, 30_000, 0),
            ]),
            120_000,
        ),
    ] {
        let game = create_ok(&mut admin, timed("", control)).await;
        let mut stream = watch(&mut client, &game.id, 1).await;
        let before = play_line(&mut client, &game, &["e4", "e5"]).await;
        let black_move = before.last_move.clone().expect("Black's move");
        assert_eq!(black_move.color, Color::Black as i32);
        let black_before = black_move.clock_millis;
        assert_eq!(clock(&before).black_millis, black_before);

        let ruling = seat(
            &mut client,
            &game.white,
            claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 2),
        )
        .await
        .expect("claim");
        assert_eq!(ruling.verdict, DrawClaimVerdict::Refused as i32);
        assert_eq!(
            kinds(&ruling.events),
            ["draw_claim_refused", "clock_adjusted", "draw_offered"]
        );
        let after = ruling.game.expect("game");
        assert_eq!(after.status, GameStatus::Active as i32);
        assert_eq!(
            clock(&after).black_millis,
            black_before + penalty,
            "pace {}",
            timing(&after).pace
        );
        assert_eq!(running(&clock(&after)), Some(Color::White));

        common::seat(&mut client, &game.white, common::resign(&game.id))
            .await
            .expect("resign");
        let events = until_the_end(&mut stream).await;
        assert_eq!(
            kinds(&events),
            [
                "move_made",
                "move_made",
                "draw_claim_refused",
                "clock_adjusted",
                "draw_offered",
                "game_ended"
            ]
        );
        assert_eq!(events[2..5], ruling.events[..], "the response's events");
        let Some(Kind::ClockAdjusted(adjusted)) = &events[3].kind else {
            unreachable!()
        };
        assert_eq!(adjusted.color, Color::Black as i32);
        assert_eq!(adjusted.delta_millis, penalty);
        assert!(!adjusted.reason.is_empty());
        assert_eq!(
            events[3].clock.expect("clock").black_millis,
            black_before + penalty
        );
    }
}

/// `h:mm:ss` of `ms` (at least a minute).
fn clk(ms: i32) -> String {
    let s = ms / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

async fn pgn_carries_the_control_and_a_clock_per_move(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;

    let game = create_ok(
        &mut admin,
        timed("", control(&[period(300_000, 0, 3_000, 0)])),
    )
    .await;
    play_line(&mut client, &game, &["e4", "e5", "Nf3"]).await;
    let played = get_full(&mut client, &game.id).await;
    assert_eq!(played.moves.len(), 3);
    // Line breaks may fall anywhere between tokens.
    let pgn = export_pgn(&mut client, &game.id).await.replace('\n', " ");
    assert!(pgn.contains("[TimeControl \"300+3\"]"), "{pgn}");
    assert_eq!(pgn.matches("[%clk ").count(), 3, "{pgn}");
    for record in &played.moves {
        let comment = format!("{} {{[%clk {}]}}", record.san, clk(record.clock_millis));
        assert!(pgn.contains(&comment), "{comment} in {pgn}");
    }

    let classical = control(&[
        period(5_400_000, 40, 30_000, 0),
        period(1_800_000, 0, 30_000, 0),
    ]);
    let game = create_ok(&mut admin, timed("", classical)).await;
    let pgn = export_pgn(&mut client, &game.id).await;
    assert!(
        pgn.contains("[TimeControl \"40/5400+30:1800+30\"]"),
        "{pgn}"
    );
    assert_eq!(pgn.matches("[%clk ").count(), 0);

    let mut request = timed("", sudden_death(300_000));
    request.black_time_control = Some(sudden_death(240_000));
    let game = create_ok(&mut admin, request).await;
    play_line(&mut client, &game, &["d4"]).await;
    let pgn = export_pgn(&mut client, &game.id).await;
    assert!(pgn.contains("[WhiteTimeControl \"300\"]"), "{pgn}");
    assert!(pgn.contains("[BlackTimeControl \"240\"]"), "{pgn}");
    assert!(!pgn.contains("[TimeControl "), "{pgn}");
    assert_eq!(pgn.matches("[%clk ").count(), 1);

    // A game lost on time says so.
    let game = create_ok(&mut admin, timed("", sudden_death(FLAG_MS))).await;
    tokio::time::sleep(PAST_FLAG).await;
    let pgn = export_pgn(&mut client, &game.id).await;
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    assert!(pgn.contains("[Termination \"time forfeit\"]"), "{pgn}");

    // An untimed game has neither.
    let untimed = app.new_game().await;
    play_line(&mut client, &untimed, &["e4"]).await;
    let pgn = export_pgn(&mut client, &untimed.id).await;
    assert!(!pgn.contains("TimeControl"), "{pgn}");
    assert!(!pgn.contains("%clk"), "{pgn}");
}

on_every_backend!(
    typical_controls_are_accepted_and_reported,
    malformed_controls_are_refused,
    a_default_time_needs_a_scheduled_start,
    moves_record_their_time_and_the_increment,
    a_flag_is_noticed_on_read,
    a_move_after_the_flag_is_refused_and_the_game_ends_on_time,
    the_sweeper_ends_an_unattended_game,
    the_sweeper_follows_the_clock_after_a_move,
    a_player_who_does_not_show_up_forfeits,
    the_default_time_stands_still_while_paused,
    the_clock_waits_for_the_scheduled_start,
    a_game_is_pending_until_its_scheduled_start,
    the_clock_starts_after_both_first_moves_when_asked,
    flags_are_adjudicated_by_what_the_opponent_can_still_do,
    an_undecided_flag_ruling_awaits_the_arbiters_review,
    the_review_list_holds_the_results_awaiting_review,
    a_pending_offer_draws_on_the_flag_only_when_the_rules_say_so,
    clock_controls_need_the_admin_token_a_reason_and_a_clock,
    arbiters_adjust_pause_and_resume_clocks,
    clock_calls_with_a_request_id_apply_once,
    a_deduction_below_zero_flags_at_the_next_read,
    an_incorrect_claim_gives_the_opponent_time,
    pgn_carries_the_control_and_a_clock_per_move,
);
