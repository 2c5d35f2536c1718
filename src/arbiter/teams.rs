//! An event's teams: their registration (see
//! [`crate::domain::TeamRegistration`]), and the team standings read from
//! the event's games: the registered teams' matches as the rounds made
//! them, or, without a registration, the matches the players' teams make
//! (see [`crate::domain::team_matches`]).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, PoisonError},
};

use tokio::sync::OnceCell;

use super::{Arbiter, ArbiterError, MAX_ATTEMPTS, Reader, codec};
use crate::{
    domain::{
        BoardStanding, EventId, GameId, GameRecordForStandings, MatchPlan, MatchPointTable,
        MatchScore, MatchTieBreak, PointTable, Team, TeamRegistration, TeamScore, TeamStanding,
        TeamTieBreak, TieBreakState, board_standings, match_score, registered_team_matches,
        team_matches, team_standings, tournament::trf,
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

/// A registered teams' match as it stands, after one of its games'
/// events.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchScoreRead {
    /// The round.
    pub round: u32,
    /// The match's table.
    pub table: u32,
    /// The first and the second team's ids.
    pub teams: [String; 2],
    /// The score.
    pub score: MatchScore,
    /// The match's tie-break game and how it stands, if it has one.
    pub tie_break: Option<(GameId, TieBreakState)>,
    /// The game whose event it follows.
    pub game: GameId,
}

/// A match's games as read.
pub(super) struct MatchGames {
    /// Its boards' games.
    pub(super) boards: Vec<GameRecordForStandings>,
    /// The point table they share (1 / ½ / 0 when they share none).
    pub(super) table: PointTable,
    /// Its tie-break game, if it has one that exists.
    pub(super) tie_break: Option<GameRecordForStandings>,
}

/// The most match scores a replica remembers; it forgets them all beyond
/// this.
const REMEMBERED_SCORES: usize = 4096;

/// Match scores as this replica has read them after a game's event, by the
/// game, the event's version and whether for the public: read once per
/// replica however many watchers of the event send it, each waiting for
/// the one read.
#[derive(Clone, Default)]
pub(super) struct MatchScores(Arc<Mutex<HashMap<ScoreKey, Arc<ScoreCell>>>>);

/// A score's game, event version and whether for the public.
type ScoreKey = (GameId, u64, bool);

/// A score read once, or being read.
type ScoreCell = OnceCell<Option<MatchScoreRead>>;

impl Arbiter {
    /// The score of the registered teams' match game `game_id` is a board
    /// of, after its event of version `version`, as the public sees its
    /// boards (under their broadcast delay) when `public`; `None` for a
    /// game of no such match. Read once per replica.
    pub(super) async fn match_score_after(
        &self,
        game_id: &GameId,
        version: u64,
        public: bool,
    ) -> Result<Option<MatchScoreRead>, ArbiterError> {
        let cell = {
            let mut known = self
                .match_scores
                .0
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if known.len() >= REMEMBERED_SCORES {
                known.clear();
            }
            Arc::clone(known.entry((game_id.clone(), version, public)).or_default())
        };
        cell.get_or_try_init(|| self.match_score_of(game_id, public))
            .await
            .cloned()
    }

    /// The score of the registered teams' match game `game_id` is a board
    /// of, as the public sees its boards (under their broadcast delay)
    /// when `public`; `None` for a game of no such match.
    async fn match_score_of(
        &self,
        game_id: &GameId,
        public: bool,
    ) -> Result<Option<MatchScoreRead>, ArbiterError> {
        let (game, _) = self.load_current(game_id).await?;
        let pairing = game.pairing().clone();
        let Some(event_id) = pairing.event_id else {
            return Ok(None);
        };
        if pairing.round == 0 {
            return Ok(None);
        }
        let Some((registration, _)) = self.read_teams(&event_id).await? else {
            return Ok(None);
        };
        // The round's summary holds its matches; a board's game follows
        // from its place (the record of every board is not needed).
        let Some(stored) = self.store.round(&event_id, pairing.round).await? else {
            return Ok(None);
        };
        let summary = codec::decode_round_summary(&stored.summary)?;
        let Some(plan) = summary
            .matches
            .iter()
            .find(|m| (1..=m.boards).any(|board| m.round_board(board) == pairing.board))
        else {
            return Ok(None);
        };
        let tie_break = summary.tie_breaks.iter().find(|t| t.table == plan.table);
        let games = self
            .match_games(&event_id, pairing.round, plan, tie_break, public)
            .await?;
        Ok(Some(MatchScoreRead {
            round: pairing.round,
            table: plan.table,
            teams: plan.teams.clone(),
            score: match_score(
                &registration,
                pairing.round,
                plan,
                &games.boards,
                &games.table,
            ),
            tie_break: tie_break.map(|t| (t.game.clone(), t.state(games.tie_break.as_ref()))),
            game: game_id.clone(),
        }))
    }

    /// The games of `plan`, a match of round `round` of event `event_id`,
    /// and of its tie-break game `tie_break`, as the public sees them
    /// (under their broadcast delay) when `public`.
    pub(super) async fn match_games(
        &self,
        event_id: &EventId,
        round: u32,
        plan: &MatchPlan,
        tie_break: Option<&MatchTieBreak>,
        public: bool,
    ) -> Result<MatchGames, ArbiterError> {
        // A board's game follows from its place (the round's record of
        // every board is not needed); an empty board has none.
        let ids = (1..=plan.boards)
            .filter(|board| {
                let slot = *board as usize - 1;
                plan.forfeit.is_none()
                    && plan
                        .line_ups
                        .iter()
                        .all(|l| l.get(slot).is_some_and(|id| !id.is_empty()))
            })
            .map(|board| GameId::for_board(event_id, round, plan.round_board(board)))
            .chain(tie_break.map(|t| t.game.clone()));
        let ids: Vec<GameId> = ids.collect();
        let mut games = MatchGames {
            boards: Vec::with_capacity(ids.len()),
            table: PointTable::CLASSIC,
            tie_break: None,
        };
        let mut systems = Vec::new();
        for (game, now) in self.load_current_many(&ids).await?.into_iter().flatten() {
            let game = if public {
                self.public_game(Arc::unwrap_or_clone(game), now).await?.0
            } else {
                Arc::unwrap_or_clone(game)
            };
            let (record, system) = super::queries::standing_record(&game);
            if game.pairing().tie_break {
                games.tie_break = Some(record);
            } else {
                games.boards.push(record);
                systems.push(system);
            }
        }
        games.table = trf::point_system(systems).unwrap_or(PointTable::CLASSIC);
        Ok(games)
    }

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
            let stored = codec::encode_teams(&next, version + 1)?;
            // Any change while the event has no round; once it has one,
            // only a registration that grows (both checked as it is
            // written, against the rounds as they are then).
            let mut written = self
                .store
                .put_teams(event_id, version, &stored, true)
                .await?;
            if written == TeamsWrite::RoundsExist {
                if let Some((registered, _)) = current.as_ref() {
                    next.check_amends(registered)
                        .map_err(ArbiterError::TeamsRefused)?;
                }
                written = self
                    .store
                    .put_teams(event_id, version, &stored, false)
                    .await?;
            }
            if written == TeamsWrite::Written {
                tracing::info!(event_id = %event_id, version = version + 1, teams = next.teams().len(), "teams registered");
                return Ok((next, version + 1));
            }
            // Another registration came first: decide again on what
            // stands now.
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
                &event.tie_breaks,
                &event.bye_points(),
            ),
            None => team_matches(&event.records).map_err(ArbiterError::TeamPairing)?,
        };
        let rows = team_standings(
            teams.teams.len(),
            &teams.matches,
            &teams.byes,
            table,
            primary,
            order,
        );
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
