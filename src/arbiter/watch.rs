//! Following a game for a watcher: a snapshot or the missed events first,
//! then every new event exactly once, in version order, until the game ends.

use std::{collections::VecDeque, time::Duration};

use tokio_util::sync::CancellationToken;

use super::{Arbiter, ArbiterError, GameView, codec};
use crate::{
    domain::{GameEvent, GameId, GameStatus},
    store::EventFollower,
};

/// How long one blocking read of the log waits before it is renewed.
const FOLLOW_WAIT: Duration = Duration::from_secs(5);

/// One message for a watcher.
#[derive(Clone, Debug)]
pub enum WatchItem {
    /// The whole game as of its version.
    Snapshot(Box<GameView>),
    /// One event, following the previous item without a gap.
    Event(Box<GameEvent>),
}

/// A watcher's position in one game's event log.
pub struct Watcher {
    id: GameId,
    follower: Box<dyn EventFollower>,
    /// The version of the last item handed out.
    cursor: u64,
    pending: VecDeque<WatchItem>,
    /// The game's final event has been queued: nothing follows it.
    complete: bool,
}

impl Watcher {
    pub(super) async fn start(
        arbiter: Arbiter,
        id: GameId,
        after: u64,
    ) -> Result<Self, ArbiterError> {
        let (game, now) = arbiter.load_current(&id).await?;
        let current = game.version();
        if after > current {
            return Err(ArbiterError::VersionAhead {
                requested: after,
                current,
            });
        }
        let follower = arbiter.store.follow(&id).await?;
        let mut watcher = Self {
            id: id.clone(),
            follower,
            cursor: after,
            pending: VecDeque::new(),
            complete: false,
        };
        if after == 0 {
            // A new watcher gets the game as it stands, then what follows.
            watcher.cursor = current;
            watcher.complete = game.status() != GameStatus::Active;
            watcher.pending.push_back(WatchItem::Snapshot(Box::new(
                arbiter.view(game, now).await?,
            )));
        } else {
            watcher.complete = game.status() != GameStatus::Active && after == current;
            let missed = arbiter.events_after(&id, after).await?;
            watcher.accept(missed)?;
        }
        Ok(watcher)
    }

    /// The next item, waiting for the game to change if need be. `Ok(None)`
    /// means the game has ended and everything has been sent.
    pub async fn next(
        &mut self,
        shutdown: &CancellationToken,
    ) -> Result<Option<WatchItem>, ArbiterError> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Ok(Some(item));
            }
            if self.complete {
                return Ok(None);
            }
            let batch = tokio::select! {
                () = shutdown.cancelled() => return Err(ArbiterError::ShuttingDown),
                batch = self.follower.next_batch(self.cursor, FOLLOW_WAIT) => batch?,
            };
            let events = batch
                .iter()
                .map(codec::decode_event)
                .collect::<Result<Vec<_>, _>>()?;
            self.accept(events)?;
        }
    }

    /// Queues the events that follow the cursor, checking there is no gap.
    fn accept(&mut self, events: impl IntoIterator<Item = GameEvent>) -> Result<(), ArbiterError> {
        let events: Vec<GameEvent> = events
            .into_iter()
            .filter(|event| event.version > self.cursor)
            .collect();
        codec::check_contiguous(&self.id, self.cursor, &events)?;
        for event in events {
            self.cursor = event.version;
            self.complete = event.is_final();
            self.pending.push_back(WatchItem::Event(Box::new(event)));
        }
        Ok(())
    }
}

impl Arbiter {
    /// Starts following a game's events for a watcher (see [`Watcher`]).
    pub async fn watch(&self, id: &GameId, after: u64) -> Result<Watcher, ArbiterError> {
        Watcher::start(self.clone(), id.clone(), after).await
    }
}
