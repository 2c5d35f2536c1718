//! A drawn team match's tie-break game through the API: made only for a
//! drawn match, between the two line-ups, under Armageddon; listed with
//! its round, deciding the match's match points and nothing else; every
//! bad request refused with its field or reason, nothing made.

use arbiter::proto::{self, watch_event_response::Kind};
use tonic::Code;

use crate::{
    common::{Backend, Client, TestApp, admin, expect_code, export_pgn_of, reason, setup},
    teams::{create_matches, full_of, next_kind, register, roster, set_result},
};

fn minutes(n: i32) -> proto::TimeControl {
    proto::TimeControl {
        periods: vec![proto::TimeControlPeriod {
            time_millis: n * 60_000,
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn tie_break(event: &str, white: &str, black: &str) -> proto::CreateMatchTieBreakRequest {
    proto::CreateMatchTieBreakRequest {
        event_id: event.to_owned(),
        round: 1,
        table: 1,
        white_player_id: white.to_owned(),
        black_player_id: black.to_owned(),
        // Armageddon's 5 minutes against 4.
        settings: Some(proto::RoundSettings {
            time_control: Some(minutes(5)),
            black_time_control: Some(minutes(4)),
            ..Default::default()
        }),
    }
}

async fn team_standings(
    client: &mut Client,
    event: &str,
    match_points: Option<proto::TeamMatchPoints>,
) -> proto::GetTeamStandingsResponse {
    client
        .get_team_standings(proto::GetTeamStandingsRequest {
            event_id: event.to_owned(),
            tie_breaks: vec!["WIN".to_owned()],
            match_points,
            ..Default::default()
        })
        .await
        .expect("the standings")
        .into_inner()
}

fn rows(read: &proto::GetTeamStandingsResponse) -> Vec<(&str, &str, &str, &str)> {
    read.standings
        .iter()
        .map(|r| {
            (
                r.team_id.as_str(),
                r.match_points.as_str(),
                r.game_points.as_str(),
                r.tie_break_values[0].as_str(),
            )
        })
        .collect()
}

/// A match of two boards drawn 1–1 gets an Armageddon game: it decides
/// the match for the team whose player wins it (Black on a draw), and no
/// individual standing counts it.
async fn a_drawn_match_is_decided_by_its_tie_break_game(backend: Backend) {
    let app = TestApp::spawn_with_heartbeat(backend, std::time::Duration::from_millis(200)).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "armageddon";
    let teams = ["a", "b"].iter().map(|t| roster(t, 3)).collect();
    register(&mut admin_client, event, 2, teams, 0)
        .await
        .expect("registered");
    let created = create_matches(&mut admin_client, event, 1, vec![full_of(1, "a", "b", 2)])
        .await
        .expect("a round");
    // Board 1: a1 (White) beats b1.
    set_result(
        &mut admin_client,
        &created.games[0].game_id,
        proto::Outcome::WhiteWins,
    )
    .await;
    // A board still to play: no tie-break yet.
    let early = expect_code(
        admin_client
            .create_match_tie_break(admin(tie_break(event, "b1", "a1")))
            .await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&early), "MATCH_NOT_DRAWN");
    assert!(early.message().contains("1 of its 2 boards"), "{early:?}");
    // Board 2: b2 (White) beats a2: 1–1.
    set_result(
        &mut admin_client,
        &created.games[1].game_id,
        proto::Outcome::WhiteWins,
    )
    .await;

    let made = admin_client
        .create_match_tie_break(admin(tie_break(event, "b1", "a1")))
        .await
        .expect("a tie-break game")
        .into_inner();
    let game = made.tie_break.clone().expect("the game");
    assert_eq!(game.table, 1);
    assert_eq!(
        (game.white_team_id.as_str(), game.black_team_id.as_str()),
        ("b", "a")
    );
    let white = game.white.clone().expect("white");
    assert_eq!((white.id.as_str(), white.team.as_str()), ("b1", "Team B"));
    assert!(!made.white_token.is_empty() && !made.black_token.is_empty());
    // A repeat returns the same game and tokens; other players are
    // refused.
    let again = admin_client
        .create_match_tie_break(admin(tie_break(event, "b1", "a1")))
        .await
        .expect("the same game")
        .into_inner();
    assert_eq!(again, made);
    let other = expect_code(
        admin_client
            .create_match_tie_break(admin(tie_break(event, "b2", "a1")))
            .await,
        Code::AlreadyExists,
    );
    assert_eq!(reason(&other), "TIE_BREAK_EXISTS");

    // The game: of the round, listed at the match's first board, under
    // Armageddon with time odds; the round lists it.
    let read = client
        .get_game(proto::GetGameRequest {
            game_id: game.game_id.clone(),
            ..Default::default()
        })
        .await
        .expect("the game")
        .into_inner()
        .game
        .expect("a game");
    let pairing = setup(&read).pairing.clone().expect("a pairing");
    assert_eq!((pairing.round, pairing.board), (1, 1));
    assert!(pairing.match_tie_break);
    assert!(setup(&read).scoring.as_ref().is_some_and(|s| s.armageddon));
    let round = admin_client
        .get_round(admin(proto::GetRoundRequest {
            event_id: event.to_owned(),
            round: 1,
            ..Default::default()
        }))
        .await
        .expect("the round")
        .into_inner()
        .round
        .expect("a round");
    assert_eq!(round.tie_breaks, std::slice::from_ref(&game));
    assert_eq!(round.board_count, 2);

    // While it is played the match waits.
    let waiting = team_standings(&mut client, event, None).await;
    assert_eq!(
        (waiting.matches_counted, waiting.matches_in_progress),
        (0, 1)
    );

    let mut stream = client
        .watch_event(proto::WatchEventRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("watch")
        .into_inner();
    next_kind(&mut stream, |kind| {
        matches!(kind, Kind::Heartbeat(_)).then_some(())
    })
    .await;
    // A draw on the board: Armageddon gives it to Black, a1 of team a.
    set_result(&mut admin_client, &game.game_id, proto::Outcome::Draw).await;
    let score = next_kind(&mut stream, |kind| match kind {
        Kind::MatchScore(score) if score.game_id == game.game_id => Some(score.clone()),
        _ => None,
    })
    .await;
    assert_eq!(score.tie_break_game_id, game.game_id);
    assert_eq!(score.tie_break_winner_team_id, "a");
    assert_eq!(
        (
            score.first_team_points.as_str(),
            score.second_team_points.as_str()
        ),
        ("1", "1")
    );

    // The match is a's: a win's match points (or the regulations' for a
    // tie-break), the boards' game points.
    let decided = team_standings(&mut client, event, None).await;
    assert_eq!(
        (decided.matches_counted, decided.matches_in_progress),
        (1, 0)
    );
    assert_eq!(rows(&decided), [("a", "2", "1", "1"), ("b", "0", "1", "0")]);
    let norway = team_standings(
        &mut client,
        event,
        Some(proto::TeamMatchPoints {
            win: "3".to_owned(),
            draw: "1".to_owned(),
            loss: "0".to_owned(),
            tie_break_win: "2".to_owned(),
            tie_break_loss: "1".to_owned(),
        }),
    )
    .await;
    assert_eq!(rows(&norway), [("a", "2", "1", "1"), ("b", "1", "1", "0")]);
    let unordered = client
        .get_team_standings(proto::GetTeamStandingsRequest {
            event_id: event.to_owned(),
            match_points: Some(proto::TeamMatchPoints {
                win: "2".to_owned(),
                draw: "1".to_owned(),
                loss: "0".to_owned(),
                tie_break_win: "0".to_owned(),
                tie_break_loss: "1".to_owned(),
            }),
            ..Default::default()
        })
        .await;
    expect_code(unordered, Code::InvalidArgument);

    // No individual standing counts it: two games, a1 and b2 one point
    // each.
    let standings = client
        .get_standings(proto::GetStandingsRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("the standings")
        .into_inner();
    assert_eq!(standings.games_counted, 2);
    let points: Vec<(&str, &str)> = standings
        .standings
        .iter()
        .filter_map(|s| Some((s.player.as_ref()?.id.as_str(), s.points.as_str())))
        .filter(|(_, points)| *points != "0")
        .collect();
    assert_eq!(points, [("a1", "1"), ("b2", "1")]);
    let pgn = export_pgn_of(
        &mut client,
        proto::export_pgn_request::Target::GameId(game.game_id.clone()),
    )
    .await
    .expect("the PGN")
    .concat();
    assert!(pgn.contains("[Stage \"Match tie-break\"]"), "{pgn}");
}

/// Every wrong request for a tie-break game is refused with its field or
/// reason, and makes nothing.
async fn a_wrong_tie_break_request_is_refused_and_makes_nothing(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "bad-armageddon";
    let teams = ["a", "b", "c", "d"].iter().map(|t| roster(t, 3)).collect();
    register(&mut admin_client, event, 2, teams, 0)
        .await
        .expect("registered");
    let created = create_matches(
        &mut admin_client,
        event,
        1,
        vec![full_of(1, "a", "b", 2), full_of(2, "c", "d", 2)],
    )
    .await
    .expect("a round");
    // Table 1 drawn 1–1; table 2 won 2–0 by c.
    for (game, outcome) in [
        (0, proto::Outcome::WhiteWins),
        (1, proto::Outcome::WhiteWins),
        (2, proto::Outcome::WhiteWins),
        (3, proto::Outcome::BlackWins),
    ] {
        set_result(&mut admin_client, &created.games[game].game_id, outcome).await;
    }
    let field_of = |status: &tonic::Status| {
        use tonic_types::StatusExt;
        status
            .get_details_bad_request()
            .and_then(|bad| bad.field_violations.first().map(|v| v.field.clone()))
            .unwrap_or_default()
    };
    let plain = proto::Scoring {
        armageddon: false,
        ..Default::default()
    };
    let cases: Vec<(proto::CreateMatchTieBreakRequest, &str)> = vec![
        (tie_break(event, "a3", "b1"), "white_player_id"),
        (tie_break(event, "a1", "a2"), "black_player_id"),
        (tie_break(event, "", "b1"), "white_player_id"),
        (
            proto::CreateMatchTieBreakRequest {
                table: 0,
                ..tie_break(event, "a1", "b1")
            },
            "table",
        ),
        (
            proto::CreateMatchTieBreakRequest {
                settings: Some(proto::RoundSettings {
                    scoring: Some(plain),
                    ..Default::default()
                }),
                ..tie_break(event, "a1", "b1")
            },
            "settings.scoring.armageddon",
        ),
        (
            proto::CreateMatchTieBreakRequest {
                settings: Some(proto::RoundSettings {
                    start: initial_fen_or_default(),
                    ..Default::default()
                }),
                ..tie_break(event, "a1", "b1")
            },
            "settings.initial_fen",
        ),
    ];
    for (request, field) in cases {
        let refused = expect_code(
            admin_client.create_match_tie_break(admin(request)).await,
            Code::InvalidArgument,
        );
        assert_eq!(field_of(&refused), field, "{refused:?}");
    }
    let no_match = expect_code(
        admin_client
            .create_match_tie_break(admin(proto::CreateMatchTieBreakRequest {
                table: 3,
                ..tie_break(event, "a1", "b1")
            }))
            .await,
        Code::NotFound,
    );
    assert_eq!(reason(&no_match), "MATCH_NOT_FOUND");
    let no_round = expect_code(
        admin_client
            .create_match_tie_break(admin(proto::CreateMatchTieBreakRequest {
                round: 2,
                ..tie_break(event, "a1", "b1")
            }))
            .await,
        Code::NotFound,
    );
    assert_eq!(reason(&no_round), "ROUND_NOT_FOUND");
    let won = expect_code(
        admin_client
            .create_match_tie_break(admin(proto::CreateMatchTieBreakRequest {
                table: 2,
                ..tie_break(event, "c1", "d1")
            }))
            .await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&won), "MATCH_NOT_DRAWN");
    assert!(won.message().contains("2 to 0"), "{won:?}");
    // CreateGame cannot make one.
    let made_aside = admin_client
        .create_game(admin(proto::CreateGameRequest {
            white: Some(proto::Player {
                id: "x".to_owned(),
                name: "X".to_owned(),
                ..Default::default()
            }),
            black: Some(proto::Player {
                id: "y".to_owned(),
                name: "Y".to_owned(),
                ..Default::default()
            }),
            pairing: Some(proto::Pairing {
                event_id: "elsewhere".to_owned(),
                match_tie_break: true,
                ..Default::default()
            }),
            ..Default::default()
        }))
        .await;
    let refused = expect_code(made_aside, Code::InvalidArgument);
    assert_eq!(field_of(&refused), "pairing.match_tie_break");
    // Nothing was made: the round lists no tie-break, the standings count
    // the two matches.
    let round = admin_client
        .get_round(admin(proto::GetRoundRequest {
            event_id: event.to_owned(),
            round: 1,
            ..Default::default()
        }))
        .await
        .expect("the round")
        .into_inner()
        .round
        .expect("a round");
    assert!(round.tie_breaks.is_empty());
    let read = team_standings(&mut client, event, None).await;
    assert_eq!((read.matches_counted, read.matches_in_progress), (2, 0));
}

/// A broadcast shows a round's tie-break games after its boards, each on a
/// board of its own, so that no board's place in the round moves.
async fn a_broadcast_shows_a_tie_break_game_after_the_rounds_boards(backend: Backend) {
    let (app, port) = crate::feed::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let event = "relayed-armageddon";
    let teams = ["a", "b", "c", "d"].iter().map(|t| roster(t, 2)).collect();
    register(&mut admin_client, event, 2, teams, 0)
        .await
        .expect("registered");
    let created = create_matches(
        &mut admin_client,
        event,
        1,
        vec![full_of(1, "a", "b", 2), full_of(2, "c", "d", 2)],
    )
    .await
    .expect("a round");
    for game in &created.games[..2] {
        set_result(&mut admin_client, &game.game_id, proto::Outcome::WhiteWins).await;
    }
    // a1 and b1 played board 1: they play the Armageddon too.
    let made = admin_client
        .create_match_tie_break(admin(tie_break(event, "b1", "a1")))
        .await
        .expect("a tie-break game")
        .into_inner();
    let game_id = made.tie_break.expect("the game").game_id;
    let round = format!("/events/{event}/rounds/1");
    let (code, _, index) = crate::feed::get(port, &format!("{round}/round.json")).await;
    assert_eq!(code, 200, "{index}");
    let boards: serde_json::Value = serde_json::from_str(&index).expect("JSON");
    let boards: Vec<i64> = boards["pairings"]
        .as_array()
        .expect("pairings")
        .iter()
        .map(|p| p["board"].as_i64().expect("a board"))
        .collect();
    assert_eq!(boards, [1, 2, 3, 4, 5]);
    let (_, _, fifth) = crate::feed::get(port, &format!("{round}/game-5.pgn")).await;
    assert!(
        fifth.contains(&format!("[GameId \"{game_id}\"]")),
        "{fifth}"
    );
    assert!(fifth.contains("[Round \"1.5\"]"), "{fifth}");
    assert!(fifth.contains("[Stage \"Match tie-break\"]"), "{fifth}");
    let (_, _, first) = crate::feed::get(port, &format!("{round}/game-1.pgn")).await;
    assert!(
        first.contains(&format!("[GameId \"{}\"]", created.games[0].game_id)),
        "{first}"
    );
}

/// A start position that is refused: a FEN that is no position.
fn initial_fen_or_default() -> Option<proto::round_settings::Start> {
    Some(proto::round_settings::Start::InitialFen(
        "not a position".to_owned(),
    ))
}

on_every_backend!(
    a_drawn_match_is_decided_by_its_tie_break_game,
    a_wrong_tie_break_request_is_refused_and_makes_nothing,
    a_broadcast_shows_a_tie_break_game_after_the_rounds_boards,
);
