//! Rounds: creating a round's games all or nothing, starting them
//! together, reading them back, and the pairing engine's loop.
//!
//! A round is created in three steps, each safe to repeat and to run on
//! any replica:
//! 1. the plan is checked whole (every board, against the games the event
//!    already has in the round) and refused whole;
//! 2. the round is opened: its record (version 1) written, every board's
//!    game listed in the event and the round marked in creation, in one
//!    atomic step that refuses a round the event already has games in, or
//!    cannot list: from then on the round exists, every board with its
//!    game's identifier and setup;
//! 3. each board's game is created from the record (committed at version
//!    0 to 1, as `CreateGame` does), the record is marked complete, and
//!    the round created.
//!
//! A request interrupted after step 2 leaves a record that is not
//! complete; the next request that reads the round (a repeat of the
//! creation, `GetRound`, `StartRound`) runs step 3 again. The games'
//! identifiers and tokens follow from the record, so whichever replica
//! completes it creates the same games.

use std::{collections::HashSet, sync::Arc};

use futures::{StreamExt, stream};

use super::{Arbiter, ArbiterError, MAX_ATTEMPTS, SeatTokens, analysis::FastVerdict, codec};
use crate::{
    domain::{
        Bye, EventId, ExistingGame, Game, GameId, GameStatus, NewGame, Pairing, PlannedBoard,
        Player, Round, RoundRequest, RoundSummary, Timestamp,
    },
    store::{Commit, CommitOutcome, EventPosition, RoundOpening},
};

/// How many of a round's games are created (or started) at once: enough
/// to keep the store busy, few enough to leave it to other requests.
const CONCURRENT_GAMES: usize = 32;

/// The most games made outside a round that a refusal of the round
/// names (one more is read, to say there are more).
const EXISTING_SHOWN: usize = 20;

/// The most rounds an event-wide read takes the byes and ranks of.
const MAX_EVENT_ROUNDS: usize = Pairing::MAX_ROUND as usize;

/// A round's game and its seats' tokens.
#[derive(Clone, Debug)]
pub struct RoundSeats {
    /// The board, its game and players.
    pub board: PlannedBoard,
    /// The tokens.
    pub tokens: SeatTokens,
}

/// A round created (or found created), with its games' tokens.
#[derive(Clone, Debug)]
pub struct CreatedRound {
    /// The round.
    pub round: Round,
    /// Its games, in the request's order.
    pub games: Vec<RoundSeats>,
}

/// What a round's start did.
#[derive(Clone, Debug)]
pub struct StartedRound {
    /// The round.
    pub round: Round,
    /// Games this start started.
    pub started: usize,
    /// Games that had started already.
    pub already_started: usize,
    /// Games already over.
    pub finished: usize,
}

/// A round's boards as they stand.
#[derive(Clone, Debug)]
pub struct RoundPage {
    /// The round.
    pub round: Round,
    /// A page of its boards, in board order, each with its game (`None`
    /// should the store have lost it).
    pub boards: Vec<(PlannedBoard, Option<Game>)>,
    /// Where the next page starts, if there are more boards.
    pub next: Option<usize>,
    /// The time the games are shown as of.
    pub as_of: Timestamp,
}

impl Arbiter {
    /// The round's record and its version, if it has one.
    async fn read_round(
        &self,
        event_id: &EventId,
        number: u32,
    ) -> Result<Option<(Round, u64)>, ArbiterError> {
        let Some(found) = self.store.round(event_id, number).await? else {
            return Ok(None);
        };
        Ok(Some((codec::decode_round(&found)?, found.version)))
    }

    /// Games the event already lists in round `number` (made by
    /// `CreateGame`), at most [`EXISTING_SHOWN`] of them and one more to
    /// say there are more: one read of the list from the round on, one of
    /// the games (a listing whose game does not exist, or belongs
    /// elsewhere, left out).
    /// Also returns the listings in the round whose games do not exist or
    /// belong elsewhere (left by a refused or interrupted `CreateGame`),
    /// which do not take a board.
    async fn games_listed_in_round(
        &self,
        event_id: &EventId,
        number: u32,
    ) -> Result<(Vec<ExistingGame>, Vec<EventPosition>), ArbiterError> {
        // The last place a list entry of an earlier round can have: game
        // ids are at most 64 characters, none above `z`.
        let before = EventPosition {
            round: number.saturating_sub(1),
            board: u32::MAX,
            game: GameId::parse(&"z".repeat(GameId::MAX_LEN))
                .map_err(ArbiterError::invalid_field)?,
        };
        let listed: Vec<EventPosition> = self
            .store
            .event_games(event_id, Some(&before), EXISTING_SHOWN + 1)
            .await?
            .into_iter()
            .filter(|entry| entry.round == number)
            .collect();
        let ids: Vec<GameId> = listed.iter().map(|e| e.game.clone()).collect();
        let mut found = Vec::new();
        let mut strays = Vec::new();
        for (entry, loaded) in listed.iter().zip(self.load_current_many(&ids).await?) {
            match loaded {
                Some((game, _))
                    if super::queries::listed_where_it_belongs(&game, event_id, entry) =>
                {
                    found.push(ExistingGame {
                        game: game.id().clone(),
                        board: entry.board,
                        white: game.white().id.clone(),
                        black: game.black().id.clone(),
                    });
                }
                _ => strays.push(entry.clone()),
            }
        }
        Ok((found, strays))
    }

    /// Creates a round all or nothing (see the module's documentation):
    /// refused whole, every offence named, when anything in it is wrong;
    /// a repeat of the same plan returns the same games and tokens.
    pub async fn create_round(
        &self,
        request: RoundRequest,
        by: &str,
    ) -> Result<CreatedRound, ArbiterError> {
        let event_id = request.event.clone();
        let number = request.number;
        let request_id = request.request_id.clone();
        for _ in 0..MAX_ATTEMPTS {
            let now = self.store.now().await?;
            let existing = self.read_round(&event_id, number).await?;
            let (listed, strays) = match &existing {
                // Its own games are listed; the plan is compared below.
                Some(_) => (Vec::new(), Vec::new()),
                None => self.games_listed_in_round(&event_id, number).await?,
            };
            // A round of matches is lined up against the registration it
            // opens under (checked again when it opens).
            let teams = if request.matches.is_empty() && request.team_byes.is_empty() {
                None
            } else {
                self.read_teams(&event_id).await?
            };
            let teams_version = teams.as_ref().map(|(_, version)| *version);
            let lined_up = request
                .clone()
                .lined_up(teams.as_ref().map(|(registration, _)| registration));
            let plan = Round::plan(lined_up, &listed, now).map_err(ArbiterError::RoundRefused)?;
            let plan = plan.planned_by(by);
            if let Some((round, version)) = existing {
                if !round.same_plan(&plan) {
                    if request_id.is_some() && round.request_id() == request_id.as_deref() {
                        return Err(ArbiterError::RequestIdReused {
                            what: "round",
                            request_id: request_id.unwrap_or_default(),
                        });
                    }
                    return Err(ArbiterError::RoundExists { event_id, number });
                }
                return self.complete_round(round, version).await;
            }
            self.check_round_starts(&plan).await?;
            let opening = self
                .store
                .open_round(
                    &event_id,
                    number,
                    &codec::encode_round(&plan, 1)?,
                    &plan
                        .boards()
                        .iter()
                        .map(|board| EventPosition {
                            round: number,
                            board: board.board,
                            game: board.game.clone(),
                        })
                        .collect::<Vec<_>>(),
                    self.max_event_games,
                    &strays,
                    teams_version,
                )
                .await?;
            match opening {
                RoundOpening::Opened => {
                    tracing::info!(event_id = %event_id, round = number, boards = plan.boards().len(), "round planned");
                    return self.complete_round(plan, 1).await;
                }
                RoundOpening::EventFull => {
                    return Err(ArbiterError::EventFull {
                        event_id,
                        max_games: self.max_event_games,
                    });
                }
                // A game made beside the round was listed meanwhile: the
                // next attempt finds it and refuses the board; or another
                // request recorded the round first: decide again on its
                // record; or the teams changed since they were read: line
                // the matches up again.
                RoundOpening::RoundHasGames | RoundOpening::Exists | RoundOpening::TeamsChanged => {
                }
            }
        }
        Err(ArbiterError::Contention)
    }

    /// Refuses a plan whose starting position an analysis proves dead
    /// (FIDE 5.2.2), as `CreateGame` does: one analysis per distinct start.
    async fn check_round_starts(&self, round: &Round) -> Result<(), ArbiterError> {
        let mut seen = Vec::new();
        for board in round.boards() {
            let setup = round.setup(board).ok_or_else(|| round_corrupt(round))?;
            let fen = setup.initial_fen();
            if seen.contains(&fen) {
                continue;
            }
            let probe = Game::create(
                board.game.clone(),
                setup.clone(),
                self.seats.issue(&board.game).hashes(),
                round.created_at(),
            )
            .0;
            if let FastVerdict::Dead(_) = self.analyse_start(&probe).await {
                return Err(setup.dead_start().into());
            }
            seen.push(fen);
        }
        Ok(())
    }

    /// Creates every game of a recorded round that does not exist yet,
    /// then marks the record complete (step 3 of the module's
    /// documentation): the same games and tokens whoever runs it.
    async fn complete_round(
        &self,
        round: Round,
        version: u64,
    ) -> Result<CreatedRound, ArbiterError> {
        // Every board is tried, even after one fails: what is created
        // stays created, and the next attempt has less to do.
        // One "now" for the request: every game is created as of it.
        let now = self.store.now().await?;
        let attempts: Vec<Result<RoundSeats, ArbiterError>> =
            stream::iter(round.boards().iter().cloned())
                .map(|board| {
                    let round = &round;
                    async move { self.create_round_game(round, board, now).await }
                })
                .buffered(CONCURRENT_GAMES)
                .collect()
                .await;
        let games = attempts.into_iter().collect::<Result<Vec<_>, _>>()?;
        // Every game exists: the event's lists may show the round. Marked
        // before the record, so that a record found complete never leaves
        // the round hidden (a repeat marks it again).
        self.store
            .round_created(round.event(), round.number())
            .await?;
        if round.is_complete() {
            return Ok(CreatedRound { round, games });
        }
        let completed = round.clone().completed();
        let (event_id, number) = (round.event().clone(), round.number());
        let round = if self
            .store
            .put_round(
                &event_id,
                number,
                version,
                &codec::encode_round(&completed, version + 1)?,
            )
            .await?
        {
            completed
        } else {
            // Another replica completed (or started) it meanwhile.
            self.read_round(&event_id, number)
                .await?
                .map_or(completed, |(round, _)| round)
        };
        Ok(CreatedRound { round, games })
    }

    /// Creates one board's game from the round's record, unless it exists.
    async fn create_round_game(
        &self,
        round: &Round,
        board: PlannedBoard,
        now: Timestamp,
    ) -> Result<RoundSeats, ArbiterError> {
        let setup = round.setup(&board).ok_or_else(|| round_corrupt(round))?;
        let tokens = if round.is_complete() {
            self.existing_tokens(&board.game).await?
        } else {
            self.create_listed_game(
                &board.game,
                setup,
                round.created_by(),
                round.request_id(),
                now,
            )
            .await?
        };
        Ok(RoundSeats { board, tokens })
    }

    /// Creates game `id`, already listed in its event, from `setup` as of
    /// `now` for `by` (and request `request_id`), unless it exists: its
    /// seats' tokens either way.
    pub(super) async fn create_listed_game(
        &self,
        id: &GameId,
        setup: NewGame,
        by: Option<&str>,
        request_id: Option<&str>,
        now: Timestamp,
    ) -> Result<SeatTokens, ArbiterError> {
        let tokens = self.seats.issue(id);
        let (game, created) = Game::create(id.clone(), setup, tokens.hashes(), now);
        let created = match by {
            Some(by) => created.created_by(by),
            None => created,
        }
        .requested_by(request_id);
        let commit = Commit {
            expected: 0,
            state: codec::encode_state(&game)?,
            events: vec![codec::encode_event(&created)?],
            deadline: game.deadline(),
            event: game.pairing().event_id.clone(),
            audited: vec![created.version],
        };
        match self.store.commit(id, commit).await? {
            CommitOutcome::Committed => {
                self.record(std::slice::from_ref(&created));
                Ok(tokens)
            }
            CommitOutcome::Conflict { .. } => self.existing_tokens(id).await,
        }
    }

    /// The tokens of game `id`, created before (by an earlier attempt on
    /// its record): the ones it was created with.
    async fn existing_tokens(&self, id: &GameId) -> Result<SeatTokens, ArbiterError> {
        let tokens = self.seats.issue(id);
        let (existing, _) = self.load_current(id).await?;
        if existing.seats() != tokens.hashes() {
            return Err(ArbiterError::TokensNotReissuable {
                game_id: id.clone(),
            });
        }
        Ok(tokens)
    }

    /// The round, completed first if its creation was interrupted.
    pub(super) async fn completed_round(
        &self,
        event_id: &EventId,
        number: u32,
    ) -> Result<(Round, u64), ArbiterError> {
        let (round, version) = self.read_round(event_id, number).await?.ok_or_else(|| {
            ArbiterError::RoundNotFound {
                event_id: event_id.clone(),
                number,
            }
        })?;
        if round.is_complete() {
            return Ok((round, version));
        }
        let created = self.complete_round(round, version).await?;
        let version = self
            .store
            .round(event_id, number)
            .await?
            .map_or(version + 1, |stored| stored.version);
        Ok((created.round, version))
    }

    /// Starts every game of the round for `by` at one instant: the round's
    /// start is recorded first (its first start stands, whichever replica
    /// recorded it), then every game is started at that instant (one
    /// commit per game; a game already started or over is left as it is),
    /// so a repeat, or a start interrupted half-way and sent again, starts
    /// the rest at the same instant.
    pub async fn start_round(
        &self,
        event_id: &EventId,
        number: u32,
        by: &str,
    ) -> Result<StartedRound, ArbiterError> {
        let (mut round, mut version) = self.completed_round(event_id, number).await?;
        let mut attempts = 0;
        let start = loop {
            if let Some(start) = round.started() {
                break start.clone();
            }
            attempts += 1;
            if attempts > MAX_ATTEMPTS {
                return Err(ArbiterError::Contention);
            }
            let at = self.store.now().await?;
            let next = round.clone().started_by(by, at);
            if self
                .store
                .put_round(
                    event_id,
                    number,
                    version,
                    &codec::encode_round(&next, version + 1)?,
                )
                .await?
            {
                tracing::info!(event_id = %event_id, round = number, by, "round started");
                round = next;
                continue;
            }
            (round, version) = self.read_round(event_id, number).await?.ok_or_else(|| {
                ArbiterError::RoundNotFound {
                    event_id: event_id.clone(),
                    number,
                }
            })?;
        };
        // Every game is tried, even after one fails.
        let outcomes: Vec<Result<GameStatus, ArbiterError>> =
            stream::iter(round.boards().iter().cloned())
                .map(|board| {
                    let by = start.by.as_str();
                    async move { self.start_round_game(&board.game, by, start.at).await }
                })
                .buffered(CONCURRENT_GAMES)
                .collect()
                .await;
        let mut started = StartedRound {
            round,
            started: 0,
            already_started: 0,
            finished: 0,
        };
        for outcome in outcomes {
            match outcome? {
                GameStatus::Pending => started.started += 1,
                GameStatus::Active => started.already_started += 1,
                GameStatus::Finished | GameStatus::Aborted => started.finished += 1,
            }
        }
        Ok(started)
    }

    /// Starts one game at `at`: `Pending` when this call started it,
    /// `Active` when it had started, `Finished` or `Aborted` when it is
    /// over.
    async fn start_round_game(
        &self,
        id: &GameId,
        by: &str,
        at: Timestamp,
    ) -> Result<GameStatus, ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let (game, _) = self.load_current(id).await?;
            if game.is_over() {
                return Ok(game.status());
            }
            let decision = game
                .start(by, at)
                .map_err(|rejection| ArbiterError::refused(rejection, &game))?;
            match self.commit(game, decision).await? {
                Some((_, events)) if events.is_empty() => return Ok(GameStatus::Active),
                Some(_) => return Ok(GameStatus::Pending),
                None => {}
            }
        }
        Err(ArbiterError::Contention)
    }

    /// A page of the round's boards in board order, from the `offset`-th,
    /// at most `size`, each game as it stands: one read of the round and
    /// one of the page's games.
    pub async fn get_round(
        &self,
        event_id: &EventId,
        number: u32,
        offset: usize,
        size: usize,
    ) -> Result<RoundPage, ArbiterError> {
        let (round, _) = self.completed_round(event_id, number).await?;
        let mut boards: Vec<&PlannedBoard> = round.boards().iter().collect();
        boards.sort_by_key(|b| b.board);
        let page: Vec<PlannedBoard> = boards
            .iter()
            .skip(offset)
            .take(size)
            .map(|b| (*b).clone())
            .collect();
        let next = (offset.saturating_add(page.len()) < boards.len())
            .then(|| offset.saturating_add(page.len()));
        let ids: Vec<GameId> = page.iter().map(|b| b.game.clone()).collect();
        let loaded = self.load_current_many(&ids).await?;
        let as_of = match loaded.iter().flatten().map(|(_, now)| *now).max() {
            Some(now) => now,
            None => self.store.now().await?,
        };
        let boards = page
            .into_iter()
            .zip(loaded)
            .map(|(board, loaded)| (board, loaded.map(|(game, _)| Arc::unwrap_or_clone(game))))
            .collect();
        Ok(RoundPage {
            round,
            boards,
            next,
            as_of,
        })
    }

    /// The byes and starting ranks every round of the event records, in
    /// round order.
    pub(super) async fn round_summaries(
        &self,
        event_id: &EventId,
    ) -> Result<Vec<RoundSummary>, ArbiterError> {
        self.store
            .round_summaries(event_id, MAX_EVENT_ROUNDS)
            .await?
            .into_iter()
            .map(|(_, bytes)| Ok(codec::decode_round_summary(&bytes)?))
            .collect()
    }

    /// Completes each round of `numbers` that is still in creation well
    /// after its record was written (an interrupted creation), as any read
    /// of that round does, so that an event-wide read can count it whole;
    /// returns those still not complete, which the read leaves out: a
    /// round younger than that (most likely still being created by its own
    /// request, which a crowd of readers must not redo), and one whose
    /// tokens were issued under another secret (`TOKENS_NOT_REISSUABLE`).
    /// A store failure fails the read.
    pub(super) async fn complete_interrupted(
        &self,
        event_id: &EventId,
        numbers: impl IntoIterator<Item = u32> + Send,
    ) -> Result<HashSet<u32>, ArbiterError> {
        let mut left = HashSet::new();
        let mut now = None;
        let stalled_after = u64::try_from(self.stalled_round_after.as_millis()).unwrap_or(u64::MAX);
        for number in numbers {
            let Some((round, version)) = self.read_round(event_id, number).await? else {
                continue;
            };
            if round.is_complete() {
                continue;
            }
            let now = match now {
                Some(now) => now,
                None => *now.insert(self.store.now().await?),
            };
            if now < round.created_at().plus_millis(stalled_after) {
                left.insert(number);
                continue;
            }
            match self.complete_round(round, version).await {
                Ok(_) => {}
                Err(err @ ArbiterError::TokensNotReissuable { .. }) => {
                    tracing::warn!(
                        event = %event_id,
                        round = number,
                        error = %err,
                        "an interrupted round cannot be completed by this replica"
                    );
                    left.insert(number);
                }
                Err(err) => return Err(err),
            }
        }
        Ok(left)
    }

    /// The rounds of the event whose games are still being created (an
    /// interrupted creation not completed yet): event-wide reads leave
    /// their games out.
    pub(super) async fn rounds_in_creation(
        &self,
        event_id: &EventId,
    ) -> Result<HashSet<u32>, ArbiterError> {
        Ok(self
            .store
            .rounds_in_creation(event_id)
            .await?
            .into_iter()
            .collect())
    }

    /// The event's starting ranks before round `before`, as ExportTrf
    /// numbered its players then: the ranks its rounds brought, then every
    /// other player by first appearance (round, board, White before
    /// Black), then byes. Only earlier rounds count, so that pairings of
    /// round `before` read the same whether or not it exists yet.
    pub async fn starting_ranks(
        &self,
        event_id: &EventId,
        before: u32,
    ) -> Result<Vec<Player>, ArbiterError> {
        let (event, _permit) = self.event_records(event_id, &super::Reader::ADMIN).await?;
        let summaries: Vec<RoundSummary> = self
            .round_summaries(event_id)
            .await?
            .into_iter()
            .filter(|s| s.number < before)
            .collect();
        let byes: Vec<Bye> = summaries.iter().flat_map(|s| s.byes()).collect();
        let roster: Vec<Player> = summaries.iter().flat_map(|s| s.roster.clone()).collect();
        Ok(crate::domain::tournament::trf::starting_ranks(
            &roster,
            event.records.iter().filter(|g| g.round < before),
            &byes,
        ))
    }
}

/// The error of a round record that names settings it does not hold.
fn round_corrupt(round: &Round) -> ArbiterError {
    ArbiterError::Store(codec::corrupt(
        crate::domain::stored::encoding::DecodeError::Malformed {
            what: "round",
            detail: format!(
                "round {} of event {} names a board's settings the record does not hold",
                round.number(),
                round.event()
            ),
        },
    ))
}
