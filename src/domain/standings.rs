//! Event standings with FIDE tie-breaks, derived from committed results.
//!
//! Standings are computed from the games' results each time they are asked
//! for, never accumulated, so each finished game counts exactly once however
//! the game ended and however many replicas took part.

use std::collections::{BTreeMap, HashMap};

use super::{Outcome, Player, PointTable, Points, Score};

/// What standings need from one game.
#[derive(Clone, Debug)]
pub struct GameRecordForStandings {
    /// The white player.
    pub white: Player,
    /// The black player.
    pub black: Player,
    /// Both players' points once finished (the score says who it counts as
    /// the winner).
    pub finished: Option<Score>,
}

/// One player's line in the standings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// 1-based rank; players equal on every criterion share it.
    pub rank: u32,
    /// The player.
    pub player: Player,
    /// Points from every finished game, forfeits included.
    pub points: Points,
    /// Games played over the board (forfeits excluded).
    pub played: u32,
    /// Games won over the board.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost over the board.
    pub losses: u32,
    /// Games won by forfeit.
    pub forfeit_wins: u32,
    /// Games lost by forfeit.
    pub forfeit_losses: u32,
    /// Sum of the points of the opponents met over the board.
    pub buchholz: Points,
    /// Buchholz without the lowest-scoring opponent.
    pub buchholz_cut1: Points,
    /// Sonneborn-Berger: each opponent's points times the game's score
    /// (1, ½ or 0).
    pub sonneborn_berger: Points,
    /// Points scored against the other players with the same points.
    pub direct_encounter: Points,
}

/// A player's result in one game, whatever the scoring system pays for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GameScore {
    Win,
    Draw,
    Loss,
}

impl GameScore {
    fn of(outcome: Outcome, my_win: Outcome) -> Self {
        match outcome {
            Outcome::Draw => Self::Draw,
            o if o == my_win => Self::Win,
            // A loss, or a double forfeit (both lose).
            _ => Self::Loss,
        }
    }

    /// The game's weight in Sonneborn-Berger: 1, ½ or 0 whatever the
    /// scoring system, as FIDE's tie-break regulations define it.
    fn weight(self) -> Points {
        let table = PointTable::CLASSIC;
        match self {
            Self::Win => table.win(),
            Self::Draw => table.draw(),
            Self::Loss => table.loss(),
        }
    }
}

/// An over-the-board game from one player's side.
struct Encounter {
    opponent: String,
    score: GameScore,
    points: Points,
}

#[derive(Default)]
struct Tally {
    player: Option<Player>,
    points: Points,
    played: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    forfeit_wins: u32,
    forfeit_losses: u32,
    encounters: Vec<Encounter>,
}

impl Tally {
    fn count(&mut self, opponent: &Player, score: GameScore, points: Points, played: bool) {
        self.points = self.points + points;
        if !played {
            match score {
                GameScore::Win => self.forfeit_wins += 1,
                GameScore::Draw | GameScore::Loss => self.forfeit_losses += 1,
            }
            return;
        }
        self.played += 1;
        match score {
            GameScore::Win => self.wins += 1,
            GameScore::Draw => self.draws += 1,
            GameScore::Loss => self.losses += 1,
        }
        self.encounters.push(Encounter {
            opponent: opponent.id.clone(),
            score,
            points,
        });
    }
}

/// The standings of an event's games, best first: by points, then direct
/// encounter, Buchholz cut-1, Buchholz, Sonneborn-Berger, wins.
///
/// Forfeits count for points but are left out of the tie-breaks on both
/// sides (no virtual opponent). Unfinished and aborted games count for
/// nothing.
pub fn standings(games: &[GameRecordForStandings]) -> Vec<Standing> {
    let tallies = tally(games);
    let totals: HashMap<&str, Points> = tallies
        .iter()
        .map(|(id, tally)| (id.as_str(), tally.points))
        .collect();
    let mut rows: Vec<Standing> = tallies
        .iter()
        .map(|(id, tally)| standing(id, tally, &totals))
        .collect();
    rank(&mut rows);
    rows
}

/// Every player's games, in player id order.
fn tally(games: &[GameRecordForStandings]) -> BTreeMap<String, Tally> {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for game in games {
        for player in [&game.white, &game.black] {
            tallies.entry(player.id.clone()).or_default().player = Some(player.clone());
        }
        let Some(score) = game.finished else {
            continue;
        };
        let sides = [
            (&game.white, &game.black, score.white, Outcome::WhiteWins),
            (&game.black, &game.white, score.black, Outcome::BlackWins),
        ];
        for (me, opponent, points, my_win) in sides {
            tallies.entry(me.id.clone()).or_default().count(
                opponent,
                GameScore::of(score.scored_as, my_win),
                points,
                score.played,
            );
        }
    }
    tallies
}

/// A player's line with its tie-breaks; `totals` holds every player's
/// points.
fn standing(id: &str, tally: &Tally, totals: &HashMap<&str, Points>) -> Standing {
    let total = |opponent: &str| totals.get(opponent).copied().unwrap_or_default();
    let opponent_points: Vec<Points> = tally
        .encounters
        .iter()
        .map(|e| total(&e.opponent))
        .collect();
    let buchholz: Points = opponent_points.iter().copied().sum();
    let lowest = opponent_points.iter().copied().min().unwrap_or_default();
    let sonneborn_berger = tally
        .encounters
        .iter()
        .map(|e| total(&e.opponent).times(e.score.weight()))
        .sum();
    let direct_encounter = tally
        .encounters
        .iter()
        .filter(|e| total(&e.opponent) == tally.points)
        .map(|e| e.points)
        .sum();
    Standing {
        rank: 0,
        player: tally.player.clone().unwrap_or(Player {
            id: id.to_owned(),
            name: String::new(),
        }),
        points: tally.points,
        played: tally.played,
        wins: tally.wins,
        draws: tally.draws,
        losses: tally.losses,
        forfeit_wins: tally.forfeit_wins,
        forfeit_losses: tally.forfeit_losses,
        buchholz,
        buchholz_cut1: Points::from_milli(buchholz.milli() - lowest.milli()),
        sonneborn_berger,
        direct_encounter,
    }
}

/// Sorts best first and numbers the ranks; players equal on every
/// criterion share one (ties broken by id only for a stable order).
fn rank(rows: &mut [Standing]) {
    let key = |s: &Standing| {
        (
            s.points,
            s.direct_encounter,
            s.buchholz_cut1,
            s.buchholz,
            s.sonneborn_berger,
            s.wins,
        )
    };
    rows.sort_by(|a, b| {
        key(b)
            .cmp(&key(a))
            .then_with(|| a.player.id.cmp(&b.player.id))
    });
    let mut rank = 0;
    for index in 0..rows.len() {
        if index == 0 || key(&rows[index]) != key(&rows[index - 1]) {
            rank = u32::try_from(index + 1).unwrap_or(u32::MAX);
        }
        rows[index].rank = rank;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{GameResult, ScoringSystem, Termination};

    fn player(id: &str) -> Player {
        Player {
            id: id.to_owned(),
            name: id.to_uppercase(),
        }
    }

    fn game(white: &str, black: &str, outcome: Outcome) -> GameRecordForStandings {
        game_scored(
            white,
            black,
            outcome,
            Termination::Checkmate,
            ScoringSystem::default(),
        )
    }

    fn game_scored(
        white: &str,
        black: &str,
        outcome: Outcome,
        termination: Termination,
        system: ScoringSystem,
    ) -> GameRecordForStandings {
        let result = GameResult {
            outcome,
            termination,
        };
        GameRecordForStandings {
            white: player(white),
            black: player(black),
            finished: Some(system.score(result)),
        }
    }

    fn milli(points: Points) -> i64 {
        points.milli()
    }

    /// A four-player round robin computed by hand:
    /// a beats b and c, draws d; b beats c and d; c beats d.
    /// Points: a 2.5, b 2, c 1, d 0.5.
    #[test]
    fn a_round_robin_with_hand_computed_tie_breaks() {
        let games = [
            game("a", "b", Outcome::WhiteWins),
            game("c", "a", Outcome::BlackWins),
            game("a", "d", Outcome::Draw),
            game("b", "c", Outcome::WhiteWins),
            game("d", "b", Outcome::BlackWins),
            game("c", "d", Outcome::WhiteWins),
        ];
        let rows = standings(&games);
        let ids: Vec<&str> = rows.iter().map(|r| r.player.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c", "d"]);
        let a = &rows[0];
        assert_eq!(milli(a.points), 2500);
        assert_eq!((a.played, a.wins, a.draws, a.losses), (3, 2, 1, 0));
        // Buchholz: b 2 + c 1 + d 0.5 = 3.5; cut-1 drops d's 0.5.
        assert_eq!(milli(a.buchholz), 3500);
        assert_eq!(milli(a.buchholz_cut1), 3000);
        // SB: 2 (b, won) + 1 (c, won) + 0.5 × 0.5 (d, drawn) = 3.25.
        assert_eq!(milli(a.sonneborn_berger), 3250);
        let d = &rows[3];
        // d: drew a (2.5 × 0.5) = 1.25.
        assert_eq!(milli(d.sonneborn_berger), 1250);
        assert_eq!(
            rows.iter().map(|r| r.rank).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
    }

    #[test]
    fn equal_points_are_split_by_direct_encounter_then_buchholz() {
        // x and y both finish on 1 point; x beat y.
        let games = [
            game("x", "y", Outcome::WhiteWins),
            game("y", "z", Outcome::WhiteWins),
            game("z", "x", Outcome::WhiteWins),
        ];
        let rows = standings(&games);
        // Everyone has 1 point; direct encounter among all three is 1 each;
        // Buchholz is 2 each; cut-1 is 1 each; SB is 1 each; wins 1 each:
        // a full tie, sharing rank 1, listed by id.
        assert!(rows.iter().all(|r| r.rank == 1), "{rows:?}");
        let games = [
            game("x", "y", Outcome::WhiteWins),
            game("y", "z", Outcome::Draw),
            game("z", "w", Outcome::WhiteWins),
            game("w", "x", Outcome::Draw),
        ];
        let rows = standings(&games);
        // x 1.5, z 1.5: they never met, so direct encounter is 0 for both;
        // Buchholz: x met y (0.5) and w (0.5) = 1; z met y (0.5) and w (0.5) = 1.
        let top: Vec<&str> = rows.iter().take(2).map(|r| r.player.id.as_str()).collect();
        assert_eq!(top, ["x", "z"]);
        assert_eq!(rows[0].rank, 1);
        assert_eq!(rows[1].rank, 1, "equal on every criterion");
    }

    #[test]
    fn football_points_and_forfeits() {
        let football = ScoringSystem::uniform(crate::domain::PointTable::FOOTBALL);
        let games = [
            game_scored(
                "a",
                "b",
                Outcome::WhiteWins,
                Termination::Checkmate,
                football,
            ),
            game_scored("b", "c", Outcome::Draw, Termination::Agreement, football),
            game_scored("c", "a", Outcome::BlackWins, Termination::NoShow, football),
        ];
        let rows = standings(&games);
        let a = rows.iter().find(|r| r.player.id == "a").unwrap();
        assert_eq!(milli(a.points), 6000);
        assert_eq!((a.played, a.wins, a.forfeit_wins), (1, 1, 1));
        // The forfeit's opponent does not count: only b (1 point).
        assert_eq!(milli(a.buchholz), 1000);
        let c = rows.iter().find(|r| r.player.id == "c").unwrap();
        assert_eq!((c.played, c.draws, c.forfeit_losses), (1, 1, 1));
        assert_eq!(milli(c.points), 1000);
    }

    #[test]
    fn a_double_forfeit_is_a_loss_for_both_and_unplayed() {
        let games = [game_scored(
            "a",
            "b",
            Outcome::DoubleForfeit,
            Termination::Forfeit,
            ScoringSystem::default(),
        )];
        let rows = standings(&games);
        for row in &rows {
            assert_eq!(row.points, Points::ZERO);
            assert_eq!(
                (row.played, row.forfeit_losses, row.forfeit_wins),
                (0, 1, 0)
            );
        }
    }

    #[test]
    fn unfinished_games_list_their_players_with_nothing() {
        let games = [GameRecordForStandings {
            white: player("p"),
            black: player("q"),
            finished: None,
        }];
        let rows = standings(&games);
        assert_eq!(rows.len(), 2);
        assert!(
            rows.iter()
                .all(|r| r.points == Points::ZERO && r.played == 0)
        );
    }
}
