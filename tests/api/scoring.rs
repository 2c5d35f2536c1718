//! Scoring through the API: classic, football, custom per-colour points,
//! Armageddon, forfeits, and games that score nothing; the arbiter's
//! rulings and their idempotency.

use crate::common;

use std::time::Duration;

use arbiter::proto::{
    self, Color, GameStatus, Outcome, Termination, game_event::Kind, scoring::System,
    set_game_result_request::Ruling,
};
use common::{
    AdminClient, Backend, Client, NewGame, TestApp, accept_draw, create, create_request, drain,
    expect_code, export_pgn, get, get_full, kinds, offer_draw, pairing, play_line, reason, resign,
    score, seat, setup, watch,
};
use tonic::{Code, Status};
use tonic_types::StatusExt;

fn table(win: &str, draw: &str, loss: &str) -> proto::PointTable {
    proto::PointTable {
        win: win.to_owned(),
        draw: draw.to_owned(),
        loss: loss.to_owned(),
    }
}

fn scoring(preset: proto::ScoringPreset) -> proto::Scoring {
    proto::Scoring {
        system: Some(System::Preset(preset.into())),
        armageddon: false,
    }
}

fn custom(white: Option<proto::PointTable>, black: Option<proto::PointTable>) -> proto::Scoring {
    proto::Scoring {
        system: Some(System::Custom(proto::CustomScoring { white, black })),
        armageddon: false,
    }
}

fn points(game: &proto::Game) -> (String, String, bool) {
    let score = score(game);
    (
        score.white_points.clone(),
        score.black_points.clone(),
        score.unplayed,
    )
}

fn owned(white: &str, black: &str, unplayed: bool) -> (String, String, bool) {
    (white.to_owned(), black.to_owned(), unplayed)
}

/// The outcome on the board and the outcome the score counts.
fn outcomes(result: &proto::GameResult) -> (i32, i32) {
    let score = result.score.as_ref().expect("a scored result");
    (result.outcome, score.scored_as)
}

/// Plays 1. d4 d5 and agrees a draw; returns AcceptDraw's response.
async fn agree_a_draw(client: &mut Client, game: &NewGame) -> proto::AcceptDrawResponse {
    play_line(client, game, &["d4", "d5"]).await;
    seat(client, &game.white, offer_draw(&game.id))
        .await
        .expect("offer");
    client
        .accept_draw(common::with_token(&game.black, accept_draw(&game.id)))
        .await
        .expect("accept")
        .into_inner()
}

async fn agreed_draw(client: &mut Client, game: &NewGame) -> proto::Game {
    *agree_a_draw(client, game).await.game.expect("game")
}

async fn classic_scoring_is_the_default(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    let resolved = setup(&game.game).scoring.clone().expect("scoring");
    assert_eq!(resolved.white, Some(table("1", "0.5", "0")));
    assert_eq!(resolved.black, Some(table("1", "0.5", "0")));
    assert!(!resolved.armageddon);
    let end = play_line(&mut client, &game, &["f3", "e5", "g4", "Qh4#"]).await;
    assert_eq!(points(&end), owned("0", "1", false));
    let result = end.result.clone().expect("result");
    assert_eq!(
        outcomes(&result),
        (Outcome::BlackWins as i32, Outcome::BlackWins as i32)
    );

    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    let end = agreed_draw(&mut client, &game).await;
    assert_eq!(points(&end), owned("0.5", "0.5", false));
    let result = end.result.clone().expect("result");
    assert_eq!(
        outcomes(&result),
        (Outcome::Draw as i32, Outcome::Draw as i32)
    );
}

async fn football_scores_three_one_nil(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let mut request = create_request("", "");
    request.scoring = Some(scoring(proto::ScoringPreset::Football));
    let game = create(&mut admin, request.clone()).await.expect("create");
    let resolved = setup(&game.game).scoring.clone().expect("scoring");
    assert_eq!(resolved.white, Some(table("3", "1", "0")));
    assert_eq!(resolved.black, Some(table("3", "1", "0")));
    let end = seat(&mut client, &game.black, resign(&game.id))
        .await
        .expect("resign");
    assert_eq!(points(&end), owned("3", "0", false));
    let game = create(&mut admin, request).await.expect("create");
    let end = agreed_draw(&mut client, &game).await;
    assert_eq!(points(&end), owned("1", "1", false));
}

async fn custom_points_may_differ_by_colour(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let mut request = create_request("", "");
    request.scoring = Some(custom(
        Some(table("3", "1", "0")),
        Some(table("3", "1.5", "0")),
    ));
    let game = create(&mut admin, request).await.expect("create");
    let resolved = setup(&game.game).scoring.clone().expect("scoring");
    assert_eq!(resolved.white, Some(table("3", "1", "0")));
    assert_eq!(resolved.black, Some(table("3", "1.5", "0")));
    let end = agreed_draw(&mut client, &game).await;
    assert_eq!(points(&end), owned("1", "1.5", false));
    assert_eq!(
        end.result.clone().expect("result").outcome,
        Outcome::Draw as i32
    );

    // Black's table defaults to White's.
    let mut request = create_request("", "");
    request.scoring = Some(custom(Some(table("2", "1", "0")), None));
    let game = create(&mut admin, request).await.expect("create");
    let resolved = setup(&game.game).scoring.clone().expect("scoring");
    assert_eq!(resolved.black, Some(table("2", "1", "0")));
    let end = seat(&mut client, &game.white, resign(&game.id))
        .await
        .expect("resign");
    assert_eq!(points(&end), owned("0", "2", false));
}

/// Armageddon with time odds (White 5 minutes, Black 4): a draw stays a
/// draw on the board, with the termination unchanged, and is scored as a
/// win for Black; the response's events and the watcher say the same.
async fn armageddon_draws_go_to_black(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let minutes = |m: i32| proto::TimeControl {
        periods: vec![common::period(m * 60_000, 0, 0, 0)],
        ..Default::default()
    };
    let mut request = create_request("", "");
    request.time_control = Some(minutes(5));
    request.black_time_control = Some(minutes(4));
    request.scoring = Some(proto::Scoring {
        armageddon: true,
        ..scoring(proto::ScoringPreset::Classic)
    });
    let game = create(&mut admin, request).await.expect("create");
    assert!(
        setup(&game.game)
            .scoring
            .clone()
            .expect("scoring")
            .armageddon
    );
    let clock = game.game.clock.expect("clock");
    assert_eq!(clock.white_millis, 300_000);
    assert_eq!(clock.black_millis, 240_000);
    let mut stream = watch(&mut client, &game.id, 1).await;
    let accepted = agree_a_draw(&mut client, &game).await;
    let end = accepted.game.clone().expect("game");
    let result = end.result.clone().expect("result");
    assert_eq!(
        outcomes(&result),
        (Outcome::Draw as i32, Outcome::BlackWins as i32)
    );
    assert_eq!(result.termination, Termination::Agreement as i32);
    assert_eq!(points(&end), owned("0", "1", false));
    assert_eq!(kinds(&accepted.events), ["game_ended"]);
    let events = tokio::time::timeout(Duration::from_secs(20), drain(&mut stream))
        .await
        .expect("stream ends");
    let last = events.last().expect("events");
    assert_eq!(
        last, &accepted.events[0],
        "the response's event is the log's"
    );
    let Some(Kind::GameEnded(ended)) = last.kind.clone() else {
        panic!("ends with game_ended: {events:?}");
    };
    let streamed = ended.result.expect("result");
    assert_eq!(streamed, result);
    assert_eq!(
        outcomes(&streamed),
        (Outcome::Draw as i32, Outcome::BlackWins as i32)
    );
    assert_eq!(streamed.score.expect("score").black_points, "1");
    // Line breaks may fall anywhere between words.
    let pgn = export_pgn(&mut client, &game.id).await.replace('\n', " ");
    assert!(pgn.contains("[Result \"1/2-1/2\"]"), "{pgn}");
    assert!(pgn.contains("counts as a win for Black"), "{pgn}");
}

/// A draw on the board itself (insufficient material after a capture) in an
/// Armageddon game: the board's outcome is a draw everywhere it is shown,
/// and the score, Black's win, is what the standings count.
async fn an_armageddon_board_draw_is_reported_as_a_draw_and_scored_for_black(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Armageddon {board draw} – ♚";
    // White takes the last black knight: K+B against K, a dead position.
    let mut request = create_request("", "4k3/8/8/8/8/8/3n4/4K2B w - - 0 1");
    request.pairing = Some(pairing(event, 1, 1));
    request.scoring = Some(proto::Scoring {
        armageddon: true,
        ..scoring(proto::ScoringPreset::Classic)
    });
    let game = create(&mut admin, request).await.expect("create");
    let mut stream = watch(&mut client, &game.id, 1).await;
    let moved = client
        .make_move(common::with_token(
            &game.white,
            common::make_move(&game.id, 0, "Kxd2"),
        ))
        .await
        .expect("Kxd2")
        .into_inner();
    assert_eq!(kinds(&moved.events), ["move_made", "game_ended"]);

    let expected = |result: &proto::GameResult| {
        assert_eq!(result.outcome, Outcome::Draw as i32, "{result:?}");
        assert_eq!(
            result.termination,
            Termination::InsufficientMaterial as i32,
            "{result:?}"
        );
        let score = result.score.clone().expect("score");
        assert_eq!(score.scored_as, Outcome::BlackWins as i32, "{result:?}");
        assert_eq!(
            (score.white_points.as_str(), score.black_points.as_str()),
            ("0", "1")
        );
        assert!(!score.unplayed);
    };
    let Some(Kind::GameEnded(ended)) = &moved.events[1].kind else {
        unreachable!()
    };
    expected(ended.result.as_ref().expect("result"));
    expected(moved.game.expect("game").result.as_ref().expect("result"));
    let read = get(&mut client, &game.id).await;
    assert_eq!(read.status, GameStatus::Finished as i32);
    expected(read.result.as_ref().expect("result"));
    let events = tokio::time::timeout(Duration::from_secs(20), drain(&mut stream))
        .await
        .expect("stream ends");
    assert_eq!(kinds(&events), ["move_made", "game_ended"]);
    assert_eq!(events, moved.events);

    // The standings count Black's win: a win for Black, a loss for White.
    let table = client
        .get_standings(proto::GetStandingsRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("standings")
        .into_inner();
    assert_eq!(table.games_counted, 1);
    let line = |id: &str| {
        table
            .standings
            .iter()
            .find(|s| s.player.as_ref().is_some_and(|p| p.id == id))
            .cloned()
            .unwrap_or_else(|| panic!("{id} in {table:?}"))
    };
    let (white, black) = (line("alice"), line("bob"));
    assert_eq!(black.rank, 1);
    assert_eq!(black.points, "1");
    assert_eq!(
        (black.games_played, black.wins, black.draws, black.losses),
        (1, 1, 0, 0)
    );
    assert_eq!(white.rank, 2);
    assert_eq!(white.points, "0");
    assert_eq!(
        (white.games_played, white.wins, white.draws, white.losses),
        (1, 0, 0, 1)
    );

    // Line breaks may fall anywhere between words.
    let pgn = export_pgn(&mut client, &game.id).await.replace('\n', " ");
    assert!(pgn.contains("[Result \"1/2-1/2\"]"), "{pgn}");
    assert!(pgn.contains("counts as a win for Black"), "{pgn}");

    // Under football points the score follows Black's win too.
    let mut request = create_request("", "");
    request.pairing = Some(pairing(event, 2, 1));
    request.scoring = Some(proto::Scoring {
        armageddon: true,
        ..scoring(proto::ScoringPreset::Football)
    });
    let game = create(&mut admin, request).await.expect("create");
    let end = agreed_draw(&mut client, &game).await;
    let result = end.result.clone().expect("result");
    assert_eq!(
        outcomes(&result),
        (Outcome::Draw as i32, Outcome::BlackWins as i32)
    );
    assert_eq!(points(&end), owned("0", "3", false));
}

async fn a_no_show_is_scored_but_unplayed(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut request = create_request("", "");
    let start = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        + Duration::from_millis(100);
    request.scheduled_start_time = Some(prost_types::Timestamp {
        seconds: i64::try_from(start.as_secs()).expect("seconds"),
        nanos: i32::try_from(start.subsec_nanos()).expect("nanos"),
    });
    request.default_time_millis = 200;
    request.scoring = Some(scoring(proto::ScoringPreset::Football));
    let game = create(&mut app.admin_client().await, request)
        .await
        .expect("create");
    // Black is at the board, White never arrives.
    seat(&mut client, &game.black, common::check_in(&game.id))
        .await
        .expect("Black checks in");
    let mut stream = watch(&mut client, &game.id, 1).await;
    tokio::time::timeout(Duration::from_secs(20), drain(&mut stream))
        .await
        .expect("the default time ends the game");
    let end = get(&mut client, &game.id).await;
    let result = end.result.clone().expect("result");
    assert_eq!(result.termination, Termination::NoShow as i32);
    assert_eq!(
        outcomes(&result),
        (Outcome::BlackWins as i32, Outcome::BlackWins as i32)
    );
    assert_eq!(points(&end), owned("0", "3", true));
}

async fn aborted_games_score_nothing(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = create(&mut app.admin_client().await, create_request("", ""))
        .await
        .expect("create");
    let aborted = seat(&mut client, &game.black, common::abort(&game.id))
        .await
        .expect("abort");
    assert_eq!(aborted.status, GameStatus::Aborted as i32);
    assert_eq!(aborted.result, None);
    assert_eq!(aborted.aborted_by, Some(Color::Black as i32));
}

async fn malformed_scoring_is_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let cases = [
        (custom(None, None), "scoring.custom.white"),
        (
            custom(None, Some(table("1", "0.5", "0"))),
            "scoring.custom.white",
        ),
        (
            custom(Some(table("1", "two", "0")), None),
            "scoring.custom.white",
        ),
        (
            custom(Some(table("1", "0.5", "0.0001")), None),
            "scoring.custom.white",
        ),
        (
            custom(Some(table("0", "1", "0")), None),
            "scoring.custom.white",
        ),
        (
            custom(Some(table("5000", "1", "0")), None),
            "scoring.custom.white",
        ),
        (
            custom(Some(table("1", "0.5", "0")), Some(table("1", "", "0"))),
            "scoring.custom.black",
        ),
        (
            proto::Scoring {
                system: Some(System::Preset(99)),
                armageddon: false,
            },
            "scoring.preset",
        ),
    ];
    for (case, field) in cases {
        let mut request = create_request("", "");
        request.scoring = Some(case.clone());
        let status = expect_code(create(&mut admin, request).await, Code::InvalidArgument);
        assert_eq!(reason(&status), "INVALID_FIELD", "{case:?}");
        assert_eq!(bad_fields(&status), [field], "{case:?}: {status:?}");
    }
}

/// The fields a status's BadRequest names.
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

fn ruling(game_id: &str, reason: &str, ruling: Ruling) -> proto::SetGameResultRequest {
    proto::SetGameResultRequest {
        request_id: String::new(),
        game_id: game_id.to_owned(),
        ruling: Some(ruling),
        reason: reason.to_owned(),
    }
}

/// A result as if played, with the arbiter's termination.
fn played(outcome: Outcome) -> Ruling {
    Ruling::Played(proto::PlayedResult {
        outcome: outcome.into(),
        termination: Termination::Unspecified.into(),
    })
}

fn forfeit(who: proto::Forfeit) -> Ruling {
    Ruling::Forfeit(who.into())
}

async fn set_game_result(
    admin: &mut AdminClient,
    request: proto::SetGameResultRequest,
) -> Result<proto::SetGameResultResponse, Status> {
    admin
        .set_game_result(common::admin(request))
        .await
        .map(tonic::Response::into_inner)
}

async fn set_result(
    admin: &mut AdminClient,
    request: proto::SetGameResultRequest,
) -> Result<proto::Game, Status> {
    set_game_result(admin, request)
        .await
        .map(|response| *response.game.expect("game"))
}

/// An arbiter decides a game in progress and corrects a finished one; each
/// ruling is an event, and watchers resuming after the end receive it.
async fn arbiters_decide_and_correct_results(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;

    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    play_line(&mut client, &game, &["e4", "e5"]).await;
    let request = ruling(
        &game.id,
        "adjourned game adjudicated as drawn",
        played(Outcome::Draw),
    );
    let decided = set_game_result(&mut admin, request).await.expect("decide");
    assert_eq!(kinds(&decided.events), ["result_decided"]);
    let decided = decided.game.expect("game");
    assert_eq!(decided.status, GameStatus::Finished as i32);
    let result = decided.result.clone().expect("result");
    assert_eq!(result.termination, Termination::ArbiterDecision as i32);
    assert_eq!(points(&decided), owned("0.5", "0.5", false));

    // A finished game corrected: the mate stands, but the arbiter rules the
    // game lost by White for a rules infraction.
    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    let mated = play_line(
        &mut client,
        &game,
        &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"],
    )
    .await;
    assert_eq!(points(&mated), owned("1", "0", false));
    let request = ruling(
        &game.id,
        "a mobile phone rang (FIDE 11.3.2)",
        played(Outcome::BlackWins),
    );
    let corrected = set_result(&mut admin, request).await.expect("correct");
    assert_eq!(corrected.version, mated.version + 1);
    assert_eq!(corrected.ply, 7, "the moves stand");
    assert_eq!(get_full(&mut client, &game.id).await.moves.len(), 7);
    assert_eq!(points(&corrected), owned("0", "1", false));
    let events = drain(&mut watch(&mut client, &game.id, mated.version).await).await;
    assert_eq!(kinds(&events), ["result_decided"], "{events:?}");
    let Some(Kind::ResultDecided(decided)) = &events[0].kind else {
        unreachable!()
    };
    assert_eq!(decided.reason, "a mobile phone rang (FIDE 11.3.2)");
    let result = decided.result.as_ref().expect("result");
    assert_eq!(result.outcome, Outcome::BlackWins as i32);
    assert_eq!(result.score.as_ref().expect("score").black_points, "1");
}

async fn forfeits_by_the_arbiter_are_unplayed(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    let request = ruling(
        &game.id,
        "White did not appear",
        forfeit(proto::Forfeit::White),
    );
    let forfeited = set_result(&mut admin, request).await.expect("forfeit");
    let result = forfeited.result.clone().expect("result");
    assert_eq!(result.outcome, Outcome::BlackWins as i32);
    assert_eq!(result.termination, Termination::Forfeit as i32);
    assert_eq!(points(&forfeited), owned("0", "1", true));

    // Both absent, and the game had been aborted: a double forfeit, 0-0.
    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    seat(&mut client, &game.white, common::abort(&game.id))
        .await
        .expect("abort");
    let request = ruling(
        &game.id,
        "neither player appeared",
        forfeit(proto::Forfeit::Both),
    );
    let double = set_result(&mut admin, request)
        .await
        .expect("double forfeit");
    assert_eq!(double.status, GameStatus::Finished as i32);
    assert_eq!(double.aborted_by, None);
    let result = double.result.clone().expect("result");
    assert_eq!(result.outcome, Outcome::DoubleForfeit as i32);
    assert_eq!(points(&double), owned("0", "0", true));
    let pgn = export_pgn(&mut client, &game.id).await;
    assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
    assert!(pgn.contains("Double forfeit"), "{pgn}");
}

async fn rulings_need_the_admin_token_and_well_formed_fields(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    let valid = ruling(&game.id, "reason", played(Outcome::WhiteWins));

    let status = admin
        .set_game_result(common::with_token(&game.white, valid.clone()))
        .await
        .expect_err("a seat is not the arbiter");
    assert_eq!(status.code(), Code::PermissionDenied);
    assert_eq!(reason(&status), "NOT_ADMIN");
    let status = admin
        .set_game_result(tonic::Request::new(valid.clone()))
        .await
        .expect_err("no token");
    assert_eq!(status.code(), Code::Unauthenticated);
    assert_eq!(reason(&status), "MISSING_TOKEN");

    let no_reason = proto::SetGameResultRequest {
        reason: "  ".to_owned(),
        ..valid.clone()
    };
    let no_ruling = proto::SetGameResultRequest {
        ruling: None,
        ..valid.clone()
    };
    let no_outcome = proto::SetGameResultRequest {
        ruling: Some(played(Outcome::Unspecified)),
        ..valid.clone()
    };
    let double_forfeit_as_played = proto::SetGameResultRequest {
        ruling: Some(played(Outcome::DoubleForfeit)),
        ..valid.clone()
    };
    let nobody_forfeits = proto::SetGameResultRequest {
        ruling: Some(forfeit(proto::Forfeit::Unspecified)),
        ..valid.clone()
    };
    // Incoherent played results: a drawn no-show or forfeit (an unplayed
    // game is the forfeit ruling's), a drawn checkmate, a won stalemate.
    let played_as = |outcome: Outcome, termination: Termination| proto::SetGameResultRequest {
        ruling: Some(Ruling::Played(proto::PlayedResult {
            outcome: outcome.into(),
            termination: termination.into(),
        })),
        ..valid.clone()
    };
    for (request, field) in [
        (no_reason, "reason"),
        (no_ruling, "ruling"),
        (no_outcome, "played.outcome"),
        (double_forfeit_as_played, "played.outcome"),
        (nobody_forfeits, "forfeit"),
        (
            played_as(Outcome::Draw, Termination::NoShow),
            "played.termination",
        ),
        (
            played_as(Outcome::Draw, Termination::Forfeit),
            "played.termination",
        ),
        (
            played_as(Outcome::WhiteWins, Termination::NoShow),
            "played.termination",
        ),
        (
            played_as(Outcome::Draw, Termination::Checkmate),
            "played.termination",
        ),
        (
            played_as(Outcome::BlackWins, Termination::Stalemate),
            "played.termination",
        ),
    ] {
        let status = expect_code(set_result(&mut admin, request).await, Code::InvalidArgument);
        assert_eq!(reason(&status), "INVALID_FIELD", "{status:?}");
        assert_eq!(bad_fields(&status), [field], "{status:?}");
    }
    assert_eq!(
        get(&mut client, &game.id).await.version,
        1,
        "nothing changed"
    );
}

/// SetGameResult repeated with the same request_id rules once: the repeat
/// answers with the game as it stands and no events, even after a later
/// correction; the same key for another ruling is refused. Without a key,
/// every call is a ruling of its own.
async fn a_ruling_with_a_request_id_applies_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create");
    play_line(&mut client, &game, &["e4", "e5"]).await;

    let draw = proto::SetGameResultRequest {
        request_id: "ruling-1".to_owned(),
        ..ruling(&game.id, "adjudicated as drawn", played(Outcome::Draw))
    };
    let first = set_game_result(&mut admin, draw.clone())
        .await
        .expect("decide");
    assert_eq!(kinds(&first.events), ["result_decided"]);
    let first = first.game.expect("game");
    assert_eq!(first.status, GameStatus::Finished as i32);
    assert_eq!(first.version, 4);
    let again = set_game_result(&mut admin, draw.clone())
        .await
        .expect("the same ruling again");
    assert!(again.events.is_empty(), "{:?}", again.events);
    let again = again.game.expect("game");
    assert_eq!(again.version, 4);
    assert_eq!(again.result, first.result);

    for other in [
        proto::SetGameResultRequest {
            ruling: Some(played(Outcome::WhiteWins)),
            ..draw.clone()
        },
        proto::SetGameResultRequest {
            ruling: Some(forfeit(proto::Forfeit::Black)),
            ..draw.clone()
        },
        proto::SetGameResultRequest {
            reason: "another reason".to_owned(),
            ..draw.clone()
        },
    ] {
        let status = expect_code(
            set_game_result(&mut admin, other).await,
            Code::AlreadyExists,
        );
        assert_eq!(reason(&status), "REQUEST_ID_REUSED", "{status:?}");
    }

    // A correction under a new key applies; the first ruling repeated
    // after it does not undo it.
    let correction = proto::SetGameResultRequest {
        request_id: "ruling-2".to_owned(),
        ..ruling(
            &game.id,
            "the draw was never agreed",
            played(Outcome::WhiteWins),
        )
    };
    let corrected = set_game_result(&mut admin, correction)
        .await
        .expect("correct");
    assert_eq!(kinds(&corrected.events), ["result_decided"]);
    let late = set_game_result(&mut admin, draw)
        .await
        .expect("late repeat");
    assert!(late.events.is_empty(), "{:?}", late.events);
    let late = late.game.expect("game");
    assert_eq!(late.version, 5);
    assert_eq!(points(&late), owned("1", "0", false));

    // Without a key, the same ruling twice is two rulings.
    let keyless = ruling(&game.id, "confirmed", played(Outcome::WhiteWins));
    for version in [6, 7] {
        let confirmed = set_game_result(&mut admin, keyless.clone())
            .await
            .expect("rule without a key");
        assert_eq!(kinds(&confirmed.events), ["result_decided"]);
        assert_eq!(confirmed.game.expect("game").version, version);
    }

    let events = drain(&mut watch(&mut client, &game.id, 1).await).await;
    assert_eq!(
        kinds(&events),
        [
            "move_made",
            "move_made",
            "result_decided",
            "result_decided",
            "result_decided",
            "result_decided"
        ]
    );
    let read = get(&mut client, &game.id).await;
    assert_eq!(read.version, 7);
    assert_eq!(points(&read), owned("1", "0", false));
}

on_every_backend!(
    arbiters_decide_and_correct_results,
    forfeits_by_the_arbiter_are_unplayed,
    rulings_need_the_admin_token_and_well_formed_fields,
    a_ruling_with_a_request_id_applies_once,
    classic_scoring_is_the_default,
    football_scores_three_one_nil,
    custom_points_may_differ_by_colour,
    armageddon_draws_go_to_black,
    an_armageddon_board_draw_is_reported_as_a_draw_and_scored_for_black,
    a_no_show_is_scored_but_unplayed,
    aborted_games_score_nothing,
    malformed_scoring_is_refused,
);
