use super::*;
use crate::domain::{
    GameRules, MatchForfeit, MatchPointTable, PointTable, RoundSummary, Score, ScoringSystem,
    StartPosition, Team, TeamScore, TeamTieBreak, Variant, match_score, registered_team_matches,
    team_standings, test_support::*,
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

/// Two teams of three, matches of two boards.
fn registration() -> TeamRegistration {
    TeamRegistration::new(
        2,
        vec![
            team("a", &["a1", "a2", "a3"]),
            team("b", &["b1", "b2", "b3"]),
        ],
        at(0),
        "arbiter",
    )
    .expect("registered")
}

fn event() -> EventId {
    EventId::parse("league").expect("event")
}

fn settings(armageddon: bool) -> NewGame {
    NewGame::new(
        player("x", "X"),
        player("y", "Y"),
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::default(),
        GameRules::default(),
    )
    .expect("setup")
    .with_scoring(ScoringSystem {
        armageddon,
        ..ScoringSystem::default()
    })
}

/// Round 1's match a–b at table 1, a1 and a2 against b1 and b2, a White
/// on board 1.
fn the_match() -> MatchPlan {
    let lined = registration().line_up(
        &event(),
        1,
        vec![MatchPlan {
            table: 1,
            teams: ["a".to_owned(), "b".to_owned()],
            line_ups: [
                vec!["a1".to_owned(), "a2".to_owned()],
                vec!["b1".to_owned(), "b2".to_owned()],
            ],
            first_white: true,
            forfeit: None,
            boards: 0,
        }],
        &Ok(settings(false)),
    );
    assert_eq!(lined.violations, []);
    lined.matches[0].clone()
}

fn record(board: u32, white: &str, black: &str, result: Option<Outcome>) -> GameRecordForStandings {
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
    GameRecordForStandings {
        board,
        white: find(white),
        black: find(black),
        finished: result.map(|outcome| {
            let (white, black) = match outcome {
                Outcome::WhiteWins => (Points::from_milli(1_000), Points::ZERO),
                Outcome::BlackWins => (Points::ZERO, Points::from_milli(1_000)),
                _ => (Points::from_milli(500), Points::from_milli(500)),
            };
            Score {
                white,
                black,
                scored_as: outcome,
                played: true,
            }
        }),
        round: 1,
        aborted: false,
    }
}

/// The match's boards: board 1 (a1 White) and board 2 (b2 White) ending
/// as `results`.
fn boards(results: [Option<Outcome>; 2]) -> Vec<GameRecordForStandings> {
    vec![
        record(1, "a1", "b1", results[0]),
        record(2, "b2", "a2", results[1]),
    ]
}

fn request(white: &str, black: &str) -> TieBreakRequest {
    TieBreakRequest {
        table: 1,
        white: white.to_owned(),
        black: black.to_owned(),
        settings: settings(true),
    }
}

fn plan_for(
    results: [Option<Outcome>; 2],
    request: &TieBreakRequest,
) -> Result<RecordedTieBreak, TieBreakRefusal> {
    let plan = the_match();
    let registered = registration();
    let score = match_score(
        &registered,
        1,
        &plan,
        &boards(results),
        &PointTable::CLASSIC,
    );
    RecordedTieBreak::plan(&event(), 1, &plan, &registered, &score, request)
}

#[test]
fn a_tie_break_game_is_made_for_a_drawn_match_only() {
    use Outcome::{BlackWins, Draw, WhiteWins};
    let asked = request("b1", "a2");
    // 1–1: board 1 won by a1, board 2 won by b2.
    let made = plan_for([Some(WhiteWins), Some(WhiteWins)], &asked).expect("made");
    assert_eq!(made.plan.table, 1);
    assert_eq!(made.plan.board, 1);
    assert_eq!(made.plan.game, GameId::for_tie_break(&event(), 1, 1));
    assert!(!made.plan.first_white, "b1 of the second team has White");
    assert_eq!(made.white.details.team.as_deref(), Some("Team b"));
    assert!(made.answers(&asked));
    assert!(!made.answers(&request("b2", "a2")));
    let setup = made.setup(&event(), 1);
    assert!(setup.pairing().tie_break);
    assert_eq!(setup.pairing().board, 1);
    assert_eq!(setup.white().id, "b1");

    assert!(matches!(
        plan_for([Some(WhiteWins), None], &asked),
        Err(TieBreakRefusal::Undecided {
            decided: 1,
            boards: 2,
            ..
        })
    ));
    assert!(matches!(
        plan_for([Some(WhiteWins), Some(BlackWins)], &asked),
        Err(TieBreakRefusal::NotDrawn { .. })
    ));
    // Two draws tie it too.
    assert!(plan_for([Some(Draw), Some(Draw)], &asked).is_ok());
}

#[test]
fn a_tie_break_game_is_between_the_two_line_ups_under_armageddon() {
    use Outcome::WhiteWins;
    let drawn = [Some(WhiteWins), Some(WhiteWins)];
    let field = |result: Result<RecordedTieBreak, TieBreakRefusal>| match result {
        Err(TieBreakRefusal::Field { field, .. }) => field,
        other => panic!("not a field's refusal: {other:?}"),
    };
    // a3 is on the roster, not in the line-up.
    assert_eq!(
        field(plan_for(drawn, &request("a3", "b1"))),
        "white_player_id"
    );
    assert_eq!(
        field(plan_for(drawn, &request("a1", "zz"))),
        "black_player_id"
    );
    assert_eq!(
        field(plan_for(drawn, &request("a1", "a2"))),
        "black_player_id"
    );
    let mut plain = request("a1", "b1");
    plain.settings = settings(false);
    assert_eq!(
        field(plan_for(drawn, &plain)),
        "settings.scoring.armageddon"
    );

    let mut forfeited = the_match();
    forfeited.forfeit = Some(MatchForfeit::Both);
    let registered = registration();
    let score = match_score(&registered, 1, &forfeited, &[], &PointTable::CLASSIC);
    assert!(matches!(
        RecordedTieBreak::plan(
            &event(),
            1,
            &forfeited,
            &registered,
            &score,
            &request("a1", "b1")
        ),
        Err(TieBreakRefusal::Forfeited { table: 1 })
    ));
}

#[test]
fn a_tie_break_game_decides_for_its_winners_team_and_armageddon_draws_for_black() {
    let tie_break = MatchTieBreak {
        table: 1,
        game: GameId::for_tie_break(&event(), 1, 1),
        board: 1,
        first_white: false,
    };
    let game = |result| record(1, "b1", "a2", result);
    assert_eq!(tie_break.state(None), TieBreakState::Playing);
    assert_eq!(tie_break.state(Some(&game(None))), TieBreakState::Playing);
    assert_eq!(
        tie_break.state(Some(&game(Some(Outcome::WhiteWins)))),
        TieBreakState::Won(1)
    );
    // A drawn Armageddon game scores as Black's win.
    assert_eq!(
        tie_break.state(Some(&game(Some(Outcome::BlackWins)))),
        TieBreakState::Won(0)
    );
    assert_eq!(
        tie_break.state(Some(&game(Some(Outcome::Draw)))),
        TieBreakState::Void
    );
    let mut aborted = game(None);
    aborted.aborted = true;
    assert_eq!(tie_break.state(Some(&aborted)), TieBreakState::Void);
}

#[test]
fn standings_give_a_tie_break_win_its_match_points_and_wait_for_the_game() {
    use Outcome::WhiteWins;
    let registered = registration();
    let made = plan_for([Some(WhiteWins), Some(WhiteWins)], &request("b1", "a2")).expect("made");
    let summary = RoundSummary {
        number: 1,
        matches: vec![the_match()],
        tie_breaks: vec![made.plan.clone()],
        ..RoundSummary::default()
    };
    let games = boards([Some(WhiteWins), Some(WhiteWins)]);
    let read = |tie_breaks: &[GameRecordForStandings]| {
        registered_team_matches(
            &registered,
            std::slice::from_ref(&summary),
            &games,
            tie_breaks,
            &PointTable::CLASSIC,
        )
    };
    // Not created yet, then in play: the match waits; its boards' players
    // are counted.
    for waiting in [vec![], vec![record(1, "b1", "a2", None)]] {
        let event = read(&waiting);
        assert_eq!((event.matches.len(), event.in_progress), (0, 1));
        assert_eq!(event.seats.len(), 4);
    }
    // b1 (White, team b) wins.
    let event = read(&[record(1, "b1", "a2", Some(WhiteWins))]);
    assert_eq!(event.in_progress, 0);
    assert_eq!(event.matches[0].tie_break, Some(1));
    let rank = |table: MatchPointTable| {
        team_standings(
            2,
            &event.matches,
            &event.byes,
            table,
            TeamScore::Match,
            &[TeamTieBreak::Wins, TeamTieBreak::Score(TeamScore::Game)],
        )
    };
    let rows = rank(MatchPointTable::OLYMPIAD);
    assert_eq!(rows[0].team, 1);
    assert_eq!(rows[0].match_points, Points::from_milli(2_000));
    assert_eq!(rows[1].match_points, Points::ZERO);
    // Game points stay the boards'; the match counts as won.
    assert_eq!(rows[0].game_points, Points::from_milli(1_000));
    assert_eq!(rows[0].values[0], Points::from_milli(1_000));
    assert_eq!(rows[1].values[0], Points::ZERO);
    let norway = MatchPointTable::THREE_ONE_ZERO
        .with_tie_break(
            "match_points",
            Some(("tie_break_win", Points::from_milli(2_000))),
            Some(("tie_break_loss", Points::from_milli(1_000))),
        )
        .expect("table");
    let rows = rank(norway);
    assert_eq!(
        (rows[0].match_points, rows[1].match_points),
        (Points::from_milli(2_000), Points::from_milli(1_000))
    );
    // Should a board's result change so that the match is no longer
    // drawn, the boards decide it.
    let mut decided = event.matches.clone();
    decided[0].boards[1].points = [Points::from_milli(500), Points::from_milli(500)];
    let rows = team_standings(
        2,
        &decided,
        &[],
        MatchPointTable::OLYMPIAD,
        TeamScore::Match,
        &[],
    );
    assert_eq!(
        (rows[0].team, rows[0].match_points),
        (0, Points::from_milli(2_000))
    );
    // Aborted: the match stays drawn.
    let mut aborted = record(1, "b1", "a2", None);
    aborted.aborted = true;
    let event = read(&[aborted]);
    assert_eq!(event.matches[0].tie_break, None);
}

#[test]
fn a_tie_break_win_scores_at_least_a_tie_break_loss() {
    let table = |win: &str, loss: &str| {
        MatchPointTable::OLYMPIAD.with_tie_break(
            "match_points",
            Some(("tie_break_win", Points::parse("w", win).expect("points"))),
            Some(("tie_break_loss", Points::parse("l", loss).expect("points"))),
        )
    };
    assert_eq!(table("1", "2").map_err(|e| e.field), Err("match_points"));
    assert_eq!(table("101", "0").map_err(|e| e.field), Err("tie_break_win"));
    assert_eq!(
        table("1.5", "1").map(|t| (t.tie_break_win, t.tie_break_loss)),
        Ok((Points::from_milli(1_500), Points::from_milli(1_000)))
    );
    let defaults = MatchPointTable::THREE_ONE_ZERO
        .with_tie_break("match_points", None, None)
        .expect("table");
    assert_eq!(defaults, MatchPointTable::THREE_ONE_ZERO);
}
