use super::*;
use crate::domain::{GameRules, Points, StartPosition, Variant, test_support::*};

fn event() -> EventId {
    EventId::parse("open-2026").expect("event")
}

fn board(number: u32, white: &str, black: &str) -> BoardRequest {
    let setup = NewGame::new(
        player(white, &white.to_uppercase()),
        player(black, &black.to_uppercase()),
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::default(),
        GameRules::default(),
    )
    .expect("setup");
    BoardRequest {
        board: number,
        field: String::new(),
        white: setup.white().clone(),
        black: setup.black().clone(),
        setup: Ok(setup),
    }
}

fn request(number: u32, mut boards: Vec<BoardRequest>, byes: Vec<RoundBye>) -> RoundRequest {
    // Each board named by its place in the request, as the API reads it.
    for (index, board) in boards.iter_mut().enumerate() {
        board.field = format!("boards[{index}]");
    }
    RoundRequest {
        event: event(),
        number,
        request_id: None,
        boards,
        byes,
        roster: Vec::new(),
        forbidden_pairs: Vec::new(),
        accelerations: Vec::new(),
        refused: Vec::new(),
        teams: false,
        matches: Vec::new(),
        match_setup: None,
        team_byes: Vec::new(),
    }
}

fn plan(boards: Vec<BoardRequest>, byes: Vec<RoundBye>) -> Result<Round, Vec<RoundViolation>> {
    Round::plan(request(5, boards, byes), &[], at(0))
}

fn fields(violations: &[RoundViolation]) -> Vec<&str> {
    violations.iter().map(|v| v.field.as_str()).collect()
}

#[test]
fn a_round_plans_each_board_with_its_players_and_place() {
    let round = plan(
        vec![board(1, "a", "b"), board(2, "c", "d")],
        vec![RoundBye {
            player: player("e", "E"),
            kind: ByeKind::PairingAllocated,
        }],
    )
    .expect("planned");
    assert!(!round.is_complete());
    let second = &round.boards()[1];
    assert_eq!(second.game, GameId::for_board(&event(), 5, 2));
    let setup = round.setup(second).expect("setup");
    assert_eq!(setup.white().id, "c");
    assert_eq!(setup.black().id, "d");
    assert_eq!(
        setup.pairing(),
        &Pairing {
            event_id: Some(event()),
            round: 5,
            board: 2,
            tie_break: false,
        }
    );
    // Both boards share one set of settings.
    assert_eq!(round.settings.len(), 1);
    let byes: Vec<Bye> = round.summary().byes().collect();
    assert_eq!(byes.len(), 1);
    assert_eq!(
        (byes[0].round, byes[0].kind),
        (5, ByeKind::PairingAllocated)
    );
}

#[test]
fn every_offending_board_is_named_and_nothing_is_planned() {
    let violations = plan(
        vec![
            board(1, "a", "b"),
            board(1, "c", "d"),
            board(3, "b", "e"),
            board(0, "f", "f"),
        ],
        vec![RoundBye {
            player: player("c", "C"),
            kind: ByeKind::HalfPoint,
        }],
    )
    .expect_err("refused");
    assert_eq!(
        fields(&violations),
        [
            "boards[1].board",
            "boards[2].white.id",
            "boards[3].board",
            "boards[3].black.id",
            "byes[0].player.id",
        ]
    );
    assert!(violations[1].reason.contains("boards[0].black"));
}

#[test]
fn a_refused_setup_is_reported_with_the_rest_and_once() {
    let refused = |b: BoardRequest| BoardRequest {
        setup: Err(RoundViolation::new("settings.scoring", "is not a system")),
        ..b
    };
    let violations = plan(
        vec![refused(board(1, "a", "b")), refused(board(2, "c", "a"))],
        Vec::new(),
    )
    .expect_err("refused");
    assert_eq!(
        fields(&violations),
        ["settings.scoring", "boards[1].black.id"]
    );
}

#[test]
fn round_numbers_and_sizes_out_of_range_are_refused() {
    let refused = |number: u32, boards: Vec<BoardRequest>| {
        Round::plan(request(number, boards, Vec::new()), &[], at(0)).expect_err("refused")
    };
    assert_eq!(fields(&refused(0, vec![board(1, "a", "b")])), ["round"]);
    assert_eq!(fields(&refused(1001, vec![board(1, "a", "b")])), ["round"]);
    assert_eq!(fields(&refused(1, Vec::new())), ["boards"]);
    let many = (1..=MAX_ROUND_BOARDS as u32 + 1)
        .map(|n| board(n, &format!("w{n}"), &format!("b{n}")))
        .collect();
    let violations = refused(1, many);
    assert_eq!(fields(&violations), ["boards"]);
    assert!(violations[0].reason.contains("2001 boards"));
}

#[test]
fn games_the_event_already_has_in_the_round_are_refused() {
    let existing = [ExistingGame {
        game: GameId::parse("made-by-create-game").expect("id"),
        board: 2,
        white: "c".into(),
        black: "d".into(),
    }];
    // Even with the same players: the game has its own setup and clock.
    let same = Round::plan(
        request(5, vec![board(1, "a", "b"), board(2, "c", "d")], Vec::new()),
        &existing,
        at(0),
    )
    .expect_err("refused");
    assert_eq!(fields(&same), ["boards[1]"]);
    assert!(same[0].reason.contains("made-by-create-game"));
    let left_out = Round::plan(
        request(5, vec![board(1, "a", "b")], Vec::new()),
        &existing,
        at(0),
    )
    .expect_err("refused");
    assert_eq!(fields(&left_out), ["boards"]);
}

#[test]
fn the_same_plan_is_recognised_whatever_its_progress() {
    let first = plan(vec![board(1, "a", "b")], Vec::new()).expect("planned");
    let again = plan(vec![board(1, "a", "b")], Vec::new()).expect("planned");
    assert!(first.same_plan(&again.clone().completed().started_by("arbiter", at(5))));
    let other = plan(vec![board(1, "b", "a")], Vec::new()).expect("planned");
    assert!(!first.same_plan(&other));
}

#[test]
fn a_round_keeps_its_first_start() {
    let round = plan(vec![board(1, "a", "b")], Vec::new())
        .expect("planned")
        .started_by("first", at(10))
        .started_by("second", at(20));
    assert_eq!(
        round.started(),
        Some(&RoundStart {
            at: at(10),
            by: "first".into()
        })
    );
}

#[test]
fn forbidden_pairs_and_accelerations_name_the_rounds_players() {
    let mut request = request(5, vec![board(1, "a", "b")], Vec::new());
    request.roster = vec![player("c", "C")];
    request.forbidden_pairs = vec![
        ForbiddenPair {
            first: "a".into(),
            second: "c".into(),
        },
        ForbiddenPair {
            first: "a".into(),
            second: "a".into(),
        },
        ForbiddenPair {
            first: "a".into(),
            second: "stranger".into(),
        },
    ];
    request.accelerations = vec![
        Acceleration {
            player: "b".into(),
            points: Points::from_milli(1000),
            first: 1,
            last: 2,
        },
        Acceleration {
            player: "c".into(),
            points: Points::from_milli(500),
            first: 3,
            last: 2,
        },
    ];
    let violations = Round::plan(request.clone(), &[], at(0)).expect_err("refused");
    assert_eq!(
        fields(&violations),
        [
            "forbidden_pairs[1]",
            "forbidden_pairs[2]",
            "accelerations[1]"
        ]
    );
    request.forbidden_pairs.truncate(1);
    request.accelerations.truncate(1);
    let round = Round::plan(request, &[], at(0)).expect("planned");
    assert_eq!(round.summary().forbidden_pairs.len(), 1);
    assert_eq!(round.summary().accelerations.len(), 1);
}

#[test]
fn a_rounds_byes_give_way_to_games_and_to_the_requests_own() {
    let bye = |id: &str, kind: ByeKind| RoundBye {
        player: player(id, &id.to_uppercase()),
        kind,
    };
    let summary = |number: u32, incomplete: bool, byes: Vec<RoundBye>| RoundSummary {
        number,
        byes,
        incomplete,
        ..RoundSummary::default()
    };
    let rounds = [
        summary(
            1,
            false,
            vec![
                bye("a", ByeKind::PairingAllocated),
                bye("b", ByeKind::HalfPoint),
            ],
        ),
        // Still being created: counts nothing yet.
        summary(2, true, vec![bye("c", ByeKind::FullPoint)]),
    ];
    // b has a game in round 1 after all.
    let games = [GameRecordForStandings {
        board: 9,
        white: player("b", "B"),
        black: player("z", "Z"),
        finished: None,
        round: 1,
        aborted: false,
    }];
    // The request gives a a zero-point bye instead, by id alone.
    let requested = vec![Bye {
        player: Player {
            id: "a".into(),
            name: String::new(),
            ..Default::default()
        },
        round: 1,
        kind: ByeKind::ZeroPoint,
    }];
    let counted = counted_byes(&rounds, requested, &games);
    assert_eq!(
        counted,
        [Bye {
            player: player("a", "A"),
            round: 1,
            kind: ByeKind::ZeroPoint,
        }]
    );
}
