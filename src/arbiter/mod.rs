//! The application service: the straight line from a command to a commit.
//!
//! Every command loads the game together with "now" (one read of the shared
//! clock), lets the domain decide, and commits the decision with the
//! store's compare-and-set. When another writer got there first it starts
//! over from the fresh state, so concurrent requests on one game serialise
//! without locks, whatever the number of replicas.

mod codec;
mod error;
mod event_watch;
mod seats;
mod watch;

use std::sync::Arc;

pub use self::error::ArbiterError;
pub use self::event_watch::{EventUpdate, EventWatcher};
pub use self::seats::{SeatKeys, SeatTokens};
pub use self::watch::{WatchItem, Watcher};
use crate::{
    domain::{
        ClaimReason, ClaimVerdict, Color, Decision, EventId, Game, GameEvent, GameId,
        GameRecordForStandings, GameStatus, MoveRecord, NewGame, Ply, Rejection, RequestId, Ruling,
        Standing, Timestamp, TokenHash, TrfGame, pgn, standings, trf,
    },
    store::{CommitOutcome, GameStore},
};

/// How often a command is re-decided after losing a version race before
/// the request gives up as contended.
const MAX_ATTEMPTS: usize = 8;

/// What standings need from each game.
fn standing_records(games: &[Game]) -> Vec<GameRecordForStandings> {
    games
        .iter()
        .map(|game| GameRecordForStandings {
            white: game.white().clone(),
            black: game.black().clone(),
            finished: game
                .result()
                .zip(game.score())
                .map(|(result, score)| (result.outcome, score)),
        })
        .collect()
}

/// A game together with its moves, as clients see it.
#[derive(Clone, Debug)]
pub struct GameView {
    /// The game's state.
    pub game: Game,
    /// Its moves, in order.
    pub moves: Vec<MoveRecord>,
    /// The server time the view describes (clocks are shown as of then).
    pub as_of: Timestamp,
}

/// A newly created (or re-found) game and its seat tokens.
#[derive(Clone, Debug)]
pub struct CreatedGame {
    /// The game.
    pub view: GameView,
    /// The secret tokens of both seats.
    pub tokens: SeatTokens,
}

/// The arbiter: holds the store and the seat keys.
#[derive(Clone)]
pub struct Arbiter {
    store: Arc<dyn GameStore>,
    seats: SeatKeys,
}

impl Arbiter {
    /// An arbiter over `store`, issuing seat tokens from `seats`.
    pub fn new(store: Arc<dyn GameStore>, seats: SeatKeys) -> Self {
        Self { store, seats }
    }

    /// Creates a game. With a `request_id`, a repeat of the same request
    /// returns the same game and tokens; a different request with the same
    /// key is refused.
    pub async fn create_game(
        &self,
        request_id: Option<RequestId>,
        new: NewGame,
    ) -> Result<CreatedGame, ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let id = match &request_id {
                Some(key) => GameId::for_request(key),
                None => GameId::random(),
            };
            let tokens = self.seats.issue(&id);
            let now = self.store.now().await?;
            let (game, created) = Game::create(id.clone(), new.clone(), tokens.hashes(), now);
            let state = codec::encode_state(&game)?;
            let event = codec::encode_event(&created)?;
            match self.store.commit(&id, 0, state, vec![event]).await? {
                CommitOutcome::Committed => {
                    tracing::info!(game_id = %id, "game created");
                    self.index(&game).await;
                    self.list_in_event(&game).await?;
                    return Ok(CreatedGame {
                        view: GameView {
                            game,
                            moves: Vec::new(),
                            as_of: now,
                        },
                        tokens,
                    });
                }
                CommitOutcome::Conflict { .. } => {
                    let Some(key) = &request_id else {
                        // A random identifier collided: draw another.
                        continue;
                    };
                    let (existing, now) = self.load_current(&id).await?;
                    if !existing.was_created_by(&new) {
                        return Err(ArbiterError::RequestIdReused {
                            request_id: key.as_str().to_owned(),
                        });
                    }
                    if existing.seats() != tokens.hashes() {
                        return Err(ArbiterError::TokensNotReissuable { game_id: id });
                    }
                    // Heals a first attempt that stopped between the commit
                    // and the listing.
                    self.list_in_event(&existing).await?;
                    return Ok(CreatedGame {
                        view: self.view(existing, now).await?,
                        tokens,
                    });
                }
            }
        }
        Err(ArbiterError::Contention)
    }

    /// Lists a game under its event, if it has one.
    async fn list_in_event(&self, game: &Game) -> Result<(), ArbiterError> {
        let pairing = game.pairing();
        if let Some(event_id) = &pairing.event_id {
            self.store
                .add_to_event(event_id, (pairing.round, pairing.board), game.id())
                .await?;
        }
        Ok(())
    }

    /// A page of an event's games in round and board order, as they stand
    /// now (without their move lists), keeping those with `status` when one
    /// is given. Returns the games and where the next page starts, if there
    /// are more.
    pub async fn list_games(
        &self,
        event_id: &EventId,
        status: Option<GameStatus>,
        offset: usize,
        page_size: usize,
    ) -> Result<(Vec<GameView>, Option<usize>), ArbiterError> {
        // A filtered page may need several batches; this bounds the work of
        // one request, returning a short page with a token to go on.
        const MAX_BATCHES: usize = 10;
        let mut games = Vec::new();
        let mut position = offset;
        for _ in 0..MAX_BATCHES {
            let ids = self
                .store
                .event_games(event_id, position, page_size)
                .await?;
            let exhausted = ids.len() < page_size;
            for id in ids {
                position += 1;
                let (game, now) = match self.load_current(&id).await {
                    Err(ArbiterError::NotFound(_)) => continue,
                    other => other?,
                };
                if status.is_none_or(|wanted| game.status() == wanted) {
                    games.push(GameView {
                        game,
                        moves: Vec::new(),
                        as_of: now,
                    });
                    if games.len() == page_size {
                        return Ok((games, Some(position)));
                    }
                }
            }
            if exhausted {
                return Ok((games, None));
            }
        }
        Ok((games, Some(position)))
    }

    /// Every game of an event as it stands now, in round and board order.
    async fn event_snapshot(&self, event_id: &EventId) -> Result<Vec<Game>, ArbiterError> {
        const BATCH: usize = 500;
        let mut games = Vec::new();
        let mut offset = 0;
        loop {
            let ids = self.store.event_games(event_id, offset, BATCH).await?;
            offset += ids.len();
            let exhausted = ids.len() < BATCH;
            for id in &ids {
                match self.load_current(id).await {
                    Ok((game, _)) => games.push(game),
                    Err(ArbiterError::NotFound(_)) => {}
                    Err(err) => return Err(err),
                }
            }
            if exhausted {
                return Ok(games);
            }
        }
    }

    /// The event's standings, derived from the committed results of all its
    /// games (so each finished game counts exactly once), and how many
    /// finished games they count.
    pub async fn standings(
        &self,
        event_id: &EventId,
    ) -> Result<(Vec<Standing>, usize), ArbiterError> {
        let records = standing_records(&self.event_snapshot(event_id).await?);
        let counted = records.iter().filter(|r| r.finished.is_some()).count();
        Ok((standings(&records), counted))
    }

    /// The event as a FIDE Tournament Report File.
    pub async fn export_trf(&self, event_id: &EventId) -> Result<String, ArbiterError> {
        let games = self.event_snapshot(event_id).await?;
        let rows = standings(&standing_records(&games));
        let trf_games: Vec<TrfGame> = games
            .iter()
            .map(|game| TrfGame {
                round: game.pairing().round,
                board: game.pairing().board,
                white: game.white().clone(),
                black: game.black().clone(),
                finished: game
                    .result()
                    .zip(game.score())
                    .map(|(result, score)| (result.outcome, score)),
                aborted: game.status() == GameStatus::Aborted,
            })
            .collect();
        Ok(trf::export(event_id, &trf_games, &rows))
    }

    /// A game and its moves.
    pub async fn get_game(&self, id: &GameId) -> Result<GameView, ArbiterError> {
        let (game, now) = self.load_current(id).await?;
        self.view(game, now).await
    }

    /// Plays `text` for the seat holding `token`, chosen at `ply`; with
    /// `offer_draw` the seat offers a draw after the move.
    pub async fn make_move(
        &self,
        id: &GameId,
        token: &str,
        ply: Ply,
        text: &str,
        offer_draw: bool,
    ) -> Result<GameView, ArbiterError> {
        let hash = TokenHash::of(token);
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = self.load_current(id).await?;
            let seat = game.seat_of(&hash).ok_or(ArbiterError::NotASeat)?;
            let decision = match game.play_move(seat, ply, text, offer_draw, now) {
                Err(Rejection::StalePly { .. }) if ply < game.ply() => {
                    let history = self.moves(id, game.ply()).await?;
                    game.confirm_retry(seat, ply, text, &history)?
                }
                decided => decided?,
            };
            if let Some(next) = self.commit(game, decision).await? {
                return self.view(next, now).await;
            }
        }
        Err(ArbiterError::Contention)
    }

    /// Resigns for the seat holding `token`.
    pub async fn resign(&self, id: &GameId, token: &str) -> Result<GameView, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.resign(seat, now))
            .await
    }

    /// Offers a draw for the seat holding `token`.
    pub async fn offer_draw(&self, id: &GameId, token: &str) -> Result<GameView, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.offer_draw(seat, now))
            .await
    }

    /// Answers the opponent's draw offer for the seat holding `token`.
    pub async fn respond_to_draw_offer(
        &self,
        id: &GameId,
        token: &str,
        accept: bool,
    ) -> Result<GameView, ArbiterError> {
        self.execute(id, token, |game, seat, now| {
            game.respond_to_draw_offer(seat, accept, now)
        })
        .await
    }

    /// Rules on a draw claim by the seat holding `token`.
    pub async fn claim_draw(
        &self,
        id: &GameId,
        token: &str,
        ply: Ply,
        reason: ClaimReason,
        intended: Option<&str>,
    ) -> Result<(GameView, ClaimVerdict), ArbiterError> {
        self.execute_with(id, token, |game, seat, now| {
            game.claim_draw(seat, ply, reason, intended, now)
        })
        .await
    }

    /// Aborts the game for the seat holding `token`.
    pub async fn abort(&self, id: &GameId, token: &str) -> Result<GameView, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.abort(seat, now))
            .await
    }

    /// Runs one seat command: load, authorise, decide, commit; again from
    /// the fresh state when a concurrent commit won the race.
    async fn execute(
        &self,
        id: &GameId,
        token: &str,
        decide: impl Fn(&Game, Color, Timestamp) -> Result<Decision, Rejection>,
    ) -> Result<GameView, ArbiterError> {
        self.execute_with(id, token, |game, seat, now| {
            decide(game, seat, now).map(|decision| (decision, ()))
        })
        .await
        .map(|(view, ())| view)
    }

    /// Like [`Arbiter::execute`], for a command whose ruling also yields a
    /// value for the caller (e.g. a claim's verdict).
    async fn execute_with<T>(
        &self,
        id: &GameId,
        token: &str,
        decide: impl Fn(&Game, Color, Timestamp) -> Result<(Decision, T), Rejection>,
    ) -> Result<(GameView, T), ArbiterError> {
        let hash = TokenHash::of(token);
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = self.load_current(id).await?;
            let seat = game.seat_of(&hash).ok_or(ArbiterError::NotASeat)?;
            let (decision, extra) = decide(&game, seat, now)?;
            if let Some(next) = self.commit(game, decision).await? {
                return Ok((self.view(next, now).await?, extra));
            }
        }
        Err(ArbiterError::Contention)
    }

    /// An arbiter adds `delta_ms` to (or deducts it from) `color`'s clock.
    pub async fn adjust_clock(
        &self,
        id: &GameId,
        color: Color,
        delta_ms: i64,
        reason: &str,
    ) -> Result<GameView, ArbiterError> {
        self.execute_admin(id, |game, now| {
            game.adjust_clock(color, delta_ms, reason, now)
        })
        .await
    }

    /// An arbiter decides or corrects a game's result.
    pub async fn set_result(
        &self,
        id: &GameId,
        ruling: Ruling,
        reason: &str,
    ) -> Result<GameView, ArbiterError> {
        self.execute_admin(id, |game, now| game.set_result(ruling, reason, now))
            .await
    }

    /// An arbiter stops the clocks.
    pub async fn pause_clock(&self, id: &GameId, reason: &str) -> Result<GameView, ArbiterError> {
        self.execute_admin(id, |game, now| game.pause_clock(reason, now))
            .await
    }

    /// An arbiter restarts the clocks.
    pub async fn resume_clock(&self, id: &GameId, reason: &str) -> Result<GameView, ArbiterError> {
        self.execute_admin(id, |game, now| game.resume_clock(reason, now))
            .await
    }

    /// Runs one arbiter command (the caller has checked the admin token).
    async fn execute_admin(
        &self,
        id: &GameId,
        decide: impl Fn(&Game, Timestamp) -> Result<Decision, Rejection>,
    ) -> Result<GameView, ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = self.load_current(id).await?;
            let decision = decide(&game, now)?;
            if let Some(next) = self.commit(game, decision).await? {
                return self.view(next, now).await;
            }
        }
        Err(ArbiterError::Contention)
    }

    /// Ends, by time, up to `limit` games whose flag or default time is due
    /// by now, committing each ending exactly once whatever the number of
    /// replicas sweeping (the store's compare-and-set decides). Returns how
    /// many due games it looked at.
    pub async fn sweep(&self, limit: usize) -> Result<usize, ArbiterError> {
        let now = self.store.now().await?;
        let due = self.store.due(now, limit).await?;
        for id in &due {
            match self.load_current(id).await {
                Ok((game, _)) => self.index(&game).await,
                Err(ArbiterError::NotFound(_)) => {
                    self.store.index_deadline(id, u64::MAX, None).await?;
                }
                Err(err) => {
                    tracing::warn!(game_id = %id, error = %err, "sweeping a due game failed");
                }
            }
        }
        Ok(due.len())
    }

    /// Loads a game as it stands now: when time has decided it (a flag or
    /// a default time), that ending is committed first.
    async fn load_current(&self, id: &GameId) -> Result<(Game, Timestamp), ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = self.load(id).await?;
            let Some((decision, note)) = game.check_time(now) else {
                return Ok((game, now));
            };
            if let Some(note) = note {
                tracing::warn!(game_id = %id, "{note}");
            }
            if let Some(next) = self.commit(game, decision).await? {
                tracing::info!(
                    game_id = %id,
                    result = ?next.result(),
                    "game ended on time"
                );
                return Ok((next, now));
            }
        }
        Err(ArbiterError::Contention)
    }

    /// Records the game's next deadline for the sweeper. A failure is only
    /// logged: the commit stands, and every read checks time anyway.
    async fn index(&self, game: &Game) {
        if game.clock().is_none() && game.schedule().scheduled_start.is_none() {
            // Time can never end this game: it was never in the index.
            return;
        }
        if let Err(err) = self
            .store
            .index_deadline(game.id(), game.version(), game.deadline())
            .await
        {
            tracing::warn!(game_id = %game.id(), error = %err, "cannot index the game's deadline");
        }
    }

    /// The game in PGN.
    pub async fn export_pgn(&self, id: &GameId) -> Result<String, ArbiterError> {
        let view = self.get_game(id).await?;
        Ok(pgn::export(&view.game, &view.moves))
    }

    /// Every game of an event in PGN, in round and board order, separated
    /// by blank lines.
    pub async fn export_event_pgn(&self, event_id: &EventId) -> Result<String, ArbiterError> {
        let mut exports = Vec::new();
        for game in self.event_snapshot(event_id).await? {
            let moves = self.moves(game.id(), game.ply()).await?;
            exports.push(pgn::export(&game, &moves));
        }
        Ok(exports.join("\n"))
    }

    /// Starts following every game of an event (see [`EventWatcher`]).
    pub fn watch_event(
        &self,
        event_id: &EventId,
        cursor: &str,
    ) -> Result<EventWatcher, ArbiterError> {
        EventWatcher::start(self.clone(), event_id.clone(), cursor)
    }

    /// Starts following a game's events for a watcher (see [`Watcher`]).
    pub async fn watch(&self, id: &GameId, after: u64) -> Result<Watcher, ArbiterError> {
        Watcher::start(self.clone(), id.clone(), after).await
    }

    /// Commits a decision taken on `game`. Returns the game as it now
    /// stands, or `None` when a concurrent commit won and the command must
    /// be decided again on the fresh state.
    async fn commit(&self, game: Game, decision: Decision) -> Result<Option<Game>, ArbiterError> {
        let Decision::Changed { game: next, events } = decision else {
            return Ok(Some(game));
        };
        let state = codec::encode_state(&next)?;
        let events = events
            .iter()
            .map(codec::encode_event)
            .collect::<Result<Vec<_>, _>>()?;
        match self
            .store
            .commit(game.id(), game.version(), state, events)
            .await?
        {
            CommitOutcome::Committed => {
                // A move, an arbiter's clock command or an ending moves the
                // deadline (or removes it): the sweeper must know.
                self.index(&next).await;
                Ok(Some(*next))
            }
            CommitOutcome::Conflict { current } => {
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

    /// A game's state and "now", read together.
    async fn load(&self, id: &GameId) -> Result<(Game, Timestamp), ArbiterError> {
        let (state, now) = self.store.load(id).await?;
        let state = state.ok_or_else(|| ArbiterError::NotFound(id.clone()))?;
        Ok((codec::decode_state(&state)?, now))
    }

    /// The game's events with a version above `after`.
    async fn events_after(&self, id: &GameId, after: u64) -> Result<Vec<GameEvent>, ArbiterError> {
        let stored = self.store.events_after(id, after).await?;
        Ok(stored
            .iter()
            .map(codec::decode_event)
            .collect::<Result<Vec<_>, _>>()?)
    }

    /// The first `ply` moves of a game, from its event log.
    async fn moves(&self, id: &GameId, ply: Ply) -> Result<Vec<MoveRecord>, ArbiterError> {
        let events = self.events_after(id, 0).await?;
        // The log may already hold moves committed after the state we were
        // given; those are not part of this view.
        Ok(events
            .iter()
            .filter_map(GameEvent::move_record)
            .filter(|record| record.ply < ply)
            .cloned()
            .collect())
    }

    async fn view(&self, game: Game, as_of: Timestamp) -> Result<GameView, ArbiterError> {
        let moves = self.moves(game.id(), game.ply()).await?;
        if moves.len() != game.ply().count() as usize {
            return Err(ArbiterError::Store(crate::store::StoreError::Corrupt(
                format!(
                    "game {} is at ply {} but its log holds {} moves",
                    game.id(),
                    game.ply(),
                    moves.len()
                ),
            )));
        }
        Ok(GameView { game, moves, as_of })
    }
}

#[cfg(test)]
mod tests;
