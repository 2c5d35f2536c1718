use super::*;
use crate::domain::{
    BoardResult, GameRecordForStandings, GameRules, Outcome, PointTable, Points, RoundSummary,
    Score, StartPosition, TeamMatch, Variant, registered_team_matches, test_support::*,
};

fn team(id: &str, players: &[&str]) -> Team {
    Team {
        id: id.to_owned(),
        name: format!("Team {id}"),
        players: players
            .iter()
            .map(|p| player(p, &p.to_uppercase()))
            .collect(),
    }
}

/// Four teams of two or three players, matches of two boards.
fn registration() -> TeamRegistration {
    TeamRegistration::new(
        2,
        vec![
            team("a", &["a1", "a2", "a3"]),
            team("b", &["b1", "b2", "b3"]),
            team("c", &["c1", "c2"]),
            team("d", &["d1", "d2"]),
        ],
        at(0),
        "arbiter",
    )
    .expect("registered")
}

fn fields(violations: &[RoundViolation]) -> Vec<&str> {
    violations.iter().map(|v| v.field.as_str()).collect()
}

fn plan(table: u32, first: &str, second: &str, line_ups: [&[&str]; 2]) -> MatchPlan {
    MatchPlan {
        table,
        teams: [first.to_owned(), second.to_owned()],
        line_ups: line_ups.map(|ids| ids.iter().map(|id| (*id).to_owned()).collect()),
        first_white: true,
        forfeit: None,
        boards: 0,
    }
}

fn setup() -> Result<NewGame, RoundViolation> {
    Ok(NewGame::new(
        player("x", "X"),
        player("y", "Y"),
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::default(),
        GameRules::default(),
    )
    .expect("setup"))
}

fn event() -> EventId {
    EventId::parse("league").expect("event")
}

#[test]
fn a_registration_gives_every_player_the_teams_name_in_its_games() {
    let registered = registration();
    assert_eq!(registered.boards(), 2);
    assert_eq!(registered.teams().len(), 4);
    let first = &registered.teams()[0];
    // Kept once, as the team's name; a member as its games name it.
    assert!(first.players.iter().all(|p| p.details.team.is_none()));
    assert_eq!(
        first.member("a2").and_then(|p| p.details.team),
        Some("Team a".to_owned())
    );
    assert_eq!(first.member("b1"), None);
    assert_eq!(registered.index().get("c"), Some(&2));
    assert_eq!(registered.team("b").map(|(index, _)| index), Some(1));
    assert_eq!(registered.team("z"), None);
}

#[test]
fn a_registration_refuses_a_player_on_two_teams_and_repeated_teams() {
    let mut same_name = team("d", &["d1"]);
    same_name.name = "Team a".into();
    let refused = TeamRegistration::new(
        2,
        vec![
            team("a", &["a1", "a2"]),
            team("b", &["b1", "a2"]),
            team("a", &["x1"]),
            same_name,
            team("e", &[]),
        ],
        at(0),
        "arbiter",
    )
    .expect_err("refused");
    assert_eq!(
        fields(&refused),
        [
            "teams[1].players[1].id",
            "teams[2].id",
            "teams[2].name",
            "teams[3].name",
            "teams[4].players"
        ]
    );
    assert!(
        refused[0].reason.contains("teams[0].players[1]"),
        "{refused:?}"
    );
    let bounds =
        TeamRegistration::new(0, vec![team("a", &["a1"])], at(0), "arbiter").expect_err("refused");
    assert_eq!(fields(&bounds), ["boards"]);
    let none = TeamRegistration::new(4, Vec::new(), at(0), "arbiter").expect_err("refused");
    assert_eq!(fields(&none), ["teams"]);
    let mut blank = team("", &["p"]);
    blank.name = "bad\nname".into();
    let text = TeamRegistration::new(4, vec![blank], at(0), "arbiter").expect_err("refused");
    assert_eq!(fields(&text), ["teams[0].id", "teams[0].name"]);
}

#[test]
fn once_rounds_exist_a_registration_only_grows() {
    let before = registration();
    let grown = TeamRegistration::new(
        2,
        vec![
            team("a", &["a1", "a2", "a3", "a4"]),
            team("b", &["b1", "b2", "b3"]),
            team("c", &["c1", "c2"]),
            team("d", &["d1", "d2"]),
            team("e", &["e1", "e2"]),
        ],
        at(1),
        "arbiter",
    )
    .expect("registered");
    assert_eq!(grown.check_amends(&before), Ok(()));
    let shrunk = TeamRegistration::new(
        3,
        vec![team("a", &["a2", "a1", "a3"]), team("b", &["b1", "b2"])],
        at(1),
        "arbiter",
    )
    .expect("registered");
    let refused = shrunk.check_amends(&before).expect_err("refused");
    assert_eq!(
        fields(&refused),
        [
            "boards",
            "teams[0].players[0]",
            "teams[1].players[2]",
            "teams",
            "teams"
        ]
    );
    assert!(refused[3].reason.contains("\"c\""), "{refused:?}");
    assert!(refused[4].reason.contains("\"d\""), "{refused:?}");
}

#[test]
fn a_match_lines_up_boards_with_alternating_colours_and_numbers_by_table() {
    let registered = registration();
    let mut second = plan(2, "c", "d", [&["c1", "c2"], &["d1", "d2"]]);
    second.first_white = false;
    let line_up = registered.line_up(
        &event(),
        3,
        vec![plan(1, "a", "b", [&["a1", "a3"], &["", ""]]), second],
        &setup(),
    );
    assert_eq!(line_up.violations, []);
    // Match 1: b left both boards empty: a1 and a3 win by forfeit.
    assert_eq!(
        line_up
            .byes
            .iter()
            .map(|(b, field)| (b.player.id.as_str(), b.kind, field.as_str()))
            .collect::<Vec<_>>(),
        [
            (
                "a1",
                ByeKind::ForfeitWin,
                "matches[0].first_team_players[0]"
            ),
            (
                "a3",
                ByeKind::ForfeitWin,
                "matches[0].first_team_players[1]"
            )
        ]
    );
    // Match 2 at table 2: boards 3 and 4; c has Black on board 1.
    let boards: Vec<(u32, &str, &str, &str)> = line_up
        .boards
        .iter()
        .map(|b| {
            (
                b.board,
                b.white.id.as_str(),
                b.black.id.as_str(),
                b.field.as_str(),
            )
        })
        .collect();
    assert_eq!(
        boards,
        [(3, "d1", "c1", "matches[1]"), (4, "c2", "d2", "matches[1]")]
    );
    let setup = line_up.boards[0].setup.as_ref().expect("setup");
    assert_eq!(setup.white().id, "d1");
    assert_eq!(setup.white().details.team.as_deref(), Some("Team d"));
    assert_eq!(setup.pairing().board, 3);
    assert_eq!(setup.pairing().round, 3);
    assert!(line_up.matches.iter().all(|m| m.boards == 2));
}

#[test]
fn a_line_up_is_refused_for_every_offence_named() {
    let registered = registration();
    let mut forfeited = plan(5, "c", "a", [&["c1", "c2"], &[]]);
    forfeited.forfeit = Some(MatchForfeit::Second);
    let line_up = registered.line_up(
        &event(),
        1,
        vec![
            // a2 above a1 on the roster; b9 not on b's.
            plan(1, "a", "b", [&["a2", "a1"], &["b9", "b1"]]),
            // c plays itself, and then again; one board named.
            plan(1, "c", "c", [&["c1"], &["c2"]]),
            // an unknown team; b twice in the round; a player twice.
            plan(3, "z", "b", [&["z1", "z2"], &["b2", "b2"]]),
            forfeited,
        ],
        &setup(),
    );
    assert_eq!(
        fields(&line_up.violations),
        [
            "matches[0].first_team_players[1]",
            "matches[0].second_team_players[0]",
            "matches[1].table",
            "matches[1].second_team_id",
            "matches[1].first_team_players",
            "matches[2].first_team_id",
            "matches[2].second_team_id",
            "matches[2].second_team_players[1]",
            "matches[3].first_team_id",
            "matches[3].first_team_players",
            "matches[3].second_team_id",
        ],
        "{:#?}",
        line_up.violations
    );
    assert!(line_up.boards.is_empty() && line_up.byes.is_empty());
    let reasons: Vec<&str> = line_up
        .violations
        .iter()
        .map(|v| v.reason.as_str())
        .collect();
    assert!(reasons[0].contains("roster's order"), "{reasons:?}");
    assert!(reasons[1].contains("not on the roster"), "{reasons:?}");
    assert!(reasons[3].contains("cannot play itself"), "{reasons:?}");
    assert!(reasons[6].contains("one match a round"), "{reasons:?}");
    assert!(reasons[9].contains("forfeited whole"), "{reasons:?}");
}

fn record(
    round: u32,
    board: u32,
    white: &str,
    black: &str,
    result: Option<&str>,
) -> GameRecordForStandings {
    let registered = registration();
    let find = |id: &str| {
        registered
            .teams()
            .iter()
            .flat_map(|t| &t.players)
            .find(|p| p.id == id)
            .cloned()
            .expect("rostered")
    };
    let finished = result.map(|result| {
        let (white, black, scored_as) = match result {
            "1-0" => (Points::from_milli(1_000), Points::ZERO, Outcome::WhiteWins),
            "0-1" => (Points::ZERO, Points::from_milli(1_000), Outcome::BlackWins),
            _ => (
                Points::from_milli(500),
                Points::from_milli(500),
                Outcome::Draw,
            ),
        };
        Score {
            white,
            black,
            scored_as,
            played: true,
        }
    });
    GameRecordForStandings {
        board,
        white: find(white),
        black: find(black),
        finished,
        round,
        aborted: false,
    }
}

#[test]
fn registered_matches_score_their_games_empty_boards_and_forfeits() {
    let registered = registration();
    let mut forfeited = plan(2, "d", "b", [&[], &[]]);
    forfeited.forfeit = Some(MatchForfeit::First);
    let lined = registered.line_up(
        &event(),
        1,
        vec![plan(1, "a", "c", [&["a1", "a2"], &["c1", ""]]), forfeited],
        &setup(),
    );
    assert_eq!(lined.violations, []);
    let summary = RoundSummary {
        number: 1,
        matches: lined.matches.clone(),
        ..RoundSummary::default()
    };
    // Board 1: a1 (White) beats c1; board 2: a2 wins by forfeit.
    let records = [record(1, 1, "a1", "c1", Some("1-0"))];
    let event = registered_team_matches(
        &registered,
        std::slice::from_ref(&summary),
        &records,
        &[],
        &PointTable::CLASSIC,
    );
    assert_eq!(event.teams, ["Team a", "Team b", "Team c", "Team d"]);
    assert_eq!(event.ids, ["a", "b", "c", "d"]);
    assert_eq!(event.in_progress, 0);
    let one = Points::from_milli(1_000);
    assert_eq!(
        event.matches,
        [
            TeamMatch {
                round: 1,
                teams: [0, 2],
                tie_break: None,
                boards: vec![
                    BoardResult {
                        board: 1,
                        points: [one, Points::ZERO],
                        played: true
                    },
                    BoardResult {
                        board: 2,
                        points: [one, Points::ZERO],
                        played: false
                    },
                ],
            },
            TeamMatch {
                round: 1,
                teams: [3, 1],
                tie_break: None,
                boards: vec![
                    BoardResult {
                        board: 1,
                        points: [Points::ZERO, one],
                        played: false
                    },
                    BoardResult {
                        board: 2,
                        points: [Points::ZERO, one],
                        played: false
                    },
                ],
            },
        ]
    );
    let seats: Vec<(&str, u32, bool)> = event
        .seats
        .iter()
        .map(|s| (s.player.id.as_str(), s.board, s.played))
        .collect();
    assert_eq!(seats, [("a1", 1, true), ("c1", 1, true), ("a2", 2, false)]);
    // Black on board 2 (c's colour alternates): with c2 lined up and the
    // game not yet over, the match is in progress.
    let lined = registered.line_up(
        &event_id(),
        1,
        vec![plan(1, "a", "c", [&["a1", "a2"], &["c1", "c2"]])],
        &setup(),
    );
    assert_eq!(lined.boards[1].white.id, "c2");
    let summary = RoundSummary {
        number: 1,
        matches: lined.matches,
        ..RoundSummary::default()
    };
    let records = [
        record(1, 1, "a1", "c1", Some("1/2")),
        record(1, 2, "c2", "a2", None),
    ];
    let event =
        registered_team_matches(&registered, &[summary], &records, &[], &PointTable::CLASSIC);
    assert_eq!((event.matches.len(), event.in_progress), (0, 1));
}

fn event_id() -> EventId {
    event()
}

#[test]
fn a_matchs_score_counts_its_decided_boards_as_they_stand() {
    let registered = registration();
    let lined = registered.line_up(
        &event(),
        2,
        vec![plan(1, "a", "c", [&["a1", "a2"], &["", "c2"]])],
        &setup(),
    );
    let plan = &lined.matches[0];
    // Board 1 empty for c: a1 wins by forfeit; board 2 (c2 White) to play.
    let pending = [record(2, 2, "c2", "a2", None)];
    let score = crate::domain::match_score(&registered, 2, plan, &pending, &PointTable::CLASSIC);
    let one = Points::from_milli(1_000);
    assert_eq!(
        score,
        crate::domain::MatchScore {
            points: [one, Points::ZERO],
            decided: 1,
            boards: 2
        }
    );
    // Another round's game on that board counts for nothing.
    let finished = [
        record(2, 2, "c2", "a2", Some("1-0")),
        record(1, 2, "c2", "a2", Some("0-1")),
    ];
    let score = crate::domain::match_score(&registered, 2, plan, &finished, &PointTable::CLASSIC);
    assert_eq!((score.points, score.decided), ([one, one], 2));
}

fn match_request(matches: Vec<MatchPlan>, byes: Vec<RoundBye>) -> crate::domain::RoundRequest {
    crate::domain::RoundRequest {
        event: event(),
        number: 1,
        request_id: None,
        boards: Vec::new(),
        byes,
        roster: Vec::new(),
        forbidden_pairs: Vec::new(),
        accelerations: Vec::new(),
        refused: Vec::new(),
        teams: false,
        matches,
        match_setup: Some(setup()),
        team_byes: Vec::new(),
    }
}

#[test]
fn a_bye_for_a_player_facing_an_empty_board_is_refused_at_the_line_up() {
    let registered = registration();
    let bye = RoundBye {
        player: player("a2", "A2"),
        kind: ByeKind::HalfPoint,
    };
    let request = match_request(
        vec![plan(1, "a", "b", [&["a1", "a2"], &["b1", ""]])],
        vec![bye],
    )
    .lined_up(Some(&registered));
    assert_eq!(
        fields(&request.refused),
        ["matches[0].first_team_players[1]"]
    );
    assert!(
        request.refused[0].reason.contains("byes[0]"),
        "{:?}",
        request.refused
    );
    assert_eq!(request.byes.len(), 1);
}

#[test]
fn a_round_of_forfeited_matches_is_planned_and_its_settings_still_checked() {
    let registered = registration();
    let mut forfeited = plan(1, "a", "b", [&[], &[]]);
    forfeited.forfeit = Some(MatchForfeit::Both);
    let planned = crate::domain::Round::plan(
        match_request(vec![forfeited.clone()], Vec::new()).lined_up(Some(&registered)),
        &[],
        at(0),
    )
    .expect("a round without games");
    assert!(planned.boards().is_empty());
    assert_eq!(planned.matches().len(), 1);
    let mut bad = match_request(vec![forfeited], Vec::new());
    bad.match_setup = Some(Err(RoundViolation::new(
        "settings.scoring",
        "is not a system",
    )));
    let refused = crate::domain::Round::plan(bad.lined_up(Some(&registered)), &[], at(0))
        .expect_err("refused");
    assert_eq!(fields(&refused), ["settings.scoring"]);
}

#[test]
fn a_round_of_matches_is_the_same_plan_whatever_its_players_ratings() {
    let registered = registration();
    let plan_with = |registration: &TeamRegistration| {
        crate::domain::Round::plan(
            match_request(
                vec![plan(1, "a", "b", [&["a1", "a2"], &["b1", "b2"]])],
                Vec::new(),
            )
            .lined_up(Some(registration)),
            &[],
            at(0),
        )
        .expect("planned")
    };
    let first = plan_with(&registered);
    let mut teams = registered.teams().to_vec();
    teams[0].players[0].details.rating = Some(2222);
    let corrected = TeamRegistration::new(2, teams, at(1), "arbiter").expect("registered");
    assert!(first.same_plan(&plan_with(&corrected)));
    let mut other = registered.teams().to_vec();
    other[0].players.swap(0, 1);
    let reordered = TeamRegistration::new(2, other, at(1), "arbiter").expect("registered");
    let lined = match_request(
        vec![plan(1, "a", "b", [&["a2", "a1"], &["b1", "b2"]])],
        Vec::new(),
    )
    .lined_up(Some(&reordered));
    let moved = crate::domain::Round::plan(lined, &[], at(0)).expect("planned");
    assert!(!first.same_plan(&moved));
}

#[test]
fn a_team_bye_is_for_a_registered_team_without_a_match() {
    let registered = registration();
    let bye = |team: &str, points: &str| crate::domain::TeamByePlan {
        team: team.to_owned(),
        outcome: crate::domain::MatchOutcome::Drawn,
        game_points: Points::parse("points", points).expect("points"),
    };
    let mut request = match_request(
        vec![plan(1, "a", "b", [&["a1", "a2"], &["b1", "b2"]])],
        Vec::new(),
    );
    request.team_byes = vec![
        bye("c", "1"),
        bye("c", "1"),
        bye("a", "1"),
        bye("z", "1"),
        bye("d", "201"),
    ];
    let lined = request.lined_up(Some(&registered));
    assert_eq!(
        fields(&lined.refused),
        [
            "team_byes[1].team_id",
            "team_byes[2].team_id",
            "team_byes[3].team_id",
            "team_byes[4].game_points"
        ],
        "{:?}",
        lined.refused
    );
    // A round of a match and a bye is planned with both.
    let mut request = match_request(
        vec![plan(1, "a", "b", [&["a1", "a2"], &["b1", "b2"]])],
        Vec::new(),
    );
    request.team_byes = vec![bye("c", "1")];
    let round = crate::domain::Round::plan(request.lined_up(Some(&registered)), &[], at(0))
        .expect("planned");
    assert_eq!(round.team_byes().len(), 1);
    assert_eq!(round.summary().team_byes, round.team_byes());
}

#[test]
fn a_byes_game_points_are_ones_its_boards_can_score() {
    let registered = registration();
    let bye = |points: &str| crate::domain::TeamByePlan {
        team: "c".to_owned(),
        outcome: crate::domain::MatchOutcome::Won,
        game_points: Points::parse("points", points).expect("points"),
    };
    let refused = |points: &str, table: PointTable| {
        let mut out = Vec::new();
        registered.check_byes(&[bye(points)], &[], &table, &mut out);
        fields(&out)
            .iter()
            .map(|f| (*f).to_owned())
            .collect::<Vec<_>>()
    };
    for fine in ["0", "0.5", "1.5", "2"] {
        assert!(refused(fine, PointTable::CLASSIC).is_empty(), "{fine}");
    }
    for wrong in ["2.5", "0.3", "-1"] {
        assert_eq!(
            refused(wrong, PointTable::CLASSIC),
            ["team_byes[0].game_points"],
            "{wrong}"
        );
    }
    // Under 3 / 1 / 0 a match of two boards scores 0 to 6, but never 5.
    let football = PointTable::new(
        "points",
        Points::from_milli(3_000),
        Points::from_milli(1_000),
        Points::ZERO,
    )
    .expect("a table");
    assert!(refused("4", football).is_empty());
    assert_eq!(refused("5", football), ["team_byes[0].game_points"]);
}
