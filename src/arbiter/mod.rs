//! The application service: the straight line from a command to a commit.
//!
//! Every command loads the game together with "now" (one read of the shared
//! clock), lets the domain decide, and commits the decision with the
//! store's compare-and-set. When another writer got there first it starts
//! over from the fresh state, so concurrent requests on one game serialise
//! without locks, whatever the number of replicas.
//!
//! - `commands`: creating games, the seats' actions and the arbiter's;
//!   `rounds`: a round's games created all or nothing, started together,
//!   read back, and paired by an engine;
//!   `queries`: games, event lists, standings and exports; `teams`: an
//!   event's team standings from its games; `tie_breaks`: a drawn team
//!   match's tie-break game; `inspect`: a
//!   game as stored, for an arbiter; `sweep`: endings that time decided
//!   while nobody was looking, and archiving the logs of games that ended.
//! - `watch`: following one game's log, or every game of an event, for
//!   the watch streams, with what keeps that cheap (the hub, the shared
//!   clock and heartbeats); `watching`: the arbiter's side of it, the
//!   entry points and the three questions a watcher asks of the arbiter.
//! - `announcements`: the replica's one subscription to the store's commit
//!   announcements, for the watch hub and the sweeper's deadline alarm.
//! - `analysis`: dead-position analysis, within a time budget on a move's
//!   path and exhaustively in the background.
//! - `audience`: who reads a game live and who as the public, under its
//!   broadcast delay.
//! - `audit`: an event's audit log, every administrative act on its
//!   games with who did it and why.
//! - `fair_play`: a game's fair-play record: the signals its players'
//!   clients send, and its export for review.
//! - `credentials`: the named credentials the platform creates, lists and
//!   revokes, and the check of a presented one.
//! - `codec`: games and events to and from the store's records; `recent`:
//!   the states this replica read or committed last, not decoded again
//!   while the store holds the same bytes; `seats`: the seat tokens;
//!   `error`: why a request fails.

mod analysis;
mod announcements;
mod audience;
mod audit;
mod codec;
mod commands;
mod credentials;
mod error;
mod fair_play;
mod inspect;
mod queries;
mod recent;
mod rounds;
mod seats;
mod sweep;
mod teams;
mod tie_breaks;
mod watch;
mod watching;

use std::{sync::Arc, time::Duration};

pub use self::analysis::AnalysisConfig;
pub use self::announcements::Alarm;
pub use self::audience::{Placement, Reader};
pub use self::audit::{AuditEntry, AuditFilter, AuditPage};
pub use self::credentials::{CredentialPage, NewCredential};
pub use self::error::{ArbiterError, CredentialRefusal, GameContext};
pub use self::fair_play::{FairPlayExport, SignalRecorded};
pub use self::inspect::Inspection;
pub use self::queries::{
    BroadcastGame, ListCursor, ListFilter, MAX_CONCURRENT_EVENT_READS, MAX_STANDINGS_PAGE,
    MAX_TRF_BYTES, MovePage, StandingsPage, StandingsPageRead,
};
pub use self::rounds::{CreatedRound, RoundPage, RoundSeats, StartedRound};
pub use self::seats::{SeatKeys, SeatTokens};
pub use self::sweep::SweepPass;
pub use self::teams::{MatchScoreRead, TeamStandingsRead};
pub use self::tie_breaks::CreatedTieBreak;
pub use self::watch::{
    Encoded, EncodedWith, EventUpdate, EventWatcher, Heartbeat, InvalidResumeToken, ResumeToken,
    SharedSnapshot, WatchFrom, WatchItem, Watcher,
};
use crate::{
    domain::{
        AdjudicationNote, Decision, EventKind, Game, GameEvent, GameId, MoveRecord, Timestamp,
    },
    metrics::{ByLabel, Metrics, TerminationLabel},
    store::{Commit, CommitOutcome, Corruption, GameStore, StoreError, StoredState},
};

/// How often a command is re-decided after losing a version race before
/// the request gives up as contended.
const MAX_ATTEMPTS: usize = 8;

/// How long after its end a game's log is archived unless told otherwise.
const DEFAULT_ARCHIVE_AFTER: Duration = Duration::from_secs(60);

/// How long a round may stay in creation before an event-wide read takes
/// it for interrupted and completes it, unless told otherwise: far longer
/// than a creation takes, so that readers never redo one under way.
const DEFAULT_STALLED_ROUND_AFTER: Duration = Duration::from_secs(10);

/// A game as clients read it: its state and, in a full view, its moves.
#[derive(Clone, Debug)]
pub struct GameView {
    /// The game's state.
    pub game: Game,
    /// Its moves, in order; empty unless the full view was asked for.
    pub moves: Vec<MoveRecord>,
    /// The server time the view describes (clocks are shown as of then).
    pub as_of: Timestamp,
}

/// What a command did: the game as it now stands and the events the
/// command produced (none when it was a repeat of one already applied).
#[derive(Clone, Debug)]
pub struct Applied<T = ()> {
    /// The game after the command (shared with the replica's recent
    /// states, which the next command on it reads).
    pub game: Arc<Game>,
    /// The events committed, in order.
    pub events: Vec<GameEvent>,
    /// The server time of the command (clocks are shown as of then).
    pub as_of: Timestamp,
    /// What else the ruling says (e.g. a claim's verdict).
    pub outcome: T,
}

/// A newly created (or re-found) game and its seat tokens.
#[derive(Clone, Debug)]
pub struct CreatedGame {
    /// The game.
    pub game: Game,
    /// The server time of the creation (or of the re-read).
    pub as_of: Timestamp,
    /// The secret tokens of both seats.
    pub tokens: SeatTokens,
}

/// Whether time has ended `game` by `now`, and how (see
/// [`Game::check_time`]). When a flag or a default time is due, deciding
/// the ending may take a full helpmate search, which runs on a blocking
/// thread rather than on the async workers that serve every request.
async fn time_ending(
    game: &Game,
    now: Timestamp,
) -> Result<Option<(Decision, Option<AdjudicationNote>)>, ArbiterError> {
    if game.deadline().is_none_or(|due| due > now) {
        return Ok(game.check_time(now));
    }
    let game = game.clone();
    match tokio::task::spawn_blocking(move || game.check_time(now)).await {
        Ok(ending) => Ok(ending),
        // A panic in the rules stays a panic, as if it had run here.
        Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
        Err(_) => Err(ArbiterError::ShuttingDown),
    }
}

/// The arbiter: holds the store and the seat keys.
#[derive(Clone)]
pub struct Arbiter {
    store: Arc<dyn GameStore>,
    seats: SeatKeys,
    set_aside: sweep::SetAside,
    /// The replica's subscription to commit announcements.
    announcements: announcements::Announcements,
    /// The sweeper's wake-up on an announced deadline.
    deadline_alarm: announcements::DeadlineAlarm,
    hub: watch::WatchHub,
    /// The store's time for watchers.
    clock: watch::SharedClock,
    heartbeats: watch::Heartbeats,
    /// The reads of watchers starting together, shared.
    joins: watch::Joins,
    /// The states read or committed last, decoded.
    recent: recent::RecentStates,
    /// How long after its end a game's log is archived.
    archive_after: Duration,
    /// How long a round stays in creation before event-wide reads complete
    /// it.
    stalled_round_after: Duration,
    /// What the arbiter records for the metrics port.
    metrics: Arc<Metrics>,
    /// Dead-position analysis off the async workers.
    analyst: analysis::Analyst,
    /// The public views of delayed games this replica rebuilt last.
    public_replays: audience::PublicReplays,
    /// Games' broadcast delays, as this replica read them.
    known_placements: audience::KnownPlacements,
    match_scores: teams::MatchScores,
    /// Places for reads of a whole event (standings, TRF), which bound
    /// the memory they hold together.
    event_reads: Arc<tokio::sync::Semaphore>,
    /// How many games an event may list.
    max_event_games: usize,
    /// How many moves a page of full games holds (unless its one game has
    /// more).
    max_page_moves: usize,
}

/// Who committed an ending that time decided: the sweeper, or a request
/// that found the flag down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SettledBy {
    Sweeper,
    Request,
}

impl Arbiter {
    /// An arbiter over `store`, issuing seat tokens from `seats`.
    pub fn new(store: Arc<dyn GameStore>, seats: SeatKeys) -> Self {
        let metrics = Metrics::new();
        let announcements = announcements::Announcements::new(store.clone());
        Self {
            hub: watch::WatchHub::new(
                watch::StoreReads::new(store.clone()),
                &announcements,
                watch::WATCHER_BUFFER,
            ),
            deadline_alarm: announcements::DeadlineAlarm::new(&announcements),
            announcements,
            clock: watch::SharedClock::new(store.clone()),
            store,
            seats,
            set_aside: sweep::SetAside::default(),
            heartbeats: watch::Heartbeats::default(),
            joins: watch::Joins::default(),
            recent: recent::RecentStates::default(),
            archive_after: DEFAULT_ARCHIVE_AFTER,
            stalled_round_after: DEFAULT_STALLED_ROUND_AFTER,
            analyst: analysis::Analyst::new(AnalysisConfig::default(), metrics.clone()),
            public_replays: audience::PublicReplays::default(),
            known_placements: audience::KnownPlacements::default(),
            match_scores: teams::MatchScores::default(),
            event_reads: Arc::new(tokio::sync::Semaphore::new(
                queries::MAX_CONCURRENT_EVENT_READS,
            )),
            max_event_games: crate::domain::Pairing::MAX_EVENT_GAMES,
            max_page_moves: queries::MAX_PAGE_MOVES,
            metrics,
        }
    }

    /// The same arbiter, recording into `metrics` (shared with the api layer
    /// and the store).
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> Self {
        self.analyst = analysis::Analyst::new(self.analyst.config(), metrics.clone());
        self.metrics = metrics;
        self
    }

    /// The same arbiter, whose subscription to commit announcements runs
    /// on `runtime` (a thread of its own in the server), not on the
    /// runtime that first needs it.
    pub fn with_announcements_on(self, runtime: tokio::runtime::Handle) -> Self {
        self.announcements.run_on(runtime);
        self
    }

    /// The same arbiter, letting an event list at most `max` games (never
    /// more than [`crate::domain::Pairing::MAX_EVENT_GAMES`]).
    pub fn with_max_event_games(mut self, max: usize) -> Self {
        self.max_event_games = max.min(crate::domain::Pairing::MAX_EVENT_GAMES);
        self
    }

    /// The same arbiter, holding at most `max` moves in a page of full
    /// games: tests reach the bound with short games.
    #[cfg(test)]
    fn with_max_page_moves(mut self, max: usize) -> Self {
        self.max_page_moves = max;
        self
    }

    /// The same arbiter, analysing dead positions as `config` says.
    pub fn with_analysis(mut self, config: AnalysisConfig) -> Self {
        self.analyst = analysis::Analyst::new(config, self.metrics.clone());
        self
    }

    /// The metrics the arbiter records into.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// The same arbiter, archiving a game's log `after` its end (a minute
    /// by default).
    pub fn with_archive_after(mut self, after: Duration) -> Self {
        self.archive_after = after;
        self
    }

    /// The same arbiter, taking a round still in creation `after` its
    /// record was written for interrupted (10 s by default): event-wide
    /// reads then complete it.
    pub fn with_stalled_round_after(mut self, after: Duration) -> Self {
        self.stalled_round_after = after;
        self
    }

    /// When the sweeper next needs `game`: its flag or default time while
    /// it is in progress; once it is over, when its log is to be archived.
    fn sweeper_deadline(&self, game: &Game) -> Option<Timestamp> {
        game.deadline().or_else(|| {
            let after = u64::try_from(self.archive_after.as_millis()).unwrap_or(u64::MAX);
            game.is_over().then(|| game.updated_at().plus_millis(after))
        })
    }

    /// The same arbiter, whose watchers may fall `events` behind their
    /// game before they are ended (256 by default).
    pub fn with_watch_buffer(mut self, events: usize) -> Self {
        self.hub = watch::WatchHub::new(
            watch::StoreReads::new(self.store.clone()),
            &self.announcements,
            events,
        );
        self
    }

    /// Loads a game as it stands now: when time has decided it (a flag or
    /// a default time), that ending is committed first.
    async fn load_current(&self, id: &GameId) -> Result<(Arc<Game>, Timestamp), ArbiterError> {
        self.load_current_by(id, SettledBy::Request).await
    }

    /// [`Arbiter::load_current`], saying who commits an ending time
    /// decided.
    async fn load_current_by(
        &self,
        id: &GameId,
        by: SettledBy,
    ) -> Result<(Arc<Game>, Timestamp), ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = self.load(id).await?;
            if let Some(settled) = self.settle(game, now, by).await? {
                return Ok((settled, now));
            }
        }
        Err(ArbiterError::Contention)
    }

    /// `game` as it stands at `now`: itself, or, when time has decided it,
    /// the game with that ending committed; `None` when another writer
    /// changed it first (read it again).
    async fn settle(
        &self,
        game: Arc<Game>,
        now: Timestamp,
        by: SettledBy,
    ) -> Result<Option<Arc<Game>>, ArbiterError> {
        let Some((decision, note)) = time_ending(&game, now).await? else {
            return Ok(Some(game));
        };
        let id = game.id().clone();
        if let Some(note) = note {
            tracing::warn!(game_id = %id, "{note}");
        }
        let Some((next, _)) = self.commit(game, decision).await? else {
            return Ok(None);
        };
        tracing::info!(game_id = %id, result = ?next.result(), "game ended on time");
        let by = match by {
            SettledBy::Sweeper => "sweeper",
            SettledBy::Request => "request",
        };
        self.metrics
            .time_endings
            .get_or_create(&ByLabel { by })
            .inc();
        Ok(Some(next))
    }

    /// Several games as they stand now, read in one round trip (`None` for
    /// a game that does not exist); a game whose time has run out is
    /// settled first, as [`Arbiter::load_current`] does.
    async fn load_current_many(
        &self,
        ids: &[GameId],
    ) -> Result<Vec<Option<(Arc<Game>, Timestamp)>>, ArbiterError> {
        let (states, now) = self.store.load_many(ids).await?;
        let mut games = Vec::with_capacity(ids.len());
        for (id, state) in ids.iter().zip(states) {
            let Some(state) = state else {
                games.push(None);
                continue;
            };
            let game = self.decode(id, state)?;
            match self.settle(game, now, SettledBy::Request).await? {
                Some(settled) => games.push(Some((settled, now))),
                // Changed meanwhile: read it again on its own.
                None => match self.load_current(id).await {
                    Ok(settled) => games.push(Some(settled)),
                    Err(ArbiterError::NotFound(_)) => games.push(None),
                    Err(err) => return Err(err),
                },
            }
        }
        Ok(games)
    }

    /// Commits a decision taken on `game`, with the game's next deadline for
    /// the sweeper in the same atomic write. Returns the game as it now
    /// stands with the events committed, or `None` when a concurrent commit
    /// won and the command must be decided again on the fresh state.
    async fn commit(
        &self,
        game: Arc<Game>,
        decision: Decision,
    ) -> Result<Option<(Arc<Game>, Vec<GameEvent>)>, ArbiterError> {
        let Decision::Changed { game: next, events } = decision else {
            // A repeat of a command already applied: acknowledged only once
            // the store holds it as safely as its own commit would have.
            self.store.confirm_durable(game.id()).await?;
            return Ok(Some((game, Vec::new())));
        };
        let (state, setup) = {
            // The setup's bytes, the same in every version, taken from the
            // last state this replica wrote of the game.
            let earlier = self.recent.remembered(game.id());
            codec::encode_state_after(
                &next,
                earlier.as_deref().and_then(recent::Remembered::setup),
            )?
        };
        let bytes = state.bytes.clone();
        let commit = Commit {
            expected: game.version(),
            state,
            events: events
                .iter()
                .map(|event| codec::encode_event_of(event, &next))
                .collect::<Result<Vec<_>, _>>()?,
            deadline: self.sweeper_deadline(&next),
            event: next.pairing().event_id.clone(),
            audited: codec::audited(&events),
        };
        match self.store.commit(game.id(), commit).await? {
            CommitOutcome::Committed => {
                self.record(&events);
                // A game's equality takes positions as FIDE compares them
                // (move counters aside): the FEN compares the rest.
                debug_assert_eq!(
                    codec::decode_state(&StoredState {
                        version: next.version(),
                        bytes: bytes.clone(),
                    })
                    .ok()
                    .map(|decoded| (decoded.fen(), decoded)),
                    Some((next.fen(), (*next).clone())),
                    "a committed state decodes to the game it was encoded from"
                );
                let next = Arc::new(*next);
                self.recent.remember(&next, bytes, setup);
                Ok(Some((next, events)))
            }
            CommitOutcome::Conflict { current } => {
                self.metrics.conflicts.inc();
                tracing::debug!(
                    game_id = %game.id(),
                    expected = game.version(),
                    current,
                    "lost a version race; deciding again"
                );
                Ok(None)
            }
        }
    }

    /// Counts what committed events did, for the metrics port.
    fn record(&self, events: &[GameEvent]) {
        for event in events {
            match &event.kind {
                EventKind::GameCreated { .. } => self.metrics.games_created.inc(),
                EventKind::MoveMade { .. } => self.metrics.moves.inc(),
                EventKind::GameEnded { result, review, .. } => {
                    if review.is_some() {
                        self.metrics.awaiting_review.inc();
                    }
                    let termination = serde_json::to_value(result.termination)
                        .ok()
                        .and_then(|name| name.as_str().map(str::to_owned))
                        .unwrap_or_default();
                    self.metrics
                        .games_ended
                        .get_or_create(&TerminationLabel { termination })
                        .inc()
                }
                EventKind::GameAborted { .. } => self
                    .metrics
                    .games_ended
                    .get_or_create(&TerminationLabel {
                        termination: "aborted".to_owned(),
                    })
                    .inc(),
                EventKind::ResultSet { .. } => self.metrics.rulings.inc(),
                _ => 0,
            };
        }
    }

    /// A game's state and "now", read together.
    async fn load(&self, id: &GameId) -> Result<(Arc<Game>, Timestamp), ArbiterError> {
        let (state, now) = self.store.load(id).await?;
        let state = state.ok_or_else(|| ArbiterError::NotFound(id.clone()))?;
        Ok((self.decode(id, state)?, now))
    }

    /// The game `state` (read for `id`) holds: the one remembered for
    /// exactly these bytes, or decoded (and then remembered).
    fn decode(&self, id: &GameId, state: StoredState) -> Result<Arc<Game>, StoreError> {
        if let Some(game) = self.recent.get(id, &state) {
            return Ok(game);
        }
        let game = Arc::new(codec::decode_state(&state)?);
        self.recent.remember(&game, state.bytes, None);
        Ok(game)
    }

    /// The game's events with a version above `after`.
    async fn events_after(&self, id: &GameId, after: u64) -> Result<Vec<GameEvent>, ArbiterError> {
        let stored = self.store.events_after(id, after).await?;
        Ok(codec::decode_log(id, after, usize::MAX, &stored)?)
    }

    /// The first `ply` moves of a game, from its event log: a full read,
    /// for the views that ask for the whole game.
    async fn moves(&self, game: &Game) -> Result<Vec<MoveRecord>, ArbiterError> {
        let events = self.events_after(game.id(), 0).await?;
        // The log may already hold moves committed after the state we were
        // given; those are not part of this view.
        let moves: Vec<MoveRecord> = events
            .iter()
            .filter_map(GameEvent::move_record)
            .filter(|record| record.ply < game.ply())
            .cloned()
            .collect();
        if moves.len() != game.ply().count() as usize {
            return Err(ArbiterError::Store(StoreError::Corrupt(
                Corruption::MovesMissing {
                    game: game.id().clone(),
                    ply: game.ply(),
                    moves: moves.len(),
                },
            )));
        }
        Ok(moves)
    }

    /// The game as clients read it, with its moves when `full`.
    async fn view(
        &self,
        game: Game,
        as_of: Timestamp,
        full: bool,
    ) -> Result<GameView, ArbiterError> {
        let moves = if full {
            self.moves(&game).await?
        } else {
            Vec::new()
        };
        Ok(GameView { game, moves, as_of })
    }
}

#[cfg(test)]
mod tests;
