//! Scoring through the API: classic, football, custom per-colour points,
//! Armageddon, forfeits, and games that score nothing.

use crate::common;

use std::time::Duration;

use arbiter::proto::{self, Color, GameStatus, Outcome, Termination, game_event::Kind};
use common::{
    Backend, TestApp, create, create_request, drain, expect_code, offer_draw, play_line, reason,
    resign, respond_to_draw, seat, watch,
};
use tonic::Code;

fn table(win: &str, draw: &str, loss: &str) -> proto::PointTable {
    proto::PointTable {
        win: win.to_owned(),
        draw: draw.to_owned(),
        loss: loss.to_owned(),
    }
}

fn scoring(preset: proto::ScoringPreset) -> proto::Scoring {
    proto::Scoring {
        preset: preset.into(),
        ..Default::default()
    }
}

fn points(game: &proto::Game) -> (String, String, bool) {
    let result = game.result.clone().expect("result");
    (result.white_points, result.black_points, result.unplayed)
}

fn owned(white: &str, black: &str, unplayed: bool) -> (String, String, bool) {
    (white.to_owned(), black.to_owned(), unplayed)
}

async fn agreed_draw(client: &mut common::Client, game: &common::NewGame) -> proto::Game {
    play_line(client, game, &["d4", "d5"]).await;
    seat(client, &game.white, offer_draw(&game.id))
        .await
        .expect("offer");
    seat(client, &game.black, respond_to_draw(&game.id, true))
        .await
        .expect("accept")
}

async fn classic_scoring_is_the_default(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = create(&mut client, create_request("", ""))
        .await
        .expect("create");
    let resolved = game.game.scoring.clone().expect("scoring");
    assert_eq!(resolved.white, Some(table("1", "0.5", "0")));
    assert_eq!(resolved.black, Some(table("1", "0.5", "0")));
    let end = play_line(&mut client, &game, &["f3", "e5", "g4", "Qh4#"]).await;
    assert_eq!(points(&end), owned("0", "1", false));

    let game = create(&mut client, create_request("", ""))
        .await
        .expect("create");
    let end = agreed_draw(&mut client, &game).await;
    assert_eq!(points(&end), owned("0.5", "0.5", false));
}

async fn football_scores_three_one_nil(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut request = create_request("", "");
    request.scoring = Some(scoring(proto::ScoringPreset::Football));
    let game = create(&mut client, request.clone()).await.expect("create");
    let end = seat(&mut client, &game.black, resign(&game.id))
        .await
        .expect("resign");
    assert_eq!(points(&end), owned("3", "0", false));
    let game = create(&mut client, request).await.expect("create");
    let end = agreed_draw(&mut client, &game).await;
    assert_eq!(points(&end), owned("1", "1", false));
}

async fn custom_points_may_differ_by_colour(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut request = create_request("", "");
    request.scoring = Some(proto::Scoring {
        preset: proto::ScoringPreset::Custom.into(),
        custom: Some(table("3", "1", "0")),
        custom_black: Some(table("3", "1.5", "0")),
        armageddon: false,
    });
    let game = create(&mut client, request).await.expect("create");
    let end = agreed_draw(&mut client, &game).await;
    assert_eq!(points(&end), owned("1", "1.5", false));
    assert_eq!(
        end.result.clone().expect("result").outcome,
        Outcome::Draw as i32
    );
}

/// Armageddon with time odds (White 5 minutes, Black 4): a draw is scored
/// and reported as a win for Black, the termination unchanged; the watcher
/// sees the same.
async fn armageddon_draws_go_to_black(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let minutes = |m: u64| proto::TimeControl {
        periods: vec![proto::Period {
            time_ms: m * 60_000,
            ..Default::default()
        }],
        ..Default::default()
    };
    let mut request = create_request("", "");
    request.time_control = Some(minutes(5));
    request.black_time_control = Some(minutes(4));
    request.scoring = Some(proto::Scoring {
        armageddon: true,
        ..scoring(proto::ScoringPreset::Classic)
    });
    let game = create(&mut client, request).await.expect("create");
    let clock = game.game.clock.expect("clock");
    assert_eq!(clock.white_ms, 300_000);
    assert_eq!(clock.black_ms, 240_000);
    let mut stream = watch(&mut client, &game.id, 1).await;
    let end = agreed_draw(&mut client, &game).await;
    let result = end.result.clone().expect("result");
    assert_eq!(result.outcome, Outcome::BlackWins as i32);
    assert_eq!(result.termination, Termination::Agreement as i32);
    assert_eq!(points(&end), owned("0", "1", false));
    let events = tokio::time::timeout(Duration::from_secs(20), drain(&mut stream))
        .await
        .expect("stream ends");
    let Some(Kind::GameEnded(ended)) = events.last().and_then(|e| e.kind.clone()) else {
        panic!("ends with game_ended: {events:?}");
    };
    let streamed = ended.result.expect("result");
    assert_eq!(streamed.outcome, Outcome::BlackWins as i32);
    assert_eq!(streamed.black_points, "1");
}

async fn a_no_show_is_scored_but_unplayed(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut request = create_request("", "");
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        + Duration::from_millis(100);
    request.scheduled_start = Some(prost_types::Timestamp {
        seconds: i64::try_from(start.as_secs()).expect("seconds"),
        nanos: i32::try_from(start.subsec_nanos()).expect("nanos"),
    });
    request.default_time_ms = 200;
    request.scoring = Some(scoring(proto::ScoringPreset::Football));
    let game = create(&mut client, request).await.expect("create");
    let mut stream = watch(&mut client, &game.id, 1).await;
    tokio::time::timeout(Duration::from_secs(20), drain(&mut stream))
        .await
        .expect("the default time ends the game");
    let end = common::get(&mut client, &game.id).await;
    let result = end.result.clone().expect("result");
    assert_eq!(result.termination, Termination::NoShow as i32);
    assert_eq!(points(&end), owned("0", "3", true));
}

async fn aborted_games_score_nothing(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = create(&mut client, create_request("", ""))
        .await
        .expect("create");
    let aborted = common::seat(&mut client, &game.black, common::abort(&game.id))
        .await
        .expect("abort");
    assert_eq!(aborted.status, GameStatus::Aborted as i32);
    assert_eq!(aborted.result, None);
    assert_eq!(aborted.aborted_by, Color::Black as i32);
}

async fn malformed_scoring_is_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let cases = [
        proto::Scoring {
            preset: proto::ScoringPreset::Custom.into(),
            ..Default::default()
        },
        proto::Scoring {
            preset: proto::ScoringPreset::Custom.into(),
            custom: Some(table("1", "two", "0")),
            ..Default::default()
        },
        proto::Scoring {
            preset: proto::ScoringPreset::Custom.into(),
            custom: Some(table("1", "0.5", "0.0001")),
            ..Default::default()
        },
        proto::Scoring {
            preset: proto::ScoringPreset::Custom.into(),
            custom: Some(table("0", "1", "0")),
            ..Default::default()
        },
        proto::Scoring {
            preset: proto::ScoringPreset::Football.into(),
            custom: Some(table("3", "1", "0")),
            ..Default::default()
        },
        proto::Scoring {
            preset: proto::ScoringPreset::Custom.into(),
            custom: Some(table("5000", "1", "0")),
            ..Default::default()
        },
    ];
    for case in cases {
        let mut request = create_request("", "");
        request.scoring = Some(case.clone());
        let status = expect_code(create(&mut client, request).await, Code::InvalidArgument);
        assert_eq!(reason(&status), "INVALID_FIELD", "{case:?}");
        assert!(status.message().contains("scoring"), "{}", status.message());
    }
}

fn ruling(game_id: &str, reason: &str) -> proto::SetResultRequest {
    proto::SetResultRequest {
        game_id: game_id.to_owned(),
        reason: reason.to_owned(),
        ..Default::default()
    }
}

async fn set_result(
    client: &mut common::Client,
    request: proto::SetResultRequest,
) -> Result<proto::Game, tonic::Status> {
    client
        .set_result(common::admin(request))
        .await
        .map(|response| response.into_inner().game.expect("game"))
}

/// An arbiter decides a game in progress and corrects a finished one; each
/// ruling is an event, and watchers resuming after the end receive it.
async fn arbiters_decide_and_correct_results(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    let game = create(&mut client, create_request("", ""))
        .await
        .expect("create");
    play_line(&mut client, &game, &["e4", "e5"]).await;
    let mut request = ruling(&game.id, "adjourned game adjudicated as drawn");
    request.outcome = Outcome::Draw.into();
    let decided = set_result(&mut client, request).await.expect("decide");
    assert_eq!(decided.status, GameStatus::Finished as i32);
    let result = decided.result.clone().expect("result");
    assert_eq!(result.termination, Termination::ArbiterDecision as i32);
    assert_eq!(points(&decided), owned("0.5", "0.5", false));

    // A finished game corrected: the mate stands, but the arbiter rules the
    // game lost by White for a rules infraction.
    let game = create(&mut client, create_request("", ""))
        .await
        .expect("create");
    let mated = play_line(
        &mut client,
        &game,
        &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"],
    )
    .await;
    let mut request = ruling(&game.id, "a mobile phone rang (FIDE 11.3.2)");
    request.outcome = Outcome::BlackWins.into();
    let corrected = set_result(&mut client, request).await.expect("correct");
    assert_eq!(corrected.version, mated.version + 1);
    assert_eq!(corrected.moves.len(), 7, "the moves stand");
    assert_eq!(points(&corrected), owned("0", "1", false));
    let events = drain(&mut watch(&mut client, &game.id, mated.version).await).await;
    assert_eq!(events.len(), 1, "{events:?}");
    let Some(Kind::ResultSet(set)) = &events[0].kind else {
        panic!("a result_set event: {events:?}");
    };
    assert_eq!(set.reason, "a mobile phone rang (FIDE 11.3.2)");
    assert_eq!(set.result.as_ref().expect("result").black_points, "1");
}

async fn forfeits_by_the_arbiter_are_unplayed(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = create(&mut client, create_request("", ""))
        .await
        .expect("create");
    let mut request = ruling(&game.id, "White did not appear");
    request.forfeit = proto::Forfeit::White.into();
    let forfeited = set_result(&mut client, request).await.expect("forfeit");
    let result = forfeited.result.clone().expect("result");
    assert_eq!(result.outcome, Outcome::BlackWins as i32);
    assert_eq!(result.termination, Termination::Forfeit as i32);
    assert_eq!(points(&forfeited), owned("0", "1", true));

    // Both absent, and the game had been aborted: a double forfeit, 0-0.
    let game = create(&mut client, create_request("", ""))
        .await
        .expect("create");
    common::seat(&mut client, &game.white, common::abort(&game.id))
        .await
        .expect("abort");
    let mut request = ruling(&game.id, "neither player appeared");
    request.forfeit = proto::Forfeit::Both.into();
    let double = set_result(&mut client, request)
        .await
        .expect("double forfeit");
    assert_eq!(double.status, GameStatus::Finished as i32);
    assert_eq!(double.aborted_by, Color::Unspecified as i32);
    let result = double.result.clone().expect("result");
    assert_eq!(result.outcome, Outcome::DoubleForfeit as i32);
    assert_eq!(points(&double), owned("0", "0", true));
    let pgn = common::export_pgn(&mut client, &game.id).await;
    assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
    assert!(pgn.contains("Double forfeit"), "{pgn}");
}

async fn rulings_need_the_admin_token_and_well_formed_fields(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = create(&mut client, create_request("", ""))
        .await
        .expect("create");
    let mut valid = ruling(&game.id, "reason");
    valid.outcome = Outcome::WhiteWins.into();

    let status = client
        .set_result(common::with_token(&game.white, valid.clone()))
        .await
        .expect_err("a seat is not the arbiter");
    assert_eq!(status.code(), Code::PermissionDenied);
    let status = client
        .set_result(tonic::Request::new(valid.clone()))
        .await
        .expect_err("no token");
    assert_eq!(status.code(), Code::Unauthenticated);

    let mut no_reason = valid.clone();
    no_reason.reason = "  ".to_owned();
    let mut no_outcome = valid.clone();
    no_outcome.outcome = Outcome::Unspecified.into();
    let mut forfeit_with_outcome = valid.clone();
    forfeit_with_outcome.forfeit = proto::Forfeit::Black.into();
    for (request, field) in [
        (no_reason, "reason"),
        (no_outcome, "outcome"),
        (forfeit_with_outcome, "forfeit"),
    ] {
        let status = expect_code(
            set_result(&mut client, request).await,
            Code::InvalidArgument,
        );
        assert!(status.message().contains(field), "{}", status.message());
    }
    assert_eq!(
        common::get(&mut client, &game.id).await.version,
        1,
        "nothing changed"
    );
}

on_every_backend!(
    arbiters_decide_and_correct_results,
    forfeits_by_the_arbiter_are_unplayed,
    rulings_need_the_admin_token_and_well_formed_fields,
    classic_scoring_is_the_default,
    football_scores_three_one_nil,
    custom_points_may_differ_by_colour,
    armageddon_draws_go_to_black,
    a_no_show_is_scored_but_unplayed,
    aborted_games_score_nothing,
    malformed_scoring_is_refused,
);
