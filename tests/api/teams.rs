//! Team events through the API: teams registered with their rosters,
//! rounds of matches created from line-ups (boards, colours, empty boards
//! and forfeited matches), the team standings they make, compared with
//! FIDE's reference implementation where it reads the event, and every
//! bad registration or line-up refused with its field, nothing changed.

use std::{collections::BTreeMap, fs, path::PathBuf};

use arbiter::proto::{self, set_game_result_request::Ruling};
use tonic::Code;
use tonic_types::StatusExt;

use crate::common::{
    AdminClient, Backend, Client, TestApp, admin, expect_code, export_pgn_of, reason,
};

pub(crate) fn roster(team: &str, size: u32) -> proto::Team {
    proto::Team {
        id: team.to_owned(),
        name: format!("Team {}", team.to_uppercase()),
        players: (1..=size)
            .map(|board| proto::Player {
                id: format!("{team}{board}"),
                name: format!("Player {}{board}", team.to_uppercase()),
                rating: 2600
                    - 40 * i32::try_from(board).expect("a board")
                    - 10 * i32::from(team.as_bytes()[0] - b'a'),
                ..Default::default()
            })
            .collect(),
    }
}

pub(crate) async fn register(
    admin_client: &mut AdminClient,
    event: &str,
    boards: i32,
    teams: Vec<proto::Team>,
    expected_version: i32,
) -> Result<proto::TeamRegistration, tonic::Status> {
    admin_client
        .register_teams(admin(proto::RegisterTeamsRequest {
            event_id: event.to_owned(),
            boards,
            teams,
            expected_version,
        }))
        .await
        .map(|r| r.into_inner().registration.expect("a registration"))
}

fn lined(table: i32, first: &str, second: &str, line_ups: [&[&str]; 2]) -> proto::RoundMatch {
    let ids = |ids: &[&str]| ids.iter().map(|id| (*id).to_owned()).collect();
    proto::RoundMatch {
        table,
        first_team_id: first.to_owned(),
        second_team_id: second.to_owned(),
        first_team_players: ids(line_ups[0]),
        second_team_players: ids(line_ups[1]),
        ..Default::default()
    }
}

/// A match of the first `boards` of each roster.
pub(crate) fn full_of(table: i32, first: &str, second: &str, boards: u32) -> proto::RoundMatch {
    let line_up = |team: &str| (1..=boards).map(|b| format!("{team}{b}")).collect();
    proto::RoundMatch {
        table,
        first_team_id: first.to_owned(),
        second_team_id: second.to_owned(),
        first_team_players: line_up(first),
        second_team_players: line_up(second),
        ..Default::default()
    }
}

/// The first four of a team's roster.
fn top4(team: &str) -> Vec<String> {
    (1..=4).map(|b| format!("{team}{b}")).collect()
}

fn full(table: i32, first: &str, second: &str) -> proto::RoundMatch {
    proto::RoundMatch {
        table,
        first_team_id: first.to_owned(),
        second_team_id: second.to_owned(),
        first_team_players: top4(first),
        second_team_players: top4(second),
        ..Default::default()
    }
}

pub(crate) async fn create_matches(
    admin_client: &mut AdminClient,
    event: &str,
    round: i32,
    matches: Vec<proto::RoundMatch>,
) -> Result<proto::CreateRoundResponse, tonic::Status> {
    admin_client
        .create_round(admin(proto::CreateRoundRequest {
            request_id: format!("{event}-{round}"),
            event_id: event.to_owned(),
            round,
            matches,
            ..Default::default()
        }))
        .await
        .map(tonic::Response::into_inner)
}

/// A result each board gets: a fixed pattern of wins, draws and losses.
fn outcome(round: i32, board: i32) -> proto::Outcome {
    match (round * 7 + board * 3) % 4 {
        0 | 3 => proto::Outcome::WhiteWins,
        1 => proto::Outcome::Draw,
        _ => proto::Outcome::BlackWins,
    }
}

/// Sets game `id`'s result as the arbiter, as if played.
pub(crate) async fn set_result(admin_client: &mut AdminClient, id: &str, outcome: proto::Outcome) {
    admin_client
        .set_game_result(admin(proto::SetGameResultRequest {
            game_id: id.to_owned(),
            ruling: Some(Ruling::Played(proto::PlayedResult {
                outcome: outcome.into(),
                ..Default::default()
            })),
            reason: "as played".to_owned(),
            ..Default::default()
        }))
        .await
        .expect("a result");
}

/// Starts the round and sets every game's result as the pattern has it.
async fn play_round(
    admin_client: &mut AdminClient,
    event: &str,
    created: &proto::CreateRoundResponse,
) {
    let round = created.round.as_ref().expect("a round").round;
    admin_client
        .start_round(admin(proto::StartRoundRequest {
            event_id: event.to_owned(),
            round,
        }))
        .await
        .expect("started");
    for game in &created.games {
        set_result(admin_client, &game.game_id, outcome(round, game.board)).await;
    }
}

async fn team_standings(
    client: &mut Client,
    event: &str,
    primary: proto::TeamScoreKind,
    tie_breaks: &[&str],
) -> proto::GetTeamStandingsResponse {
    client
        .get_team_standings(proto::GetTeamStandingsRequest {
            event_id: event.to_owned(),
            primary_score: primary.into(),
            tie_breaks: tie_breaks.iter().map(|t| (*t).to_owned()).collect(),
            match_points: None,
        })
        .await
        .expect("the standings")
        .into_inner()
}

fn player_id(player: &Option<proto::Player>) -> &str {
    player.as_ref().map_or("", |p| p.id.as_str())
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/team-events")
        .join(name)
}

fn decimal(text: &str) -> f64 {
    text.parse().expect("a decimal")
}

/// Six teams of five players, four boards, three rounds of a Swiss with
/// reserves fielded and a board left empty: the boards, colours and tags
/// follow the line-ups, and the standings equal FIDE's reference
/// implementation's on the event's own report (committed with the values
/// TieBreakServer computed from it).
async fn an_olympiad_style_swiss_runs_through_the_api(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "olympiad";
    let teams: Vec<proto::Team> = ["a", "b", "c", "d", "e", "f"]
        .iter()
        .map(|t| roster(t, 5))
        .collect();
    let registered = register(&mut admin_client, event, 4, teams, 0)
        .await
        .expect("registered");
    assert_eq!((registered.version, registered.boards), (1, 4));
    // A player's team is its Team, not repeated in each player.
    assert_eq!(registered.teams[1].players[0].team, "");

    // Round 1: B fields its reserve on board 4; D leaves board 4 empty.
    let round1 = create_matches(
        &mut admin_client,
        event,
        1,
        vec![
            full(1, "a", "b"),
            lined(
                2,
                "c",
                "d",
                [&["c1", "c2", "c3", "c4"], &["d1", "d2", "d3", ""]],
            ),
            lined(
                3,
                "e",
                "f",
                [&["e1", "e2", "e3", "e5"], &["f2", "f3", "f4", "f5"]],
            ),
        ],
    )
    .await
    .expect("round 1");
    let boards: Vec<(i32, &str, &str)> = round1
        .games
        .iter()
        .map(|g| (g.board, player_id(&g.white), player_id(&g.black)))
        .collect();
    assert_eq!(
        boards,
        [
            (1, "a1", "b1"),
            (2, "b2", "a2"),
            (3, "a3", "b3"),
            (4, "b4", "a4"),
            (5, "c1", "d1"),
            (6, "d2", "c2"),
            (7, "c3", "d3"),
            (9, "e1", "f2"),
            (10, "f3", "e2"),
            (11, "e3", "f4"),
            (12, "f5", "e5"),
        ]
    );
    assert_eq!(
        round1.games[1].white.as_ref().map(|p| p.team.as_str()),
        Some("Team B")
    );
    let round = round1.round.as_ref().expect("a round");
    assert_eq!(round.matches.len(), 3);
    assert_eq!(
        round
            .byes
            .iter()
            .map(|b| (b.player.as_ref().expect("a player").id.as_str(), b.kind))
            .collect::<Vec<_>>(),
        [("c4", proto::ByeKind::ForfeitWin as i32)]
    );
    play_round(&mut admin_client, event, &round1).await;

    // Round 2: the first team of table 1 has Black on board 1.
    let mut first = full(1, "c", "a");
    first.first_team_color = proto::Color::Black.into();
    let round2 = create_matches(
        &mut admin_client,
        event,
        2,
        vec![first, full(2, "f", "b"), full(3, "d", "e")],
    )
    .await
    .expect("round 2");
    assert_eq!(
        round2.games[0].white.as_ref().map(|p| p.id.as_str()),
        Some("a1")
    );
    play_round(&mut admin_client, event, &round2).await;
    let round3 = create_matches(
        &mut admin_client,
        event,
        3,
        vec![full(1, "a", "f"), full(2, "b", "d"), full(3, "e", "c")],
    )
    .await
    .expect("round 3");
    play_round(&mut admin_client, event, &round3).await;

    // The PGN names each player's team.
    let pgn = export_pgn_of(
        &mut client,
        proto::export_pgn_request::Target::EventId(event.to_owned()),
    )
    .await
    .expect("the event's PGN")
    .concat();
    assert!(pgn.contains("[WhiteTeam \"Team A\"]"), "{pgn}");
    assert!(pgn.contains("[BlackTeam \"Team B\"]"), "{pgn}");

    // The report is the committed one, and the standings are what
    // TieBreakServer computed from it.
    let trf = client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("the report")
        .into_inner()
        .trf;
    let committed = fs::read_to_string(data("olympiad.trf")).unwrap_or_default();
    if std::env::var_os("ARBITER_WRITE_TEAM_EVENTS").is_some() {
        fs::write(data("olympiad.trf"), &trf).expect("written");
    } else {
        assert_eq!(
            trf, committed,
            "the report changed: see tests/data/team-events/README.md"
        );
    }
    for (suffix, primary) in [
        ("mp", proto::TeamScoreKind::MatchPoints),
        ("gp", proto::TeamScoreKind::GamePoints),
    ] {
        let tsv = fs::read_to_string(data(&format!("olympiad.{suffix}.tsv")))
            .expect("the reference's values");
        let mut lines = tsv.lines();
        let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
        let asked: Vec<&str> = header[3..].to_vec();
        let read = team_standings(&mut client, event, primary, &asked).await;
        assert_eq!((read.matches_counted, read.matches_in_progress), (9, 0));
        let ours: BTreeMap<&str, &proto::TeamStanding> = read
            .standings
            .iter()
            .map(|row| (row.team.as_str(), row))
            .collect();
        // The reference numbers the teams in the order of the 013 lines,
        // the order registered.
        for line in lines {
            let cells: Vec<&str> = line.split('\t').collect();
            let number: usize = cells[0].parse().expect("a team number");
            let team = format!("Team {}", ["A", "B", "C", "D", "E", "F"][number - 1]);
            let row = ours[team.as_str()];
            assert_eq!(row.rank.to_string(), cells[1], "{suffix} {team}");
            let first = if suffix == "mp" {
                &row.match_points
            } else {
                &row.game_points
            };
            assert_eq!(decimal(first), decimal(cells[2]), "{suffix} {team}");
            for (i, value) in (3..).zip(&row.tie_break_values) {
                assert_eq!(decimal(value), decimal(cells[i]), "{team} {}", header[i]);
            }
        }
    }
    // Board standings: c4's forfeit win counts a point and no game.
    let read = team_standings(&mut client, event, proto::TeamScoreKind::MatchPoints, &[]).await;
    let c4 = read
        .boards
        .iter()
        .find(|b| b.player.as_ref().is_some_and(|p| p.id == "c4"))
        .expect("c4 on board 4");
    assert_eq!((c4.board, c4.games, c4.team_id.as_str()), (4, 2, "c"));
}

/// A league of four teams, two boards, a double round robin's first
/// cycle: one match is forfeited whole, and the standings count it as the
/// regulations do (the team present wins every board, unplayed).
async fn a_league_round_robin_counts_a_forfeited_match(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "league";
    let teams = ["a", "b", "c", "d"].iter().map(|t| roster(t, 3)).collect();
    register(&mut admin_client, event, 2, teams, 0)
        .await
        .expect("registered");
    let pair = |table, first: &str, second: &str| {
        lined(
            table,
            first,
            second,
            [
                &[&format!("{first}1"), &format!("{first}2")],
                &[&format!("{second}1"), &format!("{second}2")],
            ],
        )
    };
    let schedule = [
        [("a", "d"), ("b", "c")],
        [("d", "c"), ("a", "b")],
        [("b", "d"), ("c", "a")],
    ];
    for (round, pairs) in (1..).zip(schedule) {
        let mut matches = vec![
            pair(1, pairs[0].0, pairs[0].1),
            pair(2, pairs[1].0, pairs[1].1),
        ];
        if round == 2 {
            // D does not come to play C.
            matches[0] = proto::RoundMatch {
                forfeit: proto::MatchForfeit::FirstTeam.into(),
                first_team_players: Vec::new(),
                second_team_players: Vec::new(),
                ..matches[0].clone()
            };
        }
        let created = create_matches(&mut admin_client, event, round, matches)
            .await
            .expect("a round");
        assert_eq!(created.games.len(), if round == 2 { 2 } else { 4 });
        play_round(&mut admin_client, event, &created).await;
    }
    let read = team_standings(
        &mut client,
        event,
        proto::TeamScoreKind::MatchPoints,
        &["GP", "WON"],
    )
    .await;
    let rows: Vec<(i32, &str, &str, &str, &str, &str)> = read
        .standings
        .iter()
        .map(|r| {
            (
                r.rank,
                r.team_id.as_str(),
                r.match_points.as_str(),
                r.game_points.as_str(),
                r.tie_break_values[0].as_str(),
                r.tie_break_values[1].as_str(),
            )
        })
        .collect();
    // By `outcome`: round 1 a–d ½–1½, b–c 1–1; round 2 d forfeits to c
    // (2–0, unplayed), a–b 2–0; round 3 b–d 1–1, c–a ½–1½. Match points
    // 2/1/0, then game points, then matches won over the board (c's
    // forfeit win is not one).
    assert_eq!(
        rows,
        [
            (1, "a", "4", "4", "4", "2"),
            (2, "c", "3", "3.5", "3.5", "0"),
            (3, "d", "3", "2.5", "2.5", "1"),
            (4, "b", "2", "2", "2", "0"),
        ]
    );
    assert_eq!((read.matches_counted, read.matches_in_progress), (6, 0));
}

/// Registrations and line-ups that are wrong are refused with every field
/// named, and change nothing.
async fn bad_teams_and_line_ups_are_refused_and_change_nothing(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "bad-teams";
    let fields = |status: &tonic::Status| -> Vec<String> {
        status
            .get_details_bad_request()
            .map(|bad| bad.field_violations.into_iter().map(|v| v.field).collect())
            .unwrap_or_default()
    };
    // No registration yet.
    let missing = client
        .get_teams(proto::GetTeamsRequest {
            event_id: event.to_owned(),
        })
        .await;
    let status = expect_code(missing, Code::NotFound);
    assert_eq!(reason(&status), "TEAMS_NOT_FOUND");
    let refused = create_matches(&mut admin_client, event, 1, vec![full(1, "a", "b")]).await;
    let status = expect_code(refused, Code::InvalidArgument);
    assert_eq!(fields(&status), ["matches"], "{status:?}");

    // A player on two teams, a team twice.
    let mut twice = roster("b", 3);
    twice.players[2].id = "a1".to_owned();
    let refused = register(
        &mut admin_client,
        event,
        2,
        vec![roster("a", 3), twice, roster("a", 2)],
        0,
    )
    .await;
    let status = expect_code(refused, Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_FIELD");
    assert_eq!(
        fields(&status),
        [
            "teams[1].players[2].id",
            "teams[2].id",
            "teams[2].name",
            "teams[2].players[0].id",
            "teams[2].players[1].id"
        ],
        "{status:?}"
    );
    let mut bad_player = roster("c", 1);
    bad_player.players[0].rating = 9000;
    let refused = register(&mut admin_client, event, 2, vec![bad_player], 0).await;
    assert_eq!(
        fields(&expect_code(refused, Code::InvalidArgument)),
        ["teams[0].players[0]"]
    );
    expect_code(
        client
            .get_teams(proto::GetTeamsRequest {
                event_id: event.to_owned(),
            })
            .await,
        Code::NotFound,
    );

    let teams: Vec<proto::Team> = ["a", "b", "c"].iter().map(|t| roster(t, 3)).collect();
    register(&mut admin_client, event, 2, teams, 0)
        .await
        .expect("registered");
    let refused = create_matches(
        &mut admin_client,
        event,
        1,
        vec![
            // b3 is not on a's roster; b's board order is reversed.
            lined(1, "a", "b", [&["a1", "b3"], &["b2", "b1"]]),
            // c against itself; a twice in the round.
            lined(2, "c", "c", [&["c1", "c2"], &["c1", "c2"]]),
            lined(3, "a", "x", [&["a1", "a2", "a3"], &[]]),
        ],
    )
    .await;
    let status = expect_code(refused, Code::InvalidArgument);
    assert_eq!(
        fields(&status),
        [
            "matches[0].first_team_players[1]",
            "matches[0].second_team_players[1]",
            "matches[1].second_team_id",
            "matches[2].first_team_id",
            "matches[2].first_team_players",
            "matches[2].second_team_id",
        ],
        "{status:?}"
    );
    // Nothing was created.
    let round = admin_client
        .get_round(admin(proto::GetRoundRequest {
            event_id: event.to_owned(),
            round: 1,
            ..Default::default()
        }))
        .await;
    expect_code(round, Code::NotFound);
    // Boards beside matches are refused too.
    let mut request = proto::CreateRoundRequest {
        request_id: "mixed".to_owned(),
        event_id: event.to_owned(),
        round: 1,
        matches: vec![full(1, "a", "b")],
        ..Default::default()
    };
    request.matches[0].first_team_players.truncate(2);
    request.matches[0].second_team_players.truncate(2);
    request.boards = vec![proto::RoundBoard {
        board: 9,
        white: Some(proto::Player {
            id: "c1".into(),
            ..Default::default()
        }),
        black: Some(proto::Player {
            id: "c2".into(),
            ..Default::default()
        }),
        overrides: None,
    }];
    let refused = admin_client.create_round(admin(request)).await;
    assert_eq!(
        fields(&expect_code(refused, Code::InvalidArgument)),
        ["boards"]
    );
}

/// Before the first round a registration may change in any way; after,
/// it may only grow, and a stale version is refused.
async fn a_registration_only_grows_once_the_event_has_a_round(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "growing";
    let fields = |status: &tonic::Status| -> Vec<String> {
        status
            .get_details_bad_request()
            .map(|bad| bad.field_violations.into_iter().map(|v| v.field).collect())
            .unwrap_or_default()
    };
    let three: Vec<proto::Team> = ["a", "b", "c"].iter().map(|t| roster(t, 3)).collect();
    register(&mut admin_client, event, 2, three.clone(), 0)
        .await
        .expect("registered");
    // The same again changes nothing.
    let same = register(&mut admin_client, event, 2, three.clone(), 1)
        .await
        .expect("unchanged");
    assert_eq!(same.version, 1);
    // Before any round: c removed, b's roster reordered.
    let mut reordered = roster("b", 3);
    reordered.players.swap(0, 1);
    let replaced = register(
        &mut admin_client,
        event,
        2,
        vec![roster("a", 3), reordered.clone()],
        1,
    )
    .await
    .expect("replaced");
    assert_eq!(replaced.version, 2);
    let stale = register(&mut admin_client, event, 2, three.clone(), 1).await;
    let status = expect_code(stale, Code::Aborted);
    assert_eq!(reason(&status), "TEAMS_CHANGED");

    let round1 = vec![lined(1, "a", "b", [&["a1", "a2"], &["b2", "b1"]])];
    let created = create_matches(&mut admin_client, event, 1, round1.clone())
        .await
        .expect("round 1");
    // Now: removing a team, changing the boards or a roster's order is
    // refused; adding a team and appending a player is not.
    let refused = register(&mut admin_client, event, 3, vec![roster("a", 3)], 0).await;
    let status = expect_code(refused, Code::InvalidArgument);
    assert_eq!(fields(&status), ["boards", "teams"], "{status:?}");
    let refused = register(
        &mut admin_client,
        event,
        2,
        vec![roster("a", 3), roster("b", 3)],
        0,
    )
    .await;
    assert_eq!(
        fields(&expect_code(refused, Code::InvalidArgument)),
        ["teams[1].players[0]"]
    );
    let mut grown = reordered;
    grown.players.push(proto::Player {
        id: "b9".into(),
        name: "Late Entry".into(),
        ..Default::default()
    });
    let grown = register(
        &mut admin_client,
        event,
        2,
        vec![roster("a", 3), grown, roster("d", 2)],
        2,
    )
    .await
    .expect("grown");
    assert_eq!(grown.version, 3);
    let read = client
        .get_teams(proto::GetTeamsRequest {
            event_id: event.to_owned(),
        })
        .await
        .expect("the teams")
        .into_inner()
        .registration
        .expect("a registration");
    assert_eq!(read, grown);
    assert_eq!(read.teams[1].players[3].id, "b9");
    assert_eq!(read.updated_by, grown.updated_by);
    // A rating corrected since: the repeat of round 1's request is still
    // the same round, with the same games and tokens.
    let mut corrected = read.teams.clone();
    corrected[0].players[0].rating = 2222;
    register(&mut admin_client, event, 2, corrected, 3)
        .await
        .expect("corrected");
    let repeated = create_matches(&mut admin_client, event, 1, round1)
        .await
        .expect("the same round");
    assert_eq!(repeated.games, created.games);
}

/// What `pick` takes from the first message of `stream` it takes
/// anything from, the messages before it passed over.
pub(crate) async fn next_kind<T>(
    stream: &mut tonic::Streaming<proto::WatchEventResponse>,
    pick: impl Fn(&proto::watch_event_response::Kind) -> Option<T>,
) -> T {
    loop {
        let message = crate::common::next_within(stream, crate::common::STREAM_PATIENCE)
            .await
            .expect("open")
            .expect("a message");
        if let Some(picked) = message.kind.as_ref().and_then(&pick) {
            return picked;
        }
    }
}

/// An event's stream follows each match: after the event that decides a
/// board, as it happens, the match's score as it stands.
async fn an_events_stream_carries_each_matchs_score(backend: Backend) {
    use proto::watch_event_response::Kind;
    let app = TestApp::spawn_with_heartbeat(backend, std::time::Duration::from_millis(200)).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "watched-match";
    let teams = ["a", "b"].iter().map(|t| roster(t, 2)).collect();
    register(&mut admin_client, event, 2, teams, 0)
        .await
        .expect("registered");
    let created = create_matches(&mut admin_client, event, 1, vec![full_of(1, "a", "b", 2)])
        .await
        .expect("a round");
    let mut stream = client
        .watch_event(proto::WatchEventRequest {
            event_id: event.to_owned(),
            after_cursor: String::new(),
            round: 0,
        })
        .await
        .expect("watch")
        .into_inner();
    // Once the stream has caught up (its first heartbeat), it follows the
    // event as it happens.
    next_kind(&mut stream, |kind| {
        matches!(kind, Kind::Heartbeat(_)).then_some(())
    })
    .await;
    // Board 1 (a1 White) drawn, board 2 (b2 White) won by White.
    let rulings = [(0, proto::Outcome::Draw), (1, proto::Outcome::WhiteWins)];
    let mut scores = Vec::new();
    for (index, outcome) in rulings {
        set_result(&mut admin_client, &created.games[index].game_id, outcome).await;
        let score = next_kind(&mut stream, |kind| match kind {
            Kind::MatchScore(score) => Some(score.clone()),
            _ => None,
        })
        .await;
        scores.push(score);
    }
    let read: Vec<(&str, &str, i32, &str)> = scores
        .iter()
        .map(|s| {
            (
                s.first_team_points.as_str(),
                s.second_team_points.as_str(),
                s.boards_decided,
                s.game_id.as_str(),
            )
        })
        .collect();
    assert_eq!(
        read,
        [
            ("0.5", "0.5", 1, created.games[0].game_id.as_str()),
            ("0.5", "1.5", 2, created.games[1].game_id.as_str()),
        ]
    );
    assert_eq!(
        (scores[1].round, scores[1].table, scores[1].boards),
        (1, 1, 2)
    );
    assert_eq!(
        (
            scores[1].first_team_id.as_str(),
            scores[1].second_team_id.as_str()
        ),
        ("a", "b")
    );
}

/// A Swiss of three teams gives a bye each round: the bye scores the
/// result and game points the round gives it, counts as an unplayed round
/// for the tie-breaks, and the report writes it as a TRF-2026 320 record.
async fn a_team_bye_scores_as_the_round_gives_it(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "team-byes";
    let teams = ["a", "b", "c"].iter().map(|t| roster(t, 2)).collect();
    register(&mut admin_client, event, 2, teams, 0)
        .await
        .expect("registered");
    let bye = |team: &str, outcome: proto::MatchOutcome, points: &str| proto::TeamBye {
        team_id: team.to_owned(),
        outcome: outcome.into(),
        game_points: points.to_owned(),
    };
    let rounds = [
        (
            full_of(1, "a", "b", 2),
            bye("c", proto::MatchOutcome::Drawn, "1"),
            [proto::Outcome::WhiteWins, proto::Outcome::BlackWins],
        ),
        (
            full_of(1, "c", "a", 2),
            bye("b", proto::MatchOutcome::Won, "2"),
            [proto::Outcome::WhiteWins, proto::Outcome::Draw],
        ),
    ];
    for (round, (pairing, team_bye, results)) in (1..).zip(rounds) {
        let created = admin_client
            .create_round(admin(proto::CreateRoundRequest {
                request_id: format!("{event}-{round}"),
                event_id: event.to_owned(),
                round,
                matches: vec![pairing],
                team_byes: vec![team_bye.clone()],
                ..Default::default()
            }))
            .await
            .expect("a round")
            .into_inner();
        assert_eq!(
            created.round.as_ref().map(|r| r.team_byes.clone()),
            Some(vec![team_bye])
        );
        for (game, outcome) in created.games.iter().zip(results) {
            set_result(&mut admin_client, &game.game_id, outcome).await;
        }
    }
    let read = team_standings(
        &mut client,
        event,
        proto::TeamScoreKind::MatchPoints,
        &["BH:MP", "EMGSB", "BC", "WIN", "WON"],
    )
    .await;
    let rows: Vec<(&str, &str, &str, Vec<&str>)> = read
        .standings
        .iter()
        .map(|r| {
            (
                r.team_id.as_str(),
                r.match_points.as_str(),
                r.game_points.as_str(),
                r.tie_break_values.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("c", "3", "2.5", vec!["5", "6", "3.5", "1", "1"]),
            ("a", "2", "2.5", vec!["5", "5.5", "4", "1", "1"]),
            ("b", "2", "2", vec!["4", "4", "3", "1", "0"]),
        ]
    );
    let trf = client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("the report")
        .into_inner()
        .trf;
    assert!(trf.contains("\n320  1.0  1.0 003 000\n"), "{trf}");
    assert!(trf.contains("\n320  2.0  2.0 000 002\n"), "{trf}");
    // A bye for a team that also plays is refused.
    let refused = admin_client
        .create_round(admin(proto::CreateRoundRequest {
            request_id: "bad-bye".to_owned(),
            event_id: event.to_owned(),
            round: 3,
            matches: vec![full_of(1, "a", "b", 2)],
            team_byes: vec![
                bye("a", proto::MatchOutcome::Won, "2"),
                bye("c", proto::MatchOutcome::Unspecified, "x"),
            ],
            ..Default::default()
        }))
        .await;
    let status = expect_code(refused, Code::InvalidArgument);
    let fields: Vec<String> = status
        .get_details_bad_request()
        .map(|bad| bad.field_violations.into_iter().map(|v| v.field).collect())
        .unwrap_or_default();
    assert_eq!(
        fields,
        [
            "team_byes[1].outcome",
            "team_byes[1].game_points",
            "team_byes[0].team_id"
        ]
    );
}

on_every_backend!(
    a_team_bye_scores_as_the_round_gives_it,
    an_events_stream_carries_each_matchs_score,
    an_olympiad_style_swiss_runs_through_the_api,
    a_league_round_robin_counts_a_forfeited_match,
    bad_teams_and_line_ups_are_refused_and_change_nothing,
    a_registration_only_grows_once_the_event_has_a_round,
);
