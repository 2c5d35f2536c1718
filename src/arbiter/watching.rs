//! The arbiter's side of watching: starting a watcher with its
//! [`WatchContext`], and answering what a watcher asks about games.

use std::{sync::Arc, time::Duration};

use async_trait::async_trait;

use super::{
    Arbiter, ArbiterError, EventWatcher, MatchScoreRead, Placement, Reader, WatchFrom, Watcher,
    watch::{Games, StoreReads, WatchContext},
};
use crate::domain::{EventId, Game, GameId, Timestamp};

#[async_trait]
impl Games for Arbiter {
    async fn current(&self, id: &GameId) -> Result<(Game, Timestamp), ArbiterError> {
        let (game, now) = self.load_current(id).await?;
        Ok((Arc::unwrap_or_clone(game), now))
    }

    async fn public(&self, live: Game, now: Timestamp) -> Result<(Game, Timestamp), ArbiterError> {
        self.public_game(live, now).await
    }

    async fn placements_of(
        &self,
        games: &[GameId],
    ) -> Result<Vec<(GameId, Placement)>, ArbiterError> {
        Arbiter::placements_of(self, games).await
    }

    async fn match_score(
        &self,
        game: &GameId,
        version: u64,
        public: bool,
    ) -> Result<Option<MatchScoreRead>, ArbiterError> {
        self.match_score_after(game, version, public).await
    }
}

impl Arbiter {
    /// What a watcher uses: the replica's hub, clock and heartbeats, reads
    /// of the store, and this arbiter for the games themselves.
    fn watch_context(&self) -> WatchContext {
        WatchContext {
            games: Arc::new(self.clone()),
            reads: StoreReads::new(self.store.clone()),
            hub: self.hub.clone(),
            clock: self.clock.clone(),
            heartbeats: self.heartbeats.clone(),
            joins: self.joins.clone(),
        }
    }

    /// Ends every game watcher of this replica once `shutdown` fires (they
    /// learn it from the replica's hub, with their games' events). Call it
    /// within the runtime, once per token.
    pub fn end_watches_on(&self, shutdown: tokio_util::sync::CancellationToken) {
        self.hub.shut_down_on(shutdown);
    }

    /// Starts following a game's events for a watcher (see [`Watcher`]),
    /// with a heartbeat whenever the stream has been quiet for `heartbeat`;
    /// the public (as `reader` says) follows a delayed game as it sees it.
    pub async fn watch(
        &self,
        id: &GameId,
        from: WatchFrom,
        heartbeat: Duration,
        reader: &Reader,
    ) -> Result<Watcher, ArbiterError> {
        Watcher::start(self.watch_context(), id.clone(), from, heartbeat, reader).await
    }

    /// Starts following every game of an event (see [`EventWatcher`]), as
    /// `reader` sees them.
    pub fn watch_event(
        &self,
        event_id: &EventId,
        cursor: &str,
        heartbeat: Duration,
        reader: &Reader,
        round: Option<u32>,
    ) -> Result<EventWatcher, ArbiterError> {
        EventWatcher::start(
            self.watch_context(),
            event_id.clone(),
            cursor,
            heartbeat,
            reader,
            round,
        )
    }
}
