//! Team standings through the API: committed team vectors (their values
//! computed by FIDE's reference implementation, TieBreakServer) played as
//! games whose players carry their teams, each result set by the arbiter,
//! then `GetTeamStandings` under both primary scores; and the refusals of
//! games that make no team event.

use std::{collections::BTreeMap, fs, path::PathBuf};

use arbiter::proto::{self, set_game_result_request::Ruling};
use tonic::Code;

use crate::common::{Backend, Client, TestApp, admin, create, create_request, pairing, reason};

/// Per player (by start number), per round: opponent, colour, result code;
/// and each team's players in board order.
struct Vector {
    rounds: BTreeMap<u32, Vec<(u32, char, char)>>,
    teams: Vec<Vec<u32>>,
}

fn read_vector(number: u32) -> (Vector, PathBuf) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/data/team-tie-breaks/event-{number:03}.trf"));
    let text = fs::read_to_string(&path).expect("a vector");
    let mut rounds = BTreeMap::new();
    let mut teams = Vec::new();
    for line in text.lines() {
        if line.starts_with("001") {
            let start: u32 = line[4..8].trim().parse().expect("a start number");
            let cells = (91..)
                .step_by(10)
                .take_while(|at| at + 8 <= line.len())
                .map(|at| {
                    let cell = &line[at..at + 8];
                    let mut chars = cell.chars();
                    (
                        cell[..4].trim().parse().unwrap_or(0),
                        chars.nth(5).expect("a colour"),
                        chars.nth(1).expect("a result"),
                    )
                })
                .collect();
            rounds.insert(start, cells);
        } else if let Some(rest) = line.strip_prefix("013") {
            teams.push(
                rest[33..]
                    .split_whitespace()
                    .map(|n| n.parse().expect("a start number"))
                    .collect(),
            );
        }
    }
    (Vector { rounds, teams }, path)
}

/// A result as if played.
fn played(outcome: proto::Outcome) -> Ruling {
    Ruling::Played(proto::PlayedResult {
        outcome: outcome.into(),
        ..Default::default()
    })
}

/// Sets game `id`'s result as the arbiter.
async fn set_result(admin_client: &mut crate::common::AdminClient, id: &str, ruling: Ruling) {
    admin_client
        .set_game_result(admin(proto::SetGameResultRequest {
            game_id: id.to_owned(),
            ruling: Some(ruling),
            reason: "as played".to_owned(),
            ..Default::default()
        }))
        .await
        .expect("a result");
}

/// Creates every game of `vector` in `event` (a player's team is its
/// `013` line's name) and sets each result as the report has it.
async fn play(app: &TestApp, event: &str, vector: &Vector) {
    let mut admin_client = app.admin_client().await;
    let mut place = BTreeMap::new();
    for (team, players) in vector.teams.iter().enumerate() {
        for (position, player) in players.iter().enumerate() {
            place.insert(*player, (team, position));
        }
    }
    let player = |start: u32| {
        let (team, _) = place[&start];
        proto::Player {
            id: format!("p{start}"),
            name: format!("Player {start}"),
            team: format!("Team {:02}", team + 1),
            ..Default::default()
        }
    };
    for (start, cells) in &vector.rounds {
        for (round, (opponent, colour, code)) in (1..).zip(cells) {
            if *opponent == 0 || *colour != 'w' {
                continue;
            }
            // Boards in the order of the team lists: a match's boards are
            // numbered apart from the other matches' of the round.
            // The board is the player's place among the team's players who
            // play the round.
            let (team, position) = place[start];
            let (other, _) = place[opponent];
            let above = vector.teams[team][..position]
                .iter()
                .filter(|mate| vector.rounds[mate][round as usize - 1].0 != 0)
                .count();
            let board = i32::try_from(team.min(other) * 10 + above + 1).expect("a board");
            let request = proto::CreateGameRequest {
                white: Some(player(*start)),
                black: Some(player(*opponent)),
                pairing: Some(pairing(event, round, board)),
                ..create_request("", "")
            };
            let game = create(&mut admin_client, request).await.expect("a game");
            let ruling = match code {
                '1' => played(proto::Outcome::WhiteWins),
                '0' => played(proto::Outcome::BlackWins),
                '=' => played(proto::Outcome::Draw),
                '+' => Ruling::Forfeit(proto::Forfeit::Black.into()),
                '-' => Ruling::Forfeit(proto::Forfeit::White.into()),
                other => panic!("no result {other}"),
            };
            set_result(&mut admin_client, &game.id, ruling).await;
        }
    }
}

async fn team_standings(
    client: &mut Client,
    request: proto::GetTeamStandingsRequest,
) -> Result<proto::GetTeamStandingsResponse, tonic::Status> {
    client
        .get_team_standings(request)
        .await
        .map(tonic::Response::into_inner)
}

fn decimal(text: &str) -> f64 {
    text.parse().expect("a decimal")
}

/// Two committed vectors, played through the API, give the reference's
/// every value under match points first and under game points first.
async fn team_standings_equal_the_reference(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    for number in [4, 12] {
        let event = format!("team-vector-{number}");
        let (vector, path) = read_vector(number);
        play(&app, &event, &vector).await;
        for (suffix, primary) in [
            ("mp", proto::TeamScoreKind::MatchPoints),
            ("gp", proto::TeamScoreKind::GamePoints),
        ] {
            let tsv = fs::read_to_string(path.with_extension(format!("{suffix}.tsv")))
                .expect("the reference's values");
            let mut lines = tsv.lines();
            let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
            // EMMSB is SB:MP by another name, which a request lists once.
            let asked: Vec<usize> = (3..header.len())
                .filter(|&i| header[i] != "EMMSB")
                .collect();
            let read = team_standings(
                &mut client,
                proto::GetTeamStandingsRequest {
                    event_id: event.clone(),
                    primary_score: primary.into(),
                    tie_breaks: asked.iter().map(|&i| header[i].to_owned()).collect(),
                    match_points: None,
                },
            )
            .await
            .expect("the standings");
            assert_eq!(read.matches_in_progress, 0);
            assert_eq!(read.standings.len(), vector.teams.len());
            let ours: BTreeMap<&str, &proto::TeamStanding> = read
                .standings
                .iter()
                .map(|row| (row.team.as_str(), row))
                .collect();
            for line in lines {
                let cells: Vec<&str> = line.split('\t').collect();
                let team = format!("Team {:02}", cells[0].parse::<u32>().expect("a team"));
                let row = ours[team.as_str()];
                let first = if suffix == "mp" {
                    &row.match_points
                } else {
                    &row.game_points
                };
                assert_eq!(decimal(first), decimal(cells[2]), "{event} {team}");
                for (&i, value) in asked.iter().zip(&row.tie_break_values) {
                    let code = header[i];
                    assert_eq!(decimal(value), decimal(cells[i]), "{event} {team} {code}");
                }
            }
        }
    }
}

/// The TRF of a team event lists each team's players (013 lines) in board
/// order, so that a reader of the report finds the same matches and boards.
async fn a_team_events_trf_lists_its_teams_in_board_order(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let event = "team-trf";
    let (vector, _) = read_vector(12);
    play(&app, event, &vector).await;
    let trf = client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("the report")
        .into_inner()
        .trf;
    // The report's starting ranks, by the vector's start numbers.
    let number_of: BTreeMap<u32, u32> = trf
        .lines()
        .filter(|line| line.starts_with("001"))
        .map(|line| {
            let rank = line[4..8].trim().parse().expect("a rank");
            let name = line[14..47].trim();
            let start = name
                .strip_prefix("Player ")
                .and_then(|n| n.parse().ok())
                .expect("a vector's player");
            (rank, start)
        })
        .collect();
    let teams: Vec<(String, Vec<u32>)> = trf
        .lines()
        .filter_map(|line| line.strip_prefix("013 "))
        .map(|rest| {
            let members = rest[32..]
                .split_whitespace()
                .map(|rank| number_of[&rank.parse::<u32>().expect("a rank")])
                .collect();
            (rest[..32].trim().to_owned(), members)
        })
        .collect();
    let played = |start: &u32| {
        vector.rounds[start]
            .iter()
            .any(|(opponent, ..)| *opponent != 0)
    };
    let expected: Vec<(String, Vec<u32>)> = vector
        .teams
        .iter()
        .enumerate()
        .map(|(team, players)| {
            (
                format!("Team {:02}", team + 1),
                players.iter().copied().filter(|p| played(p)).collect(),
            )
        })
        .collect();
    assert_eq!(teams, expected, "{trf}");
}

/// Games that make no team event are refused with where, and a bad order
/// with the field.
async fn games_without_a_team_event_are_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let with_team = |id: &str, team: &str| proto::Player {
        id: id.to_owned(),
        name: id.to_owned(),
        team: team.to_owned(),
        ..Default::default()
    };
    let game = |white, black, board| proto::CreateGameRequest {
        white: Some(white),
        black: Some(black),
        pairing: Some(pairing("teams-bad", 1, board)),
        ..create_request("", "")
    };
    create(
        &mut admin_client,
        game(with_team("a1", "Alpha"), with_team("b1", "Bravo"), 1),
    )
    .await
    .expect("a game");
    let request = |event: &str| proto::GetTeamStandingsRequest {
        event_id: event.to_owned(),
        ..Default::default()
    };
    let read = team_standings(&mut client, request("teams-bad"))
        .await
        .expect("one match in progress");
    assert_eq!((read.matches_counted, read.matches_in_progress), (0, 1));
    assert_eq!(read.tie_breaks, ["EMGSB", "GP", "BH:MP"]);
    assert_eq!(read.standings.len(), 2);
    create(
        &mut admin_client,
        game(with_team("a2", "Alpha"), with_team("c1", "Charlie"), 2),
    )
    .await
    .expect("a game");
    let refused = team_standings(&mut client, request("teams-bad"))
        .await
        .expect_err("Alpha meets two teams");
    assert_eq!(
        (refused.code(), reason(&refused).as_str()),
        (Code::FailedPrecondition, "TEAM_PAIRING_INVALID")
    );
    assert!(
        refused.message().contains("round 1"),
        "{}",
        refused.message()
    );
    for (bad, field) in [
        (
            proto::GetTeamStandingsRequest {
                tie_breaks: vec!["TBR".to_owned()],
                ..request("teams-bad")
            },
            "tie_breaks",
        ),
        (
            proto::GetTeamStandingsRequest {
                tie_breaks: vec!["BC".to_owned(), "bc".to_owned()],
                ..request("teams-bad")
            },
            "tie_breaks",
        ),
        (
            proto::GetTeamStandingsRequest {
                primary_score: 7,
                ..request("teams-bad")
            },
            "primary_score",
        ),
        (
            proto::GetTeamStandingsRequest {
                match_points: Some(proto::TeamMatchPoints {
                    win: "1".to_owned(),
                    draw: "2".to_owned(),
                    loss: "0".to_owned(),
                    ..Default::default()
                }),
                ..request("teams-bad")
            },
            "match_points",
        ),
        (
            proto::GetTeamStandingsRequest {
                match_points: Some(proto::TeamMatchPoints::default()),
                ..request("teams-bad")
            },
            "match_points.win",
        ),
        (
            proto::GetTeamStandingsRequest {
                match_points: Some(proto::TeamMatchPoints {
                    win: "999999999".to_owned(),
                    draw: "1".to_owned(),
                    loss: "0".to_owned(),
                    ..Default::default()
                }),
                ..request("teams-bad")
            },
            "match_points.win",
        ),
    ] {
        let refused = team_standings(&mut client, bad).await.expect_err("refused");
        assert_eq!(refused.code(), Code::InvalidArgument, "{field}");
        use tonic_types::StatusExt;
        let named = refused
            .get_details_bad_request()
            .and_then(|bad| bad.field_violations.first().map(|v| v.field.clone()));
        assert_eq!(named.as_deref(), Some(field));
    }
    // 3/1/0 match points.
    let mut other = admin_client.clone();
    let created = create(
        &mut other,
        proto::CreateGameRequest {
            white: Some(with_team("x1", "X")),
            black: Some(with_team("y1", "Y")),
            pairing: Some(pairing("teams-three", 1, 1)),
            ..create_request("", "")
        },
    )
    .await
    .expect("a game");
    set_result(&mut other, &created.id, played(proto::Outcome::WhiteWins)).await;
    let read = team_standings(
        &mut client,
        proto::GetTeamStandingsRequest {
            match_points: Some(proto::TeamMatchPoints {
                win: "3".to_owned(),
                draw: "1".to_owned(),
                loss: "0".to_owned(),
                ..Default::default()
            }),
            ..request("teams-three")
        },
    )
    .await
    .expect("the standings");
    assert_eq!(
        read.standings
            .iter()
            .map(|row| (row.team.as_str(), row.match_points.as_str(), row.rank))
            .collect::<Vec<_>>(),
        [("X", "3", 1), ("Y", "0", 2)]
    );
}

/// A round whose boards make no team round is refused whole, each
/// offending board named; a team round is created and its matches count.
async fn a_team_round_is_checked_when_created(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let member = |id: &str, team: &str| proto::Player {
        id: id.to_owned(),
        name: id.to_owned(),
        team: team.to_owned(),
        ..Default::default()
    };
    let board = |board: i32, white: proto::Player, black: proto::Player| proto::RoundBoard {
        board,
        white: Some(white),
        black: Some(black),
        overrides: None,
    };
    let round = |boards: Vec<proto::RoundBoard>| proto::CreateRoundRequest {
        request_id: String::new(),
        event_id: "team-round".to_owned(),
        round: 1,
        boards,
        team_round: true,
        ..Default::default()
    };
    // Without team_round, teams are clubs: clubmates may meet.
    admin_client
        .create_round(admin(proto::CreateRoundRequest {
            event_id: "club-open".to_owned(),
            team_round: false,
            ..round(vec![board(
                1,
                member("m1", "Chess Club"),
                member("m2", "Chess Club"),
            )])
        }))
        .await
        .expect("an individual round of clubmates");
    let refused = admin_client
        .create_round(admin(round(vec![
            board(1, member("a1", "Alpha"), member("b1", "Bravo")),
            board(2, member("b2", "Bravo"), member("a2", "Alpha")),
            board(3, member("a3", "Alpha"), member("c1", "Charlie")),
            board(4, member("c2", "Charlie"), member("c3", "Charlie")),
            board(5, member("d1", "Delta"), member("e1", "")),
        ])))
        .await
        .expect_err("no team round");
    assert_eq!(refused.code(), Code::InvalidArgument);
    use tonic_types::StatusExt;
    let fields: Vec<String> = refused
        .get_details_bad_request()
        .map(|bad| bad.field_violations.into_iter().map(|v| v.field).collect())
        .unwrap_or_default();
    assert_eq!(
        fields,
        ["boards[2]", "boards[3]", "boards[4].black.team"],
        "{refused:?}"
    );
    let listed = client
        .list_games(proto::ListGamesRequest {
            event_id: "team-round".to_owned(),
            ..Default::default()
        })
        .await
        .expect("the list")
        .into_inner();
    assert!(listed.games.is_empty(), "nothing was created");
    let rated = |id: &str, team: &str, rating: i32| proto::Player {
        rating,
        ..member(id, team)
    };
    let created = admin_client
        .create_round(admin(round(vec![
            board(1, rated("a1", "Alpha", 2000), rated("b1", "Bravo", 1800)),
            board(2, rated("b2", "Bravo", 1900), rated("a2", "Alpha", 2100)),
        ])))
        .await
        .expect("a team round")
        .into_inner();
    for (game, outcome) in created
        .games
        .iter()
        .zip([proto::Outcome::WhiteWins, proto::Outcome::Draw])
    {
        set_result(&mut admin_client, &game.game_id, played(outcome)).await;
    }
    let read = team_standings(
        &mut client,
        proto::GetTeamStandingsRequest {
            event_id: "team-round".to_owned(),
            ..Default::default()
        },
    )
    .await
    .expect("the standings");
    assert_eq!(
        read.standings
            .iter()
            .map(|row| (
                row.team.as_str(),
                row.match_points.as_str(),
                row.game_points.as_str()
            ))
            .collect::<Vec<_>>(),
        [("Alpha", "2", "1.5"), ("Bravo", "0", "0.5")]
    );
    // Board by board, with each player's performance.
    assert_eq!(
        read.boards
            .iter()
            .map(|row| (
                row.board,
                row.player.as_ref().map_or("", |p| p.id.as_str()),
                row.team.as_str(),
                row.points.as_str(),
                row.games,
                row.performance
            ))
            .collect::<Vec<_>>(),
        [
            (1, "a1", "Alpha", "1", 1, Some(2600)),
            (1, "b1", "Bravo", "0", 1, Some(1200)),
            (2, "b2", "Bravo", "0.5", 1, Some(2100)),
            (2, "a2", "Alpha", "0.5", 1, Some(1900)),
        ]
    );
}

on_every_backend!(
    a_team_round_is_checked_when_created,
    team_standings_equal_the_reference,
    a_team_events_trf_lists_its_teams_in_board_order,
    games_without_a_team_event_are_refused,
);
