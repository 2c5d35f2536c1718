use std::{collections::BTreeMap, fs, path::PathBuf};

use super::*;

fn pts(text: &str) -> Points {
    Points::parse("points", text).expect("a number")
}

/// Two teams of two boards: the first wins 1½–½, then draws 1–1.
#[test]
fn game_points_decide_the_match_and_its_match_points() {
    let board = |board, first: &str, second: &str| BoardResult {
        board,
        points: [pts(first), pts(second)],
        played: true,
    };
    let matches = [
        TeamMatch {
            round: 1,
            teams: [0, 1],
            tie_break: None,
            boards: vec![board(1, "1", "0"), board(2, "0.5", "0.5")],
        },
        TeamMatch {
            round: 2,
            teams: [1, 0],
            tie_break: None,
            boards: vec![board(1, "0.5", "0.5"), board(2, "0.5", "0.5")],
        },
    ];
    let order = [
        TeamTieBreak::Score(TeamScore::Game),
        TeamTieBreak::SonnebornBerger {
            opponent: TeamScore::Match,
            own: TeamScore::Game,
        },
        TeamTieBreak::BoardCount,
    ];
    let rows = team_standings(
        2,
        &matches,
        &[],
        MatchPointTable::OLYMPIAD,
        TeamScore::Match,
        &order,
    );
    assert_eq!(rows[0].team, 0);
    assert_eq!(
        (rows[0].match_points, rows[0].game_points),
        (pts("3"), pts("2.5"))
    );
    assert_eq!(
        (rows[1].match_points, rows[1].game_points),
        (pts("1"), pts("1.5"))
    );
    // Olympiad SB: the opponent's match points times the game points
    // scored against it; board count: 1×1 + 2×½ + 1×½ + 2×½.
    assert_eq!(rows[0].values, vec![pts("2.5"), pts("2.5"), pts("3.5")]);
    let three = team_standings(
        2,
        &matches,
        &[],
        MatchPointTable::THREE_ONE_ZERO,
        TeamScore::Match,
        &[],
    );
    assert_eq!(three[0].match_points, pts("4"));
    // Under game points first the order is the same here, and every team
    // has a rank.
    let by_games = team_standings(
        2,
        &matches,
        &[],
        MatchPointTable::OLYMPIAD,
        TeamScore::Game,
        &[],
    );
    assert_eq!(
        by_games
            .iter()
            .map(|r| (r.team, r.rank))
            .collect::<Vec<_>>(),
        [(0, 1), (1, 2)]
    );
}

/// A match in which neither team scored (every board forfeited by both)
/// is lost by both; a win by forfeits alone is a win, not over the board.
#[test]
fn forfeits_score_as_the_boards_say() {
    let forfeit = |board, first: &str, second: &str| BoardResult {
        board,
        points: [pts(first), pts(second)],
        played: false,
    };
    let matches = [
        TeamMatch {
            round: 1,
            teams: [0, 1],
            tie_break: None,
            boards: vec![forfeit(1, "0", "0"), forfeit(2, "0", "0")],
        },
        TeamMatch {
            round: 2,
            teams: [0, 1],
            tie_break: None,
            boards: vec![forfeit(1, "1", "0"), forfeit(2, "1", "0")],
        },
    ];
    let rows = team_standings(
        2,
        &matches,
        &[],
        MatchPointTable::OLYMPIAD,
        TeamScore::Match,
        &[TeamTieBreak::Wins, TeamTieBreak::WinsOverTheBoard],
    );
    assert_eq!(rows[0].team, 0);
    assert_eq!(rows[0].match_points, pts("2"));
    assert_eq!(rows[1].match_points, pts("0"));
    assert_eq!(rows[0].values, vec![pts("1"), pts("0")]);
}

#[test]
fn tie_breaks_are_read_from_their_codes() {
    for tie_break in [
        TeamTieBreak::Score(TeamScore::Match),
        TeamTieBreak::Score(TeamScore::Game),
        TeamTieBreak::Buchholz(TeamScore::Match),
        TeamTieBreak::Buchholz(TeamScore::Game),
        TeamTieBreak::SonnebornBerger {
            opponent: TeamScore::Match,
            own: TeamScore::Game,
        },
        TeamTieBreak::SonnebornBerger {
            opponent: TeamScore::Game,
            own: TeamScore::Match,
        },
        TeamTieBreak::BoardCount,
        TeamTieBreak::Wins,
        TeamTieBreak::WinsOverTheBoard,
    ] {
        assert_eq!(
            TeamTieBreak::parse("tie_breaks", tie_break.code(), TeamScore::Match),
            Ok(tie_break)
        );
    }
    assert_eq!(
        TeamTieBreak::parse("tie_breaks", "mpvgp", TeamScore::Game),
        Ok(TeamTieBreak::Score(TeamScore::Match))
    );
    let err = TeamTieBreak::parse("tie_breaks[1]", "TBR", TeamScore::Match).expect_err("unknown");
    assert_eq!(err.field, "tie_breaks[1]");
}

#[test]
fn an_order_and_a_match_point_table_are_checked() {
    let codes = |list: &[&str]| list.iter().map(|c| (*c).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        TeamTieBreak::order("tie_breaks", &[], TeamScore::Game),
        Ok(TeamTieBreak::default_order(TeamScore::Game))
    );
    for bad in [codes(&["BC", "bc"]), codes(&["TBR"]), codes(&["WIN"; 17])] {
        assert!(TeamTieBreak::order("tie_breaks", &bad, TeamScore::Match).is_err());
    }
    let table = |win: &str, draw: &str, loss: &str| {
        MatchPointTable::new(
            "match_points",
            [("win", pts(win)), ("draw", pts(draw)), ("loss", pts(loss))],
        )
    };
    assert_eq!(table("3", "1", "0"), Ok(MatchPointTable::THREE_ONE_ZERO));
    assert_eq!(
        table("1", "2", "0").map_err(|e| e.field),
        Err("match_points")
    );
    assert_eq!(table("101", "1", "0").map_err(|e| e.field), Err("win"));
    assert_eq!(table("2", "1", "-1").map_err(|e| e.field), Err("loss"));
}

/// A TRF vector: each player's rounds, and each team's roster.
struct Vector {
    /// Per player (by start number), per round: opponent, result code.
    rounds: BTreeMap<u32, Vec<(u32, char)>>,
    /// Each team's players in board order.
    teams: Vec<Vec<u32>>,
}

fn read_vector(text: &str) -> Vector {
    let mut rounds = BTreeMap::new();
    let mut teams = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("001") {
            let number: u32 = rest[1..5].trim().parse().expect("a start number");
            let mut cells = Vec::new();
            let mut at = 91;
            while at + 8 <= line.len() {
                let cell = &line[at..at + 8];
                let opponent = cell[..4].trim().parse().unwrap_or(0);
                let code = cell.chars().nth(7).expect("a result code");
                cells.push((opponent, code));
                at += 10;
            }
            rounds.insert(number, cells);
        } else if let Some(rest) = line.strip_prefix("013") {
            let players = rest[33..]
                .split_whitespace()
                .map(|n| n.parse().expect("a start number"))
                .collect();
            teams.push(players);
        }
    }
    Vector { rounds, teams }
}

/// The vector's matches, derived as the reference derives them: the games
/// between two teams' players in a round are a match, its boards in the
/// order of the players in their team's list.
fn matches_of(vector: &Vector) -> Vec<TeamMatch> {
    let mut place = BTreeMap::new();
    for (team, players) in vector.teams.iter().enumerate() {
        for (position, player) in players.iter().enumerate() {
            place.insert(*player, (team, position));
        }
    }
    let points = |code: char| match code {
        '1' | '+' => pts("1"),
        '=' => pts("0.5"),
        _ => Points::ZERO,
    };
    let mut found: BTreeMap<(u32, usize, usize), Vec<(usize, BoardResult)>> = BTreeMap::new();
    for (player, cells) in &vector.rounds {
        let (team, position) = place[player];
        for (round, (opponent, code)) in (1..).zip(cells) {
            if *opponent == 0 {
                continue;
            }
            let (other, _) = place[opponent];
            if team > other {
                continue;
            }
            let their = vector.rounds[opponent][round as usize - 1].1;
            found.entry((round, team, other)).or_default().push((
                position,
                BoardResult {
                    board: 0,
                    points: [points(*code), points(their)],
                    played: matches!(code, '1' | '0' | '='),
                },
            ));
        }
    }
    found
        .into_iter()
        .map(|((round, first, second), mut boards)| {
            boards.sort_by_key(|(position, _)| *position);
            TeamMatch {
                round,
                teams: [first, second],
                tie_break: None,
                boards: (1..)
                    .zip(boards)
                    .map(|(board, (_, result))| BoardResult { board, ..result })
                    .collect(),
            }
        })
        .collect()
}

/// The reference's tie-break codes, as the arbiter's tie-breaks (the
/// first, `PTS:…`, is the primary score).
fn tie_break(code: &str, primary: TeamScore) -> TeamTieBreak {
    use TeamScore::{Game, Match};
    let other = if primary == Match { Game } else { Match };
    match code {
        "MPVGP" => TeamTieBreak::Score(other),
        "BH:MP" => TeamTieBreak::Buchholz(Match),
        "BH:GP" => TeamTieBreak::Buchholz(Game),
        "SB:MP" | "EMMSB" => TeamTieBreak::SonnebornBerger {
            opponent: Match,
            own: Match,
        },
        "SB:GP" | "EGGSB" => TeamTieBreak::SonnebornBerger {
            opponent: Game,
            own: Game,
        },
        "EMGSB" => TeamTieBreak::SonnebornBerger {
            opponent: Match,
            own: Game,
        },
        "EGMSB" => TeamTieBreak::SonnebornBerger {
            opponent: Game,
            own: Match,
        },
        "BC" => TeamTieBreak::BoardCount,
        "WIN" => TeamTieBreak::Wins,
        "WON" => TeamTieBreak::WinsOverTheBoard,
        other => panic!("no tie-break for the reference's {other}"),
    }
}

/// Every value of every committed vector equals the reference's, and the
/// teams rank in the reference's order wherever the values tell them
/// apart.
#[test]
fn every_team_vector_equals_the_reference() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/team-tie-breaks");
    let mut vectors = 0;
    let mut entries: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("the vectors")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "trf"))
        .collect();
    entries.sort();
    for trf in entries {
        let vector = read_vector(&fs::read_to_string(&trf).expect("a report"));
        let matches = matches_of(&vector);
        for (suffix, primary) in [("mp", TeamScore::Match), ("gp", TeamScore::Game)] {
            let tsv = trf.with_extension(format!("{suffix}.tsv"));
            let text = fs::read_to_string(&tsv).expect("the reference's values");
            let mut lines = text.lines();
            let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
            let order: Vec<TeamTieBreak> = header[3..]
                .iter()
                .map(|code| tie_break(code, primary))
                .collect();
            let rows = team_standings(
                vector.teams.len(),
                &matches,
                &[],
                MatchPointTable::OLYMPIAD,
                primary,
                &order,
            );
            let ours: BTreeMap<usize, &TeamStanding> =
                rows.iter().map(|row| (row.team, row)).collect();
            let mut reference_rank = BTreeMap::new();
            for line in lines {
                let cells: Vec<&str> = line.split('\t').collect();
                let team: usize = cells[0].parse::<usize>().expect("a team") - 1;
                reference_rank.insert(team, cells[1].parse::<u32>().expect("a rank"));
                let row = ours[&team];
                let first = match primary {
                    TeamScore::Match => row.match_points,
                    TeamScore::Game => row.game_points,
                };
                assert_eq!(
                    first,
                    pts(cells[2]),
                    "{}: team {} {}",
                    tsv.display(),
                    team + 1,
                    header[2]
                );
                for ((code, expected), value) in
                    header[3..].iter().zip(&cells[3..]).zip(&row.values)
                {
                    assert_eq!(
                        *value,
                        pts(expected),
                        "{}: team {} {code}",
                        tsv.display(),
                        team + 1
                    );
                }
            }
            for a in &rows {
                for b in &rows {
                    if a.rank < b.rank {
                        assert!(
                            reference_rank[&a.team] < reference_rank[&b.team],
                            "{}: team {} ranks above team {}",
                            tsv.display(),
                            a.team + 1,
                            b.team + 1
                        );
                    }
                }
            }
        }
        vectors += 1;
    }
    assert!(vectors >= 100, "{vectors} vectors read");
}

/// A bye's game points by board: a draw each, then the top boards raised
/// or the bottom ones lowered until they add up.
#[test]
fn a_byes_game_points_lie_on_its_boards_as_the_reference_reads_them() {
    let points = |gp: &str| -> Vec<String> {
        TeamBye::new(1, 0, MatchOutcome::Won, pts(gp), 4, [pts("1"), pts("0.5")])
            .boards
            .iter()
            .map(|b| b.points[0].to_string())
            .collect()
    };
    assert_eq!(points("2"), ["0.5", "0.5", "0.5", "0.5"]);
    assert_eq!(points("3"), ["1", "1", "0.5", "0.5"]);
    assert_eq!(points("1"), ["0.5", "0.5", "0", "0"]);
    assert_eq!(points("4"), ["1", "1", "1", "1"]);
    assert_eq!(points("0"), ["0", "0", "0", "0"]);
}

/// A bye scores its match result and game points, and counts as an
/// unplayed round: its opponent has the team's own score.
#[test]
fn a_team_bye_scores_its_result_and_is_an_unplayed_round() {
    let board = |board, first: &str, second: &str| BoardResult {
        board,
        points: [pts(first), pts(second)],
        played: true,
    };
    // Round 1: team 0 beats team 1 2–0, team 2 has a bye (drawn, 1 of 2).
    // Round 2: team 2 beats team 0 1½–½, team 1 has a bye (won, 2).
    let matches = [
        TeamMatch {
            round: 1,
            teams: [0, 1],
            tie_break: None,
            boards: vec![board(1, "1", "0"), board(2, "1", "0")],
        },
        TeamMatch {
            round: 2,
            teams: [2, 0],
            tie_break: None,
            boards: vec![board(1, "1", "0"), board(2, "0.5", "0.5")],
        },
    ];
    let halves = [pts("1"), pts("0.5")];
    let byes = [
        TeamBye::new(1, 2, MatchOutcome::Drawn, pts("1"), 2, halves),
        TeamBye::new(2, 1, MatchOutcome::Won, pts("2"), 2, halves),
    ];
    let order = [
        TeamTieBreak::Buchholz(TeamScore::Match),
        TeamTieBreak::SonnebornBerger {
            opponent: TeamScore::Match,
            own: TeamScore::Game,
        },
        TeamTieBreak::BoardCount,
        TeamTieBreak::Wins,
        TeamTieBreak::WinsOverTheBoard,
    ];
    let rows = team_standings(
        3,
        &matches,
        &byes,
        MatchPointTable::OLYMPIAD,
        TeamScore::Match,
        &order,
    );
    let read: Vec<(usize, String, String, Vec<String>)> = rows
        .iter()
        .map(|r| {
            (
                r.team,
                r.match_points.to_string(),
                r.game_points.to_string(),
                r.values.iter().map(ToString::to_string).collect(),
            )
        })
        .collect();
    // Team 2: MP 1 + 2 = 3; BH: itself (3) for the bye + team 0 (2) = 5;
    // SB: 3 × 1 + 2 × 1.5 = 6; BC: ½·1 + ½·2 + (1·1 + ½·2) = 3.5.
    // Team 1: MP 0 + 2 = 2; BH: team 0 (2) + itself (2) = 4; SB: 2 × 0 +
    // 2 × 2 = 4; BC: 0 + (1 + 2) = 3; a win, not over the board.
    // Team 0: MP 2; BH: team 1 (2) + team 2 (3) = 5; SB: 2 × 2 + 3 × ½.
    assert_eq!(
        read,
        [
            (
                2,
                "3".into(),
                "2.5".into(),
                vec!["5".into(), "6".into(), "3.5".into(), "1".into(), "1".into()]
            ),
            (
                0,
                "2".into(),
                "2.5".into(),
                vec!["5".into(), "5.5".into(), "4".into(), "1".into(), "1".into()]
            ),
            (
                1,
                "2".into(),
                "2".into(),
                vec!["4".into(), "4".into(), "3".into(), "1".into(), "0".into()]
            ),
        ]
    );
}
