//! An event's team standings, from its games: the players' teams make the
//! matches (see [`crate::domain::team_matches`]), and the matches the
//! standings.

use super::{Arbiter, ArbiterError, Reader};
use crate::domain::{
    BoardStanding, EventId, MatchPointTable, TeamScore, TeamStanding, TeamTieBreak,
    board_standings, team_matches, team_standings,
};

/// An event's team standings as read.
#[derive(Clone, Debug)]
pub struct TeamStandingsRead {
    /// The teams' names (a row names its team by index).
    pub teams: Vec<String>,
    /// The rows, best first.
    pub rows: Vec<TeamStanding>,
    /// The matches counted.
    pub counted: usize,
    /// The matches with a game still to finish, left out.
    pub in_progress: usize,
    /// Each player's results per board.
    pub boards: Vec<BoardStanding>,
}

impl Arbiter {
    /// The team standings of event `event_id`, ranked by `primary` then
    /// `order`, with matches scored under `table`, from the results
    /// `reader` sees (the public's under the games' broadcast delay).
    pub async fn team_standings(
        &self,
        event_id: &EventId,
        primary: TeamScore,
        table: MatchPointTable,
        order: &[TeamTieBreak],
        reader: &Reader,
    ) -> Result<TeamStandingsRead, ArbiterError> {
        let (event, _permit) = self.event_records(event_id, reader).await?;
        let teams = team_matches(&event.records).map_err(ArbiterError::TeamPairing)?;
        let rows = team_standings(teams.teams.len(), &teams.matches, table, primary, order);
        Ok(TeamStandingsRead {
            boards: board_standings(&teams),
            counted: teams.matches.len(),
            in_progress: teams.in_progress,
            teams: teams.teams,
            rows,
        })
    }
}
