//! Export of an event in the FIDE Tournament Report File format (TRF-16),
//! which pairing engines such as bbpPairings and JaVaFo read.

use std::collections::HashMap;

use super::{Color, EventId, Outcome, Player, PointTable, Score, ScoringSystem, Standing};

/// What the report needs from one game.
#[derive(Clone, Debug)]
pub struct TrfGame {
    /// The round (games without one are left out).
    pub round: u32,
    /// The board, for ordering.
    pub board: u32,
    /// The white player.
    pub white: Player,
    /// The black player.
    pub black: Player,
    /// Both players' points once finished (the score says who it counts as
    /// the winner).
    pub finished: Option<Score>,
    /// Whether the game was aborted (it then counts as not paired).
    pub aborted: bool,
}

/// Pads or cuts `text` to exactly `width` characters, left-aligned.
fn left(text: &str, width: usize) -> String {
    let cut: String = text.chars().take(width).collect();
    format!("{cut:<width$}")
}

/// Points as TRF writes them: one decimal, right-aligned in four columns.
fn trf_points(milli: i64) -> String {
    let tenths = (milli + if milli >= 0 { 50 } else { -50 }) / 100;
    let text = format!("{}.{}", tenths / 10, (tenths % 10).abs());
    format!("{text:>4}")
}

/// The result code of one side of a game.
fn result_code(outcome: Outcome, score: Score, color: Color) -> char {
    let won = outcome == Outcome::win_for(color);
    match (score.played, outcome) {
        (true, Outcome::Draw) => '=',
        (true, _) if won => '1',
        (true, _) => '0',
        (false, _) if won => '+',
        (false, _) => '-',
    }
}

/// Points as the point-system lines write them: one decimal.
fn system_points(milli: i64) -> String {
    trf_points(milli).trim_start().to_owned()
}

/// What the report says of the tournament beyond its games.
#[derive(Clone, Copy, Debug, Default)]
pub struct TrfEvent {
    /// The number of rounds the tournament will have (XXR, which pairing
    /// engines need to pair the next round); at least the highest round
    /// played, which it defaults to.
    pub total_rounds: Option<u32>,
    /// The points every game of the event scores, when they are not 1, ½
    /// and 0: written as bbpPairings' point-system lines (BBW, BBD, BBL).
    pub points: Option<PointTable>,
}

/// The point system a report can state for games scoring with `systems`:
/// one table, when every game agrees and scores both colours alike
/// (Armageddon and mixed systems have no TRF form).
pub fn point_system(systems: impl IntoIterator<Item = ScoringSystem>) -> Option<PointTable> {
    let mut systems = systems.into_iter();
    let first = systems.next()?;
    let stateable = !first.armageddon && first.white == first.black;
    (stateable && systems.all(|system| system == first)).then_some(first.white)
}

/// The report: tournament name (012), number of players (062), number of
/// rounds (XXR), the point system when it is not 1 / ½ / 0 (BBW, BBD,
/// BBL), then one player line (001) per player with points, rank and a
/// 10-column block per round — opponent's starting rank, colour and result
/// (`1`, `=`, `0`, `+`, `-`; `Z` for a round without a game). The points
/// column counts the games the rounds show (games without a round number
/// are left out of both), so a pairing engine's score check agrees.
/// Starting ranks follow the players' first appearance (round, board, White
/// before Black), so they stay stable as rounds are added. A round in
/// progress shows its pairings with a blank result.
pub fn export(
    event_id: &EventId,
    event: TrfEvent,
    games: &[TrfGame],
    standings: &[Standing],
) -> String {
    let mut games: Vec<&TrfGame> = games.iter().filter(|g| g.round > 0).collect();
    games.sort_by_key(|g| (g.round, g.board));
    let mut ranks: HashMap<&str, usize> = HashMap::new();
    let mut players: Vec<&Player> = Vec::new();
    for game in &games {
        for player in [&game.white, &game.black] {
            if !ranks.contains_key(player.id.as_str()) {
                players.push(player);
                ranks.insert(&player.id, players.len());
            }
        }
    }
    let rounds = games.iter().map(|g| g.round).max().unwrap_or(0);
    // Each player's points from the games the rounds show.
    let mut points: HashMap<&str, i64> = HashMap::new();
    for game in games.iter().filter(|g| !g.aborted) {
        if let Some(score) = game.finished {
            *points.entry(game.white.id.as_str()).or_default() += score.white.milli();
            *points.entry(game.black.id.as_str()).or_default() += score.black.milli();
        }
    }
    let standing: HashMap<&str, &Standing> = standings
        .iter()
        .map(|s| (s.player.id.as_str(), s))
        .collect();

    let mut out = String::new();
    out.push_str(&format!(
        "012 {}\n",
        left(event_id.as_str(), 120).trim_end()
    ));
    out.push_str(&format!("062 {}\n", players.len()));
    out.push_str(&format!(
        "XXR {}\n",
        event.total_rounds.unwrap_or(rounds).max(rounds)
    ));
    if let Some(table) = event.points.filter(|table| *table != PointTable::CLASSIC) {
        out.push_str(&format!("BBW {}\n", system_points(table.win().milli())));
        out.push_str(&format!("BBD {}\n", system_points(table.draw().milli())));
        out.push_str(&format!("BBL {}\n", system_points(table.loss().milli())));
    }
    for (index, player) in players.iter().enumerate() {
        let row = standing.get(player.id.as_str());
        let mut line = format!(
            "001 {:>4}      {} {:>4} {:>3} {:>11} {:>10} {} {:>4}",
            index + 1,
            left(player.display_name(), 33),
            "",
            "",
            "",
            "",
            trf_points(points.get(player.id.as_str()).copied().unwrap_or(0)),
            row.map_or(0, |r| r.rank),
        );
        for round in 1..=rounds {
            let game = games.iter().find(|g| {
                g.round == round
                    && !g.aborted
                    && (g.white.id == player.id || g.black.id == player.id)
            });
            let block = match game {
                None => "0000 - Z".to_owned(),
                Some(game) => {
                    let color = if game.white.id == player.id {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let opponent = color.fold_wb(&game.black, &game.white);
                    let code = game
                        .finished
                        .map_or(' ', |score| result_code(score.scored_as, score, color));
                    format!(
                        "{:>4} {} {}",
                        ranks.get(opponent.id.as_str()).copied().unwrap_or(0),
                        color.fold_wb('w', 'b'),
                        code
                    )
                }
            };
            line.push_str("  ");
            line.push_str(&block);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        GameResult, ScoringSystem, Termination, standings::GameRecordForStandings,
    };

    fn player(id: &str) -> Player {
        Player {
            id: id.to_owned(),
            name: format!("Player, {id}"),
        }
    }

    fn game(round: u32, board: u32, white: &str, black: &str, outcome: Option<Outcome>) -> TrfGame {
        let finished = outcome.map(|outcome| {
            let result = GameResult {
                outcome,
                termination: Termination::Checkmate,
            };
            ScoringSystem::default().score(result)
        });
        TrfGame {
            round,
            board,
            white: player(white),
            black: player(black),
            finished,
            aborted: false,
        }
    }

    fn report(games: &[TrfGame]) -> String {
        report_of(TrfEvent::default(), games)
    }

    fn report_of(event: TrfEvent, games: &[TrfGame]) -> String {
        let records: Vec<GameRecordForStandings> = games
            .iter()
            .map(|g| GameRecordForStandings {
                white: g.white.clone(),
                black: g.black.clone(),
                finished: g.finished,
            })
            .collect();
        export(
            &EventId::parse("Club Open").unwrap(),
            event,
            games,
            &crate::domain::standings(&records),
        )
    }

    /// The fixed columns of TRF-16 (1-based, inclusive).
    fn field(line: &str, from: usize, to: usize) -> String {
        line.chars().skip(from - 1).take(to - from + 1).collect()
    }

    #[test]
    fn player_lines_follow_the_published_columns() {
        let games = [
            game(1, 1, "a", "b", Some(Outcome::WhiteWins)),
            game(1, 2, "c", "d", Some(Outcome::Draw)),
            game(2, 1, "d", "a", Some(Outcome::BlackWins)),
            game(2, 2, "b", "c", None),
        ];
        let trf = report(&games);
        let lines: Vec<&str> = trf.lines().collect();
        assert_eq!(lines[0], "012 Club Open");
        assert_eq!(lines[1], "062 4");
        // The rounds played so far, when the total is not given.
        assert_eq!(lines[2], "XXR 2");
        let a = lines[3];
        assert_eq!(field(a, 1, 3), "001");
        assert_eq!(field(a, 5, 8), "   1");
        assert_eq!(field(a, 15, 47).trim_end(), "Player, a");
        assert_eq!(field(a, 81, 84), " 2.0");
        assert_eq!(field(a, 86, 89), "   1");
        // Round 1: beat b (rank 2) with White; round 2: beat d (rank 4)
        // with Black.
        assert_eq!(field(a, 92, 95), "   2");
        assert_eq!(field(a, 97, 97), "w");
        assert_eq!(field(a, 99, 99), "1");
        assert_eq!(field(a, 102, 105), "   4");
        assert_eq!(field(a, 107, 107), "b");
        assert_eq!(field(a, 109, 109), "1");
        let c = lines[5];
        assert_eq!(field(c, 5, 8), "   3");
        assert_eq!(field(c, 81, 84), " 0.5");
        assert_eq!(field(c, 99, 99), "=");
        // Round 2 is in progress: paired, no result yet.
        assert_eq!(field(c, 102, 105), "   2");
        assert_eq!(field(c, 107, 107), "b");
        assert_eq!(field(c, 109, 109).trim(), "");
    }

    #[test]
    fn forfeits_and_absences_have_their_codes() {
        let mut forfeit = game(1, 1, "a", "b", None);
        let result = GameResult {
            outcome: Outcome::BlackWins,
            termination: Termination::NoShow,
        };
        forfeit.finished = Some(ScoringSystem::default().score(result));
        let games = [forfeit, game(2, 1, "a", "c", Some(Outcome::Draw))];
        let trf = report(&games);
        let lines: Vec<&str> = trf.lines().collect();
        let a = lines[3];
        let b = lines[4];
        assert_eq!(field(a, 99, 99), "-");
        assert_eq!(field(b, 99, 99), "+");
        // b has no game in round 2: an absence.
        assert_eq!(field(b, 102, 109), "0000 - Z");
    }

    #[test]
    fn the_rounds_to_come_and_the_point_system_are_stated() {
        let games = [game(1, 1, "a", "b", Some(Outcome::WhiteWins))];
        let nine = report_of(
            TrfEvent {
                total_rounds: Some(9),
                points: Some(PointTable::CLASSIC),
            },
            &games,
        );
        let lines: Vec<&str> = nine.lines().collect();
        assert_eq!(lines[2], "XXR 9");
        // 1 / ½ / 0 needs no point-system lines.
        assert_eq!(field(lines[3], 1, 3), "001");

        let football = PointTable::new(
            "points",
            crate::domain::Points::from_milli(3000),
            crate::domain::Points::from_milli(1000),
            crate::domain::Points::ZERO,
        )
        .expect("3/1/0");
        let mut scored = game(1, 1, "a", "b", None);
        scored.finished = Some(ScoringSystem::uniform(football).score(GameResult {
            outcome: Outcome::WhiteWins,
            termination: Termination::Checkmate,
        }));
        let trf = report_of(
            TrfEvent {
                total_rounds: None,
                points: Some(football),
            },
            &[scored],
        );
        let lines: Vec<&str> = trf.lines().collect();
        assert_eq!(&lines[2..6], ["XXR 1", "BBW 3.0", "BBD 1.0", "BBL 0.0"]);
        assert_eq!(field(lines[6], 81, 84), " 3.0");
    }

    #[test]
    fn only_one_system_for_both_colours_has_a_point_system() {
        let classic = ScoringSystem::default();
        let armageddon = ScoringSystem {
            armageddon: true,
            ..classic
        };
        let football = ScoringSystem::uniform(PointTable::FOOTBALL);
        assert_eq!(point_system([classic, classic]), Some(PointTable::CLASSIC));
        assert_eq!(point_system([football]), Some(PointTable::FOOTBALL));
        assert_eq!(point_system([classic, football]), None);
        assert_eq!(point_system([armageddon]), None);
        assert_eq!(point_system([]), None);
    }

    #[test]
    fn games_without_a_round_count_nowhere() {
        // b beat a in a game without a round number: left out of the
        // rounds, and so of the points, which the engine checks.
        let games = [
            game(1, 1, "a", "b", Some(Outcome::Draw)),
            game(0, 0, "b", "a", Some(Outcome::WhiteWins)),
        ];
        let trf = report(&games);
        let lines: Vec<&str> = trf.lines().collect();
        assert_eq!(lines[2], "XXR 1");
        assert_eq!(field(lines[3], 81, 84), " 0.5");
        assert_eq!(field(lines[4], 81, 84), " 0.5");
    }
}
