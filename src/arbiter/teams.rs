//! An event's teams: their registration (see
//! [`crate::domain::TeamRegistration`]), and the team standings read from
//! the event's games: the registered teams' matches as the rounds made
//! them, or, without a registration, the matches the players' teams make
//! (see [`crate::domain::team_matches`]).

use super::{Arbiter, ArbiterError, MAX_ATTEMPTS, Reader, codec};
use crate::{
    domain::{
        BoardStanding, EventId, MatchPointTable, Team, TeamRegistration, TeamScore, TeamStanding,
        TeamTieBreak, board_standings, registered_team_matches, team_matches, team_standings,
    },
    store::TeamsWrite,
};

/// An event's team standings as read.
#[derive(Clone, Debug)]
pub struct TeamStandingsRead {
    /// The teams' names (a row names its team by index).
    pub teams: Vec<String>,
    /// The teams' ids, likewise.
    pub ids: Vec<String>,
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
    /// The event's team registration and its version, if it has one.
    pub(super) async fn read_teams(
        &self,
        event_id: &EventId,
    ) -> Result<Option<(TeamRegistration, u64)>, ArbiterError> {
        let Some(stored) = self.store.teams(event_id).await? else {
            return Ok(None);
        };
        Ok(Some((codec::decode_teams(&stored)?, stored.version)))
    }

    /// The event's team registration and its version.
    pub async fn teams(&self, event_id: &EventId) -> Result<(TeamRegistration, u64), ArbiterError> {
        self.read_teams(event_id)
            .await?
            .ok_or_else(|| ArbiterError::TeamsNotFound(event_id.clone()))
    }

    /// Registers event `event_id`'s `teams`, playing matches of `boards`
    /// boards, for `by`: in any way until the event's first round, then
    /// only growing (see [`TeamRegistration::check_amends`]); when
    /// `expected` is given, only over that version. A registration equal
    /// to the stored one changes nothing.
    pub async fn register_teams(
        &self,
        event_id: &EventId,
        boards: u32,
        teams: Vec<Team>,
        expected: Option<u64>,
        by: &str,
    ) -> Result<(TeamRegistration, u64), ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let now = self.store.now().await?;
            let current = self.read_teams(event_id).await?;
            let version = current.as_ref().map_or(0, |(_, version)| *version);
            if let Some(expected) = expected
                && expected != version
            {
                return Err(ArbiterError::TeamsChanged {
                    event_id: event_id.clone(),
                    expected,
                    current: version,
                });
            }
            let next = TeamRegistration::new(boards, teams.clone(), now, by)
                .map_err(ArbiterError::TeamsRefused)?;
            if let Some((registered, version)) = current.as_ref()
                && registered.same_as(&next)
            {
                return Ok((registered.clone(), *version));
            }
            let has_rounds = !self.store.round_summaries(event_id, 1).await?.is_empty();
            if has_rounds && let Some((registered, _)) = current.as_ref() {
                next.check_amends(registered)
                    .map_err(ArbiterError::TeamsRefused)?;
            }
            let stored = codec::encode_teams(&next, version + 1)?;
            match self
                .store
                .put_teams(event_id, version, &stored, !has_rounds)
                .await?
            {
                TeamsWrite::Written => {
                    tracing::info!(event_id = %event_id, version = version + 1, teams = next.teams().len(), "teams registered");
                    return Ok((next, version + 1));
                }
                // Another registration, or the event's first round, came
                // first: decide again on what stands now.
                TeamsWrite::Conflict | TeamsWrite::RoundsExist => {}
            }
        }
        Err(ArbiterError::Contention)
    }

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
        let registered = self.read_teams(event_id).await?;
        let (event, _permit) = self.event_records(event_id, reader).await?;
        let teams = match &registered {
            Some((registration, _)) => registered_team_matches(
                registration,
                &event.rounds,
                &event.records,
                &event.bye_points(),
            ),
            None => team_matches(&event.records).map_err(ArbiterError::TeamPairing)?,
        };
        let rows = team_standings(teams.teams.len(), &teams.matches, table, primary, order);
        Ok(TeamStandingsRead {
            boards: board_standings(&teams),
            counted: teams.matches.len(),
            in_progress: teams.in_progress,
            teams: teams.teams,
            ids: teams.ids,
            rows,
        })
    }
}
