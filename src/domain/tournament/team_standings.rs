//! Team standings (FIDE Tie-Break Regulations 2023, C.07, the team
//! tie-breaks): a team match is a set of boards whose game points decide
//! it, scoring match points (by default 2 for a win, 1 for a draw, 0 for a
//! loss); teams rank by match points or by game points, then by the
//! tie-breaks the event's regulations list.
//!
//! Like the individual standings, they are computed from the matches'
//! results each time they are asked for. A match is won by the team with
//! more game points; equal game points draw it, unless neither team scored
//! (every board forfeited by both), which is a loss for both. A match with
//! no game played over the board (won or lost by forfeits alone) is an
//! unplayed round for the tie-breaks: its opponent counts as one with the
//! team's own score (C.07 16.4). A match drawn on the boards and decided
//! by its tie-break game (where the regulations ask for one) is won by
//! the game's winner's team, scoring the table's points for a tie-break
//! won and lost, and counts as won (`WIN`, `WON`) for it; its game points
//! and board count are the boards'. FIDE's reference knows no tie-break
//! games: the committed vectors have none.
//!
//! Every value equals that of FIDE's reference implementation,
//! TieBreakServer, on the committed vectors (`tests/data/team-tie-breaks`,
//! made by `scripts/team-tie-break-vectors`).

use crate::domain::{FieldError, Points};

/// Match points per match result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchPointTable {
    /// For a match won.
    pub win: Points,
    /// For a match drawn.
    pub draw: Points,
    /// For a match lost.
    pub loss: Points,
    /// For a match drawn on the boards and won on its tie-break game
    /// (see `tournament::match_tie_break`).
    pub tie_break_win: Points,
    /// For a match drawn on the boards and lost on its tie-break game.
    pub tie_break_loss: Points,
}

impl MatchPointTable {
    /// The most match points a result may score.
    pub const MAX_POINTS: Points = Points::from_milli(100_000);

    /// 2 for a win, 1 for a draw, 0 for a loss (the Olympiad's).
    pub const OLYMPIAD: Self = Self {
        win: Points::from_milli(2_000),
        draw: Points::from_milli(1_000),
        loss: Points::ZERO,
        tie_break_win: Points::from_milli(2_000),
        tie_break_loss: Points::ZERO,
    };

    /// 3 for a win, 1 for a draw, 0 for a loss.
    pub const THREE_ONE_ZERO: Self = Self {
        win: Points::from_milli(3_000),
        draw: Points::from_milli(1_000),
        loss: Points::ZERO,
        tie_break_win: Points::from_milli(3_000),
        tie_break_loss: Points::ZERO,
    };

    /// A table of `win`, `draw` and `loss` points, sent in the fields of
    /// `field` (`<field>.win`, ...): each from 0 to [`Self::MAX_POINTS`],
    /// a win worth at least a draw and a draw at least a loss. A match
    /// decided by its tie-break game scores a win's and a loss's points
    /// (see [`Self::with_tie_break`]).
    pub fn new(
        field: &'static str,
        [win, draw, loss]: [(&'static str, Points); 3],
    ) -> Result<Self, FieldError> {
        for (name, value) in [win, draw, loss] {
            if value < Points::ZERO || value > Self::MAX_POINTS {
                return Err(FieldError::new(name, "must be from 0 to 100"));
            }
        }
        let table = Self {
            win: win.1,
            draw: draw.1,
            loss: loss.1,
            tie_break_win: win.1,
            tie_break_loss: loss.1,
        };
        if table.win < table.draw || table.draw < table.loss {
            return Err(FieldError::new(
                field,
                "must give a win at least a draw's points, and a draw at least a loss's",
            ));
        }
        Ok(table)
    }

    /// The table with a match decided by its tie-break game scoring `win`
    /// and `loss` points (each `None`: as the table's win or loss), sent
    /// in the fields of `field`: each from 0 to [`Self::MAX_POINTS`], the
    /// win worth at least the loss.
    pub fn with_tie_break(
        self,
        field: &'static str,
        win: Option<(&'static str, Points)>,
        loss: Option<(&'static str, Points)>,
    ) -> Result<Self, FieldError> {
        for (name, value) in [win, loss].into_iter().flatten() {
            if value < Points::ZERO || value > Self::MAX_POINTS {
                return Err(FieldError::new(name, "must be from 0 to 100"));
            }
        }
        let table = Self {
            tie_break_win: win.map_or(self.win, |(_, points)| points),
            tie_break_loss: loss.map_or(self.loss, |(_, points)| points),
            ..self
        };
        if table.tie_break_win < table.tie_break_loss {
            return Err(FieldError::new(
                field,
                "must give a match won on its tie-break game at least the points of one lost on it",
            ));
        }
        Ok(table)
    }
}

/// One board of a match: the game points each team's player scored on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardResult {
    /// The board (1 is the top board).
    pub board: u32,
    /// The game points of the match's first and second team on it.
    pub points: [Points; 2],
    /// Whether the game was played (not forfeited).
    pub played: bool,
}

/// A match between two teams (by their index) in a round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeamMatch {
    /// The round.
    pub round: u32,
    /// The first and the second team.
    pub teams: [usize; 2],
    /// Its boards.
    pub boards: Vec<BoardResult>,
    /// The team (0 the first, 1 the second) the match's tie-break game
    /// won it for: it decides a match drawn on the boards, and nothing
    /// else.
    pub tie_break: Option<usize>,
}

/// How a match came out for a team.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchOutcome {
    /// Won.
    Won,
    /// Drawn.
    Drawn,
    /// Lost.
    Lost,
}

impl MatchOutcome {
    /// Its match points under `table`.
    pub fn points(self, table: MatchPointTable) -> Points {
        match self {
            Self::Won => table.win,
            Self::Drawn => table.draw,
            Self::Lost => table.loss,
        }
    }
}

/// A team's pairing-allocated bye in a round (TRF-2026 `320`): the match
/// result and the game points the event's regulations give it, an
/// unplayed round for the tie-breaks (its opponent counts as one with the
/// team's own score, C.07 16.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeamBye {
    /// The round.
    pub round: u32,
    /// The team, by index.
    pub team: usize,
    /// The match result it scores.
    pub outcome: MatchOutcome,
    /// The game points it scores.
    pub game_points: Points,
    /// Those game points by board, for the board count: a draw on every
    /// board, then the top boards raised to wins or the bottom boards
    /// lowered to nothing until they add up (as FIDE's reference reads a
    /// bye's game points).
    pub boards: Vec<BoardResult>,
}

impl TeamBye {
    /// The bye of `team` in `round` scoring `outcome` and `game_points` in
    /// a match of `boards` boards under the game points `win` and `draw`.
    pub fn new(
        round: u32,
        team: usize,
        outcome: MatchOutcome,
        game_points: Points,
        boards: u32,
        [win, draw]: [Points; 2],
    ) -> Self {
        let count = boards as usize;
        let mut points = vec![draw; count];
        let target = game_points.milli();
        let mut total: i64 = points.iter().map(|p| p.milli()).sum();
        for i in 0..count {
            if target > total {
                points[i] = win;
                total += win.milli() - draw.milli();
            }
            if target < total {
                points[count - 1 - i] = Points::ZERO;
                total -= draw.milli();
            }
        }
        Self {
            round,
            team,
            outcome,
            game_points,
            boards: (1..)
                .zip(points)
                .map(|(board, points)| BoardResult {
                    board,
                    points: [points, Points::ZERO],
                    played: false,
                })
                .collect(),
        }
    }
}

/// Which of a team's two scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeamScore {
    /// Match points.
    Match,
    /// Game points (board points).
    Game,
}

/// A team tie-break (C.07 names and TieBreakServer's codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeamTieBreak {
    /// A score itself: the one that is not primary, as a tie-break
    /// (`MPVGP`).
    Score(TeamScore),
    /// Buchholz: the sum of the opponents' scores (`BH:MP`, `BH:GP`).
    Buchholz(TeamScore),
    /// Sonneborn-Berger: the sum, over the matches, of the opponent's
    /// score times the team's own score in the match (`SB:MP` = `EMMSB`,
    /// `EMGSB` the Olympiad's: opponent's match points times own game
    /// points, `EGMSB`, `SB:GP` = `EGGSB`).
    SonnebornBerger {
        /// The opponent's score counted.
        opponent: TeamScore,
        /// The team's own score in the match it weighs.
        own: TeamScore,
    },
    /// Board count: the sum of board number times game points on that
    /// board (`BC`); the lower ranks higher.
    BoardCount,
    /// Matches won (`WIN`).
    Wins,
    /// Matches won over the board: with a game played (`WON`).
    WinsOverTheBoard,
}

impl TeamTieBreak {
    /// The most tie-breaks an order may list.
    pub const MAX: usize = 16;

    /// The tie-break of code `code` (TieBreakServer's notation: `MP`,
    /// `GP`, `MPVGP` for the score that is not `primary`, `BH:MP`,
    /// `BH:GP`, `SB:MP`, `SB:GP`, `EMGSB`, `EGMSB`, `BC`, `WIN`, `WON`),
    /// as sent in `field`.
    pub fn parse(field: &'static str, code: &str, primary: TeamScore) -> Result<Self, FieldError> {
        use TeamScore::{Game, Match};
        let sb = |opponent, own| TeamTieBreak::SonnebornBerger { opponent, own };
        Ok(match code.trim().to_ascii_uppercase().as_str() {
            "MP" | "MPTS" => TeamTieBreak::Score(Match),
            "GP" | "GPTS" => TeamTieBreak::Score(Game),
            "MPVGP" => TeamTieBreak::Score(if primary == Match { Game } else { Match }),
            "BH:MP" => TeamTieBreak::Buchholz(Match),
            "BH:GP" => TeamTieBreak::Buchholz(Game),
            "SB:MP" | "EMMSB" => sb(Match, Match),
            "SB:GP" | "EGGSB" => sb(Game, Game),
            "EMGSB" => sb(Match, Game),
            "EGMSB" => sb(Game, Match),
            "BC" => TeamTieBreak::BoardCount,
            "WIN" => TeamTieBreak::Wins,
            "WON" => TeamTieBreak::WinsOverTheBoard,
            _ => {
                return Err(FieldError::new(
                    field,
                    format!(
                        "'{}' is not a team tie-break (MP, GP, MPVGP, BH:MP, BH:GP, SB:MP, \
                         SB:GP, EMGSB, EGMSB, BC, WIN, WON)",
                        code.chars().take(16).collect::<String>()
                    ),
                ));
            }
        })
    }

    /// The tie-break's code, as [`TeamTieBreak::parse`] reads it.
    pub fn code(self) -> &'static str {
        use TeamScore::{Game, Match};
        match self {
            TeamTieBreak::Score(Match) => "MP",
            TeamTieBreak::Score(Game) => "GP",
            TeamTieBreak::Buchholz(Match) => "BH:MP",
            TeamTieBreak::Buchholz(Game) => "BH:GP",
            TeamTieBreak::SonnebornBerger {
                opponent: Match,
                own: Match,
            } => "SB:MP",
            TeamTieBreak::SonnebornBerger {
                opponent: Game,
                own: Game,
            } => "SB:GP",
            TeamTieBreak::SonnebornBerger {
                opponent: Match,
                own: Game,
            } => "EMGSB",
            TeamTieBreak::SonnebornBerger {
                opponent: Game,
                own: Match,
            } => "EGMSB",
            TeamTieBreak::BoardCount => "BC",
            TeamTieBreak::Wins => "WIN",
            TeamTieBreak::WinsOverTheBoard => "WON",
        }
    }

    /// The order `codes` name, sent in `field` (see
    /// [`TeamTieBreak::parse`]); the default order for none. Refused: an
    /// unknown code, a tie-break listed twice, more than [`Self::MAX`].
    pub fn order(
        field: &'static str,
        codes: &[String],
        primary: TeamScore,
    ) -> Result<Vec<Self>, FieldError> {
        if codes.len() > Self::MAX {
            return Err(FieldError::new(
                field,
                format!("lists more than {} tie-breaks", Self::MAX),
            ));
        }
        let mut order: Vec<Self> = Vec::with_capacity(codes.len());
        for code in codes {
            let tie_break = Self::parse(field, code, primary)?;
            if order.contains(&tie_break) {
                return Err(FieldError::new(
                    field,
                    format!("lists {} twice", tie_break.code()),
                ));
            }
            order.push(tie_break);
        }
        Ok(if order.is_empty() {
            Self::default_order(primary)
        } else {
            order
        })
    }

    /// The order when a request names none: under match points the
    /// Olympiad's (its Sonneborn-Berger, then game points, then
    /// Buchholz); under game points, match points then Buchholz.
    pub fn default_order(primary: TeamScore) -> Vec<Self> {
        use TeamScore::{Game, Match};
        match primary {
            Match => vec![
                TeamTieBreak::SonnebornBerger {
                    opponent: Match,
                    own: Game,
                },
                TeamTieBreak::Score(Game),
                TeamTieBreak::Buchholz(Match),
            ],
            Game => vec![TeamTieBreak::Score(Match), TeamTieBreak::Buchholz(Game)],
        }
    }

    /// Whether a lower value ranks higher.
    fn lower_is_better(self) -> bool {
        self == TeamTieBreak::BoardCount
    }
}

/// One team's line in the standings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TeamStanding {
    /// The team, by index.
    pub team: usize,
    /// 1-based rank; teams equal on every criterion share it.
    pub rank: u32,
    /// Match points.
    pub match_points: Points,
    /// Game points.
    pub game_points: Points,
    /// The tie-breaks' values, in the order asked.
    pub values: Vec<Points>,
    /// Matches counted.
    pub matches: u32,
}

/// What one team did in one match.
struct Played {
    opponent: usize,
    game_points: Points,
    match_points: Points,
    won: bool,
    over_the_board: bool,
    board_count: Points,
}

/// The standings of `teams` teams after `matches` and `byes`, ranked by
/// `primary` then by `tie_breaks` in order.
pub fn team_standings(
    teams: usize,
    matches: &[TeamMatch],
    byes: &[TeamBye],
    table: MatchPointTable,
    primary: TeamScore,
    tie_breaks: &[TeamTieBreak],
) -> Vec<TeamStanding> {
    let mut played: Vec<Vec<Played>> = (0..teams).map(|_| Vec::new()).collect();
    for bye in byes {
        if let Some(team) = played.get_mut(bye.team) {
            team.push(Played {
                opponent: bye.team,
                game_points: bye.game_points,
                match_points: bye.outcome.points(table),
                won: bye.outcome == MatchOutcome::Won,
                over_the_board: false,
                board_count: bye
                    .boards
                    .iter()
                    .map(|board| {
                        Points::from_milli(
                            board.points[0]
                                .milli()
                                .saturating_mul(i64::from(board.board)),
                        )
                    })
                    .sum(),
            });
        }
    }
    for game in matches {
        let totals = [0, 1].map(|side| game.boards.iter().map(|b| b.points[side]).sum::<Points>());
        let over_the_board = game.boards.iter().any(|board| board.played);
        for side in 0..2 {
            let (own, other) = (totals[side], totals[1 - side]);
            let tie_break = game
                .tie_break
                .filter(|_| own == other && own > Points::ZERO);
            let match_points = if let Some(winner) = tie_break {
                if winner == side {
                    table.tie_break_win
                } else {
                    table.tie_break_loss
                }
            } else if own > other {
                table.win
            } else if own == other && own > Points::ZERO {
                table.draw
            } else {
                table.loss
            };
            let board_count = game
                .boards
                .iter()
                .map(|board| {
                    Points::from_milli(
                        board.points[side]
                            .milli()
                            .saturating_mul(i64::from(board.board)),
                    )
                })
                .sum();
            if let Some(team) = played.get_mut(game.teams[side]) {
                team.push(Played {
                    opponent: game.teams[1 - side],
                    game_points: own,
                    match_points,
                    won: tie_break.map_or(own > other, |winner| winner == side),
                    over_the_board,
                    board_count,
                });
            }
        }
    }
    let score = |team: usize, which: TeamScore| -> Points {
        played[team]
            .iter()
            .map(|p| match which {
                TeamScore::Match => p.match_points,
                TeamScore::Game => p.game_points,
            })
            .sum()
    };
    // A match with no game played over the board is an unplayed round:
    // its opponent counts as one with the team's own score (C.07 16.4).
    let faced = |team: usize, p: &Played| if p.over_the_board { p.opponent } else { team };
    let in_match = |p: &Played, which: TeamScore| match which {
        TeamScore::Match => p.match_points,
        TeamScore::Game => p.game_points,
    };
    let mut rows: Vec<TeamStanding> = (0..teams)
        .map(|team| {
            let values = tie_breaks
                .iter()
                .map(|tie_break| match *tie_break {
                    TeamTieBreak::Score(which) => score(team, which),
                    TeamTieBreak::Buchholz(which) => played[team]
                        .iter()
                        .map(|p| score(faced(team, p), which))
                        .sum(),
                    TeamTieBreak::SonnebornBerger { opponent, own } => played[team]
                        .iter()
                        .map(|p| score(faced(team, p), opponent).times(in_match(p, own)))
                        .sum(),
                    TeamTieBreak::BoardCount => played[team].iter().map(|p| p.board_count).sum(),
                    TeamTieBreak::Wins => count(played[team].iter().filter(|p| p.won)),
                    TeamTieBreak::WinsOverTheBoard => {
                        count(played[team].iter().filter(|p| p.won && p.over_the_board))
                    }
                })
                .collect();
            TeamStanding {
                team,
                rank: 0,
                match_points: score(team, TeamScore::Match),
                game_points: score(team, TeamScore::Game),
                values,
                matches: u32::try_from(played[team].len()).unwrap_or(u32::MAX),
            }
        })
        .collect();
    let key = |row: &TeamStanding| -> Vec<i64> {
        let first = match primary {
            TeamScore::Match => row.match_points,
            TeamScore::Game => row.game_points,
        };
        std::iter::once(-first.milli())
            .chain(
                tie_breaks
                    .iter()
                    .zip(&row.values)
                    .map(|(tie_break, value)| {
                        if tie_break.lower_is_better() {
                            value.milli()
                        } else {
                            -value.milli()
                        }
                    }),
            )
            .collect()
    };
    rows.sort_by_key(|row| (key(row), row.team));
    let mut rank = 0;
    let mut previous: Option<Vec<i64>> = None;
    for (index, row) in rows.iter_mut().enumerate() {
        let this = key(row);
        if previous.as_ref() != Some(&this) {
            rank = u32::try_from(index + 1).unwrap_or(u32::MAX);
        }
        row.rank = rank;
        previous = Some(this);
    }
    rows
}

/// A count as points (matches won).
fn count<'a>(played: impl Iterator<Item = &'a Played>) -> Points {
    Points::from_milli(1_000 * i64::try_from(played.count()).unwrap_or(i64::MAX / 1_000))
}

#[cfg(test)]
#[path = "team_standings_tests.rs"]
mod tests;
