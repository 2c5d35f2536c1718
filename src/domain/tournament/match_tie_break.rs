//! A match's tie-break game: where an event's regulations decide a drawn
//! team match by one more game, played under Armageddon scoring (a draw
//! on the board counts as Black's win, so the game always has a winner),
//! between a player of each team's line-up.
//!
//! The game belongs to the match's round and is listed with the match (at
//! its first board), but it is no board of the match: it scores no game
//! points, and no individual standing, board standing, tie-break game
//! count or report counts it. It decides the match only: the winner's
//! team wins the match, scoring the regulations' match points for a
//! match won on a tie-break (by default a win's), the other team those
//! for a match lost on one (by default a loss's).
//!
//! A tie-break is made only for a match whose every board is decided and
//! which is drawn on game points (neither team without a point); one per
//! match. Should a board's result be changed afterwards (`SetGameResult`)
//! so that the match is no longer drawn, the boards decide it and the
//! tie-break game counts for nothing; a tie-break game aborted leaves the
//! match drawn.

use serde::{Deserialize, Serialize};

use crate::domain::{
    Color, EventId, GameId, GameRecordForStandings, MatchPlan, MatchScore, NewGame, Outcome,
    Pairing, Player, Points, TeamRegistration,
};

/// A match's tie-break game, as the round and its summary record it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchTieBreak {
    /// The match's table.
    pub table: u32,
    /// The game.
    pub game: GameId,
    /// The round's board the game is listed at: the match's first.
    pub board: u32,
    /// Whether the match's first team has White.
    pub first_white: bool,
}

/// A match's tie-break game as the round's record keeps it: with its
/// players and settings, from which its game is created (again, by
/// whichever replica finds it missing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedTieBreak {
    /// The game's place.
    pub plan: MatchTieBreak,
    /// White, as the registration names the player.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// What the game is played under, players and place left out.
    pub settings: NewGame,
}

/// A request for a match's tie-break game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TieBreakRequest {
    /// The match's table.
    pub table: u32,
    /// White's player id, of one team's line-up in the match.
    pub white: String,
    /// Black's, of the other team's.
    pub black: String,
    /// What the game is played under (its players and place are set
    /// from the match).
    pub settings: NewGame,
}

/// Why a match's tie-break game is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TieBreakRefusal {
    /// The round has no match at the table.
    #[error("round {round} has no match at table {table}")]
    NoMatch {
        /// The round.
        round: u32,
        /// The table.
        table: u32,
    },
    /// The match was forfeited whole.
    #[error("the match at table {table} was forfeited whole: it has no games to tie")]
    Forfeited {
        /// The table.
        table: u32,
    },
    /// A board of the match is still to be decided.
    #[error(
        "the match at table {table} has {decided} of its {boards} boards decided: a tie-break \
         follows the last"
    )]
    Undecided {
        /// The table.
        table: u32,
        /// The boards decided.
        decided: u32,
        /// The match's boards.
        boards: u32,
    },
    /// The match is not drawn.
    #[error("the match at table {table} is not drawn: it stands {first} to {second}")]
    NotDrawn {
        /// The table.
        table: u32,
        /// The first team's game points.
        first: Points,
        /// The second team's.
        second: Points,
    },
    /// A field of the request is wrong.
    #[error("{field} {reason}")]
    Field {
        /// The request's field.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// The match has another tie-break game.
    #[error("the match at table {table} has a tie-break game already ({game})")]
    Exists {
        /// The table.
        table: u32,
        /// Its game.
        game: GameId,
    },
}

/// How a tie-break game stands for its match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieBreakState {
    /// Still to finish: the match waits for it.
    Playing,
    /// Won for team `0` (the match's first) or `1`.
    Won(usize),
    /// Aborted, or finished without a winner: the match stays drawn.
    Void,
}

impl MatchTieBreak {
    /// The game's state for its match, `record` being its game (`None`:
    /// not created yet, as after an interrupted request).
    pub fn state(&self, record: Option<&GameRecordForStandings>) -> TieBreakState {
        let Some(record) = record else {
            return TieBreakState::Playing;
        };
        if record.aborted {
            return TieBreakState::Void;
        }
        let Some(score) = &record.finished else {
            return TieBreakState::Playing;
        };
        let first = if self.first_white {
            Color::White
        } else {
            Color::Black
        };
        let winner = match score.scored_as {
            Outcome::WhiteWins => Color::White,
            Outcome::BlackWins => Color::Black,
            Outcome::Draw | Outcome::DoubleForfeit => return TieBreakState::Void,
        };
        TieBreakState::Won(usize::from(winner != first))
    }
}

impl RecordedTieBreak {
    /// The tie-break game `request` asks for of `plan`, a match of round
    /// `round` of `event` between `registration`'s teams that stands at
    /// `score`: refused unless every board is decided, the match drawn,
    /// its players one of each team's line-up and its scoring Armageddon.
    pub fn plan(
        event: &EventId,
        round: u32,
        plan: &MatchPlan,
        registration: &TeamRegistration,
        score: &MatchScore,
        request: &TieBreakRequest,
    ) -> Result<Self, TieBreakRefusal> {
        let table = plan.table;
        if plan.forfeit.is_some() {
            return Err(TieBreakRefusal::Forfeited { table });
        }
        if score.decided < score.boards {
            return Err(TieBreakRefusal::Undecided {
                table,
                decided: score.decided,
                boards: score.boards,
            });
        }
        let [first, second] = score.points;
        if first != second || first == Points::ZERO {
            return Err(TieBreakRefusal::NotDrawn {
                table,
                first,
                second,
            });
        }
        let field = |field, reason: &str| TieBreakRefusal::Field {
            field,
            reason: reason.to_owned(),
        };
        if !request.settings.scoring().armageddon {
            return Err(field(
                "settings.scoring.armageddon",
                "must be set: a match's tie-break game scores a draw as Black's win",
            ));
        }
        let side_of = |id: &str| {
            (0..2).find(|&side| !id.is_empty() && plan.line_ups[side].iter().any(|p| p == id))
        };
        let Some(white_side) = side_of(&request.white) else {
            return Err(field(
                "white_player_id",
                "must name a player of either team's line-up in the match",
            ));
        };
        let Some(black_side) = side_of(&request.black) else {
            return Err(field(
                "black_player_id",
                "must name a player of either team's line-up in the match",
            ));
        };
        if white_side == black_side {
            return Err(field(
                "black_player_id",
                "must name a player of the other team than White's",
            ));
        }
        let member = |side: usize, id: &str, name: &'static str| {
            registration
                .team(&plan.teams[side])
                .and_then(|(_, team)| team.member(id))
                .ok_or_else(|| field(name, "is no longer on the team's roster"))
        };
        let white = member(white_side, &request.white, "white_player_id")?;
        let black = member(black_side, &request.black, "black_player_id")?;
        Ok(Self {
            plan: MatchTieBreak {
                table,
                game: GameId::for_tie_break(event, round, table),
                board: plan.round_board(1),
                first_white: white_side == 0,
            },
            white,
            black,
            settings: request.settings.clone(),
        })
    }

    /// Whether `request` asks for this tie-break game again: the same
    /// table, players and settings.
    pub fn answers(&self, request: &TieBreakRequest) -> bool {
        self.plan.table == request.table
            && self.white.id == request.white
            && self.black.id == request.black
            && self.settings == request.settings
    }

    /// The game's setup in round `round` of `event`.
    pub fn setup(&self, event: &EventId, round: u32) -> NewGame {
        self.settings.clone().seated(
            self.white.clone(),
            self.black.clone(),
            Pairing {
                event_id: Some(event.clone()),
                round,
                board: self.plan.board,
                tie_break: true,
            },
        )
    }
}

#[cfg(test)]
#[path = "match_tie_break_tests.rs"]
mod tests;
