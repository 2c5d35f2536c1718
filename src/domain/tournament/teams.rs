//! An event's registered teams and the matches a round plays between them.
//!
//! A team has an id, a name and a roster: its players in board order (the
//! first is the top board). A match of a round pairs two teams, each with
//! a line-up of one player per board taken from its roster in roster
//! order, the first team's colour on board 1 and alternating (the
//! Olympiad's and most leagues' rule). A board a line-up leaves empty is a
//! forfeit on that board, and a match may be forfeited whole.
//!
//! Until the event's first round the registration may change in any way.
//! From then on the rounds hold line-ups checked against it, so it may
//! only grow: teams added, players appended to a roster, names and
//! details changed; nothing removed, reordered or moved, and the boards
//! of a match stay.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::domain::{
    BoardRequest, ByeKind, Color, EventId, MAX_ROUND_BOARDS, MatchOutcome, NewGame, Pairing,
    Player, PointTable, Points, RoundBye, RoundViolation, Timestamp,
};

/// A team as registered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Team {
    /// Its id, unique in the event.
    pub id: String,
    /// Its name, unique in the event.
    pub name: String,
    /// Its players in board order (their team is this one, not written
    /// into each).
    pub players: Vec<Player>,
}

impl Team {
    /// Its player `id`, with the team's name as team, as its games name
    /// the player.
    pub fn member(&self, id: &str) -> Option<Player> {
        let mut player = self.players.iter().find(|p| p.id == id)?.clone();
        player.details.team = Some(self.name.clone());
        Some(player)
    }
}

/// An event's teams as registered: what `RegisterTeams` last stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamRegistration {
    boards: u32,
    teams: Vec<Team>,
    updated_at: Timestamp,
    updated_by: String,
}

/// Which team of a match forfeited it whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchForfeit {
    /// The first team did not come.
    First,
    /// The second team did not come.
    Second,
    /// Neither came.
    Both,
}

impl MatchForfeit {
    /// Whether team `side` (0 the first, 1 the second) forfeited.
    pub fn by(self, side: usize) -> bool {
        match self {
            Self::First => side == 0,
            Self::Second => side == 1,
            Self::Both => true,
        }
    }
}

/// A match of a round, as requested and as the round records it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchPlan {
    /// Its table in the round, from 1.
    pub table: u32,
    /// The first and the second team's ids.
    pub teams: [String; 2],
    /// Each team's line-up: a player id per board (empty: the board left
    /// empty); none in a match forfeited whole.
    pub line_ups: [Vec<String>; 2],
    /// Whether the first team has White on board 1.
    pub first_white: bool,
    /// A team that forfeited the match whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<MatchForfeit>,
    /// The boards of a match when it was planned (0 in a request, until
    /// [`TeamRegistration::line_up`] reads it).
    #[serde(default)]
    pub boards: u32,
}

impl MatchPlan {
    /// The round's board number of board `board` (from 1) of the match.
    pub fn round_board(&self, board: u32) -> u32 {
        self.table
            .saturating_sub(1)
            .saturating_mul(self.boards)
            .saturating_add(board)
    }

    /// The colour of team `side` (0 the first) on board `board`.
    pub fn color(&self, side: usize, board: u32) -> Color {
        let first = if self.first_white {
            Color::White
        } else {
            Color::Black
        };
        let first = if board % 2 == 1 { first } else { !first };
        if side == 0 { first } else { !first }
    }
}

/// A team's pairing-allocated bye in a round, as requested and as the
/// round records it: the match result and game points the event's
/// regulations give a bye.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamByePlan {
    /// The team's id.
    pub team: String,
    /// The match result it scores.
    pub outcome: MatchOutcome,
    /// The game points it scores.
    pub game_points: Points,
}

/// A round's matches made into its boards: the games to create, the
/// forfeit wins of the players facing an empty board, the refusals.
#[derive(Debug, Default)]
pub struct LineUp {
    /// The boards with a game.
    pub boards: Vec<BoardRequest>,
    /// A forfeit win for each player whose opponent's board is empty, with
    /// the field of its line-up.
    pub byes: Vec<(RoundBye, String)>,
    /// The matches with their boards set.
    pub matches: Vec<MatchPlan>,
    /// What is refused, each field named.
    pub violations: Vec<RoundViolation>,
}

/// Whether `text` is 1 to `max` characters without control characters.
fn check_text(field: String, what: &str, text: &str, max: usize, out: &mut Vec<RoundViolation>) {
    if text.is_empty() {
        out.push(RoundViolation::new(field, format!("{what} is required")));
    } else if text.chars().count() > max {
        out.push(RoundViolation::new(
            field,
            format!("{what} is longer than {max} characters"),
        ));
    } else if text.chars().any(char::is_control) {
        out.push(RoundViolation::new(
            field,
            format!("{what} contains control characters"),
        ));
    }
}

impl TeamRegistration {
    /// The most teams an event may register (the Olympiad has about 200).
    pub const MAX_TEAMS: usize = 1_000;
    /// The most players a roster may hold.
    pub const MAX_ROSTER: usize = 50;
    /// The most boards a match may have.
    pub const MAX_BOARDS: u32 = 32;
    /// The most matches a request may name (a round has at most
    /// [`MAX_ROUND_BOARDS`] boards in all, with games or not).
    pub const MAX_MATCHES: usize = MAX_ROUND_BOARDS;

    /// A registration of `teams` playing matches of `boards` boards, made
    /// at `at` by `by`; every offence named.
    pub fn new(
        boards: u32,
        mut teams: Vec<Team>,
        at: Timestamp,
        by: &str,
    ) -> Result<Self, Vec<RoundViolation>> {
        let mut violations = Vec::new();
        if boards == 0 || boards > Self::MAX_BOARDS {
            violations.push(RoundViolation::new(
                "boards",
                format!("must be from 1 to {}", Self::MAX_BOARDS),
            ));
        }
        if teams.is_empty() || teams.len() > Self::MAX_TEAMS {
            violations.push(RoundViolation::new(
                "teams",
                format!("must hold 1 to {} teams", Self::MAX_TEAMS),
            ));
            return Err(violations);
        }
        let mut ids: HashMap<&str, usize> = HashMap::new();
        let mut names: HashMap<&str, usize> = HashMap::new();
        let mut players: HashMap<&str, (usize, usize)> = HashMap::new();
        for (index, team) in teams.iter().enumerate() {
            let field = format!("teams[{index}]");
            check_text(
                format!("{field}.id"),
                "id",
                &team.id,
                Player::MAX_ID_LEN,
                &mut violations,
            );
            check_text(
                format!("{field}.name"),
                "name",
                &team.name,
                crate::domain::PlayerDetails::MAX_TEAM_LEN,
                &mut violations,
            );
            if let Some(first) = ids.insert(&team.id, index) {
                violations.push(RoundViolation::new(
                    format!("{field}.id"),
                    format!("team {:?} is also teams[{first}]", team.id),
                ));
            }
            if let Some(first) = names.insert(&team.name, index) {
                violations.push(RoundViolation::new(
                    format!("{field}.name"),
                    format!("name {:?} is also teams[{first}]'s", team.name),
                ));
            }
            if team.players.is_empty() || team.players.len() > Self::MAX_ROSTER {
                violations.push(RoundViolation::new(
                    format!("{field}.players"),
                    format!("a roster holds 1 to {} players", Self::MAX_ROSTER),
                ));
            }
            for (place, player) in team.players.iter().enumerate() {
                if let Some((team_at, place_at)) = players.insert(&player.id, (index, place)) {
                    violations.push(RoundViolation::new(
                        format!("{field}.players[{place}].id"),
                        format!(
                            "player {:?} is also teams[{team_at}].players[{place_at}]: a player \
                             is on one team",
                            player.id
                        ),
                    ));
                }
            }
        }
        if !violations.is_empty() {
            return Err(violations);
        }
        // A player's team is the one whose roster holds it: kept once, as
        // the team's name, and given to the player in the games it plays.
        for team in &mut teams {
            for player in &mut team.players {
                player.details.team = None;
            }
        }
        Ok(Self {
            boards,
            teams,
            updated_at: at,
            updated_by: by.to_owned(),
        })
    }

    /// The boards of a match.
    pub fn boards(&self) -> u32 {
        self.boards
    }
    /// The teams, in the order registered.
    pub fn teams(&self) -> &[Team] {
        &self.teams
    }
    /// When it last changed.
    pub fn updated_at(&self) -> Timestamp {
        self.updated_at
    }
    /// Who last changed it.
    pub fn updated_by(&self) -> &str {
        &self.updated_by
    }

    /// The team of id `id`, with its index.
    pub fn team(&self, id: &str) -> Option<(usize, &Team)> {
        self.teams
            .iter()
            .enumerate()
            .find(|(_, team)| team.id == id)
    }

    /// Each team's index by its id, for reads that look teams up match by
    /// match.
    pub fn index(&self) -> HashMap<&str, usize> {
        self.teams
            .iter()
            .enumerate()
            .map(|(index, team)| (team.id.as_str(), index))
            .collect()
    }

    /// Whether `self` registers the same as `other` (whoever made it and
    /// when).
    pub fn same_as(&self, other: &Self) -> bool {
        self.boards == other.boards && self.teams == other.teams
    }

    /// Refuses what `self`, replacing `previous` once the event has a
    /// round, changes that a round may rely on: the boards, a team or a
    /// player removed, a roster reordered.
    pub fn check_amends(&self, previous: &Self) -> Result<(), Vec<RoundViolation>> {
        let mut violations = Vec::new();
        if self.boards != previous.boards {
            violations.push(RoundViolation::new(
                "boards",
                format!(
                    "is {}: the boards of a match cannot change once the event has a round",
                    previous.boards
                ),
            ));
        }
        for team in &previous.teams {
            let Some((index, now)) = self.team(&team.id) else {
                violations.push(RoundViolation::new(
                    "teams",
                    format!(
                        "leaves out team {:?}: a team cannot be removed once the event has a round",
                        team.id
                    ),
                ));
                continue;
            };
            let kept = team
                .players
                .iter()
                .zip(&now.players)
                .position(|(before, after)| before.id != after.id)
                .or((now.players.len() < team.players.len()).then_some(now.players.len()));
            if let Some(place) = kept {
                violations.push(RoundViolation::new(
                    format!("teams[{index}].players[{place}]"),
                    format!(
                        "is not {:?}: once the event has a round a roster keeps its players in \
                         their order, new players added at its end",
                        team.players[place].id
                    ),
                ));
            }
        }
        if violations.is_empty() {
            Ok(())
        } else {
            Err(violations)
        }
    }

    /// Makes round `round` of event `event`'s matches into boards, each
    /// board's game set up as `setup` (the round's settings) with its
    /// players and place, refusing every offence: an unknown team, a team
    /// against itself or in two matches, a table twice, a line-up of the
    /// wrong length, a player not on the team's roster, twice, or out of
    /// roster order.
    pub fn line_up(
        &self,
        event: &EventId,
        round: u32,
        matches: Vec<MatchPlan>,
        setup: &Result<NewGame, RoundViolation>,
    ) -> LineUp {
        let mut out = LineUp::default();
        // Every board counts, with a game or not: a match forfeited whole
        // or a board left empty is read by every standings and report.
        if matches.len().saturating_mul(self.boards as usize) > MAX_ROUND_BOARDS {
            out.violations.push(RoundViolation::new(
                "matches",
                format!(
                    "{} matches of {} boards are more than the {MAX_ROUND_BOARDS} boards a round \
                     may have",
                    matches.len(),
                    self.boards
                ),
            ));
            return out;
        }
        let max_table = Pairing::MAX_BOARD / self.boards.max(1);
        let mut tables: HashMap<u32, usize> = HashMap::new();
        let mut playing: HashMap<&str, usize> = HashMap::new();
        for (index, plan) in matches.iter().enumerate() {
            let field = format!("matches[{index}]");
            if plan.table == 0 || plan.table > max_table {
                out.violations.push(RoundViolation::new(
                    format!("{field}.table"),
                    format!("must be from 1 to {max_table}"),
                ));
            } else if let Some(first) = tables.insert(plan.table, index) {
                out.violations.push(RoundViolation::new(
                    format!("{field}.table"),
                    format!("table {} is also matches[{first}]'s", plan.table),
                ));
            }
            if plan.teams[0] == plan.teams[1] {
                out.violations.push(RoundViolation::new(
                    format!("{field}.second_team_id"),
                    format!("team {:?} cannot play itself", plan.teams[1]),
                ));
            }
            for (side, name) in ["first_team", "second_team"].into_iter().enumerate() {
                let id = &plan.teams[side];
                let team_field = format!("{field}.{name}_id");
                let Some((_, team)) = self.team(id) else {
                    out.violations.push(RoundViolation::new(
                        team_field,
                        format!("names {id:?}, which is not a registered team of the event"),
                    ));
                    continue;
                };
                if side == 1 && plan.teams[0] == plan.teams[1] {
                    continue;
                }
                if let Some(first) = playing.insert(id, index) {
                    out.violations.push(RoundViolation::new(
                        team_field,
                        format!(
                            "team {id:?} also plays in matches[{first}]: a team plays one match \
                             a round"
                        ),
                    ));
                }
                self.check_line_up(
                    team,
                    plan,
                    side,
                    &format!("{field}.{name}_players"),
                    &mut out.violations,
                );
            }
        }
        if !out.violations.is_empty() {
            return out;
        }
        for (index, mut plan) in matches.into_iter().enumerate() {
            plan.boards = self.boards;
            if plan.forfeit.is_none() {
                let teams =
                    [&plan.teams[0], &plan.teams[1]].map(|id| self.team(id).map(|(_, team)| team));
                let [Some(first), Some(second)] = teams else {
                    continue;
                };
                for (slot, board) in (1..=self.boards).enumerate() {
                    let players = [
                        first.member(&plan.line_ups[0][slot]),
                        second.member(&plan.line_ups[1][slot]),
                    ];
                    let number = plan.round_board(board);
                    match players {
                        [Some(a), Some(b)] => {
                            let (white, black) = if plan.color(0, board) == Color::White {
                                (a, b)
                            } else {
                                (b, a)
                            };
                            let setup = setup.clone().map(|setup| {
                                setup.seated(
                                    white.clone(),
                                    black.clone(),
                                    Pairing {
                                        event_id: Some(event.clone()),
                                        round,
                                        board: number,
                                        tie_break: false,
                                    },
                                )
                            });
                            out.boards.push(BoardRequest {
                                board: number,
                                field: format!("matches[{index}]"),
                                white,
                                black,
                                setup,
                            });
                        }
                        [Some(player), None] | [None, Some(player)] => {
                            let side = if plan.line_ups[0][slot].is_empty() {
                                "second_team_players"
                            } else {
                                "first_team_players"
                            };
                            out.byes.push((
                                RoundBye {
                                    player,
                                    kind: ByeKind::ForfeitWin,
                                },
                                format!("matches[{index}].{side}[{slot}]"),
                            ));
                        }
                        [None, None] => {}
                    }
                }
            }
            out.matches.push(plan);
        }
        out
    }

    /// Refuses what is wrong with a round's team byes (requested as
    /// `team_byes[i]`): an unknown team, a team given two byes or a bye
    /// and a match (`matches`), game points that the boards' results under
    /// `table` cannot add up to.
    pub fn check_byes(
        &self,
        byes: &[TeamByePlan],
        matches: &[MatchPlan],
        table: &PointTable,
        violations: &mut Vec<RoundViolation>,
    ) {
        // Every sum of one result a board (win, draw or loss points).
        let mut reachable: HashSet<i64> = HashSet::from([0]);
        if !byes.is_empty() {
            for _ in 0..self.boards {
                reachable = reachable
                    .iter()
                    .flat_map(|sum| {
                        [table.win(), table.draw(), table.loss()].map(|p| sum + p.milli())
                    })
                    .collect();
            }
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (index, bye) in byes.iter().enumerate() {
            let field = format!("team_byes[{index}]");
            if self.team(&bye.team).is_none() {
                violations.push(RoundViolation::new(
                    format!("{field}.team_id"),
                    format!(
                        "names {:?}, which is not a registered team of the event",
                        bye.team
                    ),
                ));
            } else if let Some(first) = seen.insert(&bye.team, index) {
                violations.push(RoundViolation::new(
                    format!("{field}.team_id"),
                    format!("team {:?} also has team_byes[{first}]", bye.team),
                ));
            } else if let Some(at) = matches.iter().position(|m| m.teams.contains(&bye.team)) {
                violations.push(RoundViolation::new(
                    format!("{field}.team_id"),
                    format!(
                        "team {:?} also plays in matches[{at}]: a team has a match or a bye",
                        bye.team
                    ),
                ));
            }
            if !reachable.contains(&bye.game_points.milli()) {
                violations.push(RoundViolation::new(
                    format!("{field}.game_points"),
                    format!(
                        "{} cannot be the game points of {} boards under the round's points \
                         ({} a win, {} a draw, {} a loss)",
                        bye.game_points,
                        self.boards,
                        table.win(),
                        table.draw(),
                        table.loss()
                    ),
                ));
            }
        }
    }

    /// Refuses what is wrong with team `side`'s line-up in `plan`.
    fn check_line_up(
        &self,
        team: &Team,
        plan: &MatchPlan,
        side: usize,
        field: &str,
        violations: &mut Vec<RoundViolation>,
    ) {
        let line_up = &plan.line_ups[side];
        if plan.forfeit.is_some() {
            if !line_up.is_empty() {
                violations.push(RoundViolation::new(
                    field,
                    "must be empty: a match forfeited whole has no line-ups",
                ));
            }
            return;
        }
        if line_up.len() != self.boards as usize {
            violations.push(RoundViolation::new(
                field,
                format!(
                    "names {} boards, and a match has {} (an empty id leaves a board empty)",
                    line_up.len(),
                    self.boards
                ),
            ));
            return;
        }
        let mut last: Option<(usize, usize)> = None;
        for (board, id) in line_up.iter().enumerate() {
            if id.is_empty() {
                continue;
            }
            let board_field = format!("{field}[{board}]");
            let Some(place) = team.players.iter().position(|p| &p.id == id) else {
                violations.push(RoundViolation::new(
                    board_field,
                    format!("player {id:?} is not on the roster of team {:?}", team.id),
                ));
                continue;
            };
            if let Some(earlier) = line_up[..board].iter().position(|other| other == id) {
                violations.push(RoundViolation::new(
                    board_field,
                    format!("player {id:?} is also on board {}", earlier + 1),
                ));
                continue;
            }
            if let Some((above, above_place)) = last
                && above_place > place
            {
                violations.push(RoundViolation::new(
                    board_field,
                    format!(
                        "player {id:?} is above {:?} (board {}) on the roster: boards follow \
                         the roster's order",
                        line_up[above],
                        above + 1
                    ),
                ));
            }
            last = Some((board, place));
        }
    }
}

#[cfg(test)]
#[path = "teams_tests.rs"]
mod tests;
