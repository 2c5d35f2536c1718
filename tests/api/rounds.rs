//! Rounds over gRPC: a whole round created in one request, all or
//! nothing; started together; read back board by board; and its byes
//! counted in standings and the TRF without being repeated.

use crate::common;

use arbiter::proto;
use common::{
    AdminClient, Backend, Client, TestApp, admin, expect_code, get, make_move, period, reason,
    seat, with_token,
};
use tonic::Code;
use tonic_types::StatusExt;

fn player(id: &str) -> proto::Player {
    proto::Player {
        id: id.to_owned(),
        name: format!("Player {}", id.to_uppercase()),
        ..Default::default()
    }
}

fn board(number: i32, white: &str, black: &str) -> proto::RoundBoard {
    proto::RoundBoard {
        board: number,
        white: Some(player(white)),
        black: Some(player(black)),
        overrides: None,
    }
}

fn bye(id: &str, kind: proto::ByeKind) -> proto::RoundBye {
    proto::RoundBye {
        player: Some(player(id)),
        kind: kind.into(),
    }
}

fn rapid() -> proto::RoundSettings {
    proto::RoundSettings {
        time_control: Some(proto::TimeControl {
            periods: vec![period(600_000, 0, 5_000, 0)],
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn round_request(
    event: &str,
    round: i32,
    boards: Vec<proto::RoundBoard>,
) -> proto::CreateRoundRequest {
    proto::CreateRoundRequest {
        request_id: format!("{}-round-{round}", event.replace([' ', '{', '}'], "")),
        event_id: event.to_owned(),
        round,
        settings: Some(rapid()),
        boards,
        ..Default::default()
    }
}

async fn create_round(
    admin_client: &mut AdminClient,
    request: proto::CreateRoundRequest,
) -> Result<proto::CreateRoundResponse, tonic::Status> {
    admin_client
        .create_round(admin(request))
        .await
        .map(tonic::Response::into_inner)
}

async fn start_round(
    admin_client: &mut AdminClient,
    event: &str,
    round: i32,
) -> proto::StartRoundResponse {
    admin_client
        .start_round(admin(proto::StartRoundRequest {
            event_id: event.to_owned(),
            round,
        }))
        .await
        .expect("start round")
        .into_inner()
}

async fn get_round(
    admin_client: &mut AdminClient,
    event: &str,
    round: i32,
    page_size: i32,
    page_token: &str,
) -> Result<proto::GetRoundResponse, tonic::Status> {
    admin_client
        .get_round(admin(proto::GetRoundRequest {
            event_id: event.to_owned(),
            round,
            page_size,
            page_token: page_token.to_owned(),
        }))
        .await
        .map(tonic::Response::into_inner)
}

async fn listed(client: &mut Client, event: &str) -> Vec<proto::Game> {
    client
        .list_games(proto::ListGamesRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner()
        .games
}

/// The fields a refusal's BadRequest names, in order.
fn violations(status: &tonic::Status) -> Vec<String> {
    status
        .get_details_bad_request()
        .map(|bad| bad.field_violations.into_iter().map(|v| v.field).collect())
        .unwrap_or_default()
}

async fn a_round_is_created_whole_then_started_together(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "Open {R} 2026";
    let mut request = round_request(
        event,
        1,
        vec![board(1, "a", "b"), board(2, "c", "d"), board(3, "e", "f")],
    );
    request.byes = vec![bye("g", proto::ByeKind::PairingAllocated)];
    let created = create_round(&mut admin_client, request.clone())
        .await
        .expect("created");
    let round = created.round.clone().expect("round");
    assert_eq!((round.round, round.board_count), (1, 3));
    assert_eq!(round.byes.len(), 1);
    assert!(round.start_time.is_none());
    assert_eq!(created.games.len(), 3);
    let boards: Vec<i32> = created.games.iter().map(|g| g.board).collect();
    assert_eq!(boards, [1, 2, 3]);

    // Every game waits for the round's start: pending, no clock running,
    // and a move is refused as not started.
    let first = &created.games[0];
    let game = get(&mut client, &first.game_id).await;
    assert_eq!(game.status(), proto::GameStatus::Pending);
    assert!(game.awaits_start);
    assert_eq!(
        game.setup
            .as_ref()
            .expect("setup")
            .pairing
            .as_ref()
            .expect("pairing")
            .board,
        1
    );
    let refused = seat(
        &mut client,
        &first.white_token,
        make_move(&first.game_id, 0, "e4"),
    )
    .await;
    let status = expect_code(refused, Code::FailedPrecondition);
    assert_eq!(reason(&status), "NOT_STARTED");
    assert_eq!(listed(&mut client, event).await.len(), 3);

    // One call starts them all, each with an event naming who did.
    let started = start_round(&mut admin_client, event, 1).await;
    assert_eq!(
        (
            started.started_games,
            started.already_started_games,
            started.finished_games
        ),
        (3, 0, 0)
    );
    let round = started.round.expect("round");
    assert!(round.start_time.is_some());
    assert_eq!(round.started_by, "admin");
    let game = get(&mut client, &first.game_id).await;
    assert_eq!(game.status(), proto::GameStatus::Active);
    assert!(!game.awaits_start);
    assert_eq!(game.start_time, round.start_time);
    let clock = game.clock.expect("clock");
    assert_eq!(clock.running(), proto::Color::White);
    // The event after the creation (version 1) is the start.
    let mut stream = common::watch(&mut client, &first.game_id, 1).await;
    let seen = loop {
        let message = common::next_within(&mut stream, common::STREAM_PATIENCE)
            .await
            .expect("an event")
            .expect("a message");
        if let Some(proto::watch_game_response::Kind::Event(event)) = message.kind {
            break vec![event];
        }
    };
    assert_eq!(common::kinds(&seen), ["game_started"]);
    match &seen[0].kind {
        Some(proto::game_event::Kind::GameStarted(started)) => assert_eq!(started.by, "admin"),
        other => panic!("expected game_started, got {other:?}"),
    }
    seat(
        &mut client,
        &first.white_token,
        make_move(&first.game_id, 0, "e4"),
    )
    .await
    .expect("the move is played once the round has started");

    // Starting again changes nothing.
    let again = start_round(&mut admin_client, event, 1).await;
    assert_eq!((again.started_games, again.already_started_games), (0, 3));
    assert_eq!(again.round.expect("round").start_time, round.start_time);

    // The same request again: the same games and tokens.
    let repeated = create_round(&mut admin_client, request)
        .await
        .expect("repeat");
    assert_eq!(repeated.games, created.games);
}

async fn a_round_is_read_back_board_by_board_in_pages(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "Paged";
    // Boards sent out of order come back in board order.
    let boards = (1..=7)
        .rev()
        .map(|n| board(n, &format!("w{n}"), &format!("b{n}")))
        .collect();
    let created = create_round(&mut admin_client, round_request(event, 2, boards))
        .await
        .expect("created");
    start_round(&mut admin_client, event, 2).await;
    let board_3 = created
        .games
        .iter()
        .find(|g| g.board == 3)
        .expect("board 3");
    seat(
        &mut client,
        &board_3.white_token,
        make_move(&board_3.game_id, 0, "d4"),
    )
    .await
    .expect("move");
    seat(
        &mut client,
        &board_3.black_token,
        common::resign(&board_3.game_id),
    )
    .await
    .expect("resign");
    common::seat(
        &mut client,
        &created.games[0].white_token,
        common::check_in(&created.games[0].game_id),
    )
    .await
    .expect("check in");

    let mut token = String::new();
    let mut seen = Vec::new();
    loop {
        let page = get_round(&mut admin_client, event, 2, 3, &token)
            .await
            .expect("page");
        assert!(page.boards.len() <= 3);
        assert_eq!(page.round.as_ref().expect("round").board_count, 7);
        seen.extend(page.boards);
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    let numbers: Vec<i32> = seen.iter().map(|b| b.board).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5, 6, 7]);
    let third = &seen[2];
    assert_eq!(third.status(), proto::GameStatus::Finished);
    assert_eq!(third.ply, 1);
    assert_eq!(third.side_to_move(), proto::Color::Black);
    let result = third.result.as_ref().expect("result");
    assert_eq!(result.outcome(), proto::Outcome::WhiteWins);
    assert_eq!(result.termination(), proto::Termination::Resignation);
    assert!(third.white_present && !third.black_present);
    let seventh = &seen[6];
    assert_eq!(seventh.status(), proto::GameStatus::Active);
    assert!(seventh.white_present && !seventh.black_present);
    assert!(seventh.clock.is_some());
    assert_eq!(seventh.white.as_ref().expect("white").id, "w7");

    // A token of another round is refused; an unknown round is not found.
    let other = get_round(&mut admin_client, event, 3, 3, "").await;
    assert_eq!(
        reason(&expect_code(other, Code::NotFound)),
        "ROUND_NOT_FOUND"
    );
    let first = get_round(&mut admin_client, event, 2, 3, "")
        .await
        .expect("page");
    let mismatched = get_round(&mut admin_client, "Other", 2, 3, &first.next_page_token).await;
    expect_code(mismatched, Code::InvalidArgument);
}

async fn a_round_with_any_offending_board_is_refused_whole(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "Refusals";
    // A game CreateGame made on board 4 of round 1, between x and y.
    let mut existing = common::create_request("", "");
    existing.pairing = Some(common::pairing(event, 1, 4));
    existing.white = Some(player("x"));
    existing.black = Some(player("y"));
    common::create(&mut admin_client, existing)
        .await
        .expect("game");

    let mut bad_clock = board(3, "e", "f");
    bad_clock.overrides = Some(proto::BoardOverrides {
        time_control: Some(proto::TimeControl::default()),
        ..Default::default()
    });
    let mut request = round_request(
        event,
        1,
        vec![
            board(1, "a", "b"),
            board(1, "c", "d"),
            bad_clock,
            board(4, "y", "x"),
            board(5, "a", "g"),
        ],
    );
    request.byes = vec![bye("c", proto::ByeKind::HalfPoint)];
    let refused = create_round(&mut admin_client, request).await;
    let status = expect_code(refused, Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_FIELD");
    let mut fields = violations(&status);
    fields.sort();
    assert_eq!(
        fields,
        [
            "boards[1].board",
            "boards[2].overrides.time_control",
            "boards[3]",
            "boards[4].white.id",
            "byes[0].player.id",
        ],
        "{status:?}"
    );
    // Nothing was created: the event still has CreateGame's game only,
    // and no round.
    assert_eq!(listed(&mut client, event).await.len(), 1);
    let missing = get_round(&mut admin_client, event, 1, 0, "").await;
    expect_code(missing, Code::NotFound);

    // Even the same players on board 4: that game is not the round's.
    let status = expect_code(
        create_round(
            &mut admin_client,
            round_request(event, 1, vec![board(1, "a", "b"), board(4, "x", "y")]),
        )
        .await,
        Code::InvalidArgument,
    );
    assert_eq!(violations(&status), ["boards[1]"]);
    // Another round of the event is free.
    create_round(
        &mut admin_client,
        round_request(event, 2, vec![board(1, "a", "b"), board(4, "x", "y")]),
    )
    .await
    .expect("created");
    assert_eq!(listed(&mut client, event).await.len(), 3);
}

async fn a_round_is_created_once_whatever_the_requests(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let event = "Once";
    let request = round_request(event, 1, vec![board(1, "a", "b")]);
    create_round(&mut admin_client, request.clone())
        .await
        .expect("created");
    // The same key for another round: reused.
    let mut other = request.clone();
    other.boards = vec![board(1, "b", "a")];
    let status = expect_code(
        create_round(&mut admin_client, other.clone()).await,
        Code::AlreadyExists,
    );
    assert_eq!(reason(&status), "REQUEST_ID_REUSED");
    // Another key (or none) for other pairings of a round that exists.
    other.request_id = String::new();
    let status = expect_code(
        create_round(&mut admin_client, other).await,
        Code::AlreadyExists,
    );
    assert_eq!(reason(&status), "ROUND_EXISTS");
    let info = status.get_details_error_info().expect("error info");
    assert_eq!(info.metadata.get("round").map(String::as_str), Some("1"));
    // The same pairings without a key: the round as it is.
    let mut same = request;
    same.request_id = String::new();
    create_round(&mut admin_client, same)
        .await
        .expect("the same round");
}

async fn oversized_and_out_of_range_rounds_are_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let event = "Bounds";
    let huge: Vec<proto::RoundBoard> = (1..=10_000)
        .map(|n| board(n, &format!("w{n}"), &format!("b{n}")))
        .collect();
    let status = expect_code(
        create_round(&mut admin_client, round_request(event, 1, huge)).await,
        Code::InvalidArgument,
    );
    assert_eq!(violations(&status), ["boards"]);
    for number in [0, -1, 1001, i32::MAX] {
        let status = expect_code(
            create_round(
                &mut admin_client,
                round_request(event, number, vec![board(1, "a", "b")]),
            )
            .await,
            Code::InvalidArgument,
        );
        assert_eq!(violations(&status), ["round"], "round {number}");
    }
    let status = expect_code(
        create_round(&mut admin_client, round_request(event, 1, Vec::new())).await,
        Code::InvalidArgument,
    );
    assert_eq!(violations(&status), ["boards"]);
    // Player ids that collide: one id on two boards.
    let status = expect_code(
        create_round(
            &mut admin_client,
            round_request(event, 1, vec![board(1, "a", "b"), board(2, "c", "a")]),
        )
        .await,
        Code::InvalidArgument,
    );
    assert_eq!(violations(&status), ["boards[1].black.id"]);
    // A round-wide setting cannot be refused on one board only: a default
    // time with a scheduled start it counts from is fine, a bad scoring in
    // the settings is named once.
    let mut request = round_request(event, 1, vec![board(1, "a", "b"), board(2, "c", "d")]);
    request.settings = Some(proto::RoundSettings {
        scoring: Some(proto::Scoring {
            system: Some(proto::scoring::System::Custom(proto::CustomScoring {
                white: Some(proto::PointTable {
                    win: "1".into(),
                    draw: "2".into(),
                    loss: "0".into(),
                }),
                black: None,
            })),
            armageddon: false,
        }),
        ..rapid()
    });
    let status = expect_code(
        create_round(&mut admin_client, request).await,
        Code::InvalidArgument,
    );
    assert_eq!(violations(&status), ["settings.scoring.custom.white"]);
    // An override that contradicts the round's settings: Black's own
    // control on an untimed round.
    let mut untimed = round_request(event, 1, vec![board(1, "a", "b")]);
    untimed.settings = Some(proto::RoundSettings::default());
    untimed.boards[0].overrides = Some(proto::BoardOverrides {
        black_time_control: rapid().time_control,
        ..Default::default()
    });
    let status = expect_code(
        create_round(&mut admin_client, untimed).await,
        Code::InvalidArgument,
    );
    assert_eq!(
        violations(&status),
        ["boards[0].overrides.black_time_control"]
    );
    // Without the admin token: refused.
    let unauthorised = admin_client
        .create_round(with_token(
            "nope",
            round_request(event, 1, vec![board(1, "a", "b")]),
        ))
        .await;
    expect_code(unauthorised, Code::PermissionDenied);
}

async fn a_rounds_byes_count_in_standings_and_the_trf(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "Byes";
    let mut request = round_request(event, 1, vec![board(1, "a", "b")]);
    request.byes = vec![
        bye("c", proto::ByeKind::PairingAllocated),
        bye("d", proto::ByeKind::HalfPoint),
    ];
    let created = create_round(&mut admin_client, request)
        .await
        .expect("created");
    start_round(&mut admin_client, event, 1).await;
    let game = &created.games[0];
    seat(
        &mut client,
        &game.black_token,
        common::resign(&game.game_id),
    )
    .await
    .expect("resign");
    let standings = client
        .get_standings(proto::GetStandingsRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("standings")
        .into_inner()
        .standings;
    let points: Vec<(String, String)> = standings
        .iter()
        .map(|s| {
            (
                s.player.as_ref().expect("player").id.clone(),
                s.points.clone(),
            )
        })
        .collect();
    // The bye's Buchholz counts its own score (FIDE C.07 16.4), so c
    // ranks above a.
    assert_eq!(
        points,
        [
            ("c".to_owned(), "1".to_owned()),
            ("a".to_owned(), "1".to_owned()),
            ("d".to_owned(), "0.5".to_owned()),
            ("b".to_owned(), "0".to_owned()),
        ]
    );
    // Repeating a round's bye in the request changes nothing.
    let repeated = client
        .get_standings(proto::GetStandingsRequest {
            event_id: event.to_owned(),
            byes: vec![proto::Bye {
                player_id: "c".into(),
                round: 1,
                kind: proto::ByeKind::PairingAllocated.into(),
            }],
            ..Default::default()
        })
        .await
        .expect("standings")
        .into_inner()
        .standings;
    assert_eq!(repeated, standings);

    let trf = client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("trf")
        .into_inner()
        .trf;
    let line = |name: &str| {
        trf.lines()
            .find(|l| l.starts_with("001") && l.contains(name))
            .unwrap_or_else(|| panic!("a line for {name} in {trf}"))
            .to_owned()
    };
    assert!(line("Player C").ends_with("0000 - U"), "{trf}");
    assert!(line("Player D").ends_with("0000 - H"), "{trf}");
    // A game made later, on its own, for a player the round gave a bye:
    // refused, the round's games are the round's.
    let mut late = common::create_request("", "");
    late.pairing = Some(common::pairing(event, 1, 9));
    late.white = Some(player("d"));
    late.black = Some(player("z"));
    let status = expect_code(
        common::create(&mut admin_client, late).await,
        Code::AlreadyExists,
    );
    assert_eq!(reason(&status), "ROUND_EXISTS");
}

async fn a_rounds_rules_forbid_aborts_and_given_time(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "Strict";
    let mut request = round_request(event, 1, vec![board(1, "a", "b")]);
    request.settings = Some(proto::RoundSettings {
        rules: Some(proto::GameRules {
            no_abort: true,
            no_give_time: true,
            draw_offers_from_move: 30,
            ..Default::default()
        }),
        ..rapid()
    });
    let created = create_round(&mut admin_client, request)
        .await
        .expect("created");
    start_round(&mut admin_client, event, 1).await;
    let game = &created.games[0];
    let rules = get(&mut client, &game.game_id)
        .await
        .setup
        .expect("setup")
        .rules
        .expect("rules");
    assert!(rules.no_abort && rules.no_give_time);
    assert_eq!(rules.draw_offers_from_move, 30);

    let status = expect_code(
        seat(&mut client, &game.white_token, common::abort(&game.game_id)).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "ABORT_NOT_ALLOWED");
    let give = |players_request: bool, delta: i32| proto::AdjustClockRequest {
        game_id: game.game_id.clone(),
        color: proto::Color::Black.into(),
        delta_millis: delta,
        reason: "White gives Black 15 s".into(),
        players_request,
        ..Default::default()
    };
    let status = expect_code(
        admin_client.adjust_clock(admin(give(true, 15_000))).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "GIVE_TIME_NOT_ALLOWED");
    // The arbiter's own adjustment stands.
    admin_client
        .adjust_clock(admin(give(false, 60_000)))
        .await
        .expect("the arbiter adds time");
    // Where the rules allow it, a player's gift is an addition only.
    let open = create_round(
        &mut admin_client,
        round_request(event, 2, vec![board(1, "c", "d")]),
    )
    .await
    .expect("created");
    let open_game = &open.games[0];
    let mut gift = give(true, -5_000);
    gift.game_id = open_game.game_id.clone();
    expect_code(
        admin_client.adjust_clock(admin(gift.clone())).await,
        Code::InvalidArgument,
    );
    gift.delta_millis = 5_000;
    admin_client
        .adjust_clock(admin(gift))
        .await
        .expect("a player gives time");

    // The round's status shows who the platform reports gone.
    let reported = admin_client
        .report_connection(admin(proto::ReportConnectionRequest {
            game_id: game.game_id.clone(),
            color: proto::Color::Black.into(),
            connected: false,
        }))
        .await
        .expect("Black reported gone")
        .into_inner();
    let left = reported.game.expect("game").black_left_time;
    assert!(left.is_some());
    let status = get_round(&mut admin_client, event, 1, 0, "")
        .await
        .expect("the round");
    assert_eq!(status.boards[0].black_left_time, left);
    assert_eq!(status.boards[0].white_left_time, None);
}

async fn a_round_and_games_made_beside_it_never_share_a_round(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let event = "Beside";
    create_round(
        &mut admin_client,
        round_request(event, 1, vec![board(1, "a", "b")]),
    )
    .await
    .expect("created");
    // CreateGame in a round that has a record: refused.
    let mut alone = common::create_request("", "");
    alone.pairing = Some(common::pairing(event, 1, 2));
    alone.white = Some(player("c"));
    alone.black = Some(player("d"));
    let status = expect_code(
        common::create(&mut admin_client, alone.clone()).await,
        Code::AlreadyExists,
    );
    assert_eq!(reason(&status), "ROUND_EXISTS");
    // In another round it is made, and that round can no longer be
    // created whole.
    alone.pairing = Some(common::pairing(event, 2, 2));
    common::create(&mut admin_client, alone)
        .await
        .expect("a game on its own");
    let status = expect_code(
        create_round(
            &mut admin_client,
            round_request(event, 2, vec![board(1, "a", "b")]),
        )
        .await,
        Code::InvalidArgument,
    );
    assert_eq!(violations(&status), ["boards"]);

    // A listing a refused CreateGame left behind (its key reused for
    // round 3) takes no board: round 3 is created whole.
    let mut reused = common::create_request("reused-key", "");
    reused.pairing = Some(common::pairing(event, 4, 1));
    reused.white = Some(player("e"));
    reused.black = Some(player("f"));
    common::create(&mut admin_client, reused.clone())
        .await
        .expect("made in round 4");
    reused.pairing = Some(common::pairing(event, 3, 1));
    let status = expect_code(
        common::create(&mut admin_client, reused).await,
        Code::AlreadyExists,
    );
    assert_eq!(reason(&status), "REQUEST_ID_REUSED");
    create_round(
        &mut admin_client,
        round_request(event, 3, vec![board(1, "a", "b")]),
    )
    .await
    .expect("round 3, whatever the stray listing");
}

async fn a_round_the_event_cannot_hold_is_refused_before_any_game(backend: Backend) {
    let mut settings = common::settings(backend.store());
    settings.max_event_games = 4;
    let app = TestApp::spawn_with(settings, None).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "Small";
    create_round(
        &mut admin_client,
        round_request(event, 1, vec![board(1, "a", "b"), board(2, "c", "d")]),
    )
    .await
    .expect("two of four");
    let status = expect_code(
        create_round(
            &mut admin_client,
            round_request(
                event,
                2,
                (1..=3)
                    .map(|n| board(n, &format!("w{n}"), &format!("b{n}")))
                    .collect(),
            ),
        )
        .await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "EVENT_FULL");
    assert_eq!(listed(&mut client, event).await.len(), 2);
    expect_code(
        get_round(&mut admin_client, event, 2, 0, "").await,
        Code::NotFound,
    );
}

async fn an_event_stream_of_one_round_carries_only_its_games(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "Streamed {rounds}";
    create_round(
        &mut admin_client,
        round_request(event, 1, vec![board(1, "a", "b")]),
    )
    .await
    .expect("round 1");
    let second = create_round(
        &mut admin_client,
        round_request(event, 2, vec![board(1, "b", "a"), board(2, "c", "d")]),
    )
    .await
    .expect("round 2");
    start_round(&mut admin_client, event, 1).await;
    start_round(&mut admin_client, event, 2).await;
    let round_two: Vec<&str> = second.games.iter().map(|g| g.game_id.as_str()).collect();
    // The public, and the admin: each sees round 2's games only.
    for admin_reader in [false, true] {
        let request = proto::WatchEventRequest {
            event_id: event.to_owned(),
            after_cursor: String::new(),
            round: 2,
        };
        let mut stream = if admin_reader {
            client.watch_event(admin(request)).await
        } else {
            client.watch_event(request).await
        }
        .expect("watch")
        .into_inner();
        let mut seen = Vec::new();
        while seen.len() < 4 {
            let message = common::next_within(&mut stream, common::STREAM_PATIENCE)
                .await
                .expect("open")
                .expect("a message");
            if let Some(proto::watch_event_response::Kind::Event(event)) = message.kind {
                seen.push(event);
            }
        }
        assert!(
            seen.iter().all(|e| round_two.contains(&e.game_id.as_str())),
            "{seen:?}"
        );
        // Each of round 2's games: its creation, then its start.
        for game in &round_two {
            let of_game: Vec<proto::GameEvent> = seen
                .iter()
                .filter(|e| e.game_id == *game)
                .cloned()
                .collect();
            assert_eq!(common::kinds(&of_game), ["game_created", "game_started"]);
        }
    }
    let refused = client
        .watch_event(proto::WatchEventRequest {
            event_id: event.to_owned(),
            after_cursor: String::new(),
            round: -1,
        })
        .await;
    expect_code(refused, Code::InvalidArgument);
}

on_every_backend!(
    an_event_stream_of_one_round_carries_only_its_games,
    a_round_and_games_made_beside_it_never_share_a_round,
    a_round_the_event_cannot_hold_is_refused_before_any_game,
    a_rounds_rules_forbid_aborts_and_given_time,
    a_round_is_created_whole_then_started_together,
    a_round_is_read_back_board_by_board_in_pages,
    a_round_with_any_offending_board_is_refused_whole,
    a_round_is_created_once_whatever_the_requests,
    oversized_and_out_of_range_rounds_are_refused,
    a_rounds_byes_count_in_standings_and_the_trf,
);
