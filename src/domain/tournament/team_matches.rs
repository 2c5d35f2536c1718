//! An event's team matches, read from its games: each player's team is the
//! one the platform gave with the player (`Player.team`, the PGN's
//! `WhiteTeam` and `BlackTeam`), and the games of a round between two
//! teams' players are their match, its boards in the order of the games'
//! board numbers (the lowest is board 1).
//!
//! A match counts once each of its games is finished; until then it is in
//! progress and left out, so that a match half played never counts as won.
//! Games aborted count for nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use thiserror::Error;

use crate::domain::{
    BoardResult, Color, GameRecordForStandings, MatchPlan, Outcome, Player, PointTable, Points,
    RoundSummary, Team, TeamBye, TeamMatch, TeamRegistration, TieBreakState,
    tournament::performance::performance_rating,
};

/// Why an event's games are not a team event.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TeamPairingError {
    /// A player of a game has no team.
    #[error("round {round}, board {board}: {color} ({player}) has no team")]
    NoTeam {
        /// The round.
        round: u32,
        /// The board.
        board: u32,
        /// Which player.
        color: &'static str,
        /// The player's id.
        player: String,
    },
    /// Both players of a game are of one team.
    #[error("round {round}, board {board}: both players are of team '{team}'")]
    SameTeam {
        /// The round.
        round: u32,
        /// The board.
        board: u32,
        /// The team.
        team: String,
    },
    /// A team meets two teams in one round.
    #[error("round {round}: team '{team}' plays both '{first}' and '{second}'")]
    TwoOpponents {
        /// The round.
        round: u32,
        /// The team.
        team: String,
        /// One opponent.
        first: String,
        /// The other.
        second: String,
    },
    /// A player plays for two teams.
    #[error("player {player} plays for both '{first}' and '{second}'")]
    PlayerOnTwoTeams {
        /// The player's id.
        player: String,
        /// One team.
        first: String,
        /// The other.
        second: String,
    },
}

/// An event's teams and the matches that count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeamEvent {
    /// The teams' names (a match names them by index): registered teams
    /// in the order registered, else in lexical order.
    pub teams: Vec<String>,
    /// The teams' ids, likewise (a name, for teams not registered).
    pub ids: Vec<String>,
    /// The matches whose every game is finished.
    pub matches: Vec<TeamMatch>,
    /// The registered teams' pairing-allocated byes.
    pub byes: Vec<TeamBye>,
    /// The matches with a game still to finish.
    pub in_progress: usize,
    /// Every player's board in each counted match.
    pub seats: Vec<BoardSeat>,
}

/// A player's board in a counted match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardSeat {
    /// The board in the match (1 is the top board).
    pub board: u32,
    /// The player.
    pub player: Player,
    /// The player's team, by index.
    pub team: usize,
    /// The game points the player scored.
    pub points: Points,
    /// Whether the game was played over the board.
    pub played: bool,
    /// The opponent's rating, when the platform gave one.
    pub opponent_rating: Option<u32>,
    /// The result as a performance counts it: 1 a win, ½ a draw, 0 a loss,
    /// whatever the event's point table.
    pub result: Points,
}

/// One player's results on one board of a team event, for board prizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardStanding {
    /// The board.
    pub board: u32,
    /// The player.
    pub player: Player,
    /// The player's team, by index.
    pub team: usize,
    /// Game points on the board, forfeits included.
    pub points: Points,
    /// Games played over the board on it.
    pub games: u32,
    /// The performance rating of the games played (C.07 Art. 10) against
    /// rated opponents; `None` without one.
    pub performance: Option<i64>,
}

/// Each player's results per board, board 1 first, then by performance,
/// points and the player's id.
pub fn board_standings(event: &TeamEvent) -> Vec<BoardStanding> {
    let mut by_seat: BTreeMap<(u32, &str), Vec<&BoardSeat>> = BTreeMap::new();
    for seat in &event.seats {
        by_seat
            .entry((seat.board, seat.player.id.as_str()))
            .or_default()
            .push(seat);
    }
    let mut rows: Vec<BoardStanding> = by_seat
        .into_values()
        .map(|seats| {
            let first = seats[0];
            let played: Vec<&&BoardSeat> = seats.iter().filter(|seat| seat.played).collect();
            let rated: Vec<(u32, Points)> = played
                .iter()
                .filter_map(|seat| Some((seat.opponent_rating?, seat.result)))
                .collect();
            let ratings: Vec<u32> = rated.iter().map(|(rating, _)| *rating).collect();
            let scored: i64 = rated.iter().map(|(_, points)| points.milli()).sum();
            BoardStanding {
                board: first.board,
                player: first.player.clone(),
                team: first.team,
                points: seats.iter().map(|seat| seat.points).sum(),
                games: u32::try_from(played.len()).unwrap_or(u32::MAX),
                performance: performance_rating(&ratings, u64::try_from(scored).unwrap_or(0)),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        a.board
            .cmp(&b.board)
            .then(b.performance.cmp(&a.performance))
            .then(b.points.cmp(&a.points))
            .then(a.player.id.cmp(&b.player.id))
    });
    rows
}

/// One board as read, before the match is known to count.
struct Board<'a> {
    board: u32,
    white: &'a Player,
    black: &'a Player,
    /// The first team's side (the team of the match's first board's White).
    white_team: String,
    points: Option<[Points; 2]>,
    played: bool,
    /// Who the result counts as the winner (for performance ratings).
    scored_as: Option<Outcome>,
}

/// The team event `records` make (the event's games, in any order); games
/// outside a round (round 0) are left out.
pub fn team_matches<'a>(
    records: impl IntoIterator<Item = &'a GameRecordForStandings>,
) -> Result<TeamEvent, TeamPairingError> {
    let mut player_team: BTreeMap<&str, &str> = BTreeMap::new();
    let mut boards: BTreeMap<(u32, String, String), Vec<Board>> = BTreeMap::new();
    let mut opponents: BTreeMap<(u32, String), String> = BTreeMap::new();
    for record in records.into_iter().filter(|r| r.round > 0 && !r.aborted) {
        let team_of = |color: Color| -> Result<&str, TeamPairingError> {
            let player = match color {
                Color::White => &record.white,
                Color::Black => &record.black,
            };
            player.team().ok_or_else(|| TeamPairingError::NoTeam {
                round: record.round,
                board: record.board,
                color: color.fold_wb("White", "Black"),
                player: player.id.clone(),
            })
        };
        let (white, black) = (team_of(Color::White)?, team_of(Color::Black)?);
        if white == black {
            return Err(TeamPairingError::SameTeam {
                round: record.round,
                board: record.board,
                team: white.to_owned(),
            });
        }
        for (player, team) in [(&record.white.id, white), (&record.black.id, black)] {
            match player_team.insert(player, team) {
                Some(other) if other != team => {
                    let (first, second) = if other < team {
                        (other, team)
                    } else {
                        (team, other)
                    };
                    return Err(TeamPairingError::PlayerOnTwoTeams {
                        player: player.clone(),
                        first: first.to_owned(),
                        second: second.to_owned(),
                    });
                }
                _ => {}
            }
        }
        for (team, opponent) in [(white, black), (black, white)] {
            let known = opponents
                .entry((record.round, team.to_owned()))
                .or_insert_with(|| opponent.to_owned());
            if known != opponent {
                let (first, second) = if known.as_str() < opponent {
                    (known.clone(), opponent.to_owned())
                } else {
                    (opponent.to_owned(), known.clone())
                };
                return Err(TeamPairingError::TwoOpponents {
                    round: record.round,
                    team: team.to_owned(),
                    first,
                    second,
                });
            }
        }
        let (low, high) = if white < black {
            (white, black)
        } else {
            (black, white)
        };
        boards
            .entry((record.round, low.to_owned(), high.to_owned()))
            .or_default()
            .push(Board {
                board: record.board,
                white: &record.white,
                black: &record.black,
                white_team: white.to_owned(),
                points: record
                    .finished
                    .as_ref()
                    .map(|score| [score.white, score.black]),
                played: record.finished.as_ref().is_some_and(|score| score.played),
                scored_as: record.finished.as_ref().map(|score| score.scored_as),
            });
    }
    let teams: Vec<String> = player_team
        .values()
        .map(|team| (*team).to_owned())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let index = |team: &str| teams.binary_search_by(|t| t.as_str().cmp(team)).ok();
    let mut matches = Vec::new();
    let mut in_progress = 0;
    let mut seats = Vec::new();
    for ((round, ..), mut games) in boards {
        games.sort_by_key(|game| game.board);
        if games.iter().any(|game| game.points.is_none()) {
            in_progress += 1;
            continue;
        }
        let first = games[0].white_team.clone();
        let Some((first_index, second_index)) = games
            .iter()
            .find(|game| game.white_team != first)
            .map(|game| game.white_team.clone())
            .or_else(|| opponents.get(&(round, first.clone())).cloned())
            .and_then(|second| Some((index(&first)?, index(&second)?)))
        else {
            continue;
        };
        for (board, game) in (1..).zip(&games) {
            let [white, black] = game.points.unwrap_or_default();
            let (white_team, black_team) = if game.white_team == first {
                (first_index, second_index)
            } else {
                (second_index, first_index)
            };
            let result = |color: Color| match game.scored_as {
                Some(Outcome::Draw) => Points::from_milli(500),
                Some(outcome) if outcome == Outcome::win_for(color) => Points::from_milli(1_000),
                _ => Points::ZERO,
            };
            for (player, opponent, points, team, result) in [
                (
                    game.white,
                    game.black,
                    white,
                    white_team,
                    result(Color::White),
                ),
                (
                    game.black,
                    game.white,
                    black,
                    black_team,
                    result(Color::Black),
                ),
            ] {
                seats.push(BoardSeat {
                    board,
                    player: player.clone(),
                    team,
                    points,
                    played: game.played,
                    opponent_rating: opponent.details.rating,
                    result,
                });
            }
        }
        let boards = (1..)
            .zip(&games)
            .map(|(board, game)| {
                let [white, black] = game.points.unwrap_or_default();
                BoardResult {
                    board,
                    points: if game.white_team == first {
                        [white, black]
                    } else {
                        [black, white]
                    },
                    played: game.played,
                }
            })
            .collect();
        matches.push(TeamMatch {
            round,
            teams: [first_index, second_index],
            tie_break: None,
            boards,
        });
    }
    Ok(TeamEvent {
        ids: teams.clone(),
        teams,
        byes: Vec::new(),
        matches,
        in_progress,
        seats,
    })
}

/// The result a performance counts for `color` in a game scored as
/// `outcome`: 1 a win, ½ a draw, 0 a loss.
fn result_for(outcome: Option<Outcome>, color: Color) -> Points {
    match outcome {
        Some(Outcome::Draw) => Points::from_milli(500),
        Some(outcome) if outcome == Outcome::win_for(color) => Points::from_milli(1_000),
        _ => Points::ZERO,
    }
}

/// The player of `team` that `line_up` puts on board `slot` (from 0).
fn member<'t>(team: &'t Team, line_up: &[String], slot: usize) -> Option<&'t Player> {
    let id = line_up.get(slot)?;
    team.players.iter().find(|p| &p.id == id)
}

/// Board `board` of `plan` as it stands, `present` saying which teams
/// fielded a player on it and `game` its game: each team's game points
/// and whether it was played over the board; `None` while its game is to
/// finish. A board left empty scores the player facing it `win`; a game
/// aborted decides its board for nothing.
fn board_points(
    plan: &MatchPlan,
    board: u32,
    present: [bool; 2],
    game: Option<&GameRecordForStandings>,
    win: Points,
) -> Option<([Points; 2], bool)> {
    match present {
        [true, true] => {
            let game = game?;
            if game.aborted {
                return Some(([Points::ZERO, Points::ZERO], false));
            }
            let score = game.finished.as_ref()?;
            let first = plan.color(0, board);
            let of = |color: Color| match color {
                Color::White => score.white,
                Color::Black => score.black,
            };
            Some(([of(first), of(!first)], score.played))
        }
        [true, false] => Some(([win, Points::ZERO], false)),
        [false, true] => Some(([Points::ZERO, win], false)),
        [false, false] => Some(([Points::ZERO, Points::ZERO], false)),
    }
}

/// A match as it stands while it is played: each team's game points so
/// far and how many of its boards are decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchScore {
    /// The first and the second team's game points.
    pub points: [Points; 2],
    /// The boards decided (a result, a forfeit, an empty board).
    pub decided: u32,
    /// The match's boards.
    pub boards: u32,
}

/// The score of `plan`, a match of round `round` between `registration`'s
/// teams, from its games among `records`, boards scored as
/// [`registered_team_matches`] scores them.
pub fn match_score<'a>(
    registration: &TeamRegistration,
    round: u32,
    plan: &MatchPlan,
    records: impl IntoIterator<Item = &'a GameRecordForStandings>,
    table: &PointTable,
) -> MatchScore {
    let games: HashMap<u32, &GameRecordForStandings> = records
        .into_iter()
        .filter(|record| record.round == round)
        .map(|record| (record.board, record))
        .collect();
    let mut score = MatchScore {
        points: [Points::ZERO, Points::ZERO],
        decided: 0,
        boards: plan.boards,
    };
    let teams = [&plan.teams[0], &plan.teams[1]].map(|id| registration.team(id));
    let [Some((_, first)), Some((_, second))] = teams else {
        return score;
    };
    for board in 1..=plan.boards {
        let decided = match plan.forfeit {
            Some(forfeit) => Some((
                [0, 1].map(|side| {
                    if forfeit.by(side) {
                        Points::ZERO
                    } else {
                        table.win()
                    }
                }),
                false,
            )),
            None => {
                let slot = board as usize - 1;
                let present = [
                    member(first, &plan.line_ups[0], slot).is_some(),
                    member(second, &plan.line_ups[1], slot).is_some(),
                ];
                let game = games.get(&plan.round_board(board)).copied();
                board_points(plan, board, present, game, table.win())
            }
        };
        if let Some((points, _)) = decided {
            score.decided += 1;
            score.points[0] = score.points[0] + points[0];
            score.points[1] = score.points[1] + points[1];
        }
    }
    score
}

/// The team event of `registration`'s teams: the matches the rounds made
/// (`summaries`; a round still being created is left out), each board's
/// game found in `records` by round and board. A board left empty scores
/// the player facing it `table`'s win, a match forfeited whole the team
/// present a win on every board, all unplayed; a game aborted scores
/// nothing on its board. A match with a game still to finish is in
/// progress, as is a match drawn on the boards whose tie-break game (found
/// among `tie_breaks` by round and board) is still to finish.
pub fn registered_team_matches<'a>(
    registration: &TeamRegistration,
    summaries: &[RoundSummary],
    records: impl IntoIterator<Item = &'a GameRecordForStandings>,
    tie_breaks: &[GameRecordForStandings],
    table: &PointTable,
) -> TeamEvent {
    let games: HashMap<(u32, u32), &GameRecordForStandings> = records
        .into_iter()
        .filter(|record| record.round > 0)
        .map(|record| ((record.round, record.board), record))
        .collect();
    let mut event = TeamEvent {
        teams: registration
            .teams()
            .iter()
            .map(|t| t.name.clone())
            .collect(),
        ids: registration.teams().iter().map(|t| t.id.clone()).collect(),
        matches: Vec::new(),
        byes: Vec::new(),
        in_progress: 0,
        seats: Vec::new(),
    };
    let win = table.win();
    let index = registration.index();
    for summary in summaries.iter().filter(|s| !s.incomplete) {
        for bye in &summary.team_byes {
            if let Some(&team) = index.get(bye.team.as_str()) {
                event.byes.push(TeamBye::new(
                    summary.number,
                    team,
                    bye.outcome,
                    bye.game_points,
                    registration.boards(),
                    [win, table.draw()],
                ));
            }
        }
    }
    let team = |id: &str| {
        let at = *index.get(id)?;
        Some((at, registration.teams().get(at)?))
    };
    for summary in summaries.iter().filter(|s| !s.incomplete) {
        'matches: for plan in &summary.matches {
            let found = [&plan.teams[0], &plan.teams[1]].map(|id| team(id));
            let [Some((first, first_team)), Some((second, second_team))] = found else {
                continue;
            };
            let indexes = [first, second];
            let mut boards = Vec::new();
            let mut seats = Vec::new();
            for board in 1..=plan.boards {
                if let Some(forfeit) = plan.forfeit {
                    let score = |side| if forfeit.by(side) { Points::ZERO } else { win };
                    boards.push(BoardResult {
                        board,
                        points: [score(0), score(1)],
                        played: false,
                    });
                    continue;
                }
                let slot = board as usize - 1;
                let present = [
                    member(first_team, &plan.line_ups[0], slot),
                    member(second_team, &plan.line_ups[1], slot),
                ];
                let game = games
                    .get(&(summary.number, plan.round_board(board)))
                    .copied();
                let Some((points, played)) = board_points(
                    plan,
                    board,
                    present.map(|player| player.is_some()),
                    game,
                    win,
                ) else {
                    event.in_progress += 1;
                    continue 'matches;
                };
                boards.push(BoardResult {
                    board,
                    points,
                    played,
                });
                // Each player's seat: from the game when there is one (its
                // players as it was played), else the forfeit win.
                match (present, game.filter(|g| !g.aborted)) {
                    ([Some(_), Some(_)], Some(game)) => {
                        let Some(score) = &game.finished else {
                            continue;
                        };
                        let first_color = plan.color(0, board);
                        for (side, color) in [first_color, !first_color].into_iter().enumerate() {
                            let (player, opponent) = match color {
                                Color::White => (&game.white, &game.black),
                                Color::Black => (&game.black, &game.white),
                            };
                            seats.push(BoardSeat {
                                board,
                                player: player.clone(),
                                team: indexes[side],
                                points: points[side],
                                played: score.played,
                                opponent_rating: opponent.details.rating,
                                result: result_for(Some(score.scored_as), color),
                            });
                        }
                    }
                    ([Some(player), None], _) | ([None, Some(player)], _) => {
                        let side = usize::from(present[0].is_none());
                        let team = [first_team, second_team][side];
                        seats.push(BoardSeat {
                            board,
                            player: team.member(&player.id).unwrap_or_else(|| player.clone()),
                            team: indexes[side],
                            points: win,
                            played: false,
                            opponent_rating: None,
                            result: Points::from_milli(1_000),
                        });
                    }
                    _ => {}
                }
            }
            // The boards are decided: their players' results count
            // whatever the tie-break.
            event.seats.extend(seats);
            let tie_break = match summary.tie_breaks.iter().find(|t| t.table == plan.table) {
                Some(tie_break) if drawn(&boards) => {
                    let game = tie_breaks
                        .iter()
                        .find(|g| g.round == summary.number && g.board == tie_break.board);
                    match tie_break.state(game) {
                        TieBreakState::Playing => {
                            event.in_progress += 1;
                            continue 'matches;
                        }
                        TieBreakState::Won(side) => Some(side),
                        TieBreakState::Void => None,
                    }
                }
                _ => None,
            };
            event.matches.push(TeamMatch {
                round: summary.number,
                teams: indexes,
                tie_break,
                boards,
            });
        }
    }
    event
}

/// Whether a match's `boards` draw it on game points (neither team
/// without a point).
fn drawn(boards: &[BoardResult]) -> bool {
    let totals = [0, 1].map(|side| boards.iter().map(|b| b.points[side]).sum::<Points>());
    totals[0] == totals[1] && totals[0] > Points::ZERO
}

/// What a round's boards (White and Black of each, in request order) do
/// wrong as a team round, when any of their players has a team: each
/// offence as the request field and why. In a team round every player has
/// a team, no board is between teammates, and each team meets one team.
pub fn team_round_offences<'a>(
    boards: impl IntoIterator<Item = (&'a Player, &'a Player)>,
) -> Vec<(String, String)> {
    let team = |player: &'a Player| player.team();
    let boards: Vec<(&Player, &Player)> = boards.into_iter().collect();
    if !boards
        .iter()
        .any(|(white, black)| team(white).is_some() || team(black).is_some())
    {
        return Vec::new();
    }
    let mut offences = Vec::new();
    let mut meets: BTreeMap<&str, (&str, usize)> = BTreeMap::new();
    for (index, (white, black)) in boards.iter().enumerate() {
        let field = format!("boards[{index}]");
        let (Some(white_team), Some(black_team)) = (team(white), team(black)) else {
            for (side, player) in [("white", white), ("black", black)] {
                if team(player).is_none() {
                    offences.push((
                        format!("{field}.{side}.team"),
                        "is empty, but players of the round have teams: in a team round every \
                         player plays for a team"
                            .to_owned(),
                    ));
                }
            }
            continue;
        };
        if white_team == black_team {
            offences.push((
                field,
                format!("both players are of team '{white_team}': a team does not play itself"),
            ));
            continue;
        }
        for (own, other) in [(white_team, black_team), (black_team, white_team)] {
            match meets.get(own) {
                Some((met, first)) if *met != other => offences.push((
                    field.clone(),
                    format!(
                        "team '{own}' plays '{met}' on boards[{first}] and '{other}' here: a \
                         team plays one match a round"
                    ),
                )),
                Some(_) => {}
                None => {
                    meets.insert(own, (other, index));
                }
            }
        }
    }
    offences
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Outcome, Player, PlayerDetails, Score};

    fn player(id: &str, team: Option<&str>) -> Player {
        Player {
            id: id.to_owned(),
            name: id.to_owned(),
            details: PlayerDetails {
                team: team.map(str::to_owned),
                ..PlayerDetails::default()
            },
        }
    }

    fn score(white: &str, black: &str, played: bool) -> Score {
        let pts = |text| Points::parse("points", text).expect("points");
        let (white, black) = (pts(white), pts(black));
        Score {
            white,
            black,
            scored_as: match white.cmp(&black) {
                std::cmp::Ordering::Greater => Outcome::WhiteWins,
                std::cmp::Ordering::Less => Outcome::BlackWins,
                std::cmp::Ordering::Equal => Outcome::Draw,
            },
            played,
        }
    }

    fn game(
        (round, board): (u32, u32),
        white: (&str, Option<&str>),
        black: (&str, Option<&str>),
        finished: Option<Score>,
    ) -> GameRecordForStandings {
        GameRecordForStandings {
            board,
            white: player(white.0, white.1),
            black: player(black.0, black.1),
            finished,
            round,
            aborted: false,
        }
    }

    #[test]
    fn the_games_between_two_teams_in_a_round_are_their_match_in_board_order() {
        let (a, b) = (Some("Alpha"), Some("Bravo"));
        let records = [
            // Board 2 listed first; Bravo has White on board 2.
            game(
                (1, 2),
                ("b2", b),
                ("a2", a),
                Some(score("0.5", "0.5", true)),
            ),
            game((1, 1), ("a1", a), ("b1", b), Some(score("1", "0", false))),
            // Round 2 is still being played.
            game((2, 1), ("b1", b), ("a1", a), Some(score("1", "0", true))),
            game((2, 2), ("a2", a), ("b2", b), None),
        ];
        let event = team_matches(&records).expect("a team event");
        assert_eq!(event.teams, ["Alpha", "Bravo"]);
        assert_eq!(event.in_progress, 1);
        // Board 1's players: a1 won by forfeit (no game played), b1 lost.
        let boards = board_standings(&event);
        assert_eq!(
            boards
                .iter()
                .map(|row| (
                    row.board,
                    row.player.id.as_str(),
                    row.team,
                    row.points,
                    row.games
                ))
                .collect::<Vec<_>>(),
            [
                (1, "a1", 0, Points::from_milli(1_000), 0),
                (1, "b1", 1, Points::ZERO, 0),
                (2, "a2", 0, Points::from_milli(500), 1),
                (2, "b2", 1, Points::from_milli(500), 1),
            ]
        );
        let pts = |text| Points::parse("points", text).expect("points");
        assert_eq!(
            event.matches,
            vec![TeamMatch {
                round: 1,
                teams: [0, 1],
                tie_break: None,
                boards: vec![
                    BoardResult {
                        board: 1,
                        points: [pts("1"), pts("0")],
                        played: false,
                    },
                    BoardResult {
                        board: 2,
                        points: [pts("0.5"), pts("0.5")],
                        played: true,
                    },
                ],
            }]
        );
    }

    #[test]
    fn a_team_round_is_checked_board_by_board() {
        let (a1, a2) = (player("a1", Some("Alpha")), player("a2", Some("Alpha")));
        let (b1, c1) = (player("b1", Some("Bravo")), player("c1", Some("Charlie")));
        let (x, y) = (player("x", None), player("y", None));
        assert!(team_round_offences([(&x, &y)]).is_empty());
        assert!(team_round_offences([(&a1, &b1), (&b1, &a2)]).is_empty());
        let fields = |offences: Vec<(String, String)>| {
            offences
                .into_iter()
                .map(|(field, _)| field)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            fields(team_round_offences([(&a1, &b1), (&x, &c1)])),
            ["boards[1].white.team"]
        );
        assert_eq!(fields(team_round_offences([(&a1, &a2)])), ["boards[0]"]);
        let offences = team_round_offences([(&a1, &b1), (&a2, &c1)]);
        assert_eq!(fields(offences.clone()), ["boards[1]"]);
        assert!(
            offences[0].1.contains("'Alpha' plays 'Bravo' on boards[0]"),
            "{offences:?}"
        );
    }

    #[test]
    fn games_that_make_no_team_event_are_refused_with_where() {
        let (a, b, c) = (Some("Alpha"), Some("Bravo"), Some("Charlie"));
        let no_team = [game((1, 3), ("a1", a), ("x", None), None)];
        assert_eq!(
            team_matches(&no_team),
            Err(TeamPairingError::NoTeam {
                round: 1,
                board: 3,
                color: "Black",
                player: "x".into()
            })
        );
        let same = [game((2, 1), ("a1", a), ("a2", Some(" Alpha ")), None)];
        assert!(matches!(
            team_matches(&same),
            Err(TeamPairingError::SameTeam {
                round: 2,
                board: 1,
                ..
            })
        ));
        let two = [
            game((1, 1), ("a1", a), ("b1", b), None),
            game((1, 2), ("a2", a), ("c1", c), None),
        ];
        assert_eq!(
            team_matches(&two),
            Err(TeamPairingError::TwoOpponents {
                round: 1,
                team: "Alpha".into(),
                first: "Bravo".into(),
                second: "Charlie".into()
            })
        );
        let switched = [
            game((1, 1), ("a1", a), ("b1", b), None),
            game((2, 1), ("a1", c), ("b1", b), None),
        ];
        assert!(matches!(
            team_matches(&switched),
            Err(TeamPairingError::PlayerOnTwoTeams { .. })
        ));
    }
}
