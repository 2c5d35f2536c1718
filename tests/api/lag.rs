//! Lag compensation over gRPC: the policy a game is created with and the
//! lag reported with each move (`MakeMoveRequest.lag_millis`). The credit
//! applied within the quota, the quota run out and regained up to its
//! maximum, the cap per move, never more than the move's time, lag ignored
//! by a game without a policy, invalid policies and lags refused without
//! effect, a late move lost on time whatever its lag, the credit in the
//! stored move list and in PGN.
//!
//! Nothing here asserts how long anything took: a short sleep before a move
//! only makes sure the move takes longer than the lag it reports, and
//! every expectation about the clock is derived from what the server
//! recorded.

use std::time::Duration;

use arbiter::proto::{self, Outcome, Termination};
use common::{
    AdminClient, Backend, Client, NewGame, TestApp, create, create_request, expect_code,
    export_pgn, get, get_full, make_move, period, reason, seat, setup,
};
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::{
    clocks::{FLAG_MS, sudden_death, timed},
    common,
};

/// Ten minutes each, no increment: nothing but the credit adds time.
const TEN_MINUTES: i32 = 600_000;

/// Knights out and back in eight half-moves; four rounds of it stay short
/// of a fivefold repetition.
const KNIGHTS: [&str; 8] = ["Nf3", "Nf6", "Nc3", "Nc6", "Ng1", "Ng8", "Nb1", "Nb8"];

fn policy(initial: i32, max: i32, gain: i32, per_move: i32) -> proto::LagCompensation {
    proto::LagCompensation {
        initial_quota_millis: initial,
        max_quota_millis: max,
        quota_gain_millis: gain,
        max_move_credit_millis: per_move,
    }
}

/// A ten-minute game compensating lag under `lag`.
fn compensated(lag: Option<proto::LagCompensation>) -> proto::CreateGameRequest {
    proto::CreateGameRequest {
        lag_compensation: lag,
        ..timed("", sudden_death(TEN_MINUTES))
    }
}

async fn create_ok(admin: &mut AdminClient, request: proto::CreateGameRequest) -> NewGame {
    create(admin, request).await.expect("create a game")
}

/// Plays `mv` for the side to move, reporting `lag_millis`; returns the
/// game and the move as recorded in the response's `move_made` event.
async fn play(
    client: &mut Client,
    game: &NewGame,
    current: &proto::Game,
    mv: &str,
    lag_millis: i32,
) -> (proto::Game, proto::MoveRecord) {
    let token = if current.side_to_move == proto::Color::White as i32 {
        &game.white
    } else {
        &game.black
    };
    let request = proto::MakeMoveRequest {
        lag_millis,
        reply_view: 0,
        client_move_millis: None,
        ..make_move(&game.id, current.ply, mv)
    };
    let response = client
        .make_move(common::with_token(token, request))
        .await
        .unwrap_or_else(|status| panic!("{mv} refused: {status:?}"))
        .into_inner();
    let record = response
        .events
        .iter()
        .find_map(|event| match &event.kind {
            Some(proto::game_event::Kind::MoveMade(made)) => made.r#move.clone(),
            _ => None,
        })
        .expect("a move_made event");
    (*response.game.expect("game"), record)
}

/// Asserts INVALID_ARGUMENT (INVALID_FIELD) naming `field`.
#[track_caller]
fn assert_invalid_field<T: std::fmt::Debug>(result: Result<T, Status>, field: &str) {
    let status = expect_code(result, Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_FIELD", "{status:?}");
    let bad = status
        .get_details_bad_request()
        .expect("a BadRequest detail");
    assert_eq!(bad.field_violations[0].field, field, "{status:?}");
}

/// The policy as a game reports it: every value resolved, absent when off.
async fn the_policy_is_resolved_and_reported(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let off = create_ok(&mut admin, compensated(None)).await;
    assert_eq!(setup(&off.game).lag_compensation, None);
    let defaults = create_ok(&mut admin, compensated(Some(policy(0, 0, 0, 0)))).await;
    assert_eq!(
        setup(&defaults.game).lag_compensation,
        Some(policy(3_000, 7_000, 1_000, 3_000))
    );
    let own = create_ok(&mut admin, compensated(Some(policy(500, 2_000, 0, 800)))).await;
    assert_eq!(
        setup(&own.game).lag_compensation,
        Some(policy(500, 2_000, 1_000, 800))
    );
    // A read reports it too.
    let mut client = app.client().await;
    let read = get(&mut client, &own.id).await;
    assert_eq!(
        setup(&read).lag_compensation,
        Some(policy(500, 2_000, 1_000, 800))
    );
}

/// The credit is the least of the lag, the quota and the cap per move; the
/// quota runs out, is regained with each move, and never beyond its
/// maximum. Every credit is on the move record, in the `move_made` event,
/// in the stored move list and in PGN.
async fn lag_is_credited_within_the_quota(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    // 60 ms to start with, 20 ms regained per move, 100 ms at most, 50 ms
    // at most per move.
    let (initial, max, gain, per_move) = (60, 100, 20, 50);
    let game = create_ok(
        &mut admin,
        compensated(Some(policy(initial, max, gain, per_move))),
    )
    .await;
    // White reports these lags, each move taking longer than its lag (a
    // sleep of 110 ms before it); Black answers at once without lag.
    let lags = [50, 50, 50, 0, 0, 0, 0, 0, 100, 100, 100];
    let mut current = game.game.clone();
    let mut quota = initial;
    let mut white_clock = TEN_MINUTES;
    let mut credits = Vec::new();
    let mut recorded = Vec::new();
    for (i, lag) in lags.into_iter().enumerate() {
        tokio::time::sleep(Duration::from_millis(110)).await;
        let (after, white) = play(&mut client, &game, &current, KNIGHTS[(2 * i) % 8], lag).await;
        // The arbiter's rule, from what it recorded: never more than the
        // move's own time.
        let expected = lag.min(quota).min(per_move).min(white.time_spent_millis);
        assert_eq!(white.lag_credit_millis, expected, "move {i}: {white:?}");
        quota = (quota - expected + gain).min(max);
        assert_eq!(
            white.clock_millis,
            white_clock - white.time_spent_millis + white.lag_credit_millis,
            "move {i}: {white:?}"
        );
        white_clock = white.clock_millis;
        credits.push(white.lag_credit_millis);
        recorded.push(white);
        let (after, black) = play(&mut client, &game, &after, KNIGHTS[(2 * i + 1) % 8], 0).await;
        assert_eq!(black.lag_credit_millis, 0, "{black:?}");
        recorded.push(black);
        current = after;
    }
    // Each of White's moves took more than its lag, so only the quota and
    // the cap limit the credit: the quota runs out (60, then the 20
    // regained each move), is regained up to 100 and no further, and a
    // move gets at most 50 of it.
    assert_eq!(credits, [50, 30, 20, 0, 0, 0, 0, 0, 50, 50, 40]);

    // The stored moves say the same.
    let full = get_full(&mut client, &game.id).await;
    assert_eq!(full.moves, recorded);
    // PGN: every timed move of the game says what it got back.
    let pgn = export_pgn(&mut client, &game.id).await;
    assert_eq!(pgn.matches("[%lagcomp ").count(), recorded.len(), "{pgn}");
    assert!(pgn.contains("[%lagcomp 0.050]}"), "{pgn}");
    assert!(pgn.contains("[%lagcomp 0.030]}"), "{pgn}");
}

/// A move never gets back more than it took: an instant answer reporting
/// a long lag gets back its own time only, and its clock is as before.
async fn a_credit_never_exceeds_the_moves_time(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let game = create_ok(&mut admin, compensated(Some(policy(0, 0, 0, 0)))).await;
    let (after, _) = play(&mut client, &game, &game.game, "e4", 0).await;
    let (_, black) = play(&mut client, &game, &after, "e5", 3_000).await;
    assert_eq!(
        black.lag_credit_millis,
        black.time_spent_millis.min(3_000),
        "{black:?}"
    );
    assert_eq!(
        black.clock_millis,
        TEN_MINUTES - black.time_spent_millis + black.lag_credit_millis
    );
}

/// A game created without a policy (the default) ignores reported lag.
async fn lag_is_ignored_without_a_policy(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let game = create_ok(&mut admin, compensated(None)).await;
    tokio::time::sleep(Duration::from_millis(60)).await;
    let (_, white) = play(&mut client, &game, &game.game, "e4", 50).await;
    assert_eq!(white.lag_credit_millis, 0);
    assert_eq!(white.clock_millis, TEN_MINUTES - white.time_spent_millis);
    let pgn = export_pgn(&mut client, &game.id).await;
    assert!(!pgn.contains("%lagcomp"), "{pgn}");
}

/// Nonsense policies and lags are INVALID_ARGUMENT naming the field, and
/// change nothing.
async fn invalid_policies_and_lags_are_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let refused = [
        (policy(-1, 0, 0, 0), "lag_compensation.initial_quota_millis"),
        (policy(0, -5, 0, 0), "lag_compensation.max_quota_millis"),
        (policy(0, 0, -1, 0), "lag_compensation.quota_gain_millis"),
        (
            policy(0, 0, 0, -1),
            "lag_compensation.max_move_credit_millis",
        ),
        (policy(0, 60_001, 0, 0), "lag_compensation.max_quota_millis"),
        // The default initial quota (3 s) exceeds a 2 s maximum.
        (
            policy(0, 2_000, 0, 0),
            "lag_compensation.initial_quota_millis",
        ),
        (
            policy(500, 2_000, 2_500, 0),
            "lag_compensation.quota_gain_millis",
        ),
        (
            policy(500, 2_000, 0, 2_500),
            "lag_compensation.max_move_credit_millis",
        ),
    ];
    for (bad, field) in refused {
        let request = proto::CreateGameRequest {
            request_id: "lag-policy".to_owned(),
            ..compensated(Some(bad))
        };
        assert_invalid_field(create(&mut admin, request).await, field);
    }
    // An untimed game has no clock to credit.
    let untimed = proto::CreateGameRequest {
        request_id: "lag-policy".to_owned(),
        lag_compensation: Some(policy(0, 0, 0, 0)),
        ..create_request("", "")
    };
    assert_invalid_field(create(&mut admin, untimed).await, "lag_compensation");
    // Nothing was created under the key: it is free for another request.
    let fresh = proto::CreateGameRequest {
        request_id: "lag-policy".to_owned(),
        ..compensated(None)
    };
    create_ok(&mut admin, fresh).await;

    let game = create_ok(&mut admin, compensated(Some(policy(0, 0, 0, 0)))).await;
    for lag_millis in [-1, 60_001, i32::MIN, i32::MAX] {
        let request = proto::MakeMoveRequest {
            lag_millis,
            reply_view: 0,
            client_move_millis: None,
            ..make_move(&game.id, 0, "e4")
        };
        assert_invalid_field(seat(&mut client, &game.white, request).await, "lag_millis");
    }
    let unchanged = get(&mut client, &game.id).await;
    assert_eq!((unchanged.ply, unchanged.version), (0, game.game.version));
    // The largest lag is accepted.
    let request = proto::MakeMoveRequest {
        lag_millis: 60_000,
        reply_view: 0,
        client_move_millis: None,
        ..make_move(&game.id, 0, "e4")
    };
    seat(&mut client, &game.white, request)
        .await
        .expect("a lag of a minute is accepted");
}

/// A move that arrives after the flag fell loses on time, whatever lag it
/// reports and whatever quota is left.
async fn a_late_move_loses_on_time_whatever_its_lag(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let request = proto::CreateGameRequest {
        lag_compensation: Some(policy(0, 0, 0, 0)),
        ..timed(
            "",
            proto::TimeControl {
                periods: vec![period(FLAG_MS, 0, 0, 0)],
                delay_mode: proto::DelayMode::Simple.into(),
            },
        )
    };
    let game = create_ok(&mut admin, request).await;
    tokio::time::sleep(Duration::from_millis(FLAG_MS as u64 + 250)).await;
    let request = proto::MakeMoveRequest {
        lag_millis: 3_000,
        reply_view: 0,
        client_move_millis: None,
        ..make_move(&game.id, 0, "e4")
    };
    let status = expect_code(
        seat(&mut client, &game.white, request).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "GAME_OVER", "{status:?}");
    let over = get(&mut client, &game.id).await;
    let result = over.result.expect("a result");
    assert_eq!(result.outcome(), Outcome::BlackWins);
    assert_eq!(result.termination(), Termination::Timeout);
    assert_eq!(over.ply, 0);
}

on_every_backend!(
    the_policy_is_resolved_and_reported,
    lag_is_credited_within_the_quota,
    a_credit_never_exceeds_the_moves_time,
    lag_is_ignored_without_a_policy,
    invalid_policies_and_lags_are_refused,
    a_late_move_loses_on_time_whatever_its_lag,
);
